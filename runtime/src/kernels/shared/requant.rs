//! Fixed-point requantisation and clamping shared by the ops: TFLM's `(multiplier, shift)` pair,
//! the per-channel epilogues of its convolution kernels (int8, int16 with 64- and 32-bit
//! accumulators, float), and the narrowing clamps.

use super::fixed;

/// TFLM's `(quantized_multiplier, shift)` pair from `QuantizeMultiplier`: the real multiplier
/// `multiplier * 2^(shift - 31)`; `shift > 0` is a left shift.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Requant {
    /// Q0.31 significand in `[2^30, 2^31)`, or 0.
    pub multiplier: i32,
    /// Power-of-two exponent; positive shifts left.
    pub shift: i32,
}

impl Requant {
    /// Multiplies `x` by this multiplier as TFLM's `MultiplyByQuantizedMultiplier` does.
    #[must_use]
    pub const fn apply(&self, x: i32) -> i32 {
        fixed::multiply_by_quantized_multiplier(x, self.multiplier, self.shift)
    }
}
/// The int8 epilogue of TFLM's per-channel kernels: add the bias, requantise with the output
/// channel's multiplier, add the output offset, clamp (`max` then `min`), narrow.
#[inline(always)]
pub(crate) fn requantize_channel(
    acc: i32,
    out_c: usize,
    bias: Option<&[i32]>,
    requant: &[Requant],
    output_offset: i32,
    act_min: i32,
    act_max: i32,
) -> i8 {
    let acc = match bias.and_then(|bias| bias.get(out_c)) {
        Some(&bias) => acc.wrapping_add(bias),
        None => acc,
    };
    let (multiplier, shift) = match requant.get(out_c) {
        Some(r) => (r.multiplier, r.shift),
        None => (0, 0),
    };
    let acc = fixed::multiply_by_quantized_multiplier(acc, multiplier, shift);
    clamp_to_i8(acc.wrapping_add(output_offset), act_min, act_max)
}

/// The int16 epilogue of TFLM's 64-bit per-channel kernels: add the bias, requantise with the
/// output channel's multiplier (the `int64_t` `MultiplyByQuantizedMultiplier`), clamp (`max`
/// then `min`), narrow (the C++ `static_cast<int16_t>`).
#[inline(always)]
pub(crate) fn requantize_channel_s16(
    acc: i64,
    out_c: usize,
    bias: Option<&[i64]>,
    requant: &[Requant],
    act_min: i32,
    act_max: i32,
) -> i16 {
    let acc = match bias.and_then(|bias| bias.get(out_c)) {
        Some(&bias) => acc.wrapping_add(bias),
        None => acc,
    };
    let (multiplier, shift) = match requant.get(out_c) {
        Some(r) => (r.multiplier, r.shift),
        None => (0, 0),
    };
    clamp_to_i16(
        fixed::multiply_by_quantized_multiplier_i64(acc, multiplier, shift),
        act_min,
        act_max,
    )
}

/// [`requantize_channel_s16`] for TFLM's 32-bit accumulators (an int32 bias): the `int32_t`
/// `MultiplyByQuantizedMultiplier`.
#[inline(always)]
pub(crate) fn requantize_channel_s16_acc32(
    acc: i32,
    out_c: usize,
    bias: Option<&[i32]>,
    requant: &[Requant],
    act_min: i32,
    act_max: i32,
) -> i16 {
    let acc = match bias.and_then(|bias| bias.get(out_c)) {
        Some(&bias) => acc.wrapping_add(bias),
        None => acc,
    };
    let (multiplier, shift) = match requant.get(out_c) {
        Some(r) => (r.multiplier, r.shift),
        None => (0, 0),
    };
    clamp_to_i16(
        fixed::multiply_by_quantized_multiplier(acc, multiplier, shift),
        act_min,
        act_max,
    )
}

/// Clamps into `[min, max]` as TFLM does (`max` first, then `min`) and narrows to `i16` (the
/// C++ `static_cast`, which wraps if the range is wider than `i16`).
#[inline(always)]
pub(crate) fn clamp_to_i16(acc: i32, min: i32, max: i32) -> i16 {
    let acc = if acc < min { min } else { acc };
    let acc = if acc > max { max } else { acc };
    acc as i16
}

/// The float epilogue: `ActivationFunctionWithMinMax(total + bias)`.
#[inline(always)]
pub(crate) fn finish_f32(
    total: f32,
    out_c: usize,
    bias: Option<&[f32]>,
    act_min: f32,
    act_max: f32,
) -> f32 {
    let bias_value = match bias.and_then(|bias| bias.get(out_c)) {
        Some(&bias) => bias,
        None => 0.0,
    };
    activation_f32(total + bias_value, act_min, act_max)
}
/// Clamps an accumulator into `[min, max]` the way TFLM does (`max` first, then `min`) and
/// narrows it to `i8` (the C++ `static_cast`, which wraps if the range is wider than `i8`).
#[inline(always)]
pub(crate) fn clamp_to_i8(acc: i32, min: i32, max: i32) -> i8 {
    let acc = if acc < min { min } else { acc };
    let acc = if acc > max { max } else { acc };
    acc as i8
}

/// TFLM's `ActivationFunctionWithMinMax` for floats: `min(max(x, lo), hi)` with `std::max` and
/// `std::min` semantics (`std::max(a, b)` is `a < b ? b : a`, so a NaN `x` stays NaN).
#[inline(always)]
pub(crate) fn activation_f32(x: f32, lo: f32, hi: f32) -> f32 {
    let x = if x < lo { lo } else { x };
    if hi < x { hi } else { x }
}
