"""FLOOR_DIV's Prepare as TFLM computes it (floor_div.cc:31-54: the types equal); the kernel's
parameters are the shapes."""

import tflm
from add import binary_shape


def expected(op):
    if not (op.input(0).dtype == op.input(1).dtype == op.output.dtype):
        raise tflm.PrepareFails("types differ")
    return binary_shape(op)
