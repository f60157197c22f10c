"""UNPACK's checks as TFLM makes them (it has no Prepare). stowplan's call has no parameter
constant.

tensorflow/lite/micro/kernels/unpack.cc:30-72 (UnpackImpl: num outputs, the axis wrapped by the
input's rank), :74-99 (UnpackEval: the types).
"""

import tflm

TYPES = ("float32", "int32", "int16", "int8")


def expected(op):
    inp = op.input(0)
    if inp.dtype not in TYPES:
        raise tflm.PrepareFails(f"UNPACK of {inp.dtype}")
    if op.options.num != len(op.outputs):
        raise tflm.PrepareFails("num differs from the outputs")
    return {}
