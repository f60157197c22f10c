//! ADD with broadcasting: TFLM's `reference_integer_ops::Add` / `BroadcastAdd6DSlow` and the
//! float `reference_ops` ones.

#[cfg(any(stowplan_dsp, test))]
pub(crate) mod dsp;
pub(crate) mod in_place;

use super::shared::broadcast::{BinaryF32, BinaryI32, BinaryShape, broadcast, clamp_i32};
use super::shared::{Requant, activation_f32, fixed};

/// Parameters of an int8 ADD (TFLM's `OpDataAdd` for int8).
#[derive(Clone, Copy, Debug)]
pub struct AddS8 {
    /// The shapes.
    pub shape: BinaryShape,
    /// Left shift applied to both offset inputs (20 for int8).
    pub left_shift: i32,
    /// Minus the first input's zero point.
    pub input1_offset: i32,
    /// First input's multiplier (`QuantizeMultiplierSmallerThanOneExp`).
    pub input1: Requant,
    /// Minus the second input's zero point.
    pub input2_offset: i32,
    /// Second input's multiplier.
    pub input2: Requant,
    /// The output zero point.
    pub output_offset: i32,
    /// Output multiplier.
    pub output: Requant,
    /// Lower clamp of the quantised output (fused activation).
    pub act_min: i32,
    /// Upper clamp of the quantised output (fused activation).
    pub act_max: i32,
}

/// int8 ADD: TFLM's `AddFunc`: each offset input is shifted left by `left_shift`, scaled by
/// its multiplier, the two are summed, scaled by the output multiplier (all with
/// `MultiplyByQuantizedMultiplierSmallerThanOneExp`), offset and clamped.
///
/// # Preconditions
///
/// Each slice holds its shape's element count; every input dimension equals the output's or
/// is 1.
///
/// With cfg `stowplan_dsp` (Armv7E-M) same shapes and a scalar input run blocked, four
/// elements per load with the DSP extension's instructions (`dsp`); the outputs
/// are the same.
pub fn add_s8(p: &AddS8, input1: &[i8], input2: &[i8], output: &mut [i8]) {
    #[cfg(stowplan_dsp)]
    if dsp::add_s8(p, input1, input2, output) {
        return;
    }
    broadcast(&p.shape, input1, input2, output, |x, y| add_s8_one(p, x, y));
}

/// One element of [`add_s8`].
#[inline(always)]
pub(super) fn add_s8_one(p: &AddS8, x: i8, y: i8) -> i8 {
    // The clamp of TFLM's int8 kernels (`min(act_max, max(act_min, x))`), then the narrowing.
    add_quantized(p, i32::from(x), i32::from(y)) as i8
}

/// float ADD: TFLM's `reference_ops::Add` / `BroadcastAdd6DSlow` (float):
/// `ActivationFunctionWithMinMax(x + y)`.
///
/// # Preconditions
///
/// As [`add_s8`].
pub fn add_f32(p: &BinaryF32, input1: &[f32], input2: &[f32], output: &mut [f32]) {
    broadcast(&p.shape, input1, input2, output, |x, y| {
        add_f32_one(p, x, y)
    });
}

/// One element of [`add_f32`].
#[inline(always)]
pub(super) fn add_f32_one(p: &BinaryF32, x: f32, y: f32) -> f32 {
    activation_f32(x + y, p.act_min, p.act_max)
}

/// Parameters of an int16 ADD: TFLM's `OpDataAdd` for int16, the general path (`left_shift`
/// 15, clamps in the int16 range); the same fields as [`AddS8`].
pub type AddS16 = AddS8;

/// The quantised sum of TFLM's `AddFunc` / `AddElementwise` / `BroadcastAdd6DSlow` for small
/// integers, before narrowing: shifted, scaled, summed, rescaled, offset and clamped.
#[inline(always)]
pub(super) fn add_quantized(p: &AddS8, x: i32, y: i32) -> i32 {
    let input1_val = p.input1_offset.wrapping_add(x);
    let input2_val = p.input2_offset.wrapping_add(y);
    add_scaled(
        p,
        add_scale_input(p, p.input1, input1_val),
        add_scale_input(p, p.input2, input2_val),
    )
}

/// One input's term of [`add_quantized`]: its offset value (`input_offset + x`) shifted left by
/// `left_shift` and scaled by the input's multiplier `r`.
#[inline(always)]
pub(super) fn add_scale_input(p: &AddS8, r: Requant, input_val: i32) -> i32 {
    let shifted = input_val.wrapping_mul(1_i32.wrapping_shl(p.left_shift as u32));
    fixed::multiply_by_quantized_multiplier_smaller_than_one_exp(shifted, r.multiplier, r.shift)
}

/// The rest of [`add_quantized`] from the two inputs' terms ([`add_scale_input`]): summed,
/// rescaled, offset and clamped.
#[inline(always)]
pub(super) fn add_scaled(p: &AddS8, scaled_input1_val: i32, scaled_input2_val: i32) -> i32 {
    let scale = fixed::multiply_by_quantized_multiplier_smaller_than_one_exp;
    let raw_sum = scaled_input1_val.wrapping_add(scaled_input2_val);
    let raw_output =
        scale(raw_sum, p.output.multiplier, p.output.shift).wrapping_add(p.output_offset);
    clamp_i32(raw_output, p.act_min, p.act_max)
}

/// int16 ADD: TFLM's `reference_ops::AddGeneralParamScale` (same shapes; TFLM's micro ADD
/// passes `pot_scale = false`) and `BroadcastAdd6DSlow` for `int16_t`: [`add_s8`]'s arithmetic
/// with `left_shift` 15, the clamped result narrowed with `static_cast<int16_t>`.
///
/// # Preconditions
///
/// As [`add_s8`].
///
/// With cfg `stowplan_dsp` (Armv7E-M) same shapes and a scalar input run blocked, four
/// elements (two words) of each input at once (`dsp`); the outputs are the same.
pub fn add_s16(p: &AddS16, input1: &[i16], input2: &[i16], output: &mut [i16]) {
    #[cfg(stowplan_dsp)]
    if dsp::add_s16(p, input1, input2, output) {
        return;
    }
    broadcast(&p.shape, input1, input2, output, |x, y| {
        add_s16_one(p, x, y)
    });
}

/// One element of [`add_s16`].
#[inline(always)]
pub(super) fn add_s16_one(p: &AddS16, x: i16, y: i16) -> i16 {
    add_quantized(p, i32::from(x), i32::from(y)) as i16
}

/// int32 ADD: TFLM's `reference_ops::Add` / `BroadcastAdd6DSlow` for `int32_t`:
/// `ActivationFunctionWithMinMax(x + y)`, the sum wrapping as the x86-64 build's (signed
/// overflow is undefined in C++). TFLM's micro ADD clamps int32 to the whole int32 range,
/// whatever the fused activation.
///
/// # Preconditions
///
/// As [`add_s8`].
pub fn add_i32(p: &BinaryI32, input1: &[i32], input2: &[i32], output: &mut [i32]) {
    broadcast(&p.shape, input1, input2, output, |x, y| {
        add_i32_one(p, x, y)
    });
}

/// One element of [`add_i32`].
#[inline(always)]
pub(super) fn add_i32_one(p: &BinaryI32, x: i32, y: i32) -> i32 {
    clamp_i32(x.wrapping_add(y), p.act_min, p.act_max)
}
