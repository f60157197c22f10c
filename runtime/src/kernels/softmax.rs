//! SOFTMAX: TFLM's `reference_ops::Softmax`, quantised (int8 to int8) and float.

use stowplan_math::expf;

use super::{at, fixed};

/// Parameters of an int8 SOFTMAX with int8 output (TFLM requires the output's zero point to
/// be -128 and its scale 1/256).
#[derive(Clone, Copy, Debug)]
pub struct SoftmaxS8 {
    /// Rows (the product of all dimensions but the last).
    pub rows: usize,
    /// Elements per row (the last dimension).
    pub depth: usize,
    /// TFLM's `input_multiplier` from `PreprocessSoftmaxScaling(beta, input_scale, 5)`.
    pub input_multiplier: i32,
    /// TFLM's `input_left_shift` from the same.
    pub input_left_shift: i32,
    /// TFLM's `diff_min`: `-CalculateInputRadius(5, input_left_shift)`.
    pub diff_min: i32,
}

/// Parameters of a float SOFTMAX.
#[derive(Clone, Copy, Debug)]
pub struct SoftmaxF32 {
    /// Rows (the product of all dimensions but the last).
    pub rows: usize,
    /// Elements per row (the last dimension).
    pub depth: usize,
    /// The op's `beta`.
    pub beta: f32,
}

/// Integer bits of the scaled differences fed to `exp` (Q5.26).
const SCALED_DIFF_INTEGER_BITS: i32 = 5;
/// Integer bits of the sum of exponentials (Q12.19).
const ACCUMULATION_INTEGER_BITS: i32 = 12;

/// int8 SOFTMAX: TFLM's quantised `reference_ops::Softmax<int8_t, int8_t>`: per row, the
/// differences to the row's maximum that are `>= diff_min` are scaled (Q5.26), exponentiated
/// with gemmlowp's `exp_on_negative_values` and summed (Q12.19); each output is
/// `exp * (1 / sum)` shifted to 8 bits, minus 128, saturated; the others are -128.
///
/// Where TFLM aborts (`TFLITE_CHECK(0 <= exponent && exponent <= 31)` on the final shift in
/// `reference/softmax.h`: a row whose exponentials sum to 2^28 or more in Q12.19, such as 512 or
/// more entries equal to the row's maximum) the shift is clamped to 31 instead: the one place
/// this kernel gives an output where TFLM gives none. The depth cannot be refused at build time
/// for it, since it depends on the values (classifiers with 1000 classes run fine in TFLM on
/// almost every input).
///
/// # Preconditions
///
/// `input.len() == output.len() == rows * depth`.
pub fn softmax_s8(p: &SoftmaxS8, input: &[i8], output: &mut [i8]) {
    let scaled_exp = |input_diff: i32| {
        let input_diff_rescaled = fixed::multiply_by_quantized_multiplier_greater_than_one(
            input_diff,
            p.input_multiplier,
            p.input_left_shift,
        );
        fixed::exp_on_negative_values::<SCALED_DIFF_INTEGER_BITS>(input_diff_rescaled)
    };
    let mut out = output.iter_mut();
    for i in 0..p.rows {
        let row = i * p.depth;
        let mut max_in_row = i8::MIN;
        for c in 0..p.depth {
            max_in_row = max_in_row.max(at(input, row + c));
        }
        let max_in_row = i32::from(max_in_row);

        let mut sum_of_exps: i32 = 0;
        for c in 0..p.depth {
            let input_diff = i32::from(at(input, row + c)) - max_in_row;
            if input_diff >= p.diff_min {
                sum_of_exps = sum_of_exps.wrapping_add(fixed::saturating_rounding_multiply_by_pot(
                    scaled_exp(input_diff),
                    -ACCUMULATION_INTEGER_BITS,
                ));
            }
        }

        let (shifted_scale, num_bits_over_unit) =
            fixed::get_reciprocal(sum_of_exps, ACCUMULATION_INTEGER_BITS);
        let exponent = num_bits_over_unit + 31 - 8;

        for c in 0..p.depth {
            let input_diff = i32::from(at(input, row + c)) - max_in_row;
            let value = if input_diff >= p.diff_min {
                let exp_in_0 = scaled_exp(input_diff);
                let unsat_output = fixed::rounding_divide_by_pot(
                    fixed::saturating_rounding_doubling_high_mul(shifted_scale, exp_in_0),
                    exponent,
                );
                let shifted_output = unsat_output.wrapping_add(i32::from(i8::MIN));
                shifted_output.clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8
            } else {
                i8::MIN
            };
            if let Some(o) = out.next() {
                *o = value;
            }
        }
    }
}

/// float SOFTMAX: TFLM's `reference_ops::Softmax` (float): per row, the maximum (from the
/// lowest float, `std::max`), `exp((x - max) * beta)` with `expf` summed in order, then each
/// divided by the sum.
///
/// `exp` is glibc's / musl's `expf` algorithm (correctly rounded in all but rare cases), so
/// results match TFLM built against those C libraries.
///
/// # Preconditions
///
/// `input.len() == output.len() == rows * depth`.
pub fn softmax_f32(p: &SoftmaxF32, input: &[f32], output: &mut [f32]) {
    for i in 0..p.rows {
        let row = i * p.depth;
        let mut max = f32::MIN;
        for c in 0..p.depth {
            let value = at(input, row + c);
            if max < value {
                max = value;
            }
        }
        let mut sum = 0.0_f32;
        for c in 0..p.depth {
            let exp_c = expf((at(input, row + c) - max) * p.beta);
            if let Some(o) = output.get_mut(row + c) {
                *o = exp_c;
            }
            sum += exp_c;
        }
        for c in 0..p.depth {
            if let Some(o) = output.get_mut(row + c) {
                *o /= sum;
            }
        }
    }
}
