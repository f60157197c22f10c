//! AVERAGE_POOL_2D and MAX_POOL_2D: TFLM's `reference_integer_ops::AveragePool` / `MaxPool`
//! (int8 and int16) and `reference_ops::AveragePool` / `MaxPool` (float).

#[cfg(any(stowplan_dsp, test))]
pub(crate) mod dsp;
pub(crate) mod in_place;

use super::shared::check::{KernelError, check, elements, length, require};
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

/// What every pool (and L2_POOL_2D) needs of its geometry and of its input's and output's
/// lengths: shapes whose sizes do not overflow, the output's batches and channels the input's,
/// windows and strides of at least 1.
pub(super) const fn check_pool(
    g: &PoolGeometry,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length("input", elements(&g.input), input));
    check!(length("output", elements(&g.output), output));
    check!(require(
        g.output[0] == g.input[0],
        "the output's batches are not the input's"
    ));
    check!(require(
        g.output[3] == g.input[3],
        "the output's channels are not the input's"
    ));
    require(
        g.filter_h >= 1 && g.filter_w >= 1 && g.stride_h >= 1 && g.stride_w >= 1,
        "a window size or a stride is 0",
    )
}

/// Whether every window along one axis (`out` outputs, `size` inputs) holds an input element,
/// its origin `o · stride − pad` exact in `isize`: the first window's reaches past the padding
/// (`pad < filter`), the last's starts inside the input (`(out − 1) · stride < size + pad`).
const fn axis_windows_reach(
    out: usize,
    size: usize,
    filter: usize,
    stride: usize,
    pad: usize,
) -> bool {
    if out == 0 {
        return true;
    }
    let Some(last) = (out - 1).checked_mul(stride) else {
        return false;
    };
    let exact = last <= isize::MAX as usize && pad <= isize::MAX as usize;
    let inside = match size.checked_add(pad) {
        Some(end) => last < end,
        None => true,
    };
    exact && size >= 1 && pad < filter && inside
}

/// What an average pool needs beyond [`check_pool`]: every window holds an input element (TFLM's
/// kernels stop at an empty one, which SAME and VALID padding never make), for the integer ones
/// in a count that fits `i32`.
const fn check_average(g: &PoolGeometry, integer: bool) -> Result<(), KernelError> {
    let [n, oh, ow, c] = g.output;
    if n == 0 || oh == 0 || ow == 0 || c == 0 {
        return Ok(());
    }
    check!(require(
        axis_windows_reach(oh, g.input[1], g.filter_h, g.stride_h, g.pad_h)
            && axis_windows_reach(ow, g.input[2], g.filter_w, g.stride_w, g.pad_w),
        "a window lies wholly in the padding"
    ));
    let rows = if g.filter_h < g.input[1] {
        g.filter_h
    } else {
        g.input[1]
    };
    let columns = if g.filter_w < g.input[2] {
        g.filter_w
    } else {
        g.input[2]
    };
    require(
        !integer
            || match rows.checked_mul(columns) {
                Some(count) => count <= i32::MAX as usize,
                None => false,
            },
        "a window holds more elements than an int32 counts",
    )
}

/// [`average_pool_s8`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_average_pool_s8(
    p: &PoolS8,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(check_pool(&p.geometry, input, output));
    check_average(&p.geometry, true)
}

/// [`max_pool_s8`]'s preconditions, as [`check_average_pool_s8`]'s but for the windows (an
/// empty one gives the clamped least value).
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_max_pool_s8(p: &PoolS8, input: usize, output: usize) -> Result<(), KernelError> {
    check_pool(&p.geometry, input, output)
}

/// [`average_pool_s16`]'s preconditions, as [`check_average_pool_s8`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_average_pool_s16(
    p: &PoolS16,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(check_pool(&p.geometry, input, output));
    check_average(&p.geometry, true)
}

/// [`max_pool_s16`]'s preconditions, as [`check_max_pool_s8`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_max_pool_s16(
    p: &PoolS16,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_pool(&p.geometry, input, output)
}

/// [`average_pool_f32`]'s preconditions, as [`check_average_pool_s8`]'s (the float count has
/// no limit).
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_average_pool_f32(
    p: &PoolF32,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(check_pool(&p.geometry, input, output));
    check_average(&p.geometry, false)
}

