"""FULLY_CONNECTED's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/fully_connected_common.cc:55-156 (CalculateOpDataFullyConnected,
FullyConnectedParamsQuantized) and tensorflow/lite/kernels/kernel_util.cc:291-336
(GetQuantizedConvolutionMultipler).
"""

import math

import tflm


def expected(op):
    inp, filt, bias, out = op.input(0), op.input(1), op.input(2), op.output
    act = tflm.ACTIVATIONS[op.options.fusedActivationFunction]
    accum_depth = filt.shape[-1]
    output_depth = out.shape[-1]
    batches = math.prod(out.shape) // output_depth
    shape = {"batches": batches, "accum_depth": accum_depth, "output_depth": output_depth}
    if inp.dtype == "float32":
        lo, hi = tflm.activation_range_float(act)
        return {**shape, "act_min": lo, "act_max": hi}
    if len(filt.scale) > 1:
        # fully_connected_common.cc:96-123: per channel, the product in double.
        if filt.shape[filt.quantized_dimension] != len(filt.scale):
            raise tflm.PrepareFails("per-channel scales do not match the filter")
        requant = [
            tflm.quantize_multiplier(float(tflm.F32(inp.s)) * float(tflm.F32(s)) /
                                     float(tflm.F32(out.s)))
            for s in filt.scale
        ]
    else:
        # kernel_util.cc:297-323: with a bias, |input * filter - bias| / output <= 0.02 (in
        # double) or Prepare fails.
        if bias is not None:
            product = float(tflm.F32(inp.s)) * float(tflm.F32(filt.s))
            if abs(product - float(tflm.F32(bias.s))) / float(tflm.F32(out.s)) > 0.02:
                raise tflm.PrepareFails("the bias scale is not input scale x filter scale")
        # kernel_util.cc:333: the two scales multiplied as floats, then divided in double.
        real = float(tflm.F32(inp.s) * tflm.F32(filt.s)) / float(tflm.F32(out.s))
        requant = [tflm.quantize_multiplier(real)]
    lo, hi = tflm.activation_range_quantized(act, out.s, out.z, inp.dtype)
    return {
        **shape,
        # fully_connected_common.cc:37-43
        "input_offset": -inp.z,
        "filter_offset": -filt.z,
        "output_offset": out.z,
        "requant": requant,
        "act_min": lo,
        "act_max": hi,
    }
