//! QUANTIZE: TFLM's `reference_ops::AffineQuantize` (float to int8 and int16) and
//! `reference_ops::Requantize` (every integer pairing TFLM's `quantize_common.cc` takes: int8 to
//! int8, uint8, int16 and int32; uint8 to int8; int16 to int8, int16 and int32; int32 to int8
//! and int16).

pub(crate) mod in_place;

use stowplan_math::roundf;

use super::shared::Requant;
use super::shared::unary::elementwise_kernels;

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

elementwise_kernels! {
    /// float to int8 QUANTIZE: TFLM's `AffineQuantize`: `round(x / scale)` in `float` (half away
    /// from zero), plus the zero point, saturated to int8.
    pub fn quantize_f32_s8 / check_quantize_f32_s8(p: &QuantizeF32S8, input: &[f32], output: &mut [i8]) {
        for (o, &x) in output.iter_mut().zip(input) {
            let unclamped = to_i32_like_x86(roundf(x / p.scale)).wrapping_add(p.zero_point);
            *o = unclamped.clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8;
        }
    }

    /// float to int16 QUANTIZE: TFLM's `AffineQuantize<float, int16_t>`: [`quantize_f32_s8`]'s
    /// computation saturated to int16.
    pub fn quantize_f32_s16 / check_quantize_f32_s16(p: &QuantizeF32S16, input: &[f32], output: &mut [i16]) {
        for (o, &x) in output.iter_mut().zip(input) {
            let unclamped = to_i32_like_x86(roundf(x / p.scale)).wrapping_add(p.zero_point);
            *o = unclamped.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        }
    }

    /// int8 to int8 QUANTIZE: TFLM's `reference_ops::Requantize`:
    /// `MultiplyByQuantizedMultiplier(x - input_zero_point) + output_zero_point`, saturated.
    pub fn requantize_s8 / check_requantize_s8(p: &Requantize, input: &[i8], output: &mut [i8]) {
        requantize(p, input, output, to_s8);
    }

    /// int8 to uint8 QUANTIZE: TFLM's `Requantize<int8_t, uint8_t>`.
    pub fn requantize_s8_u8 / check_requantize_s8_u8(p: &Requantize, input: &[i8], output: &mut [u8]) {
        requantize(p, input, output, to_u8);
    }

    /// uint8 to int8 QUANTIZE: TFLM's `Requantize<uint8_t, int8_t>`.
    pub fn requantize_u8_s8 / check_requantize_u8_s8(p: &Requantize, input: &[u8], output: &mut [i8]) {
        requantize(p, input, output, to_s8);
    }

    /// int8 to int16 QUANTIZE: TFLM's `Requantize<int8_t, int16_t>`.
    pub fn requantize_s8_s16 / check_requantize_s8_s16(p: &Requantize, input: &[i8], output: &mut [i16]) {
        requantize(p, input, output, to_s16);
    }

    /// int8 to int32 QUANTIZE: TFLM's `Requantize<int8_t, int32_t>`.
    pub fn requantize_s8_s32 / check_requantize_s8_s32(p: &Requantize, input: &[i8], output: &mut [i32]) {
        requantize(p, input, output, |v| v);
    }

    /// int16 to int8 QUANTIZE: TFLM's `Requantize<int16_t, int8_t>`.
    pub fn requantize_s16_s8 / check_requantize_s16_s8(p: &Requantize, input: &[i16], output: &mut [i8]) {
        requantize(p, input, output, to_s8);
    }

    /// int16 to int16 QUANTIZE: TFLM's `Requantize<int16_t, int16_t>`.
    pub fn requantize_s16 / check_requantize_s16(p: &Requantize, input: &[i16], output: &mut [i16]) {
        requantize(p, input, output, to_s16);
    }

    /// int16 to int32 QUANTIZE: TFLM's `Requantize<int16_t, int32_t>`.
    pub fn requantize_s16_s32 / check_requantize_s16_s32(p: &Requantize, input: &[i16], output: &mut [i32]) {
        requantize(p, input, output, |v| v);
    }

    /// int32 to int8 QUANTIZE: TFLM's `Requantize<int32_t, int8_t>`.
    pub fn requantize_s32_s8 / check_requantize_s32_s8(p: &Requantize, input: &[i32], output: &mut [i8]) {
        requantize(p, input, output, to_s8);
    }

    /// int32 to int16 QUANTIZE: TFLM's `Requantize<int32_t, int16_t>`.
    pub fn requantize_s32_s16 / check_requantize_s32_s16(p: &Requantize, input: &[i32], output: &mut [i16]) {
        requantize(p, input, output, to_s16);
    }
}

