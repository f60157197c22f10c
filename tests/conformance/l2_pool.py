"""L2_POOL_2D's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/l2_pool_2d.cc:36-94 (L2Prepare: one input and one output, rank 4,
the same type, float32 only, the padding from ComputePaddingHeightWidth with dilations 1, the
output's dims set to its output size) and L2EvalFloat (96-108: the activation range).
"""

import tflm


def expected(op):
    o = op.options
    inp, out = op.input(0), op.output
    # l2_pool_2d.cc:49-51
    if len(inp.shape) != 4 or len(out.shape) != 4:
        raise tflm.PrepareFails("L2_POOL_2D needs rank 4")
    if inp.dtype != out.dtype:
        raise tflm.PrepareFails("input and output types differ")
    # l2_pool_2d.cc:61-64
    pad_h, pad_w = tflm.compute_padding_height_width(
        o.strideH, o.strideW, 1, 1, inp.shape[1], inp.shape[2], o.filterHeight, o.filterWidth,
        tflm.PADDINGS.get(o.padding))
    # l2_pool_2d.cc:67
    if inp.dtype != "float32":
        raise tflm.PrepareFails(f"type {inp.dtype}: L2_POOL_2D takes float32 only")
    geometry = {
        "input": inp.shape, "output": out.shape,
        "filter_h": o.filterHeight, "filter_w": o.filterWidth,
        "stride_h": o.strideH, "stride_w": o.strideW,
        "pad_h": pad_h, "pad_w": pad_w,
    }
    # l2_pool_2d.cc:98-102
    lo, hi = tflm.activation_range_float(tflm.ACTIVATIONS[o.fusedActivationFunction])
    return {"geometry": geometry, "act_min": lo, "act_max": hi}
