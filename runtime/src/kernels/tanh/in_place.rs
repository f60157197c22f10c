//! TANH with its output over the input it consumes: element by element through the in-place
//! driver's elementwise walk.

use super::{TanhS8, TanhS16};
use crate::kernels::shared::in_place::{elementwise_on_one_buffer, kernel_on_one_buffer};

elementwise_on_one_buffer! {
    /// [`tanh_s8`](super::tanh_s8) on one buffer.
    tanh_s8(TanhS8, i8) => |p, x| super::tanh_s8_one(p, x);
}

kernel_on_one_buffer! {
    /// [`tanh_s16`](super::tanh_s16) on one buffer.
    tanh_s16(TanhS16, i16) => |p, x, o| super::tanh_s16(p, x, &mut o);
    /// [`tanh_f32`](super::tanh_f32) on one buffer (no parameters: `()`).
    tanh_f32((), f32) => |_, x, o| super::tanh_f32(x, &mut o);
}
