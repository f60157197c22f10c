"""FLOOR's checks as TFLM has them: tensorflow/lite/micro/kernels/floor.cc:30-42 (FloorEval:
float32 only; no Prepare). The kernel has no parameters."""

import tflm


def expected(op):
    if op.input(0).dtype != "float32":
        raise tflm.PrepareFails("FLOOR runs float32 only")
    return {}
