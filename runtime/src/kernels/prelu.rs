//! PRELU with the alphas broadcast to the input: TFLM's `BroadcastPrelu4DSlowFloat`
//! (`prelu_common.cc`) and `reference_ops::BroadcastPrelu4DSlow` (int8 input with int8
//! alphas, int16 input with int8 alphas).

use super::shared::Requant;
use super::shared::broadcast::{BinaryShape, broadcast, broadcast_mixed, clamp_i32};

/// float PRELU: `x >= 0 ? x : x * alpha`.
///
/// # Preconditions
///
/// Each slice holds its shape's element count; every input dimension equals the output's or
/// is 1.
pub fn prelu_f32(p: &BinaryShape, input: &[f32], alpha: &[f32], output: &mut [f32]) {
    broadcast(
        p,
        input,
        alpha,
        output,
        |x, a| if x >= 0.0 { x } else { x * a },
    );
}

/// Parameters of a quantised PRELU (TFLM's `PreluParams` from `CalculatePreluParams`).
#[derive(Clone, Copy, Debug)]
pub struct PreluQuant {
    /// The shapes (input, alpha, output).
    pub shape: BinaryShape,
    /// Minus the input zero point.
    pub input_offset: i32,
    /// Minus the alpha zero point.
    pub alpha_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// `QuantizeMultiplier(input_scale / output_scale)`, for non-negative inputs.
    pub output1: Requant,
    /// `QuantizeMultiplier(input_scale * alpha_scale / output_scale)`, for negative ones.
    pub output2: Requant,
}

/// TFLM's quantised PRELU of one element, before clamping.
#[inline(always)]
fn prelu_quantized(p: &PreluQuant, x: i32, a: i32) -> i32 {
    let input_value = p.input_offset.wrapping_add(x);
    let output_value = if input_value >= 0 {
        p.output1.apply(input_value)
    } else {
        let alpha_value = p.alpha_offset.wrapping_add(a);
        p.output2.apply(input_value.wrapping_mul(alpha_value))
    };
    output_value.wrapping_add(p.output_offset)
}

/// int8 PRELU: the offset input times the first multiplier where it is non-negative, else the
/// offset input times the offset alpha times the second multiplier
/// (`MultiplyByQuantizedMultiplier`), offset and clamped to int8.
///
/// # Preconditions
///
/// As [`prelu_f32`].
pub fn prelu_s8(p: &PreluQuant, input: &[i8], alpha: &[i8], output: &mut [i8]) {
    broadcast(&p.shape, input, alpha, output, |x, a| {
        clamp_i32(prelu_quantized(p, i32::from(x), i32::from(a)), -128, 127) as i8
    });
}

/// int16 PRELU with int8 alphas: [`prelu_s8`]'s arithmetic, clamped to int16.
///
/// # Preconditions
///
/// As [`prelu_f32`].
pub fn prelu_s16(p: &PreluQuant, input: &[i16], alpha: &[i8], output: &mut [i16]) {
    broadcast_mixed(&p.shape, input, alpha, output, |x, a| {
        clamp_i32(
            prelu_quantized(p, i32::from(x), i32::from(a)),
            i32::from(i16::MIN),
            i32::from(i16::MAX),
        ) as i16
    });
}
