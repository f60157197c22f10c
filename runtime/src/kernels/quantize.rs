//! QUANTIZE: TFLM's `reference_ops::AffineQuantize` (float to int8) and
//! `reference_ops::Requantize` (int8 to int8).

use stowplan_math::roundf;

use super::Requant;

/// Parameters of a float to int8 QUANTIZE.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuantizeF32S8 {
    /// The output scale (TFLM holds it as a `double` converted from this `float` and converts
    /// it back to `float` before dividing, so `f32` is exact).
    pub scale: f32,
    /// The output zero point.
    pub zero_point: i32,
}

/// `static_cast<int32_t>(x)` as x86-64 computes it (`cvttss2si`): truncation, and
/// `INT32_MIN` for NaN and values out of range (undefined behaviour in C++; this is what the
/// host build of TFLM does).
fn to_i32_like_x86(x: f32) -> i32 {
    if x.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        i32::MIN
    } else {
        x as i32
    }
}

/// float to int8 QUANTIZE: TFLM's `AffineQuantize`: `round(x / scale)` in `float` (half away
/// from zero), plus the zero point, saturated to int8.
///
/// # Preconditions
///
/// `input.len() == output.len()`.
pub fn quantize_f32_s8(p: &QuantizeF32S8, input: &[f32], output: &mut [i8]) {
    for (o, &x) in output.iter_mut().zip(input) {
        let unclamped = to_i32_like_x86(roundf(x / p.scale)).wrapping_add(p.zero_point);
        *o = unclamped.clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8;
    }
}

/// Parameters of an int8 to int8 QUANTIZE (requantisation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Requantize {
    /// Minus the input zero point.
    pub input_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// `QuantizeMultiplier(input_scale / output_scale)`.
    pub requant: Requant,
}

/// int8 to int8 QUANTIZE: TFLM's `reference_ops::Requantize`:
/// `MultiplyByQuantizedMultiplier(x - input_zero_point) + output_zero_point`, saturated.
///
/// # Preconditions
///
/// `input.len() == output.len()`.
pub fn requantize_s8(p: &Requantize, input: &[i8], output: &mut [i8]) {
    for (o, &x) in output.iter_mut().zip(input) {
        let value = p
            .requant
            .apply(i32::from(x).wrapping_add(p.input_offset))
            .wrapping_add(p.output_offset);
        *o = value.clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8;
    }
}
