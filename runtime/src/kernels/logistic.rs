//! LOGISTIC: TFLM's `reference_integer_ops::Logistic` (int8) and `reference_ops::Logistic`
//! (float).

use stowplan_math::expf;

use super::fixed;

/// Parameters of an int8 LOGISTIC (TFLM's `OpDataLogistic`; the output's zero point is -128
/// and its scale 1/256).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogisticS8 {
    /// The input zero point.
    pub input_zero_point: i32,
    /// Inputs this far from the zero point or further saturate.
    pub input_range_radius: i32,
    /// Multiplier to Q4.27.
    pub input_multiplier: i32,
    /// Its shift.
    pub input_left_shift: i32,
}

/// int8 LOGISTIC: TFLM's `reference_integer_ops::Logistic`: inputs at or beyond the radius
/// saturate to -128 / 127; the others are scaled to Q4.27
/// (`MultiplyByQuantizedMultiplier`), passed through gemmlowp's `logistic` and rounded to
/// 8 fractional bits, minus 128, saturated.
///
/// # Preconditions
///
/// `input.len() == output.len()`.
pub fn logistic_s8(p: &LogisticS8, input: &[i8], output: &mut [i8]) {
    for (o, &x) in output.iter_mut().zip(input) {
        let value = i32::from(x).wrapping_sub(p.input_zero_point);
        *o = if value <= p.input_range_radius.wrapping_neg() {
            i8::MIN
        } else if value >= p.input_range_radius {
            i8::MAX
        } else {
            let input_in_q4 = fixed::multiply_by_quantized_multiplier(
                value,
                p.input_multiplier,
                p.input_left_shift,
            );
            let output_in_q0 = fixed::logistic::<4>(input_in_q4);
            let output_in_q23 = fixed::rounding_divide_by_pot(output_in_q0, 31 - 8);
            output_in_q23
                .wrapping_add(-128)
                .clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8
        };
    }
}

/// float LOGISTIC: TFLM's `reference_ops::Logistic` (float): 1 above 16.619047, `exp(x)` below
/// -9, else `1 / (1 + exp(-x))`, with `expf` (see `softmax_f32`).
///
/// # Preconditions
///
/// `input.len() == output.len()`.
pub fn logistic_f32(input: &[f32], output: &mut [f32]) {
    const CUTOFF_UPPER: f32 = 16.619_047;
    const CUTOFF_LOWER: f32 = -9.0;
    for (o, &x) in output.iter_mut().zip(input) {
        *o = if x > CUTOFF_UPPER {
            1.0
        } else if x < CUTOFF_LOWER {
            expf(x)
        } else {
            1.0 / (1.0 + expf(-x))
        };
    }
}
