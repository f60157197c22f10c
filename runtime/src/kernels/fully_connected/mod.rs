//! FULLY_CONNECTED: TFLM's `reference_integer_ops::FullyConnected`,
//! `reference_integer_ops::FullyConnectedPerChannel` (int8, int16 with int8 weights, int8 with
//! packed int4 weights) and `reference_ops::FullyConnected` (float).

#[cfg(any(stowplan_dsp, test))]
mod dsp;
#[cfg(any(stowplan_dsp, test))]
mod dsp_s16;
pub(crate) mod in_place;
mod interleaved;
pub mod kernel;

use super::shared::check::{KernelError, check, elements, length, optional_length, require};
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

/// What every FULLY_CONNECTED kernel needs of its sizes and of its input's and output's
/// lengths: `batches × accum_depth` inputs and `batches × output_depth` outputs, sizes that do
/// not overflow.
const fn check_rows(
    (batches, depth, units): (usize, usize, usize),
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length("input", elements(&[batches, depth]), input));
    length("output", elements(&[batches, units]), output)
}

/// The requantisation an integer FULLY_CONNECTED needs: one multiplier (per tensor) or
/// `output_depth` (per channel).
const fn check_requant(requant: usize, units: usize) -> Result<(), KernelError> {
    require(
        requant == 1 || requant == units,
        "`requant` has neither one entry nor one per output channel",
    )
}

/// [`fully_connected_s8`]'s preconditions, on the lengths of its slices (`bias`: `None` for no
/// bias): what the entry checks before it runs, and what generated code asserts when the crate
/// compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_fully_connected_s8(
    p: &FullyConnectedS8,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    check!(check_rows(
        (p.batches, p.accum_depth, p.output_depth),
        input,
        output
    ));
    check!(length(
        "filter",
        elements(&[p.output_depth, p.accum_depth]),
        filter
    ));
    check!(check_requant(p.requant.len(), p.output_depth));
    optional_length("bias", Some(p.output_depth), bias)
}

/// The preconditions of [`proven::fully_connected_s8_with`] with kernel `K` (one of
/// [`kernel`]'s): [`check_fully_connected_s8`]'s, and that the kernel takes the layer
/// ([`kernel::fully_connected_s8_takes`]: a form it names is the layer's). Generated code
/// asserts it when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_fully_connected_s8_with<const K: u8>(
    p: &FullyConnectedS8,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    check!(check_fully_connected_s8(p, input, filter, bias, output));
    check!(require(
        kernel::fully_connected_s8_takes(K, p),
        "the chosen FULLY_CONNECTED kernel does not take this layer",
    ));
    // Its blocks' sums start at the folded biases (generated code always gives them).
    require(
        K & kernel::KERNEL_BITS != kernel::INTERLEAVED_FOLDED || bias.is_some(),
        "the folded interleaved FULLY_CONNECTED kernel takes the folded bias",
    )
}

/// [`fully_connected_s8_i4`]'s preconditions, as [`check_fully_connected_s8`]'s with the packed
/// filter (two weights a byte) and one multiplier (TFLM has no per-channel int4 kernel).
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_fully_connected_s8_i4(
    p: &FullyConnectedS8,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    check!(check_rows(
        (p.batches, p.accum_depth, p.output_depth),
        input,
        output
    ));
    let packed = match elements(&[p.output_depth, p.accum_depth]) {
        Some(n) => Some(n.div_ceil(2)),
        None => None,
    };
    check!(length("filter", packed, filter));
    check!(length("requant", Some(1), p.requant.len()));
    optional_length("bias", Some(p.output_depth), bias)
}

/// [`fully_connected_s16`]'s preconditions, as [`check_fully_connected_s8`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_fully_connected_s16(
    p: &FullyConnectedS16,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    check!(check_rows(
        (p.batches, p.accum_depth, p.output_depth),
        input,
        output
    ));
    check!(length(
        "filter",
        elements(&[p.output_depth, p.accum_depth]),
        filter
    ));
    check!(check_requant(p.requant.len(), p.output_depth));
    optional_length("bias", Some(p.output_depth), bias)
}

/// [`fully_connected_s16_acc32`]'s preconditions, as [`check_fully_connected_s16`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_fully_connected_s16_acc32(
    p: &FullyConnectedS16,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    check_fully_connected_s16(p, input, filter, bias, output)
}

