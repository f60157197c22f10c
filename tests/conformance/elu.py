"""ELU's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/elu.cc:44-102 (PopulateLookupTable<int8_t>, CalculateOpData),
as the pinned wheel compiles it (EluPrepare: 1.0f / output_scale once; per value
input_scale * (float)(v - zero_point), expf(x) - 1.0f below 0, roundf(x * inverse_scale),
plus the output zero point in float, cvttss2si, clamped), with the C library's expf and
roundf through ctypes. The float kernel has no parameters.
"""

import numpy as np

import tflm


def table(inp, out):
    F32 = tflm.F32
    inverse_scale = F32(F32(1.0) / F32(out.s))
    t = [0] * 256
    with np.errstate(all="ignore"):
        for val in range(-128, 128):
            dequantized = F32(F32(inp.s) * F32(val - inp.z))
            transformed = F32(tflm.expf(dequantized) - F32(1.0)) if dequantized < 0 \
                else dequantized
            rescaled = tflm.roundf(F32(transformed * inverse_scale))
            quantized = tflm.cast_i32_x86_f32(F32(rescaled + F32(out.z)))
            t[val & 0xff] = max(min(127, quantized), -128)
    return t


def expected(op):
    inp, out = op.input(0), op.output
    # elu.cc:76-84
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        raise tflm.PrepareFails("one input and one output")
    if inp.dtype != out.dtype:
        raise tflm.PrepareFails("input and output types differ")
    if inp.dtype != "int8":
        return {}
    return {"table": table(inp, out)}
