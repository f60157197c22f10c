//! The int8 and int16 pools blocked for the Cortex-M DSP extension (cfg `stowplan_dsp`): one
//! 32-bit load holds four int8 (or two int16) channels, and one instruction works on all its
//! lanes. The instructions are [`crate::dsp`]'s; on the host (where this module is compiled
//! for its tests) their portable twins, so the tests here run the very blocking the device
//! runs and compare it with the portable kernels.
//!
//! - MAX_POOL_2D: the window's maximum of four int8 channels per `SSUB8` + `SEL` ([`max8`]),
//!   of two int16 channels per `SSUB16` + `SEL` ([`max16`]), from every lane's least value;
//!   then the activation's clamp on the whole word, as the portable kernel clamps (the bounds
//!   narrowed to the element type, the lower one first): the maximum with `act_min` in every
//!   lane, then the minimum with `act_max` as the mirrored maximum `!max(!x, !act_max)` (the
//!   complement `!v = -1 - v` reverses the order of a lane's values). A block of four words
//!   (16 int8 or 8 int16 channels) goes through the window at once, then single words, then
//!   the last one to three channels as one word of which only they are stored.
//! - AVERAGE_POOL_2D (int8): each word's four channels summed as two pairs of halfwords
//!   (`SXTAB16` adds bytes 0 and 2, `SXTAB16 ROR #8` bytes 1 and 3), two words (eight
//!   channels) through the window at once. The sums are exact while the window has at most 256
//!   elements (each lies in `-128 * 256..=127 * 256`, inside a halfword); an op whose windows
//!   can be larger takes the portable loop. Then per channel the portable kernel's rounding
//!   division (`rounded_average`'s) and clamp.
//! - AVERAGE_POOL_2D (int16): each channel's sum in 32 bits, a word's low channel by `SXTAH`
//!   and its high one by an addition of the word shifted right 16, four words (eight
//!   channels) through the window at once, then two words, then one, then the last channel. The sums are the
//!   portable kernel's `int32` ones for every window (both modulo 2^32, where the order of the
//!   additions does not matter): no geometry is declined. Then the same rounding division and
//!   clamp.
//!
//! Every output is the portable kernel's, for every geometry and every part of one ([`Part`],
//! the in-place driver's chunks): the pools visit the same windows (clamped to the input as
//! `pool_loops` clamps them) and read the same input elements (a skipped pixel's taps are past
//! the slice's end in both, and not read), the maximum of int8 or int16 values, the sum of at
//! most 256 int8 values and the 32-bit sums of int16 values (modulo 2^32, as the portable
//! kernel's) do not depend on the order; each output element is written once, in memory
//! order, from its own inputs; slices shorter than the geometry says are left alone as the
//! portable kernels leave them.

use super::{PoolGeometry, PoolS8, PoolS16, clamp_window, rounded_quotient};
use crate::dsp::{sxtab16, sxtab16_ror8, sxtah};
use crate::kernels::shared::blocked::{Lanes, hi, lo, load4};
use crate::kernels::shared::{Part, clamp_to_i8, clamp_to_i16, sized_mut};

/// One output pixel's window as the pools walk it: `rows` rows of `taps` taps, clamped to the
/// input as `pool_loops` clamps them.
#[derive(Clone, Copy)]
struct Window {
    /// The index in the input slice of the first tap's channel 0, wrapping as `pool_loops`'s
    /// indices do: past the slice's end (so never read) for a skipped pixel.
    corner: usize,
    /// Rows of taps.
    rows: usize,
    /// Taps per row.
    taps: usize,
    /// Input elements from one row of taps to the next (`input_w * depth`).
    row_step: usize,
    /// Input elements from one tap to the next (the channels).
    depth: usize,
    /// The window's elements, `rows * taps` (TFLM's `filter_count`).
    count: usize,
}

impl Window {
    /// Calls `f` with the index of channel `first` of each tap, in TFLM's order (rows, then
    /// taps); the indices are `pool_loops`'s, modulo `usize`'s range.
    #[inline(always)]
    fn each(&self, first: usize, mut f: impl FnMut(usize)) {
        let mut row = self.corner.wrapping_add(first);
        for _ in 0..self.rows {
            let mut i = row;
            for _ in 0..self.taps {
                f(i);
                i = i.wrapping_add(self.depth);
            }
            row = row.wrapping_add(self.row_step);
        }
    }
}

/// `W` words of `N` elements each from `input[i..]`, or `None` where fewer are left (a
/// skipped pixel's index is past the end): the block `pool_loops` reads from a tap exactly
/// when it reads these (an unskipped pixel holds all its channels).
#[inline(always)]
fn words<T, const N: usize, const W: usize>(input: &[T], i: usize) -> Option<&[[T; N]; W]> {
    input.get(i..)?.as_chunks::<N>().0.first_chunk::<W>()
}

