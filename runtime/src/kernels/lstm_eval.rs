//! The pieces of TFLM's LSTM evaluation (`tensorflow/lite/micro/kernels/lstm_eval.cc` and
//! `lstm_eval.h`, namespace `lstm_internal`), element by element: the gates' fully connected
//! products, the int16 sigmoid and tanh (`reference_integer_ops::Logistic` and `Tanh` for
//! int16), the element-wise multiplications (`MulElementwise`), the saturating additions, the
//! cell clipping, their float versions, and the stepping over time and batches
//! (`LstmStepManager`, `EvalLstm`).
//!
//! TFLM computes each step a whole gate at a time into four scratch buffers. Every value of a
//! step, though, depends only on its own cell `c` (the gates' products read the input row and
//! the previous hidden row, the cell update and the new hidden value only cell `c`'s own gate
//! values), and the new hidden row replaces the old one only at the end of the step. So
//! [`drive`] runs a step one cell after another, the new hidden values going straight into the
//! step's output row (which TFLM copies from the hidden state anyway), then copies that row
//! into the hidden state: the same operations on the same values, no scratch.

use stowplan_math::tanhf;

use super::shared::{Requant, fixed};

/// The sizes of an LSTM (TFLM's `LstmSizeInfo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LstmSize {
    /// The input is `[time, batch, input]` (else `[batch, time, input]`).
    pub time_major: bool,
    /// Sequences.
    pub batch_size: usize,
    /// Steps of each sequence.
    pub time_steps: usize,
    /// The input's last dimension.
    pub input_dimension: usize,
    /// Cells: the hidden and cell states' last dimension, the output's last dimension.
    pub state_dimension: usize,
}

/// Runs every step of an LSTM: `row(x, h, c, out)` computes one sequence's step from its input
/// row `x` and hidden row `h`, updating its cell row `c` in place and writing the new hidden row
/// into its output row `out`, which then replaces `h`.
///
/// TFLM's `EvalLstm` order: time-major input steps all sequences at once for each time (here
/// one after another, which computes the same values: sequences are independent), batch-major
/// input one sequence's steps after another; the hidden and cell rows are sequence `b`'s.
///
/// Returns without writing if a slice is shorter than the sizes say.
pub(super) fn drive<A: Copy, C>(
    size: &LstmSize,
    input: &[A],
    hidden: &mut [A],
    cell: &mut [C],
    output: &mut [A],
    mut row: impl FnMut(&[A], &[A], &mut [C], &mut [A]),
) {
    let (n_batch, n_time, n_input, n_state) = (
        size.batch_size,
        size.time_steps,
        size.input_dimension,
        size.state_dimension,
    );
    let (Some(input), Some(output), Some(hidden), Some(cell)) = (
        super::shared::sized(input, &[n_time, n_batch, n_input]),
        super::shared::sized_mut(output, &[n_time, n_batch, n_state]),
        super::shared::sized_mut(hidden, &[n_batch, n_state]),
        super::shared::sized_mut(cell, &[n_batch, n_state]),
    ) else {
        return;
    };
    let mut step = |sequence: usize, at: usize| {
        let x = input.get(at * n_input..(at + 1) * n_input).unwrap_or(&[]);
        let span = sequence * n_state..(sequence + 1) * n_state;
        let (Some(out), Some(h), Some(c)) = (
            output.get_mut(at * n_state..(at + 1) * n_state),
            hidden.get_mut(span.clone()),
            cell.get_mut(span),
        ) else {
            return;
        };
        row(x, h, c, out);
        h.copy_from_slice(out);
    };
    if size.time_major {
        for t in 0..n_time {
            for b in 0..n_batch {
                step(b, t * n_batch + b);
            }
        }
    } else {
        for b in 0..n_batch {
            for t in 0..n_time {
                step(b, b * n_time + t);
            }
        }
    }
}

/// The integer sigmoid of TFLM's LSTM gates: `lstm_internal::Sigmoid(int16)`, which is
/// `reference_integer_ops::Logistic(0, 0, ..)` for int16: input Q3.12 scaled by 3 (the
/// multiplier 0 means `3 << 0`), linear interpolation in TFLM's `sigmoid_table_uint16` over `|x| >> 9`, the
/// symmetry `sigmoid(-x) = 1 - sigmoid(x)`, output Q0.15.
#[must_use]
pub(super) fn sigmoid_s16(x: i16) -> i16 {
    super::logistic::sigmoid_s16_scaled(super::logistic::scale_s16_input(x, 0, 0))
}

