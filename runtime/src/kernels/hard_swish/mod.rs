//! HARD_SWISH: TFLM's `hard_swish.cc` over `reference_ops::HardSwish` (float, and int8 with
//! gemmlowp's 16-bit fixed point).

pub(crate) mod in_place;

use super::shared::unary::elementwise_kernels;
use stowplan_math::sse;

/// Parameters of an int8 HARD_SWISH (TFLM's `HardSwishParams`; TFLM keeps the zero points as
/// `int16_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HardSwishS8 {
    /// The input zero point.
    pub input_zero_point: i16,
    /// The output zero point.
    pub output_zero_point: i16,
    /// `QuantizeMultiplier(hires_input_scale / (3 / 32768))` down-scaled to 16 bits.
    pub reluish_multiplier_fixedpoint_int16: i16,
    /// Its exponent.
    pub reluish_multiplier_exponent: i32,
    /// `QuantizeMultiplier(hires_input_scale / output_scale)` down-scaled to 16 bits.
    pub output_multiplier_fixedpoint_int16: i16,
    /// Its exponent (at most 0: TFLM's `Prepare` requires it).
    pub output_multiplier_exponent: i32,
}

/// gemmlowp's `SaturatingRoundingDoublingHighMul` for `int16`: `a * b / 2^15` rounded to
/// nearest (ties away from zero, as its nudge and truncating division do), `MIN * MIN`
/// saturating to `MAX`.
const fn srdhm_16(a: i16, b: i16) -> i16 {
    if a == b && a == i16::MIN {
        return i16::MAX;
    }
    let ab = a as i32 * b as i32;
    let nudge: i32 = if ab >= 0 { 1 << 14 } else { 1 - (1 << 14) };
    ((ab + nudge) / (1 << 15)) as i16
}

/// TFLM's `SaturatingDoublingHighMul` (`reference/hard_swish.h`): as [`srdhm_16`] but
/// truncating towards zero (ARM's `SQDMULH`).
const fn sdhm_16(a: i16, b: i16) -> i16 {
    if a == b && a == i16::MIN {
        return i16::MAX;
    }
    let ab = a as i32 * b as i32;
    (ab / (1 << 15)) as i16
}

/// gemmlowp's `RoundingDivideByPOT` for `int16` with an `int` exponent, as the x86-64 build
/// computes it: the mask `(1ll << exponent) - 1` truncated to 16 bits (all ones from 16 on),
/// shifts of the value promoted to `int` (counts taken modulo 32).
const fn rounding_divide_by_pot_16(x: i16, exponent: i32) -> i16 {
    let mask = (1_i64.wrapping_shl(exponent as u32)).wrapping_sub(1) as i16;
    let remainder = x & mask;
    let threshold = (mask >> 1).wrapping_add(if x < 0 { 1 } else { 0 });
    let shifted = (x as i32).wrapping_shr(exponent as u32) as i16;
    shifted.wrapping_add(if remainder > threshold { 1 } else { 0 })
}

/// TFLM's `SaturatingLeftShift` (`reference/hard_swish.h`): `value * (1 << amount)` in 64
/// bits (the `int` power wrapping as on x86-64), saturated to `int16`.
fn saturating_left_shift(value: i16, amount: i32) -> i16 {
    let result = i64::from(value) * i64::from(1_i32.wrapping_shl(amount as u32));
    result.clamp(i64::from(i16::MIN), i64::from(i16::MAX)) as i16
}