/// [`fully_connected_f32`]'s preconditions, as [`check_fully_connected_s8`]'s (no
/// requantisation).
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_fully_connected_f32(
    p: &FullyConnectedF32,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    check!(check_rows(
        (p.batches, p.accum_depth, p.output_depth),
        input,
        output
    ));
    check!(length(
        "filter",
        elements(&[p.output_depth, p.accum_depth]),
        filter
    ));
    optional_length("bias", Some(p.output_depth), bias)
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled (and the one-buffer entries on each chunk of rows): the public entries without
/// their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`fully_connected_s8`](super::fully_connected_s8), its [`check`](super::check_fully_connected_s8) proven.
    pub fn fully_connected_s8(
        p: &FullyConnectedS8,
        input: &[i8],
        filter: &[i8],
        bias: Option<&[i32]>,
        output: &mut [i8],
    ) {
        debug_assert!(
            super::check_fully_connected_s8(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i32]>::len),
                output.len()
            )
            .is_ok()
        );
        super::fully_connected_s8_in::<{ kernel::ANY }>(p, input, filter, bias, output);
    }

    /// [`fully_connected_s8`](super::fully_connected_s8) with its kernel and epilogue form
    /// chosen when the crate compiled (`K`, one of [`kernel`](super::kernel)'s, usually
    /// [`fully_connected_s8_kernel`](super::kernel::fully_connected_s8_kernel)'s choice): only
    /// that form's loop is linked. Its [`check`](super::check_fully_connected_s8_with) proven.
    pub fn fully_connected_s8_with<const K: u8>(
        p: &FullyConnectedS8,
        input: &[i8],
        filter: &[i8],
        bias: Option<&[i32]>,
        output: &mut [i8],
    ) {
        debug_assert!(
            super::check_fully_connected_s8_with::<K>(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i32]>::len),
                output.len()
            )
            .is_ok()
        );
        super::fully_connected_s8_in::<K>(p, input, filter, bias, output);
    }

    /// [`fully_connected_s8_i4`](super::fully_connected_s8_i4), its [`check`](super::check_fully_connected_s8_i4) proven.
    pub fn fully_connected_s8_i4(
        p: &FullyConnectedS8,
        input: &[i8],
        filter: &[u8],
        bias: Option<&[i32]>,
        output: &mut [i8],
    ) {
        debug_assert!(
            super::check_fully_connected_s8_i4(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i32]>::len),
                output.len()
            )
            .is_ok()
        );
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

    /// [`fully_connected_s16`](super::fully_connected_s16), its [`check`](super::check_fully_connected_s16) proven.
    pub fn fully_connected_s16(
        p: &FullyConnectedS16,
        input: &[i16],
        filter: &[i8],
        bias: Option<&[i64]>,
        output: &mut [i16],
    ) {
        debug_assert!(
            super::check_fully_connected_s16(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i64]>::len),
                output.len()
            )
            .is_ok()
        );
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

    /// [`fully_connected_s16_acc32`](super::fully_connected_s16_acc32), its [`check`](super::check_fully_connected_s16_acc32) proven.
    pub fn fully_connected_s16_acc32(
        p: &FullyConnectedS16,
        input: &[i16],
        filter: &[i8],
        bias: Option<&[i32]>,
        output: &mut [i16],
    ) {
        debug_assert!(
            super::check_fully_connected_s16_acc32(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i32]>::len),
                output.len()
            )
            .is_ok()
        );
        let finish = |acc, out_c| finish_s16_acc32(p, bias, acc, out_c);
        // Output channels in pairs, `SMLAD`.
        #[cfg(stowplan_dsp)]
        if dsp_s16::fully_connected_s16::<i32>(p, input, filter, output, finish) {
            return;
        }
        fully_connected_s16_loops(p, input, filter, output, 0_i32, i32::wrapping_add, finish);
    }

    /// [`fully_connected_f32`](super::fully_connected_f32), its [`check`](super::check_fully_connected_f32) proven.
    pub fn fully_connected_f32(
        p: &FullyConnectedF32,
        input: &[f32],
        filter: &[f32],
        bias: Option<&[f32]>,
        output: &mut [f32],
    ) {
        debug_assert!(
            super::check_fully_connected_f32(
                p,
                input.len(),
                filter.len(),
                bias.map(<[f32]>::len),
                output.len()
            )
            .is_ok()
        );
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
}

