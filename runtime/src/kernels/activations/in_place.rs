//! RELU and RELU6 with the output over the input they consume: element by element through the
//! in-place driver's elementwise walk.

use super::{Relu6S8, Relu6S16, ReluS8, ReluS16};

use crate::kernels::shared::in_place::elementwise_on_one_buffer;

elementwise_on_one_buffer! {
    mod proven_activations;
    /// [`relu_s8`](super::relu_s8) on one buffer.
    relu_s8, check_relu_s8 (ReluS8, i8) => value(|p, x| crate::kernels::activations::relu_s8_one(p, x));
    /// [`relu6_s8`](super::relu6_s8) on one buffer.
    relu6_s8, check_relu6_s8 (Relu6S8, i8) => value(|p, x| crate::kernels::activations::relu6_s8_one(p, x));
    /// [`relu_s16`](super::relu_s16) on one buffer.
    relu_s16, check_relu_s16 (ReluS16, i16) => kernel(|p, x, o| crate::kernels::activations::proven::relu_s16(p, x, &mut o));
    /// [`relu6_s16`](super::relu6_s16) on one buffer.
    relu6_s16, check_relu6_s16 (Relu6S16, i16) => kernel(|p, x, o| crate::kernels::activations::proven::relu6_s16(p, x, &mut o));
    /// [`relu_f32`](super::relu_f32) on one buffer (no parameters: `()`).
    relu_f32, check_relu_f32 ((), f32) => kernel(|_, x, o| crate::kernels::activations::proven::relu_f32(x, &mut o));
    /// [`relu6_f32`](super::relu6_f32) on one buffer (no parameters: `()`).
    relu6_f32, check_relu6_f32 ((), f32) => kernel(|_, x, o| crate::kernels::activations::proven::relu6_f32(x, &mut o));
}
