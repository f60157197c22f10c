//! The int16 (16x8: int16 activations, int8 weights) loops of CONV_2D, DEPTHWISE_CONV_2D and
//! FULLY_CONNECTED blocked for the Cortex-M DSP extension (cfg `stowplan_dsp`), beside the int8
//! ones of [`super::simd`]: two int16 values per 32-bit word, int8 weights widened to halfword
//! pairs (`SXTB16`, with a filter offset `SXTAB16`), two multiply-accumulates per `SMLALD`
//! (64-bit accumulator) or `SMLAD` (32-bit), and blocks of output channels summed together
//! (each input word loaded once per block). The instructions are [`crate::dsp`]'s; on the host
//! (where this module is compiled
//! for its tests) their portable twins, so the tests here run the very blocking the device runs
//! and compare it with the portable kernels.
//!
//! Every output is TFLM's value: each accumulator holds the portable kernel's sum, its terms in
//! another order, then goes through the portable kernel's own epilogue (the caller's `finish`:
//! [`requantize_channel_s16`](super::conv::requantize_channel_s16) and its 32-bit twin, or
//! FULLY_CONNECTED's). The sums are exact where the order could matter:
//!
//! - 64-bit sums (`SMLALD`): every product of an int16 and a widened int8 is exact in 32 bits
//!   (`|x * w| <= 2^15 * 2^15`), and the sum is taken modulo 2^64 as the portable kernels'
//!   `wrapping_add` takes it, so the order of the terms changes nothing.
//! - 32-bit sums (`SMLAD`, TFLM's `int32_t` accumulators): modulo 2^32, as TFLM's accumulator
//!   wraps, in any order.
//! - DEPTHWISE_CONV_2D (TFLM sums in `int64_t`) sums one channel's taps in 32 bits
//!   (`SMLABB`, `SMLABT`, `SMLATT`), then widens: a product of an int16 and an int8 is at most
//!   2^22 in magnitude, so a window of at most [`MAX_TAPS`] (511) taps sums to less than 2^31:
//!   no wrap, the int64 sum exactly. A larger filter runs the portable kernel.
//!
//! The input and weights are read through bounds-checked accessors, as the portable kernels
//! read them: each kernel returns `false`, having written nothing, for a geometry or
//! parameters it does not block (the caller runs the portable kernel then), and every read the
//! portable kernel skips (input pixels of a [`Part`] below its slice) contributes nothing here
//! either.

use super::conv::{ConvGeometry, ConvS16, Part, clamp_to_i16, inside, origin, run, valid_taps};
use super::fully_connected::FullyConnectedS16;
use super::{product, sized, sized_mut};
use crate::dsp::{
    pkhbt, pkhtb, smlabb, smlabt, smlad, smlald, smlatt, splat16, sxtab16, sxtab16_ror8, sxtb16,
    sxtb16_ror8,
};

/// An accumulator of TFLM's int16 kernels: `int64_t` (`SMLALD`) or `int32_t` (`SMLAD`, the sum
/// wrapping as TFLM's does).
pub(super) trait Acc: Copy {
    /// The empty sum.
    const ZERO: Self;
    /// `self + x.lo * w.lo + x.hi * w.hi` (the halfwords signed), in the accumulator's width.
    fn mac(self, x: u32, w: u32) -> Self;
    /// `self + product`, wrapping (a product the portable kernel computes in `int32_t`).
    fn add(self, product: i32) -> Self;
    /// `self + input_offset * weights`, wrapping (`weights` a sum of weights in this width).
    fn add_offset(self, input_offset: i32, weights: Self) -> Self;
    /// Whether FULLY_CONNECTED's blocked sum `sum((w + filter_offset) * x) + input_offset *
    /// sum(w + filter_offset)` equals TFLM's `sum((w + filter_offset) * (x + input_offset))`
    /// with each product in `int32_t`, for every int8 `w` and int16 `x` (`filter_offset` in
    /// `-32640..=32640`, so that `w + filter_offset` is a halfword).
    fn exact_with(filter_offset: i32, input_offset: i32) -> bool;
}

impl Acc for i64 {
    const ZERO: Self = 0;

    #[inline(always)]
    fn mac(self, x: u32, w: u32) -> Self {
        smlald(x, w, self)
    }

    #[inline(always)]
    fn add(self, product: i32) -> Self {
        self.wrapping_add(i64::from(product))
    }

    #[inline(always)]
    fn add_offset(self, input_offset: i32, weights: Self) -> Self {
        self.wrapping_add(i64::from(input_offset).wrapping_mul(weights))
    }

