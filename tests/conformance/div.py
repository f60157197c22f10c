"""DIV's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/div.cc:46-66 (CalculateOpDataDiv), :72-100 (DivPrepare),
:102-128 (EvalDiv: CalculateActivationRange for float and int32).
"""

import tflm
from add import binary_shape

F32 = tflm.F32


def expected(op):
    in1, in2, out = op.input(0), op.input(1), op.output
    act = tflm.ACTIVATIONS[op.options.fusedActivationFunction]
    shape = binary_shape(op)
    # div.cc:50-51
    if not (in1.dtype == in2.dtype == out.dtype):
        raise tflm.PrepareFails("DIV's types differ")
    if out.dtype == "float32":
        lo, hi = tflm.activation_range_float(act)
        return {"shape": shape, "act_min": lo, "act_max": hi}
    if out.dtype == "int32":
        # div.cc:89-94
        if tflm.is_quantized(in1) or tflm.is_quantized(in2):
            raise tflm.PrepareFails("int32 DIV of quantised inputs")
        lo, hi = tflm.activation_range_int32(act)
        return {"shape": shape, "act_min": lo, "act_max": hi}
    # div.cc:53-55
    lo, hi = tflm.activation_range_quantized(act, out.s, out.z, out.dtype)
    # div.cc:57-60: the product and the quotient in float.
    real = float(F32(in1.s) / (F32(in2.s) * F32(out.s)))
    return {
        "shape": shape,
        "input1_offset": -in1.z,
        "input2_offset": -in2.z,
        "output_offset": out.z,
        "output": tflm.quantize_multiplier(real),
        "act_min": lo,
        "act_max": hi,
    }
