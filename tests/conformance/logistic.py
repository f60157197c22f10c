"""LOGISTIC's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/logistic_common.cc:32-61 (CalculateArithmeticOpDataLogistic,
int8) with tensorflow/lite/kernels/internal/quantization_util.cc:338 (CalculateInputRadius,
through ctypes); :63-104 for int16 (tanh.py's s16_scaling, the power-of-two case only for the
shift 0). The float kernel has no parameters.
"""

import math

import tflm


def expected(op):
    inp, out = op.input(0), op.output
    # logistic_common.cc:44
    if inp.dtype != out.dtype:
        raise tflm.PrepareFails("input and output types differ")
    if inp.dtype == "int16":
        import tanh

        # logistic_common.cc:82: param_scale_pot &= (input_left_shift == 0).
        return tanh.s16_scaling(inp, out, lambda shift: shift == 0)
    if inp.dtype != "int8":
        return {}
    # logistic_common.cc:46-47: the output's zero point -128 (its scale is not checked).
    if out.z != -128:
        raise tflm.PrepareFails(f"output zero point {out.z}, not -128")
    # logistic_common.cc:49-52: kInputIntegerBits = 4, (double)scale * (double)(1 << 27).
    real = float(tflm.F32(inp.s)) * float(1 << (31 - 4))
    # logistic_common.cc:56-57: std::frexp, then static_cast<int32_t>(TfLiteRound(q * 2^31))
    # (std::round: half away from zero; the cast as the x86-64 build does it).
    q, shift = math.frexp(real)
    qs = q * float(1 << 31)
    rounded = math.copysign(math.floor(abs(qs) + 0.5), qs)
    return {
        "input_zero_point": inp.z,
        # logistic_common.cc:59-60
        "input_range_radius": tflm.calculate_input_radius(4, shift, 31),
        "input_multiplier": tflm.cast_i32_x86(rounded),
        "input_left_shift": shift,
    }
