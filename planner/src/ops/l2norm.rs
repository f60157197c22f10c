//! L2_NORMALIZATION: TFLM's `l2norm.cc` (`L2NormPrepare`), for the kernels
//! `stowplan::kernels::{l2norm_s8, l2norm_f32}`.

use quote::quote;

use super::unary::{affine, one_input_one_output, same_size, with_params};
use super::{Call, Lower, OpKind, Refusal, i32_lit, invalid, kernel};
use crate::tflite::{Activation, DType, OpOptions};

/// L2_NORMALIZATION.
pub const L2_NORMALIZATION: OpKind = kernel("l2norm", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    one_input_one_output(cx)?;
    let (input, out) = same_size(cx)?;
    let shape = cx.shape(input)?;
    if shape.len() > 4 {
        return invalid(format!(
            "{} has {} dimensions; TFLM's L2_NORMALIZATION takes at most 4",
            input.desc(),
            shape.len()
        ));
    }
    if !matches!(out.dtype, DType::Float32 | DType::Int8) {
        return invalid(format!(
            "{} is {}; TFLM's L2_NORMALIZATION writes float32 or int8",
            out.desc(),
            out.dtype
        ));
    }
    cx.same_type(input, out)?;
    // ParseL2Normalization: without L2NormOptions the activation is NONE.
    let activation = match cx.op.options {
        OpOptions::L2Norm { activation } => activation,
        _ => Activation::None,
    };
    if activation != Activation::None {
        return invalid(format!(
            "the fused activation {activation:?}: TFLM's L2_NORMALIZATION takes none"
        ));
    }
    let Some(&depth) = shape.last() else {
        return invalid(format!(
            "{} is a scalar; L2_NORMALIZATION needs a dimension",
            input.desc()
        ));
    };
    let rows = cx.elements(input)?.checked_div(depth).unwrap_or(0);
    // L2NormPrepare: the int8 input's zero point (TFLM's params, 0 without quantisation); the
    // output's quantisation is not read (the kernel writes in steps of 1/128).
    let (zero_point, f) = if input.dtype == DType::Int8 {
        let zp = if affine(input) { cx.quant(input)?.1 } else { 0 };
        (zp, quote!(l2norm_s8))
    } else {
        (0, quote!(l2norm_f32))
    };
    let zp = i32_lit(zero_point);
    Ok(with_params(
        cx,
        quote!(L2Norm),
        quote!(rows: #rows, depth: #depth, input_zero_point: #zp),
        f,
    ))
}