/// The pools' walk, `pool_loops`'s loop nest over output pixels: calls `pixel(input, window,
/// out)` for each output pixel in memory order (batch, y, x) with its [`Window`] in the input
/// slice and its output channels; stops when `pixel` returns `false`. Calls nothing when a
/// slice is shorter than the geometry says (`pool_loops` writes nothing then) or there are no
/// channels (nothing to write).
#[inline(always)]
fn pool_pixels<T>(
    g: &PoolGeometry,
    part: Part,
    input: &[T],
    output: &mut [T],
    mut pixel: impl FnMut(&[T], &Window, &mut [T]) -> bool,
) {
    let [batches, input_h, input_w, depth] = g.input;
    let [_, output_h, output_w, _] = g.output;
    let (Some(input), Some(output)) = (
        part.input(input, &super::in_place::pool_walk(g)),
        sized_mut(output, &[batches, output_h, output_w, depth]),
    ) else {
        return;
    };
    if depth == 0 {
        return;
    }
    let mut out = output.chunks_exact_mut(depth);
    let row_step = input_w.wrapping_mul(depth);
    for batch in 0..batches {
        for out_y in 0..output_h {
            let in_y_origin =
                (out_y.wrapping_mul(g.stride_h) as isize).wrapping_sub(g.pad_h as isize);
            let (y_start, y_end) = clamp_window(in_y_origin, g.filter_h, input_h);
            let rows = y_end.saturating_sub(y_start);
            // The window's first input row in the batch's image.
            let top = batch
                .wrapping_mul(input_h)
                .wrapping_add(in_y_origin.wrapping_add(y_start as isize) as usize);
            for out_x in 0..output_w {
                let in_x_origin = part.origin_x(out_x, g.stride_w, g.pad_w);
                let (x_start, x_end) = clamp_window(in_x_origin, g.filter_w, input_w);
                let taps = x_end.saturating_sub(x_start);
                let first_pixel = top
                    .wrapping_mul(input_w)
                    .wrapping_add(in_x_origin.wrapping_add(x_start as isize) as usize);
                let window = Window {
                    corner: part.pixel(first_pixel).wrapping_mul(depth),
                    rows,
                    taps,
                    row_step,
                    depth,
                    // At most `input_h * input_w` (each factor at most its input extent), which
                    // the sized input holds: no overflow.
                    count: rows * taps,
                };
                let Some(out) = out.next() else {
                    return;
                };
                if !pixel(input, &window, out) {
                    return;
                }
            }
        }
    }
}

/// The maxima of four words of channels from `first` over the window, lane by lane (the
/// accumulators as four values, so that they stay in registers).
#[inline(always)]
fn max_four_words<T: Lanes<N>, const N: usize>(
    input: &[T],
    window: &Window,
    first: usize,
) -> [u32; 4] {
    let [mut m0, mut m1, mut m2, mut m3] = [T::LEAST; 4];
    window.each(first, |i| {
        if let Some([x0, x1, x2, x3]) = words::<T, N, 4>(input, i) {
            m0 = T::max(m0, T::pack(x0));
            m1 = T::max(m1, T::pack(x1));
            m2 = T::max(m2, T::pack(x2));
            m3 = T::max(m3, T::pack(x3));
        }
    });
    [m0, m1, m2, m3]
}

/// The maxima of one word of channels from `first` over the window, lane by lane.
#[inline(always)]
fn max_word<T: Lanes<N>, const N: usize>(input: &[T], window: &Window, first: usize) -> u32 {
    let mut m = T::LEAST;
    window.each(first, |i| {
        if let Some([x]) = words::<T, N, 1>(input, i) {
            m = T::max(m, T::pack(x));
        }
    });
    m
}

