//! L2_NORMALIZATION: TFLM's `l2norm.cc` over `reference_integer_ops::L2Normalization` (int8)
//! and `reference_ops::L2Normalization` (float), and TFLM's `GetInvSqrtQuantizedMultiplierExp`
//! (`internal/common.h`), which RSQRT uses too.

use stowplan_math::{sqrtf, sse};

use super::shared::check::KernelError;
use super::shared::unary::{self, one_input_kernels};
use super::shared::{at, fixed};

/// gemmlowp's `FixedPoint<int32_t, 3>::One()`, raw.
const F3_ONE: i32 = 1 << 28;

/// TFLM's `GetInvSqrtQuantizedMultiplierExp(input, reverse_shift)`: `(multiplier, shift)` with
/// `1 / sqrt(input) ~= multiplier * 2^(shift - 31)` (for `reverse_shift == -1`, TFLM's
/// `kReverseShift`), by five Newton-Raphson steps in gemmlowp's Q3.28. Inputs at most 1
/// (TFLM requires `input >= 0` and treats 0 as 1) give `(i32::MAX, 0)`.
#[must_use]
pub(crate) const fn get_inv_sqrt_quantized_multiplier_exp(
    input: i32,
    reverse_shift: i32,
) -> (i32, i32) {
    if input <= 1 {
        return (i32::MAX, 0);
    }
    let mut input = input;
    let mut output_shift: i32 = 11;
    while input >= 1 << 29 {
        input /= 4;
        output_shift += 1;
    }
    // 2 <= input < 2^29: 2 <= leading zeros <= 30.
    let max_left_shift_bits = (input as u32).leading_zeros() as i32 - 1;
    let max_left_shift_bit_pairs = max_left_shift_bits / 2;
    let left_shift_bit_pairs = max_left_shift_bit_pairs - 1;
    output_shift -= left_shift_bit_pairs;
    input <<= 2 * left_shift_bit_pairs;
    // input in [2^27, 2^29), as Q3.28.
    let fixedpoint_input = input >> 1;
    let fixedpoint_half_input = fixed::rounding_divide_by_pot(fixedpoint_input, 1);
    const HALF_THREE: i32 = (1 << 28) + (1 << 27);
    let mut x = F3_ONE;
    let mut i = 0;
    while i < 5 {
        // x3 = Rescale<3>(x * x * x): Q6 then Q9 products, back to Q3.
        let x2 = fixed::saturating_rounding_doubling_high_mul(x, x);
        let x3 = fixed::saturating_rounding_doubling_high_mul(x2, x);
        let x3 = fixed::saturating_rounding_multiply_by_pot(x3, 6);
        // x = Rescale<3>(half_three * x - half_input * x3): Q6 products, back to Q3.
        let a = fixed::saturating_rounding_doubling_high_mul(HALF_THREE, x);
        let b = fixed::saturating_rounding_doubling_high_mul(fixedpoint_half_input, x3);
        x = fixed::saturating_rounding_multiply_by_pot(a.wrapping_sub(b), 3);
        i += 1;
    }
    // x * sqrt(2)/2 (Q3 times Q0 is Q3).
    const HALF_SQRT_2: i32 = 1_518_500_250;
    let mut output_inv_sqrt = fixed::saturating_rounding_doubling_high_mul(x, HALF_SQRT_2);
    if output_shift < 0 {
        output_inv_sqrt = output_inv_sqrt.wrapping_shl((-output_shift) as u32);
        output_shift = 0;
    }
    (output_inv_sqrt, output_shift.wrapping_mul(reverse_shift))
}

/// Parameters of an L2_NORMALIZATION.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct L2Norm {
    /// Rows (the product of all dimensions but the last).
    pub rows: usize,
    /// Elements per row (the last dimension).
    pub depth: usize,
    /// The input zero point (int8; 0 for float).
    pub input_zero_point: i32,
}

/// [`l2norm_s8`]'s preconditions, on the lengths of its slices: the input and the output
/// `rows * depth` long (what the entry checks before it runs, and what generated code asserts
/// when the crate compiles).
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_l2norm_s8(p: &L2Norm, input: usize, output: usize) -> Result<(), KernelError> {
    unary::rows(p.rows, p.depth, input, output)
}

/// [`l2norm_f32`]'s preconditions, as [`check_l2norm_s8`]'s.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_l2norm_f32(p: &L2Norm, input: usize, output: usize) -> Result<(), KernelError> {
    unary::rows(p.rows, p.depth, input, output)
}

