//! CONV_2D: TFLM's `reference_integer_ops::ConvPerChannel` and `reference_ops::Conv` (float),
//! and what DEPTHWISE_CONV_2D ([`super::depthwise_conv`]) shares with it: the geometry, the
//! parameters, the window arithmetic and the epilogues.
//!
//! Every output value is the sum TFLM computes, over the same products in the same order
//! (float sums round identically); only the order in which outputs are computed and how
//! products are fetched differ: CONV_2D takes each filter row's valid taps as one contiguous
//! run of input channels (or of whole pixels), so it vectorises. Outputs are written in
//! memory order (batch, y, x, channel).

#[cfg(not(stowplan_dsp))]
use super::dot_s8;
use super::{Requant, activation_f32, at, clamp_to_i8, fixed, product, sized_mut};

/// NHWC geometry of CONV_2D / DEPTHWISE_CONV_2D.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvGeometry {
    /// Input shape `[N, H, W, C]`.
    pub input: [usize; 4],
    /// Filter shape: CONV_2D `[O, H, W, I]` (`I` may be a divisor of `C`: grouped
    /// convolution); DEPTHWISE_CONV_2D `[1, H, W, O]`.
    pub filter: [usize; 4],
    /// Output shape `[N, H, W, C]`.
    pub output: [usize; 4],
    /// Vertical stride.
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Vertical dilation factor.
    pub dilation_h: usize,
    /// Horizontal dilation factor.
    pub dilation_w: usize,
    /// TFLM's `padding_values.height` (rows of implicit zeros above the input).
    pub pad_h: usize,
    /// TFLM's `padding_values.width` (columns of implicit zeros left of the input).
    pub pad_w: usize,
    /// DEPTHWISE_CONV_2D only: output channels per input channel (1 for CONV_2D).
    pub depth_multiplier: usize,
}

/// Parameters of an int8 CONV_2D or DEPTHWISE_CONV_2D (per-channel quantised filter).
#[derive(Clone, Copy, Debug)]
pub struct ConvS8 {
    /// The geometry.
    pub geometry: ConvGeometry,
    /// Minus the input zero point.
    pub input_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// One multiplier per output channel (TFLM's `per_channel_output_multiplier` / `_shift`).
    pub requant: &'static [Requant],
    /// Lower clamp of the quantised output (fused activation).
    pub act_min: i32,
    /// Upper clamp of the quantised output (fused activation).
    pub act_max: i32,
}

/// Parameters of a float CONV_2D or DEPTHWISE_CONV_2D.
#[derive(Clone, Copy, Debug)]
pub struct ConvF32 {
    /// The geometry.
    pub geometry: ConvGeometry,
    /// Lower clamp of the output (fused activation).
    pub act_min: f32,
    /// Upper clamp of the output (fused activation).
    pub act_max: f32,
}

/// The input coordinate `origin + dilation * k` if it lies in `0..size`.
#[inline(always)]
pub(super) fn inside(origin: isize, dilation: usize, k: usize, size: usize) -> Option<usize> {
    let at = origin.wrapping_add(dilation.wrapping_mul(k) as isize);
    if at >= 0 && (at as usize) < size {
        Some(at as usize)
    } else {
        None
    }
}

/// `out * stride - pad`, the window's origin in the input.
#[inline(always)]
pub(super) fn origin(out: usize, stride: usize, pad: usize) -> isize {
    (out.wrapping_mul(stride) as isize).wrapping_sub(pad as isize)
}

/// Which part of an op's output one kernel call computes, for the overlapped driver's chunks
/// of pixels ([`super::overlap`]): the call's geometry has the op's input rows it reads (all
/// columns) and the output pixels it computes; those are the op's output columns `x0..` of
/// its row, and the input slice starts `skip` pixels into the geometry's input (the pixels
/// before it are not read, and may already hold output). [`Part::WHOLE`]: the geometry's own
/// output and input, as every kernel's public entry takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Part {
    /// The op's output column of the call's output column 0.
    pub x0: usize,
    /// Input pixels missing at the start of the call's input slice.
    pub skip: usize,
}

impl Part {
    /// The whole geometry: columns from 0, no pixel skipped.
    pub const WHOLE: Self = Self { x0: 0, skip: 0 };

    /// `input` cut to the input shape `dims` less the skipped pixels, `None` if shorter.
    #[inline(always)]
    pub fn input<'a, T>(self, input: &'a [T], dims: &[usize; 4]) -> Option<&'a [T]> {
        let skipped = self.skip.checked_mul(dims[3])?;
        input.get(..product(dims)?.checked_sub(skipped)?)
    }

    /// The window's origin in the input of the call's output column `out_x`.
    #[inline(always)]
    pub fn origin_x(self, out_x: usize, stride: usize, pad: usize) -> isize {
        origin(self.x0.wrapping_add(out_x), stride, pad)
    }

    /// The index in the call's slice of the geometry's input pixel `pixel` (past the slice's
    /// end, so never read, for a skipped one).
    #[inline(always)]
    pub fn pixel(self, pixel: usize) -> usize {
        pixel.wrapping_sub(self.skip)
    }
}

