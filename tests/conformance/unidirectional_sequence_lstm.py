"""UNIDIRECTIONAL_SEQUENCE_LSTM's Prepare as TFLM computes it: the parameters `params::OP_0`
must hold.

tensorflow/lite/micro/kernels/unidirectional_sequence_lstm.cc:43-97
(UnidirectionalSequenceLstmPrepare), lstm_eval.cc:44-98 (LstmTensors::ValidateTensorStatus),
lstm_eval_common.cc (CreateLstmSizeInfo, ValidateTensorSize, CreateGateParams,
CreateInterGateMulParams, CreateLstmCellStateInfo, PrepareGateParametersInteger) and
fully_connected_common.cc (CalculateOpDataFullyConnected). CreateLstmCellStateInfo and
CreateInterGateMulParams are the wheel's own, through ctypes.
"""

import ctypes

import tflm

GATE_INPUT_SCALE = 2.0 ** -12    # lstm_eval_common.cc:239 nonlinear_activation_input_scale
GATE_OUTPUT_SCALE = 2.0 ** -15   # lstm_eval_common.cc:282 nonlinear_output_scale
TFLITE_TYPES = {"int8": 9, "int16": 7}  # TfLiteType


class _CellStateInfo(ctypes.Structure):
    # lstm_shared.h:96 CellStateInfo
    _fields_ = [("cell_clip", ctypes.c_float), ("quantized_cell_clip", ctypes.c_int16),
                ("cell_state_scale_power", ctypes.c_int32)]


class _ArithmeticParams(ctypes.Structure):
    # tensorflow/lite/kernels/internal/types.h:675 ArithmeticParams, its first fields (the rest
    # is padding, larger than the struct, for the hidden return pointer).
    _fields_ = [("broadcast_category", ctypes.c_uint8), ("input1_offset", ctypes.c_int32),
                ("input2_offset", ctypes.c_int32), ("output_offset", ctypes.c_int32),
                ("output_multiplier", ctypes.c_int32), ("output_shift", ctypes.c_int32),
                ("left_shift", ctypes.c_int32), ("input1_multiplier", ctypes.c_int32),
                ("input1_shift", ctypes.c_int32), ("input2_multiplier", ctypes.c_int32),
                ("input2_shift", ctypes.c_int32), ("quantized_activation_min", ctypes.c_int32),
                ("quantized_activation_max", ctypes.c_int32), ("_rest", ctypes.c_uint8 * 512)]


def _functions():
    lib = tflm.lib()
    cell = lib._ZN6tflite5micro23CreateLstmCellStateInfoEff
    cell.argtypes = [ctypes.c_float, ctypes.c_float]
    cell.restype = _CellStateInfo
    mul = lib._ZN6tflite5micro24CreateInterGateMulParamsEfffNS0_10TfLiteTypeEi
    mul.argtypes = [ctypes.c_float, ctypes.c_float, ctypes.c_float, ctypes.c_int, ctypes.c_int]
    mul.restype = _ArithmeticParams
    return cell, mul


def mul_params(s1, s2, out_scale, out_type, out_zp=0):
    """lstm_eval_common.cc:143 CreateInterGateMulParams (the wheel's, through ctypes)."""
    _, mul = _functions()
    p = mul(s1, s2, out_scale, TFLITE_TYPES[out_type], out_zp)
    # The inputs are symmetric (lstm_eval_common.cc:156-157).
    assert p.input1_offset == 0 and p.input2_offset == 0
    return {"output_offset": p.output_offset,
            "requant": {"multiplier": p.output_multiplier, "shift": p.output_shift},
            "act_min": p.quantized_activation_min, "act_max": p.quantized_activation_max}


def fc_params(x, w):
    """lstm_eval_common.cc:104-137 CreateGateParams: CalculateOpDataFullyConnected
    (fully_connected_common.cc:55-156) without bias, to a symmetric int16 of scale 2^-12, and
    FullyConnectedParamsQuantized (fully_connected_common.cc:34-45)."""
    if len(w.scale) > 1:
        raise tflm.PrepareFails("per-channel weights (TFLM's LSTM leaves the multiplier undefined)")
    # kernel_util.cc:328-339 GetQuantizedConvolutionMultipler. The source multiplies the
    # scales in float; the wheel's build converts each to double first (objdump of
    # _runtime.so: cvtss2sd, cvtss2sd, mulsd, divsd).
    real = float(tflm.F32(x.s)) * float(tflm.F32(w.s)) / GATE_INPUT_SCALE
    lo, hi = tflm.activation_range_quantized("NONE", GATE_INPUT_SCALE, 0, "int16")
    return {"input_offset": -x.z, "weights_offset": -w.z, "output_offset": 0,
            "requant": tflm.quantize_multiplier(real), "act_min": lo, "act_max": hi}