    /// Equal when no product of TFLM's wraps its `int32_t`: the expansion is exact in the
    /// integers, and both sums are that integer modulo 2^64.
    #[inline(always)]
    fn exact_with(filter_offset: i32, input_offset: i32) -> bool {
        let (fo, io) = (i64::from(filter_offset), i64::from(input_offset));
        let w = (fo - 128).abs().max((fo + 127).abs());
        let x = (io - 32768).abs().max((io + 32767).abs());
        // |fo| <= 32640 and |io| <= 2^31: the product is below 2^48.
        input_offset == 0 || w * x <= i64::from(i32::MAX)
    }
}

impl Acc for i32 {
    const ZERO: Self = 0;

    #[inline(always)]
    fn mac(self, x: u32, w: u32) -> Self {
        smlad(x, w, self)
    }

    #[inline(always)]
    fn add(self, product: i32) -> Self {
        self.wrapping_add(product)
    }

    #[inline(always)]
    fn add_offset(self, input_offset: i32, weights: Self) -> Self {
        self.wrapping_add(input_offset.wrapping_mul(weights))
    }

    /// Always equal: both sides are the same integer modulo 2^32 (TFLM's products and sum
    /// wrap there).
    #[inline(always)]
    fn exact_with(_: i32, _: i32) -> bool {
        true
    }
}

/// Two int16 values as one word, the first in the low halfword (as a little-endian `LDR` of
/// them).
#[inline(always)]
fn pair(x0: i16, x1: i16) -> u32 {
    u32::from(x0 as u16) | u32::from(x1 as u16) << 16
}

/// Four int8 values as one word, the first in the least significant byte.
#[inline(always)]
fn word4(w: &[i8; 4]) -> u32 {
    let [a, b, c, d] = *w;
    u32::from_le_bytes([a as u8, b as u8, c as u8, d as u8])
}

/// Four int16 inputs as the halfword pairs `(x0, x2)` and `(x1, x3)`: two words `(x0, x1)`,
/// `(x2, x3)` packed by `PKHBT` and `PKHTB`, so that the weights need only `SXTB16` (bytes 0
/// and 2, then 1 and 3). (The compiler reads each word with one load or with two halfword
/// loads.)
#[inline(always)]
fn evens_odds(x: &[i16; 4]) -> (u32, u32) {
    let [x0, x1, x2, x3] = *x;
    let (x01, x23) = (pair(x0, x1), pair(x2, x3));
    (pkhbt(x01, x23), pkhtb(x23, x01))
}

/// The weights `w` widened to `(w0, w2)` and `(w1, w3)`, plus `off` in each halfword with
/// `OFF` (one `SXTAB16` each instead of an `SXTB16`).
#[inline(always)]
fn widen_even<const OFF: bool>(off: u32, w: u32) -> u32 {
    if OFF { sxtab16(off, w) } else { sxtb16(w) }
}

/// The odd half of [`widen_even`]: `(w1, w3)`.
#[inline(always)]
fn widen_odd<const OFF: bool>(off: u32, w: u32) -> u32 {
    if OFF {
        sxtab16_ror8(off, w)
    } else {
        sxtb16_ror8(w)
    }
}

/// The elements of `s` from `start` on (none past its end).
#[inline(always)]
fn tail<T>(s: &[T], start: usize) -> &[T] {
    s.get(start..).unwrap_or(&[])
}

/// The first `n` elements of `s` (all of them if it is shorter).
#[inline(always)]
fn first<T>(s: &[T], n: usize) -> &[T] {
    s.get(..n).unwrap_or(s)
}

/// `acc + sum((f[k] + offset) * x[k])` over the shorter length, `offset` (in both halfwords of
/// `off`) with `OFF` only: four elements per step (two loads and two packs of the inputs, one
/// load and two widenings of the weights, two multiply-accumulates), the rest one by one. Not
/// inlined (as [`dot2`]).
#[inline(never)]
fn dot1<A: Acc, const OFF: bool>(x: &[i16], f: &[i8], off: u32, offset: i32, mut a: A) -> A {
    let (x4, f4) = (x.as_chunks::<4>().0, f.as_chunks::<4>().0);
    let n = x4.len().min(f4.len());
    let (x4, f4) = (first(x4, n), first(f4, n));
    for k in 0..n {
        let (Some(x), Some(w)) = (x4.get(k), f4.get(k)) else {
            break;
        };
        let (e, o) = evens_odds(x);
        let w = word4(w);
        a = a.mac(e, widen_even::<OFF>(off, w));
        a = a.mac(o, widen_odd::<OFF>(off, w));
    }
    for (&x, &w) in tail(x, 4 * n).iter().zip(tail(f, 4 * n)) {
        a = a.add(weight::<OFF>(w, offset).wrapping_mul(i32::from(x)));
    }
    a
}

