"""RELU's and RELU6's Prepare as TFLM computes them (int8; the float kernels have no
parameters).

tensorflow/lite/micro/kernels/activations_common.cc:36-63 (CalculateReluOpData<int8_t>) and
:114-138 (Relu6Prepare), tensorflow/lite/micro/micro_utils.h:41-49 (FloatToQuantizedType).
"""

import math

import tflm

RELU, RELU6 = 19, 21


def _roundf(x):
    """roundf / std::round: half away from zero."""
    x = float(x)
    return math.copysign(math.floor(abs(x) + 0.5), x)


def expected(op):
    inp, out = op.input(0), op.output
    if inp.dtype == "int16":
        return expected_s16(op, inp, out)
    if inp.dtype != "int8":
        return {}
    if op.code == RELU:
        # activations_common.cc:41-42 at 90b983c2 divides the scales in float and widens the
        # quotient; the pinned wheel's ReluPrepare divides in double instead (its code:
        # cvtss2sd, cvtss2sd, divsd, then the call to QuantizeMultiplier), and its outputs
        # agree with the double quotient only (a model with input scale 0.027530024, output
        # scale 0.024515787 tells them apart). The wheel is the judge.
        real_multiplier = float(tflm.F32(inp.s)) / float(tflm.F32(out.s))
        # activations_common.cc:50-53: act_min = 0.0f, roundf(0.0f / scale) in float.
        zero = tflm.cast_i32_x86(_roundf(tflm.F32(0.0) / tflm.F32(out.s)))
        return {
            # activations_common.cc:61: TFLM keeps the zero point and subtracts it
            # (activations.h:49); stowplan keeps minus it and adds.
            "input_offset": -inp.z,
            "output_offset": out.z,
            # activations_common.cc:47
            "requant": tflm.quantize_multiplier(real_multiplier),
            "act_min": max(-128, out.z + zero),
            # activations_common.cc:54-60: act_max is +infinity: the type's max.
            "act_max": 127,
        }
    if op.code == RELU6:
        # activations_common.cc:125-128; micro_utils.h:43: round(6.0f / scale) (the quotient
        # in float) + zero point, clamped to int8. The output's quantisation is not read.
        q = tflm.F32(tflm.F32(6.0) / tflm.F32(inp.s))
        six = tflm.cast_i32_x86(_roundf(q) + inp.z)
        six = min(127, max(-128, six))
        return {"zero": inp.z, "six": six}
    raise tflm.PrepareFails(f"builtin {op.code} is not RELU or RELU6")


def expected_s16(op, inp, out):
    """activations_common.cc:103-110 (ReluPrepare: both zero points 0, then
    CalculateReluOpData<int16_t>, its quotient in double as the wheel has it) and :129-135
    (Relu6Prepare: FloatToQuantizedType<int16_t>, no zero point check)."""
    if op.code == RELU:
        if inp.z != 0 or out.z != 0:
            raise tflm.PrepareFails("int16 RELU zero points must be 0")
        zero = tflm.cast_i32_x86(_roundf(tflm.F32(0.0) / tflm.F32(out.s)))
        return {
            "input_offset": -inp.z,
            "output_offset": out.z,
            "requant": tflm.quantize_multiplier(float(tflm.F32(inp.s)) / float(tflm.F32(out.s))),
            "act_min": max(-32768, out.z + zero),
            "act_max": 32767,
        }
    if op.code == RELU6:
        # micro_utils.h:41-49: round(6.0f / scale) in float, plus the zero point in double,
        # clamped to int16; Relu6Quantized<int16_t> takes both as int16.
        q = tflm.F32(tflm.F32(6.0) / tflm.F32(inp.s))
        six = tflm.cast_i32_x86(float(_roundf(q)) + inp.z)
        six = min(32767, max(-32768, six))
        return {"zero": inp.z, "six": six}
    raise tflm.PrepareFails(f"builtin {op.code} is not RELU or RELU6")
