//! FULLY_CONNECTED: TFLM's `reference_integer_ops::FullyConnected`,
//! `reference_integer_ops::FullyConnectedPerChannel` and `reference_ops::FullyConnected`
//! (float).

use super::{Requant, activation_f32, clamp_to_i8, dot_s8, fixed, sized, sized_mut};

/// Parameters of an int8 FULLY_CONNECTED.
#[derive(Clone, Copy, Debug)]
pub struct FullyConnectedS8 {
    /// Rows of the input (the product of the output's dimensions but the last).
    pub batches: usize,
    /// Elements summed per output (the filter's last dimension).
    pub accum_depth: usize,
    /// Outputs per batch (the output's last dimension).
    pub output_depth: usize,
    /// Minus the input zero point.
    pub input_offset: i32,
    /// Minus the filter zero point (per-tensor only; TFLM's per-channel kernel ignores it).
    pub filter_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// One entry: per-tensor quantisation (TFLM's `FullyConnected`); `output_depth` entries:
    /// per-channel (TFLM's `FullyConnectedPerChannel`).
    pub requant: &'static [Requant],
    /// Lower clamp of the quantised output (fused activation).
    pub act_min: i32,
    /// Upper clamp of the quantised output (fused activation).
    pub act_max: i32,
}

/// Parameters of a float FULLY_CONNECTED.
#[derive(Clone, Copy, Debug)]
pub struct FullyConnectedF32 {
    /// Rows of the input (the product of the output's dimensions but the last).
    pub batches: usize,
    /// Elements summed per output (the filter's last dimension).
    pub accum_depth: usize,
    /// Outputs per batch (the output's last dimension).
    pub output_depth: usize,
    /// Lower clamp of the output (fused activation).
    pub act_min: f32,
    /// Upper clamp of the output (fused activation).
    pub act_max: f32,
}

/// int8 FULLY_CONNECTED. With one `requant` entry, TFLM's per-tensor
/// `reference_integer_ops::FullyConnected`: `acc += (filter + filter_offset) * (input +
/// input_offset)`; with more, its `FullyConnectedPerChannel`: `acc += filter * (input +
/// input_offset)` and channel `c`'s multiplier. Then bias, requantisation, output offset,
/// clamp.
///
/// # Preconditions
///
/// `input.len() == batches * accum_depth`, `filter.len() >= output_depth * accum_depth`
/// (row-major `[output_depth, accum_depth]`), `output.len() == batches * output_depth`;
/// `bias`, if any, and a per-channel `requant` have `output_depth` entries.
pub fn fully_connected_s8(
    p: &FullyConnectedS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) {
    let per_channel = p.requant.len() > 1;
    // The per-channel kernel has no filter offset (filters are symmetric).
    let filter_offset = if per_channel { 0 } else { p.filter_offset };
    let depth = p.accum_depth;
    let (Some(input), Some(filter), Some(output)) = (
        sized(input, &[p.batches, depth]),
        sized(filter, &[p.output_depth, depth]),
        sized_mut(output, &[p.batches, p.output_depth]),
    ) else {
        return;
    };
    // TFLM's `sum((filter + filter_offset) * (input + input_offset))` expanded, equal modulo
    // 2^32 (the int32 accumulator wraps): `sum(filter * input) + input_offset * sum(filter) +
    // filter_offset * sum(input) + depth * filter_offset * input_offset`.
    let constant = (depth as i32)
        .wrapping_mul(filter_offset)
        .wrapping_mul(p.input_offset);
    let mut out = output.iter_mut();
    for b in 0..p.batches {
        let row = input.get(b * depth..(b + 1) * depth).unwrap_or(&[]);
        let input_sum = row
            .iter()
            .fold(0_i32, |sum, &x| sum.wrapping_add(i32::from(x)));
        let row_constant = constant.wrapping_add(filter_offset.wrapping_mul(input_sum));
        for out_c in 0..p.output_depth {
            let weights = filter
                .get(out_c * depth..(out_c + 1) * depth)
                .unwrap_or(&[]);
            let (products, filter_sum) = dot_s8(row, weights);
            let mut acc = products
                .wrapping_add(p.input_offset.wrapping_mul(filter_sum))
                .wrapping_add(row_constant);
            if let Some(&bias) = bias.and_then(|bias| bias.get(out_c)) {
                acc = acc.wrapping_add(bias);
            }
            let requant = if per_channel {
                p.requant.get(out_c)
            } else {
                p.requant.first()
            };
            let (multiplier, shift) = match requant {
                Some(r) => (r.multiplier, r.shift),
                None => (0, 0),
            };
            acc = fixed::multiply_by_quantized_multiplier(acc, multiplier, shift);
            if let Some(o) = out.next() {
                *o = clamp_to_i8(acc.wrapping_add(p.output_offset), p.act_min, p.act_max);
            }
        }
    }
}

/// float FULLY_CONNECTED: TFLM's `reference_ops::FullyConnected` (float): `total += input *
/// filter` in order, then `ActivationFunctionWithMinMax(total + bias)`.
///
/// # Preconditions
///
/// As [`fully_connected_s8`].
pub fn fully_connected_f32(
    p: &FullyConnectedF32,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
) {
    let depth = p.accum_depth;
    let (Some(input), Some(filter), Some(output)) = (
        sized(input, &[p.batches, depth]),
        sized(filter, &[p.output_depth, depth]),
        sized_mut(output, &[p.batches, p.output_depth]),
    ) else {
        return;
    };
    let mut out = output.iter_mut();
    for b in 0..p.batches {
        let row = input.get(b * depth..(b + 1) * depth).unwrap_or(&[]);
        for out_c in 0..p.output_depth {
            let weights = filter
                .get(out_c * depth..(out_c + 1) * depth)
                .unwrap_or(&[]);
            let mut total = 0.0_f32;
            for (&x, &w) in row.iter().zip(weights) {
                total += x * w;
            }
            let bias_value = match bias.and_then(|bias| bias.get(out_c)) {
                Some(&bias) => bias,
                None => 0.0,
            };
            if let Some(o) = out.next() {
                *o = activation_f32(total + bias_value, p.act_min, p.act_max);
            }
        }
    }
}
