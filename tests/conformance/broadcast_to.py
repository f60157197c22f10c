"""BROADCAST_TO's parameters as TFLM computes them.

tensorflow/lite/micro/kernels/broadcast_to.cc:34-74 (ValidateOutputTensor), :76-100
(BroadcastToPrepare: rank at most 5, an int32 or int64 constant shape, equal types) and
tensorflow/lite/kernels/internal/reference/broadcast_to.h:70-105 (BroadcastTo<5>: both shapes
extended to 5 dimensions).
"""

import tflm


def expected(op):
    inp, shape, out = op.input(0), op.input(1), op.output
    if len(inp.shape) > 5 or shape.dtype not in ("int32", "int64") or inp.dtype != out.dtype:
        raise tflm.PrepareFails("rank, shape type or types")
    if shape.data is None:
        raise tflm.PrepareFails("Non-constant >shape< tensor is not supported")
    s = [tflm.wrap_i32(v) for v in shape.ints()]
    if len(shape.shape) != 1 or len(out.shape) != len(s) or len(inp.shape) > len(out.shape) \
            or len(out.shape) > 5:
        raise tflm.PrepareFails("ranks")
    ext = len(out.shape) - len(inp.shape)
    if any(d != 1 and d != s[ext + i] for i, d in enumerate(inp.shape)):
        raise tflm.PrepareFails("Output shape must be broadcastable from input shape.")
    if list(out.shape) != s:
        raise tflm.PrepareFails("output shape")
    return {"input": [1] * (5 - len(inp.shape)) + list(inp.shape),
            "output": [1] * (5 - len(out.shape)) + list(out.shape)}
