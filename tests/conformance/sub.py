"""SUB's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/sub_common.cc:31-70 (CalculateOpDataSub; the wheel's in double),
:72-106 (SubPrepare), sub.cc:41-83 (EvalSub: CalculateActivationRange for float and int32).
"""

import tflm
from add import binary_shape

F32 = tflm.F32


def expected(op):
    in1, in2, out = op.input(0), op.input(1), op.output
    act = tflm.ACTIVATIONS[op.options.fusedActivationFunction]
    shape = binary_shape(op)
    if out.dtype == "float32":
        lo, hi = tflm.activation_range_float(act)
        return {"shape": shape, "act_min": lo, "act_max": hi}
    if out.dtype == "int32":
        # sub_common.cc:96-103
        if any(tflm.is_quantized(t) for t in (in1, in2, out)):
            raise tflm.PrepareFails("int32 SUB of quantised tensors")
        lo, hi = tflm.activation_range_int32(act)
        return {"shape": shape, "act_min": lo, "act_max": hi}
    # sub_common.cc:44: left shift 15 for int16, 20 for int8.
    left_shift = 15 if out.dtype == "int16" else 20
    # sub_common.cc:45-53 keeps the scales in float at 90b983c2; the pinned wheel computes
    # them as ADD does, in double (its outputs differ from the float multipliers' by one
    # step now and then, and match these): the larger scale compared in float, then doubled.
    twice = 2 * float(max(F32(in1.s), F32(in2.s)))
    reals = [float(F32(in1.s)) / twice, float(F32(in2.s)) / twice,
             twice / ((1 << left_shift) * float(F32(out.s)))]
    multipliers = []
    for real in reals:
        m = tflm.quantize_multiplier_smaller_than_one_exp(real)
        if m is None or m["shift"] > 0:
            raise tflm.PrepareFails(f"QuantizeMultiplierSmallerThanOneExp({real!r}) aborts")
        multipliers.append(m)
    # sub_common.cc:61-63
    lo, hi = tflm.activation_range_quantized(act, out.s, out.z, out.dtype)
    return {
        "shape": shape,
        "left_shift": left_shift,
        "input1_offset": -in1.z,
        "input1": multipliers[0],
        "input2_offset": -in2.z,
        "input2": multipliers[1],
        "output_offset": out.z,
        "output": multipliers[2],
        "act_min": lo,
        "act_max": hi,
    }
