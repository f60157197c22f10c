"""REVERSE_V2's parameters as TFLM computes them.

tensorflow/lite/micro/kernels/reverse.cc:43-86 (ReverseV2Prepare: 2 inputs, 1-D int32 axes no
more than the rank, the types), :88-121 (ReverseV2Eval: the axes wrapped, in range, sorted,
contiguous) and tensorflow/lite/kernels/internal/reference/reverse.h:29-75 (the upper, middle
and lower sizes around the reversed axes).
"""

import math

import tflm

TYPES = ("int32", "float32", "uint8", "int8", "int16", "int64", "bool")


def expected(op):
    if len(op.inputs) != 2 or len(op.outputs) != 1:
        raise tflm.PrepareFails("2 inputs and 1 output")
    inp, axis, out = op.input(0), op.input(1), op.output
    rank = len(inp.shape)
    if len(axis.shape) != 1 or rank > 6 or rank < math.prod(axis.shape):
        raise tflm.PrepareFails("axis shape")
    if inp.dtype not in TYPES or axis.dtype != "int32" or out.dtype != inp.dtype:
        raise tflm.PrepareFails("types")
    axes = []
    for a in axis.ints():
        if a < 0:
            a += rank
        if not 0 <= a < rank:
            raise tflm.PrepareFails("axis out of range")
        axes.append(a)
    axes.sort()
    if any(axes[i - 1] + 1 != axes[i] for i in range(1, len(axes))):
        raise tflm.PrepareFails("Non-contiguous `axes` not supported")
    lo, hi = axes[0], axes[-1]
    return {
        "upper": math.prod(inp.shape[:lo]),
        "middle": math.prod(inp.shape[lo:hi + 1]),
        "lower": math.prod(inp.shape[hi + 1:]),
    }
