//! FULLY_CONNECTED: TFLM's `reference_integer_ops::FullyConnected`,
//! `reference_integer_ops::FullyConnectedPerChannel` (int8, int16 with int8 weights, int8 with
//! packed int4 weights) and `reference_ops::FullyConnected` (float).

#[cfg(any(stowplan_dsp, test))]
mod dsp_s16;
pub(crate) mod in_place;

#[cfg(not(stowplan_dsp))]
use super::shared::dot_s8;
use super::shared::{Requant, activation_f32, clamp_to_i8, fixed, product, sized, sized_mut};
use super::shared::{clamp_to_i16, int4_at, int4_elements};

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
            // `sum(filter * (input + input_offset))`: four elements per step with the DSP
            // extension's instructions on Armv7E-M (`shared::blocked`), the same sum.
            #[cfg(stowplan_dsp)]
            let mut acc = super::shared::blocked::dot_offset_s8(row, weights, p.input_offset)
                .wrapping_add(row_constant);
            #[cfg(not(stowplan_dsp))]
            let mut acc = {
                let (products, filter_sum) = dot_s8(row, weights);
                products
                    .wrapping_add(p.input_offset.wrapping_mul(filter_sum))
                    .wrapping_add(row_constant)
            };
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

/// int8 FULLY_CONNECTED with an int4 filter: TFLM's `FullyConnectedEval` for `kTfLiteInt4`
/// weights, which unpacks the filter (`UnpackDenseInt4IntoInt8`) and runs the per-tensor
/// `reference_integer_ops::FullyConnected` (TFLM has no per-channel int4 kernel): `acc +=
/// (filter + filter_offset) * (input + input_offset)` in a wrapping int32 accumulator, each
/// weight unpacked where it is read.
///
/// `filter` is the packed `[output_depth, accum_depth]` int4 buffer, two weights per byte (low
/// nibble first); `requant` has one entry.
///
/// # Preconditions
///
/// As [`fully_connected_s8`], with `filter.len() >= ceil(output_depth * accum_depth / 2)`.
pub fn fully_connected_s8_i4(
    p: &FullyConnectedS8,
    input: &[i8],
    filter: &[u8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) {
    let depth = p.accum_depth;
    let filter_elements = int4_elements(filter, product(&[p.output_depth, depth]));
    let (Some(input), Some(_), Some(output)) = (
        sized(input, &[p.batches, depth]),
        product(&[p.output_depth, depth]).filter(|&n| n <= filter_elements),
        sized_mut(output, &[p.batches, p.output_depth]),
    ) else {
        return;
    };
    let (multiplier, shift) = match p.requant.first() {
        Some(r) => (r.multiplier, r.shift),
        None => (0, 0),
    };
    let mut out = output.iter_mut();
    for b in 0..p.batches {
        let row = input.get(b * depth..(b + 1) * depth).unwrap_or(&[]);
        for out_c in 0..p.output_depth {
            let mut acc: i32 = 0;
            for (d, &x) in row.iter().enumerate() {
                let w = i32::from(int4_at(filter, out_c * depth + d));
                acc = acc.wrapping_add(
                    w.wrapping_add(p.filter_offset)
                        .wrapping_mul(i32::from(x).wrapping_add(p.input_offset)),
                );
            }
            if let Some(&bias) = bias.and_then(|bias| bias.get(out_c)) {
                acc = acc.wrapping_add(bias);
            }
            acc = fixed::multiply_by_quantized_multiplier(acc, multiplier, shift);
            if let Some(o) = out.next() {
                *o = clamp_to_i8(acc.wrapping_add(p.output_offset), p.act_min, p.act_max);
            }
        }
    }
}

/// Parameters of an int16 FULLY_CONNECTED (int16 activations, int8 weights).
#[derive(Clone, Copy, Debug)]
pub struct FullyConnectedS16 {
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

/// The loop nest of TFLM's int16 FULLY_CONNECTED kernels for an accumulator `A` (`int64_t` or
/// `int32_t`): `acc` starts at 0 and takes, in order, each product computed in `int32_t`
/// (`(filter + filter_offset) * (input + input_offset)`, or `filter * (input + input_offset)`
/// per channel) through `add`; `finish(acc, out_c)` adds the bias and requantises.
///
/// Returns without writing if the slices are shorter than the parameters say.
#[inline(always)]
fn fully_connected_s16_loops<A: Copy>(
    p: &FullyConnectedS16,
    input: &[i16],
    filter: &[i8],
    output: &mut [i16],
    zero: A,
    mut add: impl FnMut(A, i32) -> A,
    mut finish: impl FnMut(A, usize) -> i32,
) {
    let per_channel = p.requant.len() > 1;
    let filter_offset = if per_channel { 0 } else { p.filter_offset };
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
            let mut acc = zero;
            for (&x, &w) in row.iter().zip(weights) {
                let product = i32::from(w)
                    .wrapping_add(filter_offset)
                    .wrapping_mul(i32::from(x).wrapping_add(p.input_offset));
                acc = add(acc, product);
            }
            let acc = finish(acc, out_c).wrapping_add(p.output_offset);
            if let Some(o) = out.next() {
                *o = clamp_to_i16(acc, p.act_min, p.act_max);
            }
        }
    }
}