one_input_kernels! {
    /// int8 L2_NORMALIZATION: TFLM's `reference_integer_ops::L2Normalization`: per row, the sum of
    /// squared differences to the zero point (int32, wrapping as TFLM's accumulator), its inverse
    /// square root by `GetInvSqrtQuantizedMultiplierExp`, and each difference multiplied by it
    /// with the shift 7 higher (the output in steps of 1/128, whatever its quantisation says),
    /// clamped to int8.
    pub fn l2norm_s8 / check_l2norm_s8(p: &L2Norm, input: &[i8], output: &mut [i8]) {
        const OUTPUT_SCALE: i32 = 7;
        for i in 0..p.rows {
            let row = i.wrapping_mul(p.depth);
            let mut acc: i32 = 0;
            for c in 0..p.depth {
                let x = i32::from(at(input, row.wrapping_add(c))).wrapping_sub(p.input_zero_point);
                acc = acc.wrapping_add(x.wrapping_mul(x));
            }
            let (multiplier, shift) = get_inv_sqrt_quantized_multiplier_exp(acc, -1);
            for c in 0..p.depth {
                let x = i32::from(at(input, row.wrapping_add(c))).wrapping_sub(p.input_zero_point);
                let out = fixed::multiply_by_quantized_multiplier(
                    x,
                    multiplier,
                    shift.wrapping_add(OUTPUT_SCALE),
                );
                if let Some(o) = output.get_mut(row.wrapping_add(c)) {
                    *o = out.clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8;
                }
            }
        }
    }

    /// float L2_NORMALIZATION: TFLM's `reference_ops::L2Normalization`: per row, the sum of
    /// squares in order, `sqrtf`, `std::max` with `1e-6`, and each element divided by it (NaN bits
    /// as TFLM's host build gives them, through `stowplan_math::sse`).
    pub fn l2norm_f32 / check_l2norm_f32(p: &L2Norm, input: &[f32], output: &mut [f32]) {
        const EPSILON: f32 = 1e-6;
        for i in 0..p.rows {
            let row = i.wrapping_mul(p.depth);
            let mut squared_l2_norm = 0.0_f32;
            for c in 0..p.depth {
                let x = at(input, row.wrapping_add(c));
                squared_l2_norm = sse::add(squared_l2_norm, sse::mul(x, x));
            }
            let l2_norm = sqrtf(squared_l2_norm);
            // std::max(l2_norm, epsilon) is `l2_norm < epsilon ? epsilon : l2_norm`.
            let l2_norm = if l2_norm < EPSILON { EPSILON } else { l2_norm };
            for c in 0..p.depth {
                if let Some(o) = output.get_mut(row.wrapping_add(c)) {
                    *o = sse::div(at(input, row.wrapping_add(c)), l2_norm);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inv_sqrt_of_powers_of_four() {
        // 1/sqrt(4) = 0.5: multiplier * 2^(shift - 31) ~= 0.5.
        for (input, want) in [(4, 0.5), (16, 0.25), (1 << 20, 1.0 / 1024.0), (100, 0.1)] {
            let (m, s) = get_inv_sqrt_quantized_multiplier_exp(input, -1);
            let got = f64::from(m) * 2_f64.powi(s - 31);
            assert!((got - want).abs() < want * 1e-6, "{input}: {got} vs {want}");
        }
        assert_eq!(get_inv_sqrt_quantized_multiplier_exp(0, -1), (i32::MAX, 0));
        assert_eq!(get_inv_sqrt_quantized_multiplier_exp(-5, -1), (i32::MAX, 0));
        // The largest input does not overflow.
        let _ = get_inv_sqrt_quantized_multiplier_exp(i32::MAX, -1);
    }

    #[test]
    fn rows_normalise() {
        let p = L2Norm {
            rows: 2,
            depth: 2,
            input_zero_point: 0,
        };
        let mut out = [0_i8; 4];
        l2norm_s8(&p, &[3, 4, 0, 0], &mut out).unwrap();
        // 3/5 and 4/5 in steps of 1/128: 76.8 and 102.4.
        assert_eq!(&out[..2], &[77, 102]);
        assert_eq!(&out[2..], &[0, 0]);
        let mut f = [0.0_f32; 4];
        l2norm_f32(&p, &[3.0, 4.0, 0.0, 0.0], &mut f).unwrap();
        assert_eq!(f, [0.6, 0.8, 0.0, 0.0]);
    }
}
