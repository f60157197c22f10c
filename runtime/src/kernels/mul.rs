//! MUL with broadcasting: TFLM's `reference_integer_ops::Mul` / `BroadcastMul6DSlow` and the
//! float `reference_ops` ones.

use super::broadcast::{BinaryF32, BinaryI32, BinaryShape, broadcast, clamp_binary, clamp_i32};
use super::{Requant, activation_f32};

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
pub fn mul_s8(p: &MulS8, input1: &[i8], input2: &[i8], output: &mut [i8]) {
    broadcast(&p.shape, input1, input2, output, |x, y| {
        let input1_val = p.input1_offset.wrapping_add(i32::from(x));
        let input2_val = p.input2_offset.wrapping_add(i32::from(y));
        let unclamped = p
            .output_offset
            .wrapping_add(p.output.apply(input1_val.wrapping_mul(input2_val)));
        clamp_binary(unclamped, p.act_min, p.act_max)
    });
}

/// float MUL: TFLM's `reference_ops::Mul` / `BroadcastMul6DSlow` (float):
/// `ActivationFunctionWithMinMax(x * y)`.
///
/// # Preconditions
///
/// As [`add_s8`](super::add_s8).
pub fn mul_f32(p: &BinaryF32, input1: &[f32], input2: &[f32], output: &mut [f32]) {
    broadcast(&p.shape, input1, input2, output, |x, y| {
        activation_f32(x * y, p.act_min, p.act_max)
    });
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
pub fn mul_s16(p: &MulS16, input1: &[i16], input2: &[i16], output: &mut [i16]) {
    broadcast(&p.shape, input1, input2, output, |x, y| {
        let input1_val = p.input1_offset.wrapping_add(i32::from(x));
        let input2_val = p.input2_offset.wrapping_add(i32::from(y));
        let unclamped = p
            .output_offset
            .wrapping_add(p.output.apply(input1_val.wrapping_mul(input2_val)));
        clamp_i32(unclamped, p.act_min, p.act_max) as i16
    });
}

/// int32 MUL: TFLM's `reference_ops::Mul` / `BroadcastMul6DSlow` for `int32_t`:
/// `ActivationFunctionWithMinMax(WrappingMul(x, y))` with the fused activation's int32 range.
///
/// # Preconditions
///
/// As [`add_s8`](super::add_s8).
pub fn mul_i32(p: &BinaryI32, input1: &[i32], input2: &[i32], output: &mut [i32]) {
    broadcast(&p.shape, input1, input2, output, |x, y| {
        clamp_i32(x.wrapping_mul(y), p.act_min, p.act_max)
    });
}