/// MAX_POOL_2D blocked: per output pixel, blocks of four words of channels, then single words,
/// then the channels left as one partial word (module docs); every word clamped to
/// `act_min..=act_max` (already narrowed to `T`, as the portable kernel narrows them).
#[inline(always)]
fn max_pool<T: Lanes<N>, const N: usize>(
    g: &PoolGeometry,
    part: Part,
    input: &[T],
    output: &mut [T],
    act_min: T,
    act_max: T,
) {
    let (low, high) = (T::splat(act_min), !T::splat(act_max));
    // `max(x, act_min)`, then `min(_, act_max)` as `!max(!_, !act_max)`.
    let clamp = move |m: u32| !T::max(!T::max(m, low), high);
    pool_pixels(g, part, input, output, |input, window, out| {
        let (whole, rest) = out.as_chunks_mut::<N>();
        let (blocks, singles) = whole.as_chunks_mut::<4>();
        let mut first = 0;
        for block in blocks {
            let m = max_four_words::<T, N>(input, window, first);
            for (o, m) in block.iter_mut().zip(m) {
                *o = T::unpack(clamp(m));
            }
            first += 4 * N;
        }
        for o in singles {
            *o = T::unpack(clamp(max_word::<T, N>(input, window, first)));
            first += N;
        }
        if !rest.is_empty() {
            let mut m = T::LEAST;
            window.each(first, |i| {
                if let Some(x) = input.get(i..i.wrapping_add(rest.len())) {
                    m = T::max(m, T::pack_partial(x));
                }
            });
            for (o, v) in rest.iter_mut().zip(T::unpack(clamp(m))) {
                *o = v;
            }
        }
        true
    });
}

/// int8 MAX_POOL_2D ([`max_pool_s8`](super::max_pool_s8)) blocked, four channels per word,
/// on `part` of its geometry. Returns `true`: every geometry runs (the caller's portable loop
/// is for the other targets); nothing is written if a slice is shorter than the geometry says.
#[inline(always)]
pub(crate) fn max_pool_s8(p: &PoolS8, part: Part, input: &[i8], output: &mut [i8]) -> bool {
    // TFLM clamps with `std::max<int8_t>` / `std::min<int8_t>`: the bounds narrowed to int8.
    max_pool(
        &p.geometry,
        part,
        input,
        output,
        p.act_min as i8,
        p.act_max as i8,
    );
    true
}

/// int16 MAX_POOL_2D ([`max_pool_s16`](super::pooling::max_pool_s16)) blocked, two channels
/// per word, on `part` of its geometry; as [`max_pool_s8`].
#[inline(always)]
pub(crate) fn max_pool_s16(p: &PoolS16, part: Part, input: &[i16], output: &mut [i16]) -> bool {
    max_pool(
        &p.geometry,
        part,
        input,
        output,
        p.act_min as i16,
        p.act_max as i16,
    );
    true
}

/// The largest window whose halfword sums are exact (module docs).
const MAX_AVERAGE_COUNT: usize = 256;

/// The window's sums of two words of channels from `first`: per word, channels 0 and 2 in the
/// halfwords of its first accumulator, channels 1 and 3 in those of its second (four values,
/// so that they stay in registers).
#[inline(always)]
fn sum_two_words(input: &[i8], window: &Window, first: usize) -> [[u32; 2]; 2] {
    let (mut a02, mut a13, mut b02, mut b13) = (0, 0, 0, 0);
    let mut row = window.corner.wrapping_add(first);
    for _ in 0..window.rows {
        let mut i = row;
        for _ in 0..window.taps {
            if let Some([a, b]) = words::<i8, 4, 2>(input, i) {
                let (a, b) = (load4(a), load4(b));
                a02 = sxtab16(a02, a);
                a13 = sxtab16_ror8(a13, a);
                b02 = sxtab16(b02, b);
                b13 = sxtab16_ror8(b13, b);
            }
            i = i.wrapping_add(window.depth);
        }
        row = row.wrapping_add(window.row_step);
    }
    [[a02, a13], [b02, b13]]
}

/// [`sum_two_words`] of one word.
#[inline(always)]
fn sum_word(input: &[i8], window: &Window, first: usize) -> [u32; 2] {
    let (mut a02, mut a13) = (0, 0);
    window.each(first, |i| {
        if let Some([a]) = words::<i8, 4, 1>(input, i) {
            let a = load4(a);
            a02 = sxtab16(a02, a);
            a13 = sxtab16_ror8(a13, a);
        }
    });
    [a02, a13]
}

