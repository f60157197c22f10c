"""ADD_N's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/add_n.cc:38-110 (CalculateOpData: float32 has no parameters;
int8 left shift 20, the multipliers of ADD with one input scale, no activation).
"""

import tflm


def expected(op):
    first, out = op.input(0), op.output
    if len(op.inputs) < 2 or out.dtype != first.dtype:
        raise tflm.PrepareFails("inputs or types")
    for t in op.inputs[1:]:
        if t.shape != first.shape or t.dtype != first.dtype:
            raise tflm.PrepareFails("shapes or types differ")
        if first.dtype == "int8" and (t.z != first.z or t.s != first.s):
            raise tflm.PrepareFails("quantisations differ")
    if out.dtype == "float32":
        return {}
    if out.dtype != "int8":
        raise tflm.PrepareFails(f"ADD_N of {out.dtype}")
    # add_n.cc:86-99
    twice = 2 * float(tflm.F32(first.s))
    real_in = float(tflm.F32(first.s)) / twice
    real_out = twice / ((1 << 20) * float(tflm.F32(out.s)))
    mi = tflm.quantize_multiplier_smaller_than_one_exp(real_in)
    mo = tflm.quantize_multiplier_smaller_than_one_exp(real_out)
    if mi is None or mo is None or mo["shift"] > 0:
        raise tflm.PrepareFails("QuantizeMultiplierSmallerThanOneExp aborts")
    return {"left_shift": 20, "input_offset": -first.z, "input": mi, "output_offset": out.z,
            "output": mo, "act_min": -128, "act_max": 127}
