//! AVERAGE_POOL_2D and MAX_POOL_2D: TFLM's `reference_integer_ops::AveragePool` / `MaxPool`
//! (int8 and int16) and `reference_ops::AveragePool` / `MaxPool` (float).

#[cfg(any(stowplan_dsp, test))]
pub(crate) mod dsp;
pub(crate) mod in_place;

use super::shared::{Part, clamp_to_i16};
use super::shared::{activation_f32, clamp_to_i8, sized_mut};

/// NHWC geometry of a 2-D pooling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolGeometry {
    /// Input shape `[N, H, W, C]`.
    pub input: [usize; 4],
    /// Output shape `[N, H, W, C]` (same `N` and `C`).
    pub output: [usize; 4],
    /// Window height.
    pub filter_h: usize,
    /// Window width.
    pub filter_w: usize,
    /// Vertical stride.
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// TFLM's `padding_values.height` (top).
    pub pad_h: usize,
    /// TFLM's `padding_values.width` (left).
    pub pad_w: usize,
}

/// Parameters of an int8 pooling (input and output share their quantisation).
#[derive(Clone, Copy, Debug)]
pub struct PoolS8 {
    /// The geometry.
    pub geometry: PoolGeometry,
    /// Lower clamp of the quantised output (fused activation).
    pub act_min: i32,
    /// Upper clamp of the quantised output (fused activation).
    pub act_max: i32,
}

/// Parameters of an int16 pooling (input and output share their quantisation).
#[derive(Clone, Copy, Debug)]
pub struct PoolS16 {
    /// The geometry.
    pub geometry: PoolGeometry,
    /// Lower clamp of the quantised output (fused activation).
    pub act_min: i32,
    /// Upper clamp of the quantised output (fused activation).
    pub act_max: i32,
}

/// Parameters of a float pooling.
#[derive(Clone, Copy, Debug)]
pub struct PoolF32 {
    /// The geometry.
    pub geometry: PoolGeometry,
    /// Lower clamp of the output (fused activation).
    pub act_min: f32,
    /// Upper clamp of the output (fused activation).
    pub act_max: f32,
}

/// Channels a pooling accumulates at once (its accumulators live on the stack).
const CHANNEL_BLOCK: usize = 16;

/// TFLM's pooling loop nest (batch, out_y, out_x, channel, then the window clamped to the
/// input: `filter_y` from `max(0, -in_y_origin)` to `min(filter_h, input_h - in_y_origin)`),
/// with blocks of up to [`CHANNEL_BLOCK`] channels going through the window together: each
/// channel's accumulator starts at `init` and takes the window's elements in TFLM's order
/// through `add`; `finish(acc, count)` (`count` the window's size) returns the output value,
/// or `None` to stop (TFLM's average pools return `false` on an empty window).
///
/// `part` is the part of the geometry the call computes (the overlapped driver's chunks of
/// pixels: [`Part`]). Returns without writing if the slices are shorter than the geometry
/// says.
#[inline(always)]
pub(super) fn pool_loops<T: Copy, A: Copy>(
    g: &PoolGeometry,
    part: Part,
    input: &[T],
    output: &mut [T],
    init: A,
    mut add: impl FnMut(A, T) -> A,
    mut finish: impl FnMut(A, usize) -> Option<T>,
) {
    let [batches, input_h, input_w, depth] = g.input;
    let [_, output_h, output_w, _] = g.output;
    let (Some(input), Some(output)) = (
        part.input(input, &in_place::pool_walk(g)),
        sized_mut(output, &[batches, output_h, output_w, depth]),
    ) else {
        return;
    };
    let mut out = output.iter_mut();
    for batch in 0..batches {
        for out_y in 0..output_h {
            let in_y_origin =
                (out_y.wrapping_mul(g.stride_h) as isize).wrapping_sub(g.pad_h as isize);
            let (y_start, y_end) = clamp_window(in_y_origin, g.filter_h, input_h);
            for out_x in 0..output_w {
                let in_x_origin = part.origin_x(out_x, g.stride_w, g.pad_w);
                let (x_start, x_end) = clamp_window(in_x_origin, g.filter_w, input_w);
                let count = y_end.saturating_sub(y_start) * x_end.saturating_sub(x_start);
                let mut first = 0;
                while first < depth {
                    let block = CHANNEL_BLOCK.min(depth - first);
                    let mut accs = [init; CHANNEL_BLOCK];
                    let accs = &mut accs[..block];
                    for filter_y in y_start..y_end {
                        let in_y = in_y_origin.wrapping_add(filter_y as isize) as usize;
                        for filter_x in x_start..x_end {
                            let in_x = in_x_origin.wrapping_add(filter_x as isize) as usize;
                            // Past the slice (so not read) for a skipped pixel.
                            let i = part
                                .pixel((batch * input_h + in_y) * input_w + in_x)
                                .wrapping_mul(depth)
                                .wrapping_add(first);
                            if let Some(pixel) = input.get(i..i.wrapping_add(block)) {
                                for (acc, &value) in accs.iter_mut().zip(pixel) {
                                    *acc = add(*acc, value);
                                }
                            }
                        }
                    }
                    for &acc in accs.iter() {
                        let Some(value) = finish(acc, count) else {
                            return;
                        };
                        if let Some(o) = out.next() {
                            *o = value;
                        }
                    }
                    first += block;
                }
            }
        }
    }
}

