//! int16 DEPTHWISE_CONV_2D blocked for the Cortex-M DSP extension (cfg `stowplan_dsp`): one
//! channel's taps summed in 32 bits (`SMLABB`, `SMLABT`, `SMLATT`), then widened (see
//! [`depthwise_conv2d_s16`]). A product of an int16 and an int8 is at most 2^22 in magnitude,
//! so a window of at most [`MAX_TAPS`] (511) taps sums to less than 2^31: no wrap, the int64
//! sum exactly. A larger filter runs the portable kernel.

use crate::dsp::{smlabb, smlabt, smlatt, sxtb16, sxtb16_ror8};
use crate::kernels::shared::blocked_s16::{pair, tail, word4};
use crate::kernels::shared::{ConvS16, Part, origin, sized, sized_mut};

/// Taps per window DEPTHWISE_CONV_2D sums in 32 bits: `511 * 2^22 < 2^31`, so the sum of a
/// channel's products (each at most `2^15 * 2^7` in magnitude) cannot wrap.
pub(crate) const MAX_TAPS: usize = 511;

/// Whether every window coordinate `(first + out) * stride - pad + dilation * k` (`out <
/// outs`, `k < filter`) lies in `isize` with no step of [`origin`] or [`inside`] wrapping:
/// then the valid taps of a window are one range, [`tap_range`]'s.
fn no_wrap(
    outs: usize,
    first: usize,
    stride: usize,
    pad: usize,
    dilation: usize,
    filter: usize,
) -> bool {
    let reach = first
        .checked_add(outs)
        .and_then(|n| n.checked_mul(stride))
        .and_then(|n| n.checked_add(pad))
        .and_then(|n| n.checked_add(dilation.checked_mul(filter)?));
    reach.is_some_and(|n| n <= isize::MAX as usize)
}

/// The taps `start..end` of a window of `filter` taps, `dilation` apart, at `origin`, that lie
/// in `0..size` (empty if none do): the `k` for which [`inside`] is `Some`, given
/// [`no_wrap`] and `dilation >= 1`.
#[inline(always)]
fn tap_range(origin: isize, dilation: usize, filter: usize, size: usize) -> (usize, usize) {
    let start = if origin < 0 {
        origin.unsigned_abs().div_ceil(dilation)
    } else {
        0
    };
    let end = match (size as isize).checked_sub(origin) {
        Some(room) if room > 0 => (room as usize).div_ceil(dilation).min(filter),
        _ => 0,
    };
    (start, end.max(start))
}

/// The valid taps of one output pixel's window: rows `rows`, taps `taps` of each, the input
/// pixel of the first (its index before [`Part::pixel`], as the portable kernel computes it)
/// and the steps from tap to tap and row to row, in pixels.
struct Window {
    rows: (usize, usize),
    taps: (usize, usize),
    corner: usize,
    tap_step: usize,
    row_step: usize,
    filter_w: usize,
}

impl Window {
    /// The window's rows as runs of taps: `run(acc, pixel, tap, n)` adds `n` taps, the first at
    /// input pixel `pixel` (its index in the slice) and filter tap `tap` (its index
    /// `filter_y * filter_w + filter_x`), the others [`Window::tap_step`] pixels and one filter
    /// tap apart. A row's taps on pixels `part` skips (below its slice: the portable kernel
    /// reads nothing there) are left out: they are the row's first ones.
    #[inline(always)]
    fn rows<A>(
        &self,
        part: Part,
        mut acc: A,
        mut run: impl FnMut(A, usize, usize, usize) -> A,
    ) -> A {
        let ((y0, y1), (x0, x1)) = (self.rows, self.taps);
        if x0 >= x1 {
            return acc;
        }
        let n = x1 - x0;
        // A non-empty window's indices are exact (no wrapping: see `no_wrap`).
        let (mut row, mut tap) = (self.corner, y0.wrapping_mul(self.filter_w).wrapping_add(x0));
        for _ in y0..y1 {
            if row >= part.skip {
                acc = run(acc, row - part.skip, tap, n);
            } else {
                // Taps `t` from the first whose pixel `row + t * tap_step` is in the slice.
                let skipped = (part.skip - row).div_ceil(self.tap_step);
                if skipped < n {
                    let pixel = row.wrapping_add(skipped.wrapping_mul(self.tap_step));
                    acc = run(acc, part.pixel(pixel), tap + skipped, n - skipped);
                }
            }
            row = row.wrapping_add(self.row_step);
            tap = tap.wrapping_add(self.filter_w);
        }
        acc
    }
}

