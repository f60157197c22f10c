"""SOFTMAX's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/softmax_common.cc:80-166 (CalculateSoftmaxParams,
SoftmaxPrepare), tensorflow/lite/kernels/internal/quantization_util.cc:282-355
(PreprocessSoftmaxScaling, CalculateInputRadius: called through ctypes) and
tensorflow/lite/kernels/internal/reference/softmax.h (the rows and depth the kernel walks).
"""

import ctypes
import math

import numpy as np

import tflm

F32 = np.float32
_LIBM = None


def expf(x):
    """The C library's expf, which TFLM's `std::exp(float)` calls (the interpreter's libm)."""
    global _LIBM
    if _LIBM is None:
        _LIBM = ctypes.CDLL("libm.so.6")
        _LIBM.expf.argtypes = [ctypes.c_float]
        _LIBM.expf.restype = ctypes.c_float
    return F32(_LIBM.expf(float(x)))


def _round(x):
    """TfLiteRound(float) = std::round: half away from zero, in float."""
    x = F32(x)
    if not math.isfinite(x):
        return x
    return F32(math.copysign(math.floor(abs(float(x)) + 0.5), float(x)))


def lut_populate_int16(input_scale, input_zero_point, output_scale, output_zero_point,
                       transform):
    """tensorflow/lite/kernels/internal/common.h:556-603 detail::LUTPopulateInt16<float>,
    every operation in float32."""
    with np.errstate(all="ignore"):
        input_min = F32(input_scale) * F32(-32768 - input_zero_point)
        input_max = F32(input_scale) * F32(32767 - input_zero_point)
        output_min = F32(output_scale) * F32(-32768 - output_zero_point)
        output_max = F32(output_scale) * F32(32767 - output_zero_point)
        nb_steps = 512
        step = (input_max - input_min) / F32(nb_steps)
        half_step = step / F32(2)
        output_scaling_inv = F32(65536) / (output_max - output_min)
        table_min, table_max = F32(-32768), F32(32767)

        def clamp(v):
            v = table_min if v < table_min else v  # std::max<float>(v, table_min)
            v = table_max if table_max < v else v  # std::min<float>(v, table_max)
            return int(v)

        lut = []
        for i in range(nb_steps):
            val = transform(input_min + F32(i) * step)
            val_midpoint = transform(input_min + F32(i) * step + half_step)
            val_next = transform(input_min + F32(i + 1) * step)
            sample_val = _round(val * output_scaling_inv)
            midpoint_interp_val = _round(
                (val_next * output_scaling_inv + _round(val * output_scaling_inv)) / F32(2))
            midpoint_val = _round(val_midpoint * output_scaling_inv)
            midpoint_err = midpoint_interp_val - midpoint_val
            bias = _round(midpoint_err / F32(2))
            lut.append(clamp(sample_val - bias))
        lut.append(clamp(_round(transform(input_max) * output_scaling_inv)))
    return lut


def near(a, b, epsilon):
    """TF_LITE_ENSURE_NEAR (common.h:270), in float."""
    a, b, epsilon = F32(a), F32(b), F32(epsilon)
    delta = a - b if a > b else b - a
    return not delta > epsilon


def expected(op):
    inp, out = op.input(0), op.output
    # softmax_common.cc:152: rank >= 1.
    if len(inp.shape) < 1:
        raise tflm.PrepareFails("a scalar input")
    # reference/softmax.h: the last dimension is the depth, the others flatten into rows
    # (MatchingFlatSizeSkipDim).
    depth = inp.shape[-1]
    rows = math.prod(inp.shape[:-1])
    shape = {"rows": rows, "depth": depth}
    if inp.dtype == "float32":
        # softmax_common.cc:133-135
        if out.dtype != "float32":
            raise tflm.PrepareFails("float input, non-float output")
        # op_data->beta = (double)params->beta; the kernel casts it back to float.
        return {**shape, "beta": float(tflm.F32(op.options.beta))}
    if inp.dtype not in ("int8", "int16"):
        raise tflm.PrepareFails(f"{inp.dtype} input is not covered here")
    # softmax_common.cc:48-53 (InitializeLutForInt16): an int16 output takes int8 or int16, any
    # other output the input's type.
    if out.dtype != "int16" and out.dtype != inp.dtype:
        raise tflm.PrepareFails(f"{inp.dtype} input, {out.dtype} output")
    if inp.dtype == "int16":
        # softmax_common.cc:57 and :87-91: zero points 0, output scale near 1/32768.
        if out.z != 0 or inp.z != 0:
            raise tflm.PrepareFails("int16 zero points must be 0")
        if not near(out.s, F32(1.0) / F32(32768), F32(0.001) * (F32(1.0) / F32(32768))):
            raise tflm.PrepareFails(f"output scale {out.s}, not 1/32768")
        # softmax_common.cc:110-118: (double)input scale * (double)beta / (10.0 / 65535.0).
        m = tflm.quantize_multiplier(float(F32(inp.s)) * float(F32(op.options.beta)) /
                                     (10.0 / 65535.0))
        # softmax_common.cc:61-69: the two tables (range = 65535, an int).
        rng = F32(65535)
        exp_lut = lut_populate_int16(F32(10.0) / rng, 32767, F32(2.0) / rng, 0, expf)
        one_over = lut_populate_int16(F32(1.0) / rng, -32768, F32(2.0) / rng, 0,
                                      lambda v: F32(1.0) / (F32(1.0) + F32(v)))
        return {**shape, "input_multiplier": m["multiplier"], "input_left_shift": m["shift"],
                "exp_lut": exp_lut, "one_over_one_plus_x_lut": one_over}
    if out.dtype == "int16":
        # softmax_common.cc:94-97: zero point -32768, scale near 1/65536.
        if out.z != -32768:
            raise tflm.PrepareFails(f"output zero point {out.z}, not -32768")
        if not near(out.s, F32(1.0) / F32(65536), F32(0.001) * (F32(1.0) / F32(65536))):
            raise tflm.PrepareFails(f"output scale {out.s}, not 1/65536")
    else:
        # softmax_common.cc:102-104: zero point -128 and scale exactly 1/256 (a float
        # compare).
        if out.z != -128:
            raise tflm.PrepareFails(f"output zero point {out.z}, not -128")
        if tflm.F32(out.s) != tflm.F32(1.0 / 256):
            raise tflm.PrepareFails(f"output scale {out.s}, not 1/256")
    # softmax_common.cc:108 kScaledDiffIntegerBits = 5; :123-130 PreprocessSoftmaxScaling and
    # diff_min = -1.0 * CalculateInputRadius(5, input_left_shift) (total_signed_bits 31).
    beta = float(tflm.F32(op.options.beta))
    scale = float(tflm.F32(inp.s))
    # quantization_util.cc:313-318: QuantizeMultiplierGreaterThanOne aborts (TFLITE_CHECK_GT)
    # unless min(beta * scale * 2^26, 2^31 - 1) > 1; don't call it then.
    if not min(beta * scale * (1 << 26), float((1 << 31) - 1)) > 1.0:
        raise tflm.PrepareFails("beta x input scale x 2^26 <= 1: TFLM aborts")
    m = tflm.preprocess_softmax_scaling(beta, scale, 5)
    radius = tflm.calculate_input_radius(5, m["shift"], 31)
    return {
        **shape,
        "input_multiplier": m["multiplier"],
        "input_left_shift": m["shift"],
        "diff_min": tflm.cast_i32_x86(-1.0 * radius),
    }
