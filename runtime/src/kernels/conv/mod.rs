//! CONV_2D: TFLM's `reference_integer_ops::ConvPerChannel` and `reference_ops::Conv` (float),
//! and what DEPTHWISE_CONV_2D ([`super::depthwise_conv`]) shares with it: the geometry, the
//! parameters, the window arithmetic and the epilogues.
//!
//! Every output value is the sum TFLM computes, over the same products in the same order
//! (float sums round identically); only the order in which outputs are computed and how
//! products are fetched differ: CONV_2D takes each filter row's valid taps as one contiguous
//! run of input channels (or of whole pixels), so it vectorises. Outputs are written in
//! memory order (batch, y, x, channel).

#[cfg(test)]
mod choice_tests;
#[cfg(any(stowplan_dsp, test))]
pub(crate) mod dsp;
pub(crate) mod in_place;
pub mod kernel;

use super::shared::check::{KernelError, check, elements, length, optional_length, require};
#[cfg(not(stowplan_dsp))]
use super::shared::dot_s8;
use super::shared::{
    ConvF32, ConvGeometry, ConvS8, ConvS16, Part, finish_f32, inside, int4_at, int4_elements,
    origin, product, requantize_channel, requantize_channel_s16, requantize_channel_s16_acc32, run,
    sized_mut, valid_taps,
};

/// The sizes CONV_2D needs: `(groups' filter input depth, filters per group)`, or `None` for a
/// zero dimension that TFLM would divide by or a group past the input's channels.
const fn conv_groups(g: &ConvGeometry) -> Option<(usize, usize)> {
    let filter_input_depth = g.filter[3];
    let Some(groups) = g.input[3].checked_div(filter_input_depth) else {
        return None;
    };
    let Some(filters_per_group) = g.filter[0].checked_div(groups) else {
        return None;
    };
    if filters_per_group == 0 {
        return None;
    }
    // The last output channel's group must lie inside the input pixel.
    let last_group = (g.filter[0] - 1) / filters_per_group;
    match (last_group + 1).checked_mul(filter_input_depth) {
        Some(end) if end <= g.input[3] => Some((filter_input_depth, filters_per_group)),
        _ => None,
    }
}

/// What every CONV_2D kernel needs of its geometry and of its input's and output's lengths:
/// shapes whose sizes do not overflow, the output's batches the input's and its channels the
/// filters', groups that divide the channels, strides and dilations of at least 1.
const fn check_conv(g: &ConvGeometry, input: usize, output: usize) -> Result<(), KernelError> {
    check!(length("input", elements(&g.input), input));
    check!(length("output", elements(&g.output), output));
    check!(require(
        g.output[0] == g.input[0],
        "the output's batches are not the input's"
    ));
    check!(require(
        g.output[3] == g.filter[0],
        "the output's channels are not the filter's output channels"
    ));
    check!(require(
        conv_groups(g).is_some(),
        "the filter's input depth does not divide the input's channels into groups that divide the output channels"
    ));
    require(
        g.stride_h >= 1 && g.stride_w >= 1 && g.dilation_h >= 1 && g.dilation_w >= 1,
        "a stride or a dilation is 0",
    )
}

/// [`conv2d_s8`]'s preconditions, on the lengths of its slices (`bias`: `None` for no
/// bias): what the entry checks before it runs, and what generated code asserts when the crate
/// compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_conv2d_s8(
    p: &ConvS8,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    let g = &p.geometry;
    check!(check_conv(g, input, output));
    check!(length("filter", elements(&g.filter), filter));
    check!(length("requant", Some(g.filter[0]), p.requant.len()));
    optional_length("bias", Some(g.filter[0]), bias)
}

/// The preconditions of [`proven::conv2d_s8_with`] with kernel `K` (one of
/// [`kernel`]'s): [`check_conv2d_s8`]'s, and that the kernel takes the geometry
/// ([`kernel::conv2d_s8_takes`]). Generated code asserts it when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_conv2d_s8_with<const K: u8>(
    p: &ConvS8,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    check!(check_conv2d_s8(p, input, filter, bias, output));
    require(
        kernel::conv2d_s8_takes(K, p, bias.is_some()),
        "the chosen CONV_2D kernel does not take this geometry",
    )
}

