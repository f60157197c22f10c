"""RESIZE_BILINEAR's parameters as TFLM computes them.

tensorflow/lite/micro/kernels/resize_bilinear.cc:33-70 (Prepare: rank 4, a 1-D int32 constant
size, not both half_pixel_centers and align_corners) and :72-109 (Eval: float32 or int8).
"""

import tflm
from resize_nearest_neighbor import resize_shapes


def expected(op):
    o = op.options
    if o.alignCorners and o.halfPixelCenters:
        raise tflm.PrepareFails("If half_pixel_centers is True, align_corners must be False.")
    return resize_shapes(op, ("float32", "int8"))
