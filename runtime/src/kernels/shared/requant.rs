//! Fixed-point requantisation and clamping shared by the ops: TFLM's `(multiplier, shift)` pair,
//! the per-channel epilogues of its convolution kernels (int8, int16 with 64- and 32-bit
//! accumulators, float), and the narrowing clamps.

use super::fixed;

pub use crate::requant_pair::Requant;

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

/// The blocked int8 convolutions' epilogue form for `requant`'s first `channels` multipliers
/// and the clamp `act_min..=act_max`: 6 when every shift is a right shift of 2 or more
/// (`fixed::right_form` 2) and the clamp is the whole int8 range, 5 when a shift is -1 and
/// the others right shifts too, with the whole range, else 0 (the general requantisation:
/// a negative multiplier, a left shift or one past 31, fewer multipliers than channels,
/// single rounding, or a narrower clamp). The kernels are instantiated for these three.
pub(crate) const fn epilogue_form(
    requant: &[Requant],
    channels: usize,
    act_min: i32,
    act_max: i32,
) -> u8 {
    if fixed::SINGLE_ROUNDING || requant.len() < channels || act_min != -128 || act_max != 127 {
        return 0;
    }
    // The multipliers' signs and the shifts' range, in one pass without a branch per channel
    // (the run-time choice computes it at every call).
    let (mut signs, mut least, mut most) = (0, 0, -32);
    let mut c = 0;
    while c < channels {
        let r = requant[c];
        signs |= r.multiplier;
        least = if r.shift < least { r.shift } else { least };
        most = if r.shift > most { r.shift } else { most };
        c += 1;
    }
    if signs < 0 || least < -31 || most > -1 {
        0
    } else if most == -1 {
        5
    } else {
        6
    }
}

/// The bits of a kernel constant (`conv_kernel`, `depthwise_kernel`) that name its epilogue
/// form: none (chosen at every call) or one of [`EPILOGUE_GENERAL`], [`EPILOGUE_SHIFT1`] and
/// [`EPILOGUE_SHIFT2`].
pub(crate) const EPILOGUE_BITS: u8 = 0x30;

/// The general requantisation and clamp (`MultiplyByQuantizedMultiplier`, then
/// `act_min..=act_max`), for any multiplier, shift and fused activation.
pub const EPILOGUE_GENERAL: u8 = 0x10;
/// Right shifts of 1 and more (one channel's of exactly 1), over the whole int8 range: one
/// 64-bit multiply-accumulate per output, and one saturation.
pub const EPILOGUE_SHIFT1: u8 = 0x20;
/// Right shifts of 2 and more, over the whole int8 range (most convolution layers): one 64-bit
/// multiply-accumulate per output, and one saturation.
pub const EPILOGUE_SHIFT2: u8 = 0x30;

/// The epilogue bits of form `form` ([`epilogue_form`]'s 6, 5, else 0).
pub(crate) const fn epilogue_bits(form: u8) -> u8 {
    match form {
        6 => EPILOGUE_SHIFT2,
        5 => EPILOGUE_SHIFT1,
        _ => EPILOGUE_GENERAL,
    }
}

/// The form a kernel runs with kernel constant `kernel`: the one its epilogue bits name (a
/// constant when `kernel` is one, so only that form's loops are compiled), else `computed`,
/// the form found at run time.
#[cfg(any(stowplan_dsp, test))]
#[inline(always)]
pub(crate) const fn epilogue_in(kernel: u8, computed: u8) -> u8 {
    match kernel & EPILOGUE_BITS {
        EPILOGUE_GENERAL => 0,
        EPILOGUE_SHIFT1 => 5,
        EPILOGUE_SHIFT2 => 6,
        _ => computed,
    }
}

/// The name of kernel constant `kernel`'s epilogue, for reports: `"general"`, `"shift1"`,
/// `"shift2"`, or `None` when it is chosen at every call.
#[must_use]
pub(crate) const fn epilogue_name(kernel: u8) -> Option<&'static str> {
    match kernel & EPILOGUE_BITS {
        EPILOGUE_GENERAL => Some("general"),
        EPILOGUE_SHIFT1 => Some("shift1"),
        EPILOGUE_SHIFT2 => Some("shift2"),
        _ => None,
    }
}

/// The form of ADD's scaling by `r` (`blocked::Scale::new`'s): in the double-rounding build with a non-negative multiplier,
/// [`fixed::right_form`]'s 2 or 1 for right shifts, 3 for shift 0; else 0 (the general
/// function).
pub(crate) const fn scale_form(r: Requant) -> u8 {
    let right = fixed::right_form(r.multiplier, r.shift);
    if right == 0 && !fixed::SINGLE_ROUNDING && r.multiplier >= 0 && r.shift == 0 {
        3
    } else {
        right
    }
}

/// The form `blocked::Scale::apply_in` takes for `r` (`Scale::form`): 4 for the multiplier `2^30`
/// with shift 0 (ADD's term of the input with the larger scale, whose real multiplier is
/// exactly 1/2), else [`scale_form`]'s.
pub(crate) const fn apply_form(r: Requant) -> u8 {
    let form = scale_form(r);
    if form == 3 && r.multiplier == 1 << 30 {
        4
    } else {
        form
    }
}
