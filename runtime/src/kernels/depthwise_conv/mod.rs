//! DEPTHWISE_CONV_2D: TFLM's `reference_integer_ops::DepthwiseConvPerChannel` and
//! `reference_ops::DepthwiseConv` (float), with CONV_2D's geometry and parameters
//! ([`super::conv`]).
//!
//! Every output value is the sum TFLM computes, over the same products in the same order
//! (float sums round identically); a block of channels is accumulated at once, tap by tap, so
//! the loop vectorises. Outputs are written in memory order (batch, y, x, channel).

#[cfg(test)]
mod choice_tests;
#[cfg(any(stowplan_dsp, test))]
pub(crate) mod dsp;
#[cfg(any(stowplan_dsp, test))]
pub(crate) mod dsp_s16;
pub(crate) mod in_place;
pub mod kernel;

use super::shared::check::{KernelError, check, elements, length, optional_length, require};
use super::shared::{
    ConvF32, ConvGeometry, ConvS8, ConvS16, Part, finish_f32, inside, int4_at, int4_elements,
    origin, requantize_channel, requantize_channel_s16, run,
};
use super::shared::{product, sized_mut};

/// Channels DEPTHWISE_CONV_2D accumulates at once (its accumulators live on the stack).
const CHANNEL_BLOCK: usize = 16;

/// Shared loop nest of DEPTHWISE_CONV_2D. Outputs are produced in TFLM's order (batch, out_y,
/// out_x, in_channel, multiplier); each output's products are added in TFLM's (filter_y,
/// filter_x) order. Blocks of up to [`CHANNEL_BLOCK`] output channels are accumulated
/// together, tap by tap: `mac(accs, input, filter_start)` adds one tap's products to a block
/// (the filter elements `filter_start..filter_start + accs.len()` of the caller's storage), with
/// one input per output (depth multiplier 1) or one input for all (the outputs of one input
/// channel).
///
/// Returns without writing if the slices are shorter than the geometry says
/// (`filter_elements` is how many filter elements the caller's storage holds) or the filter's
/// channels are not the input's times the depth multiplier.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn depthwise_loops<I: Copy, A: Copy, O>(
    g: &ConvGeometry,
    part: Part,
    input: &[I],
    filter_elements: usize,
    output: &mut [O],
    zero: A,
    mut mac: impl FnMut(&mut [A], &[I], usize),
    mut finish: impl FnMut(A, usize) -> O,
) {
    let [batches, input_h, input_w, input_d] = g.input;
    let [_, filter_h, filter_w, output_d] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    let depth_multiplier = g.depth_multiplier;
    let (Some(input), Some(_), Some(output)) = (
        part.input(input, g),
        product(&[filter_h, filter_w, output_d]).filter(|&n| n <= filter_elements),
        sized_mut(output, &[batches, output_h, output_w, output_d]),
    ) else {
        return;
    };
    if input_d.checked_mul(depth_multiplier) != Some(output_d) {
        return;
    }
    let mut out = output.iter_mut();
    for batch in 0..batches {
        for out_y in 0..output_h {
            let in_y_origin = origin(out_y, g.stride_h, g.pad_h);
            for out_x in 0..output_w {
                let in_x_origin = part.origin_x(out_x, g.stride_w, g.pad_w);
                // `block` output channels from `first` on: with depth multiplier 1 they read
                // `block` input channels from `in_c` on, else (channels of one input channel)
                // all read input channel `in_c`.
                let mut first = 0;
                while first < output_d {
                    let (in_c, block, in_len) = if depth_multiplier == 1 {
                        let block = CHANNEL_BLOCK.min(output_d - first);
                        (first, block, block)
                    } else {
                        let in_c = first.checked_div(depth_multiplier).unwrap_or(0);
                        let m = first.checked_rem(depth_multiplier).unwrap_or(0);
                        (in_c, CHANNEL_BLOCK.min(depth_multiplier - m), 1)
                    };
                    let mut accs = [zero; CHANNEL_BLOCK];
                    let accs = &mut accs[..block];
                    for filter_y in 0..filter_h {
                        let Some(in_y) = inside(in_y_origin, g.dilation_h, filter_y, input_h)
                        else {
                            continue;
                        };
                        for filter_x in 0..filter_w {
                            let Some(in_x) = inside(in_x_origin, g.dilation_w, filter_x, input_w)
                            else {
                                continue;
                            };
                            // Past the slice (so not read) for a skipped pixel.
                            let i = part
                                .pixel((batch * input_h + in_y) * input_w + in_x)
                                .wrapping_mul(input_d)
                                .wrapping_add(in_c);
                            let f = (filter_y * filter_w + filter_x) * output_d + first;
                            if let Some(i) = input.get(i..i.wrapping_add(in_len)) {
                                mac(accs, i, f);
                            }
                        }
                    }
                    for (out_c, &acc) in (first..).zip(accs.iter()) {
                        if let Some(o) = out.next() {
                            *o = finish(acc, out_c);
                        }
                    }
                    first += block;
                }
            }
        }
    }
}