/// The preconditions of [`proven::conv2d_s8_with_scratch`] with kernel `K` and scratch of
/// `scratch` words: [`check_conv2d_s8_with`]'s, and that the kernel takes scratch for the
/// geometry and `scratch` holds it ([`kernel::conv2d_s8_scratch`] words: a widened 1 x 1
/// kernel's pixel pair, the window kernel's whole windows of more than 144 values). Generated
/// code asserts it when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_conv2d_s8_with_scratch<const K: u8>(
    p: &ConvS8,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
    scratch: usize,
) -> Result<(), KernelError> {
    check!(check_conv2d_s8_with::<K>(p, input, filter, bias, output));
    scratch_holds::<K>(p, scratch)
}

/// That kernel `K` takes scratch for `p`'s geometry and `scratch` words hold it.
const fn scratch_holds<const K: u8>(p: &ConvS8, scratch: usize) -> Result<(), KernelError> {
    let words = kernel::conv2d_s8_scratch(K, &p.geometry);
    check!(require(
        words > 0,
        "the CONV_2D's kernel takes no scratch for this geometry",
    ));
    require(
        scratch >= words,
        "the CONV_2D's scratch is shorter than its kernel needs",
    )
}

/// [`conv2d_s8_i4`]'s preconditions, as [`check_conv2d_s8`]'s with the packed filter.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_conv2d_s8_i4(
    p: &ConvS8,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    let g = &p.geometry;
    check!(check_conv(g, input, output));
    let packed = match elements(&g.filter) {
        Some(n) => Some(n.div_ceil(2)),
        None => None,
    };
    check!(length("filter", packed, filter));
    check!(length("requant", Some(g.filter[0]), p.requant.len()));
    optional_length("bias", Some(g.filter[0]), bias)
}

/// [`conv2d_s16`]'s preconditions, as [`check_conv2d_s8`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_conv2d_s16(
    p: &ConvS16,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    let g = &p.geometry;
    check!(check_conv(g, input, output));
    check!(length("filter", elements(&g.filter), filter));
    check!(length("requant", Some(g.filter[0]), p.requant.len()));
    optional_length("bias", Some(g.filter[0]), bias)
}

/// [`conv2d_s16_acc32`]'s preconditions, as [`check_conv2d_s16`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_conv2d_s16_acc32(
    p: &ConvS16,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    check_conv2d_s16(p, input, filter, bias, output)
}

