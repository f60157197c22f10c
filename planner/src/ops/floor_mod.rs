//! FLOOR_MOD: TFLM's `floor_mod.cc` (`CalculateOpData`: the three types equal; its Eval takes
//! float32 only), for the kernel `stowplan::kernels::floor_mod_f32`; shapes broadcast as
//! ADD's.

use quote::quote;

use super::floor_div::float_binary;
use super::{Call, Lower, OpKind, Refusal, kernel};

/// FLOOR_MOD.
pub const FLOOR_MOD: OpKind = kernel("floor_mod", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    float_binary(cx, quote!(floor_mod_f32))
}
