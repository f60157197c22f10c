//! DEPTHWISE_CONV_2D: TFLM's `reference_integer_ops::DepthwiseConvPerChannel` and
//! `reference_ops::DepthwiseConv` (float), with CONV_2D's geometry and parameters
//! ([`super::conv`]).
//!
//! Every output value is the sum TFLM computes, over the same products in the same order
//! (float sums round identically); a block of channels is accumulated at once, tap by tap, so
//! the loop vectorises. Outputs are written in memory order (batch, y, x, channel).

use super::conv::{ConvF32, ConvGeometry, ConvS8, finish_f32, inside, origin, requantize_channel};
use super::{sized, sized_mut};

/// Channels DEPTHWISE_CONV_2D accumulates at once (its accumulators live on the stack).
const CHANNEL_BLOCK: usize = 16;

/// Shared loop nest of DEPTHWISE_CONV_2D. Outputs are produced in TFLM's order (batch, out_y,
/// out_x, in_channel, multiplier); each output's products are added in TFLM's (filter_y,
/// filter_x) order. Blocks of up to [`CHANNEL_BLOCK`] output channels are accumulated
/// together, tap by tap: `mac(accs, input, filter)` adds one tap's products to a block, with
/// one input per output (depth multiplier 1) or one input for all (the outputs of one input
/// channel).
///
/// Returns without writing if the slices are shorter than the geometry says or the filter's
/// channels are not the input's times the depth multiplier.
#[inline(always)]
fn depthwise_loops<T: Copy, A: Copy, O>(
    g: &ConvGeometry,
    input: &[T],
    filter: &[T],
    output: &mut [O],
    zero: A,
    mut mac: impl FnMut(&mut [A], &[T], &[T]),
    mut finish: impl FnMut(A, usize) -> O,
) {
    let [batches, input_h, input_w, input_d] = g.input;
    let [_, filter_h, filter_w, output_d] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    let depth_multiplier = g.depth_multiplier;
    let (Some(input), Some(filter), Some(output)) = (
        sized(input, &[batches, input_h, input_w, input_d]),
        sized(filter, &[filter_h, filter_w, output_d]),
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
                let in_x_origin = origin(out_x, g.stride_w, g.pad_w);
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
                            let i = ((batch * input_h + in_y) * input_w + in_x) * input_d + in_c;
                            let f = (filter_y * filter_w + filter_x) * output_d + first;
                            if let (Some(i), Some(f)) =
                                (input.get(i..i + in_len), filter.get(f..f + block))
                            {
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
        input,
        filter,
        output,
        0_i32,
        |accs, i, f| {
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
        input,
        filter,
        output,
        0.0_f32,
        |totals, i, f| {
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
