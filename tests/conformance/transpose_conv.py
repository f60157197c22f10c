"""TRANSPOSE_CONV's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/transpose_conv.cc:72-139 (CalculateOpData), :147-241
(TransposeConvPrepare) and :251-270 (Eval: the float activation range), with
tensorflow/lite/kernels/kernel_util.cc (PopulateConvolutionQuantizationParams, shared with
CONV_2D: conv.py).
"""

import conv
import tflm


def expected(op):
    o = op.options
    filt, inp, bias, out = op.input(1), op.input(2), op.input(3), op.output
    # transpose_conv.cc:80-83: 3 or 4 inputs, one output.
    if len(op.inputs) not in (3, 4) or len(op.outputs) != 1:
        raise tflm.PrepareFails("TRANSPOSE_CONV takes 3 or 4 inputs and one output")
    # :166-170 no hybrid models; Eval: input and output alike.
    if not (inp.dtype == filt.dtype or (inp.dtype == "int16" and filt.dtype == "int8")):
        raise tflm.PrepareFails("hybrid models are not supported")
    if inp.dtype != out.dtype:
        raise tflm.PrepareFails("input and output types differ")
    # :88-92 (CalculateOpData): the padding from the OUTPUT's height and width, dilations 1.
    pad_h, pad_w = tflm.compute_padding_height_width(
        o.strideH, o.strideW, 1, 1, out.shape[1], out.shape[2], filt.shape[1], filt.shape[2],
        tflm.PADDINGS.get(o.padding))
    geometry = {
        "input": inp.shape, "filter": filt.shape, "output": out.shape,
        "stride_h": o.strideH, "stride_w": o.strideW, "pad_h": pad_h, "pad_w": pad_w,
    }
    act = tflm.ACTIVATIONS[o.fusedActivationFunction]
    if inp.dtype == "float32":
        # :263-265 CalculateActivationRange of the options' activation.
        lo, hi = tflm.activation_range_float(act)
        return {"geometry": geometry, "act_min": lo, "act_max": hi}
    if inp.dtype not in ("int8", "int16"):
        raise tflm.PrepareFails(f"type {inp.dtype}")
    # :197-215: one filter scale or one per output channel (dimension 0), as many zero points.
    channels = filt.shape[0]
    if len(filt.scale) not in (1, channels):
        raise tflm.PrepareFails("filter scales neither 1 nor the output channels")
    if len(filt.scale) != len(filt.zero_point):
        raise tflm.PrepareFails("filter scales and zero points differ in number")
    # :111-118 PopulateConvolutionQuantizationParams over filter dimension 0.
    requant = conv.per_channel_multipliers(inp, filt, out, channels)
    lo, hi = tflm.activation_range_quantized(act, out.s, out.z, out.dtype)
    if inp.dtype == "int16":
        # reference_integer_ops::TransposeConv<int64_t>: no offsets.
        return {"geometry": geometry, "requant": requant, "act_min": lo, "act_max": hi}
    return {
        "geometry": geometry,
        # :222-224
        "input_offset": -inp.z,
        "output_offset": out.z,
        "requant": requant,
        "act_min": lo,
        "act_max": hi,
    }
