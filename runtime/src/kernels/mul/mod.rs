//! MUL with broadcasting: TFLM's `reference_integer_ops::Mul` / `BroadcastMul6DSlow` and the
//! float `reference_ops` ones.

#[cfg(any(stowplan_dsp, test))]
mod dsp;
pub(crate) mod in_place;

use super::shared::broadcast::{BinaryF32, BinaryI32, BinaryShape, broadcast, clamp_i32};
use super::shared::{Requant, activation_f32};

/// Parameters of an int8 MUL (TFLM's `OpDataMul` for int8).
#[derive(Clone, Copy, Debug)]
pub struct MulS8 {
    /// The shapes.
    pub shape: BinaryShape,
    /// Minus the first input's zero point.
    pub input1_offset: i32,
    /// Minus the second input's zero point.
    pub input2_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// `QuantizeMultiplier(input1_scale * input2_scale / output_scale)`.
    pub output: Requant,
    /// Lower clamp of the quantised output (fused activation).
    pub act_min: i32,
    /// Upper clamp of the quantised output (fused activation).
    pub act_max: i32,
}

/// int8 MUL: TFLM's `MulElementwise`: `output_offset + MultiplyByQuantizedMultiplier((x +
/// input1_offset) * (y + input2_offset))`, clamped.
///
/// # Preconditions
///
/// As [`add_s8`](super::add_s8).
///
/// With cfg `stowplan_dsp` (Armv7E-M) same shapes and a scalar input run blocked, four
/// elements per load and two products per pair of instructions with the DSP extension
/// (`dsp`); the outputs are the same.
pub fn mul_s8(p: &MulS8, input1: &[i8], input2: &[i8], output: &mut [i8]) {
    #[cfg(stowplan_dsp)]
    if dsp::mul_s8(p, input1, input2, output) {
        return;
    }
    broadcast(&p.shape, input1, input2, output, |x, y| mul_s8_one(p, x, y));
}

/// The quantised product of TFLM's `MulElementwise` / `BroadcastMul6DSlow` for small integers,
/// before narrowing: offset, multiplied, rescaled, offset and clamped.
#[inline(always)]
fn mul_quantized(p: &MulS8, x: i32, y: i32) -> i32 {
    let input1_val = p.input1_offset.wrapping_add(x);
    let input2_val = p.input2_offset.wrapping_add(y);
    mul_product(p, input1_val.wrapping_mul(input2_val))
}

/// The rest of [`mul_quantized`] from the product of the two offset values: rescaled, offset
/// and clamped.
#[inline(always)]
pub(super) fn mul_product(p: &MulS8, product: i32) -> i32 {
    let unclamped = p.output_offset.wrapping_add(p.output.apply(product));
    clamp_i32(unclamped, p.act_min, p.act_max)
}

/// One element of [`mul_s8`].
#[inline(always)]
pub(super) fn mul_s8_one(p: &MulS8, x: i8, y: i8) -> i8 {
    // The clamp of TFLM's int8 kernels (`min(act_max, max(act_min, x))`), then the narrowing.
    mul_quantized(p, i32::from(x), i32::from(y)) as i8
}

/// float MUL: TFLM's `reference_ops::Mul` / `BroadcastMul6DSlow` (float):
/// `ActivationFunctionWithMinMax(x * y)`.
///
/// # Preconditions
///
/// As [`add_s8`](super::add_s8).
pub fn mul_f32(p: &BinaryF32, input1: &[f32], input2: &[f32], output: &mut [f32]) {
    broadcast(&p.shape, input1, input2, output, |x, y| {
        mul_f32_one(p, x, y)
    });
}

/// One element of [`mul_f32`].
#[inline(always)]
pub(super) fn mul_f32_one(p: &BinaryF32, x: f32, y: f32) -> f32 {
    activation_f32(x * y, p.act_min, p.act_max)
}

/// Parameters of an int16 MUL (TFLM's `OpDataMul` for int16: zero points 0); the fields of
/// [`MulS8`].
pub type MulS16 = MulS8;

/// int16 MUL: TFLM's `reference_integer_ops::Mul` / `BroadcastMul6DSlow` for `int16_t`:
/// [`mul_s8`]'s arithmetic, clamped into the int16 activation range and narrowed.
///
/// # Preconditions
///
/// As [`add_s8`](super::add_s8).
///
/// With cfg `stowplan_dsp` (Armv7E-M) same shapes and a scalar input with both offsets 0 run
/// blocked, two products per pair of instructions with the DSP extension
/// (`dsp`); the outputs are the same.
pub fn mul_s16(p: &MulS16, input1: &[i16], input2: &[i16], output: &mut [i16]) {
    #[cfg(stowplan_dsp)]
    if dsp::mul_s16(p, input1, input2, output) {
        return;
    }
    broadcast(&p.shape, input1, input2, output, |x, y| {
        mul_s16_one(p, x, y)
    });
}

/// One element of [`mul_s16`].
#[inline(always)]
pub(super) fn mul_s16_one(p: &MulS16, x: i16, y: i16) -> i16 {
    mul_quantized(p, i32::from(x), i32::from(y)) as i16
}

/// int32 MUL: TFLM's `reference_ops::Mul` / `BroadcastMul6DSlow` for `int32_t`:
/// `ActivationFunctionWithMinMax(WrappingMul(x, y))` with the fused activation's int32 range.
///
/// # Preconditions
///
/// As [`add_s8`](super::add_s8).
pub fn mul_i32(p: &BinaryI32, input1: &[i32], input2: &[i32], output: &mut [i32]) {
    broadcast(&p.shape, input1, input2, output, |x, y| {
        mul_i32_one(p, x, y)
    });
}

/// One element of [`mul_i32`].
#[inline(always)]
pub(super) fn mul_i32_one(p: &BinaryI32, x: i32, y: i32) -> i32 {
    clamp_i32(x.wrapping_mul(y), p.act_min, p.act_max)
}