/// The int16 tanh of TFLM's LSTM: `lstm_internal::Tanh(cell_state_scale_power, ..)` for int16,
/// which calls `reference_integer_ops::Tanh(input_multiplier, input_left_shift, ..)` with
/// `input_left_shift = 15 + power - 3` (or its negation and multiplier 3 when negative): input
/// `(x * multiplier + round) >> shift` (multiplier 0 meaning `3 << shift` and no shift),
/// linear interpolation in TFLM's `sigmoid_table_uint16` over `|x| >> 8`, `tanh(x) = 2 sigmoid(2x) - 1`,
/// output Q0.15. The gates use power -12 (Q3.12 input).
///
/// Shifts of 32 or more (cell scales far from 2^-12; undefined in C++) are taken modulo 32, as
/// x86's shifts do; the products wrap.
#[must_use]
pub(super) fn tanh_s16(cell_state_scale_power: i32, x: i16) -> i16 {
    let (multiplier, shift) = tanh_input_scaling(cell_state_scale_power);
    super::tanh::tanh_s16_scaled(super::logistic::scale_s16_input(x, multiplier, shift))
}

/// `(input_multiplier, input_left_shift)` of `reference_integer_ops::Tanh` for int16 after
/// `lstm_internal::Tanh` and the power-of-two case (`multiplier == 0`: `3 << shift`, shift 0).
const fn tanh_input_scaling(cell_state_scale_power: i32) -> (i32, i32) {
    let mut shift = 15_i32.wrapping_add(cell_state_scale_power).wrapping_sub(3);
    let mut multiplier = 0;
    if shift < 0 {
        shift = shift.wrapping_neg();
        multiplier = 3;
    }
    if multiplier == 0 {
        multiplier = 3_i32.wrapping_shl(shift as u32);
        shift = 0;
    }
    (multiplier, shift)
}

/// TFLM's `MultiplyByQuantizedMultiplier(int64_t x, int32_t quantized_multiplier, int shift)`
/// (the same in both of TFLM's rounding builds): the multiplier rounded to 16 bits, then one
/// rounding shift by `15 - shift`. Shifts the C++ leaves undefined (`shift > 15`) are taken
/// modulo 64, as x86's 64-bit shifts do; the product wraps.
#[must_use]
pub(super) const fn multiply_by_quantized_multiplier_i64(
    x: i64,
    multiplier: i32,
    shift: i32,
) -> i32 {
    let reduced: i64 = if multiplier < 0x7fff_0000 {
        ((multiplier.wrapping_add(1 << 15)) >> 16) as i64
    } else {
        0x7fff
    };
    let total_shift = 15_i32.wrapping_sub(shift);
    let round = 1_i64.wrapping_shl(total_shift.wrapping_sub(1) as u32);
    x.wrapping_mul(reduced)
        .wrapping_add(round)
        .wrapping_shr(total_shift as u32) as i32
}

/// One fully connected product of a gate (TFLM's `FullyConnectedParams` as
/// `FullyConnectedParamsQuantized` makes it from `CalculateOpDataFullyConnected`): output
/// int16, symmetric.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LstmFc {
    /// Minus the input's (or hidden state's) zero point.
    pub input_offset: i32,
    /// Minus the weights' zero point.
    pub weights_offset: i32,
    /// The output zero point (0: the gate's Q3.12 is symmetric).
    pub output_offset: i32,
    /// `QuantizeMultiplier(input_scale × weights_scale / 2^-12)`.
    pub requant: Requant,
    /// Lower clamp of the int16 result.
    pub act_min: i32,
    /// Upper clamp of the int16 result.
    pub act_max: i32,
}

/// An element-wise multiplication of TFLM's LSTM (`ArithmeticParams` from
/// `CreateInterGateMulParams`: both inputs symmetric).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LstmMul {
    /// The output zero point (the hidden state's for the last one, else 0).
    pub output_offset: i32,
    /// `QuantizeMultiplier(input1_scale × input2_scale / output_scale)`.
    pub requant: Requant,
    /// Lower clamp (the output type's minimum).
    pub act_min: i32,
    /// Upper clamp (the output type's maximum).
    pub act_max: i32,
}

