//! ELU with its output over the input it consumes: element by element through the in-place
//! driver's elementwise walk.

use super::EluS8;
use crate::kernels::shared::in_place::kernel_on_one_buffer;

kernel_on_one_buffer! {
    /// [`elu_s8`](super::elu_s8) on one buffer.
    elu_s8(EluS8, i8) => |p, x, o| super::elu_s8(p, x, &mut o);
    /// [`elu_f32`](super::elu_f32) on one buffer (no parameters: `()`).
    elu_f32((), f32) => |_, x, o| super::elu_f32(x, &mut o);
}