/// int8 FULLY_CONNECTED. With one `requant` entry, TFLM's per-tensor
/// `reference_integer_ops::FullyConnected`: `acc += (filter + filter_offset) * (input +
/// input_offset)`; with more, its `FullyConnectedPerChannel`: `acc += filter * (input +
/// input_offset)` and channel `c`'s multiplier. Then bias, requantisation, output offset,
/// clamp.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_fully_connected_s8`]) hold: `input.len() == batches * accum_depth`,
/// `filter.len() == output_depth * accum_depth` (row-major `[output_depth, accum_depth]`),
/// `output.len() == batches * output_depth`; `bias`, if any, has `output_depth` entries and
/// `requant` one or `output_depth`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn fully_connected_s8(
    p: &FullyConnectedS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_fully_connected_s8(
        p,
        input.len(),
        filter.len(),
        bias.map(<[i32]>::len),
        output.len(),
    )?;
    proven::fully_connected_s8(p, input, filter, bias, output);
    Ok(())
}

/// [`fully_connected_s8`]'s outputs with kernel `K`: the DSP kernel unless `K` is
/// [`kernel::PORTABLE`] (with the DSP extension), else the portable loop.
#[inline(always)]
fn fully_connected_s8_in<const K: u8>(
    p: &FullyConnectedS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) {
    let depth = p.accum_depth;
    let (Some(input), Some(filter), Some(output)) = (
        sized(input, &[p.batches, depth]),
        sized(filter, &[p.output_depth, depth]),
        sized_mut(output, &[p.batches, p.output_depth]),
    ) else {
        return;
    };
    // The re-laid filter and folded bias of `INTERLEAVED`, on every target.
    if interleaved::fully_connected_s8::<K>(p, input, filter, bias, output) {
        return;
    }
    #[cfg(stowplan_dsp)]
    if dsp::fully_connected_s8::<K>(p, input, filter, bias, output) {
        return;
    }
    fully_connected_s8_portable(p, input, filter, bias, output);
}

/// [`fully_connected_s8`]'s loop an output channel at a time, on slices of the sizes `p`
/// gives. With the DSP kernel it runs only as [`kernel::PORTABLE`]: a function of its own,
/// whose copy every entry that names it shares.
#[cfg_attr(not(stowplan_dsp), inline(always))]
#[cfg_attr(stowplan_dsp, inline(never))]
fn fully_connected_s8_portable(
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
            // `sum(filter * (input + input_offset))`.
            #[cfg(stowplan_dsp)]
            let dot = crate::kernels::shared::blocked::dot_offset_s8(row, weights, p.input_offset);
            #[cfg(not(stowplan_dsp))]
            let dot = {
                let (products, filter_sum) = dot_s8(row, weights);
                products.wrapping_add(p.input_offset.wrapping_mul(filter_sum))
            };
            let mut acc = dot.wrapping_add(row_constant);
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
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_fully_connected_s8_i4`]) hold: as [`fully_connected_s8`]'s, with
/// `filter.len() == ceil(output_depth * accum_depth / 2)` and one `requant` entry.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn fully_connected_s8_i4(
    p: &FullyConnectedS8,
    input: &[i8],
    filter: &[u8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_fully_connected_s8_i4(
        p,
        input.len(),
        filter.len(),
        bias.map(<[i32]>::len),
        output.len(),
    )?;
    proven::fully_connected_s8_i4(p, input, filter, bias, output);
    Ok(())
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
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_fully_connected_s16`]) hold: as [`fully_connected_s8`]'s.
///
/// With cfg `stowplan_dsp` (Armv7E-M) it runs blocked with the DSP extension's instructions
/// (`dsp_s16`: two output channels at a time, two multiply-accumulates per `SMLALD`); the
/// outputs are the same.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn fully_connected_s16(
    p: &FullyConnectedS16,
    input: &[i16],
    filter: &[i8],
    bias: Option<&[i64]>,
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_fully_connected_s16(
        p,
        input.len(),
        filter.len(),
        bias.map(<[i64]>::len),
        output.len(),
    )?;
    proven::fully_connected_s16(p, input, filter, bias, output);
    Ok(())
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
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_fully_connected_s16_acc32`]) hold: as [`fully_connected_s8`]'s.
///
/// With cfg `stowplan_dsp` (Armv7E-M) it runs blocked as [`fully_connected_s16`], with
/// `SMLAD`; the outputs are the same.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn fully_connected_s16_acc32(
    p: &FullyConnectedS16,
    input: &[i16],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_fully_connected_s16_acc32(
        p,
        input.len(),
        filter.len(),
        bias.map(<[i32]>::len),
        output.len(),
    )?;
    proven::fully_connected_s16_acc32(p, input, filter, bias, output);
    Ok(())
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
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_fully_connected_f32`]) hold: as [`fully_connected_s8`]'s (no `requant`).
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn fully_connected_f32(
    p: &FullyConnectedF32,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_fully_connected_f32(
        p,
        input.len(),
        filter.len(),
        bias.map(<[f32]>::len),
        output.len(),
    )?;
    proven::fully_connected_f32(p, input, filter, bias, output);
    Ok(())
}