elementwise_kernels! {
    /// int8 HARD_SWISH: TFLM's `reference_ops::HardSwish<int8_t>`: the input on a 2^7 finer
    /// scale; the output before its shift (`SaturatingRoundingDoublingHighMul` by the output
    /// multiplier); the "reluish" factor, the input rescaled so that 3 is 32768 (saturating left
    /// shifts around the 16-bit multiplier, or a rounding right shift), mapped from `[-1, 1]` to
    /// `[0, 1]`; their `SaturatingDoublingHighMul`; the output shift (`RoundingDivideByPOT`); the
    /// zero point; clamped to int8. Every step in `int16` as TFLM's.
    pub fn hard_swish_s8 / check_hard_swish_s8(p: &HardSwishS8, input: &[i8], output: &mut [i8]) {
        for (o, &x) in output.iter_mut().zip(input) {
            let input_value = (i32::from(x) - i32::from(p.input_zero_point)) as i16;
            let input_value_on_hires_input_scale = (i32::from(input_value) * (1 << 7)) as i16;
            let input_value_on_preshift_output_scale = srdhm_16(
                input_value_on_hires_input_scale,
                p.output_multiplier_fixedpoint_int16,
            );
            let mut reluish_value = input_value_on_hires_input_scale;
            if p.reluish_multiplier_exponent > 0 {
                reluish_value =
                    saturating_left_shift(reluish_value, p.reluish_multiplier_exponent.wrapping_sub(1));
            }
            reluish_value = srdhm_16(reluish_value, p.reluish_multiplier_fixedpoint_int16);
            if p.reluish_multiplier_exponent > 0 {
                reluish_value = saturating_left_shift(reluish_value, 1);
            }
            if p.reluish_multiplier_exponent < 0 {
                reluish_value = rounding_divide_by_pot_16(
                    reluish_value,
                    p.reluish_multiplier_exponent.wrapping_neg(),
                );
            }
            // [-1, 1] to [0, 1]: (v + 2^15) >> 1 in int.
            let reluish_value = ((i32::from(reluish_value) + (1 << 15)) >> 1) as i16;
            let preshift_output_value = sdhm_16(reluish_value, input_value_on_preshift_output_scale);
            let output_value = rounding_divide_by_pot_16(
                preshift_output_value,
                p.output_multiplier_exponent.wrapping_neg(),
            );
            let output_value = output_value.wrapping_add(p.output_zero_point);
            *o = output_value.clamp(i16::from(i8::MIN), i16::from(i8::MAX)) as i8;
        }
    }

    /// float HARD_SWISH: TFLM's `reference_ops::HardSwish<float>`: `x * min(6, max(0, x + 3)) /
    /// 6` with `std::min` and `std::max` (a NaN `x + 3` is taken as 0; the product is NaN; `-inf *
    /// 0` the x86-64 default NaN, through `stowplan_math::sse`).
    pub fn hard_swish_f32 / check_hard_swish_f32(input: &[f32], output: &mut [f32]) {
        for (o, &x) in output.iter_mut().zip(input) {
            let v = x + 3.0;
            // std::max(0, v) is `0 < v ? v : 0`; std::min(6, v) is `v < 6 ? v : 6`.
            let v = if 0.0 < v { v } else { 0.0 };
            let v = if v < 6.0 { v } else { 6.0 };
            *o = sse::div(sse::mul(x, v), 6.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int16_fixed_point() {
        assert_eq!(srdhm_16(i16::MIN, i16::MIN), i16::MAX);
        assert_eq!(srdhm_16(16384, 16384), 8192);
        assert_eq!(sdhm_16(-3, 16384), -1);
        assert_eq!(rounding_divide_by_pot_16(5, 1), 3);
        assert_eq!(rounding_divide_by_pot_16(-5, 1), -3);
        // Exponents of 16 and more: TFLM's mask is all ones.
        assert_eq!(rounding_divide_by_pot_16(0, 20), 1);
        assert_eq!(rounding_divide_by_pot_16(-7, 20), -1);
        assert_eq!(saturating_left_shift(20000, 1), i16::MAX);
        assert_eq!(saturating_left_shift(-3, 2), -12);
    }

    #[test]
    fn float_hard_swish() {
        let mut out = [0.0_f32; 4];
        hard_swish_f32(&[-4.0, 0.0, 1.0, 5.0], &mut out).unwrap();
        assert_eq!(out, [-0.0, 0.0, 1.0 * 4.0 / 6.0, 5.0]);
    }
}
