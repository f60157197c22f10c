"""SVDF's Prepare as TFLM computes it: the parameters `params::OP_0` must hold.

tensorflow/lite/micro/kernels/svdf_common.cc:363-517 (PrepareSvdf), svdf.cc (EvalSvdf picks the
kernel by the time weights' type), tensorflow/lite/micro/kernels/activation_utils.h
(ActivationValFloat) and tensorflow/lite/core/api/flatbuffer_conversions.cc (ParseSvdf,
ConvertActivation: an unknown activation code is none).
"""

import tflm

# The kernel's SvdfActivation for TFLM's TfLiteFusedActivation (ConvertActivation).
FLOAT_ACTIVATIONS = {0: "None", 1: "Relu", 2: "ReluN1To1", 3: "Relu6", 4: "Tanh", 5: "SignBit"}


def expected(op):
    o = op.options
    if o is None:
        raise tflm.PrepareFails("no SVDFOptions")
    rank = o.rank
    inp, wf, wt, bias, state = (op.input(i) for i in range(5))
    out = op.output
    # svdf_common.cc:393-397: num_filters % rank (a zero rank divides by zero).
    if rank <= 0:
        raise tflm.PrepareFails(f"rank {rank}")
    batch, input_size = inp.shape[0], inp.shape[1]
    num_filters = wf.shape[0]
    if num_filters % rank != 0:
        raise tflm.PrepareFails("num_filters % rank != 0")
    num_units = num_filters // rank
    memory_size = wt.shape[1]
    # svdf_common.cc:402-437: types, ranks and dimensions.
    if inp.dtype not in ("float32", "int8") or len(inp.shape) != 2:
        raise tflm.PrepareFails("input")
    if len(out.shape) != 2 or out.shape != [batch, num_units]:
        raise tflm.PrepareFails("output shape")
    if len(wf.shape) != 2 or wf.shape[1] != input_size:
        raise tflm.PrepareFails("weights_feature shape")
    if len(wt.shape) != 2 or wt.shape[0] != num_filters:
        raise tflm.PrepareFails("weights_time shape")
    # svdf_common.cc:512 releases the bias without a check (TODO #1751): a missing bias
    # crashes Prepare, for every type.
    if bias is None:
        raise tflm.PrepareFails("SVDF without a bias (TFLM's Prepare crashes)")
    if bias.shape[0] != num_units:
        raise tflm.PrepareFails("bias shape")
    if len(state.shape) != 2 or state.shape != [batch, memory_size * num_filters]:
        raise tflm.PrepareFails("activation_state shape")
    shape = {"batches": batch, "input_size": input_size, "filters": num_filters, "rank": rank,
             "memory": memory_size}
    if inp.dtype == "float32":
        # svdf_common.cc:491-498
        for t in (wf, wt, state, bias):
            if t.dtype != "float32":
                raise tflm.PrepareFails("float SVDF needs float32 tensors")
        return {"shape": shape,
                "activation": FLOAT_ACTIVATIONS.get(o.fusedActivationFunction, "None")}
    # svdf_common.cc:442-460: int8. The source multiplies the scales in float; the wheel's
    # PrepareSvdf (objdump of _runtime.so: cvtss2sd on each scale, then mulsd/divsd) and its
    # check's message ("static_cast<double>(activation_state->params.scale) *
    # static_cast<double>(weights_time->params.scale)") do it all in double.
    F32 = tflm.F32
    state_time = float(F32(state.s)) * float(F32(wt.s))
    effective_scale_1 = float(F32(inp.s)) * float(F32(wf.s)) / float(F32(state.s))
    effective_scale_2 = state_time / float(F32(out.s))
    # svdf_common.cc:462-468: |bias scale - state scale x time scale| < 1e-5, in double.
    if not abs(float(F32(bias.s)) - state_time) < 1e-5:
        raise tflm.PrepareFails("bias scale")
    return {
        "shape": shape,
        # svdf_common.cc:475-477
        "input_zero_point": inp.z,
        "state_zero_point": state.z,
        "output_zero_point": out.z,
        # svdf_common.cc:470-473
        "feature": tflm.quantize_multiplier(effective_scale_1),
        "time": tflm.quantize_multiplier(effective_scale_2),
    }
