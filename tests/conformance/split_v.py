"""SPLIT_V's checks as TFLM makes them. stowplan's call has no parameter constant.

tensorflow/lite/micro/kernels/split_v.cc:76-87 (SplitVPrepare: 3 inputs, a constant axis),
:89-117 (SplitVEval: the axis read as int32 and wrapped, in range; the types).
"""

import tflm

TYPES = ("float32", "int8", "int16", "int32")


def expected(op):
    if len(op.inputs) != 3:
        raise tflm.PrepareFails("SPLIT_V takes 3 inputs")
    inp, axis = op.input(0), op.input(2)
    if axis.data is None:
        raise tflm.PrepareFails("Non-constant >axis< tensor is not supported")
    a = tflm.wrap_i32(int.from_bytes(axis.data[:4], "little"))
    if a < 0:
        a += len(inp.shape)
    if not 0 <= a < len(inp.shape):
        raise tflm.PrepareFails("axis out of range")
    if inp.dtype not in TYPES:
        raise tflm.PrepareFails(f"SPLIT_V of {inp.dtype}")
    return {}
