"""HARD_SWISH's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/hard_swish_common.cc:31-84 (HardSwishPrepare) as the pinned
wheel compiles it: hires_input_scale = (1/128) * input_scale in float (mulss), then both
multipliers divided in double ((double)hires / (double)output_scale, (double)hires /
(double)(3/32768)), where the source at 90b983c2 divides in float; QuantizeMultiplier
through ctypes; internal/common.h DownScaleInt32ToInt16Multiplier. The float kernel has no
parameters.
"""

import tflm


def down_scale(m):
    """internal/common.h:848-861 DownScaleInt32ToInt16Multiplier."""
    if m >= (2 ** 31 - 1) - (1 << 15):
        return 32767
    return (m + (1 << 15)) >> 16


def wrap16(v):
    return (int(v) + 2 ** 15) % 2 ** 16 - 2 ** 15


def expected(op):
    inp, out = op.input(0), op.output
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        raise tflm.PrepareFails("one input and one output")
    if inp.dtype != "int8":
        return {}
    F32 = tflm.F32
    hires = float(F32(F32(1.0 / 128.0) * F32(inp.s)))
    om = tflm.quantize_multiplier(hires / float(F32(out.s)))
    if om["shift"] > 0:
        raise tflm.PrepareFails("output multiplier exponent above 0")
    rm = tflm.quantize_multiplier(hires / float(F32(3.0) / F32(32768.0)))
    return {
        "input_zero_point": wrap16(inp.z),
        "output_zero_point": wrap16(out.z),
        "reluish_multiplier_fixedpoint_int16": down_scale(rm["multiplier"]),
        "reluish_multiplier_exponent": rm["shift"],
        "output_multiplier_fixedpoint_int16": down_scale(om["multiplier"]),
        "output_multiplier_exponent": om["shift"],
    }
