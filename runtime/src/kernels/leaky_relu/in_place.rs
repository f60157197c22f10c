//! LEAKY_RELU with its output over the input it consumes: element by element through the
//! in-place driver's elementwise walk.

use super::{LeakyReluF32, LeakyReluQuantized};
use crate::kernels::shared::in_place::elementwise_on_one_buffer;

elementwise_on_one_buffer! {
    mod proven_leaky_relu;
    /// [`leaky_relu_s8`](super::leaky_relu_s8) on one buffer.
    leaky_relu_s8, check_leaky_relu_s8 (LeakyReluQuantized, i8) => kernel(|p, x, o| crate::kernels::leaky_relu::proven::leaky_relu_s8(p, x, &mut o));
    /// [`leaky_relu_s16`](super::leaky_relu_s16) on one buffer.
    leaky_relu_s16, check_leaky_relu_s16 (LeakyReluQuantized, i16) => kernel(|p, x, o| crate::kernels::leaky_relu::proven::leaky_relu_s16(p, x, &mut o));
    /// [`leaky_relu_f32`](super::leaky_relu_f32) on one buffer.
    leaky_relu_f32, check_leaky_relu_f32 (LeakyReluF32, f32) => kernel(|p, x, o| crate::kernels::leaky_relu::proven::leaky_relu_f32(p, x, &mut o));
}