/// A run of `n` taps of four channels with depth multiplier 1: tap `t`'s inputs are
/// `xs[t * xstep..][..4]`, its weights `ws[t * wstep..][..4]` (a tap past either slice ends the
/// run). Per tap two input words (channels `c, c + 1` and `c + 2, c + 3`), one weight word
/// widened in pairs (`c, c + 2` and `c + 1, c + 3`), four halfword multiply-accumulates.
#[inline(always)]
fn run_words(
    xs: &[i16],
    ws: &[i8],
    xstep: usize,
    wstep: usize,
    n: usize,
    acc: [i32; 4],
) -> [i32; 4] {
    let [mut a0, mut a1, mut a2, mut a3] = acc;
    let (mut xi, mut wi) = (0_usize, 0_usize);
    for _ in 0..n {
        let x = xs.get(xi..).and_then(|x| x.first_chunk::<4>());
        let w = ws.get(wi..).and_then(|w| w.first_chunk::<4>());
        let (Some(&[x0, x1, x2, x3]), Some(w)) = (x, w) else {
            break;
        };
        let w = word4(w);
        let (w02, w13) = (sxtb16(w), sxtb16_ror8(w));
        let x01 = pair(x0, x1);
        a0 = smlabb(x01, w02, a0);
        a1 = smlabt(w13, x01, a1);
        let x23 = pair(x2, x3);
        a2 = smlabt(x23, w02, a2);
        a3 = smlatt(x23, w13, a3);
        xi = xi.wrapping_add(xstep);
        wi = wi.wrapping_add(wstep);
    }
    [a0, a1, a2, a3]
}

/// A run of `n` taps of four output channels of one input channel (a depth multiplier other
/// than 1): tap `t`'s input value is `xs[t * xstep]`, its weights `ws[t * wstep..][..4]`; the
/// value in the low halfword against both halfwords of the widened weights.
#[inline(always)]
fn run_shared(
    xs: &[i16],
    ws: &[i8],
    xstep: usize,
    wstep: usize,
    n: usize,
    acc: [i32; 4],
) -> [i32; 4] {
    let [mut a0, mut a1, mut a2, mut a3] = acc;
    let (mut xi, mut wi) = (0_usize, 0_usize);
    for _ in 0..n {
        let w = ws.get(wi..).and_then(|w| w.first_chunk::<4>());
        let (Some(&x), Some(w)) = (xs.get(xi), w) else {
            break;
        };
        let x = u32::from(x as u16);
        let w = word4(w);
        let (w02, w13) = (sxtb16(w), sxtb16_ror8(w));
        a0 = smlabb(x, w02, a0);
        a1 = smlabb(x, w13, a1);
        a2 = smlabt(x, w02, a2);
        a3 = smlabt(x, w13, a3);
        xi = xi.wrapping_add(xstep);
        wi = wi.wrapping_add(wstep);
    }
    [a0, a1, a2, a3]
}

/// A run of `n` taps of one channel: `xs[t * xstep] * ws[t * wstep]` summed (the channels past
/// the blocks of four).
#[inline(always)]
fn run_one(xs: &[i16], ws: &[i8], xstep: usize, wstep: usize, n: usize, mut acc: i32) -> i32 {
    let (mut xi, mut wi) = (0_usize, 0_usize);
    for _ in 0..n {
        let (Some(&x), Some(&w)) = (xs.get(xi), ws.get(wi)) else {
            break;
        };
        acc = acc.wrapping_add(i32::from(w) * i32::from(x));
        xi = xi.wrapping_add(xstep);
        wi = wi.wrapping_add(wstep);
    }
    acc
}