/// What every DEPTHWISE_CONV_2D kernel needs of its geometry and of its input's and output's
/// lengths: shapes whose sizes do not overflow, the output's batches the input's, its channels
/// the filter's and the input's times the depth multiplier, strides and dilations of at
/// least 1.
const fn check_depthwise(g: &ConvGeometry, input: usize, output: usize) -> Result<(), KernelError> {
    check!(length("input", elements(&g.input), input));
    check!(length("output", elements(&g.output), output));
    check!(require(
        g.output[0] == g.input[0],
        "the output's batches are not the input's"
    ));
    check!(require(
        g.output[3] == g.filter[3],
        "the output's channels are not the filter's"
    ));
    check!(require(
        matches!(g.input[3].checked_mul(g.depth_multiplier), Some(o) if o == g.output[3]),
        "the output's channels are not the input's times the depth multiplier"
    ));
    require(
        g.stride_h >= 1 && g.stride_w >= 1 && g.dilation_h >= 1 && g.dilation_w >= 1,
        "a stride or a dilation is 0",
    )
}

/// The filter's elements, `FH*FW*O`.
const fn filter_elements(g: &ConvGeometry) -> Option<usize> {
    elements(&[g.filter[1], g.filter[2], g.filter[3]])
}

/// [`depthwise_conv2d_s8`]'s preconditions, on the lengths of its slices (`bias`: `None` for no
/// bias): what the entry checks before it runs, and what generated code asserts when the crate
/// compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_depthwise_conv2d_s8(
    p: &ConvS8,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    let g = &p.geometry;
    check!(check_depthwise(g, input, output));
    check!(length("filter", filter_elements(g), filter));
    check!(length("requant", Some(g.filter[3]), p.requant.len()));
    optional_length("bias", Some(g.filter[3]), bias)
}

/// The preconditions of [`proven::depthwise_conv2d_s8_with`] with kernel `K` (one of
/// [`kernel`]'s): [`check_depthwise_conv2d_s8`]'s, and that the kernel takes the geometry
/// ([`kernel::depthwise_conv2d_s8_takes`]). Generated code asserts it when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_depthwise_conv2d_s8_with<const K: u8>(
    p: &ConvS8,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    check!(check_depthwise_conv2d_s8(p, input, filter, bias, output));
    require(
        kernel::depthwise_conv2d_s8_takes(K, p),
        "the chosen DEPTHWISE_CONV_2D kernel does not take this geometry",
    )
}

/// [`depthwise_conv2d_s8_i4`]'s preconditions, as [`check_depthwise_conv2d_s8`]'s with the packed
/// filter.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_depthwise_conv2d_s8_i4(
    p: &ConvS8,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    let g = &p.geometry;
    check!(check_depthwise(g, input, output));
    check!(length(
        "filter",
        match filter_elements(g) {
            Some(n) => Some(n.div_ceil(2)),
            None => None,
        },
        filter
    ));
    check!(length("requant", Some(g.filter[3]), p.requant.len()));
    optional_length("bias", Some(g.filter[3]), bias)
}

/// [`depthwise_conv2d_s16`]'s preconditions, as [`check_depthwise_conv2d_s8`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_depthwise_conv2d_s16(
    p: &ConvS16,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    let g = &p.geometry;
    check!(check_depthwise(g, input, output));
    check!(length("filter", filter_elements(g), filter));
    check!(length("requant", Some(g.filter[3]), p.requant.len()));
    optional_length("bias", Some(g.filter[3]), bias)
}