/// The taps `start..end` of an undilated window of `filter` taps at `origin` that lie in
/// `0..size` (empty if none do).
#[inline(always)]
pub(super) fn valid_taps(origin: isize, filter: usize, size: usize) -> (usize, usize) {
    let start = if origin < 0 { origin.unsigned_abs() } else { 0 };
    let limit = (size as isize).wrapping_sub(origin);
    let end = if limit < 0 {
        0
    } else {
        filter.min(limit as usize)
    };
    (start, end.max(start))
}

/// The sizes CONV_2D needs: `(groups' filter input depth, filters per group)`, or `None` for a
/// zero dimension that TFLM would divide by or a group past the input's channels.
fn conv_groups(g: &ConvGeometry) -> Option<(usize, usize)> {
    let filter_input_depth = g.filter[3];
    let groups = g.input[3].checked_div(filter_input_depth)?;
    let filters_per_group = g.filter[0].checked_div(groups)?;
    if filters_per_group == 0 {
        return None;
    }
    // The last output channel's group must lie inside the input pixel.
    let last_group = (g.filter[0] - 1) / filters_per_group;
    if (last_group + 1).checked_mul(filter_input_depth)? > g.input[3] {
        return None;
    }
    Some((filter_input_depth, filters_per_group))
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
        part.input(input, &[batches, input_h, input_w, input_d]),
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

/// The run of `len` filter elements from `start` of a slice filter (empty past its end).
#[inline(always)]
pub(super) fn run<T>(filter: &[T], start: usize, len: usize) -> &[T] {
    match filter.get(start..start.saturating_add(len)) {
        Some(run) => run,
        None => &[],
    }
}

/// Element `index` of a packed int4 tensor as TFLM's `UnpackDenseInt4IntoInt8` unpacks it: two
/// per byte, the low nibble first, each sign-extended (`static_cast<int8_t>(byte << 4) >> 4`
/// and `byte >> 4`); 0 past the end.
#[inline(always)]
pub(super) fn int4_at(packed: &[u8], index: usize) -> i8 {
    let byte = at(packed, index / 2) as i8;
    if index.is_multiple_of(2) {
        byte.wrapping_shl(4) >> 4
    } else {
        byte >> 4
    }
}

/// The element count a packed int4 buffer backs for a tensor of `elements` elements: the count
/// if the buffer holds at least `ceil(elements / 2)` bytes, else 0 (nothing is read).
#[inline(always)]
pub(super) fn int4_elements(packed: &[u8], elements: Option<usize>) -> usize {
    match elements {
        Some(n) if packed.len() >= n.div_ceil(2) => n,
        _ => 0,
    }
}

/// The int8 epilogue of TFLM's per-channel kernels: add the bias, requantise with the output
/// channel's multiplier, add the output offset, clamp (`max` then `min`), narrow.
#[inline(always)]
pub(super) fn requantize_channel(
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

/// TFLM's `sum(filter * (input + input_offset))` over a run, as `sum(filter * input) +
/// input_offset * sum(filter)` (equal modulo 2^32: the int32 accumulator wraps).
#[inline(always)]
fn dot_offset_s8(input: &[i8], filter: &[i8], input_offset: i32) -> i32 {
    #[cfg(stowplan_dsp)]
    return super::simd::dot_offset_s8(input, filter, input_offset);
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
/// # Preconditions
///
/// `input.len() == N*H*W*C`, `filter.len() == O*FH*FW*I`, `output.len() == N*OH*OW*O` with the
/// geometry's shapes, the output's `N` equal to the input's and its channels `O`; `I` divides
/// `C` and the group count `C / I` divides `O`; `requant` and `bias` have `O` entries.
///
/// With cfg `stowplan_dsp` (Armv7E-M) a 1 x 1 filter with stride 1 and no padding runs as a
/// blocked matrix product with the DSP extension's instructions (`simd`), and every other
/// shape with one group (3 x 3, 5 x 5, strided, padded, dilated, the first layers' few input
/// channels) blocked too (`simd_conv`): windows of up to 80 values gathered and widened on the
/// stack, four output pixels x 1 output channel at a time; larger ones in blocks of 2 adjacent
/// output pixels x 2 output channels over the windows' runs of input values (border pixels
/// 1 x 2). Grouped convolution sums four elements per step with them. The outputs are the same.
pub fn conv2d_s8(p: &ConvS8, input: &[i8], filter: &[i8], bias: Option<&[i32]>, output: &mut [i8]) {
    conv2d_s8_part(p, Part::WHOLE, input, filter, bias, output);
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
    // The blocked 1 x 1 kernel takes whole geometries (the driver's pointwise chunks are).
    #[cfg(stowplan_dsp)]
    if part == Part::WHOLE && super::simd::conv1x1_s8(p, input, filter, bias, output) {
        return;
    }
    // Every other shape with one group, on any part: blocked windows.
    #[cfg(stowplan_dsp)]
    if super::simd_conv::conv_s8(p, part, input, filter, bias, output) {
        return;
    }
    conv2d_s8_portable(p, part, input, filter, bias, output);
}

/// [`conv2d_s8`]'s general loop nest (every shape).
#[inline(always)]
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
/// # Preconditions
///
/// As [`conv2d_s8`], with `filter.len() == ceil(O*FH*FW*I / 2)`.
pub fn conv2d_s8_i4(
    p: &ConvS8,
    input: &[i8],
    filter: &[u8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) {
    conv2d_s8_i4_part(p, Part::WHOLE, input, filter, bias, output);
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

/// Parameters of an int16 CONV_2D or DEPTHWISE_CONV_2D (int16 activations, int8 per-channel
/// filter). TFLM's int16 kernels take no zero points (int16 is quantised symmetrically): the
/// input and output offsets are not applied.
#[derive(Clone, Copy, Debug)]
pub struct ConvS16 {
    /// The geometry.
    pub geometry: ConvGeometry,
    /// One multiplier per output channel (TFLM's `per_channel_output_multiplier` / `_shift`).
    pub requant: &'static [Requant],
    /// Lower clamp of the quantised output (fused activation).
    pub act_min: i32,
    /// Upper clamp of the quantised output (fused activation).
    pub act_max: i32,
}

/// The int16 epilogue of TFLM's 64-bit per-channel kernels: add the bias, requantise with the
/// output channel's multiplier (the `int64_t` `MultiplyByQuantizedMultiplier`), clamp (`max`
/// then `min`), narrow (the C++ `static_cast<int16_t>`).
#[inline(always)]
pub(super) fn requantize_channel_s16(
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
pub(super) fn requantize_channel_s16_acc32(
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
pub(super) fn clamp_to_i16(acc: i32, min: i32, max: i32) -> i16 {
    let acc = if acc < min { min } else { acc };
    let acc = if acc > max { max } else { acc };
    acc as i16
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
/// # Preconditions
///
/// As [`conv2d_s8`].
///
/// With cfg `stowplan_dsp` (Armv7E-M) every shape runs blocked with the DSP extension's
/// instructions (`simd_s16`: two output channels at a time, two multiply-accumulates per
/// `SMLALD`); the outputs are the same.
pub fn conv2d_s16(
    p: &ConvS16,
    input: &[i16],
    filter: &[i8],
    bias: Option<&[i64]>,
    output: &mut [i16],
) {
    conv2d_s16_part(p, Part::WHOLE, input, filter, bias, output);
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
    if super::simd_s16::conv2d_s16::<i64>(&p.geometry, part, input, filter, output, finish) {
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
/// # Preconditions
///
/// As [`conv2d_s8`].
///
/// With cfg `stowplan_dsp` (Armv7E-M) every shape runs blocked as [`conv2d_s16`], with `SMLAD`
/// (its sum wraps as TFLM's); the outputs are the same.
pub fn conv2d_s16_acc32(
    p: &ConvS16,
    input: &[i16],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i16],
) {
    conv2d_s16_acc32_part(p, Part::WHOLE, input, filter, bias, output);
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
    if super::simd_s16::conv2d_s16::<i32>(&p.geometry, part, input, filter, output, finish) {
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

/// The float epilogue: `ActivationFunctionWithMinMax(total + bias)`.
#[inline(always)]
pub(super) fn finish_f32(
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

/// float CONV_2D: TFLM's `reference_ops::Conv` (float): `total += input * filter` in loop
/// order, then `ActivationFunctionWithMinMax(total + bias)`.
///
/// # Preconditions
///
/// As [`conv2d_s8`].
pub fn conv2d_f32(
    p: &ConvF32,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
) {
    conv2d_f32_part(p, Part::WHOLE, input, filter, bias, output);
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
pub(super) mod tests {
    use super::*;

    pub(in crate::kernels) fn geometry(
        input: [usize; 4],
        filter: [usize; 4],
        output: [usize; 4],
    ) -> ConvGeometry {
        ConvGeometry {
            input,
            filter,
            output,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_h: 0,
            pad_w: 0,
            depth_multiplier: 1,
        }
    }

    /// Up to 64 int4 values packed two to a byte, the first in the low nibble, and the number
    /// of bytes used.
    pub(in crate::kernels) fn pack(values: &[i8]) -> ([u8; 32], usize) {
        let mut bytes = [0u8; 32];
        for (i, &v) in values.iter().enumerate() {
            let nibble = (v as u8) & 0x0f;
            bytes[i / 2] |= if i.is_multiple_of(2) {
                nibble
            } else {
                nibble << 4
            };
        }
        (bytes, values.len().div_ceil(2))
    }

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
        conv2d_s8(&p, &input, &weights, Some(&bias), &mut a);
        conv2d_s8_i4(&p, &input, &packed[..used], Some(&bias), &mut b);
        assert_eq!(a, b);
        assert_ne!(a, [0; 8]);
        // A packed buffer one byte short writes nothing.
        let mut c = [5i8; 8];
        conv2d_s8_i4(&p, &input, &packed[1..used], Some(&bias), &mut c);
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
        );
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
        );
        let wrapped = i32::MAX.wrapping_add(8_322_818);
        assert_eq!(
            i32::from(out32[0]),
            fixed::multiply_by_quantized_multiplier(wrapped, 1 << 30, -20)
        );
    }
}