/// The window's `start..end` along one axis: `max(0, -origin)..min(filter, size - origin)`.
#[inline(always)]
pub(super) fn clamp_window(origin: isize, filter: usize, size: usize) -> (usize, usize) {
    let start = if origin < 0 { origin.unsigned_abs() } else { 0 };
    let limit = (size as isize).wrapping_sub(origin);
    let end = if limit < 0 {
        0
    } else {
        filter.min(limit as usize)
    };
    (start, end)
}

/// int8 AVERAGE_POOL_2D: TFLM's `reference_integer_ops::AveragePool`: the sum of the window
/// (clamped to the input), divided by its size rounding half away from zero, then clamped.
///
/// Like TFLM it stops at the first empty window (which SAME/VALID padding never produces).
///
/// # Preconditions
///
/// `input.len() == N*H*W*C`, `output.len() == N*OH*OW*C`.
pub fn average_pool_s8(p: &PoolS8, input: &[i8], output: &mut [i8]) {
    average_pool_s8_part(p, Part::WHOLE, input, output);
}

/// [`average_pool_s8`] on a part of its geometry (the overlapped driver's chunks of pixels).
///
/// With cfg `stowplan_dsp` (Armv7E-M) windows of at most 256 elements run blocked, four
/// channels at once with the DSP extension's instructions (`dsp`); the outputs
/// are the same.
#[inline(always)]
pub(super) fn average_pool_s8_part(p: &PoolS8, part: Part, input: &[i8], output: &mut [i8]) {
    #[cfg(stowplan_dsp)]
    if dsp::average_pool_s8(p, part, input, output) {
        return;
    }
    average_pool_s8_portable(p, part, input, output);
}

/// [`average_pool_s8_part`]'s general loop nest (every geometry). With the DSP kernels it is
/// their fallback for the windows they decline, a function of its own (as
/// `depthwise_conv2d_s8_portable`).
#[cfg_attr(not(stowplan_dsp), inline(always))]
#[cfg_attr(stowplan_dsp, inline(never))]
pub(super) fn average_pool_s8_portable(p: &PoolS8, part: Part, input: &[i8], output: &mut [i8]) {
    pool_loops(
        &p.geometry,
        part,
        input,
        output,
        0_i32,
        |acc, value| acc.wrapping_add(i32::from(value)),
        |acc, count| {
            Some(clamp_to_i8(
                rounded_average(acc, count)?,
                p.act_min,
                p.act_max,
            ))
        },
    );
}

/// int8 MAX_POOL_2D: TFLM's `reference_integer_ops::MaxPool`: the window's maximum (from
/// `-128`), then clamped to the activation range.
///
/// # Preconditions
///
/// As [`average_pool_s8`].
pub fn max_pool_s8(p: &PoolS8, input: &[i8], output: &mut [i8]) {
    max_pool_s8_part(p, Part::WHOLE, input, output);
}