/// [`depthwise_conv2d_f32`]'s preconditions, as [`check_depthwise_conv2d_s8`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_depthwise_conv2d_f32(
    p: &ConvF32,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    let g = &p.geometry;
    check!(check_depthwise(g, input, output));
    check!(length("filter", filter_elements(g), filter));
    optional_length("bias", Some(g.filter[3]), bias)
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    use super::{ConvF32, ConvS8, ConvS16, Part};

    /// [`depthwise_conv2d_s8`](super::depthwise_conv2d_s8), its [`check`](super::check_depthwise_conv2d_s8) proven.
    #[inline]
    pub fn depthwise_conv2d_s8(
        p: &ConvS8,
        input: &[i8],
        filter: &[i8],
        bias: Option<&[i32]>,
        output: &mut [i8],
    ) {
        debug_assert!(
            super::check_depthwise_conv2d_s8(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i32]>::len),
                output.len()
            )
            .is_ok()
        );
        super::depthwise_conv2d_s8_part(p, Part::WHOLE, input, filter, bias, output);
    }

    /// [`depthwise_conv2d_s8`](super::depthwise_conv2d_s8) with its kernel chosen when the
    /// crate compiled (`K`, one of [`kernel`](super::kernel)'s, usually
    /// [`depthwise_conv2d_s8_kernel`](super::kernel::depthwise_conv2d_s8_kernel)'s choice): only
    /// that kernel is linked. Its [`check`](super::check_depthwise_conv2d_s8_with) proven.
    #[inline]
    pub fn depthwise_conv2d_s8_with<const K: u8>(
        p: &ConvS8,
        input: &[i8],
        filter: &[i8],
        bias: Option<&[i32]>,
        output: &mut [i8],
    ) {
        debug_assert!(
            super::check_depthwise_conv2d_s8_with::<K>(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i32]>::len),
                output.len()
            )
            .is_ok()
        );
        super::depthwise_conv2d_s8_part_with::<K>(p, Part::WHOLE, input, filter, bias, output);
    }

    /// [`depthwise_conv2d_s8_i4`](super::depthwise_conv2d_s8_i4), its [`check`](super::check_depthwise_conv2d_s8_i4) proven.
    #[inline]
    pub fn depthwise_conv2d_s8_i4(
        p: &ConvS8,
        input: &[i8],
        filter: &[u8],
        bias: Option<&[i32]>,
        output: &mut [i8],
    ) {
        debug_assert!(
            super::check_depthwise_conv2d_s8_i4(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i32]>::len),
                output.len()
            )
            .is_ok()
        );
        super::depthwise_conv2d_s8_i4_part(p, Part::WHOLE, input, filter, bias, output);
    }

    /// [`depthwise_conv2d_s16`](super::depthwise_conv2d_s16), its [`check`](super::check_depthwise_conv2d_s16) proven.
    #[inline]
    pub fn depthwise_conv2d_s16(
        p: &ConvS16,
        input: &[i16],
        filter: &[i8],
        bias: Option<&[i64]>,
        output: &mut [i16],
    ) {
        debug_assert!(
            super::check_depthwise_conv2d_s16(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i64]>::len),
                output.len()
            )
            .is_ok()
        );
        super::depthwise_conv2d_s16_part(p, Part::WHOLE, input, filter, bias, output);
    }

    /// [`depthwise_conv2d_f32`](super::depthwise_conv2d_f32), its [`check`](super::check_depthwise_conv2d_f32) proven.
    #[inline]
    pub fn depthwise_conv2d_f32(
        p: &ConvF32,
        input: &[f32],
        filter: &[f32],
        bias: Option<&[f32]>,
        output: &mut [f32],
    ) {
        debug_assert!(
            super::check_depthwise_conv2d_f32(
                p,
                input.len(),
                filter.len(),
                bias.map(<[f32]>::len),
                output.len()
            )
            .is_ok()
        );
        super::depthwise_conv2d_f32_part(p, Part::WHOLE, input, filter, bias, output);
    }
}