/// int16 DEPTHWISE_CONV_2D (TFLM's `DepthwiseConvPerChannel` for 16-bit input, its `int64_t`
/// sums taken in 32 bits: see the module docs) on part `part` of its geometry, with any
/// strides, padding and dilation (at least 1): per output pixel, its channels in blocks of
/// four, each block's sums over the window's valid taps in four registers, then
/// `finish(acc, channel)` for each.
///
/// - Depth multiplier 1: per tap two input words (channels `c, c + 1` and `c + 2, c + 3`) and
///   one weight word widened in pairs (channels `c, c + 2` and `c + 1, c + 3`), four
///   halfword multiply-accumulates (`SMLABB`, `SMLABT`, `SMLATT`); the last `depth % 4`
///   channels one by one.
/// - Other multipliers: per input channel, its outputs in blocks of four that share its value
///   (in the low halfword, against both halfwords of the widened weights), the last
///   `multiplier % 4` one by one.
///
/// Writes in memory order (batch, y, x, channel). Returns `false`, having written nothing, for
/// a filter of more than [`MAX_TAPS`] taps, a dilation of 0, inconsistent channel counts,
/// coordinates that could wrap ([`no_wrap`]) or slices shorter than the geometry says (the
/// caller runs the portable kernel then).
#[inline(always)]
pub(crate) fn depthwise_conv2d_s16(
    p: &ConvS16,
    part: Part,
    input: &[i16],
    filter: &[i8],
    output: &mut [i16],
    finish: impl Fn(i64, usize) -> i16,
) -> bool {
    let g = &p.geometry;
    let [batches, input_h, input_w, input_d] = g.input;
    let [_, filter_h, filter_w, depth] = g.filter;
    let [out_batches, output_h, output_w, output_d] = g.output;
    let multiplier = g.depth_multiplier;
    if input_d.checked_mul(multiplier) != Some(depth)
        || output_d != depth
        || out_batches != batches
        || depth == 0
        || g.dilation_h == 0
        || g.dilation_w == 0
        || filter_h.checked_mul(filter_w).is_none_or(|t| t > MAX_TAPS)
        || !no_wrap(output_h, 0, g.stride_h, g.pad_h, g.dilation_h, filter_h)
        || !no_wrap(
            output_w,
            part.x0,
            g.stride_w,
            g.pad_w,
            g.dilation_w,
            filter_w,
        )
    {
        return false;
    }
    let (Some(input), Some(filter), Some(output)) = (
        part.input(input, g),
        sized(filter, &[filter_h, filter_w, depth]),
        sized_mut(output, &[batches, output_h, output_w, depth]),
    ) else {
        return false;
    };
    let mut pixels = output.chunks_exact_mut(depth);
    for batch in 0..batches {
        for out_y in 0..output_h {
            let in_y_origin = origin(out_y, g.stride_h, g.pad_h);
            let rows = tap_range(in_y_origin, g.dilation_h, filter_h, input_h);
            for out_x in 0..output_w {
                let in_x_origin = part.origin_x(out_x, g.stride_w, g.pad_w);
                let taps = tap_range(in_x_origin, g.dilation_w, filter_w, input_w);
                let Some(pixel) = pixels.next() else {
                    return true;
                };
                // The input pixel of tap (rows.0, taps.0) (its coordinates lie in the input
                // when the window is not empty; wrapping, and never used, when it is).
                let in_y = in_y_origin.wrapping_add((g.dilation_h.wrapping_mul(rows.0)) as isize);
                let in_x = in_x_origin.wrapping_add((g.dilation_w.wrapping_mul(taps.0)) as isize);
                let window = Window {
                    rows,
                    taps,
                    corner: (batch.wrapping_mul(input_h).wrapping_add(in_y as usize))
                        .wrapping_mul(input_w)
                        .wrapping_add(in_x as usize),
                    tap_step: g.dilation_w,
                    row_step: g.dilation_h.wrapping_mul(input_w),
                    filter_w,
                };
                if multiplier == 1 {
                    channels_words(&window, part, input, filter, depth, pixel, &finish);
                } else {
                    channels_shared(
                        &window, part, input, filter, input_d, multiplier, pixel, &finish,
                    );
                }
            }
        }
    }
    true
}

