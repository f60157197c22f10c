"""SQUARED_DIFFERENCE's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/squared_difference.cc:45-83 (PrepareQuantized), :85-137
(SquaredDifferencePrepare: int8 left shift 7, int16 left shift 0 with zero points 0).
"""

import tflm
from add import binary_shape

F32 = tflm.F32


def expected(op):
    in1, in2, out = op.input(0), op.input(1), op.output
    shape = binary_shape(op)
    # squared_difference.cc:96
    if in1.dtype != in2.dtype:
        raise tflm.PrepareFails("input types differ")
    if in1.dtype in ("float32", "int32"):
        return shape
    if in1.dtype == "int16":
        # squared_difference.cc:126-128
        if in1.z or in2.z or out.z:
            raise tflm.PrepareFails("int16 with a zero point other than 0")
        left_shift, lo, hi = 0, -32768, 32767
    else:
        left_shift, lo, hi = 7, -128, 127
    # squared_difference.cc:58-71: the larger scale in float, the rest in double; the output
    # denominator's product `(1 << 2 left_shift) * scale` in float.
    twice = 2.0 * float(max(F32(in1.s), F32(in2.s)))
    real1 = float(F32(in1.s)) / twice
    real2 = float(F32(in2.s)) / twice
    real_out = (twice * twice) / float(F32(1 << (left_shift * 2)) * F32(out.s))
    m1 = tflm.quantize_multiplier_smaller_than_one_exp(real1)
    m2 = tflm.quantize_multiplier_smaller_than_one_exp(real2)
    if m1 is None or m2 is None:
        raise tflm.PrepareFails("QuantizeMultiplierSmallerThanOneExp aborts")
    return {
        "shape": shape,
        "left_shift": left_shift,
        "input1_offset": -in1.z,
        "input1": m1,
        "input2_offset": -in2.z,
        "input2": m2,
        "output_offset": out.z,
        "output": tflm.quantize_multiplier(real_out),
        "act_min": lo,
        "act_max": hi,
    }
