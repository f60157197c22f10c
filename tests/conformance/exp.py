"""EXP's Prepare checks as TFLM has them: tensorflow/lite/micro/kernels/exp.cc:29-51 (ExpPrepare): one input, one
output, float32, the same type, bytes and dimensions. The kernel has no parameters."""

import tflm


def expected(op):
    inp, out = op.input(0), op.output
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        raise tflm.PrepareFails("one input and one output")
    if inp.dtype != "float32" or out.dtype != inp.dtype:
        raise tflm.PrepareFails("EXP takes float32 only")
    if inp.shape != out.shape:
        raise tflm.PrepareFails("the dimensions differ")
    return {}