/// [`max_pool_f32`]'s preconditions, as [`check_max_pool_s8`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_max_pool_f32(
    p: &PoolF32,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_pool(&p.geometry, input, output)
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    use super::{Part, PoolF32, PoolS8, PoolS16};

    /// [`average_pool_s8`](super::average_pool_s8), its
    /// [`check`](super::check_average_pool_s8) proven.
    #[inline]
    pub fn average_pool_s8(p: &PoolS8, input: &[i8], output: &mut [i8]) {
        debug_assert!(super::check_average_pool_s8(p, input.len(), output.len()).is_ok());
        super::average_pool_s8_part(p, Part::WHOLE, input, output);
    }

    /// [`max_pool_s8`](super::max_pool_s8), its [`check`](super::check_max_pool_s8) proven.
    #[inline]
    pub fn max_pool_s8(p: &PoolS8, input: &[i8], output: &mut [i8]) {
        debug_assert!(super::check_max_pool_s8(p, input.len(), output.len()).is_ok());
        super::max_pool_s8_part(p, Part::WHOLE, input, output);
    }

    /// [`average_pool_s16`](super::average_pool_s16), its
    /// [`check`](super::check_average_pool_s16) proven.
    #[inline]
    pub fn average_pool_s16(p: &PoolS16, input: &[i16], output: &mut [i16]) {
        debug_assert!(super::check_average_pool_s16(p, input.len(), output.len()).is_ok());
        super::average_pool_s16_part(p, Part::WHOLE, input, output);
    }

    /// [`max_pool_s16`](super::max_pool_s16), its [`check`](super::check_max_pool_s16) proven.
    #[inline]
    pub fn max_pool_s16(p: &PoolS16, input: &[i16], output: &mut [i16]) {
        debug_assert!(super::check_max_pool_s16(p, input.len(), output.len()).is_ok());
        super::max_pool_s16_part(p, Part::WHOLE, input, output);
    }

    /// [`average_pool_f32`](super::average_pool_f32), its
    /// [`check`](super::check_average_pool_f32) proven.
    #[inline]
    pub fn average_pool_f32(p: &PoolF32, input: &[f32], output: &mut [f32]) {
        debug_assert!(super::check_average_pool_f32(p, input.len(), output.len()).is_ok());
        super::average_pool_f32_part(p, Part::WHOLE, input, output);
    }

    /// [`max_pool_f32`](super::max_pool_f32), its [`check`](super::check_max_pool_f32) proven.
    #[inline]
    pub fn max_pool_f32(p: &PoolF32, input: &[f32], output: &mut [f32]) {
        debug_assert!(super::check_max_pool_f32(p, input.len(), output.len()).is_ok());
        super::max_pool_f32_part(p, Part::WHOLE, input, output);
    }
}

