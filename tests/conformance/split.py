"""SPLIT's checks as TFLM makes them. stowplan's call has no parameter constant (the outer size
and the copy sizes are literals of the call).

tensorflow/lite/micro/kernels/split.cc:66-79 (SplitPrepare: a constant axis), :81-113
(SplitEval: the axis read as int32 and wrapped, in range; the types).
"""

import tflm

TYPES = ("float32", "int8", "int16", "int32")


def expected(op):
    axis, inp = op.input(0), op.input(1)
    if axis.data is None:
        raise tflm.PrepareFails("Non-constant >axis< tensor is not supported")
    a = tflm.wrap_i32(int.from_bytes(axis.data[:4], "little"))
    if a < 0:
        a += len(inp.shape)
    if not 0 <= a < len(inp.shape):
        raise tflm.PrepareFails("axis out of range")
    if inp.dtype not in TYPES:
        raise tflm.PrepareFails(f"SPLIT of {inp.dtype}")
    return {}
