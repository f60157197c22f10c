//! TANH with its output over the input it consumes: element by element through the in-place
//! driver's elementwise walk.

use super::{TanhS8, TanhS16};
use crate::kernels::shared::in_place::elementwise_on_one_buffer;

elementwise_on_one_buffer! {
    mod proven_tanh;
    /// [`tanh_s8`](super::tanh_s8) on one buffer.
    tanh_s8, check_tanh_s8 (TanhS8, i8) => value(|p, x| crate::kernels::tanh::tanh_s8_one(p, x));
    /// [`tanh_s16`](super::tanh_s16) on one buffer.
    tanh_s16, check_tanh_s16 (TanhS16, i16) => kernel(|p, x, o| crate::kernels::tanh::proven::tanh_s16(p, x, &mut o));
    /// [`tanh_f32`](super::tanh_f32) on one buffer (no parameters: `()`).
    tanh_f32, check_tanh_f32 ((), f32) => kernel(|_, x, o| crate::kernels::tanh::proven::tanh_f32(x, &mut o));
}
