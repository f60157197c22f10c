"""PAD's and PADV2's Prepare as TFLM computes it (one kernel for both).

tensorflow/lite/micro/kernels/pad_common.cc:30-126 (PadPrepare) and
tensorflow/lite/kernels/internal/reference/pad.h:38-66 (PadImpl extends shapes and paddings
to 5 dimensions, the added ones first).
"""

import math

import tflm


def extend5(values, fill):
    return [fill] * (5 - len(values)) + list(values)


def expected(op):
    inp, paddings, out = op.input(0), op.input(1), op.output
    constant = op.input(2)
    # pad_common.cc:36
    if len(op.inputs) not in (2, 3):
        raise tflm.PrepareFails("PAD takes 2 or 3 inputs")
    # pad_common.cc:53-57: equal types, rank at most 5 (PadKernelMaxDimensionCount).
    if inp.dtype != out.dtype or len(inp.shape) > 5:
        raise tflm.PrepareFails("types differ or rank above 5")
    # pad_common.cc:58-63
    if constant is not None and (constant.dtype != inp.dtype or
                                 math.prod(constant.shape) != 1):
        raise tflm.PrepareFails("the constant value is not a scalar of the input's type")
    # pad_common.cc:66-67: a pair of paddings per output dimension; :72-73: constant.
    if math.prod(paddings.shape) != 2 * len(out.shape) or paddings.data is None:
        raise tflm.PrepareFails("paddings do not fit the output, or are not constant")
    # pad_common.cc:77 reads them as int32.
    if paddings.dtype != "int32":
        raise tflm.PrepareFails("paddings are not int32 (TFLM reads them as int32)")
    p = paddings.ints()
    # pad_common.cc:75-80: every output dimension is the input's plus its paddings.
    for i, o in enumerate(out.shape):
        if o != inp.shape[i] + p[2 * i] + p[2 * i + 1]:
            raise tflm.PrepareFails(f"output dimension {i} is not input plus paddings")
    # pad_common.cc:100-114: int8 without a constant value pads with the output zero point;
    # with one, it is quantised as the output (scales compared as double).
    if inp.dtype == "int8" and constant is None and not -128 <= out.z <= 127:
        raise tflm.PrepareFails("output zero point out of int8")
    if inp.dtype == "int8" and constant is not None and (
            constant.z != out.z or float(tflm.F32(constant.s)) != float(tflm.F32(out.s))):
        raise tflm.PrepareFails("the constant value is quantised unlike the output")
    # pad.cc:32-104: the types PadEval takes.
    if inp.dtype not in ("float32", "int8", "int16", "int32"):
        raise tflm.PrepareFails(f"PAD of {inp.dtype}")
    # pad_common.cc:92-96: left paddings in the input's order; PadImpl puts them last of 5.
    left = [p[2 * i] for i in range(len(inp.shape))]
    return {
        "input": extend5(inp.shape, 1),
        "output": extend5(out.shape, 1),
        "before": extend5(left, 0),
    }
