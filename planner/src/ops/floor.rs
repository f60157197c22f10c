//! FLOOR: TFLM's `floor.cc` (no `Prepare`; `FloorEval` takes float32 only), for the kernel
//! `stowplan::kernels::floor_f32`.

use quote::quote;

use super::unary::{plain, same_size};
use super::{Call, Lower, OpKind, Refusal, kernel, unsupported};
use crate::tflite::DType;

/// FLOOR.
pub const FLOOR: OpKind = kernel("floor", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let (input, out) = same_size(cx)?;
    // FloorEval fails for any other input type; it does not check the output's, and writes
    // floats: stowplan runs float to float only.
    if input.dtype != DType::Float32 || out.dtype != DType::Float32 {
        return unsupported(format!(
            "FLOOR of {} ({}) to {}: TFLM's FLOOR runs float32 only",
            input.dtype,
            input.desc(),
            out.dtype
        ));
    }
    Ok(plain(cx, quote!(floor_f32)))
}
