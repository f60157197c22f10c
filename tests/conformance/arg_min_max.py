"""ARG_MAX's and ARG_MIN's parameters as TFLM computes them (it has no Prepare).

tensorflow/lite/micro/kernels/arg_min_max.cc:54-98 (Eval: int32 axis and output, float32 or int8
input) and tensorflow/lite/kernels/internal/reference/arg_min_max.h:60-100 (the axis wrapped;
outer, axis and inner sizes).
"""

import math

import tflm


def expected(op):
    inp, axis, out = op.input(0), op.input(1), op.output
    if axis.dtype != "int32" or out.dtype != "int32" or inp.dtype not in ("float32", "int8"):
        raise tflm.PrepareFails("types")
    a = axis.ints()[0]
    if a < 0:
        a += len(inp.shape)
    return {
        "outer": math.prod(inp.shape[:a]),
        "axis": inp.shape[a],
        "inner": math.prod(inp.shape[a + 1:]),
    }
