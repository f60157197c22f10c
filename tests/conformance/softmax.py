"""SOFTMAX's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/softmax_common.cc:80-166 (CalculateSoftmaxParams,
SoftmaxPrepare), tensorflow/lite/kernels/internal/quantization_util.cc:282-355
(PreprocessSoftmaxScaling, CalculateInputRadius: called through ctypes) and
tensorflow/lite/kernels/internal/reference/softmax.h (the rows and depth the kernel walks).
"""

import math

import tflm


def expected(op):
    inp, out = op.input(0), op.output
    # softmax_common.cc:152: rank >= 1.
    if len(inp.shape) < 1:
        raise tflm.PrepareFails("a scalar input")
    # reference/softmax.h: the last dimension is the depth, the others flatten into rows
    # (MatchingFlatSizeSkipDim).
    depth = inp.shape[-1]
    rows = math.prod(inp.shape[:-1])
    shape = {"rows": rows, "depth": depth}
    if inp.dtype == "float32":
        # softmax_common.cc:133-135
        if out.dtype != "float32":
            raise tflm.PrepareFails("float input, non-float output")
        # op_data->beta = (double)params->beta; the kernel casts it back to float.
        return {**shape, "beta": float(tflm.F32(op.options.beta))}
    if inp.dtype != "int8":
        raise tflm.PrepareFails(f"{inp.dtype} input is not covered here")
    # softmax_common.cc:52 (InitializeLutForInt16): an int8 output for an int8 input.
    if out.dtype != "int8":
        raise tflm.PrepareFails("int8 input, non-int8 output")
    # softmax_common.cc:102-104: zero point -128 and scale exactly 1/256 (a float compare).
    if out.z != -128:
        raise tflm.PrepareFails(f"output zero point {out.z}, not -128")
    if tflm.F32(out.s) != tflm.F32(1.0 / 256):
        raise tflm.PrepareFails(f"output scale {out.s}, not 1/256")
    # softmax_common.cc:108 kScaledDiffIntegerBits = 5; :123-130 PreprocessSoftmaxScaling and
    # diff_min = -1.0 * CalculateInputRadius(5, input_left_shift) (total_signed_bits 31).
    beta = float(tflm.F32(op.options.beta))
    scale = float(tflm.F32(inp.s))
    # quantization_util.cc:313-318: QuantizeMultiplierGreaterThanOne aborts (TFLITE_CHECK_GT)
    # unless min(beta * scale * 2^26, 2^31 - 1) > 1; don't call it then.
    if not min(beta * scale * (1 << 26), float((1 << 31) - 1)) > 1.0:
        raise tflm.PrepareFails("beta x input scale x 2^26 <= 1: TFLM aborts")
    m = tflm.preprocess_softmax_scaling(beta, scale, 5)
    radius = tflm.calculate_input_radius(5, m["shift"], 31)
    return {
        **shape,
        "input_multiplier": m["multiplier"],
        "input_left_shift": m["shift"],
        "diff_min": tflm.cast_i32_x86(-1.0 * radius),
    }
