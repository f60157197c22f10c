"""LOG_SOFTMAX's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/log_softmax.cc:44-100 (CalculateOpData) with
tensorflow/lite/kernels/internal/quantization_util.cc:321-336
(PreprocessLogSoftmaxScalingExp) and :338 (CalculateInputRadius), both through ctypes.
"""

import math

import tflm


def expected(op):
    inp, out = op.input(0), op.output
    # log_softmax.cc:47-57: one input, one output, the same type and shape.
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        raise tflm.PrepareFails("one input and one output")
    if inp.dtype != out.dtype or inp.shape != out.shape:
        raise tflm.PrepareFails("types or shapes differ")
    if not inp.shape:
        raise tflm.PrepareFails("a scalar input")
    depth = inp.shape[-1]
    rows = math.prod(inp.shape[:-1])
    if inp.dtype == "float32":
        return {"rows": rows, "depth": depth}
    if inp.dtype != "int8":
        return {}
    # log_softmax.cc:63-70: the output is (16/256, 127), compared in float.
    if tflm.F32(out.s) != tflm.F32(16.0 / 256) or out.z != 127:
        raise tflm.PrepareFails("the output is not (16/256, 127)")
    scale = float(tflm.F32(inp.s))
    # quantization_util.cc:313-318: QuantizeMultiplierGreaterThanOne aborts unless the scaled
    # multiplier is above 1; and QuantizeMultiplierSmallerThanOneExp unless the reverse
    # scaling is in (0, 1): check both before calling TFLM.
    if not min(scale * (1 << 26), float(2 ** 31 - 1)) > 1.0:
        raise tflm.PrepareFails("input scale x 2^26 <= 1: TFLM aborts")
    m = tflm.preprocess_softmax_scaling(1.0, scale, 5)
    power = tflm.wrap_i32(1 << (31 - m["shift"]))
    reverse = float(power) / float(m["multiplier"])
    if not 0.0 < reverse < 1.0:
        raise tflm.PrepareFails("reverse scaling outside (0, 1): TFLM aborts")
    p = tflm.preprocess_log_softmax_scaling_exp(1.0, scale, 5)
    return {
        "rows": rows,
        "depth": depth,
        "input_multiplier": p["multiplier"],
        "input_left_shift": p["shift"],
        "reverse_scaling_divisor": p["reverse_divisor"],
        # log_softmax.cc:77-78: the negated reverse shift.
        "reverse_scaling_right_shift": -p["reverse_shift"],
        # log_softmax.cc:81-82
        "diff_min": -tflm.calculate_input_radius(5, p["shift"], 31),
    }
