"""MUL's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/mul_common.cc:38-96 (CalculateOpDataMul) and :108-116 (the
offsets EvalMulQuantizedReference passes).
"""

import tflm
from add import binary_shape


def expected(op):
    in1, in2, out = op.input(0), op.input(1), op.output
    act = tflm.ACTIVATIONS[op.options.fusedActivationFunction]
    shape = binary_shape(op)
    # mul_common.cc:55: TF_LITE_ENSURE_TYPES_EQ(input1->type, input2->type)
    if in1.dtype != in2.dtype:
        raise tflm.PrepareFails("input types differ")
    if out.dtype == "float32":
        # mul_common.cc:81-83
        lo, hi = tflm.activation_range_float(act)
        return {"shape": shape, "act_min": lo, "act_max": hi}
    if out.dtype == "int32":
        # mul_common.cc:75-77: CalculateActivationRange<int32_t>.
        lo, hi = tflm.activation_range_int32(act)
        return {"shape": shape, "act_min": lo, "act_max": hi}
    # mul_common.cc:58-60
    lo, hi = tflm.activation_range_quantized(act, out.s, out.z, out.dtype)
    # mul_common.cc:69-73: int16 needs zero points 0.
    if in1.dtype == "int16" and (in1.z or in2.z or out.z):
        raise tflm.PrepareFails("int16 MUL with a zero point other than 0")
    # mul_common.cc:62-66: the three scales as doubles, multiplied and divided in double.
    real = float(tflm.F32(in1.s)) * float(tflm.F32(in2.s)) / float(tflm.F32(out.s))
    return {
        "shape": shape,
        # mul_common.cc:111-113 (EvalMulQuantizedReference): offsets are minus the zero points.
        "input1_offset": -in1.z,
        "input2_offset": -in2.z,
        "output_offset": out.z,
        "output": tflm.quantize_multiplier(real),
        "act_min": lo,
        "act_max": hi,
    }
