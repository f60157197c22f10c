//! ADD with the output over its first input: the in-place driver's binary walk (the output in
//! memory order, each element written after the first input's element is read), or on
//! Armv7E-M the blocked loop's one-buffer walk.

use super::{AddS8, AddS16};
use crate::kernels::shared::broadcast::{BinaryF32, BinaryI32};
use crate::kernels::shared::in_place::binary_on_one_buffer;

binary_on_one_buffer! {
    mod proven_add;
    /// [`add_s8`](super::add_s8) on one buffer.
    ///
    /// With cfg `stowplan_dsp` (Armv7E-M) the same shapes and a scalar second input run
    /// blocked, four elements per load, as [`add_s8`](super::add_s8) runs them there: each
    /// block reads its four first-input elements before it writes its four outputs, in
    /// increasing order; the outputs are the same.
    add_s8, check_add_s8(AddS8, i8) =>
        crate::kernels::add::add_s8_one, super::check_add_s8,
        dsp crate::kernels::add::dsp::add_s8_on_one_buffer;
    /// [`add_s16`](super::add_s16) on one buffer.
    ///
    /// With cfg `stowplan_dsp` blocked as [`add_s8`], four elements (two words) at once.
    add_s16, check_add_s16(AddS16, i16) =>
        crate::kernels::add::add_s16_one, super::check_add_s16,
        dsp crate::kernels::add::dsp::add_s16_on_one_buffer;
    /// [`add_i32`](super::add_i32) on one buffer.
    add_i32, check_add_i32(BinaryI32, i32) =>
        crate::kernels::add::add_i32_one, super::check_add_i32;
    /// [`add_f32`](super::add_f32) on one buffer.
    add_f32, check_add_f32(BinaryF32, f32) =>
        crate::kernels::add::add_f32_one, super::check_add_f32;
}