/// [`max_pool_s8`] on a part of its geometry (the overlapped driver's chunks of pixels).
///
/// With cfg `stowplan_dsp` (Armv7E-M) it runs blocked, four channels at once with the DSP
/// extension's instructions (`dsp`); the outputs are the same.
#[inline(always)]
pub(super) fn max_pool_s8_part(p: &PoolS8, part: Part, input: &[i8], output: &mut [i8]) {
    #[cfg(stowplan_dsp)]
    if dsp::max_pool_s8(p, part, input, output) {
        return;
    }
    max_pool_s8_portable(p, part, input, output);
}

/// [`max_pool_s8_part`]'s general loop nest.
#[inline(always)]
pub(super) fn max_pool_s8_portable(p: &PoolS8, part: Part, input: &[i8], output: &mut [i8]) {
    // TFLM clamps with `std::max<int8_t>` / `std::min<int8_t>`: the bounds narrowed to int8.
    let act_min = p.act_min as i8;
    let act_max = p.act_max as i8;
    pool_loops(
        &p.geometry,
        part,
        input,
        output,
        i8::MIN,
        i8::max,
        |max, _| Some(max.max(act_min).min(act_max)),
    );
}

/// The rounded average of TFLM's integer `AveragePool`s: `(acc + count / 2) / count` for a
/// positive sum, `(acc - count / 2) / count` otherwise (C division, towards zero); `None` for
/// an empty window.
#[inline(always)]
fn rounded_average(acc: i32, count: usize) -> Option<i32> {
    let filter_count = i32::try_from(count).ok().filter(|&n| n > 0)?;
    Some(rounded_quotient(acc, filter_count, filter_count / 2))
}

/// [`rounded_average`]'s quotient for a positive `filter_count`, with `half = filter_count / 2`
/// given (the DSP kernel computes it once for the channels of a window, which share its
/// count).
#[inline(always)]
pub(super) fn rounded_quotient(acc: i32, filter_count: i32, half: i32) -> i32 {
    if acc > 0 {
        acc.wrapping_add(half) / filter_count
    } else {
        acc.wrapping_sub(half) / filter_count
    }
}

/// int16 AVERAGE_POOL_2D: TFLM's `reference_integer_ops::AveragePool` for int16: the window's
/// sum in int32, divided by its size rounding half away from zero, then clamped.
///
/// Like TFLM it stops at the first empty window (which SAME/VALID padding never produces).
///
/// # Preconditions
///
/// As [`average_pool_s8`].
pub fn average_pool_s16(p: &PoolS16, input: &[i16], output: &mut [i16]) {
    average_pool_s16_part(p, Part::WHOLE, input, output);
}

/// [`average_pool_s16`] on a part of its geometry (the overlapped driver's chunks of pixels).
///
/// With cfg `stowplan_dsp` (Armv7E-M) it runs blocked, two channels per word with the DSP
/// extension's instructions (`dsp`); the outputs are the same.
#[inline(always)]
pub(super) fn average_pool_s16_part(p: &PoolS16, part: Part, input: &[i16], output: &mut [i16]) {
    #[cfg(stowplan_dsp)]
    if dsp::average_pool_s16(p, part, input, output) {
        return;
    }
    average_pool_s16_portable(p, part, input, output);
}

/// [`average_pool_s16_part`]'s general loop nest.
#[inline(always)]
pub(super) fn average_pool_s16_portable(
    p: &PoolS16,
    part: Part,
    input: &[i16],
    output: &mut [i16],
) {
    pool_loops(
        &p.geometry,
        part,
        input,
        output,
        0_i32,
        |acc, value| acc.wrapping_add(i32::from(value)),
        |acc, count| {
            Some(clamp_to_i16(
                rounded_average(acc, count)?,
                p.act_min,
                p.act_max,
            ))
        },
    );
}

/// int16 MAX_POOL_2D: TFLM's `reference_integer_ops::MaxPool` for int16: the window's maximum
/// (from `-32768`), then clamped with the bounds narrowed to int16 (`std::max<int16_t>`).
///
/// # Preconditions
///
/// As [`average_pool_s8`].
pub fn max_pool_s16(p: &PoolS16, input: &[i16], output: &mut [i16]) {
    max_pool_s16_part(p, Part::WHOLE, input, output);
}

