//! NEG: TFLM's `neg.cc` (no `Prepare`; `NegEval` takes float32 only), for the kernel
//! `stowplan::kernels::neg_f32`.

use quote::quote;

use super::unary::{plain, same_size};
use super::{Call, Lower, OpKind, Refusal, kernel, unsupported};
use crate::tflite::DType;

/// NEG.
pub const NEG: OpKind = kernel("neg", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let (input, out) = same_size(cx)?;
    // NegEval fails for any other input type; it does not check the output's, and writes
    // floats: stowplan runs float to float only.
    if input.dtype != DType::Float32 || out.dtype != DType::Float32 {
        return unsupported(format!(
            "NEG of {} ({}) to {}: TFLM's NEG runs float32 only",
            input.dtype,
            input.desc(),
            out.dtype
        ));
    }
    Ok(plain(cx, quote!(neg_f32)))
}
