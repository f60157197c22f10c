"""RESIZE_NEAREST_NEIGHBOR's parameters as TFLM computes them.

tensorflow/lite/micro/kernels/resize_nearest_neighbor.cc:35-67 (Prepare: rank 4, a 1-D int32
constant size of 2) and :69-111 (Eval: float32, int8, int16; the options) with
tensorflow/lite/kernels/internal/reference/resize_nearest_neighbor.h (the output height and
width from the size).
"""

import tflm


def resize_shapes(op, types):
    if len(op.inputs) != 2 or len(op.outputs) != 1:
        raise tflm.PrepareFails("2 inputs and 1 output")
    inp, size, out = op.input(0), op.input(1), op.output
    if len(inp.shape) != 4 or len(size.shape) != 1 or size.dtype != "int32" or size.shape[0] != 2:
        raise tflm.PrepareFails("shapes")
    if size.data is None:
        raise tflm.PrepareFails("Non-constant >size< tensor is not supported")
    if out.dtype not in types or inp.dtype != out.dtype:
        raise tflm.PrepareFails("types")
    h, w = size.ints()
    shape = [inp.shape[0], h, w, inp.shape[3]]
    if shape != out.shape:
        raise tflm.PrepareFails("output shape")
    o = op.options
    return {
        "input": inp.shape,
        "output": shape,
        "align_corners": bool(o.alignCorners),
        "half_pixel_centers": bool(o.halfPixelCenters),
    }


def expected(op):
    return resize_shapes(op, ("float32", "int8", "int16"))