/// The multiplier of output channel `out_c`: its own per channel, the one per tensor.
#[inline(always)]
fn channel_requant(requant: &[Requant], out_c: usize) -> (i32, i32) {
    let r = if requant.len() > 1 {
        requant.get(out_c)
    } else {
        requant.first()
    };
    match r {
        Some(r) => (r.multiplier, r.shift),
        None => (0, 0),
    }
}

/// int16 FULLY_CONNECTED: TFLM's `reference_integer_ops::FullyConnected<int16_t, int8_t,
/// int16_t, int64_t>` (one `requant` entry) or `FullyConnectedPerChannel<..., int64_t>` (one
/// per output channel): the products (in `int32_t`) summed in 64 bits, the int64 bias, the
/// 64-bit `MultiplyByQuantizedMultiplier`, the output offset, clamp. TFLM takes this kernel for
/// an int64 bias and for no bias.
///
/// # Preconditions
///
/// As [`fully_connected_s8`].
///
/// With cfg `stowplan_dsp` (Armv7E-M) it runs blocked with the DSP extension's instructions
/// (`dsp_s16`: two output channels at a time, two multiply-accumulates per `SMLALD`); the
/// outputs are the same.
pub fn fully_connected_s16(
    p: &FullyConnectedS16,
    input: &[i16],
    filter: &[i8],
    bias: Option<&[i64]>,
    output: &mut [i16],
) {
    let finish = |acc, out_c| finish_s16(p, bias, acc, out_c);
    // Output channels in pairs, `SMLALD`.
    #[cfg(stowplan_dsp)]
    if dsp_s16::fully_connected_s16::<i64>(p, input, filter, output, finish) {
        return;
    }
    fully_connected_s16_loops(
        p,
        input,
        filter,
        output,
        0_i64,
        |acc, product| acc.wrapping_add(i64::from(product)),
        finish,
    );
}

/// [`fully_connected_s16`]'s epilogue up to the output offset: output channel `out_c`'s sum
/// `acc` plus its bias, requantised by the 64-bit `MultiplyByQuantizedMultiplier`.
#[inline(always)]
pub(super) fn finish_s16(
    p: &FullyConnectedS16,
    bias: Option<&[i64]>,
    acc: i64,
    out_c: usize,
) -> i32 {
    let acc = match bias.and_then(|bias| bias.get(out_c)) {
        Some(&bias) => acc.wrapping_add(bias),
        None => acc,
    };
    let (multiplier, shift) = channel_requant(p.requant, out_c);
    fixed::multiply_by_quantized_multiplier_i64(acc, multiplier, shift)
}

