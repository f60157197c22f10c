"""ABS's, SIN's, COS's, LOG's, SQRT's, RSQRT's and SQUARE's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/elementwise.cc:47-160 (IsNumericSupportedType,
IsAbsSupportedType, IsRsqrtSupportedType, SetAbsOutputMultiplier, SetRsqrtOutputMultiplier,
GenericPrepare, PrepareAbsRsqrt), as the pinned wheel compiles it: its
PrepareAbsRsqrt<IsAbsSupportedType, 0> divides the scales in double (cvtss2sd, cvtss2sd,
divsd) and PrepareAbsRsqrt<IsRsqrtSupportedType, 1> computes 1 / (sqrt((double)input_scale) *
(double)output_scale) in double (sqrtsd, mulsd, divsd), where the source at 90b983c2 works
in float first.
"""

import math

import tflm

ABS, RSQRT = 101, 76
NUMERIC = {"float32"}
SUPPORTED = {ABS: {"float32", "int8", "int16"}, RSQRT: {"float32", "int8"}}


def affine(t):
    """micro_allocator.cc:275-278: kTfLiteAffineQuantization needs scales and zero points."""
    return bool(t.scale) and bool(t.zero_point)


def expected(op):
    inp, out = op.input(0), op.output
    # elementwise.cc:84-85 / 107-108: one input, one output; :92 / :113 the same type.
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        raise tflm.PrepareFails("one input and one output")
    if inp.dtype != out.dtype:
        raise tflm.PrepareFails("input and output types differ")
    if inp.dtype not in SUPPORTED.get(op.code, NUMERIC):
        raise tflm.PrepareFails(f"{inp.dtype} is not supported")
    if op.code not in (ABS, RSQRT) or inp.dtype == "float32":
        return {}
    if op.code == ABS and inp.dtype == "int16" and not affine(inp):
        # elementwise.cc:127-128: int16 without quantisation runs AbsHelper (no parameters).
        return {}
    # elementwise.cc:129-148
    if not (affine(inp) and affine(out)):
        raise tflm.PrepareFails("not affine-quantised")
    if inp.dtype == "int16" and (inp.z != 0 or out.z != 0):
        raise tflm.PrepareFails("int16 zero points must be 0")
    si, so = float(tflm.F32(inp.s)), float(tflm.F32(out.s))
    params = {"input_offset": inp.z, "output_offset": out.z}
    if op.code == ABS:
        # elementwise.cc:151-155: needs_rescale = input_scale != output_scale.
        needs = si != so
        params["needs_rescale"] = needs
        params["requant"] = tflm.quantize_multiplier(si / so) if needs else \
            {"multiplier": 0, "shift": 0}
        return params
    # elementwise.cc:72-78 in double, as the wheel has it.
    params["requant"] = tflm.quantize_multiplier(1.0 / (math.sqrt(si) * so))
    return params
