"""SPACE_TO_DEPTH's parameters as TFLM computes them.

tensorflow/lite/micro/kernels/space_to_depth.cc:37-83 (Prepare: rank 4, float32 or int8, the
output shape; the block is divided by unchecked).
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
        raise tflm.PrepareFails("block_size (TFLM divides by it)")
    n, h, w, c = inp.shape
    oh, ow = h // bs, w // bs
    if h != oh * bs or w != ow * bs:
        raise tflm.PrepareFails("height or width")
    shape = [n, oh, ow, c * bs * bs]
    if shape != out.shape:
        raise tflm.PrepareFails("output shape")
    return {"input": inp.shape, "output": shape, "block": bs}
