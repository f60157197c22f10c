//! LOG_SOFTMAX: TFLM's `log_softmax.cc` over `reference_ops::LogSoftmax` (float) and
//! `reference_ops::LogSoftmaxQuantized` (int8), with TFLM's fixed-point
//! `log_x_for_x_greater_than_or_equal_to_1` (`internal/common.h`).

use stowplan_math::{expf, logf, sse};

use super::shared::check::KernelError;
use super::shared::unary::{self, one_input_kernels};
use super::shared::{at, fixed};

/// Parameters of an int8 LOG_SOFTMAX (TFLM's `LogSoftmaxOpData`; the output is quantised
/// (16/256, 127)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogSoftmaxS8 {
    /// Rows (the product of all dimensions but the last: TFLM's `outer_size`).
    pub rows: usize,
    /// Elements per row (the last dimension).
    pub depth: usize,
    /// From `PreprocessLogSoftmaxScalingExp(1, input_scale, 5)`.
    pub input_multiplier: i32,
    /// Its left shift.
    pub input_left_shift: i32,
    /// The inverse scaling's multiplier.
    pub reverse_scaling_divisor: i32,
    /// Minus its (non-positive) left shift.
    pub reverse_scaling_right_shift: i32,
    /// `-CalculateInputRadius(5, input_left_shift)`.
    pub diff_min: i32,
}

/// Parameters of a float LOG_SOFTMAX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogSoftmaxF32 {
    /// Rows (the product of all dimensions but the last).
    pub rows: usize,
    /// Elements per row (the last dimension).
    pub depth: usize,
}

/// TFLM's `SaturatingRoundingMultiplyByPOTParam` for `int32`: a saturating left shift by
/// `exponent` (TFLM calls it with `exponent >= 0`; other exponents are shifted as the x86-64
/// build does, counts modulo 32).
const fn saturating_rounding_multiply_by_pot_param(x: i32, exponent: i32) -> i32 {
    if exponent == 0 {
        return x;
    }
    let threshold = 1_i32
        .wrapping_shl(31_i32.wrapping_sub(exponent) as u32)
        .wrapping_sub(1);
    if x > threshold {
        i32::MAX
    } else if x < threshold.wrapping_neg() {
        i32::MIN
    } else {
        x.wrapping_shl(exponent as u32)
    }
}

/// TFLM's `SaturatingAddNonGemmlowp` for `int32`.
const fn saturating_add(a: i32, b: i32) -> i32 {
    a.saturating_add(b)
}

/// TFLM's `SaturatingSub` for `int32`.
const fn saturating_sub(a: i32, b: i32) -> i32 {
    a.saturating_sub(b)
}

/// Q0.31 product (gemmlowp's `FixedPoint` `operator*`, whatever the integer bits).
const fn mul(a: i32, b: i32) -> i32 {
    fixed::saturating_rounding_doubling_high_mul(a, b)
}

