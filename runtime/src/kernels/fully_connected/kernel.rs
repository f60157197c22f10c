//! Which kernel runs an int8 FULLY_CONNECTED, chosen when the crate compiles.
//!
//! [`fully_connected_s8`](super::fully_connected_s8) finds its epilogue form at every call, so a
//! firmware that calls it links the loop of every form. Generated code instead evaluates
//! [`fully_connected_s8_kernel`] in a constant, when the crate compiles, and calls the proven
//! entry `fully_connected_s8_with::<K>` with it: only the form each layer runs is linked, and
//! no choice is made at run time. The outputs are the same whatever the kernel; on targets
//! without the DSP extension every kernel is the portable one.
//!
//! A kernel constant names the kernel and the epilogue form of its layer's requantisation (the
//! bits [`EPILOGUE_GENERAL`], [`EPILOGUE_SHIFT1`] or [`EPILOGUE_SHIFT2`], or'd into the
//! kernel's: `ROWS | EPILOGUE_SHIFT2`). [`fully_connected_s8_takes`] is part of the entry's
//! check ([`check_fully_connected_s8_with`](super::check_fully_connected_s8_with)): a constant
//! whose form is not the layer's does not compile.

use super::FullyConnectedS8;
use crate::kernels::shared::Requant;
use crate::kernels::shared::requant::{EPILOGUE_BITS, epilogue_bits, epilogue_form, epilogue_name};
pub use crate::kernels::shared::requant::{EPILOGUE_GENERAL, EPILOGUE_SHIFT1, EPILOGUE_SHIFT2};

/// The bits of a kernel constant that name the kernel (the others its epilogue).
pub(crate) const KERNEL_BITS: u8 = 0x0f;

/// The epilogue form found at every call, as [`fully_connected_s8`](super::fully_connected_s8)
/// does.
pub const ANY: u8 = 0;
/// With the DSP extension, each input row widened once for three output channels at a time
/// (then two, or one, for the last), every depth and channel count.
pub const ROWS: u8 = 1;
/// The portable loop, an output channel at a time (every layer on targets without the DSP
/// extension).
pub const PORTABLE: u8 = 2;
/// Four output channels at a time from a filter laid out for it when the crate compiled: the
/// rows in blocks of four, each block's words interleaved ([`interleaved_word`]), and the
/// input offset folded into the bias ([`folded_bias`]), so that the kernel adds no offset. With
/// the DSP extension one input word (widened once) meets four rows' words, loaded two at a time
/// (`LDRD`); elsewhere a plain loop on the same layout. It takes layers whose depth is a whole
/// number of words and that have no filter offset ([`interleaves`]); generated code hands it
/// the re-laid filter and the folded bias, never the model's own.
pub const INTERLEAVED: u8 = 3;
/// [`INTERLEAVED`] with the folded epilogue: each input row's blocks in one `asm!` block with
/// their requantisation (the rounding, the zero point and the saturation in one 64-bit
/// multiply-accumulate and one `SSAT` per output), for layers whose epilogue form is
/// [`EPILOGUE_SHIFT2`]'s with every right shift at most 23 and an int8 output zero point
/// ([`folds`]); the only form it runs (its constant names it). Elsewhere the same plain loop.
pub const INTERLEAVED_FOLDED: u8 = 4;

/// The kernel's name, for reports and messages: its constant's name in lower case (`"any"`
/// for [`ANY`], `"unknown"` for a value that names no kernel); the epilogue bits are not part
/// of it.
#[must_use]
pub const fn name(kernel: u8) -> &'static str {
    match kernel & KERNEL_BITS {
        ANY => "any",
        ROWS => "rows",
        PORTABLE => "portable",
        INTERLEAVED => "interleaved",
        INTERLEAVED_FOLDED => "interleaved_folded",
        _ => "unknown",
    }
}

/// The name of the epilogue form kernel constant `kernel` names (its constant's name without
/// `EPILOGUE_`, in lower case: `"shift2"`), or `None` when the form is found at every call.
#[must_use]
pub const fn epilogue(kernel: u8) -> Option<&'static str> {
    epilogue_name(kernel)
}

/// The kernel generated code runs `p` with: [`ROWS`] with the epilogue bits of its
/// requantisation and clamp.
#[must_use]
pub const fn fully_connected_s8_kernel(p: &FullyConnectedS8) -> u8 {
    fully_connected_s8_kernel_for(p.requant, p.output_depth, p.act_min, p.act_max)
}

/// [`fully_connected_s8_kernel`] of the op whose multipliers (one: per tensor, else one per
/// output channel), output channel count and clamp are these, for callers that hold them apart.
#[must_use]
pub const fn fully_connected_s8_kernel_for(
    requant: &[Requant],
    output_depth: usize,
    act_min: i32,
    act_max: i32,
) -> u8 {
    ROWS | epilogue_bits(form_for(requant, output_depth, act_min, act_max))
}

/// The epilogue form of a layer's output channels: every channel has the per-tensor multiplier
/// when there is one, else its own.
pub(crate) const fn form_for(
    requant: &[Requant],
    output_depth: usize,
    act_min: i32,
    act_max: i32,
) -> u8 {
    let channels = if requant.len() == 1 { 1 } else { output_depth };
    epilogue_form(requant, channels, act_min, act_max)
}

