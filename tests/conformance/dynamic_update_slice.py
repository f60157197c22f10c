"""DYNAMIC_UPDATE_SLICE's parameters as TFLM computes them.

tensorflow/lite/micro/kernels/dynamic_update_slice.cc:129-177 (Prepare: 3 inputs, 1 output,
operand and update of one type, int32 or int64 indices, one per operand dimension, the update
no larger than the operand) and :179-224 (Eval: the types). stowplan's form: both shapes
right-aligned into 6 dimensions (kMaxDimensions).
"""

import tflm


def expected(op):
    if len(op.inputs) != 3 or len(op.outputs) != 1:
        raise tflm.PrepareFails("3 inputs and 1 output")
    operand, update, indices = op.input(0), op.input(1), op.input(2)
    if operand.dtype != update.dtype or indices.dtype not in ("int32", "int64"):
        raise tflm.PrepareFails("types")
    r = len(operand.shape)
    if len(indices.shape) != 1 or indices.shape[0] != r or len(update.shape) != r:
        raise tflm.PrepareFails("ranks")
    if any(u > o for u, o in zip(update.shape, operand.shape)):
        raise tflm.PrepareFails("update larger than the operand")
    if operand.dtype not in ("float32", "int8", "int16", "int32"):
        raise tflm.PrepareFails(f"{operand.dtype} operand")
    pad = [1] * (6 - r)
    return {"operand": pad + list(operand.shape), "update": pad + list(update.shape)}