/// TFLM's `log_x_for_x_greater_than_or_equal_to_1_impl<5, 12>`: `log(x)` in Q5.26 of `x` in
/// Q12.19, by a range reduction on the leading zeros and a rational approximation in Q0.31,
/// accumulated in Q6.25.
#[must_use]
pub(crate) const fn log_x_q12_to_q5(input: i32) -> i32 {
    const OUTPUT_INTEGER_BITS: i32 = 5;
    const INPUT_INTEGER_BITS: i32 = 12;
    const ACCUM_INTEGER_BITS: i32 = OUTPUT_INTEGER_BITS + 1;
    const LOG_2: i32 = 1_488_522_236;
    const SQRT_SQRT_HALF: i32 = 1_805_811_301;
    const SQRT_HALF: i32 = 1_518_500_250;
    const ONE_QUARTER: i32 = 536_870_912;
    const ALPHA_N: i32 = 117_049_297;
    const ALPHA_D: i32 = 127_690_142;
    const ALPHA_I: i32 = 1_057_819_769;
    const ALPHA_F: i32 = 638_450_708;

    // Rescale<6>(one_quarter).
    let shifted_quarter =
        fixed::saturating_rounding_multiply_by_pot(ONE_QUARTER, -ACCUM_INTEGER_BITS);

    let z_a = input;
    let z_a_headroom_plus_1 = (z_a as u32).leading_zeros() as i32;
    let r_a_tmp = saturating_rounding_multiply_by_pot_param(z_a, z_a_headroom_plus_1 - 1);
    let r_a_raw = saturating_rounding_multiply_by_pot_param(mul(r_a_tmp, SQRT_HALF), 1);
    let z_a_pow_2_adj = saturating_add(
        saturating_rounding_multiply_by_pot_param(
            INPUT_INTEGER_BITS - z_a_headroom_plus_1,
            31 - ACCUM_INTEGER_BITS,
        ),
        shifted_quarter,
    );

    // z_b is z_a premultiplied by sqrt(0.5).
    let z_b = mul(z_a, SQRT_HALF);
    let z_b_headroom = (z_b as u32).leading_zeros() as i32 - 1;
    let r_b_raw = saturating_rounding_multiply_by_pot_param(z_a, z_b_headroom);
    let z_b_pow_2_adj = saturating_sub(
        saturating_rounding_multiply_by_pot_param(
            INPUT_INTEGER_BITS - z_b_headroom,
            31 - ACCUM_INTEGER_BITS,
        ),
        shifted_quarter,
    );

    let r = if r_a_raw < r_b_raw { r_a_raw } else { r_b_raw };
    let z_pow_2_adj = if z_a_pow_2_adj > z_b_pow_2_adj {
        z_a_pow_2_adj
    } else {
        z_b_pow_2_adj
    };

    let p = fixed::rounding_half_sum(r, SQRT_SQRT_HALF);
    let q = r.wrapping_sub(SQRT_SQRT_HALF);
    let q = q.wrapping_add(q);

    let common_sq = mul(q, q);
    let num = mul(q, r).wrapping_add(mul(mul(q, common_sq), ALPHA_N));
    let denom_minus_one_0 = mul(
        p,
        ALPHA_I
            .wrapping_add(q)
            .wrapping_add(mul(ALPHA_D, common_sq)),
    )
    .wrapping_add(mul(ALPHA_F, q));
    let recip_denom = fixed::one_over_one_plus_x_for_x_in_0_1(denom_minus_one_0);

    // Rescale<6>(num): Q0 to Q6.
    let num_scaled = fixed::saturating_rounding_multiply_by_pot(num, -ACCUM_INTEGER_BITS);
    // Rescale<5>(z_pow_2_adj * log_2 + num_scaled * recip_denom): Q6 to Q5.
    fixed::saturating_rounding_multiply_by_pot(
        mul(z_pow_2_adj, LOG_2).wrapping_add(mul(num_scaled, recip_denom)),
        ACCUM_INTEGER_BITS - OUTPUT_INTEGER_BITS,
    )
}

/// [`log_softmax_s8`]'s preconditions, on the lengths of its slices: the input and the output
/// `rows * depth` long (what the entry checks before it runs, and what generated code asserts
/// when the crate compiles).
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_log_softmax_s8(
    p: &LogSoftmaxS8,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    unary::rows(p.rows, p.depth, input, output)
}

/// [`log_softmax_f32`]'s preconditions, as [`check_log_softmax_s8`]'s.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_log_softmax_f32(
    p: &LogSoftmaxF32,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    unary::rows(p.rows, p.depth, input, output)
}

