"""FILL has no parameters (fill.cc:63-93: FillPrepare checks a scalar value of the output's
type and constant dims equal to the output's shape)."""

import tflm


def expected(op):
    dims, value, out = op.input(0), op.input(1), op.output
    if value.shape or value.dtype != out.dtype or dims.data is None:
        raise tflm.PrepareFails("value or dims")
    return {}