/// Whether `kernel` runs `p`: [`ANY`] and [`PORTABLE`] (without epilogue bits) run every
/// layer, [`ROWS`] every layer whose form its bits name (or, without them, every layer).
#[must_use]
pub const fn fully_connected_s8_takes(kernel: u8, p: &FullyConnectedS8) -> bool {
    let bits = kernel & EPILOGUE_BITS;
    if kernel & !(KERNEL_BITS | EPILOGUE_BITS) != 0 {
        return false;
    }
    match kernel & KERNEL_BITS {
        ANY | PORTABLE => bits == 0,
        ROWS => {
            bits == 0
                || bits == epilogue_bits(form_for(p.requant, p.output_depth, p.act_min, p.act_max))
        }
        INTERLEAVED => {
            interleaves(p.accum_depth, p.filter_offset, p.requant.len() > 1)
                && (bits == 0
                    || bits
                        == epilogue_bits(form_for(p.requant, p.output_depth, p.act_min, p.act_max)))
        }
        INTERLEAVED_FOLDED => {
            interleaves(p.accum_depth, p.filter_offset, p.requant.len() > 1)
                && bits == EPILOGUE_SHIFT2
                && folds(
                    p.requant,
                    p.output_depth,
                    p.act_min,
                    p.act_max,
                    p.output_offset,
                )
        }
        _ => false,
    }
}

/// The kernel generated code runs a layer with when the planner re-lays its filter and folds
/// its input offset ([`interleaves`]): [`INTERLEAVED_FOLDED`] when its epilogue [`folds`],
/// else [`INTERLEAVED`] with the epilogue bits of its requantisation and clamp.
#[must_use]
pub const fn fully_connected_s8_interleaved_for(
    requant: &[Requant],
    output_depth: usize,
    (act_min, act_max): (i32, i32),
    output_offset: i32,
) -> u8 {
    if folds(requant, output_depth, act_min, act_max, output_offset) {
        INTERLEAVED_FOLDED | EPILOGUE_SHIFT2
    } else {
        INTERLEAVED | epilogue_bits(form_for(requant, output_depth, act_min, act_max))
    }
}

/// Whether a layer's epilogue folds into one 64-bit multiply-accumulate and one saturation
/// per output ([`INTERLEAVED_FOLDED`]): epilogue form [`EPILOGUE_SHIFT2`]'s (multipliers `>= 0`,
/// right shifts of 2 and more, the whole int8 range) with no right shift past 23 (the folded
/// rounding constant then fits its word) and an int8 output zero point.
#[must_use]
pub const fn folds(
    requant: &[Requant],
    output_depth: usize,
    act_min: i32,
    act_max: i32,
    output_offset: i32,
) -> bool {
    if epilogue_bits(form_for(requant, output_depth, act_min, act_max)) != EPILOGUE_SHIFT2
        || output_offset < -128
        || output_offset > 127
    {
        return false;
    }
    let channels = if requant.len() == 1 { 1 } else { output_depth };
    let mut c = 0;
    while c < channels && c < requant.len() {
        if requant[c].shift < -23 {
            return false;
        }
        c += 1;
    }
    true
}

/// Whether [`INTERLEAVED`] takes a layer of this depth and filter offset (per channel: TFLM's
/// per-channel kernel has none): a depth that is a whole number of words (at least one), and no
/// filter offset, so that the input offset's term `input_offset × sum(filter)` is a constant of
/// each output channel, which [`folded_bias`] adds to its bias.
#[must_use]
pub const fn interleaves(depth: usize, filter_offset: i32, per_channel: bool) -> bool {
    depth > 0 && depth.is_multiple_of(4) && (filter_offset == 0 || per_channel)
}

/// Where [`INTERLEAVED`]'s filter keeps word `k` of row `c` (both counted from 0; `depth`
/// values a row, a multiple of 4): as a word index into the re-laid filter. The first `4 ×
/// (units / 4)` rows go in blocks of four, each block's words in the order the kernel reads
/// them (word `k` of its four rows, then word `k + 1` of the four), so that a block of `depth`
/// words starts at word `c × depth / 4` as in the model's row-major filter; the last
/// `units % 4` rows keep their place.
#[must_use]
pub const fn interleaved_word(c: usize, k: usize, depth: usize, units: usize) -> usize {
    let words = depth / 4;
    if c < 4 * (units / 4) {
        (c - c % 4) * words + 4 * k + c % 4
    } else {
        c * words + k
    }
}

/// Channel `c`'s bias as [`INTERLEAVED`] takes it: `bias + input_offset × sum(row)` over its
/// filter row (the model's), modulo 2^32, as TFLM's int32 accumulator wraps. Without a filter
/// offset TFLM's sum `sum(row[k] × (x[k] + input_offset))` is `sum(row[k] × x[k])` plus this
/// constant, so the kernel sums `row[k] × x[k]` alone.
#[must_use]
pub fn folded_bias(bias: i32, input_offset: i32, row: &[i8]) -> i32 {
    let sum = row.iter().fold(0_i32, |s, &w| s.wrapping_add(i32::from(w)));
    bias.wrapping_add(input_offset.wrapping_mul(sum))
}
