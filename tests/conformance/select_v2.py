"""SELECT_V2's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/select.cc:66-110 (SelectPrepare: all of one element, or the
same shapes, run element by element; otherwise CheckBroadcastShape, :38-64) and
reference/select.h (the kernels); the parameters are the four shapes right-aligned into 6
dimensions.
"""

import math

import tflm
from add import extend6


def broadcast_ok(shapes, out):
    dims = max(len(s) for s in shapes)
    if dims != len(out):
        return False
    for i in range(dims):
        d = [s[len(s) - i - 1] if i < len(s) else 1 for s in shapes]
        lo, hi = min(d), max(d)
        if lo == 0:
            hi = 0
        if any(x not in (1, hi) for x in d):
            return False
        if out[len(out) - i - 1] != hi:
            return False
    return True


def expected(op):
    cond, x, y, out = op.input(0), op.input(1), op.input(2), op.output
    if cond.dtype != "bool" or x.dtype != y.dtype:
        raise tflm.PrepareFails("types")
    n = [math.prod(t.shape) for t in (cond, x, y, out)]
    if all(v == 1 for v in n):
        ones = [1] * 6
        return {"condition": ones, "x": ones, "y": ones, "output": ones}
    if cond.shape == x.shape == y.shape:
        s = extend6(x.shape)
        return {"condition": s, "x": s, "y": s, "output": s}
    if not broadcast_ok([cond.shape, x.shape, y.shape], out.shape):
        raise tflm.PrepareFails("not broadcastable")
    return {"condition": extend6(cond.shape), "x": extend6(x.shape), "y": extend6(y.shape),
            "output": extend6(out.shape)}