/// [`conv2d_f32`]'s preconditions, as [`check_conv2d_s8`]'s (no requantisation).
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_conv2d_f32(
    p: &ConvF32,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    let g = &p.geometry;
    check!(check_conv(g, input, output));
    check!(length("filter", elements(&g.filter), filter));
    optional_length("bias", Some(g.filter[0]), bias)
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    use super::{ConvF32, ConvS8, ConvS16, Part};

    /// [`conv2d_s8`](super::conv2d_s8), its [`check`](super::check_conv2d_s8) proven.
    #[inline]
    pub fn conv2d_s8(
        p: &ConvS8,
        input: &[i8],
        filter: &[i8],
        bias: Option<&[i32]>,
        output: &mut [i8],
    ) {
        debug_assert!(
            super::check_conv2d_s8(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i32]>::len),
                output.len()
            )
            .is_ok()
        );
        super::conv2d_s8_part(p, Part::WHOLE, input, filter, bias, output);
    }

    /// [`conv2d_s8`](super::conv2d_s8) with its kernel chosen when the crate compiled (`K`,
    /// one of [`kernel`](super::kernel)'s, usually [`conv2d_s8_kernel`](super::kernel::conv2d_s8_kernel)'s
    /// choice): only that kernel is linked. Its [`check`](super::check_conv2d_s8_with) proven.
    #[inline]
    pub fn conv2d_s8_with<const K: u8>(
        p: &ConvS8,
        input: &[i8],
        filter: &[i8],
        bias: Option<&[i32]>,
        output: &mut [i8],
    ) {
        debug_assert!(
            super::check_conv2d_s8_with::<K>(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i32]>::len),
                output.len()
            )
            .is_ok()
        );
        super::conv2d_s8_part_with::<K>(p, Part::WHOLE, input, filter, bias, output);
    }

    /// [`conv2d_s8_with`] with kernel `K`'s working memory in `scratch` (planned in the arena,
    /// counted in the budget), not on the stack: a widened 1 x 1 kernel's pixel pair, the
    /// window kernel's whole windows (no slabs). Its
    /// [`check`](super::check_conv2d_s8_with_scratch) proven.
    #[inline]
    pub fn conv2d_s8_with_scratch<const K: u8>(
        p: &ConvS8,
        input: &[i8],
        filter: &[i8],
        bias: Option<&[i32]>,
        output: &mut [i8],
        scratch: &mut [u32],
    ) {
        debug_assert!(
            super::check_conv2d_s8_with_scratch::<K>(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i32]>::len),
                output.len(),
                scratch.len()
            )
            .is_ok()
        );
        #[cfg(stowplan_dsp)]
        if super::dsp::conv2d_s8_scratch_s8::<K>(p, input, filter, bias, output, scratch) {
            return;
        }
        let _ = &scratch;
        super::conv2d_s8_portable(p, Part::WHOLE, input, filter, bias, output);
    }

    /// [`conv2d_s8_i4`](super::conv2d_s8_i4), its [`check`](super::check_conv2d_s8_i4) proven.
    #[inline]
    pub fn conv2d_s8_i4(
        p: &ConvS8,
        input: &[i8],
        filter: &[u8],
        bias: Option<&[i32]>,
        output: &mut [i8],
    ) {
        debug_assert!(
            super::check_conv2d_s8_i4(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i32]>::len),
                output.len()
            )
            .is_ok()
        );
        super::conv2d_s8_i4_part(p, Part::WHOLE, input, filter, bias, output);
    }

    /// [`conv2d_s16`](super::conv2d_s16), its [`check`](super::check_conv2d_s16) proven.
    #[inline]
    pub fn conv2d_s16(
        p: &ConvS16,
        input: &[i16],
        filter: &[i8],
        bias: Option<&[i64]>,
        output: &mut [i16],
    ) {
        debug_assert!(
            super::check_conv2d_s16(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i64]>::len),
                output.len()
            )
            .is_ok()
        );
        super::conv2d_s16_part(p, Part::WHOLE, input, filter, bias, output);
    }

    /// [`conv2d_s16_acc32`](super::conv2d_s16_acc32), its [`check`](super::check_conv2d_s16_acc32)
    /// proven.
    #[inline]
    pub fn conv2d_s16_acc32(
        p: &ConvS16,
        input: &[i16],
        filter: &[i8],
        bias: Option<&[i32]>,
        output: &mut [i16],
    ) {
        debug_assert!(
            super::check_conv2d_s16_acc32(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i32]>::len),
                output.len()
            )
            .is_ok()
        );
        super::conv2d_s16_acc32_part(p, Part::WHOLE, input, filter, bias, output);
    }

    /// [`conv2d_f32`](super::conv2d_f32), its [`check`](super::check_conv2d_f32) proven.
    #[inline]
    pub fn conv2d_f32(
        p: &ConvF32,
        input: &[f32],
        filter: &[f32],
        bias: Option<&[f32]>,
        output: &mut [f32],
    ) {
        debug_assert!(
            super::check_conv2d_f32(
                p,
                input.len(),
                filter.len(),
                bias.map(<[f32]>::len),
                output.len()
            )
            .is_ok()
        );
        super::conv2d_f32_part(p, Part::WHOLE, input, filter, bias, output);
    }
}

