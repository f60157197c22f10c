"""CUMSUM's parameters as TFLM computes them.

tensorflow/lite/micro/kernels/cumsum.cc:47-101 (CalculateOpData: float32 or int8, an int32 axis
of one element, rank 1 at least, equal types and shapes; for int8 the offsets, left shift 20,
QuantizeMultiplierSmallerThanOneExp of s_in / (2 s_in) and of 2 s_in / (2^20 s_out) in double,
the activation range of kTfLiteActNone) and :107-160 (CumSumEval: the axis wrapped, in range)
with tensorflow/lite/kernels/internal/reference/cumsum.h (inner: the dimensions before the
axis, outer: after it).
"""

import math

import tflm


def expected(op):
    if len(op.inputs) != 2 or len(op.outputs) != 1:
        raise tflm.PrepareFails("2 inputs and 1 output")
    inp, axis, out = op.input(0), op.input(1), op.output
    if inp.dtype not in ("float32", "int8") or axis.dtype != "int32" or math.prod(axis.shape) != 1:
        raise tflm.PrepareFails("types or axis")
    rank = len(inp.shape)
    if rank < 1 or inp.dtype != out.dtype or inp.shape != out.shape:
        raise tflm.PrepareFails("shapes")
    a = axis.ints()[0]
    if a < 0:
        a += rank
    if not 0 <= a < rank:
        raise tflm.PrepareFails("CUMSUM Invalid axis")
    o = op.options
    geometry = {
        "inner": math.prod(inp.shape[:a]),
        "depth": inp.shape[a],
        "outer": math.prod(inp.shape[a + 1:]),
        "exclusive": bool(o.exclusive),
        "reverse": bool(o.reverse),
    }
    if inp.dtype == "float32":
        return geometry
    si, so = float(tflm.F32(inp.s)), float(tflm.F32(out.s))
    twice = 2 * si
    mi = tflm.quantize_multiplier_smaller_than_one_exp(si / twice)
    mo = tflm.quantize_multiplier_smaller_than_one_exp(twice / ((1 << 20) * so))
    if mi is None or mo is None:
        raise tflm.PrepareFails("a multiplier outside (0, 1)")
    lo, hi = tflm.activation_range_quantized("NONE", out.s, out.z)
    return {
        "shape": geometry,
        "input_offset": -inp.z,
        "output_offset": out.z,
        "left_shift": 20,
        "input_requant": mi,
        "output_requant": mo,
        "act_min": lo,
        "act_max": hi,
    }