/// Parameters of a float to int16 QUANTIZE.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuantizeF32S16 {
    /// The output scale (as [`QuantizeF32S8::scale`]).
    pub scale: f32,
    /// The output zero point.
    pub zero_point: i32,
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

/// TFLM's `reference_ops::Requantize<input_type, output_type>`: per element `input -
/// input_zero_point` (int32, wrapping for int32 inputs as on x86-64), the multiplier, plus the
/// output zero point, then `narrow` (saturation to the output type).
///
/// TFLM's fast path for int8 to uint8 and uint8 to int8 at the same scale with zero points 128
/// apart (`x ^ 0x80`) gives what this computes (the multiplier is exactly 1), so it has no
/// branch of its own.
#[inline(always)]
fn requantize<I: Copy + Into<i32>, O>(
    p: &Requantize,
    input: &[I],
    output: &mut [O],
    narrow: impl Fn(i32) -> O,
) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = narrow(requantized(p, x.into()));
    }
}

/// One element of [`requantize`] before the narrowing: `x - input_zero_point`, the multiplier,
/// plus the output zero point.
#[inline(always)]
pub(super) fn requantized(p: &Requantize, x: i32) -> i32 {
    p.requant
        .apply(x.wrapping_add(p.input_offset))
        .wrapping_add(p.output_offset)
}

/// Saturates to int8.
pub(super) fn to_s8(v: i32) -> i8 {
    v.clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8
}

/// Saturates to uint8.
fn to_u8(v: i32) -> u8 {
    v.clamp(0, i32::from(u8::MAX)) as u8
}

/// Saturates to int16.
pub(super) fn to_s16(v: i32) -> i16 {
    v.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: Requant = Requant {
        multiplier: 1 << 30,
        shift: 1,
    };

    #[test]
    fn int8_uint8_shift_by_128_at_the_same_scale() {
        // TFLM's fast path is `x ^ 0x80`: the general computation gives the same.
        // Zero points 3 and 131.
        let p = Requantize {
            input_offset: -3,
            output_offset: 131,
            requant: ONE,
        };
        let input: [i8; 4] = [-128, -1, 0, 127];
        let mut out = [0u8; 4];
        requantize_s8_u8(&p, &input, &mut out).unwrap();
        assert_eq!(out, input.map(|x| (x as u8) ^ 0x80));
        let p = Requantize {
            input_offset: -131,
            output_offset: 3,
            requant: ONE,
        };
        let mut back = [0i8; 4];
        requantize_u8_s8(&p, &out, &mut back).unwrap();
        assert_eq!(back, input);
    }

    #[test]
    fn requantization_saturates_to_the_output_type() {
        let p = Requantize {
            input_offset: 0,
            output_offset: 0,
            requant: Requant {
                multiplier: 1 << 30,
                shift: 10,
            },
        };
        let mut s16 = [0i16; 3];
        requantize_s8_s16(&p, &[-128, 1, 127], &mut s16).unwrap();
        // (2^30, 10) is 512.
        assert_eq!(s16, [-32768, 512, 32767]);
        let mut s32 = [0i32; 3];
        requantize_s16_s32(&p, &[-32768, 1, 32767], &mut s32).unwrap();
        assert_eq!(s32, [-32768 * 512, 512, 32767 * 512]);
        let mut s8 = [0i8; 2];
        requantize_s32_s8(&p, &[i32::MIN, 0], &mut s8).unwrap();
        // i32::MIN * 1024 (the doubling `x * (1 << left_shift)`) wraps to 0 on x86-64.
        assert_eq!(s8, [0, 0]);
    }

    #[test]
    fn float_to_int16_rounds_half_away_and_saturates() {
        let p = QuantizeF32S16 {
            scale: 0.5,
            zero_point: 1,
        };
        let mut out = [0i16; 5];
        quantize_f32_s16(
            &p,
            &[0.25, -0.25, 1e9, f32::NEG_INFINITY, f32::NAN],
            &mut out,
        )
        .unwrap();
        // NaN and -inf convert to INT32_MIN (x86-64) plus the zero point: saturated low.
        assert_eq!(out, [2, 0, 32767, -32768, -32768]);
    }
}