/// int8 AVERAGE_POOL_2D ([`average_pool_s8`](super::average_pool_s8)) blocked, on `part` of
/// its geometry: per output pixel, blocks of eight channels, then single words, then the
/// channels left as one partial word (module docs). Returns `false`, having written nothing,
/// when a window can have more than 256 elements (the caller runs the portable loop); `true`
/// otherwise, having stopped, as TFLM does, at the first empty window.
#[inline(always)]
pub(crate) fn average_pool_s8(p: &PoolS8, part: Part, input: &[i8], output: &mut [i8]) -> bool {
    let g = &p.geometry;
    // A window's rows are at most the filter's and the input's, and so are its taps per row.
    let largest = g
        .filter_h
        .min(g.input[1])
        .saturating_mul(g.filter_w.min(g.input[2]));
    if largest > MAX_AVERAGE_COUNT {
        return false;
    }
    pool_pixels(g, part, input, output, |input, window, out| {
        // TFLM's kernel returns at an empty window, with the pixel unwritten.
        let Some(count) = i32::try_from(window.count).ok().filter(|&n| n > 0) else {
            return false;
        };
        let average = Average {
            count,
            half: count / 2,
            act_min: p.act_min,
            act_max: p.act_max,
        };
        let (whole, rest) = out.as_chunks_mut::<4>();
        let (pairs, singles) = whole.as_chunks_mut::<2>();
        let mut first = 0;
        for [o0, o1] in pairs {
            let [s0, s1] = sum_two_words(input, window, first);
            *o0 = average.word(s0);
            *o1 = average.word(s1);
            first += 8;
        }
        for o in singles {
            *o = average.word(sum_word(input, window, first));
            first += 4;
        }
        if !rest.is_empty() {
            let (mut a02, mut a13) = (0, 0);
            window.each(first, |i| {
                if let Some(x) = input.get(i..i.wrapping_add(rest.len())) {
                    let x = <i8 as Lanes<4>>::pack_partial(x);
                    a02 = sxtab16(a02, x);
                    a13 = sxtab16_ror8(a13, x);
                }
            });
            for (o, v) in rest.iter_mut().zip(average.word([a02, a13])) {
                *o = v;
            }
        }
        true
    });
    true
}

/// The end of an average: the window's count (positive), half of it, and the clamp.
#[derive(Clone, Copy)]
struct Average {
    count: i32,
    half: i32,
    act_min: i32,
    act_max: i32,
}

impl Average {
    /// The four channels' outputs of one word's sums ([`sum_word`]): each the portable
    /// kernel's rounded division and clamp.
    #[inline(always)]
    fn word(&self, [a02, a13]: [u32; 2]) -> [i8; 4] {
        [
            self.one(lo(a02)),
            self.one(lo(a13)),
            self.one(hi(a02)),
            self.one(hi(a13)),
        ]
    }

    /// One channel's output from its window's sum.
    #[inline(always)]
    fn one(&self, sum: i32) -> i8 {
        clamp_to_i8(
            rounded_quotient(sum, self.count, self.half),
            self.act_min,
            self.act_max,
        )
    }
}

/// The window's sums of two words of int16 channels from `first` (channels `first..first +
/// 4`), each in 32 bits: a word's low channel by `SXTAH`, its high one by an addition of the
/// word shifted right (four values, so that they stay in registers). Exact, as the portable
/// kernel's `int32` sums (both modulo 2^32, whose additions do not depend on the order).
#[inline(always)]
fn sum16_two_words(input: &[i16], window: &Window, first: usize) -> [i32; 4] {
    let (mut s0, mut s1, mut s2, mut s3) = (0_i32, 0_i32, 0_i32, 0_i32);
    let mut row = window.corner.wrapping_add(first);
    for _ in 0..window.rows {
        let mut i = row;
        for _ in 0..window.taps {
            if let Some([a, b]) = words::<i16, 2, 2>(input, i) {
                let (a, b) = (<i16 as Lanes<2>>::pack(a), <i16 as Lanes<2>>::pack(b));
                s0 = sxtah(s0, a);
                s1 = s1.wrapping_add(hi(a));
                s2 = sxtah(s2, b);
                s3 = s3.wrapping_add(hi(b));
            }
            i = i.wrapping_add(window.depth);
        }
        row = row.wrapping_add(window.row_step);
    }
    [s0, s1, s2, s3]
}

/// [`sum16_two_words`] of four words.
#[inline(always)]
fn sum16_four_words(input: &[i16], window: &Window, first: usize) -> [i32; 8] {
    let [
        mut s0,
        mut s1,
        mut s2,
        mut s3,
        mut s4,
        mut s5,
        mut s6,
        mut s7,
    ] = [0_i32; 8];
    window.each(first, |i| {
        if let Some([a, b, c, d]) = words::<i16, 2, 4>(input, i) {
            let (a, b) = (<i16 as Lanes<2>>::pack(a), <i16 as Lanes<2>>::pack(b));
            let (c, d) = (<i16 as Lanes<2>>::pack(c), <i16 as Lanes<2>>::pack(d));
            s0 = sxtah(s0, a);
            s1 = s1.wrapping_add(hi(a));
            s2 = sxtah(s2, b);
            s3 = s3.wrapping_add(hi(b));
            s4 = sxtah(s4, c);
            s5 = s5.wrapping_add(hi(c));
            s6 = sxtah(s6, d);
            s7 = s7.wrapping_add(hi(d));
        }
    });
    [s0, s1, s2, s3, s4, s5, s6, s7]
}