/// `w + offset` with `OFF`, else `w`.
#[inline(always)]
fn weight<const OFF: bool>(w: i8, offset: i32) -> i32 {
    if OFF {
        i32::from(w).wrapping_add(offset)
    } else {
        i32::from(w)
    }
}

/// [`dot1`] of two filter rows `f0`, `f1` (two output channels) against one input run `x`,
/// all three of one length: per four elements the inputs are loaded and packed once for both
/// channels. Not inlined: its loop then has the registers nearly to itself (four for the two
/// 64-bit sums, two for the packed inputs, two for a weight word and its widened half, the
/// pointers and a count); inlined into the kernels' loop nests it spilled more (on the
/// conformance sweep's int16 CONV_2D and FULLY_CONNECTED models, 1 % more instructions in
/// all).
#[inline(never)]
fn dot2<A: Acc, const OFF: bool>(
    x: &[i16],
    f0: &[i8],
    f1: &[i8],
    off: u32,
    offset: i32,
    [mut a0, mut a1]: [A; 2],
) -> [A; 2] {
    let (x4, f04, f14) = (
        x.as_chunks::<4>().0,
        f0.as_chunks::<4>().0,
        f1.as_chunks::<4>().0,
    );
    let n = x4.len().min(f04.len()).min(f14.len());
    // All three of length `n`: the compiler drops the checks of `get(k)` below.
    let (x4, f04, f14) = (first(x4, n), first(f04, n), first(f14, n));
    for k in 0..n {
        let (Some(x), Some(w0), Some(w1)) = (x4.get(k), f04.get(k), f14.get(k)) else {
            break;
        };
        // In this order (the instructions run as written): one weight word live at a time.
        let (e, o) = evens_odds(x);
        let w = word4(w0);
        a0 = a0.mac(e, widen_even::<OFF>(off, w));
        a0 = a0.mac(o, widen_odd::<OFF>(off, w));
        let w = word4(w1);
        a1 = a1.mac(e, widen_even::<OFF>(off, w));
        a1 = a1.mac(o, widen_odd::<OFF>(off, w));
    }
    let done = 4 * n;
    for ((&x, &w0), &w1) in tail(x, done).iter().zip(tail(f0, done)).zip(tail(f1, done)) {
        let x = i32::from(x);
        a0 = a0.add(weight::<OFF>(w0, offset).wrapping_mul(x));
        a1 = a1.add(weight::<OFF>(w1, offset).wrapping_mul(x));
    }
    [a0, a1]
}

/// CONV_2D's groups as its portable loop nest takes them (`conv_groups` of [`super::conv`]):
/// `(filter input depth, filters per group)`, or `None` for a zero dimension or a group past
/// the input's channels.
fn groups(g: &ConvGeometry) -> Option<(usize, usize)> {
    let filter_input_depth = g.filter[3];
    let groups = g.input[3].checked_div(filter_input_depth)?;
    let filters_per_group = g.filter[0].checked_div(groups)?;
    if filters_per_group == 0 {
        return None;
    }
    let last_group = (g.filter[0] - 1) / filters_per_group;
    if (last_group + 1).checked_mul(filter_input_depth)? > g.input[3] {
        return None;
    }
    Some((filter_input_depth, filters_per_group))
}

/// The input run `x` against the filter runs of output channel `c` (from `f`) and, `paired`,
/// of channel `c + 1` (`filter_size` further), into `acc`: [`dot2`] when both filter runs are
/// whole, else each channel on its own as the portable kernel sums it (a filter run past the
/// filter's end is empty, [`run`]).
#[inline(always)]
fn window_run<A: Acc>(
    acc: [A; 2],
    paired: bool,
    x: &[i16],
    filter: &[i8],
    f: usize,
    filter_size: usize,
) -> [A; 2] {
    let [a0, a1] = acc;
    let f0 = run(filter, f, x.len());
    if !paired {
        return [dot1::<A, false>(x, f0, 0, 0, a0), a1];
    }
    let f1 = run(filter, f.wrapping_add(filter_size), x.len());
    if f0.len() == x.len() && f1.len() == x.len() {
        dot2::<A, false>(x, f0, f1, 0, 0, acc)
    } else {
        [
            dot1::<A, false>(x, f0, 0, 0, a0),
            dot1::<A, false>(x, f1, 0, 0, a1),
        ]
    }
}