/// int8 DEPTHWISE_CONV_2D: TFLM's `reference_integer_ops::DepthwiseConvPerChannel`.
///
/// `filter` is `1HWO` int8 (symmetric, per-channel); `bias` int32, one per output channel.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_depthwise_conv2d_s8`]) hold: `input.len() == N*H*W*C`, `filter.len() == FH*FW*O`,
/// `output.len() == N*OH*OW*O` with `O == C * depth_multiplier`, the output's `N` the input's;
/// `requant` and `bias` have `O` entries; strides and dilations are at least 1.
///
/// With cfg `stowplan_dsp` (Armv7E-M) depth multiplier 1 or a multiple of four without
/// dilation (channels a multiple of four) runs blocked, four channels at once with the DSP
/// extension's instructions (`dsp`); the outputs are the same.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn depthwise_conv2d_s8(
    p: &ConvS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_depthwise_conv2d_s8(
        p,
        input.len(),
        filter.len(),
        bias.map(<[i32]>::len),
        output.len(),
    )?;
    proven::depthwise_conv2d_s8(p, input, filter, bias, output);
    Ok(())
}

/// [`depthwise_conv2d_s8`]'s body on a part of its geometry, inlined where it is called (as
/// `conv2d_s8_part`).
#[inline(always)]
pub(super) fn depthwise_conv2d_s8_part(
    p: &ConvS8,
    part: Part,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) {
    depthwise_conv2d_s8_part_with::<{ kernel::ANY }>(p, part, input, filter, bias, output);
}

/// [`depthwise_conv2d_s8_part`] with kernel `K` ([`kernel`]): on targets without the DSP
/// extension, and for what the kernel does not take, the portable loop.
#[inline(always)]
pub(super) fn depthwise_conv2d_s8_part_with<const K: u8>(
    p: &ConvS8,
    part: Part,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) {
    #[cfg(stowplan_dsp)]
    if dsp::depthwise_s8::<K>(p, part, input, filter, bias, output) {
        return;
    }
    depthwise_conv2d_s8_portable(p, part, input, filter, bias, output);
}

/// The one-buffer walk of kernel `K` where it has one of its own: the taps kernel
/// ([`kernel::TAPS`]) runs the driver's chunks with its set-up made once for the op
/// (`dsp::depthwise_taps_on_one_buffer_s8`). Returns `true` when it ran the op, `false` (at
/// compile time for every other kernel) when the driver runs it.
#[inline(always)]
pub(super) fn depthwise_conv2d_s8_own_walk<const K: u8>(
    p: &ConvS8,
    buf: &mut [i8],
    at: (usize, usize),
    filter: &[i8],
    bias: Option<&[i32]>,
) -> bool {
    #[cfg(stowplan_dsp)]
    if K & kernel::KERNEL_BITS == kernel::TAPS {
        return dsp::depthwise_taps_on_one_buffer_s8::<K>(p, buf, at, filter, bias);
    }
    let _ = (p, buf, at, filter, bias);
    false
}

/// [`depthwise_conv2d_s8`]'s general loop nest (every shape). With the DSP kernels it is their
/// fallback for the shapes they decline, a function of its own: inlined, its accumulators
/// would take stack in every caller's frame (the overlapped entry's, on the stack's deepest
/// path) though the models' shapes never run it.
#[cfg_attr(not(stowplan_dsp), inline(always))]
#[cfg_attr(stowplan_dsp, inline(never))]
pub(super) fn depthwise_conv2d_s8_portable(
    p: &ConvS8,
    part: Part,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) {
    let input_offset = p.input_offset;
    depthwise_loops(
        &p.geometry,
        part,
        input,
        filter.len(),
        output,
        0_i32,
        |accs, i, f| {
            let f = run(filter, f, accs.len());
            if let [x] = *i {
                let x = i32::from(x).wrapping_add(input_offset);
                for (acc, &f) in accs.iter_mut().zip(f) {
                    *acc = acc.wrapping_add(i32::from(f).wrapping_mul(x));
                }
            } else {
                for ((acc, &x), &f) in accs.iter_mut().zip(i).zip(f) {
                    let x = i32::from(x).wrapping_add(input_offset);
                    *acc = acc.wrapping_add(i32::from(f).wrapping_mul(x));
                }
            }
        },
        |acc, out_c| {
            requantize_channel(
                acc,
                out_c,
                bias,
                p.requant,
                p.output_offset,
                p.act_min,
                p.act_max,
            )
        },
    );
}