/// The sums of one block of a pixel's channels over its window, a row of taps at a time
/// ([`Window::rows`]): the block's four channels from `c` with depth multiplier 1
/// ([`run_words`]: `FOUR` and `SHARED` false), four outputs `c..c + 4` of input channel `ic`
/// (a depth multiplier of at least 2: [`run_shared`], `SHARED`), or channel `c` alone
/// ([`run_one`]: not `FOUR`, its sum in lane 0; input channel `ic`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn block<const FOUR: bool, const SHARED: bool>(
    window: &Window,
    part: Part,
    input: &[i16],
    filter: &[i8],
    input_d: usize,
    depth: usize,
    ic: usize,
    c: usize,
) -> [i32; 4] {
    // From tap to tap: `tap_step` pixels of the input, one filter tap.
    let xstep = window.tap_step.saturating_mul(input_d);
    window.rows(part, [0_i32; 4], |acc, px, tap, n| {
        let xs = tail(input, px.wrapping_mul(input_d).wrapping_add(ic));
        let ws = tail(filter, tap.wrapping_mul(depth).wrapping_add(c));
        match (FOUR, SHARED) {
            (true, false) => run_words(xs, ws, xstep, depth, n, acc),
            (true, true) => run_shared(xs, ws, xstep, depth, n, acc),
            _ => {
                let [a0, a1, a2, a3] = acc;
                [run_one(xs, ws, xstep, depth, n, a0), a1, a2, a3]
            }
        }
    })
}

/// One output pixel of [`depthwise_conv2d_s16`] with depth multiplier 1: `depth` channels, in
/// blocks of four, then the rest one by one.
#[inline(always)]
fn channels_words(
    window: &Window,
    part: Part,
    input: &[i16],
    filter: &[i8],
    depth: usize,
    pixel: &mut [i16],
    finish: &impl Fn(i64, usize) -> i16,
) {
    let (blocks, rest) = pixel.as_chunks_mut::<4>();
    let mut c = 0;
    for out in blocks {
        let [a0, a1, a2, a3] =
            block::<true, false>(window, part, input, filter, depth, depth, c, c);
        *out = [
            finish(i64::from(a0), c),
            finish(i64::from(a1), c + 1),
            finish(i64::from(a2), c + 2),
            finish(i64::from(a3), c + 3),
        ];
        c += 4;
    }
    for y in rest {
        let [acc, ..] = block::<false, false>(window, part, input, filter, depth, depth, c, c);
        *y = finish(i64::from(acc), c);
        c += 1;
    }
}

