//! CONV_2D: TFLM's `reference_integer_ops::ConvPerChannel` and `reference_ops::Conv` (float),
//! and what DEPTHWISE_CONV_2D ([`super::depthwise_conv`]) shares with it: the geometry, the
//! parameters, the window arithmetic and the epilogues.
//!
//! Every output value is the sum TFLM computes, over the same products in the same order
//! (float sums round identically); only the order in which outputs are computed and how
//! products are fetched differ: CONV_2D takes each filter row's valid taps as one contiguous
//! run of input channels (or of whole pixels), so it vectorises. Outputs are written in
//! memory order (batch, y, x, channel).

use super::{Requant, activation_f32, clamp_to_i8, dot_s8, fixed, sized, sized_mut};

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
/// matching input and filter elements: one run per filter row when the valid taps of a row
/// are adjacent whole pixels (one group, no horizontal dilation), else one per tap.
/// `finish` turns an output channel's accumulator into the output value.
///
/// Returns without writing if the slices are shorter than the geometry says.
#[inline(always)]
fn conv_loops<T, A: Copy, O>(
    g: &ConvGeometry,
    input: &[T],
    filter: &[T],
    output: &mut [O],
    zero: A,
    mut dot: impl FnMut(A, &[T], &[T]) -> A,
    mut finish: impl FnMut(A, usize) -> O,
) {
    let Some((filter_input_depth, filters_per_group)) = conv_groups(g) else {
        return;
    };
    let [batches, input_h, input_w, input_d] = g.input;
    let [output_d, filter_h, filter_w, _] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    let (Some(input), Some(filter), Some(output)) = (
        sized(input, &[batches, input_h, input_w, input_d]),
        sized(filter, &[output_d, filter_h, filter_w, filter_input_depth]),
        sized_mut(output, &[batches, output_h, output_w, output_d]),
    ) else {
        return;
    };
    // Sizes below are at most the slices' lengths, so no index arithmetic overflows.
    let filter_size = filter_h * filter_w * filter_input_depth;
    let whole_rows = filter_input_depth == input_d && g.dilation_w == 1;
    let mut out = output.iter_mut();
    for batch in 0..batches {
        for out_y in 0..output_h {
            let in_y_origin = origin(out_y, g.stride_h, g.pad_h);
            for out_x in 0..output_w {
                let in_x_origin = origin(out_x, g.stride_w, g.pad_w);
                let (x_start, x_end) = valid_taps(in_x_origin, filter_w, input_w);
                for out_c in 0..output_d {
                    let group_base = out_c / filters_per_group * filter_input_depth;
                    let start = out_c * filter_size;
                    let out_filter = filter.get(start..start + filter_size).unwrap_or(&[]);
                    let mut acc = zero;
                    for filter_y in 0..filter_h {
                        let Some(in_y) = inside(in_y_origin, g.dilation_h, filter_y, input_h)
                        else {
                            continue;
                        };
                        let row = (batch * input_h + in_y) * input_w;
                        let filter_row = filter_y * filter_w;
                        if whole_rows {
                            if x_start == x_end {
                                continue;
                            }
                            // Taps x_start..x_end read input pixels in_x_origin + x_start.. .
                            let in_x = in_x_origin.wrapping_add(x_start as isize) as usize;
                            let len = (x_end - x_start) * input_d;
                            let i = (row + in_x) * input_d;
                            let f = (filter_row + x_start) * filter_input_depth;
                            if let (Some(i), Some(f)) =
                                (input.get(i..i + len), out_filter.get(f..f + len))
                            {
                                acc = dot(acc, i, f);
                            }
                            continue;
                        }
                        for filter_x in 0..filter_w {
                            let Some(in_x) = inside(in_x_origin, g.dilation_w, filter_x, input_w)
                            else {
                                continue;
                            };
                            let i = (row + in_x) * input_d + group_base;
                            let f = (filter_row + filter_x) * filter_input_depth;
                            if let (Some(i), Some(f)) = (
                                input.get(i..i + filter_input_depth),
                                out_filter.get(f..f + filter_input_depth),
                            ) {
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
    let (products, filter_sum) = dot_s8(input, filter);
    products.wrapping_add(filter_sum.wrapping_mul(input_offset))
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
pub fn conv2d_s8(p: &ConvS8, input: &[i8], filter: &[i8], bias: Option<&[i32]>, output: &mut [i8]) {
    let input_offset = p.input_offset;
    conv_loops(
        &p.geometry,
        input,
        filter,
        output,
        0_i32,
        |acc, i, f| acc.wrapping_add(dot_offset_s8(i, f, input_offset)),
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
    conv_loops(
        &p.geometry,
        input,
        filter,
        output,
        0.0_f32,
        |mut total, i, f| {
            for (&x, &f) in i.iter().zip(f) {
                total += x * f;
            }
            total
        },
        |total, out_c| finish_f32(total, out_c, bias, p.act_min, p.act_max),
    );
}
