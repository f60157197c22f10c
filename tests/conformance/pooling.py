"""AVERAGE_POOL_2D's and MAX_POOL_2D's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/pooling_common.cc:30-95 (CalculateOpDataPooling,
PoolingPrepare) and pooling.h (AveragePoolingEvalQuantized / MaxPoolingEvalQuantized: the
PoolParams the kernels get).
"""

import numpy as np

import tflm


def expected(op):
    o = op.options
    inp, out = op.input(0), op.output
    # pooling_common.cc:41: ComputePaddingHeightWidth with dilations 1.
    pad_h, pad_w = tflm.compute_padding_height_width(
        o.strideH, o.strideW, 1, 1, inp.shape[1], inp.shape[2], o.filterHeight, o.filterWidth,
        tflm.PADDINGS.get(o.padding))
    geometry = {
        "input": inp.shape, "output": out.shape,
        "filter_h": o.filterHeight, "filter_w": o.filterWidth,
        "stride_h": o.strideH, "stride_w": o.strideW,
        "pad_h": pad_h, "pad_w": pad_w,
    }
    act = tflm.ACTIVATIONS[o.fusedActivationFunction]
    if inp.dtype == "float32":
        # pooling_common.cc:78-80
        lo, hi = tflm.activation_range_float(act)
        return {"geometry": geometry, "act_min": lo, "act_max": hi}
    if inp.dtype not in ("int8", "int16"):
        raise tflm.PrepareFails(f"type {inp.dtype} is not supported")  # pooling_common.cc:86
    # pooling_common.cc:70-76: the scales subtracted in float, |difference| <= 1e-6 in double;
    # the zero points equal.
    diff = float(np.abs(tflm.F32(inp.s) - tflm.F32(out.s)))
    if not diff <= 1.0e-6:
        raise tflm.PrepareFails(f"input and output scales differ by {diff}")
    if inp.z != out.z:
        raise tflm.PrepareFails("input and output zero points differ")
    # pooling_common.cc:81-84: the output's quantisation. Its status is ignored there (an
    # overflow, unreachable with the suite's scales, would leave the range unset).
    lo, hi = tflm.activation_range_quantized(act, out.s, out.z, inp.dtype)
    return {"geometry": geometry, "act_min": lo, "act_max": hi}
