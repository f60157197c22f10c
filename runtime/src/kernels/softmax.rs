//! SOFTMAX: TFLM's `reference_ops::Softmax`, quantised (int8 to int8, int8 to int16) and
//! float, and `reference_ops::SoftmaxInt16` (int16 to int16, with the lookup tables TFLM's
//! `Prepare` fills, computed at build time).

use stowplan_math::expf;

use super::shared::check::{KernelError, check, length};
use super::shared::unary::{self, one_input_kernels};
use super::shared::{at, fixed};

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

/// Parameters of an int16 SOFTMAX (int16 in and out; TFLM requires zero points 0 and an output
/// scale of 1/32768).
#[derive(Clone, Copy, Debug)]
pub struct SoftmaxS16 {
    /// Rows (the product of all dimensions but the last).
    pub rows: usize,
    /// Elements per row (the last dimension).
    pub depth: usize,
    /// TFLM's `input_multiplier`: `QuantizeMultiplier(input_scale * beta / (10 / 65535))`, which
    /// maps differences of `[-65535, 0]` to `[-10, 0]`.
    pub input_multiplier: i32,
    /// TFLM's `input_left_shift` from the same.
    pub input_left_shift: i32,
    /// TFLM's `exp_lut`: 513 entries of `exp` on `[-10, 0]` (`LUTPopulate<int16_t>`).
    pub exp_lut: &'static [i16],
    /// TFLM's `one_over_one_plus_x_lut`: 513 entries of `1 / (1 + x)` on `[0, 1]`.
    pub one_over_one_plus_x_lut: &'static [i16],
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

/// [`softmax_s8`]'s preconditions, on the lengths of its slices: the input and the output
/// `rows * depth` long (what the entry checks before it runs, and what generated code asserts
/// when the crate compiles).
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_softmax_s8(
    p: &SoftmaxS8,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    unary::rows(p.rows, p.depth, input, output)
}

/// [`softmax_s8_s16`]'s preconditions, as [`check_softmax_s8`]'s.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_softmax_s8_s16(
    p: &SoftmaxS8,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    unary::rows(p.rows, p.depth, input, output)
}

/// [`softmax_s16`]'s preconditions: as [`check_softmax_s8`]'s, and both tables of 513 entries.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_softmax_s16(
    p: &SoftmaxS16,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(unary::rows(p.rows, p.depth, input, output));
    check!(length("exp_lut", Some(513), p.exp_lut.len()));
    length(
        "one_over_one_plus_x_lut",
        Some(513),
        p.one_over_one_plus_x_lut.len(),
    )
}

/// [`softmax_f32`]'s preconditions, as [`check_softmax_s8`]'s.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_softmax_f32(
    p: &SoftmaxF32,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    unary::rows(p.rows, p.depth, input, output)
}

