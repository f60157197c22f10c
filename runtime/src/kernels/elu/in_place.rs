//! ELU with its output over the input it consumes: element by element through the in-place
//! driver's elementwise walk.

use super::EluS8;
use crate::kernels::shared::in_place::elementwise_on_one_buffer;

elementwise_on_one_buffer! {
    mod proven_elu;
    /// [`elu_s8`](super::elu_s8) on one buffer.
    elu_s8, check_elu_s8 (EluS8, i8) => kernel(|p, x, o| crate::kernels::elu::proven::elu_s8(p, x, &mut o));
    /// [`elu_f32`](super::elu_f32) on one buffer (no parameters: `()`).
    elu_f32, check_elu_f32 ((), f32) => kernel(|_, x, o| crate::kernels::elu::proven::elu_f32(x, &mut o));
}
