//! ROUND: TFLM's `round.cc` (`RoundPrepare`: one input, one output, float32, the same type and
//! dimensions), for the kernel `stowplan::kernels::round_f32`.

use quote::quote;

use super::unary::{one_input_one_output, plain, same_shape};
use super::{Call, Lower, OpKind, Refusal, invalid, kernel};
use crate::tflite::DType;

/// ROUND.
pub const ROUND: OpKind = kernel("round", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    one_input_one_output(cx)?;
    let (input, _) = same_shape(cx)?;
    if input.dtype != DType::Float32 {
        return invalid(format!(
            "{} is {}; TFLM's ROUND takes float32 only",
            input.desc(),
            input.dtype
        ));
    }
    Ok(plain(cx, quote!(round_f32)))
}
