"""NEG's checks as TFLM has them: tensorflow/lite/micro/kernels/neg.cc:30-45 (NegEval: float32
only; no Prepare). The kernel has no parameters."""

import tflm


def expected(op):
    if op.input(0).dtype != "float32":
        raise tflm.PrepareFails("NEG runs float32 only")
    return {}
