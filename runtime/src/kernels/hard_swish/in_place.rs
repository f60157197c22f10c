//! HARD_SWISH with its output over the input it consumes: element by element through the
//! in-place driver's elementwise walk.

use super::HardSwishS8;
use crate::kernels::shared::in_place::elementwise_on_one_buffer;

elementwise_on_one_buffer! {
    mod proven_hard_swish;
    /// [`hard_swish_s8`](super::hard_swish_s8) on one buffer.
    hard_swish_s8, check_hard_swish_s8 (HardSwishS8, i8) => kernel(|p, x, o| crate::kernels::hard_swish::proven::hard_swish_s8(p, x, &mut o));
    /// [`hard_swish_f32`](super::hard_swish_f32) on one buffer (no parameters: `()`).
    hard_swish_f32, check_hard_swish_f32 ((), f32) => kernel(|_, x, o| crate::kernels::hard_swish::proven::hard_swish_f32(x, &mut o));
}