/// [`sum16_two_words`] of one word (channels `first..first + 2`).
#[inline(always)]
fn sum16_word(input: &[i16], window: &Window, first: usize) -> [i32; 2] {
    let (mut s0, mut s1) = (0_i32, 0_i32);
    window.each(first, |i| {
        if let Some([a]) = words::<i16, 2, 1>(input, i) {
            let a = <i16 as Lanes<2>>::pack(a);
            s0 = sxtah(s0, a);
            s1 = s1.wrapping_add(hi(a));
        }
    });
    [s0, s1]
}

/// int16 AVERAGE_POOL_2D ([`average_pool_s16`](super::pooling::average_pool_s16)) blocked, on
/// `part` of its geometry: per output pixel, blocks of eight channels (four words), then of
/// four (two words), then one word, then the last channel, each channel's window sum in 32
/// bits (module docs); then per
/// channel the portable kernel's rounding division and clamp. Returns `true` (every geometry
/// runs: the 32-bit sums are the portable kernel's whatever the window's size), having
/// stopped, as TFLM does, at the first empty window.
#[inline(always)]
pub(crate) fn average_pool_s16(p: &PoolS16, part: Part, input: &[i16], output: &mut [i16]) -> bool {
    pool_pixels(&p.geometry, part, input, output, |input, window, out| {
        // TFLM's kernel returns at an empty window, with the pixel unwritten.
        let Some(count) = i32::try_from(window.count).ok().filter(|&n| n > 0) else {
            return false;
        };
        let half = count / 2;
        let one = |sum: i32| clamp_to_i16(rounded_quotient(sum, count, half), p.act_min, p.act_max);
        let (whole, rest) = out.as_chunks_mut::<2>();
        let (quads, whole) = whole.as_chunks_mut::<4>();
        let (pairs, singles) = whole.as_chunks_mut::<2>();
        let mut first = 0;
        for [o0, o1, o2, o3] in quads {
            let s = sum16_four_words(input, window, first);
            *o0 = [one(s[0]), one(s[1])];
            *o1 = [one(s[2]), one(s[3])];
            *o2 = [one(s[4]), one(s[5])];
            *o3 = [one(s[6]), one(s[7])];
            first += 8;
        }
        for [o0, o1] in pairs {
            let [s0, s1, s2, s3] = sum16_two_words(input, window, first);
            *o0 = [one(s0), one(s1)];
            *o1 = [one(s2), one(s3)];
            first += 4;
        }
        for o in singles {
            *o = sum16_word(input, window, first).map(one);
            first += 2;
        }
        if let [o] = rest {
            let mut sum = 0_i32;
            window.each(first, |i| {
                if let Some(&x) = input.get(i) {
                    sum = sum.wrapping_add(i32::from(x));
                }
            });
            *o = one(sum);
        }
        true
    });
    true
}

#[cfg(test)]
mod tests {
    use super::super::{
        average_pool_s8_portable, average_pool_s16_portable, max_pool_s8_portable,
        max_pool_s16_portable,
    };
    use super::*;
    use crate::kernels::shared::testing::{Rng, fails_in_debug};
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    /// Cases per test: fewer under miri.
    const CASES: usize = if cfg!(miri) { 6 } else { 500 };

    /// Output size and TFLM's padding of one dimension (`same`: SAME, else VALID).
    fn dimension(size: usize, filter: usize, stride: usize, same: bool) -> Option<(usize, usize)> {
        let out = if same {
            size.div_ceil(stride)
        } else {
            (size.checked_sub(filter)? / stride) + 1
        };
        let pad = ((out - 1) * stride + filter).saturating_sub(size) / 2;
        Some((out, pad))
    }

    /// A random pool geometry: 1 to 3 batches, 1 to 9 rows and columns, channel counts 1 to
    /// 17 and some larger ones, windows 1 x 1 to 5 x 5 (now and then one of more than 256
    /// elements), strides 1 to 3, SAME or VALID (under miri smaller ones: 1 or 2 batches, 1 to
    /// 5 rows and columns, 1 to 17 channels).
    fn random_pool(rng: &mut Rng) -> PoolGeometry {
        loop {
            let n = 1 + rng.below(if cfg!(miri) { 2 } else { 3 });
            let c = if rng.below(4) == 0 && !cfg!(miri) {
                rng.pick(&[20, 24, 32, 33, 48, 64, 100])
            } else {
                1 + rng.below(17)
            };
            let big = rng.below(12) == 0 && !cfg!(miri);
            let side = if cfg!(miri) { 5 } else { 9 };
            let (h, w) = if big {
                (15 + rng.below(6), 15 + rng.below(6))
            } else {
                (1 + rng.below(side), 1 + rng.below(side))
            };
            let (fh, fw) = if big {
                (h - rng.below(3), w - rng.below(3))
            } else {
                (1 + rng.below(5), 1 + rng.below(5))
            };
            let (sh, sw) = (1 + rng.below(3), 1 + rng.below(3));
            let same = rng.below(2) == 0;
            let (Some((oh, ph)), Some((ow, pw))) =
                (dimension(h, fh, sh, same), dimension(w, fw, sw, same))
            else {
                continue;
            };
            return PoolGeometry {
                input: [n, h, w, c],
                output: [n, oh, ow, c],
                filter_h: fh,
                filter_w: fw,
                stride_h: sh,
                stride_w: sw,
                pad_h: ph,
                pad_w: pw,
            };
        }
    }

