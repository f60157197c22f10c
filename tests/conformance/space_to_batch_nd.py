"""SPACE_TO_BATCH_ND's parameters as TFLM computes them.

tensorflow/lite/micro/kernels/space_to_batch_nd.cc:48-69 (SpaceToBatchNDPrepare: 3 inputs, ranks
3 or 4, equal types) and tensorflow/lite/kernels/internal/reference/space_to_batch_nd.h:27-108
(ExtendShapeSpaceToBatch; block_shape[0], block_shape[1] and paddings[0], paddings[2] as int32,
the width's only for 4-D).
"""

import tflm
from batch_to_space_nd import extend, int32s


def expected(op):
    if len(op.inputs) != 3 or len(op.outputs) != 1:
        raise tflm.PrepareFails("3 inputs and 1 output")
    inp, block, pads, out = op.input(0), op.input(1), op.input(2), op.output
    if not (3 <= len(inp.shape) <= 4 and 3 <= len(out.shape) <= 4):
        raise tflm.PrepareFails("ranks")
    if inp.dtype != out.dtype or inp.dtype not in ("float32", "int8"):
        raise tflm.PrepareFails("types")
    four = len(inp.shape) == 4
    b = int32s(block, 2 if four else 1)
    p = int32s(pads, 3 if four else 1)
    return {
        "input": extend(inp.shape),
        "output": extend(out.shape),
        "block": [b[0], b[1] if four else 1],
        "pad": [p[0], p[2] if four else 0],
    }