/// Shared loop nest of CONV_2D. Per output (TFLM's order: batch, out_y, out_x, out_channel)
/// the products are TFLM's (filter_y, filter_x, in_channel) order, handed to `dot` as runs of
/// input elements with the index of their first filter element (the filter's storage is the
/// caller's: int8 or float slices, packed int4): one run per filter row when the valid taps of
/// a row are adjacent whole pixels (one group, no horizontal dilation), else one per tap.
/// `finish` turns an output channel's accumulator into the output value.
///
/// Returns without writing if the slices are shorter than the geometry says
/// (`filter_elements` is how many filter elements the caller's storage holds).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn conv_loops<I, A: Copy, O>(
    g: &ConvGeometry,
    part: Part,
    input: &[I],
    filter_elements: usize,
    output: &mut [O],
    zero: A,
    mut dot: impl FnMut(A, &[I], usize) -> A,
    mut finish: impl FnMut(A, usize) -> O,
) {
    let Some((filter_input_depth, filters_per_group)) = conv_groups(g) else {
        return;
    };
    let [batches, input_h, input_w, input_d] = g.input;
    let [output_d, filter_h, filter_w, _] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    let (Some(input), Some(filter_size), Some(output)) = (
        part.input(input, g),
        product(&[output_d, filter_h, filter_w, filter_input_depth])
            .filter(|&n| n <= filter_elements)
            .map(|_| filter_h * filter_w * filter_input_depth),
        sized_mut(output, &[batches, output_h, output_w, output_d]),
    ) else {
        return;
    };
    // Sizes below are at most the slices' lengths, so no index arithmetic overflows.
    let whole_rows = filter_input_depth == input_d && g.dilation_w == 1;
    let mut out = output.iter_mut();
    for batch in 0..batches {
        for out_y in 0..output_h {
            let in_y_origin = origin(out_y, g.stride_h, g.pad_h);
            for out_x in 0..output_w {
                let in_x_origin = part.origin_x(out_x, g.stride_w, g.pad_w);
                let (x_start, x_end) = valid_taps(in_x_origin, filter_w, input_w);
                for out_c in 0..output_d {
                    let group_base = out_c / filters_per_group * filter_input_depth;
                    let out_filter = out_c * filter_size;
                    let mut acc = zero;
                    for filter_y in 0..filter_h {
                        let Some(in_y) = inside(in_y_origin, g.dilation_h, filter_y, input_h)
                        else {
                            continue;
                        };
                        // The row's first pixel in the slice (wrapping for a skipped one: its
                        // reads then fall past the slice and are not made).
                        let row = part.pixel((batch * input_h + in_y) * input_w);
                        let filter_row = filter_y * filter_w;
                        if whole_rows {
                            if x_start == x_end {
                                continue;
                            }
                            // Taps x_start..x_end read input pixels in_x_origin + x_start.. .
                            let in_x = in_x_origin.wrapping_add(x_start as isize) as usize;
                            let len = (x_end - x_start) * input_d;
                            let i = row.wrapping_add(in_x).wrapping_mul(input_d);
                            let f = out_filter + (filter_row + x_start) * filter_input_depth;
                            if let Some(i) = input.get(i..i.wrapping_add(len)) {
                                acc = dot(acc, i, f);
                            }
                            continue;
                        }
                        for filter_x in 0..filter_w {
                            let Some(in_x) = inside(in_x_origin, g.dilation_w, filter_x, input_w)
                            else {
                                continue;
                            };
                            let i = row
                                .wrapping_add(in_x)
                                .wrapping_mul(input_d)
                                .wrapping_add(group_base);
                            let f = out_filter + (filter_row + filter_x) * filter_input_depth;
                            if let Some(i) = input.get(i..i.wrapping_add(filter_input_depth)) {
                                acc = dot(acc, i, f);
                            }
                        }
                    }
                    if let Some(o) = out.next() {
                        *o = finish(acc, out_c);
                    }
                }
            }
        }
    }
}

/// TFLM's `sum(filter * (input + input_offset))` over a run, as `sum(filter * input) +
/// input_offset * sum(filter)` (equal modulo 2^32: the int32 accumulator wraps).
#[inline(always)]
fn dot_offset_s8(input: &[i8], filter: &[i8], input_offset: i32) -> i32 {
    #[cfg(stowplan_dsp)]
    return super::shared::blocked::dot_offset_s8(input, filter, input_offset);
    #[cfg(not(stowplan_dsp))]
    {
        let (products, filter_sum) = dot_s8(input, filter);
        products.wrapping_add(filter_sum.wrapping_mul(input_offset))
    }
}

