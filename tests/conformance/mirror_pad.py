"""MIRROR_PAD's parameters as TFLM computes them.

tensorflow/lite/micro/kernels/mirror_pad.cc:168-209 (MirrorPadPrepare: paddings of shape [rank,
2], offset 1 for REFLECT and 0 otherwise), :32-56 (GetPadding, GetInputDimension) and :58-98
(GetFlatIndex: the left paddings, int32 or int64). stowplan's form: the shapes and left
paddings right-aligned into 6 dimensions (added dimensions of 1, paddings 0).
"""

import tflm

REFLECT = 0  # schema MirrorPadMode


def extend6(values, fill):
    return [fill] * (6 - len(values)) + list(values)


def expected(op):
    inp, paddings, out = op.input(0), op.input(1), op.output
    if len(paddings.shape) != 2 or paddings.shape[0] != len(inp.shape):
        raise tflm.PrepareFails("paddings shape")
    if out.dtype not in ("float32", "int8"):
        raise tflm.PrepareFails("type")
    if paddings.dtype not in ("int32", "int64"):
        raise tflm.PrepareFails("stowplan takes int32 and int64 paddings")
    offset = 1 if op.options.mode == REFLECT else 0
    p = paddings.ints()
    left = [p[2 * i] for i in range(len(inp.shape))]
    return {
        "input": extend6(inp.shape, 1),
        "output": extend6(out.shape, 1),
        "before": extend6(left, 0),
        "offset": offset,
    }