    /// Activation ranges: the whole int8 range, RELU-like ones, an empty one (`min > max`) and
    /// ones past int8 (narrowed by the max pool, clamped then narrowed by the average).
    const RANGES: [(i32, i32); 7] = [
        (-128, 127),
        (-128, 127),
        (-100, 90),
        (0, 127),
        (-5, 6),
        (20, -20),
        (-300, 300),
    ];

    fn elements(shape: [usize; 4]) -> usize {
        shape.iter().product()
    }

    /// The three pools, blocked and portable, on `part` of `g` with `x` (`x16` for int16),
    /// into outputs filled with a sentinel: equal, sentinels included.
    fn check_pools(g: &PoolGeometry, part: Part, x: &[i8], x16: &[i16], range: (i32, i32)) {
        let len = elements(g.output);
        let p8 = PoolS8 {
            geometry: *g,
            act_min: range.0,
            act_max: range.1,
        };
        let p16 = PoolS16 {
            geometry: *g,
            act_min: range.0 * 251,
            act_max: range.1 * 251,
        };
        let (mut fast, mut slow) = (vec![0x55_i8; len], vec![0x55_i8; len]);
        assert!(max_pool_s8(&p8, part, x, &mut fast));
        max_pool_s8_portable(&p8, part, x, &mut slow);
        assert_eq!(fast, slow, "max int8 {g:?} {part:?} {range:?}");
        let (mut fast, mut slow) = (vec![0x55_i8; len], vec![0x55_i8; len]);
        let blocked = average_pool_s8(&p8, part, x, &mut fast);
        let largest = g.filter_h.min(g.input[1]) * g.filter_w.min(g.input[2]);
        assert_eq!(blocked, largest <= 256, "{g:?}");
        if !blocked {
            assert!(fast.iter().all(|&v| v == 0x55), "declined, yet written");
            average_pool_s8_portable(&p8, part, x, &mut fast);
        }
        average_pool_s8_portable(&p8, part, x, &mut slow);
        assert_eq!(fast, slow, "average int8 {g:?} {part:?} {range:?}");
        let (mut fast, mut slow) = (vec![0x5555_i16; len], vec![0x5555_i16; len]);
        assert!(max_pool_s16(&p16, part, x16, &mut fast));
        max_pool_s16_portable(&p16, part, x16, &mut slow);
        assert_eq!(fast, slow, "max int16 {g:?} {part:?} {range:?}");
        let (mut fast, mut slow) = (vec![0x5555_i16; len], vec![0x5555_i16; len]);
        assert!(average_pool_s16(&p16, part, x16, &mut fast));
        average_pool_s16_portable(&p16, part, x16, &mut slow);
        assert_eq!(fast, slow, "average int16 {g:?} {part:?} {range:?}");
    }

    /// The pools, blocked and portable, on a part that skips input pixels its windows read:
    /// each fails in debug builds (no kernel reads outside its slice).
    fn check_pools_fail(g: &PoolGeometry, part: Part, x: &[i8], x16: &[i16], range: (i32, i32)) {
        let len = elements(g.output);
        let p8 = PoolS8 {
            geometry: *g,
            act_min: range.0,
            act_max: range.1,
        };
        let p16 = PoolS16 {
            geometry: *g,
            act_min: range.0 * 251,
            act_max: range.1 * 251,
        };
        let runs: [&dyn Fn(); 8] = [
            &|| {
                max_pool_s8(&p8, part, x, &mut vec![0; len]);
            },
            &|| max_pool_s8_portable(&p8, part, x, &mut vec![0; len]),
            &|| {
                average_pool_s8(&p8, part, x, &mut vec![0; len]);
            },
            &|| average_pool_s8_portable(&p8, part, x, &mut vec![0; len]),
            &|| {
                max_pool_s16(&p16, part, x16, &mut vec![0; len]);
            },
            &|| max_pool_s16_portable(&p16, part, x16, &mut vec![0; len]),
            &|| {
                average_pool_s16(&p16, part, x16, &mut vec![0; len]);
            },
            &|| average_pool_s16_portable(&p16, part, x16, &mut vec![0; len]),
        ];
        // The blocked int8 average declines windows of more than 256 elements before it reads
        // anything (the portable one then runs, and fails).
        let declined = g.filter_h.min(g.input[1]) * g.filter_w.min(g.input[2]) > 256;
        for (k, run) in runs.iter().enumerate() {
            if k == 2 && declined {
                continue;
            }
            assert!(fails_in_debug(run), "pool {k} {g:?} {part:?}");
        }
    }

