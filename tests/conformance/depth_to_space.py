"""DEPTH_TO_SPACE's parameters as TFLM computes them.

tensorflow/lite/micro/kernels/depth_to_space.cc:37-89 (CalculateOpData: rank 4, float32 or
int8, a positive block, the output shape).
"""

import tflm


def expected(op):
    inp, out = op.input(0), op.output
    if len(inp.shape) != 4:
        raise tflm.PrepareFails("rank")
    if out.dtype not in ("float32", "int8") or inp.dtype != out.dtype:
        raise tflm.PrepareFails("types")
    bs = op.options.blockSize
    if bs <= 0:
        raise tflm.PrepareFails("block_size")
    n, h, w, c = inp.shape
    oc = c // bs // bs
    if c != oc * bs * bs:
        raise tflm.PrepareFails("channels")
    shape = [n, h * bs, w * bs, oc]
    if shape != out.shape:
        raise tflm.PrepareFails("output shape")
    return {"input": inp.shape, "output": shape, "block": bs}
