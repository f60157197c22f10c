//! TANH: TFLM's `tanh.cc` over `reference_integer_ops::Tanh` (int8 and int16) and
//! `reference_ops::Tanh` (float), with gemmlowp's fixed-point `tanh`.

pub(crate) mod in_place;

use stowplan_math::tanhf;

use super::logistic::{scale_s16_input, sigmoid_pair};
use super::shared::fixed;
use super::shared::unary::elementwise_kernels;

/// Parameters of an int8 TANH (TFLM's tanh `OpData` for int8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TanhS8 {
    /// The input zero point.
    pub input_zero_point: i32,
    /// Inputs this far from the zero point or further saturate.
    pub input_range_radius: i32,
    /// Multiplier to Q4.27 (`round(q * 2^31)` of `frexp(input_scale * 2^27)`).
    pub input_multiplier: i32,
    /// Its shift.
    pub input_left_shift: i32,
}

/// Parameters of an int16 TANH (TFLM's tanh `OpData` for int16; zero points 0, the output
/// scale 2^-15).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TanhS16 {
    /// 0 for a power-of-two input scale 2^-12 or 2^-11 (the kernel then uses `3 << shift`);
    /// otherwise the input scale times `3 * 4096`, doubled until above 16383.5, truncated.
    pub input_multiplier: i32,
    /// The doublings (or, for a power-of-two scale, 0 or 1).
    pub input_left_shift: i32,
}

/// gemmlowp's `one_minus_x_over_one_plus_x_for_x_in_0_1` on Q0.31 raw values: `(1 - a) / (1 +
/// a)` by three Newton-Raphson steps in Q2.29.
const fn one_minus_x_over_one_plus_x_for_x_in_0_1(a: i32) -> i32 {
    const CONSTANT_48_OVER_17: i32 = 1_515_870_810; // Q2.29
    const CONSTANT_NEG_32_OVER_17: i32 = -1_010_580_540; // Q2.29
    const Q2_ONE: i32 = 1 << 29;
    let half_denominator = fixed::rounding_half_sum(a, fixed::Q0_ONE);
    let mut x = CONSTANT_48_OVER_17.wrapping_add(fixed::saturating_rounding_doubling_high_mul(
        half_denominator,
        CONSTANT_NEG_32_OVER_17,
    ));
    let mut i = 0;
    while i < 3 {
        let half_denominator_times_x =
            fixed::saturating_rounding_doubling_high_mul(half_denominator, x);
        let one_minus_half_denominator_times_x = Q2_ONE.wrapping_sub(half_denominator_times_x);
        x = x.wrapping_add(fixed::saturating_rounding_multiply_by_pot(
            fixed::saturating_rounding_doubling_high_mul(x, one_minus_half_denominator_times_x),
            2,
        ));
        i += 1;
    }
    // Rescale<0>(x - F2::One()).
    fixed::saturating_rounding_multiply_by_pot(x.wrapping_sub(Q2_ONE), 2)
}

/// gemmlowp's `tanh` for an input `FixedPoint<int32_t, 4>`; Q0.31 raw result: `-tanh(-|a|)`
/// from `exp_on_negative_values` of `-2|a|` (Q5, the same raw value), the sign restored, 0 for
/// 0.
#[must_use]
pub(crate) const fn tanh_q4(a: i32) -> i32 {
    if a == 0 {
        return 0;
    }
    let negative = a < 0;
    let n = if negative { a } else { a.wrapping_neg() };
    let t = one_minus_x_over_one_plus_x_for_x_in_0_1(fixed::exp_on_negative_values::<5>(n));
    if negative { t.wrapping_neg() } else { t }
}

