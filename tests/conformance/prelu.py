"""PRELU's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/prelu_common.cc:24-44 (CalculatePreluParams: both multipliers
in double through QuantizeMultiplier), :90-110 (PreluPrepare: int16 needs int8 alphas).
"""

import tflm
from add import binary_shape


def expected(op):
    inp, alpha, out = op.input(0), op.input(1), op.output
    shape = binary_shape(op)
    if out.dtype == "float32":
        return shape
    if out.dtype == "int16" and alpha.dtype != "int8":
        raise tflm.PrepareFails("int16 PRELU needs int8 alphas")
    s_in, s_a, s_out = (float(tflm.F32(t.s)) for t in (inp, alpha, out))
    return {
        "shape": shape,
        "input_offset": -inp.z,
        "alpha_offset": -alpha.z,
        "output_offset": out.z,
        "output1": tflm.quantize_multiplier(s_in / s_out),
        "output2": tflm.quantize_multiplier(s_in * s_a / s_out),
    }
