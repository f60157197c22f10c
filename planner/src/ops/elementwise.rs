//! ABS, SIN, COS, LOG, SQRT, RSQRT and SQUARE: TFLM's `elementwise.cc` (`GenericPrepare`,
//! `PrepareAbsRsqrt`), for the kernels `stowplan::kernels::{abs_f32, abs_s8, abs_s16,
//! abs_s16_plain, sin_f32, cos_f32, log_f32, sqrt_f32, rsqrt_f32, rsqrt_s8, square_f32}`.

use proc_macro2::TokenStream;
use quote::quote;

use super::unary::{affine, one_input_one_output, plain, same_size, with_params};
use super::{Call, Lower, OpKind, Refusal, i32_lit, invalid, kernel, requant};
use crate::quant;
use crate::tflite::{DType, Tensor};

/// ABS.
pub const ABS: OpKind = kernel("elementwise", abs);
/// SIN.
pub const SIN: OpKind = kernel("elementwise", sin);
/// COS.
pub const COS: OpKind = kernel("elementwise", cos);
/// LOG.
pub const LOG: OpKind = kernel("elementwise", log);
/// SQRT.
pub const SQRT: OpKind = kernel("elementwise", sqrt);
/// RSQRT.
pub const RSQRT: OpKind = kernel("elementwise", rsqrt);
/// SQUARE.
pub const SQUARE: OpKind = kernel("elementwise", square);

/// The checks of `GenericPrepare` and `PrepareAbsRsqrt`: one input, one output, the same type,
/// one `supported` (`IsNumericSupportedType`, `IsAbsSupportedType`, ...). Returns input and
/// output.
fn prepare<'a>(cx: &Lower<'a>, supported: &[DType]) -> Result<(&'a Tensor, &'a Tensor), Refusal> {
    one_input_one_output(cx)?;
    let (input, out) = same_size(cx)?;
    cx.same_type(input, out)?;
    if !supported.contains(&input.dtype) {
        return invalid(format!(
            "{} is {}; TFLM's {} takes {}",
            input.desc(),
            input.dtype,
            cx.name(),
            supported
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok((input, out))
}

/// A float-only op (`IsNumericSupportedType`) and its kernel.
fn numeric(cx: &Lower<'_>, f: TokenStream) -> Result<Call, Refusal> {
    prepare(cx, &[DType::Float32])?;
    Ok(plain(cx, f))
}

fn sin(cx: &Lower<'_>) -> Result<Call, Refusal> {
    numeric(cx, quote!(sin_f32))
}

fn cos(cx: &Lower<'_>) -> Result<Call, Refusal> {
    numeric(cx, quote!(cos_f32))
}

fn log(cx: &Lower<'_>) -> Result<Call, Refusal> {
    numeric(cx, quote!(log_f32))
}

fn sqrt(cx: &Lower<'_>) -> Result<Call, Refusal> {
    numeric(cx, quote!(sqrt_f32))
}

fn square(cx: &Lower<'_>) -> Result<Call, Refusal> {
    numeric(cx, quote!(square_f32))
}

/// A tensor's `(scale, zero point)`.
type ScaleZero = (f32, i32);

/// `PrepareAbsRsqrt`'s quantisation checks: both tensors affine (`TF_LITE_ENSURE_EQ` on
/// `quantization.type`), with scales and zero points. Returns `((input scale, zero point),
/// (output scale, zero point))`.
fn quantized(
    cx: &Lower<'_>,
    input: &Tensor,
    out: &Tensor,
) -> Result<(ScaleZero, ScaleZero), Refusal> {
    for t in [input, out] {
        if !affine(t) {
            return invalid(format!(
                "{} has no affine quantisation; TFLM's {} on {} needs it",
                t.desc(),
                cx.name(),
                t.dtype
            ));
        }
    }
    Ok((cx.quant(input)?, cx.quant(out)?))
}

fn abs(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let (input, out) = prepare(cx, &[DType::Float32, DType::Int8, DType::Int16])?;
    let quantized_path =
        input.dtype == DType::Int8 || (input.dtype == DType::Int16 && affine(input));
    if !quantized_path {
        return Ok(match input.dtype {
            DType::Int16 => plain(cx, quote!(abs_s16_plain)),
            _ => plain(cx, quote!(abs_f32)),
        });
    }
    let ((si, zi), (so, zo)) = quantized(cx, input, out)?;
    if input.dtype == DType::Int16 && (zi != 0 || zo != 0) {
        return invalid(format!(
            "{} and {} have zero points {zi} and {zo}; TFLM's int16 ABS needs 0",
            input.desc(),
            out.desc()
        ));
    }
    // elementwise.cc: `needs_rescale = input_scale != output_scale`; only then the multiplier
    // (SetAbsOutputMultiplier). The pinned wheel divides the scales in double, as for RELU.
    let needs_rescale = si != so;
    let multiplier = if needs_rescale {
        quant::rescale_multiplier(si, so)
    } else {
        (0, 0)
    };
    let m = requant(cx.rt, multiplier);
    let (io, oo) = (i32_lit(zi), i32_lit(zo));
    let f = if input.dtype == DType::Int8 {
        quote!(abs_s8)
    } else {
        quote!(abs_s16)
    };
    Ok(with_params(
        cx,
        quote!(AbsQuantized),
        quote!(input_offset: #io, output_offset: #oo, needs_rescale: #needs_rescale, requant: #m),
        f,
    ))
}

fn rsqrt(cx: &Lower<'_>) -> Result<Call, Refusal> {
    // IsRsqrtSupportedType: float32 and int8 (RsqrtEval has an int16 case Prepare never
    // lets through).
    let (input, out) = prepare(cx, &[DType::Float32, DType::Int8])?;
    if input.dtype == DType::Float32 {
        return Ok(plain(cx, quote!(rsqrt_f32)));
    }
    let ((si, zi), (so, zo)) = quantized(cx, input, out)?;
    // SetRsqrtOutputMultiplier; the pinned wheel computes it all in double:
    // 1 / (sqrt((double)input_scale) * (double)output_scale) (sqrtsd, mulsd, divsd).
    let real = 1.0 / (f64::from(si).sqrt() * f64::from(so));
    let m = requant(cx.rt, quant::quantize_multiplier(real));
    let (io, oo) = (i32_lit(zi), i32_lit(zo));
    Ok(with_params(
        cx,
        quote!(RsqrtS8),
        quote!(input_offset: #io, output_offset: #oo, requant: #m),
        quote!(rsqrt_s8),
    ))
}