/// `reference_integer_ops::FullyConnected` for one output of an int8 input (`int32` bias and
/// accumulator, wrapping): `sum((w + weights_offset) * (x + input_offset)) + bias`, requantised,
/// plus the output offset, clamped.
#[must_use]
pub(super) fn fc_s8(p: &LstmFc, x: &[i8], w: &[i8], bias: Option<i32>) -> i16 {
    let mut acc: i32 = 0;
    for (&x, &w) in x.iter().zip(w) {
        acc = acc.wrapping_add(
            i32::from(w)
                .wrapping_add(p.weights_offset)
                .wrapping_mul(i32::from(x).wrapping_add(p.input_offset)),
        );
    }
    if let Some(b) = bias {
        acc = acc.wrapping_add(b);
    }
    let scaled = p.requant.apply(acc).wrapping_add(p.output_offset);
    clamp(scaled, p.act_min, p.act_max) as i16
}

/// `reference_integer_ops::FullyConnected` for one output of an int16 input (`int64` bias and
/// accumulator): the products in `int32`, summed in `int64`, plus the bias,
/// [`multiply_by_quantized_multiplier_i64`], plus the output offset, clamped.
#[must_use]
pub(super) fn fc_s16(p: &LstmFc, x: &[i16], w: &[i8], bias: Option<i64>) -> i16 {
    let mut acc: i64 = 0;
    for (&x, &w) in x.iter().zip(w) {
        let product = i32::from(w)
            .wrapping_add(p.weights_offset)
            .wrapping_mul(i32::from(x).wrapping_add(p.input_offset));
        acc = acc.wrapping_add(i64::from(product));
    }
    if let Some(b) = bias {
        acc = acc.wrapping_add(b);
    }
    let scaled = multiply_by_quantized_multiplier_i64(acc, p.requant.multiplier, p.requant.shift)
        .wrapping_add(p.output_offset);
    clamp(scaled, p.act_min, p.act_max) as i16
}

/// `std::max(x, lo)` then `std::min(.., hi)`, as TFLM clamps.
const fn clamp(x: i32, lo: i32, hi: i32) -> i32 {
    let x = if x < lo { lo } else { x };
    if x > hi { hi } else { x }
}

/// `lstm_internal::AddElementWise` for int16: the sum saturated to int16.
#[must_use]
pub(super) fn add_s16(a: i16, b: i16) -> i16 {
    a.saturating_add(b)
}

/// `reference_integer_ops::MulElementwise` for two int16 inputs: `output_offset +
/// MultiplyByQuantizedMultiplier((a + 0) * (b + 0))`, clamped (the result is the output type's
/// value, returned widened).
#[must_use]
pub(super) fn mul_s16(p: &LstmMul, a: i16, b: i16) -> i32 {
    let product = i32::from(a) * i32::from(b);
    let v = p
        .output_offset
        .wrapping_add(fixed::multiply_by_quantized_multiplier(
            product,
            p.requant.multiplier,
            p.requant.shift,
        ));
    if p.act_max < v {
        p.act_max
    } else if v < p.act_min {
        p.act_min
    } else {
        v
    }
}

/// `lstm_internal::Clipping` for int16: `std::max(std::min(clip, v), -clip)`.
#[must_use]
pub(super) const fn clip_s16(v: i16, clip: i16) -> i16 {
    let neg = clip.wrapping_neg();
    let v = if v < clip { v } else { clip };
    if v < neg { neg } else { v }
}

/// `a + b` with `a` the first source, NaNs as TFLM's x86-64 build has them.
#[inline(always)]
pub(super) fn add_f32(a: f32, b: f32) -> f32 {
    stowplan_math::sse::add(a, b)
}

/// `a × b` with `a` the first source, NaNs as TFLM's x86-64 build has them.
#[inline(always)]
pub(super) fn mul_f32(a: f32, b: f32) -> f32 {
    stowplan_math::sse::mul(a, b)
}

/// The float gates' fully connected product (`reference_ops::FullyConnected`, no activation):
/// `total += x * w` from 0 in order, then `bias + total` (0 without a bias) clamped to
/// `[lowest, max]` (so infinities become the largest finite values). The wheel's build
/// multiplies with the input as first source, adds with the total first, then the bias first.
#[must_use]
pub(super) fn fc_f32(x: &[f32], w: &[f32], bias: Option<f32>) -> f32 {
    let mut total = 0.0_f32;
    for (&x, &w) in x.iter().zip(w) {
        total = add_f32(total, mul_f32(x, w));
    }
    clamp_f32(add_f32(bias.unwrap_or(0.0), total))
}