    /// The int16 average's 32-bit sums past `i32`'s range (windows of more than 65,536
    /// elements at an extreme): they wrap, as the portable kernel's, whatever the order; with
    /// channels in blocks of eight and four, a single word and a last channel.
    #[test]
    fn int16_average_sums_wrap_as_the_portable_kernel() {
        if cfg!(miri) {
            return;
        }
        let (w, c) = (65_537 + 3, 15);
        let g = PoolGeometry {
            input: [1, 1, w, c],
            output: [1, 1, 4, c],
            filter_h: 1,
            filter_w: 65_537,
            stride_h: 1,
            stride_w: 1,
            pad_h: 0,
            pad_w: 0,
        };
        for x in [i16::MIN, i16::MAX] {
            let mut rng = Rng(5);
            let x16: Vec<i16> = (0..w * c)
                .map(|i| if i % 5 == 0 { rng.s16() } else { x })
                .collect();
            for range in [(-32768, 32767), (-1000, 1000), (0, 32767)] {
                let p = PoolS16 {
                    geometry: g,
                    act_min: range.0,
                    act_max: range.1,
                };
                let (mut fast, mut slow) = (vec![0_i16; 4 * c], vec![1_i16; 4 * c]);
                assert!(average_pool_s16(&p, Part::WHOLE, &x16, &mut fast));
                average_pool_s16_portable(&p, Part::WHOLE, &x16, &mut slow);
                assert_eq!(fast, slow, "{x} {range:?}");
            }
        }
    }

    #[test]
    fn pools_equal_the_portable_kernels() {
        let mut rng = Rng(0x5eed_0001);
        let mut declined = 0;
        for _ in 0..CASES {
            let g = random_pool(&mut rng);
            let x: Vec<i8> = (0..elements(g.input)).map(|_| rng.s8()).collect();
            let x16: Vec<i16> = (0..elements(g.input)).map(|_| rng.s16()).collect();
            let range = rng.pick(&RANGES);
            check_pools(&g, Part::WHOLE, &x, &x16, range);
            if g.filter_h.min(g.input[1]) * g.filter_w.min(g.input[2]) > 256 {
                declined += 1;
            }
        }
        assert!(cfg!(miri) || declined > 0, "no window past 256 elements");
    }

    /// An int8 value as an int16 one, the extremes to the extremes.
    fn wide(v: i8) -> i16 {
        match v {
            -128 => i16::MIN,
            127 => i16::MAX,
            _ => i16::from(v) * 256,
        }
    }

    /// Windows of every input value at once: all -128 and all 127 (the sums' extremes, 256
    /// elements at most in a halfword), and a window of exactly 256 elements.
    #[test]
    fn pools_at_the_extremes() {
        let shapes: &[(usize, usize, usize)] = if cfg!(miri) {
            &[(4, 4, 17), (1, 1, 3)]
        } else {
            &[
                (16, 16, 5),
                (16, 16, 8),
                (4, 4, 17),
                (17, 15, 4),
                (17, 16, 3),
                (1, 1, 3),
            ]
        };
        for &(h, w, c) in shapes {
            let g = PoolGeometry {
                input: [1, h, w, c],
                output: [1, 1, 1, c],
                filter_h: h,
                filter_w: w,
                stride_h: 1,
                stride_w: 1,
                pad_h: 0,
                pad_w: 0,
            };
            let n = h * w * c;
            let values: &[i8] = if cfg!(miri) {
                &[-128, 127]
            } else {
                &[-128, 127, -1, 0]
            };
            for &v in values {
                let x = vec![v; n];
                let x16 = vec![wide(v); n];
                for &range in RANGES.iter().step_by(if cfg!(miri) { 3 } else { 1 }) {
                    check_pools(&g, Part::WHOLE, &x, &x16, range);
                }
            }
            // Extremes mixed channel by channel.
            let x: Vec<i8> = (0..n)
                .map(|i| if (i % c) % 2 == 0 { -128 } else { 127 })
                .collect();
            let x16: Vec<i16> = x.iter().map(|&v| wide(v)).collect();
            check_pools(&g, Part::WHOLE, &x, &x16, (-128, 127));
        }
    }

