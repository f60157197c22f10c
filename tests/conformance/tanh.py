"""TANH's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/tanh.cc:44-146 (CalculateArithmeticOpData, TanhPrepare):
int8 as LOGISTIC's int8 (a bare frexp of (double)scale * 2^27, CalculateInputRadius through
ctypes); int16 with CheckedLog2 (through ctypes) and the doubling loop, as the pinned wheel
compiles them. The float kernel has no parameters.
"""

import math

import tflm


def s16_scaling(inp, out, pot_ok):
    """tanh.cc:83-124 / logistic_common.cc:64-104: zero points 0, the power-of-two case or
    scale * 4096 * 3 doubled while <= 32767 / 2 (at most 31 times), the output scale 2^-15."""
    if inp.z != 0 or out.z != 0:
        raise tflm.PrepareFails("int16 zero points must be 0")
    pot, log2 = tflm.checked_log2(inp.s)
    shift = (15 - 3) + log2
    if pot and pot_ok(shift):
        multiplier = 0
    else:
        m = float(tflm.F32(inp.s)) * 4096.0 * 3.0
        shift = 0
        while m <= 32767.0 / 2.0 and shift <= 30:
            shift += 1
            m = m * 2.0
        multiplier = tflm.cast_i32_x86(m)
    opot, olog2 = tflm.checked_log2(out.s)
    if not opot or olog2 != -15:
        raise tflm.PrepareFails("the output scale is not 2^-15")
    return {"input_multiplier": multiplier, "input_left_shift": shift}


def int8_params(inp):
    """tanh.cc:61-71 (the same as logistic_common.cc:49-60)."""
    real = float(tflm.F32(inp.s)) * float(1 << (31 - 4))
    q, shift = math.frexp(real)
    qs = q * float(1 << 31)
    rounded = math.copysign(math.floor(abs(qs) + 0.5), qs)
    return {
        "input_zero_point": inp.z,
        "input_range_radius": tflm.calculate_input_radius(4, shift, 31),
        "input_multiplier": tflm.cast_i32_x86(rounded),
        "input_left_shift": shift,
    }


def expected(op):
    inp, out = op.input(0), op.output
    # tanh.cc:48-49, 56
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        raise tflm.PrepareFails("one input and one output")
    if inp.dtype != out.dtype:
        raise tflm.PrepareFails("input and output types differ")
    if inp.dtype == "int8":
        return int8_params(inp)
    if inp.dtype == "int16":
        return s16_scaling(inp, out, lambda shift: shift in (0, 1))
    return {}