one_input_kernels! {
    /// int8 LOG_SOFTMAX: TFLM's `reference_ops::LogSoftmaxQuantized<int8_t>`: per row, the
    /// differences to the row's maximum that are `>= diff_min`, scaled to Q5.26
    /// (`MultiplyByQuantizedMultiplier`), exponentiated (gemmlowp's `exp_on_negative_values`) and
    /// summed in Q12.19; the log of the sum in Q5.26; each output the scaled difference minus
    /// that log, rounded to 4 fractional bits, plus 127, saturated, or -128 for differences at or
    /// below the adjusted minimum.
    pub fn log_softmax_s8 / check_log_softmax_s8(p: &LogSoftmaxS8, input: &[i8], output: &mut [i8]) {
        const INPUT_INTEGER_BITS: i32 = 5;
        const ACCUMULATION_INTEGER_BITS: i32 = 12;
        const OUTPUT_INTEGER_BITS: i32 = 4;
        let scaled = |input_diff: i32| {
            fixed::multiply_by_quantized_multiplier(input_diff, p.input_multiplier, p.input_left_shift)
        };
        for i in 0..p.rows {
            let row = i.wrapping_mul(p.depth);
            let mut max_in_row = i8::MIN;
            for c in 0..p.depth {
                max_in_row = max_in_row.max(at(input, row.wrapping_add(c)));
            }
            let max_in_row = i32::from(max_in_row);

            let mut sum_of_exps_in_q12: i32 = 0;
            for c in 0..p.depth {
                let input_diff = i32::from(at(input, row.wrapping_add(c))) - max_in_row;
                if input_diff >= p.diff_min {
                    let exp = fixed::exp_on_negative_values::<INPUT_INTEGER_BITS>(scaled(input_diff));
                    sum_of_exps_in_q12 = sum_of_exps_in_q12.wrapping_add(
                        fixed::saturating_rounding_multiply_by_pot(exp, -ACCUMULATION_INTEGER_BITS),
                    );
                }
            }

            let log_sum_of_exps_in_q5 = log_x_q12_to_q5(sum_of_exps_in_q12);
            let shifted_log_sum_of_exps_in_q5 = log_sum_of_exps_in_q5.wrapping_add(i32::MIN);
            let reverse = fixed::multiply_by_quantized_multiplier(
                shifted_log_sum_of_exps_in_q5,
                p.reverse_scaling_divisor,
                p.reverse_scaling_right_shift.wrapping_neg(),
            );
            let diff_min_minus_one = p.diff_min.wrapping_sub(1);
            let adjusted_diff_min = if diff_min_minus_one > reverse {
                diff_min_minus_one
            } else {
                reverse
            };

            for c in 0..p.depth {
                let input_diff = i32::from(at(input, row.wrapping_add(c))) - max_in_row;
                let value = if input_diff > adjusted_diff_min {
                    let output_in_q27 = fixed::rounding_divide_by_pot(
                        scaled(input_diff).wrapping_sub(log_sum_of_exps_in_q5),
                        31 - INPUT_INTEGER_BITS - OUTPUT_INTEGER_BITS,
                    )
                    .wrapping_add(i32::from(i8::MAX));
                    output_in_q27.clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8
                } else {
                    i8::MIN
                };
                if let Some(o) = output.get_mut(row.wrapping_add(c)) {
                    *o = value;
                }
            }
        }
    }

    /// float LOG_SOFTMAX: TFLM's `reference_ops::LogSoftmax` (float): per row, the maximum (from
    /// the lowest float, `std::max`), the sum of `exp(x - max)` in order, its `log`, and each
    /// output `x - max - log_sum`; NaN bits as TFLM's host build gives them (`sum + exp`, `(x -
    /// max) - log_sum`, through `stowplan_math::sse`).
    pub fn log_softmax_f32 / check_log_softmax_f32(p: &LogSoftmaxF32, input: &[f32], output: &mut [f32]) {
        for i in 0..p.rows {
            let row = i.wrapping_mul(p.depth);
            let mut max = f32::MIN;
            for c in 0..p.depth {
                // std::max(max, x) is `max < x ? x : max`.
                let x = at(input, row.wrapping_add(c));
                if max < x {
                    max = x;
                }
            }
            let mut sum = 0.0_f32;
            for c in 0..p.depth {
                sum = sse::add(sum, expf(sse::sub(at(input, row.wrapping_add(c)), max)));
            }
            let log_sum = logf(sum);
            for c in 0..p.depth {
                if let Some(o) = output.get_mut(row.wrapping_add(c)) {
                    *o = sse::sub(sse::sub(at(input, row.wrapping_add(c)), max), log_sum);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_point_log() {
        // log(1) = 0, log(2) = 0.693, log(e^3) = 3 (inputs in Q12.19, results in Q5.26).
        for (x, want) in [
            (1.0_f64, 0.0_f64),
            (2.0, 2_f64.ln()),
            (20.085_537, 3.0),
            (4000.0, 4000_f64.ln()),
        ] {
            let raw = (x * 2_f64.powi(19)) as i32;
            let got = f64::from(log_x_q12_to_q5(raw)) / 2_f64.powi(26);
            assert!((got - want).abs() < 1e-4, "log {x}: {got} vs {want}");
        }
        // Zero and negative sums do not panic.
        let _ = log_x_q12_to_q5(0);
        let _ = log_x_q12_to_q5(-5);
        let _ = log_x_q12_to_q5(i32::MIN);
    }

    #[test]
    fn float_rows() {
        let p = LogSoftmaxF32 { rows: 1, depth: 2 };
        let mut out = [0.0_f32; 2];
        log_softmax_f32(&p, &[1.0, 1.0], &mut out).unwrap();
        assert_eq!(out, [-logf(2.0), -logf(2.0)]);
    }
}