/// [`max_pool_s16`] on a part of its geometry (the overlapped driver's chunks of pixels).
///
/// With cfg `stowplan_dsp` (Armv7E-M) it runs blocked, two channels at once with the DSP
/// extension's instructions (`dsp`); the outputs are the same.
#[inline(always)]
pub(super) fn max_pool_s16_part(p: &PoolS16, part: Part, input: &[i16], output: &mut [i16]) {
    #[cfg(stowplan_dsp)]
    if dsp::max_pool_s16(p, part, input, output) {
        return;
    }
    max_pool_s16_portable(p, part, input, output);
}

/// [`max_pool_s16_part`]'s general loop nest.
#[inline(always)]
pub(super) fn max_pool_s16_portable(p: &PoolS16, part: Part, input: &[i16], output: &mut [i16]) {
    let act_min = p.act_min as i16;
    let act_max = p.act_max as i16;
    pool_loops(
        &p.geometry,
        part,
        input,
        output,
        i16::MIN,
        i16::max,
        |max, _| Some(max.max(act_min).min(act_max)),
    );
}

/// float AVERAGE_POOL_2D: TFLM's `reference_ops::AveragePool` (float): the window's sum in
/// order, divided by the (float) count, then clamped.
///
/// # Preconditions
///
/// As [`average_pool_s8`].
pub fn average_pool_f32(p: &PoolF32, input: &[f32], output: &mut [f32]) {
    average_pool_f32_part(p, Part::WHOLE, input, output);
}

/// [`average_pool_f32`] on a part of its geometry (the overlapped driver's chunks of pixels).
#[inline(always)]
pub(super) fn average_pool_f32_part(p: &PoolF32, part: Part, input: &[f32], output: &mut [f32]) {
    pool_loops(
        &p.geometry,
        part,
        input,
        output,
        0.0_f32,
        |total, value| total + value,
        |total, count| {
            // TFLM counts in a float, one `+= 1` per element, which stops growing at 2^24.
            let filter_count = count.min(1 << 24) as f32;
            if filter_count == 0.0 {
                return None;
            }
            Some(activation_f32(total / filter_count, p.act_min, p.act_max))
        },
    );
}

/// float MAX_POOL_2D: TFLM's `reference_ops::MaxPool` (float): `std::max` over the window
/// from the lowest float, then clamped.
///
/// # Preconditions
///
/// As [`average_pool_s8`].
pub fn max_pool_f32(p: &PoolF32, input: &[f32], output: &mut [f32]) {
    max_pool_f32_part(p, Part::WHOLE, input, output);
}

/// [`max_pool_f32`] on a part of its geometry (the overlapped driver's chunks of pixels).
#[inline(always)]
pub(super) fn max_pool_f32_part(p: &PoolF32, part: Part, input: &[f32], output: &mut [f32]) {
    pool_loops(
        &p.geometry,
        part,
        input,
        output,
        f32::MIN,
        // `std::max(max, value)` is `max < value ? value : max`.
        |max, value| if max < value { value } else { max },
        |max, _| Some(activation_f32(max, p.act_min, p.act_max)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry(input: [usize; 4], output: [usize; 4], filter: usize) -> PoolGeometry {
        PoolGeometry {
            input,
            output,
            filter_h: filter,
            filter_w: filter,
            stride_h: filter,
            stride_w: filter,
            pad_h: 0,
            pad_w: 0,
        }
    }

    #[test]
    fn int16_pools_round_half_away_and_clamp() {
        let p = PoolS16 {
            geometry: geometry([1, 2, 2, 1], [1, 1, 1, 1], 2),
            act_min: -32768,
            act_max: 32767,
        };
        let mut out = [0i16; 1];
        // (32767 + 32767 + 32767 - 3) / 4 = 24574.5 -> 24575 (the sum needs 32 bits).
        average_pool_s16(&p, &[32767, 32767, 32767, -3], &mut out);
        assert_eq!(out, [24575]);
        // -10 / 4 = -2.5 -> -3.
        average_pool_s16(&p, &[-4, -3, -2, -1], &mut out);
        assert_eq!(out, [-3]);
        max_pool_s16(&p, &[-4, -3, 300, -1], &mut out);
        assert_eq!(out, [300]);
        let p = PoolS16 {
            act_min: 0,
            act_max: 200,
            ..p
        };
        max_pool_s16(&p, &[-4, -3, 300, -1], &mut out);
        assert_eq!(out, [200]);
        max_pool_s16(&p, &[-4, -3, -300, -1], &mut out);
        assert_eq!(out, [0]);
    }
}
