//! MUL with the output over its first input: the in-place driver's binary walk (the output in
//! memory order, each element written after the first input's element is read), or on
//! Armv7E-M the blocked loop's one-buffer walk.

use super::{MulS8, MulS16};
use crate::kernels::shared::broadcast::{BinaryF32, BinaryI32};
use crate::kernels::shared::in_place::binary_on_one_buffer;

binary_on_one_buffer! {
    mod proven_mul;
    /// [`mul_s8`](super::mul_s8) on one buffer.
    ///
    /// With cfg `stowplan_dsp` (Armv7E-M) the same shapes and a scalar second input run
    /// blocked, four elements per load, each block reading its four first-input elements before
    /// it writes its four outputs, in increasing order; the outputs are the same.
    mul_s8, check_mul_s8(MulS8, i8) =>
        crate::kernels::mul::mul_s8_one, super::check_mul_s8,
        dsp crate::kernels::mul::dsp::mul_s8_on_one_buffer;
    /// [`mul_s16`](super::mul_s16) on one buffer.
    ///
    /// With cfg `stowplan_dsp` blocked as [`mul_s8`], four elements (two words) at once, when
    /// both offsets are 0.
    mul_s16, check_mul_s16(MulS16, i16) =>
        crate::kernels::mul::mul_s16_one, super::check_mul_s16,
        dsp crate::kernels::mul::dsp::mul_s16_on_one_buffer;
    /// [`mul_i32`](super::mul_i32) on one buffer.
    mul_i32, check_mul_i32(BinaryI32, i32) =>
        crate::kernels::mul::mul_i32_one, super::check_mul_i32;
    /// [`mul_f32`](super::mul_f32) on one buffer.
    mul_f32, check_mul_f32(BinaryF32, f32) =>
        crate::kernels::mul::mul_f32_one, super::check_mul_f32;
}