/// `ActivationFunctionWithMinMax(x, lowest, max)`: `std::min(std::max(x, lowest), max)` (NaN
/// stays NaN).
#[must_use]
pub(super) fn clamp_f32(x: f32) -> f32 {
    super::shared::activation_f32(x, f32::MIN, f32::MAX)
}

/// `lstm_internal::Sigmoid(float)`: `reference_ops::Logistic`, as the runtime's float
/// LOGISTIC computes it.
#[must_use]
pub(super) fn sigmoid_f32(x: f32) -> f32 {
    let mut out = [0.0_f32];
    super::logistic::proven::logistic_f32(&[x], &mut out);
    let [y] = out;
    y
}

/// `lstm_internal::Tanh(float)`: `std::tanh`, glibc's `tanhf`.
#[must_use]
pub(super) fn tanh_f32(x: f32) -> f32 {
    tanhf(x)
}

/// `lstm_internal::Clipping` for floats as the wheel's build computes it: `maxss` with `-clip`
/// then `minss` with `clip` (`min(max(v, -clip), clip)` with `std::max` / `std::min`: a NaN
/// `v` stays NaN). (The source at 90b983c2 writes `std::max(std::min(clip, v), -clip)`,
/// which would turn a NaN into `clip`.)
#[must_use]
pub(super) fn clip_f32(v: f32, clip: f32) -> f32 {
    let neg = -clip;
    let t = if neg > v { neg } else { v };
    if clip < t { clip } else { t }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigmoid_s16_is_sigmoid_in_q0_15() {
        assert_eq!(sigmoid_s16(0), 16384);
        // sigmoid(8) ~ 0.99966, sigmoid(-8) ~ 0.000335 (Q3.12 input 8 << 12).
        assert!((i32::from(sigmoid_s16(i16::MAX)) - 32756).abs() <= 2);
        assert!((i32::from(sigmoid_s16(i16::MIN)) - 11).abs() <= 2);
        for x in [-30000_i16, -4096, -1, 1, 4096, 30000] {
            let want = 32768.0 / (1.0 + (-f64::from(x) / 4096.0).exp());
            assert!((f64::from(sigmoid_s16(x)) - want).abs() < 8.0, "{x}");
        }
    }

    #[test]
    fn tanh_s16_is_tanh_in_q0_15() {
        assert_eq!(tanh_s16(-12, 0), 0);
        for x in [-30000_i16, -4096, -100, 100, 4096, 30000] {
            let want = 32768.0 * (f64::from(x) / 4096.0).tanh();
            assert!((f64::from(tanh_s16(-12, x)) - want).abs() < 16.0, "{x}");
        }
        // A Q4.11 cell (power -11): twice the value.
        let want = 32768.0 * (2.0_f64 * 1000.0 / 4096.0).tanh();
        assert!((f64::from(tanh_s16(-11, 1000)) - want).abs() < 16.0);
        // Q0.15 (power -15): shift 3 with multiplier 3.
        assert_eq!(tanh_input_scaling(-15), (3, 3));
        assert_eq!(tanh_input_scaling(-12), (3, 0));
        assert_eq!(tanh_input_scaling(-11), (6, 0));
        // Shifts of 32 and more wrap as x86's do: 3 << 33 is 3 << 1.
        assert_eq!(tanh_input_scaling(21), (6, 0));
    }

    #[test]
    fn int64_requantisation_rounds_once() {
        // 1.5 * 2^30 / 2^31 = 0.75: 1000 * 0.75.
        assert_eq!(multiply_by_quantized_multiplier_i64(1000, 3 << 29, 0), 750);
        assert_eq!(
            multiply_by_quantized_multiplier_i64(-1000, 3 << 29, 0),
            -750
        );
        assert_eq!(
            multiply_by_quantized_multiplier_i64(1 << 40, 1 << 30, -20),
            1 << 19
        );
        // Multipliers from 0x7fff0000 round to 0x7fff.
        assert_eq!(
            multiply_by_quantized_multiplier_i64(1 << 16, i32::MAX, 0),
            0x7fff << 1
        );
    }

    #[test]
    fn clipping_is_symmetric() {
        assert_eq!(clip_s16(i16::MIN, 32767), -32767);
        assert_eq!(clip_s16(500, 100), 100);
        assert_eq!(clip_s16(-500, 100), -100);
        assert_eq!(clip_s16(5, 0), 0);
        assert!(clip_f32(f32::NAN, 3.0).is_nan());
        assert_eq!(clip_f32(-7.0, 3.0), -3.0);
        assert_eq!(clamp_f32(f32::INFINITY), f32::MAX);
    }
}