/// int8 DEPTHWISE_CONV_2D with an int4 filter: TFLM's `DepthwiseConvEval` for `kTfLiteInt4`
/// weights, which unpacks the filter (`UnpackDenseInt4IntoInt8`) and runs
/// `reference_integer_ops::DepthwiseConvPerChannel`; here each weight is unpacked where it is
/// read, with the same sums.
///
/// `filter` is the packed `1HWO` int4 buffer, two weights per byte (low nibble first).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_depthwise_conv2d_s8_i4`]) hold: as [`depthwise_conv2d_s8`]'s, with
/// `filter.len() == ceil(FH*FW*O / 2)`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn depthwise_conv2d_s8_i4(
    p: &ConvS8,
    input: &[i8],
    filter: &[u8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_depthwise_conv2d_s8_i4(
        p,
        input.len(),
        filter.len(),
        bias.map(<[i32]>::len),
        output.len(),
    )?;
    proven::depthwise_conv2d_s8_i4(p, input, filter, bias, output);
    Ok(())
}

/// [`depthwise_conv2d_s8_i4`] on a part of its geometry (the overlapped driver's chunks of pixels).
#[inline(always)]
pub(super) fn depthwise_conv2d_s8_i4_part(
    p: &ConvS8,
    part: Part,
    input: &[i8],
    filter: &[u8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) {
    let g = &p.geometry;
    let elements = int4_elements(
        filter,
        product(&[g.filter[0], g.filter[1], g.filter[2], g.filter[3]]),
    );
    let input_offset = p.input_offset;
    depthwise_loops(
        g,
        part,
        input,
        elements,
        output,
        0_i32,
        |accs, i, f| {
            for (k, acc) in accs.iter_mut().enumerate() {
                let x = match *i {
                    [x] => x,
                    _ => super::shared::at(i, k),
                };
                let x = i32::from(x).wrapping_add(input_offset);
                let w = i32::from(int4_at(filter, f + k));
                *acc = acc.wrapping_add(w.wrapping_mul(x));
            }
        },
        |acc, out_c| {
            requantize_channel(
                acc,
                out_c,
                bias,
                p.requant,
                p.output_offset,
                p.act_min,
                p.act_max,
            )
        },
    );
}

/// int16 DEPTHWISE_CONV_2D: TFLM's `reference_integer_ops::DepthwiseConvPerChannel` for 16-bit
/// input and 8-bit filter: `acc += (int64_t)filter * (int64_t)input` (no zero points), the
/// int64 bias, the 64-bit `MultiplyByQuantizedMultiplier`, clamp. TFLM has no 32-bit
/// accumulator variant here: its kernel reads any bias as int64.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions hold, as
/// [`depthwise_conv2d_s8`]'s.
///
/// With cfg `stowplan_dsp` (Armv7E-M) filters of up to 511 taps with any stride, padding,
/// dilation and depth multiplier run blocked, four channels at once with the DSP extension's
/// halfword multiply-accumulates (`dsp_s16`; a channel's sum of at most 511 products fits 32
/// bits exactly); the outputs are the same.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn depthwise_conv2d_s16(
    p: &ConvS16,
    input: &[i16],
    filter: &[i8],
    bias: Option<&[i64]>,
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_depthwise_conv2d_s16(
        p,
        input.len(),
        filter.len(),
        bias.map(<[i64]>::len),
        output.len(),
    )?;
    proven::depthwise_conv2d_s16(p, input, filter, bias, output);
    Ok(())
}

/// [`depthwise_conv2d_s16`] on a part of its geometry (the overlapped driver's chunks of pixels).
#[inline(always)]
pub(super) fn depthwise_conv2d_s16_part(
    p: &ConvS16,
    part: Part,
    input: &[i16],
    filter: &[i8],
    bias: Option<&[i64]>,
    output: &mut [i16],
) {
    let finish =
        |acc, out_c| requantize_channel_s16(acc, out_c, bias, p.requant, p.act_min, p.act_max);
    // Windows of up to 511 taps, any part: channels in blocks of four.
    #[cfg(stowplan_dsp)]
    if dsp_s16::depthwise_conv2d_s16(p, part, input, filter, output, finish) {
        return;
    }
    depthwise_loops(
        &p.geometry,
        part,
        input,
        filter.len(),
        output,
        0_i64,
        |accs, i, f| {
            let f = run(filter, f, accs.len());
            if let [x] = *i {
                for (acc, &f) in accs.iter_mut().zip(f) {
                    *acc = acc.wrapping_add(i64::from(f) * i64::from(x));
                }
            } else {
                for ((acc, &x), &f) in accs.iter_mut().zip(i).zip(f) {
                    *acc = acc.wrapping_add(i64::from(f) * i64::from(x));
                }
            }
        },
        finish,
    );
}

