"""DEPTHWISE_CONV_2D's Prepare as TFLM computes it: the parameters `params::OP_0` must hold.

tensorflow/lite/micro/kernels/depthwise_conv_common.cc (DepthwiseConvPrepare,
CalculateOpDataDepthwiseConv, DepthwiseConvParamsQuantized / DepthwiseConvParamsFloat) and
tensorflow/lite/kernels/kernel_util.cc (PopulateConvolutionQuantizationParams, shared with
CONV_2D: conv.py).
"""

import conv
import tflm


def expected(op):
    inp, filt = op.input(0), op.input(1)
    if inp.dtype == "int8":
        # depthwise_conv_common.cc:185-191: one filter scale or one per channel of dimension 3,
        # and as many zero points as scales.
        if len(filt.scale) != 1 and len(filt.scale) != filt.shape[3]:
            raise tflm.PrepareFails("filter scales neither 1 nor the channels of dimension 3")
        if len(filt.scale) != len(filt.zero_point):
            raise tflm.PrepareFails("filter scales and zero points differ in number")
    # depthwise_conv_common.cc:193-200: no hybrid models.
    if not (inp.dtype == filt.dtype or (inp.dtype == "int8" and filt.dtype in ("int8", "int4"))
            or (inp.dtype == "int16" and filt.dtype == "int8")):
        raise tflm.PrepareFails("hybrid models are not supported")
    # The rest is CONV_2D's (conv.py) with the filter's dimension 3 as the channels
    # (depthwise_conv_common.cc:115, kDepthwiseConvQuantizedDimension = 3).
    e = conv.expected(op, depthwise=True)
    # depthwise_conv_common.cc:54 and :75: the kernels take the depth multiplier from the
    # op's options (params.depth_multiplier), not from the shapes.
    e["geometry"]["depth_multiplier"] = op.options.depthMultiplier
    return e