/// One output pixel of [`depthwise_conv2d_s16`] with depth multiplier `multiplier` (not 1):
/// per input channel its `multiplier` outputs, in blocks of four, then the rest one by one.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn channels_shared(
    window: &Window,
    part: Part,
    input: &[i16],
    filter: &[i8],
    input_d: usize,
    multiplier: usize,
    pixel: &mut [i16],
    finish: &impl Fn(i64, usize) -> i16,
) {
    let depth = input_d * multiplier;
    for (ic, outs) in pixel.chunks_exact_mut(multiplier).enumerate() {
        let (blocks, rest) = outs.as_chunks_mut::<4>();
        let mut c = ic * multiplier;
        for out in blocks {
            let [a0, a1, a2, a3] =
                block::<true, true>(window, part, input, filter, input_d, depth, ic, c);
            *out = [
                finish(i64::from(a0), c),
                finish(i64::from(a1), c + 1),
                finish(i64::from(a2), c + 2),
                finish(i64::from(a3), c + 3),
            ];
            c += 4;
        }
        for y in rest {
            let [acc, ..] =
                block::<false, true>(window, part, input, filter, input_d, depth, ic, c);
            *y = finish(i64::from(acc), c);
            c += 1;
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::depthwise_conv::depthwise_conv2d_s16_part;
    use crate::kernels::shared::testing::geometry;
    use crate::kernels::shared::testing::s16::{REQUANT, Rng, act, dim, part, varied};
    use crate::kernels::shared::{ConvGeometry, ConvS16, requantize_channel_s16};

    #[test]
    fn depthwise_equals_the_portable_kernel() {
        let mut rng = Rng(5);
        let cases = if cfg!(miri) { 6 } else { 600 };
        // Smaller images under miri.
        let side = if cfg!(miri) { 4 } else { 7 };
        let (mut done, mut varied_cases) = (0, 0);
        while done < cases {
            let (n, h, w) = (rng.range(1, 2), rng.range(1, side), rng.range(1, side));
            let (kh, kw) = (rng.range(1, 4), rng.range(1, 4));
            let m = [1, 1, 1, 2, 3, 4, 5, 8][rng.next() as usize % 8];
            let ic = rng.range(1, if m == 1 { 18 } else { 4 });
            let c = ic * m;
            let (Some((sh, dh, ph, oh)), Some((sw, dw, pw, ow))) =
                (dim(&mut rng, h, kh), dim(&mut rng, w, kw))
            else {
                continue;
            };
            if n * oh * ow * c > 3000 {
                continue;
            }
            let g = ConvGeometry {
                stride_h: sh,
                stride_w: sw,
                dilation_h: dh,
                dilation_w: dw,
                pad_h: ph,
                pad_w: pw,
                depth_multiplier: m,
                ..geometry([n, h, w, ic], [1, kh, kw, c], [n, oh, ow, c])
            };
            let (act_min, act_max) = act(&mut rng);
            let p = ConvS16 {
                geometry: g,
                requant: &REQUANT,
                act_min,
                act_max,
            };
            let mut input = [0i16; 2 * 7 * 7 * 18];
            let mut filter = [0i8; 16 * 32];
            rng.fill16(&mut input[..n * h * w * ic]);
            rng.fill8(&mut filter[..kh * kw * c]);
            let bias: [i64; 32] = core::array::from_fn(|_| i64::from(rng.next() as i32 >> 6));
            let bias = (!rng.next().is_multiple_of(4)).then_some(&bias[..c]);
            let part = part(&mut rng, &g);
            let input = &input[part.skip * ic..n * h * w * ic];
            let filter = &filter[..kh * kw * c];
            let len = n * oh * ow * c;
            let (mut fast, mut slow) = ([7i16; 3000], [7i16; 3000]);
            let finish = |acc, c| requantize_channel_s16(acc, c, bias, &REQUANT, act_min, act_max);
            assert!(depthwise_conv2d_s16(
                &p,
                part,
                input,
                filter,
                &mut fast[..len],
                finish
            ));
            depthwise_conv2d_s16_part(&p, part, input, filter, bias, &mut slow[..len]);
            assert_eq!(fast[..len], slow[..len], "{:?}", (g, part));
            varied_cases += usize::from(varied(&fast[..len]));
            done += 1;
        }
        // Outputs that reached values (not all clamped): the sums were tested (the few small
        // cases under miri are not counted).
        assert!(
            cfg!(miri) || varied_cases * 2 > cases,
            "{varied_cases} of {cases}"
        );
    }

    #[test]
    fn depthwise_sums_511_taps_and_declines_more() {
        // A 1 x 511 window of -32768 against -128 on five channels: 511 * 2^22 = 2^31 - 2^22,
        // the largest 32-bit sum, equal to TFLM's int64 one.
        let taps = if cfg!(miri) { 40 } else { MAX_TAPS };
        let c = 5;
        let g = geometry([1, 1, taps, c], [1, 1, taps, c], [1, 1, 1, c]);
        let p = ConvS16 {
            geometry: g,
            requant: &REQUANT,
            act_min: -32768,
            act_max: 32767,
        };
        let input = [i16::MIN; 512 * 5];
        let mut filter = [-128i8; 512 * 5];
        filter[3] = 127;
        let (input, filter) = (&input[..taps * c], &filter[..taps * c]);
        let (mut fast, mut slow) = ([0i16; 5], [0i16; 5]);
        let finish = |acc, c| requantize_channel_s16(acc, c, None, &REQUANT, -32768, 32767);
        assert!(depthwise_conv2d_s16(
            &p,
            Part::WHOLE,
            input,
            filter,
            &mut fast,
            finish
        ));
        depthwise_conv2d_s16_part(&p, Part::WHOLE, input, filter, None, &mut slow);
        assert_eq!(fast, slow);
        // 512 taps, a dilation of 0: declined, nothing written.
        let g = geometry([1, 1, 512, 1], [1, 1, 512, 1], [1, 1, 1, 1]);
        let p = ConvS16 { geometry: g, ..p };
        let mut out = [3i16; 1];
        let all = [0i16; 512];
        assert!(!depthwise_conv2d_s16(
            &p,
            Part::WHOLE,
            &all,
            &[1; 512],
            &mut out,
            finish
        ));
        let g = ConvGeometry {
            dilation_w: 0,
            ..geometry([1, 1, 3, 1], [1, 1, 2, 1], [1, 1, 2, 1])
        };
        let p = ConvS16 { geometry: g, ..p };
        assert!(!depthwise_conv2d_s16(
            &p,
            Part::WHOLE,
            &[1; 3],
            &[1; 2],
            &mut out,
            finish
        ));
        assert_eq!(out, [3]);
    }

    #[test]
    fn huge_strides_pads_and_dilations_are_declined_or_equal_the_portable_kernel() {
        // Coordinates past `isize`: the blocked DEPTHWISE_CONV_2D declines them (or equals the
        // portable kernel), without a panic.
        let finish = |acc, c| requantize_channel_s16(acc, c, None, &REQUANT, -32768, 32767);
        for (stride, pad, dilation) in [
            (usize::MAX, 0, 1),
            (1, usize::MAX / 2, 1),
            (1, 1, usize::MAX),
            (usize::MAX / 3, 7, usize::MAX / 5),
        ] {
            // A filter of 2 x 2 x 4 (its first dimension is not read), four output channels of
            // 2 x 2 pixels.
            let p = ConvS16 {
                geometry: ConvGeometry {
                    stride_h: stride,
                    stride_w: stride,
                    pad_h: pad,
                    pad_w: pad,
                    dilation_h: dilation,
                    dilation_w: dilation,
                    ..geometry([1, 3, 3, 4], [4, 2, 2, 4], [1, 2, 2, 4])
                },
                requant: &REQUANT,
                act_min: -32768,
                act_max: 32767,
            };
            let input: [i16; 36] = core::array::from_fn(|i| (i as i16 - 17) * 911);
            let filter: [i8; 64] = core::array::from_fn(|i| (i as i8).wrapping_mul(37));
            let ctx = (stride, pad, dilation);
            let mut slow = [1i16; 16];
            let (mut fast, filter) = ([1i16; 16], &filter[..16]);
            let taken = depthwise_conv2d_s16(&p, Part::WHOLE, &input, filter, &mut fast, finish);
            depthwise_conv2d_s16_part(&p, Part::WHOLE, &input, filter, None, &mut slow);
            if taken {
                assert_eq!(fast, slow, "{ctx:?}");
            } else {
                assert_eq!(fast, [1; 16], "{ctx:?}");
            }
        }
    }
}