/// float DEPTHWISE_CONV_2D: TFLM's `reference_ops::DepthwiseConv` (float).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions hold, as
/// [`depthwise_conv2d_s8`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn depthwise_conv2d_f32(
    p: &ConvF32,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_depthwise_conv2d_f32(
        p,
        input.len(),
        filter.len(),
        bias.map(<[f32]>::len),
        output.len(),
    )?;
    proven::depthwise_conv2d_f32(p, input, filter, bias, output);
    Ok(())
}

/// [`depthwise_conv2d_f32`] on a part of its geometry (the overlapped driver's chunks of pixels).
#[inline(always)]
pub(super) fn depthwise_conv2d_f32_part(
    p: &ConvF32,
    part: Part,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
) {
    depthwise_loops(
        &p.geometry,
        part,
        input,
        filter.len(),
        output,
        0.0_f32,
        |totals, i, f| {
            let f = run(filter, f, totals.len());
            if let [x] = *i {
                for (total, &f) in totals.iter_mut().zip(f) {
                    *total += x * f;
                }
            } else {
                for ((total, &x), &f) in totals.iter_mut().zip(i).zip(f) {
                    *total += x * f;
                }
            }
        },
        |total, out_c| finish_f32(total, out_c, bias, p.act_min, p.act_max),
    );
}

#[cfg(test)]
mod tests {
    use super::super::Requant;
    use super::super::shared::testing::{geometry, pack};
    use super::*;

    static REQUANT: [Requant; 4] = [Requant {
        multiplier: 1 << 30,
        shift: -2,
    }; 4];

    #[test]
    fn int4_depthwise_equals_int8_of_the_unpacked_filter() {
        for dm in [1, 2] {
            let mut g = geometry([1, 3, 3, 4 / dm], [1, 2, 2, 4], [1, 2, 2, 4]);
            g.depth_multiplier = dm;
            let p = ConvS8 {
                geometry: g,
                input_offset: -5,
                output_offset: 9,
                requant: &REQUANT,
                act_min: -128,
                act_max: 127,
            };
            let weights: [i8; 16] = core::array::from_fn(|i| (i as i8 * 7 % 16) - 8);
            let (packed, used) = pack(&weights);
            let input: [i8; 36] = core::array::from_fn(|i| (i as i8).wrapping_mul(29));
            let n = 9 * (4 / dm);
            let (mut a, mut b) = ([0i8; 16], [0i8; 16]);
            depthwise_conv2d_s8(&p, &input[..n], &weights, Some(&[1, 2, 3, 4]), &mut a).unwrap();
            depthwise_conv2d_s8_i4(
                &p,
                &input[..n],
                &packed[..used],
                Some(&[1, 2, 3, 4]),
                &mut b,
            )
            .unwrap();
            assert_eq!(a, b, "depth multiplier {dm}");
            assert_ne!(a, [0; 16]);
        }
    }

    static ONE: [Requant; 1] = [Requant {
        multiplier: 1 << 30,
        shift: 1,
    }];

    #[test]
    fn int16_depthwise_sums_in_64_bits() {
        // A 2x1 window over one channel: 32767 * -128 + -32768 * 127 + bias 7, times 1.0,
        // clamped to the int16 range.
        let p = ConvS16 {
            geometry: geometry([1, 2, 1, 1], [1, 2, 1, 1], [1, 1, 1, 1]),
            requant: &ONE,
            act_min: -32768,
            act_max: 32767,
        };
        let mut out = [0i16; 1];
        depthwise_conv2d_s16(&p, &[32767, -32768], &[-128, 127], Some(&[7]), &mut out).unwrap();
        assert_eq!(out, [-32768]);
        let mut out = [0i16; 1];
        depthwise_conv2d_s16(&p, &[100, -3], &[-128, 127], None, &mut out).unwrap();
        assert_eq!(out, [-12800 - 381]);
    }
}