/// int16 CONV_2D (TFLM's `ConvPerChannel<int64_t>` with `A = i64`, `<int32_t>` with `A = i32`)
/// on part `part` of its geometry, every shape: per output pixel, its output channels in pairs
/// of one group (an odd last one, or one whose neighbour is in another group, alone), each
/// pair summed over the window's runs of input (as the portable loop nest walks them: a filter
/// row's valid taps as one run when there is one group and no horizontal dilation, else a tap
/// at a time) by [`dot2`], both sums in registers, then `finish(acc, channel)` for each.
/// Writes in memory order (batch, y, x, channel).
///
/// Returns `false`, having written nothing, for groups the portable kernel refuses or slices
/// shorter than the geometry says (the portable kernel then writes nothing either).
#[inline(always)]
pub(super) fn conv2d_s16<A: Acc>(
    g: &ConvGeometry,
    part: Part,
    input: &[i16],
    filter: &[i8],
    output: &mut [i16],
    finish: impl Fn(A, usize) -> i16,
) -> bool {
    let Some((filter_input_depth, filters_per_group)) = groups(g) else {
        return false;
    };
    let [batches, input_h, input_w, input_d] = g.input;
    let [output_d, filter_h, filter_w, _] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    let (Some(input), Some(filter_size), Some(output)) = (
        part.input(input, &[batches, input_h, input_w, input_d]),
        product(&[output_d, filter_h, filter_w, filter_input_depth])
            .filter(|&n| n <= filter.len())
            .map(|_| filter_h * filter_w * filter_input_depth),
        sized_mut(output, &[batches, output_h, output_w, output_d]),
    ) else {
        return false;
    };
    // Sizes below are at most the slices' lengths, so no index arithmetic overflows; the
    // input indices wrap as the portable kernel's do (past the slice for a skipped pixel).
    let whole_rows = filter_input_depth == input_d && g.dilation_w == 1;
    let mut pixels = output.chunks_exact_mut(output_d);
    for batch in 0..batches {
        for out_y in 0..output_h {
            let in_y_origin = origin(out_y, g.stride_h, g.pad_h);
            for out_x in 0..output_w {
                let in_x_origin = part.origin_x(out_x, g.stride_w, g.pad_w);
                let (x_start, x_end) = valid_taps(in_x_origin, filter_w, input_w);
                let Some(pixel) = pixels.next() else {
                    return true;
                };
                let mut c = 0;
                while c < output_d {
                    let group = c / filters_per_group;
                    let paired = c + 1 < output_d && (c + 1) / filters_per_group == group;
                    let group_base = group * filter_input_depth;
                    let out_filter = c * filter_size;
                    let mut acc = [A::ZERO; 2];
                    for filter_y in 0..filter_h {
                        let Some(in_y) = inside(in_y_origin, g.dilation_h, filter_y, input_h)
                        else {
                            continue;
                        };
                        let row = part.pixel((batch * input_h + in_y) * input_w);
                        let filter_row = filter_y * filter_w;
                        if whole_rows {
                            if x_start == x_end {
                                continue;
                            }
                            let in_x = in_x_origin.wrapping_add(x_start as isize) as usize;
                            let len = (x_end - x_start) * input_d;
                            let i = row.wrapping_add(in_x).wrapping_mul(input_d);
                            let f = out_filter + (filter_row + x_start) * filter_input_depth;
                            if let Some(x) = input.get(i..i.wrapping_add(len)) {
                                acc = window_run(acc, paired, x, filter, f, filter_size);
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
                            if let Some(x) = input.get(i..i.wrapping_add(filter_input_depth)) {
                                acc = window_run(acc, paired, x, filter, f, filter_size);
                            }
                        }
                    }
                    let [a0, a1] = acc;
                    if let Some(y) = pixel.get_mut(c) {
                        *y = finish(a0, c);
                    }
                    if paired {
                        if let Some(y) = pixel.get_mut(c + 1) {
                            *y = finish(a1, c + 1);
                        }
                        c += 2;
                    } else {
                        c += 1;
                    }
                }
            }
        }
    }
    true
}

/// Taps per window DEPTHWISE_CONV_2D sums in 32 bits: `511 * 2^22 < 2^31`, so the sum of a
/// channel's products (each at most `2^15 * 2^7` in magnitude) cannot wrap.
pub(super) const MAX_TAPS: usize = 511;

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
pub(super) fn depthwise_conv2d_s16(
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
        part.input(input, &[batches, input_h, input_w, input_d]),
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

/// int16 FULLY_CONNECTED (TFLM's `FullyConnected` / `FullyConnectedPerChannel` with an
/// `int64_t` accumulator for `A = i64`, `int32_t` for `A = i32`): per batch row, output
/// channels in pairs ([`dot2`]: the row's inputs loaded and packed once for both), an odd last
/// one alone, then `finish(acc, channel)` (bias and requantisation), the output offset and
/// the clamp, as the portable kernel. TFLM's `sum((w + filter_offset) * (x + input_offset))`
/// is summed as `sum((w + filter_offset) * x)` (the offset added to the widened weights by
/// `SXTAB16`) plus, for a non-zero input offset, `input_offset * sum(w + filter_offset)` (the
/// weights summed once more): equal by [`Acc::exact_with`].
///
/// Returns `false`, having written nothing, for a zero depth or output depth, a filter offset
/// outside `-32640..=32640` (then `w + filter_offset` is no halfword), offsets whose 64-bit sum
/// might differ ([`Acc::exact_with`]) or slices shorter than the parameters say (the caller
/// runs the portable kernel then).
#[inline(always)]
pub(super) fn fully_connected_s16<A: Acc>(
    p: &FullyConnectedS16,
    input: &[i16],
    filter: &[i8],
    output: &mut [i16],
    finish: impl Fn(A, usize) -> i32,
) -> bool {
    let per_channel = p.requant.len() > 1;
    let filter_offset = if per_channel { 0 } else { p.filter_offset };
    let (depth, output_d, input_offset) = (p.accum_depth, p.output_depth, p.input_offset);
    if depth == 0
        || output_d == 0
        || !(-32640..=32640).contains(&filter_offset)
        || !A::exact_with(filter_offset, input_offset)
    {
        return false;
    }
    let (Some(input), Some(filter), Some(output)) = (
        sized(input, &[p.batches, depth]),
        sized(filter, &[output_d, depth]),
        sized_mut(output, &[p.batches, output_d]),
    ) else {
        return false;
    };
    let off = splat16(filter_offset);
    // Plus `input_offset * sum(w + filter_offset)` for a non-zero input offset: the row's
    // weights summed as a dot product with ones.
    let sum = |f: &[i8], acc: A| {
        if input_offset == 0 {
            acc
        } else {
            let (words, rest) = f.as_chunks::<4>();
            let mut weights = A::ZERO;
            for w in words {
                let w = word4(w);
                weights = weights.mac(splat16(1), widen_even::<true>(off, w));
                weights = weights.mac(splat16(1), widen_odd::<true>(off, w));
            }
            for &w in rest {
                weights = weights.add(i32::from(w).wrapping_add(filter_offset));
            }
            acc.add_offset(input_offset, weights)
        }
    };
    let store = |acc: A, c: usize| {
        let acc = finish(acc, c).wrapping_add(p.output_offset);
        clamp_to_i16(acc, p.act_min, p.act_max)
    };
    for (row, out) in input
        .chunks_exact(depth)
        .zip(output.chunks_exact_mut(output_d))
    {
        let mut rows = filter.chunks_exact(2 * depth);
        let mut c = 0;
        let (pairs, last) = out.as_chunks_mut::<2>();
        for (f2, y2) in (&mut rows).zip(pairs) {
            let (f0, f1) = f2.split_at(depth);
            let [a0, a1] = if filter_offset == 0 {
                dot2::<A, false>(row, f0, f1, off, 0, [A::ZERO; 2])
            } else {
                dot2::<A, true>(row, f0, f1, off, filter_offset, [A::ZERO; 2])
            };
            *y2 = [store(sum(f0, a0), c), store(sum(f1, a1), c + 1)];
            c += 2;
        }
        let f = rows.remainder();
        if let Some(y) = last.first_mut() {
            let a = if filter_offset == 0 {
                dot1::<A, false>(row, f, off, 0, A::ZERO)
            } else {
                dot1::<A, true>(row, f, off, filter_offset, A::ZERO)
            };
            *y = store(sum(f, a), c);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::Requant;
    use super::super::conv::{
        ConvGeometry, ConvS16, Part, conv2d_s16_acc32_part, conv2d_s16_part,
        requantize_channel_s16, requantize_channel_s16_acc32,
    };
    use super::super::depthwise_conv::depthwise_conv2d_s16_part;
    use super::super::fully_connected::{
        FullyConnectedS16, finish_s16, finish_s16_acc32, fully_connected_s16_acc32,
    };
    use super::*;

    struct Rng(u32);
    impl Rng {
        fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 17;
            self.0 ^= self.0 << 5;
            self.0
        }
        /// A value in `lo..=hi`.
        fn range(&mut self, lo: usize, hi: usize) -> usize {
            lo + self.next() as usize % (hi - lo + 1)
        }
        /// int16 values, a quarter of them at the extremes.
        fn fill16(&mut self, v: &mut [i16]) {
            for x in v {
                let r = self.next();
                *x = match r % 8 {
                    0 => i16::MIN,
                    1 => i16::MAX,
                    _ => (r >> 8) as i16,
                };
            }
        }
        /// int8 values, a quarter of them at the extremes.
        fn fill8(&mut self, v: &mut [i8]) {
            for x in v {
                let r = self.next();
                *x = match r % 8 {
                    0 => -128,
                    1 => 127,
                    _ => (r >> 8) as i8,
                };
            }
        }
    }

    /// Multipliers and shifts that spread the sums over the int16 range, with the extremes
    /// among them (the largest multiplier, a zero one, left shifts, a shift of -31).
    static REQUANT: [Requant; 32] = {
        let mut r = [Requant {
            multiplier: 0,
            shift: 0,
        }; 32];
        let mut i = 0;
        while i < 32 {
            r[i] = match i % 8 {
                3 => Requant {
                    multiplier: i32::MAX,
                    shift: -14,
                },
                5 => Requant {
                    multiplier: 1 << 30,
                    shift: 1 - (i as i32 % 3),
                },
                6 if i > 8 => Requant {
                    multiplier: 0,
                    shift: 0,
                },
                7 if i > 16 => Requant {
                    multiplier: (1 << 30) + 1,
                    shift: -31,
                },
                _ => Requant {
                    multiplier: (1 << 30) + (i as i32) * 37_000_001,
                    shift: -10 - (i as i32 % 7),
                },
            };
            i += 1;
        }
        r
    };

    /// A clamp range: the whole int16 range or a narrower one (a fused activation).
    fn act(rng: &mut Rng) -> (i32, i32) {
        match rng.next() % 3 {
            0 => (-32768, 32767),
            1 => (0, 32767),
            _ => (-1000, 6000),
        }
    }

    fn geometry(input: [usize; 4], filter: [usize; 4], output: [usize; 4]) -> ConvGeometry {
        super::super::conv::tests::geometry(input, filter, output)
    }

    /// `(stride, dilation, pad, out)` of one dimension of `size` with a filter of `filter`
    /// taps, `None` if the output would be empty.
    fn dim(rng: &mut Rng, size: usize, filter: usize) -> Option<(usize, usize, usize, usize)> {
        let (stride, dilation) = (rng.range(1, 3), rng.range(1, 2));
        let extent = (filter - 1) * dilation + 1;
        let pad = rng.range(0, extent - 1);
        let out = (size + 2 * pad).checked_sub(extent)? / stride + 1;
        Some((stride, dilation, pad, out))
    }

    /// A part of the geometry (the overlapped driver's: the output's first column `x0`, the
    /// input pixels missing at the start of the slice), or the whole; a third of the time a
    /// part.
    fn part(rng: &mut Rng, pixels: usize) -> Part {
        if rng.next().is_multiple_of(3) {
            Part {
                x0: rng.range(0, 2),
                skip: rng.range(0, pixels.min(4)),
            }
        } else {
            Part::WHOLE
        }
    }

    /// Whether `v` holds at least three distinct values (outputs neither all clamped nor
    /// constant: the sums reached them).
    fn varied(v: &[i16]) -> bool {
        let first = v.first().copied().unwrap_or(0);
        let other = v.iter().copied().find(|&x| x != first);
        other.is_some_and(|o| v.iter().any(|&x| x != first && x != o))
    }

    #[test]
    fn conv_equals_the_portable_kernel() {
        let mut rng = Rng(11);
        let cases = if cfg!(miri) { 6 } else { 600 };
        // Smaller images under miri.
        let side = if cfg!(miri) { 4 } else { 7 };
        let (mut done, mut varied_cases) = (0, 0);
        while done < cases {
            let (n, h, w) = (rng.range(1, 2), rng.range(1, side - 1), rng.range(1, side));
            let (kh, kw) = (rng.range(1, 3), rng.range(1, 3));
            // One group mostly; two or three now and then.
            let groups = [1, 1, 1, 2, 3][rng.next() as usize % 5];
            let fin = rng.range(1, if cfg!(miri) { 5 } else { 11 });
            let per_group = rng.range(1, 5);
            let (cin, cout) = (fin * groups, per_group * groups);
            let (Some((sh, dh, ph, oh)), Some((sw, dw, pw, ow))) =
                (dim(&mut rng, h, kh), dim(&mut rng, w, kw))
            else {
                continue;
            };
            if n * oh * ow * cout > 4000 {
                continue;
            }
            let g = ConvGeometry {
                stride_h: sh,
                stride_w: sw,
                dilation_h: dh,
                dilation_w: dw,
                pad_h: ph,
                pad_w: pw,
                ..geometry([n, h, w, cin], [cout, kh, kw, fin], [n, oh, ow, cout])
            };
            let (act_min, act_max) = act(&mut rng);
            let p = ConvS16 {
                geometry: g,
                requant: &REQUANT,
                act_min,
                act_max,
            };
            let mut input = [0i16; 2 * 6 * 7 * 33];
            let mut filter = [0i8; 15 * 9 * 11];
            rng.fill16(&mut input[..n * h * w * cin]);
            rng.fill8(&mut filter[..cout * kh * kw * fin]);
            let bias64: [i64; 15] = core::array::from_fn(|_| i64::from(rng.next() as i32 >> 8));
            let bias32: [i32; 15] = core::array::from_fn(|_| rng.next() as i32 >> 10);
            let with_bias = !rng.next().is_multiple_of(4);
            let (b64, b32) = if with_bias {
                (Some(&bias64[..cout]), Some(&bias32[..cout]))
            } else {
                (None, None)
            };
            let part = part(&mut rng, n * h * w);
            let input = &input[part.skip * cin..n * h * w * cin];
            let filter = &filter[..cout * kh * kw * fin];
            let len = n * oh * ow * cout;
            let (mut fast, mut slow) = ([7i16; 4000], [7i16; 4000]);
            let finish = |acc, c| requantize_channel_s16(acc, c, b64, &REQUANT, act_min, act_max);
            assert!(conv2d_s16::<i64>(
                &g,
                part,
                input,
                filter,
                &mut fast[..len],
                finish
            ));
            conv2d_s16_part(&p, part, input, filter, b64, &mut slow[..len]);
            let ctx = (g, part, with_bias);
            assert_eq!(fast[..len], slow[..len], "{ctx:?}");
            let finish =
                |acc, c| requantize_channel_s16_acc32(acc, c, b32, &REQUANT, act_min, act_max);
            assert!(conv2d_s16::<i32>(
                &g,
                part,
                input,
                filter,
                &mut fast[..len],
                finish
            ));
            conv2d_s16_acc32_part(&p, part, input, filter, b32, &mut slow[..len]);
            assert_eq!(fast[..len], slow[..len], "acc32 {ctx:?}");
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
    fn conv_sums_wrap_in_32_bits_and_not_in_64() {
        // One output per channel over 1 x 1 x 700 inputs of -32768 against weights of -128:
        // 700 * 2^22 overflows an int32 (wrapping, as TFLM's does) but not an int64; and
        // 127 against 32767, the other sign.
        let depth = if cfg!(miri) { 520 } else { 700 };
        let g = geometry([1, 1, 1, depth], [3, 1, 1, depth], [1, 1, 1, 3]);
        let p = ConvS16 {
            geometry: g,
            requant: &REQUANT,
            act_min: -32768,
            act_max: 32767,
        };
        let input = [i16::MIN; 700];
        let mut filter = [-128i8; 3 * 700];
        filter[depth..2 * depth].fill(127);
        filter[2 * depth + 1] = 0;
        let (input, filter) = (&input[..depth], &filter[..3 * depth]);
        for bias in [None, Some(&[i64::MAX, i64::MIN, 1][..])] {
            let (mut fast, mut slow) = ([0i16; 3], [0i16; 3]);
            let finish = |acc, c| requantize_channel_s16(acc, c, bias, &REQUANT, -32768, 32767);
            assert!(conv2d_s16::<i64>(
                &g,
                Part::WHOLE,
                input,
                filter,
                &mut fast,
                finish
            ));
            conv2d_s16_part(&p, Part::WHOLE, input, filter, bias, &mut slow);
            assert_eq!(fast, slow);
        }
        let bias = Some(&[i32::MAX, i32::MIN, -1][..]);
        let (mut fast, mut slow) = ([0i16; 3], [0i16; 3]);
        let finish = |acc, c| requantize_channel_s16_acc32(acc, c, bias, &REQUANT, -32768, 32767);
        assert!(conv2d_s16::<i32>(
            &g,
            Part::WHOLE,
            input,
            filter,
            &mut fast,
            finish
        ));
        conv2d_s16_acc32_part(&p, Part::WHOLE, input, filter, bias, &mut slow);
        assert_eq!(fast, slow);
        // Groups the portable kernel refuses (two groups of two input channels, three filters:
        // the last one's group past the input's channels): declined, with nothing written.
        let g = geometry([1, 1, 1, 4], [3, 1, 1, 2], [1, 1, 1, 3]);
        let mut out = [5i16; 3];
        let finish = |acc, c| requantize_channel_s16(acc, c, None, &REQUANT, -32768, 32767);
        assert!(!conv2d_s16::<i64>(
            &g,
            Part::WHOLE,
            &[1; 4],
            &[1; 6],
            &mut out,
            finish
        ));
        assert_eq!(out, [5; 3]);
    }

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
            let part = part(&mut rng, n * h * w);
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
    fn huge_strides_pads_and_dilations_equal_the_portable_kernels() {
        // Coordinates past `isize`: CONV_2D walks them as the portable kernel does (wrapping),
        // DEPTHWISE_CONV_2D declines them; neither panics.
        let finish = |acc, c| requantize_channel_s16(acc, c, None, &REQUANT, -32768, 32767);
        for (stride, pad, dilation) in [
            (usize::MAX, 0, 1),
            (1, usize::MAX / 2, 1),
            (1, 1, usize::MAX),
            (usize::MAX / 3, 7, usize::MAX / 5),
        ] {
            // A filter of 4 x 2 x 2 x 4 (CONV_2D) or 2 x 2 x 4 (DEPTHWISE_CONV_2D: its first
            // dimension is not read), four output channels of 2 x 2 pixels.
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
            let (g, ctx) = (&p.geometry, (stride, pad, dilation));
            let (mut fast, mut slow) = ([1i16; 16], [1i16; 16]);
            assert!(conv2d_s16::<i64>(
                g,
                Part::WHOLE,
                &input,
                &filter,
                &mut fast,
                finish
            ));
            conv2d_s16_part(&p, Part::WHOLE, &input, &filter, None, &mut slow);
            assert_eq!(fast, slow, "{ctx:?}");
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

    #[test]
    fn fully_connected_equals_the_portable_kernel() {
        let mut rng = Rng(9);
        let cases = if cfg!(miri) { 12 } else { 1500 };
        let mut varied_cases = 0;
        for case in 0..cases {
            let batches = rng.range(1, 3);
            let depth = rng.range(1, if cfg!(miri) { 12 } else { 45 });
            let out_d = rng.range(1, 9);
            let per_channel = rng.next().is_multiple_of(2);
            // Offsets: mostly none (int16 is symmetric), the extremes of an int16 zero point
            // and past them (declined for the 64-bit sum when a product could wrap).
            let input_offset = match rng.next() % 8 {
                0 => 7,
                1 => -32767,
                2 => 32768,
                3 => i32::MAX,
                _ => 0,
            };
            let filter_offset = match rng.next() % 6 {
                0 => 5,
                1 => -127,
                2 => 128,
                3 => 40_000,
                _ => 0,
            };
            let (act_min, act_max) = act(&mut rng);
            let p = FullyConnectedS16 {
                batches,
                accum_depth: depth,
                output_depth: out_d,
                input_offset,
                filter_offset,
                output_offset: (rng.next() % 201) as i32 - 100,
                requant: if per_channel {
                    &REQUANT
                } else {
                    &REQUANT[case % 24..case % 24 + 1]
                },
                act_min,
                act_max,
            };
            let mut input = [0i16; 3 * 45];
            let mut filter = [0i8; 9 * 45];
            rng.fill16(&mut input[..batches * depth]);
            rng.fill8(&mut filter[..out_d * depth]);
            let bias64: [i64; 9] = core::array::from_fn(|_| i64::from(rng.next() as i32 >> 4));
            let bias32: [i32; 9] = core::array::from_fn(|_| rng.next() as i32 >> 4);
            let with_bias = !rng.next().is_multiple_of(4);
            let b64 = with_bias.then_some(&bias64[..out_d]);
            let b32 = with_bias.then_some(&bias32[..out_d]);
            let (input, filter) = (&input[..batches * depth], &filter[..out_d * depth]);
            let len = batches * out_d;
            let ctx = (
                batches,
                depth,
                out_d,
                input_offset,
                filter_offset,
                per_channel,
            );
            let (mut fast, mut slow) = ([7i16; 27], [7i16; 27]);
            let finish = |acc, c| finish_s16(&p, b64, acc, c);
            let taken = fully_connected_s16::<i64>(&p, input, filter, &mut fast[..len], finish);
            let fo = if per_channel { 0 } else { filter_offset };
            let exact = fo.abs() <= 128 && (input_offset == 0 || input_offset.abs() <= 32768);
            assert_eq!(taken, exact, "{ctx:?}");
            super::super::fully_connected::fully_connected_s16(
                &p,
                input,
                filter,
                b64,
                &mut slow[..len],
            );
            if taken {
                assert_eq!(fast[..len], slow[..len], "{ctx:?}");
            } else {
                assert_eq!(fast[..len], [7; 27][..len], "{ctx:?}");
            }
            let mut fast = [7i16; 27];
            let finish = |acc, c| finish_s16_acc32(&p, b32, acc, c);
            let taken = fully_connected_s16::<i32>(&p, input, filter, &mut fast[..len], finish);
            assert_eq!(taken, fo.abs() <= 128, "{ctx:?}");
            fully_connected_s16_acc32(&p, input, filter, b32, &mut slow[..len]);
            if taken {
                assert_eq!(fast[..len], slow[..len], "acc32 {ctx:?}");
                varied_cases += usize::from(varied(&fast[..len]));
            }
        }
        assert!(
            cfg!(miri) || varied_cases * 3 > cases,
            "{varied_cases} of {cases}"
        );
    }
}