/// int8 CONV_2D: TFLM's `reference_integer_ops::ConvPerChannel`.
///
/// `filter` is OHWI int8 (symmetric, per-channel); `bias` int32, one per output channel.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_conv2d_s8`]) hold:
/// `input.len() == N*H*W*C`, `filter.len() == O*FH*FW*I`, `output.len() == N*OH*OW*O` with the
/// geometry's shapes, the output's `N` equal to the input's and its channels `O`; `I` divides
/// `C` and the group count `C / I` divides `O`; `requant` and `bias` have `O` entries; strides
/// and dilations are at least 1.
///
/// With cfg `stowplan_dsp` (Armv7E-M) a 1 x 1 filter with stride 1 and no padding runs as a
/// blocked matrix product with the DSP extension's instructions (`dsp::pointwise`), and every other
/// shape with one group (3 x 3, 5 x 5, strided, padded, dilated, the first layers' few input
/// channels) blocked too: short filter rows of first layers gathered (`dsp::gathered`), every
/// other window widened once per pair of output pixels into a buffer on the stack (592 bytes;
/// windows of more than 144 values in slabs, with 512 bytes of sums) and summed in blocks of
/// 2 pixels x 2 output channels (`dsp::window`). Grouped convolution sums four elements per
/// step with them. The outputs are the same.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn conv2d_s8(
    p: &ConvS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_conv2d_s8(
        p,
        input.len(),
        filter.len(),
        bias.map(<[i32]>::len),
        output.len(),
    )?;
    proven::conv2d_s8(p, input, filter, bias, output);
    Ok(())
}

/// [`conv2d_s8`]'s body on a part of its geometry, inlined where it is called: the overlapped
/// driver's chunks run it inside the driver's own function (so each op is one call of a kernel
/// function).
#[inline(always)]
pub(super) fn conv2d_s8_part(
    p: &ConvS8,
    part: Part,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) {
    conv2d_s8_part_with::<{ kernel::ANY }>(p, part, input, filter, bias, output);
}

/// [`conv2d_s8_part`] with kernel `K` ([`kernel`]): on targets without the DSP extension, and
/// for what the kernel does not take, the portable loop.
#[inline(always)]
pub(super) fn conv2d_s8_part_with<const K: u8>(
    p: &ConvS8,
    part: Part,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) {
    #[cfg(stowplan_dsp)]
    if dsp::conv2d_s8_part::<K>(p, part, input, filter, bias, output) {
        return;
    }
    conv2d_s8_portable(p, part, input, filter, bias, output);
}

/// The one-buffer walk of kernel `K` where it has one of its own: the widened 1 x 1 pixel
/// pairs ([`kernel::WIDENED_64`], [`kernel::WIDENED`]) and the window kernel's
/// ([`kernel::WINDOW`]) widen each pixel pair before writing its outputs, so they need no
/// chunks (and their buffers do not stack on the driver's frame). Returns `true` when it ran
/// the op: for a widened `K` always (the portable kernel through the driver where the widened
/// one declines), for the window kernel where it takes the layer and its placement (else the
/// driver runs its chunks); `false` for every other kernel, at compile time.
#[inline(always)]
pub(super) fn conv2d_s8_own_walk<const K: u8>(
    p: &ConvS8,
    buf: &mut [i8],
    at: (usize, usize),
    filter: &[i8],
    bias: Option<&[i32]>,
) -> bool {
    #[cfg(stowplan_dsp)]
    if kernel::widened_channels(K).is_some() {
        if !dsp::pointwise::widened_on_one_buffer_s8::<K>(p, buf, at, filter, bias, None) {
            in_place::proven_conv::conv2d_s8_with::<{ kernel::PORTABLE }>(
                p, buf, at.0, at.1, filter, bias,
            );
        }
        return true;
    }
    #[cfg(stowplan_dsp)]
    if K & kernel::KERNEL_BITS == kernel::WINDOW {
        return dsp::window::window_on_one_buffer_s8::<K>(p, buf, at, filter, bias, None);
    }
    let _ = (p, buf, at, filter, bias);
    false
}

