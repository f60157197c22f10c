"""BROADCAST_ARGS's checks as TFLM makes them. stowplan's call has no parameter constant.

tensorflow/lite/micro/kernels/broadcast_args.cc:30-57 (BroadcastArgsPrepare: int32 or int64,
the same for all three, each one-dimensional).
"""

import tflm


def expected(op):
    s1, s2, out = op.input(0), op.input(1), op.output
    if s1.dtype not in ("int32", "int64") or s2.dtype != s1.dtype or out.dtype != s1.dtype:
        raise tflm.PrepareFails("types")
    if len(s1.shape) != 1 or len(s2.shape) != 1 or len(out.shape) != 1:
        raise tflm.PrepareFails("ranks")
    return {}
