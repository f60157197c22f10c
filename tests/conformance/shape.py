"""SHAPE's checks as TFLM makes them. stowplan's call has no parameter constant (the dimensions
are literals of the call).

tensorflow/lite/micro/kernels/shape.cc:38-58 (ShapePrepare: 1 input and 1 output; ShapeEval:
int32 output only).
"""

import tflm


def expected(op):
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        raise tflm.PrepareFails("1 input and 1 output")
    if op.output.dtype != "int32":
        raise tflm.PrepareFails("output type")
    return {}
