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
    # fully_connected.cc:58-66 (FullyConnectedPrepare): the types TFLM's kernels take.
    if (inp.dtype, filt.dtype) not in (("float32", "float32"), ("int8", "int8"), ("int8", "int4"),
                                       ("int16", "int8")):
        raise tflm.PrepareFails(f"{inp.dtype} input with {filt.dtype} filter")
    if inp.dtype == "float32":
        lo, hi = tflm.activation_range_float(act)
        return {**shape, "act_min": lo, "act_max": hi}
    if len(filt.scale) > 1:
        # fully_connected_common.cc:89-92: no per-channel int4 filters.
        if filt.dtype == "int4":
            raise tflm.PrepareFails("per-channel int4 filter")
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
        # kernel_util.cc:333 reads `static_cast<double>(input->params.scale *
        # filter->params.scale)` (a float product), but the pinned wheel's
        # GetQuantizedConvolutionMultipler converts both scales to double first (cvtss2sd,
        # cvtss2sd, mulsd at _runtime.so 0xdccc0): the product in double, then divided.
        real = float(tflm.F32(inp.s)) * float(tflm.F32(filt.s)) / float(tflm.F32(out.s))
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