/// A random int8 layer for the DSP kernels' tests ([`testing::Layer`]).
#[cfg(test)]
mod testing {
    extern crate std;
    use std::vec::Vec;

    use super::{FullyConnectedS8, Requant, fully_connected_s8_portable};
    use crate::kernels::shared::testing::Rng;

    /// A random int8 layer with the portable loop's outputs (`want`): `batches × depth`
    /// inputs, `units × depth` weights, a bias three times in four (values within ±20,000),
    /// the whole int8 range three times in four (else a narrower clamp), an input offset from
    /// the ones given.
    pub(super) struct Layer {
        pub(super) p: FullyConnectedS8,
        pub(super) input: Vec<i8>,
        pub(super) filter: Vec<i8>,
        pub(super) bias: Option<Vec<i32>>,
        pub(super) want: Vec<i8>,
    }

    impl Layer {
        /// [`Layer`] of these sizes, multipliers and offsets.
        pub(super) fn draw(
            rng: &mut Rng,
            (batches, depth, units): (usize, usize, usize),
            requant: &'static [Requant],
            (input_offsets, filter_offset, output_offset): (&[i32], i32, i32),
        ) -> Self {
            let (act_min, act_max) = if rng.below(4) == 0 {
                (-100, 90)
            } else {
                (-128, 127)
            };
            let p = FullyConnectedS8 {
                batches,
                accum_depth: depth,
                output_depth: units,
                input_offset: rng.pick(input_offsets),
                filter_offset,
                output_offset,
                requant,
                act_min,
                act_max,
            };
            let input = rng.values(batches * depth);
            let filter = rng.values(units * depth);
            let bias: Option<Vec<i32>> = (rng.below(4) != 0).then(|| {
                (0..units)
                    .map(|_| (rng.next() % 40_000) as i32 - 20_000)
                    .collect()
            });
            let mut want = std::vec![0_i8; batches * units];
            fully_connected_s8_portable(&p, &input, &filter, bias.as_deref(), &mut want);
            Self {
                p,
                input,
                filter,
                bias,
                want,
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
        fully_connected_s8(&p, &input, &weights, Some(&[5, -5, 500]), &mut a).unwrap();
        fully_connected_s8_i4(&p, &input, &packed[..used], Some(&[5, -5, 500]), &mut b).unwrap();
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
        fully_connected_s16(&p, &[100, -50], &[10, -4], Some(&[2]), &mut out).unwrap();
        assert_eq!(out, [44]);
        let mut out = [0i16; 1];
        fully_connected_s16_acc32(&p, &[100, -50], &[10, -4], Some(&[2]), &mut out).unwrap();
        assert_eq!(out, [44]);
        // The 32-bit accumulator wraps where the 64-bit one does not.
        let (mut a, mut b) = ([0i16; 1], [0i16; 1]);
        fully_connected_s16(
            &p,
            &[100, -50],
            &[10, -4],
            Some(&[i64::from(i32::MAX)]),
            &mut a,
        )
        .unwrap();
        fully_connected_s16_acc32(&p, &[100, -50], &[10, -4], Some(&[i32::MAX]), &mut b).unwrap();
        assert_eq!(a, [32767]);
        assert_eq!(b, [-32768]);
    }

    /// Each FULLY_CONNECTED kernel refuses, writing nothing, a slice of the wrong length
    /// (input, filter, bias, output) and a `requant` of neither one entry nor one per output
    /// channel; its one-buffer entry a tensor past the buffer's end or an input too close
    /// above the output.
    #[test]
    fn refused_calls_write_nothing() {
        use super::super::shared::check::KernelError;
        extern crate std;
        use std::vec;
        static THREE: [Requant; 3] = [PER_TENSOR[0]; 3];
        // 2 rows of 3 inputs, 4 outputs each.
        let (b, d, u): (usize, usize, usize) = (2, 3, 4);
        let lens = |packed: bool| {
            let f = if packed { (u * d).div_ceil(2) } else { u * d };
            [
                (b * d - 1, f, u, b * u, "input"),
                (b * d, f + 1, u, b * u, "filter"),
                (b * d, f, u - 1, b * u, "bias"),
                (b * d, f, u, b * u + 1, "output"),
            ]
        };
        macro_rules! refused {
            ($f:ident, $check:ident, $p:expr, $t:ty, $w:ty, $bias:ty, $packed:expr) => {
                let p = $p;
                for (n, f, nb, m, why) in lens($packed) {
                    let (x, w, bias) = (vec![<$t>::default(); n], vec![<$w>::default(); f], vec![<$bias>::default(); nb]);
                    let mut out = vec![<$t>::from(7_i8); m];
                    let r = $f(&p, &x, &w, Some(&bias), &mut out);
                    assert!(
                        matches!(r, Err(KernelError::Length { operand, .. }) if operand == why),
                        "{} {why}: {r:?}",
                        stringify!($f)
                    );
                    assert_eq!(r, $check(&p, n, f, Some(nb), m));
                    assert!(out.iter().all(|&v| v == <$t>::from(7_i8)));
                }
                // One buffer: the output past the end, the input one element too close.
                let (_, f, _, _, _) = lens($packed)[3];
                let w = vec![<$w>::default(); f];
                let least = in_place::fully_connected_min_displacement(b, d, u).unwrap();
                for (len, at) in [(b * d + 1, 1), (least - 1 + b * d, least - 1)] {
                    let mut buf = vec![<$t>::from(7_i8); len];
                    let r = in_place::$f(&p, &mut buf, at, 0, &w, None);
                    assert_eq!(r, Err(KernelError::Placement), "{} one buffer", stringify!($f));
                    assert!(buf.iter().all(|&v| v == <$t>::from(7_i8)));
                }
                let mut buf = vec![<$t>::from(7_i8); least + b * d];
                in_place::$f(&p, &mut buf, least, 0, &w, None).unwrap();
            };
        }
        let s8 = FullyConnectedS8 {
            batches: b,
            accum_depth: d,
            output_depth: u,
            input_offset: 0,
            filter_offset: 0,
            output_offset: 0,
            requant: &PER_TENSOR,
            act_min: -128,
            act_max: 127,
        };
        let s16 = FullyConnectedS16 {
            batches: b,
            accum_depth: d,
            output_depth: u,
            input_offset: 0,
            filter_offset: 0,
            output_offset: 0,
            requant: &PER_TENSOR,
            act_min: -32768,
            act_max: 32767,
        };
        let f32s = FullyConnectedF32 {
            batches: b,
            accum_depth: d,
            output_depth: u,
            act_min: f32::MIN,
            act_max: f32::MAX,
        };
        refused!(
            fully_connected_s8,
            check_fully_connected_s8,
            s8,
            i8,
            i8,
            i32,
            false
        );
        refused!(
            fully_connected_s8_i4,
            check_fully_connected_s8_i4,
            s8,
            i8,
            u8,
            i32,
            true
        );
        refused!(
            fully_connected_s16,
            check_fully_connected_s16,
            s16,
            i16,
            i8,
            i64,
            false
        );
        refused!(
            fully_connected_s16_acc32,
            check_fully_connected_s16_acc32,
            s16,
            i16,
            i8,
            i32,
            false
        );
        refused!(
            fully_connected_f32,
            check_fully_connected_f32,
            f32s,
            f32,
            f32,
            f32,
            false
        );
        // Three multipliers for four output channels; more than one for int4.
        let mut out = [7_i8; 8];
        let three = FullyConnectedS8 {
            requant: &THREE,
            ..s8
        };
        assert_eq!(
            fully_connected_s8(&three, &[0; 6], &[0; 12], None, &mut out),
            Err(KernelError::Parameters(
                "`requant` has neither one entry nor one per output channel"
            ))
        );
        let per_channel = FullyConnectedS8 {
            requant: &THREE[..1],
            output_depth: 1,
            ..s8
        };
        fully_connected_s8(&per_channel, &[0; 6], &[0; 3], None, &mut out[..2]).unwrap();
        assert!(matches!(
            fully_connected_s8_i4(&three, &[0; 6], &[0; 6], None, &mut out),
            Err(KernelError::Length {
                operand: "requant",
                ..
            })
        ));
        let mut out16 = [7_i16; 8];
        assert!(
            fully_connected_s16(
                &FullyConnectedS16 {
                    requant: &THREE,
                    ..s16
                },
                &[0; 6],
                &[0; 12],
                None,
                &mut out16
            )
            .is_err()
        );
        assert_eq!(out[2..], [7; 6]);
        assert_eq!(out16, [7; 8]);
    }
}