elementwise_kernels! {
    /// int8 TANH: TFLM's `reference_integer_ops::Tanh` for int8: inputs at or beyond the radius
    /// saturate to -128 / 127; the others are scaled to Q4.27
    /// (`MultiplyByQuantizedMultiplier`), passed through gemmlowp's `tanh` and rounded to 7
    /// fractional bits, saturated (the output zero point 0, scale 1/128, whatever the output's
    /// quantisation says).
    pub fn tanh_s8 / check_tanh_s8(p: &TanhS8, input: &[i8], output: &mut [i8]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = tanh_s8_one(p, x);
        }
    }

    /// int16 TANH: TFLM's `reference_integer_ops::Tanh` for int16: the input scaled to 1/(3 *
    /// 4096) steps, then `tanh(x) = 2 sigmoid(2x) - 1` from the sigmoid table interpolated over 8
    /// fractional bits on the absolute value (saturating from 255 * 256 on), the sign restored, in
    /// TFLM's mix of `uint32` and `int32` arithmetic, shifted to Q0.15.
    pub fn tanh_s16 / check_tanh_s16(p: &TanhS16, input: &[i16], output: &mut [i16]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = tanh_s16_scaled(scale_s16_input(x, p.input_multiplier, p.input_left_shift));
        }
    }

    /// float TANH: TFLM's `reference_ops::Tanh`: `std::tanh` of each element, in order.
    pub fn tanh_f32 / check_tanh_f32(input: &[f32], output: &mut [f32]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = tanhf(x);
        }
    }
}

/// One element of [`tanh_s8`].
#[inline(always)]
pub(super) fn tanh_s8_one(p: &TanhS8, x: i8) -> i8 {
    let value = i32::from(x).wrapping_sub(p.input_zero_point);
    if value <= p.input_range_radius.wrapping_neg() {
        i8::MIN
    } else if value >= p.input_range_radius {
        i8::MAX
    } else {
        let input_in_q4 =
            fixed::multiply_by_quantized_multiplier(value, p.input_multiplier, p.input_left_shift);
        let output_in_q0 = tanh_q4(input_in_q4);
        let output_in_q24 = fixed::rounding_divide_by_pot(output_in_q0, 31 - 7);
        output_in_q24.clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8
    }
}

/// The int16 tanh of an input already scaled ([`scale_s16_input`]): `2 sigmoid(2x) - 1` from
/// the sigmoid table interpolated over 8 fractional bits of the absolute value (saturating from
/// 255 * 256 on), the sign restored, in TFLM's mix of `uint32` and `int32` arithmetic, shifted
/// to Q0.15. Shared by TANH and the LSTM.
#[inline(always)]
pub(super) fn tanh_s16_scaled(input_data: i32) -> i16 {
    let abs_input_data = input_data.unsigned_abs();
    let uh = abs_input_data >> 8;
    let result: i32 = if uh >= 255 {
        0xffff << 8
    } else {
        let (ua, ub) = sigmoid_pair(uh);
        let ut = abs_input_data & 0xff;
        (ua << 8).wrapping_add(ut.wrapping_mul(ub.wrapping_sub(ua))) as i32
    };
    let result = if input_data >= 0 {
        result
            .wrapping_sub(1 << (14 + 9))
            .wrapping_add(1 << (9 - 2))
    } else {
        result
            .wrapping_neg()
            .wrapping_add(1 << (14 + 9))
            .wrapping_add(1 << (9 - 2))
            .wrapping_sub(1)
    };
    (result >> (9 - 1)) as i16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_point_tanh() {
        assert_eq!(tanh_q4(0), 0);
        // tanh(1) = 0.7615942 in Q0.31; 1.0 in Q4.27 is 2^27.
        let t = f64::from(tanh_q4(1 << 27)) / 2_f64.powi(31);
        assert!((t - 0.761_594_2).abs() < 1e-6, "{t}");
        assert_eq!(tanh_q4(-(1 << 27)), -tanh_q4(1 << 27));
        let _ = tanh_q4(i32::MIN);
        let _ = tanh_q4(i32::MAX);
    }

    #[test]
    fn tanh_s16_power_of_two_scale() {
        let p = TanhS16 {
            input_multiplier: 0,
            input_left_shift: 0,
        };
        let mut out = [0_i16; 3];
        // Input scale 2^-12: 4096 is 1.0; tanh(1) * 2^15 = 24956.
        tanh_s16(&p, &[0, 4096, -4096], &mut out).unwrap();
        assert_eq!(out[0], 0);
        assert!((i32::from(out[1]) - 24956).abs() <= 2, "{}", out[1]);
        assert!((i32::from(out[2]) + 24956).abs() <= 2, "{}", out[2]);
    }
}