def expected(op):
    o = op.options
    if o is None:
        raise tflm.PrepareFails("no options")
    if len(op.inputs) != 24 or len(op.outputs) != 1:
        raise tflm.PrepareFails("24 inputs, 1 output")
    t = [op.input(i) for i in range(24)]
    x, hidden, cell, out = t[0], t[18], t[19], op.output
    # lstm_eval.cc:58-97 ValidateTensorStatus.
    if x is None or hidden is None or cell is None:
        raise tflm.PrepareFails("input or state missing")
    if hidden.dtype != x.dtype or out.dtype != x.dtype:
        raise tflm.PrepareFails("types")
    if any(t[i] is None for i in range(1, 9)) or any(t[i] is None for i in range(12, 16)):
        raise tflm.PrepareFails("a gate's weights or bias missing (no CIFG)")
    if len({t[i].dtype for i in range(1, 9)}) != 1 or len({t[i].dtype for i in range(12, 16)}) != 1:
        raise tflm.PrepareFails("weight or bias types differ")
    if any(t[i] is not None for i in (9, 10, 11, 16, 17, 20, 21, 22, 23)):
        raise tflm.PrepareFails("peephole, projection or layer normalisation")
    # lstm_eval_common.cc:25-37 CreateLstmSizeInfo.
    time_major = bool(o.timeMajor)
    batch = x.shape[1] if time_major else x.shape[0]
    time = x.shape[0] if time_major else x.shape[1]
    size = {"time_major": time_major, "batch_size": batch, "time_steps": time,
            "input_dimension": x.shape[2], "state_dimension": hidden.shape[1]}
    # lstm_eval_common.cc:57-97 ValidateTensorSize.
    s, i_dim = size["state_dimension"], size["input_dimension"]
    for i in range(1, 9):
        if t[i].shape != [s, i_dim if i < 5 else s]:
            raise tflm.PrepareFails("weight shape")
    for i in range(12, 16):
        if t[i].shape != [s]:
            raise tflm.PrepareFails("bias shape")
    n = 1
    for d in hidden.shape:
        n *= d
    c = 1
    for d in cell.shape:
        c *= d
    if n != batch * s or c != batch * s:
        raise tflm.PrepareFails("state sizes")
    if len(out.shape) != 3 or out.shape[:2] != x.shape[:2] or out.shape[2] != s:
        raise tflm.PrepareFails("output shape")
    tanh = o.fusedActivationFunction == 4  # kTfLiteActTanh
    if cell.dtype == "float32":
        # unidirectional_sequence_lstm.cc:65-68, lstm_eval_common.cc:205-211
        # CreateLstmCellStateInfoFloat.
        return {"size": size, "cell_clip": float(tflm.F32(o.cellClip)), "cell_gate_tanh": tanh}
    if cell.dtype != "int16":
        raise tflm.PrepareFails("cell state type")
    # unidirectional_sequence_lstm.cc:69-73: CreateLstmCellStateInfo (the wheel's).
    cell_info, _ = _functions()
    ci = cell_info(cell.s, o.cellClip)
    # lstm_eval_common.cc:235-296 PrepareGateParametersInteger: the gates in the order
    # forget, input, cell, output; input FC with the input, recurrent FC with the hidden state.
    gates = {}
    for name, wi in (("forget_gate", 2), ("input_gate", 1), ("cell_gate", 3), ("output_gate", 4)):
        gates[name] = {"input_fc": fc_params(x, t[wi]), "recurrent_fc": fc_params(hidden, t[wi + 4])}
    return {
        "size": size,
        "cell_state": {"cell_clip": ci.cell_clip, "quantized_cell_clip": ci.quantized_cell_clip,
                       "cell_state_scale_power": ci.cell_state_scale_power},
        "cell_gate_tanh": tanh,
        **gates,
        # lstm_eval_common.cc:283-296
        "forget_cell_mul": mul_params(GATE_OUTPUT_SCALE, cell.s, cell.s, "int16"),
        "input_mul": mul_params(GATE_OUTPUT_SCALE, GATE_OUTPUT_SCALE, cell.s, "int16"),
        "output_mul": mul_params(GATE_OUTPUT_SCALE, GATE_OUTPUT_SCALE, hidden.s, hidden.dtype,
                                 hidden.z),
    }