/// [`conv2d_s8`]'s general loop nest (every shape). With the DSP kernels it is their fallback
/// for the shapes they decline, a function of its own: inlined, each kernel constant's entry
/// (generated code calls one per kernel a model runs) would carry a copy of it.
#[cfg_attr(not(stowplan_dsp), inline(always))]
#[cfg_attr(stowplan_dsp, inline(never))]
pub(super) fn conv2d_s8_portable(
    p: &ConvS8,
    part: Part,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) {
    let input_offset = p.input_offset;
    conv_loops(
        &p.geometry,
        part,
        input,
        filter.len(),
        output,
        0_i32,
        |acc, i, f| acc.wrapping_add(dot_offset_s8(i, run(filter, f, i.len()), input_offset)),
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

/// int8 CONV_2D with an int4 filter: TFLM's `ConvEval` for `kTfLiteInt4` weights, which unpacks
/// the filter (`UnpackDenseInt4IntoInt8`) and runs `reference_integer_ops::ConvPerChannel`;
/// here each weight is unpacked where it is read, with the same sums.
///
/// `filter` is the packed OHWI int4 buffer, two weights per byte (low nibble first).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions hold
/// ([`check_conv2d_s8_i4`]): as [`conv2d_s8`]'s, with `filter.len() == ceil(O*FH*FW*I / 2)`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn conv2d_s8_i4(
    p: &ConvS8,
    input: &[i8],
    filter: &[u8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_conv2d_s8_i4(
        p,
        input.len(),
        filter.len(),
        bias.map(<[i32]>::len),
        output.len(),
    )?;
    proven::conv2d_s8_i4(p, input, filter, bias, output);
    Ok(())
}

/// [`conv2d_s8_i4`] on a part of its geometry (the overlapped driver's chunks of pixels).
#[inline(always)]
pub(super) fn conv2d_s8_i4_part(
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
    conv_loops(
        g,
        part,
        input,
        elements,
        output,
        0_i32,
        |mut acc, i, f| {
            for (k, &x) in i.iter().enumerate() {
                let w = i32::from(int4_at(filter, f + k));
                acc = acc.wrapping_add(w.wrapping_mul(i32::from(x).wrapping_add(input_offset)));
            }
            acc
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

/// `sum(filter * input)` over a run, each product in `int32_t` (it fits: `|f * x| <= 2^22`)
/// added to a 64-bit accumulator, as TFLM's int16 kernels.
#[inline(always)]
fn dot_s16_i64(input: &[i16], filter: &[i8]) -> i64 {
    let mut acc: i64 = 0;
    for (&x, &f) in input.iter().zip(filter) {
        acc = acc.wrapping_add(i64::from(i32::from(f) * i32::from(x)));
    }
    acc
}

/// The same sum in a wrapping 32-bit accumulator (TFLM's `ConvPerChannel<int32_t>`).
#[inline(always)]
fn dot_s16_i32(input: &[i16], filter: &[i8]) -> i32 {
    let mut acc: i32 = 0;
    for (&x, &f) in input.iter().zip(filter) {
        acc = acc.wrapping_add(i32::from(f) * i32::from(x));
    }
    acc
}

/// int16 CONV_2D: TFLM's `reference_integer_ops::ConvPerChannel<int64_t>` (16-bit input, 8-bit
/// filter): `acc += filter * input` in 64 bits (no zero points), the int64 bias, the 64-bit
/// `MultiplyByQuantizedMultiplier`, clamp. TFLM takes this kernel for an int64 bias and for no
/// bias (a model whose options ask for int32 biases has none to add: see the planner).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions hold, as
/// [`conv2d_s8`]'s.
///
/// With cfg `stowplan_dsp` (Armv7E-M) every shape runs blocked with the DSP extension's
/// instructions (`dsp::s16`: two output channels at a time, two multiply-accumulates per
/// `SMLALD`); the outputs are the same.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn conv2d_s16(
    p: &ConvS16,
    input: &[i16],
    filter: &[i8],
    bias: Option<&[i64]>,
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_conv2d_s16(
        p,
        input.len(),
        filter.len(),
        bias.map(<[i64]>::len),
        output.len(),
    )?;
    proven::conv2d_s16(p, input, filter, bias, output);
    Ok(())
}

/// [`conv2d_s16`] on a part of its geometry (the overlapped driver's chunks of pixels).
#[inline(always)]
pub(super) fn conv2d_s16_part(
    p: &ConvS16,
    part: Part,
    input: &[i16],
    filter: &[i8],
    bias: Option<&[i64]>,
    output: &mut [i16],
) {
    let finish =
        |acc, out_c| requantize_channel_s16(acc, out_c, bias, p.requant, p.act_min, p.act_max);
    // Every shape and part: output channels in pairs, `SMLALD`.
    #[cfg(stowplan_dsp)]
    if dsp::s16::conv2d_s16::<i64>(&p.geometry, part, input, filter, output, finish) {
        return;
    }
    conv_loops(
        &p.geometry,
        part,
        input,
        filter.len(),
        output,
        0_i64,
        |acc, i, f| acc.wrapping_add(dot_s16_i64(i, run(filter, f, i.len()))),
        finish,
    );
}

/// int16 CONV_2D with an int32 bias: TFLM's `reference_integer_ops::ConvPerChannel<int32_t>`,
/// the sum in a wrapping 32-bit accumulator and the 32-bit `MultiplyByQuantizedMultiplier`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions hold, as
/// [`conv2d_s8`]'s.
///
/// With cfg `stowplan_dsp` (Armv7E-M) every shape runs blocked as [`conv2d_s16`], with `SMLAD`
/// (its sum wraps as TFLM's); the outputs are the same.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn conv2d_s16_acc32(
    p: &ConvS16,
    input: &[i16],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_conv2d_s16_acc32(
        p,
        input.len(),
        filter.len(),
        bias.map(<[i32]>::len),
        output.len(),
    )?;
    proven::conv2d_s16_acc32(p, input, filter, bias, output);
    Ok(())
}

/// [`conv2d_s16_acc32`] on a part of its geometry (the overlapped driver's chunks of pixels).
#[inline(always)]
pub(super) fn conv2d_s16_acc32_part(
    p: &ConvS16,
    part: Part,
    input: &[i16],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i16],
) {
    let finish = |acc, out_c| {
        requantize_channel_s16_acc32(acc, out_c, bias, p.requant, p.act_min, p.act_max)
    };
    // Every shape and part: output channels in pairs, `SMLAD`.
    #[cfg(stowplan_dsp)]
    if dsp::s16::conv2d_s16::<i32>(&p.geometry, part, input, filter, output, finish) {
        return;
    }
    conv_loops(
        &p.geometry,
        part,
        input,
        filter.len(),
        output,
        0_i32,
        |acc, i, f| acc.wrapping_add(dot_s16_i32(i, run(filter, f, i.len()))),
        finish,
    );
}

/// float CONV_2D: TFLM's `reference_ops::Conv` (float): `total += input * filter` in loop
/// order, then `ActivationFunctionWithMinMax(total + bias)`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions hold, as
/// [`conv2d_s8`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn conv2d_f32(
    p: &ConvF32,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_conv2d_f32(
        p,
        input.len(),
        filter.len(),
        bias.map(<[f32]>::len),
        output.len(),
    )?;
    proven::conv2d_f32(p, input, filter, bias, output);
    Ok(())
}

/// [`conv2d_f32`] on a part of its geometry (the overlapped driver's chunks of pixels).
#[inline(always)]
pub(super) fn conv2d_f32_part(
    p: &ConvF32,
    part: Part,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
) {
    conv_loops(
        &p.geometry,
        part,
        input,
        filter.len(),
        output,
        0.0_f32,
        |mut total, i, f| {
            for (&x, &f) in i.iter().zip(run(filter, f, i.len())) {
                total += x * f;
            }
            total
        },
        |total, out_c| finish_f32(total, out_c, bias, p.act_min, p.act_max),
    );
}

#[cfg(test)]
mod tests {
    use super::super::shared::testing::{geometry, pack};
    use super::super::shared::{Requant, fixed};
    use super::*;

    #[test]
    fn int4_unpacks_low_nibble_first_sign_extended() {
        // TFLM's example: {0x12, 0x34} -> {2, 1, 4, 3}; 0xF8 -> {-8, -1}.
        let packed = [0x12, 0x34, 0xf8];
        let unpacked: [i8; 6] = core::array::from_fn(|i| int4_at(&packed, i));
        assert_eq!(unpacked, [2, 1, 4, 3, -8, -1]);
        assert_eq!(int4_at(&packed, 6), 0);
        assert_eq!(int4_elements(&packed, Some(5)), 5);
        assert_eq!(int4_elements(&packed, Some(6)), 6);
        assert_eq!(int4_elements(&packed, Some(7)), 0);
    }

    #[test]
    fn int64_multiplier_reduces_to_16_bits() {
        // 0.5 as (2^30, 0): (x * 2^14 + 2^14) >> 15.
        assert_eq!(
            fixed::multiply_by_quantized_multiplier_i64(100, 1 << 30, 0),
            50
        );
        assert_eq!(
            fixed::multiply_by_quantized_multiplier_i64(101, 1 << 30, 0),
            51
        );
        assert_eq!(
            fixed::multiply_by_quantized_multiplier_i64(-101, 1 << 30, 0),
            -50
        );
        // Multipliers from 0x7FFF0000 on reduce to 0x7FFF; shift 1 doubles.
        assert_eq!(
            fixed::multiply_by_quantized_multiplier_i64(1 << 20, i32::MAX, 1),
            ((((1_i64 << 20) * 0x7fff) + (1 << 13)) >> 14) as i32
        );
        // Past TFLM's range the shift counts wrap modulo 64 as on x86-64: shift 15 makes the
        // rounding term 1 << 63 and the final shift 0.
        assert_eq!(
            fixed::multiply_by_quantized_multiplier_i64(2, 1 << 30, 15),
            (2_i64 * 16384).wrapping_add(i64::MIN) as i32
        );
    }

    static HALF_OVER_8: [Requant; 2] = [Requant {
        multiplier: 1 << 30,
        shift: -3,
    }; 2];

    #[test]
    fn int4_conv_equals_int8_conv_of_the_unpacked_filter() {
        let weights: [i8; 2 * 2 * 2 * 3] = core::array::from_fn(|i| (i as i8 * 5 % 16) - 8);
        let (packed, used) = pack(&weights);
        let p = ConvS8 {
            geometry: geometry([1, 3, 3, 3], [2, 2, 2, 3], [1, 2, 2, 2]),
            input_offset: 7,
            output_offset: -3,
            requant: &HALF_OVER_8,
            act_min: -128,
            act_max: 127,
        };
        let input: [i8; 27] = core::array::from_fn(|i| (i as i8).wrapping_mul(37));
        let bias = [100, -1000];
        let (mut a, mut b) = ([0i8; 8], [0i8; 8]);
        conv2d_s8(&p, &input, &weights, Some(&bias), &mut a).unwrap();
        conv2d_s8_i4(&p, &input, &packed[..used], Some(&bias), &mut b).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, [0; 8]);
        // A packed buffer one byte short writes nothing.
        let mut c = [5i8; 8];
        assert!(conv2d_s8_i4(&p, &input, &packed[1..used], Some(&bias), &mut c).is_err());
        assert_eq!(c, [5; 8]);
    }

    static ONE_OVER_1024: [Requant; 1] = [Requant {
        multiplier: 1 << 30,
        shift: -9,
    }];
    static TINY: [Requant; 1] = [Requant {
        multiplier: 1 << 30,
        shift: -20,
    }];

    #[test]
    fn int16_conv_sums_in_64_bits_and_ignores_zero_points() {
        // One output: a 1x1 filter over 2 channels: 2 * 32767 * 127 = 8_322_818, minus 2^20.
        let p = ConvS16 {
            geometry: geometry([1, 1, 1, 2], [1, 1, 1, 2], [1, 1, 1, 1]),
            requant: &ONE_OVER_1024,
            act_min: i32::from(i16::MIN),
            act_max: i32::from(i16::MAX),
        };
        let mut out = [0i16; 1];
        conv2d_s16(
            &p,
            &[32767, 32767],
            &[127, 127],
            Some(&[-(1 << 20)]),
            &mut out,
        )
        .unwrap();
        let expect =
            fixed::multiply_by_quantized_multiplier_i64(8_322_818 - (1 << 20), 1 << 30, -9);
        assert_eq!(i32::from(out[0]), expect);
        // The 32-bit variant wraps its sum: 2^31 - 1 + 8_322_818 as int32.
        let p = ConvS16 {
            requant: &TINY,
            ..p
        };
        let mut out32 = [0i16; 1];
        conv2d_s16_acc32(
            &p,
            &[32767, 32767],
            &[127, 127],
            Some(&[i32::MAX]),
            &mut out32,
        )
        .unwrap();
        let wrapped = i32::MAX.wrapping_add(8_322_818);
        assert_eq!(
            i32::from(out32[0]),
            fixed::multiply_by_quantized_multiplier(wrapped, 1 << 30, -20)
        );
    }
}
