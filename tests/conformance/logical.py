"""LOGICAL_AND and LOGICAL_OR have no Prepare in TFLM (logical.cc:36-42); LOGICAL_NOT's
(elementwise.cc:79-97, GenericPrepare) checks one bool input of the output's type. The
binary kernels' parameters are the shapes; LOGICAL_NOT has none."""

import tflm
from add import binary_shape


def expected(op):
    if len(op.inputs) == 1:
        if op.input(0).dtype != "bool" or op.output.dtype != "bool":
            raise tflm.PrepareFails("LOGICAL_NOT of non-bool")
        return {}
    return binary_shape(op)
