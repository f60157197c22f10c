"""EMBEDDING_LOOKUP's parameters as TFLM computes them.

tensorflow/lite/micro/kernels/embedding_lookup.cc:50-67 (CalculateOpData: for int8 value and
float output zero point 0 and the value's scale; num_columns) and :69-119
(EmbeddingLookUpPrepare: 1-D int32 ids, value of rank 2 at least, float32 or int8, the output
types, the output shape).
"""

import math

import tflm


def expected(op):
    if len(op.inputs) != 2 or len(op.outputs) != 1:
        raise tflm.PrepareFails("2 inputs and 1 output")
    ids, value, out = op.input(0), op.input(1), op.output
    if len(ids.shape) != 1 or ids.dtype != "int32":
        raise tflm.PrepareFails("ids")
    if len(value.shape) < 2 or value.dtype not in ("float32", "int8"):
        raise tflm.PrepareFails("value")
    if value.dtype == "float32" and out.dtype != "float32":
        raise tflm.PrepareFails("output type")
    if value.dtype == "int8" and out.dtype not in ("float32", "int8"):
        raise tflm.PrepareFails("output type")
    shape = [ids.shape[0]] + value.shape[1:]
    if shape != out.shape:
        raise tflm.PrepareFails("output shape")
    geometry = {"rows": value.shape[0], "columns": math.prod(value.shape) // value.shape[0]}
    if value.dtype == "int8" and out.dtype == "float32":
        if value.z != 0:
            raise tflm.PrepareFails("the hybrid value's zero point is not 0")
        return {"shape": geometry, "scale": value.s}
    return geometry
