"""QUANTIZE's Prepare as TFLM computes it.

tensorflow/lite/micro/kernels/quantize_common.cc:31-90 (PrepareQuantizeReference).
"""

import tflm

# quantize_common.cc:65-74: the pairings whose requantisation multiplier Prepare computes.
REQUANTIZE = {("int16", "int8"), ("int8", "int8"), ("int8", "uint8"), ("uint8", "int8"),
              ("int8", "int16"), ("int8", "int32"), ("int16", "int16"), ("int16", "int32"),
              ("int32", "int8"), ("int32", "int16")}


def expected(op):
    inp, out = op.input(0), op.output
    # quantize_common.cc:48-54: the output is affine-quantised with exactly one scale.
    if len(out.scale) != 1:
        raise tflm.PrepareFails("the output has no single scale")
    # quantize_common.cc:56-63: the types TFLM's reference QUANTIZE takes.
    if inp.dtype not in ("float32", "int32", "int16", "int8", "uint8") or \
            out.dtype not in ("int8", "int16", "int32", "uint8"):
        raise tflm.PrepareFails(f"{inp.dtype} -> {out.dtype}")
    # quantize_common.cc:96-235 (EvalQuantizeReference): the pairings it has kernels for; the
    # others fail in Eval.
    if (inp.dtype, out.dtype) not in REQUANTIZE and (inp.dtype, out.dtype) not in (
            ("float32", "int8"), ("float32", "int16")):
        raise tflm.PrepareFails(f"{inp.dtype} -> {out.dtype} has no kernel")
    if inp.dtype == "float32":
        # quantize_common.cc:82-83: zero point and scale (float -> double, converted back to
        # float by AffineQuantize, reference/quantize.h:46: exact).
        return {"scale": float(tflm.F32(out.s)), "zero_point": out.z}
    # quantize_common.cc:64-80: requantisation pairs get QuantizeMultiplier(si / so) in double.
    effective_scale = float(tflm.F32(inp.s)) / float(tflm.F32(out.s))
    return {
        # quantize_common.cc:85 input_zero_point, subtracted in reference/requantize.h:56.
        "input_offset": -inp.z,
        "output_offset": out.z,
        "requant": tflm.quantize_multiplier(effective_scale),
    }
