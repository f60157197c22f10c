"""ADD's Prepare as TFLM computes it: the parameters `params::OP_0` must hold.

tensorflow/lite/micro/kernels/add_common.cc:35-79 (CalculateOpDataAdd) and
tensorflow/lite/kernels/kernel_util.cc (CalculateActivationRangeQuantized).
"""

import tflm


def extend6(shape):
    """The shape right-aligned into 6 dimensions with leading 1s, as
    RuntimeShape::ExtendedShape does before BroadcastBinaryOpSimple
    (tensorflow/lite/kernels/internal/reference/broadcast_loop.h:112-126)."""
    if len(shape) > 6:
        raise tflm.PrepareFails(f"rank {len(shape)} above 6")
    return [1] * (6 - len(shape)) + list(shape)


def binary_shape(op):
    return {"input1": extend6(op.input(0).shape), "input2": extend6(op.input(1).shape),
            "output": extend6(op.output.shape)}


def expected(op):
    in1, in2, out = op.input(0), op.input(1), op.output
    act = tflm.ACTIVATIONS[op.options.fusedActivationFunction]
    shape = binary_shape(op)
    if out.dtype == "float32":
        # add_common.cc:72-75: CalculateActivationRange for floats.
        lo, hi = tflm.activation_range_float(act)
        return {"shape": shape, "act_min": lo, "act_max": hi}
    if out.dtype == "int32":
        # add_common.cc:106-111: unquantised only; add.cc:59-60: the whole int32 range,
        # whatever the activation.
        if tflm.is_quantized(in1) or tflm.is_quantized(in2):
            raise tflm.PrepareFails("int32 ADD of quantised inputs")
        return {"shape": shape, "act_min": tflm.INT32_MIN, "act_max": tflm.INT32_MAX}
    # add_common.cc:45: left shift 15 for int16, 20 for int8.
    left_shift = 15 if out.dtype == "int16" else 20
    # add_common.cc:49-58: the larger scale compared in float, then doubled in double.
    twice_max_input_scale = 2 * float(max(tflm.F32(in1.s), tflm.F32(in2.s)))
    real_input1 = float(tflm.F32(in1.s)) / twice_max_input_scale
    real_input2 = float(tflm.F32(in2.s)) / twice_max_input_scale
    real_output = twice_max_input_scale / ((1 << left_shift) * float(tflm.F32(out.s)))
    # add_common.cc:60-67: QuantizeMultiplierSmallerThanOneExp checks 0 < m < 1 and shift <= 0
    # (quantization_util.cc:117-121, aborts).
    multipliers = []
    for real in (real_input1, real_input2, real_output):
        m = tflm.quantize_multiplier_smaller_than_one_exp(real)
        if m is None:
            raise tflm.PrepareFails(f"QuantizeMultiplierSmallerThanOneExp({real!r}) aborts")
        if m["shift"] > 0:
            raise tflm.PrepareFails(f"QuantizeMultiplierSmallerThanOneExp({real!r}): shift > 0")
        multipliers.append(m)
    # add_common.cc:69-71
    lo, hi = tflm.activation_range_quantized(act, out.s, out.z, out.dtype)
    return {
        "shape": shape,
        "left_shift": left_shift,
        # add_common.cc:45-47
        "input1_offset": -in1.z,
        "input1": multipliers[0],
        "input2_offset": -in2.z,
        "input2": multipliers[1],
        "output_offset": out.z,
        "output": multipliers[2],
        "act_min": lo,
        "act_max": hi,
    }