/// TFLM's pooling loop nest (batch, out_y, out_x, channel, then the window clamped to the
/// input: `filter_y` from `max(0, -in_y_origin)` to `min(filter_h, input_h - in_y_origin)`),
/// with blocks of up to [`CHANNEL_BLOCK`] channels going through the window together: each
/// channel's accumulator starts at `init` and takes the window's elements in TFLM's order
/// through `add`; `finish(acc, count)` (`count` the window's size) returns the output value,
/// or `None` to stop (TFLM's average pools return `false` on an empty window).
///
/// `part` is the part of the geometry the call computes (the overlapped driver's chunks of
/// pixels: [`Part`]). Returns without writing if the slices are shorter than the geometry
/// says (the entries' checks rule that out, and an empty window, where `finish` stops).
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
/// TFLM stops at the first empty window (which SAME/VALID padding never produces): its check
/// refuses one.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_average_pool_s8`]) hold: `input.len() == N*H*W*C`, `output.len() == N*OH*OW*C`
/// with the geometry's shapes (the output's `N` and `C` the input's), windows and strides of
/// at least 1, every window holding an input element (the padding before an axis below the
/// window, the last window starting inside the input or its padding after), in at most
/// `i32::MAX` elements.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn average_pool_s8(p: &PoolS8, input: &[i8], output: &mut [i8]) -> Result<(), KernelError> {
    check_average_pool_s8(p, input.len(), output.len())?;
    proven::average_pool_s8(p, input, output);
    Ok(())
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
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_max_pool_s8`])
/// hold: as [`average_pool_s8`]'s but for the windows, which may lie in the padding.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn max_pool_s8(p: &PoolS8, input: &[i8], output: &mut [i8]) -> Result<(), KernelError> {
    check_max_pool_s8(p, input.len(), output.len())?;
    proven::max_pool_s8(p, input, output);
    Ok(())
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
/// TFLM stops at the first empty window (which SAME/VALID padding never produces): its check
/// refuses one.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_average_pool_s16`]) hold: as [`average_pool_s8`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn average_pool_s16(p: &PoolS16, input: &[i16], output: &mut [i16]) -> Result<(), KernelError> {
    check_average_pool_s16(p, input.len(), output.len())?;
    proven::average_pool_s16(p, input, output);
    Ok(())
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
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_max_pool_s16`])
/// hold: as [`max_pool_s8`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn max_pool_s16(p: &PoolS16, input: &[i16], output: &mut [i16]) -> Result<(), KernelError> {
    check_max_pool_s16(p, input.len(), output.len())?;
    proven::max_pool_s16(p, input, output);
    Ok(())
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
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_average_pool_f32`]) hold: as [`average_pool_s8`]'s (any count).
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn average_pool_f32(p: &PoolF32, input: &[f32], output: &mut [f32]) -> Result<(), KernelError> {
    check_average_pool_f32(p, input.len(), output.len())?;
    proven::average_pool_f32(p, input, output);
    Ok(())
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
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_max_pool_f32`])
/// hold: as [`max_pool_s8`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn max_pool_f32(p: &PoolF32, input: &[f32], output: &mut [f32]) -> Result<(), KernelError> {
    check_max_pool_f32(p, input.len(), output.len())?;
    proven::max_pool_f32(p, input, output);
    Ok(())
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
        average_pool_s16(&p, &[32767, 32767, 32767, -3], &mut out).unwrap();
        assert_eq!(out, [24575]);
        // -10 / 4 = -2.5 -> -3.
        average_pool_s16(&p, &[-4, -3, -2, -1], &mut out).unwrap();
        assert_eq!(out, [-3]);
        max_pool_s16(&p, &[-4, -3, 300, -1], &mut out).unwrap();
        assert_eq!(out, [300]);
        let p = PoolS16 {
            act_min: 0,
            act_max: 200,
            ..p
        };
        max_pool_s16(&p, &[-4, -3, 300, -1], &mut out).unwrap();
        assert_eq!(out, [200]);
        max_pool_s16(&p, &[-4, -3, -300, -1], &mut out).unwrap();
        assert_eq!(out, [0]);
    }

    /// Each pool refuses, writing nothing, every kind of inconsistent call: a slice of the
    /// wrong length, batches or channels that differ, a zero window or stride, and (the
    /// average pools) a window wholly in the padding; its one-buffer entry a tensor past the
    /// buffer's end or an input too close above the output.
    #[test]
    fn refused_calls_write_nothing() {
        use super::super::shared::check::KernelError;
        let g = geometry([1, 4, 4, 2], [1, 2, 2, 2], 2);
        let refusals = |avg: bool| {
            let mut cases = std::vec![
                (g, 31, 8, "input"),
                (g, 32, 9, "output"),
                (
                    PoolGeometry {
                        output: [2, 2, 2, 2],
                        ..g
                    },
                    32,
                    16,
                    "batches"
                ),
                (
                    PoolGeometry {
                        output: [1, 2, 2, 1],
                        ..g
                    },
                    32,
                    4,
                    "channels"
                ),
                (PoolGeometry { stride_w: 0, ..g }, 32, 8, "stride"),
                (PoolGeometry { filter_h: 0, ..g }, 32, 8, "window"),
            ];
            if avg {
                // The first row's window lies wholly in the padding above.
                cases.push((PoolGeometry { pad_h: 2, ..g }, 32, 8, "padding"));
            }
            cases
        };
        extern crate std;
        macro_rules! refused {
            ($f:ident, $check:ident, $params:ident, $t:ty, $avg:expr, $lo:expr, $hi:expr) => {
                for (g, n, m, why) in refusals($avg) {
                    let p = $params { geometry: g, act_min: $lo, act_max: $hi };
                    let input = std::vec![<$t>::default(); n];
                    let mut out = std::vec![<$t>::from(7_i8); m];
                    let r = $f(&p, &input, &mut out);
                    assert!(r.is_err(), "{} {why}", stringify!($f));
                    assert_eq!(r, $check(&p, n, m));
                    assert!(out.iter().all(|&v| v == <$t>::from(7_i8)), "{} {why}", stringify!($f));
                    if why == "input" {
                        assert_eq!(
                            r,
                            Err(KernelError::Length { operand: "input", expected: Some(32), found: 31 })
                        );
                    }
                }
                // On one buffer: the output past the end, then the input just below the
                // least displacement.
                let p = $params { geometry: g, act_min: $lo, act_max: $hi };
                for (len, at) in [(39, 8), (33, 1)] {
                    let mut buf = std::vec![<$t>::from(7_i8); len];
                    let r = in_place::$f(&p, &mut buf, at, 0);
                    assert_eq!(r, Err(KernelError::Placement), "{} one buffer", stringify!($f));
                    assert!(buf.iter().all(|&v| v == <$t>::from(7_i8)));
                }
                let mut buf = std::vec![<$t>::from(7_i8); 40];
                in_place::$f(&p, &mut buf, 8, 0).unwrap();
            };
        }
        refused!(
            average_pool_s8,
            check_average_pool_s8,
            PoolS8,
            i8,
            true,
            -128,
            127
        );
        refused!(max_pool_s8, check_max_pool_s8, PoolS8, i8, false, -128, 127);
        refused!(
            average_pool_s16,
            check_average_pool_s16,
            PoolS16,
            i16,
            true,
            -32768,
            32767
        );
        refused!(
            max_pool_s16,
            check_max_pool_s16,
            PoolS16,
            i16,
            false,
            -32768,
            32767
        );
        refused!(
            average_pool_f32,
            check_average_pool_f32,
            PoolF32,
            f32,
            true,
            f32::MIN,
            f32::MAX
        );
        refused!(
            max_pool_f32,
            check_max_pool_f32,
            PoolF32,
            f32,
            false,
            f32::MIN,
            f32::MAX
        );
        // A max pool's window in the padding is no error: it gives the clamped least value.
        let p = PoolS8 {
            geometry: PoolGeometry { pad_h: 2, ..g },
            act_min: -128,
            act_max: 127,
        };
        let mut out = [7_i8; 8];
        max_pool_s8(&p, &[1; 32], &mut out).unwrap();
        assert_eq!(out[..4], [-128; 4]);
    }
}
