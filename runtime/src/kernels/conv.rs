//! CONV_2D and DEPTHWISE_CONV_2D: TFLM's `reference_integer_ops::ConvPerChannel`,
//! `reference_integer_ops::DepthwiseConvPerChannel`, `reference_ops::Conv` and
//! `reference_ops::DepthwiseConv` (float).

use super::{Requant, activation_f32, at, clamp_to_i8, fixed};

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
fn inside(origin: isize, dilation: usize, k: usize, size: usize) -> Option<usize> {
    let at = origin.wrapping_add(dilation.wrapping_mul(k) as isize);
    if at >= 0 && (at as usize) < size {
        Some(at as usize)
    } else {
        None
    }
}

/// `out * stride - pad`, the window's origin in the input.
#[inline(always)]
fn origin(out: usize, stride: usize, pad: usize) -> isize {
    (out.wrapping_mul(stride) as isize).wrapping_sub(pad as isize)
}

/// The sizes CONV_2D needs: `(groups' filter input depth, filters per group)`, or `None` for a
/// zero dimension that TFLM would divide by.
fn conv_groups(g: &ConvGeometry) -> Option<(usize, usize)> {
    let filter_input_depth = g.filter[3];
    let groups = g.input[3].checked_div(filter_input_depth)?;
    let filters_per_group = g.filter[0].checked_div(groups)?;
    if filters_per_group == 0 {
        return None;
    }
    Some((filter_input_depth, filters_per_group))
}

/// Shared loop nest of CONV_2D (TFLM's order: batch, out_y, out_x, out_channel, filter_y,
/// filter_x, in_channel); `mac(input_index, filter_index)` accumulates one product, `finish`
/// turns the accumulator of one output channel into the output value.
#[inline(always)]
fn conv_loops<A: Copy, O>(
    g: &ConvGeometry,
    output: &mut [O],
    zero: A,
    mut mac: impl FnMut(A, usize, usize) -> A,
    mut finish: impl FnMut(A, usize) -> O,
) {
    let Some((filter_input_depth, filters_per_group)) = conv_groups(g) else {
        return;
    };
    let [batches, input_h, input_w, input_d] = g.input;
    let [output_d, filter_h, filter_w, _] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    let mut out = output.iter_mut();
    for batch in 0..batches {
        for out_y in 0..output_h {
            let in_y_origin = origin(out_y, g.stride_h, g.pad_h);
            for out_x in 0..output_w {
                let in_x_origin = origin(out_x, g.stride_w, g.pad_w);
                for out_c in 0..output_d {
                    let group = out_c / filters_per_group;
                    let mut acc = zero;
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
                            let input_base = ((batch * input_h + in_y) * input_w + in_x) * input_d
                                + group * filter_input_depth;
                            let filter_base = ((out_c * filter_h + filter_y) * filter_w + filter_x)
                                * filter_input_depth;
                            for in_c in 0..filter_input_depth {
                                acc = mac(acc, input_base + in_c, filter_base + in_c);
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

/// Shared loop nest of DEPTHWISE_CONV_2D (TFLM's order: batch, out_y, out_x, in_channel,
/// multiplier, filter_y, filter_x).
#[inline(always)]
fn depthwise_loops<A: Copy, O>(
    g: &ConvGeometry,
    output: &mut [O],
    zero: A,
    mut mac: impl FnMut(A, usize, usize) -> A,
    mut finish: impl FnMut(A, usize) -> O,
) {
    let [batches, input_h, input_w, input_d] = g.input;
    let [_, filter_h, filter_w, output_d] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    let depth_multiplier = g.depth_multiplier;
    let mut out = output.iter_mut();
    for batch in 0..batches {
        for out_y in 0..output_h {
            for out_x in 0..output_w {
                for in_c in 0..input_d {
                    for m in 0..depth_multiplier {
                        let out_c = m + in_c * depth_multiplier;
                        let in_x_origin = origin(out_x, g.stride_w, g.pad_w);
                        let in_y_origin = origin(out_y, g.stride_h, g.pad_h);
                        let mut acc = zero;
                        for filter_y in 0..filter_h {
                            for filter_x in 0..filter_w {
                                let (Some(in_x), Some(in_y)) = (
                                    inside(in_x_origin, g.dilation_w, filter_x, input_w),
                                    inside(in_y_origin, g.dilation_h, filter_y, input_h),
                                ) else {
                                    continue;
                                };
                                let input_index =
                                    ((batch * input_h + in_y) * input_w + in_x) * input_d + in_c;
                                let filter_index =
                                    (filter_y * filter_w + filter_x) * output_d + out_c;
                                acc = mac(acc, input_index, filter_index);
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
}

/// The int8 epilogue of TFLM's per-channel kernels: add the bias, requantise with the output
/// channel's multiplier, add the output offset, clamp (`max` then `min`), narrow.
#[inline(always)]
fn requantize_channel(
    acc: i32,
    out_c: usize,
    bias: Option<&[i32]>,
    requant: &[Requant],
    output_offset: i32,
    act_min: i32,
    act_max: i32,
) -> i8 {
    let acc = match bias {
        Some(bias) => acc.wrapping_add(at(bias, out_c)),
        None => acc,
    };
    let (multiplier, shift) = match requant.get(out_c) {
        Some(r) => (r.multiplier, r.shift),
        None => (0, 0),
    };
    let acc = fixed::multiply_by_quantized_multiplier(acc, multiplier, shift);
    clamp_to_i8(acc.wrapping_add(output_offset), act_min, act_max)
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
        output,
        0_i32,
        |acc, i, f| {
            let input_val = i32::from(at(input, i));
            let filter_val = i32::from(at(filter, f));
            acc.wrapping_add(filter_val.wrapping_mul(input_val.wrapping_add(input_offset)))
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

/// int8 DEPTHWISE_CONV_2D: TFLM's `reference_integer_ops::DepthwiseConvPerChannel`.
///
/// `filter` is `1HWO` int8 (symmetric, per-channel); `bias` int32, one per output channel.
///
/// # Preconditions
///
/// `input.len() == N*H*W*C`, `filter.len() == FH*FW*O`, `output.len() == N*OH*OW*O` with
/// `O == C * depth_multiplier`; `requant` and `bias` have `O` entries.
pub fn depthwise_conv2d_s8(
    p: &ConvS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) {
    let input_offset = p.input_offset;
    depthwise_loops(
        &p.geometry,
        output,
        0_i32,
        |acc, i, f| {
            let input_val = i32::from(at(input, i));
            let filter_val = i32::from(at(filter, f));
            acc.wrapping_add(filter_val.wrapping_mul(input_val.wrapping_add(input_offset)))
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
        output,
        0.0_f32,
        |total, i, f| total + at(input, i) * at(filter, f),
        |total, out_c| {
            let bias_value = match bias {
                Some(bias) => at(bias, out_c),
                None => 0.0,
            };
            activation_f32(total + bias_value, p.act_min, p.act_max)
        },
    );
}

/// float DEPTHWISE_CONV_2D: TFLM's `reference_ops::DepthwiseConv` (float).
///
/// # Preconditions
///
/// As [`depthwise_conv2d_s8`].
pub fn depthwise_conv2d_f32(
    p: &ConvF32,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
) {
    depthwise_loops(
        &p.geometry,
        output,
        0.0_f32,
        |total, i, f| total + at(input, i) * at(filter, f),
        |total, out_c| {
            let bias_value = match bias {
                Some(bias) => at(bias, out_c),
                None => 0.0,
            };
            activation_f32(total + bias_value, p.act_min, p.act_max)
        },
    );
}