    /// Parts as the overlapped driver makes them (a run of pixels `x..x1` of one output row,
    /// its geometry the input rows that row's windows reach, the pixels below the run's first
    /// window skipped): blocked and portable agree, and the chunks give the whole op's output.
    /// Parts that skip pixels a window reads agree too (neither reads them).
    #[test]
    fn pools_on_parts_equal_the_portable_kernels() {
        let mut rng = Rng(0x5eed_0002);
        for case in 0..CASES {
            let g = random_pool(&mut rng);
            let [n, h, w, c] = g.input;
            let [_, oh, ow, _] = g.output;
            let x: Vec<i8> = (0..elements(g.input)).map(|_| rng.s8()).collect();
            let x16: Vec<i16> = (0..elements(g.input)).map(|_| rng.s16()).collect();
            let range = rng.pick(&RANGES);
            // The whole op's outputs, for the chunks to add up to.
            let p8 = PoolS8 {
                geometry: g,
                act_min: range.0,
                act_max: range.1,
            };
            let mut whole = vec![0_i8; elements(g.output)];
            max_pool_s8_portable(&p8, Part::WHOLE, &x, &mut whole);
            let (b, y) = (rng.below(n), rng.below(oh));
            let x0 = rng.below(ow);
            let x1 = x0 + 1 + rng.below(ow - x0);
            // The input rows of row `y`'s windows, clamped into the input.
            let top = (y * g.stride_h) as isize - g.pad_h as isize;
            let r0 = top.max(0) as usize;
            let r1 = ((top + g.filter_h as isize).max(0) as usize).min(h);
            if r1 <= r0 {
                continue;
            }
            // The first column the run's windows read.
            let left = ((x0 * g.stride_w) as isize - g.pad_w as isize).max(0) as usize;
            // Every fourth case skips more than that: pixels the windows read are missing.
            let skip = if case % 4 == 3 {
                rng.below((r1 - r0) * w + 1)
            } else {
                rng.below(left + 1)
            };
            let sub = PoolGeometry {
                input: [1, r1 - r0, w, c],
                output: [1, 1, x1 - x0, c],
                pad_h: (g.pad_h + r0) - y * g.stride_h,
                ..g
            };
            let start = ((b * h + r0) * w + skip) * c;
            let end = (b * h + r1) * w * c;
            let xs = &x[start.min(end)..end];
            let xs16 = &x16[start.min(end)..end];
            let part = Part { x0, skip };
            if skip > left {
                // Skipped pixels the windows read: no driver gives such a part, and every
                // pool kernel fails on it in debug builds.
                check_pools_fail(&sub, part, xs, xs16, range);
                continue;
            }
            check_pools(&sub, part, xs, xs16, range);
            {
                let mut chunk = vec![0_i8; (x1 - x0) * c];
                max_pool_s8(&p8_with(&sub, range), part, xs, &mut chunk);
                let at = ((b * oh + y) * ow + x0) * c;
                assert_eq!(chunk[..], whole[at..at + chunk.len()], "{g:?} {part:?}");
            }
        }
    }

    fn p8_with(g: &PoolGeometry, range: (i32, i32)) -> PoolS8 {
        PoolS8 {
            geometry: *g,
            act_min: range.0,
            act_max: range.1,
        }
    }

    /// Slices shorter than the geometry says: nothing written, as the portable kernels; an
    /// empty window (padding past the filter): the average stops there, as TFLM's.
    #[test]
    fn pools_refuse_short_slices_and_stop_at_an_empty_window() {
        let g = PoolGeometry {
            input: [1, 3, 3, 6],
            output: [1, 3, 3, 6],
            filter_h: 2,
            filter_w: 2,
            stride_h: 1,
            stride_w: 1,
            pad_h: 0,
            pad_w: 0,
        };
        let x = [7_i8; 54];
        let x16 = [7_i16; 54];
        check_pools(&g, Part::WHOLE, &x[..53], &x16[..53], (-128, 127));
        let p = p8_with(&g, (-128, 127));
        let mut out = [1_i8; 53];
        assert!(max_pool_s8(&p, Part::WHOLE, &x, &mut out));
        assert_eq!(out, [1; 53]);
        // Row 1's windows start past the input's last row: empty from pixel (1, 0) on.
        let g = PoolGeometry { stride_h: 4, ..g };
        check_pools(&g, Part::WHOLE, &x, &x16, (-128, 127));
        let mut out = [1_i8; 54];
        assert!(average_pool_s8(
            &p8_with(&g, (-128, 127)),
            Part::WHOLE,
            &x,
            &mut out
        ));
        assert_eq!(out[..18], [7; 18]);
        assert_eq!(out[18..], [1; 36]);
    }
}
