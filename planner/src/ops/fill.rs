//! FILL: TFLM's `fill.cc` (`FillPrepare`: a scalar value of the output's type, constant dims
//! equal to the output's shape; its Eval takes float32, int32 and int8 values), for the kernel
//! `stowplan::kernels::fill`. The value may be a constant or a tensor in the arena.

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, invalid, kernel, le_bytes, unsupported, with_element};
use crate::kernels;
use crate::tflite::DType;

/// FILL.
pub const FILL: OpKind = OpKind {
    fold: Some(fold),
    ..kernel("fill", lower)
};

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let (dims, value, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    // fill.cc:76-79: the value is a scalar of the output's type.
    if !value.shape.is_empty() {
        return invalid(format!(
            "{} has rank {}; TFLM's FILL needs a scalar value",
            value.desc(),
            value.shape.len()
        ));
    }
    cx.same_type(value, out)?;
    // fill.cc:82-83: constant dims.
    let Some(data) = cx.backed(dims)? else {
        return invalid(format!(
            "{} is not a constant; TFLM's FILL needs constant dims (its Prepare fails)",
            dims.desc()
        ));
    };
    // fill.cc:38-60 (EnsureEq): dims of rank 1, as many as the output's, equal to them.
    let values: Vec<i64> = match dims.dtype {
        DType::Int8 => data.iter().map(|&b| i64::from(b as i8)).collect(),
        DType::Int16 => data
            .chunks_exact(2)
            .map(|c| {
                i64::from(i16::from_le_bytes([
                    c.first().copied().unwrap_or(0),
                    c.get(1).copied().unwrap_or(0),
                ]))
            })
            .collect(),
        DType::Int32 | DType::Int64 => cx.const_ints(dims)?,
        other => {
            return invalid(format!(
                "{} is {other}; TFLM's FILL compares int8, int16, int32 or int64 dims",
                dims.desc()
            ));
        }
    };
    if dims.shape.len() != 1 {
        return invalid(format!(
            "{} has rank {}; TFLM's FILL needs rank 1",
            dims.desc(),
            dims.shape.len()
        ));
    }
    let want: Vec<i64> = out.shape.iter().map(|&d| i64::from(d)).collect();
    if values != want {
        return invalid(format!(
            "{} holds {values:?}, but {} has shape {want:?} (TFLM's Prepare fails)",
            dims.desc(),
            out.desc()
        ));
    }
    if !matches!(value.dtype, DType::Float32 | DType::Int32 | DType::Int8) {
        return unsupported(format!(
            "the runtime has no FILL kernel for {} (nor has TFLM's)",
            value.dtype
        ));
    }
    Ok(Call {
        params: None,
        body: quote!(#k::proven::fill(i1, o0);),
        reads: vec![1],
        check: Some(quote!(#k::check_fill(i1, o0))),
    })
}

/// The fill, on the host ([`super::Folding`]): the runtime's kernel.
pub(super) fn fold(cx: &Lower<'_>) -> Result<Vec<Vec<u8>>, Refusal> {
    lower(cx)?;
    let dtype = cx.output(0)?.dtype;
    with_element!(
        dtype,
        T => {
            let value = cx.const_values::<T>(1)?;
            let mut out = cx.output_values::<T>(0)?;
            kernels::fill(&value, &mut out).map_err(|e| {
                Refusal::Unsupported(format!("the FILL kernel refuses: {e}"))
            })?;
            Ok(vec![le_bytes(&out)])
        },
        unsupported(format!("folding FILL of {dtype}"))
    )
}
