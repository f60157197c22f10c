"""CONV_2D's Prepare as TFLM computes it: the parameters `params::OP_0` must hold.

tensorflow/lite/micro/kernels/conv_common.cc (CalculateOpDataConv, ConvParamsQuantized) and
tensorflow/lite/kernels/kernel_util.cc (PopulateConvolutionQuantizationParams).
"""

import tflm


def geometry(op, depthwise=False):
    """The NHWC geometry; padding from conv_common.cc:93 (ComputePaddingHeightWidth)."""
    o = op.options
    inp, filt, out = op.input(0), op.input(1), op.output
    pad_h, pad_w = tflm.compute_padding_height_width(
        o.strideH, o.strideW, o.dilationHFactor, o.dilationWFactor, inp.shape[1], inp.shape[2],
        filt.shape[1], filt.shape[2], tflm.PADDINGS.get(o.padding))
    return {
        "input": inp.shape, "filter": filt.shape, "output": out.shape,
        "stride_h": o.strideH, "stride_w": o.strideW,
        "dilation_h": o.dilationHFactor, "dilation_w": o.dilationWFactor,
        "pad_h": pad_h, "pad_w": pad_w,
        "depth_multiplier": (out.shape[3] // inp.shape[3]) if depthwise else 1,
    }


def per_channel_multipliers(inp, filt, out, num_channels):
    """kernel_util.cc:214-263 PopulateConvolutionQuantizationParams: one multiplier per output
    channel, `(double)input_scale * (double)filter_scale / (double)output_scale`, a single
    filter scale broadcast."""
    scales = filt.scale
    per_channel = len(scales) > 1
    if per_channel:
        # kernel_util.cc:240-244
        if len(scales) != num_channels or filt.shape[filt.quantized_dimension] != num_channels:
            raise tflm.PrepareFails("per-channel scales do not match the channels")
    out_list = []
    for c in range(num_channels):
        s = scales[c] if per_channel else scales[0]
        eff = float(tflm.F32(inp.s)) * float(tflm.F32(s)) / float(tflm.F32(out.s))
        out_list.append(tflm.quantize_multiplier(eff))
    return out_list


def expected(op, depthwise=False):
    g = geometry(op, depthwise)
    act = tflm.ACTIVATIONS[op.options.fusedActivationFunction]
    inp, filt, out = op.input(0), op.input(1), op.output
    # conv_common.cc:159-165 (ConvPrepare): the types TFLM's CONV_2D takes.
    if not depthwise and (inp.dtype, filt.dtype) not in (
            ("float32", "float32"), ("int16", "int8"), ("int8", "int4"), ("int8", "int8")):
        raise tflm.PrepareFails("hybrid models are not supported")
    if inp.dtype == "float32":
        lo, hi = tflm.activation_range_float(act)
        return {"geometry": g, "act_min": lo, "act_max": hi}
    # conv_common.cc:118: num_channels is the filter's quantized dimension (0 for CONV_2D,
    # 3 for DEPTHWISE_CONV_2D).
    channels = filt.shape[3 if depthwise else 0]
    requant = per_channel_multipliers(inp, filt, out, channels)
    lo, hi = tflm.activation_range_quantized(act, out.s, out.z, inp.dtype)
    if inp.dtype == "int16":
        # reference_integer_ops::ConvPerChannel / DepthwiseConvPerChannel for int16 take no
        # offsets (conv.h:187-235, depthwise_conv.h:124-204): only these parameters.
        return {"geometry": g, "requant": requant, "act_min": lo, "act_max": hi}
    return {
        "geometry": g,
        # conv_common.cc:58-60
        "input_offset": -inp.z,
        "output_offset": out.z,
        "requant": requant,
        "act_min": lo,
        "act_max": hi,
    }
