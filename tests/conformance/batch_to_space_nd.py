"""BATCH_TO_SPACE_ND's parameters as TFLM computes them.

tensorflow/lite/micro/kernels/batch_to_space_nd.cc:41-66 (BatchToSpaceNDPrepare: 3 inputs,
ranks 3 or 4, equal types) and tensorflow/lite/kernels/internal/reference/batch_to_space_nd.h
:27-99 (ExtendShapeBatchToSpace; block_shape[0], block_shape[1] and crops[0], crops[2] as int32,
the width's only for 4-D).
"""

import numpy as np

import tflm


def extend(shape):
    return list(shape) if len(shape) == 4 else [shape[0], shape[1], 1, shape[2]]


def int32s(t, n):
    return [int(v) for v in np.frombuffer(t.data[:4 * n], dtype="<i4")]


def expected(op):
    if len(op.inputs) != 3 or len(op.outputs) != 1:
        raise tflm.PrepareFails("3 inputs and 1 output")
    inp, block, crops, out = op.input(0), op.input(1), op.input(2), op.output
    if not (3 <= len(inp.shape) <= 4 and 3 <= len(out.shape) <= 4):
        raise tflm.PrepareFails("ranks")
    if inp.dtype != out.dtype or inp.dtype not in ("float32", "int8"):
        raise tflm.PrepareFails("types")
    four = len(inp.shape) == 4
    b = int32s(block, 2 if four else 1)
    c = int32s(crops, 3 if four else 1)
    return {
        "input": extend(inp.shape),
        "output": extend(out.shape),
        "block": [b[0], b[1] if four else 1],
        "crop": [c[0], c[2] if four else 0],
    }
