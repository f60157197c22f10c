"""The comparisons' Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/comparisons.cc:720-755 (ComparisonsPrepare: for int8, each
input's scale through QuantizeMultiplierSmallerThanOneExp, left shift 8; nothing otherwise).
"""

import tflm
from add import binary_shape


def expected(op):
    in1, in2 = op.input(0), op.input(1)
    shape = binary_shape(op)
    if in1.dtype != "int8":
        return shape
    multipliers = []
    for t in (in1, in2):
        # comparisons.cc:736-743; quantization_util.cc: TFLITE_CHECK_LT(double_multiplier, 1.)
        m = tflm.quantize_multiplier_smaller_than_one_exp(float(tflm.F32(t.s)))
        if m is None:
            raise tflm.PrepareFails(f"QuantizeMultiplierSmallerThanOneExp({t.s}) aborts")
        multipliers.append(m)
    return {
        "shape": shape,
        "left_shift": 8,
        "input1_offset": -in1.z,
        "input1": multipliers[0],
        "input2_offset": -in2.z,
        "input2": multipliers[1],
    }