/// int16 FULLY_CONNECTED with an int32 bias: TFLM's kernels with an `int32_t` accumulator (the
/// sum wraps) and the 32-bit `MultiplyByQuantizedMultiplier`.
///
/// # Preconditions
///
/// As [`fully_connected_s8`].
///
/// With cfg `stowplan_dsp` (Armv7E-M) it runs blocked as [`fully_connected_s16`], with
/// `SMLAD`; the outputs are the same.
pub fn fully_connected_s16_acc32(
    p: &FullyConnectedS16,
    input: &[i16],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i16],
) {
    let finish = |acc, out_c| finish_s16_acc32(p, bias, acc, out_c);
    // Output channels in pairs, `SMLAD`.
    #[cfg(stowplan_dsp)]
    if dsp_s16::fully_connected_s16::<i32>(p, input, filter, output, finish) {
        return;
    }
    fully_connected_s16_loops(p, input, filter, output, 0_i32, i32::wrapping_add, finish);
}

/// [`fully_connected_s16_acc32`]'s epilogue up to the output offset: the sum plus the bias,
/// wrapping, requantised by the 32-bit `MultiplyByQuantizedMultiplier`.
#[inline(always)]
pub(super) fn finish_s16_acc32(
    p: &FullyConnectedS16,
    bias: Option<&[i32]>,
    acc: i32,
    out_c: usize,
) -> i32 {
    let acc = match bias.and_then(|bias| bias.get(out_c)) {
        Some(&bias) => acc.wrapping_add(bias),
        None => acc,
    };
    let (multiplier, shift) = channel_requant(p.requant, out_c);
    fixed::multiply_by_quantized_multiplier(acc, multiplier, shift)
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

#[cfg(test)]
mod tests {
    use super::super::shared::testing::pack;
    use super::*;

    static PER_TENSOR: [Requant; 1] = [Requant {
        multiplier: 1 << 30,
        shift: -4,
    }];

    #[test]
    fn int4_fully_connected_equals_int8_of_the_unpacked_filter() {
        let p = FullyConnectedS8 {
            batches: 2,
            accum_depth: 5,
            output_depth: 3,
            input_offset: 11,
            filter_offset: 1,
            output_offset: -7,
            requant: &PER_TENSOR,
            act_min: -128,
            act_max: 127,
        };
        let weights: [i8; 15] = core::array::from_fn(|i| (i as i8 * 3 % 16) - 8);
        let (packed, used) = pack(&weights);
        let input: [i8; 10] = core::array::from_fn(|i| (i as i8).wrapping_mul(53));
        let (mut a, mut b) = ([0i8; 6], [0i8; 6]);
        fully_connected_s8(&p, &input, &weights, Some(&[5, -5, 500]), &mut a);
        fully_connected_s8_i4(&p, &input, &packed[..used], Some(&[5, -5, 500]), &mut b);
        assert_eq!(a, b);
        assert_ne!(a, [0; 6]);
    }

    #[test]
    fn int16_fully_connected_applies_offsets_and_picks_its_accumulator() {
        let p = FullyConnectedS16 {
            batches: 1,
            accum_depth: 2,
            output_depth: 1,
            input_offset: 1,
            filter_offset: 2,
            output_offset: 3,
            requant: &PER_TENSOR,
            act_min: -32768,
            act_max: 32767,
        };
        // (10 + 2) * (100 + 1) + (-4 + 2) * (-50 + 1) = 1310, + 2, / 32 = 41, + 3.
        let mut out = [0i16; 1];
        fully_connected_s16(&p, &[100, -50], &[10, -4], Some(&[2]), &mut out);
        assert_eq!(out, [44]);
        let mut out = [0i16; 1];
        fully_connected_s16_acc32(&p, &[100, -50], &[10, -4], Some(&[2]), &mut out);
        assert_eq!(out, [44]);
        // The 32-bit accumulator wraps where the 64-bit one does not.
        let (mut a, mut b) = ([0i16; 1], [0i16; 1]);
        fully_connected_s16(
            &p,
            &[100, -50],
            &[10, -4],
            Some(&[i64::from(i32::MAX)]),
            &mut a,
        );
        fully_connected_s16_acc32(&p, &[100, -50], &[10, -4], Some(&[i32::MAX]), &mut b);
        assert_eq!(a, [32767]);
        assert_eq!(b, [-32768]);
    }
}