one_input_kernels! {
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
    pub fn softmax_s8 / check_softmax_s8(p: &SoftmaxS8, input: &[i8], output: &mut [i8]) {
        softmax_quantized(p, input, output, 8, |v| {
            v.clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8
        });
    }

    /// int8 to int16 SOFTMAX: TFLM's `reference_ops::Softmax<int8_t, int16_t>`, [`softmax_s8`]
    /// with the final shift to 16 bits and the int16 range (`-32768` for the skipped entries). TFLM
    /// requires the output's zero point to be -32768 and its scale 1/65536.
    pub fn softmax_s8_s16 / check_softmax_s8_s16(p: &SoftmaxS8, input: &[i8], output: &mut [i16]) {
        softmax_quantized(p, input, output, 16, |v| {
            v.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
        });
    }

    /// int16 SOFTMAX: TFLM's `reference_ops::SoftmaxInt16`: per row, the maximum; each difference
    /// to it scaled (`MultiplyByQuantizedMultiplier`) so that `[-65535, 0]` covers `[-10, 0]`,
    /// moved to `[-32768, 32767]`, saturated, and looked up in the exp table (Q0.15), the results
    /// summed in int32 (kept in the output, as TFLM does); the sum normalised by its leading zeros
    /// and looked up in the `1 / (1 + x)` table; each output `(exp * reciprocal + round) >>
    /// (31 - leading zeros)`, clamped to `[0, 32767]`.
    ///
    /// Where TFLM's shifts are undefined (a row whose exponentials sum to 0 or past 2^31, which
    /// needs more than 65,536 entries) this mirrors the x86-64 build: shift counts modulo 32 and 64.
    pub fn softmax_s16 / check_softmax_s16(p: &SoftmaxS16, input: &[i16], output: &mut [i16]) {
        for i in 0..p.rows {
            let row = i * p.depth;
            let mut max_in_row = i16::MIN;
            for c in 0..p.depth {
                max_in_row = max_in_row.max(at(input, row + c));
            }
            let mut sum_of_exps: i32 = 0;
            for c in 0..p.depth {
                let input_diff = i32::from(at(input, row + c)) - i32::from(max_in_row);
                let scaled_diff = fixed::multiply_by_quantized_multiplier(
                    input_diff,
                    p.input_multiplier,
                    p.input_left_shift,
                );
                let sym_scaled_diff = scaled_diff.wrapping_add(32767);
                let saturated = sym_scaled_diff.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
                let exp = lut_lookup(saturated, p.exp_lut);
                if let Some(o) = output.get_mut(row + c) {
                    *o = exp;
                }
                sum_of_exps = sum_of_exps.wrapping_add(i32::from(exp));
            }

            // CountLeadingZeros: 32 for 0.
            let headroom_plus_one = (sum_of_exps as u32).leading_zeros() as i32;
            let shifted_sum = (i64::from(sum_of_exps)
                .wrapping_shl(headroom_plus_one.wrapping_sub(1) as u32)
                .wrapping_add(1 << 13)
                >> 14) as i32;
            let sym_shifted_sum = shifted_sum.wrapping_add(-((1 << 15) + (1 << 16)));
            let saturated = sym_shifted_sum.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
            let reciprocal_scale = i64::from(lut_lookup(saturated, p.one_over_one_plus_x_lut));

            // `uint8_t right_shift = 31 - headroom_plus_one`; `1 << (right_shift - 1)` in int.
            let right_shift = 31_u8.wrapping_sub(headroom_plus_one as u8);
            let round = i64::from(1_i32.wrapping_shl(i32::from(right_shift).wrapping_sub(1) as u32));
            for c in 0..p.depth {
                if let Some(o) = output.get_mut(row + c) {
                    let result = (i64::from(*o)
                        .wrapping_mul(reciprocal_scale)
                        .wrapping_add(round))
                    .wrapping_shr(u32::from(right_shift)) as i32;
                    *o = result.clamp(0, i32::from(i16::MAX)) as i16;
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
    pub fn softmax_f32 / check_softmax_f32(p: &SoftmaxF32, input: &[f32], output: &mut [f32]) {
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
}

/// TFLM's quantised `reference_ops::Softmax<int8_t, OutputT>` for an output of `bits` bits;
/// `saturate` clamps into `OutputT` and narrows (its minimum is `saturate(i32::MIN)`).
#[inline(always)]
fn softmax_quantized<O: Copy>(
    p: &SoftmaxS8,
    input: &[i8],
    output: &mut [O],
    bits: i32,
    saturate: impl Fn(i32) -> O,
) {
    let scaled_exp = |input_diff: i32| {
        let input_diff_rescaled = fixed::multiply_by_quantized_multiplier_greater_than_one(
            input_diff,
            p.input_multiplier,
            p.input_left_shift,
        );
        fixed::exp_on_negative_values::<SCALED_DIFF_INTEGER_BITS>(input_diff_rescaled)
    };
    let output_min = saturate(i32::MIN);
    let min_value = if bits == 8 {
        i32::from(i8::MIN)
    } else {
        i32::from(i16::MIN)
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
        let exponent = num_bits_over_unit + 31 - bits;

        for c in 0..p.depth {
            let input_diff = i32::from(at(input, row + c)) - max_in_row;
            let value = if input_diff >= p.diff_min {
                let exp_in_0 = scaled_exp(input_diff);
                let unsat_output = fixed::rounding_divide_by_pot(
                    fixed::saturating_rounding_doubling_high_mul(shifted_scale, exp_in_0),
                    exponent,
                );
                saturate(unsat_output.wrapping_add(min_value))
            } else {
                output_min
            };
            if let Some(o) = out.next() {
                *o = value;
            }
        }
    }
}

/// TFLM's `LUTLookup(int16_t, const int16_t*)`: the entry at the value's top 9 bits (offset
/// by 256) and the next, interpolated by the low 7 bits: `base + ((slope * offset + 64) >>
/// 7)`, the slope narrowed to int16 as in TFLM. Entries past the table's end read 0.
#[inline(always)]
fn lut_lookup(value: i16, lut: &[i16]) -> i16 {
    let index = (256 + i32::from(value >> 7)) as u16 as usize;
    let offset = i32::from(value & 0x7f);
    let base = at(lut, index);
    let slope = i32::from(at(lut, index + 1).wrapping_sub(base));
    let delta = (slope * offset + 64) >> 7;
    (i32::from(base) + delta) as i16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A linear table from -32768 to 32767 (slope 128 per entry): the lookup interpolates
    /// exactly.
    static LINEAR: [i16; 513] = {
        let mut t = [0i16; 513];
        let mut i = 0;
        while i < 513 {
            let v = -32768 + 128 * i as i32;
            t[i] = if v > 32767 { 32767 } else { v as i16 };
            i += 1;
        }
        t
    };

    #[test]
    fn lut_lookup_interpolates_the_low_seven_bits() {
        assert_eq!(lut_lookup(-32768, &LINEAR), -32768);
        assert_eq!(lut_lookup(0, &LINEAR), 0);
        assert_eq!(lut_lookup(1000, &LINEAR), 1000);
        assert_eq!(lut_lookup(-1001, &LINEAR), -1001);
        // The last entry is clamped to 32767: the slope there is 127.
        assert_eq!(lut_lookup(32767, &LINEAR), 32640 + (127 * 127 + 64) / 128);
    }

    #[test]
    fn int16_softmax_of_equal_values_splits_evenly() {
        // exp(0) in Q0.15 is 32767 in any table whose last entry is 32767: with the linear
        // table, `1 / (1 + x)` looks up the sum's normalised value.
        let p = SoftmaxS16 {
            rows: 1,
            depth: 4,
            input_multiplier: 1 << 30,
            input_left_shift: 1,
            exp_lut: &LINEAR,
            one_over_one_plus_x_lut: &LINEAR,
        };
        let mut out = [0i16; 4];
        softmax_s16(&p, &[5, 5, 5, 5], &mut out).unwrap();
        assert!(out.iter().all(|&v| v == out[0]), "{out:?}");
    }

    #[test]
    fn int8_to_int16_softmax_spans_the_int16_range() {
        // One entry: exp(0) = 1, the whole probability: 65535 steps above -32768.
        let p = SoftmaxS8 {
            rows: 1,
            depth: 1,
            input_multiplier: 1 << 30,
            input_left_shift: 23,
            diff_min: -1000,
        };
        let mut out = [0i16; 1];
        softmax_s8_s16(&p, &[3], &mut out).unwrap();
        assert_eq!(out, [32767]);
        let mut out8 = [0i8; 1];
        softmax_s8(&p, &[3], &mut out8).unwrap();
        assert_eq!(out8, [127]);
    }
}
