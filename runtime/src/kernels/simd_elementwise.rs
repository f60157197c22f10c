//! The int8 and int16 pools, ADD and MUL blocked for the Cortex-M
//! DSP extension (cfg `stowplan_dsp`), as [`super::simd`] blocks the convolutions: one 32-bit
//! load holds four int8 (or two int16) channels or elements, and one instruction works on all
//! its lanes. The instructions are [`crate::dsp`]'s; on the host (where this module is
//! compiled for its tests) their portable twins, so the tests here run the very blocking the
//! device runs and compare it with the portable kernels.
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
//! - ADD and MUL (int8) with the same shapes, or one input a single element broadcast over
//!   the other: four elements of each input per load, the input offset added to two lanes at
//!   once (`SXTAB16` with the offset in both halfwords), MUL's products of two lanes by
//!   `SMULBB`/`SMULTT`; then each element's requantisation by `add_quantized`'s and
//!   `mul_quantized`'s own functions (a scalar input's ADD term computed once). The offset
//!   values are exact when `x + offset` fits a halfword for every int8 `x` (TFLM's offsets,
//!   minus a zero point, lie in `-127..=128`); other offsets and the other broadcasts take the
//!   portable walk, and so do the last one to three elements. The same loop runs on two
//!   slices ([`add_s8`], [`mul_s8`]) and on one buffer holding the first input and the output
//!   ([`add_s8_on_one_buffer`], [`mul_s8_on_one_buffer`], for the overlapped entries): each
//!   block reads its four first-input elements before it writes its four outputs, blocks in
//!   increasing order, so a first input at or above the output is never written over before
//!   it is read ([`one_buffer_walk`]).
//! - ADD and MUL (int16), the same shapes or a scalar input: blocks of four elements (two
//!   words) of each input, walked as the int8 ones on two slices ([`add_s16`], [`mul_s16`])
//!   and on one buffer ([`add_s16_on_one_buffer`], [`mul_s16_on_one_buffer`]: the same
//!   [`one_buffer_walk`], each block reading its four first-input elements before it writes
//!   its four outputs, blocks in increasing order). ADD's offset values are computed in 32
//!   bits from each halfword, then `add_quantized`'s requantisation (a scalar input's term
//!   computed once): every offset runs. MUL's products of two lanes by `SMULBB`/`SMULTT`,
//!   exact with both offsets 0 (TFLM's int16 MUL: zero points 0); other offsets (an int16
//!   plus an offset need not fit a halfword) and the other broadcasts take the portable walk.
//!
//! Every output is the portable kernel's, for every geometry and every part of one ([`Part`],
//! the overlapped driver's chunks): the pools visit the same windows (clamped to the input as
//! `pool_loops` clamps them) and read the same input elements (a skipped pixel's taps are past
//! the slice's end in both, and not read), the maximum of int8 or int16 values, the sum of at
//! most 256 int8 values and the 32-bit sums of int16 values (modulo 2^32, as the portable
//! kernel's) do not depend on the order; each output element is written once, in memory
//! order, from its own inputs; slices shorter than the geometry says are left alone as the
//! portable kernels leave them.

use super::add::{AddS8, AddS16, add_s8_one, add_s16_one, add_scale_input, add_scaled};
use super::broadcast::BinaryShape;
use super::conv::{Part, clamp_to_i16};
use super::mul::{MulS8, MulS16, mul_product, mul_s8_one, mul_s16_one};
use super::pooling::{PoolGeometry, PoolS8, PoolS16, clamp_window, rounded_quotient};
use super::{at, clamp_to_i8, product, sized_mut};
use crate::dsp::{max8, max16, smulbb, smultt, splat16, sxtab16, sxtab16_ror8, sxtah};

/// Four int8 values as one word, the first in the least significant byte (one `LDR`: in this
/// form the compiler merges the four loads where it can).
#[inline(always)]
fn word4(x: &[i8; 4]) -> u32 {
    u32::from_le_bytes(x.map(|v| v as u8))
}

/// The signed low halfword of `w`.
#[inline(always)]
fn lo(w: u32) -> i32 {
    i32::from(w as u16 as i16)
}

/// The signed high halfword of `w`.
#[inline(always)]
fn hi(w: u32) -> i32 {
    (w as i32) >> 16
}

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
        part.input(input, &[batches, input_h, input_w, depth]),
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

/// A lane type of the max pools: `N` values per 32-bit word, the first in the low bits.
trait Lanes<const N: usize>: Copy {
    /// A word with every lane at the type's least value (the maximum's start).
    const LEAST: u32;
    /// The word of `N` values.
    fn pack(x: &[Self; N]) -> u32;
    /// The word of fewer than `N` values, in the low lanes (the others 0).
    fn pack_partial(x: &[Self]) -> u32;
    /// The `N` values of a word.
    fn unpack(w: u32) -> [Self; N];
    /// Each lane the larger of `a`'s and `b`'s (one instruction pair of the DSP extension).
    fn max(a: u32, b: u32) -> u32;
    /// `v` in every lane.
    fn splat(v: Self) -> u32;
}

impl Lanes<4> for i8 {
    const LEAST: u32 = 0x8080_8080;
    #[inline(always)]
    fn pack(x: &[i8; 4]) -> u32 {
        word4(x)
    }
    #[inline(always)]
    fn pack_partial(x: &[i8]) -> u32 {
        x.iter()
            .rev()
            .fold(0, |w, &v| (w << 8) | u32::from(v as u8))
    }
    #[inline(always)]
    fn unpack(w: u32) -> [i8; 4] {
        w.to_le_bytes().map(|b| b as i8)
    }
    #[inline(always)]
    fn max(a: u32, b: u32) -> u32 {
        max8(a, b)
    }
    #[inline(always)]
    fn splat(v: i8) -> u32 {
        u32::from(v as u8) * 0x0101_0101
    }
}

impl Lanes<2> for i16 {
    const LEAST: u32 = 0x8000_8000;
    #[inline(always)]
    fn pack(&[a, b]: &[i16; 2]) -> u32 {
        u32::from(a as u16) | (u32::from(b as u16) << 16)
    }
    #[inline(always)]
    fn pack_partial(x: &[i16]) -> u32 {
        x.first().map_or(0, |&v| u32::from(v as u16))
    }
    #[inline(always)]
    fn unpack(w: u32) -> [i16; 2] {
        [w as i16, (w >> 16) as i16]
    }
    #[inline(always)]
    fn max(a: u32, b: u32) -> u32 {
        max16(a, b)
    }
    #[inline(always)]
    fn splat(v: i16) -> u32 {
        splat16(i32::from(v))
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
pub(super) fn max_pool_s8(p: &PoolS8, part: Part, input: &[i8], output: &mut [i8]) -> bool {
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
pub(super) fn max_pool_s16(p: &PoolS16, part: Part, input: &[i16], output: &mut [i16]) -> bool {
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
                let (a, b) = (word4(a), word4(b));
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
            let a = word4(a);
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
pub(super) fn average_pool_s8(p: &PoolS8, part: Part, input: &[i8], output: &mut [i8]) -> bool {
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
pub(super) fn average_pool_s16(p: &PoolS16, part: Part, input: &[i16], output: &mut [i16]) -> bool {
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

/// Whether `x + offset` fits a halfword for every int8 `x` (so `SXTAB16`'s lanes are the exact
/// offset values): `offset` in `-32640..=32640`.
#[inline(always)]
const fn offset_fits(offset: i32) -> bool {
    -32640 <= offset && offset <= 32640
}

/// How a blocked binary kernel pairs its inputs' elements.
#[derive(Clone, Copy)]
enum Pairs {
    /// The same shapes: element `k` of each input, for every output element (the portable
    /// kernel's elementwise loop).
    Same,
    /// The first input has the output's shape, the second one element: `(k, 0)` for the
    /// first `n` output elements (`broadcast`'s walk).
    SecondScalar(usize),
    /// The second input has the output's shape, the first one element: `(0, k)`.
    FirstScalar(usize),
}

/// The pairing of `shape` with an output slice of `len` elements, `None` for the broadcasts
/// the blocked kernels leave to the portable walk. `broadcast` takes its elementwise loop for
/// the same shapes, else walks the output shape's elements, writing while the output slice
/// lasts.
#[inline(always)]
fn pairs(shape: &BinaryShape, len: usize) -> Option<Pairs> {
    // Shapes compared dimension by dimension, without branches: `==` on the arrays calls
    // `memcmp` (a byte loop on the device), once or twice per call of the kernel.
    let same = |a: &[usize; 6], b: &[usize; 6]| {
        a.iter().zip(b).fold(0, |acc, (&x, &y)| acc | (x ^ y)) == 0
    };
    if same(&shape.input1, &shape.output) && same(&shape.input2, &shape.output) {
        return Some(Pairs::Same);
    }
    let elements = if shape.output.contains(&0) {
        0
    } else {
        product(&shape.output)?
    };
    let n = elements.min(len);
    let one = |s: &[usize; 6]| s.iter().all(|&d| d == 1);
    if same(&shape.input1, &shape.output) && one(&shape.input2) {
        Some(Pairs::SecondScalar(n))
    } else if one(&shape.input1) && same(&shape.input2, &shape.output) {
        Some(Pairs::FirstScalar(n))
    } else {
        None
    }
}

/// The elements `k..k + 4` of `xs`, each 0 past its end (as [`at`]).
#[inline(always)]
fn four_at<T: Copy + Default>(xs: &[T], k: usize) -> [T; 4] {
    match xs.get(k..).and_then(<[T]>::first_chunk::<4>) {
        Some(&x) => x,
        None => [0, 1, 2, 3].map(|j| k.checked_add(j).map_or(T::default(), |i| at(xs, i))),
    }
}

/// Where the blocked ADD and MUL read their first input and write their output (elements of
/// type `T`): two slices ([`Apart`]: [`add_s8`], [`mul_s8`], [`add_s16`], [`mul_s16`]), or one
/// buffer holding both ([`OneBuffer`]: [`add_s8_on_one_buffer`], [`mul_s8_on_one_buffer`],
/// [`add_s16_on_one_buffer`], [`mul_s16_on_one_buffer`]). The kernels ([`add_blocked`],
/// [`mul_blocked`], [`add16_blocked`], [`mul16_blocked`]) are the same for both.
trait FirstAndOutput<T> {
    /// The output's elements.
    fn len(&self) -> usize;

    /// The first input's element `k`, 0 past its end.
    fn first(&self, k: usize) -> T;

    /// Output elements `0..n` (`n` at most [`len`](Self::len)), in memory order: for each
    /// whole block of four `k..k + 4` (`k = 0, 4, 8, ...`), reads the first input's elements
    /// `k..k + 4` (0 past its end), then writes `block(k, them)` over the block's output
    /// elements; then for each of the last `n % 4` elements `k`, reads the first input's
    /// element `k`, then writes `one(k, it)` over output element `k`.
    fn walk(
        &mut self,
        n: usize,
        block: impl FnMut(usize, [T; 4]) -> [T; 4],
        one: impl FnMut(usize, T) -> T,
    );
}

/// The first input and the output in slices of their own.
struct Apart<'a, T> {
    input1: &'a [T],
    output: &'a mut [T],
}

impl<T: Copy + Default> FirstAndOutput<T> for Apart<'_, T> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.output.len()
    }

    #[inline(always)]
    fn first(&self, k: usize) -> T {
        at(self.input1, k)
    }

    #[inline(always)]
    fn walk(
        &mut self,
        n: usize,
        mut block: impl FnMut(usize, [T; 4]) -> [T; 4],
        mut one: impl FnMut(usize, T) -> T,
    ) {
        let out = self.output.get_mut(..n).unwrap_or(&mut []);
        let (blocks, rest) = out.as_chunks_mut::<4>();
        let mut k = 0;
        for o in blocks {
            *o = block(k, four_at(self.input1, k));
            k += 4;
        }
        for o in rest {
            *o = one(k, at(self.input1, k));
            k += 1;
        }
    }
}

/// The first input and the output in one buffer (the overlapped entries'): `len` elements
/// each, the first input's from `buf[input_at]`, the output's from `buf[output_at]`, both
/// inside `buf`, the input at or above the output or the two disjoint
/// ([`binary_fits`](super::overlap::binary_fits)).
struct OneBuffer<'a, T> {
    buf: &'a mut [T],
    input_at: usize,
    output_at: usize,
    len: usize,
}

impl<'a, T> OneBuffer<'a, T> {
    /// The layout of an op of `shape` in `buf`, `None` unless
    /// [`binary_fits`](super::overlap::binary_fits) and both tensors lie inside `buf`.
    #[inline(always)]
    fn new(
        shape: &BinaryShape,
        buf: &'a mut [T],
        input_at: usize,
        output_at: usize,
    ) -> Option<Self> {
        let len = super::overlap::binary_len(shape, buf.len(), input_at, output_at)?;
        Some(Self {
            buf,
            input_at,
            output_at,
            len,
        })
    }
}

impl<T: Copy + Default> FirstAndOutput<T> for OneBuffer<'_, T> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    fn first(&self, k: usize) -> T {
        if k < self.len {
            at(self.buf, self.input_at.saturating_add(k))
        } else {
            T::default()
        }
    }

    #[inline(always)]
    fn walk(
        &mut self,
        n: usize,
        block: impl FnMut(usize, [T; 4]) -> [T; 4],
        one: impl FnMut(usize, T) -> T,
    ) {
        one_buffer_walk(
            self.buf,
            self.input_at,
            self.output_at,
            n.min(self.len),
            block,
            one,
        );
    }
}

/// [`OneBuffer`]'s walk, for any element type (the tests instrument it with tagged cells):
/// output elements `0..n` in memory order as [`FirstAndOutput::walk`] walks them, the first
/// input's element `k` at `buf[input_at + k]`, the output's at `buf[output_at + k]` (an
/// element past `buf`'s end is read as `T::default()` and not written; the callers' layouts
/// lie inside `buf`).
///
/// # The order kept
///
/// Each block of four reads its first-input elements `k..k + 4` into registers before it
/// writes any of its outputs, and the blocks go in increasing `k`, then the last `n % 4`
/// elements one by one, each read before it is written. With the first input `d ≥ 0` elements
/// above the output (`input_at = output_at + d`, a full alias at `d = 0`), block `k..k + 4`
/// writes over the first input's elements `k − d..k + 4 − d` (those at or above its start), all
/// below `k + 4`: read already, by this block or an earlier one; the later blocks and elements
/// read from `k + 4` on. So every write lands on elements already read, for every `d ≥ 0`, as
/// in the portable walk (element by element); when the two tensors share no element nothing
/// written is read at all. The second input is a slice of its own and never written.
#[inline(always)]
pub(super) fn one_buffer_walk<T: Copy + Default>(
    buf: &mut [T],
    input_at: usize,
    output_at: usize,
    n: usize,
    mut block: impl FnMut(usize, [T; 4]) -> [T; 4],
    mut one: impl FnMut(usize, T) -> T,
) {
    let whole = n - n % 4;
    for k in (0..whole).step_by(4) {
        // All four read before anything is written.
        let x = four_at(buf, input_at.saturating_add(k));
        let y = block(k, x);
        if let Some(o) = buf
            .get_mut(output_at.saturating_add(k)..)
            .and_then(<[T]>::first_chunk_mut::<4>)
        {
            *o = y;
        }
    }
    for k in whole..n {
        let x = at(buf, input_at.saturating_add(k));
        let y = one(k, x);
        if let Some(o) = buf.get_mut(output_at.saturating_add(k)) {
            *o = y;
        }
    }
}

/// int8 ADD ([`add_s8`](super::add_s8)) blocked for the same shapes and a scalar input (module
/// docs). Returns `false`, having written nothing, for other broadcasts and for offsets out of
/// [`offset_fits`]'s range (the caller runs the portable walk).
#[inline(always)]
pub(super) fn add_s8(p: &AddS8, input1: &[i8], input2: &[i8], output: &mut [i8]) -> bool {
    add_blocked(p, &mut Apart { input1, output }, input2)
}

/// [`add_s8`] on one buffer ([`overlap::add_s8`](super::overlap::add_s8)): the first input at
/// `buf[input_at..]`, the output at `buf[output_at..]`, the second input in `input2`, walked
/// as [`one_buffer_walk`] walks them (each block reads its first-input elements before it
/// writes, blocks in increasing order: correct for every displacement
/// `input_at − output_at ≥ 0`). Returns `false`, having written nothing, for what [`add_s8`]
/// declines and unless [`binary_fits`](super::overlap::binary_fits) and both tensors lie inside
/// `buf`.
#[inline(always)]
pub(super) fn add_s8_on_one_buffer(
    p: &AddS8,
    buf: &mut [i8],
    input_at: usize,
    output_at: usize,
    input2: &[i8],
) -> bool {
    match OneBuffer::new(&p.shape, buf, input_at, output_at) {
        Some(mut io) => add_blocked(p, &mut io, input2),
        None => false,
    }
}

/// The blocked ADD on `io`'s first input and output and the slice `input2` ([`add_s8`]).
#[inline(always)]
fn add_blocked(p: &AddS8, io: &mut impl FirstAndOutput<i8>, input2: &[i8]) -> bool {
    if !offset_fits(p.input1_offset) || !offset_fits(p.input2_offset) {
        return false;
    }
    let len = io.len();
    let Some(pairs) = pairs(&p.shape, len) else {
        return false;
    };
    let (off1, off2) = (splat16(p.input1_offset), splat16(p.input2_offset));
    // The narrowing of `add_s8_one`, from the two offset values.
    let one = |v1: i32, v2: i32| {
        add_scaled(
            p,
            add_scale_input(p, p.input1, v1),
            add_scale_input(p, p.input2, v2),
        ) as i8
    };
    match pairs {
        Pairs::Same => io.walk(
            len,
            |k, x| {
                let (x, y) = (word4(&x), word4(&four_at(input2, k)));
                let (x02, x13) = (sxtab16(off1, x), sxtab16_ror8(off1, x));
                let (y02, y13) = (sxtab16(off2, y), sxtab16_ror8(off2, y));
                [
                    one(lo(x02), lo(y02)),
                    one(lo(x13), lo(y13)),
                    one(hi(x02), hi(y02)),
                    one(hi(x13), hi(y13)),
                ]
            },
            |k, x| add_s8_one(p, x, at(input2, k)),
        ),
        Pairs::SecondScalar(n) => {
            let y = at(input2, 0);
            // The scalar's term, computed once.
            let t2 = add_scale_input(p, p.input2, p.input2_offset.wrapping_add(i32::from(y)));
            let term = |v1: i32| add_scaled(p, add_scale_input(p, p.input1, v1), t2) as i8;
            io.walk(
                n,
                |_, x| {
                    let x = word4(&x);
                    let (x02, x13) = (sxtab16(off1, x), sxtab16_ror8(off1, x));
                    [term(lo(x02)), term(lo(x13)), term(hi(x02)), term(hi(x13))]
                },
                |_, x| add_s8_one(p, x, y),
            );
        }
        Pairs::FirstScalar(n) => {
            // Read before anything is written.
            let x = io.first(0);
            let t1 = add_scale_input(p, p.input1, p.input1_offset.wrapping_add(i32::from(x)));
            let term = |v2: i32| add_scaled(p, t1, add_scale_input(p, p.input2, v2)) as i8;
            io.walk(
                n,
                |k, _| {
                    let y = word4(&four_at(input2, k));
                    let (y02, y13) = (sxtab16(off2, y), sxtab16_ror8(off2, y));
                    [term(lo(y02)), term(lo(y13)), term(hi(y02)), term(hi(y13))]
                },
                |k, _| add_s8_one(p, x, at(input2, k)),
            );
        }
    }
    true
}

/// int8 MUL ([`mul_s8`](super::mul::mul_s8)) blocked for the same shapes and a scalar input
/// (module docs): the products of the offset values by `SMULBB` (lanes 0 and 1) and `SMULTT`
/// (lanes 2 and 3), exact (two halfwords' product fits 31 bits), then `mul_quantized`'s
/// requantisation. Returns `false`, having written nothing, as [`add_s8`].
#[inline(always)]
pub(super) fn mul_s8(p: &MulS8, input1: &[i8], input2: &[i8], output: &mut [i8]) -> bool {
    mul_blocked(p, &mut Apart { input1, output }, input2)
}

/// [`mul_s8`] on one buffer ([`overlap::mul_s8`](super::overlap::mul_s8)), walked and
/// declined as [`add_s8_on_one_buffer`].
#[inline(always)]
pub(super) fn mul_s8_on_one_buffer(
    p: &MulS8,
    buf: &mut [i8],
    input_at: usize,
    output_at: usize,
    input2: &[i8],
) -> bool {
    match OneBuffer::new(&p.shape, buf, input_at, output_at) {
        Some(mut io) => mul_blocked(p, &mut io, input2),
        None => false,
    }
}

/// The blocked MUL on `io`'s first input and output and the slice `input2` ([`mul_s8`]).
#[inline(always)]
fn mul_blocked(p: &MulS8, io: &mut impl FirstAndOutput<i8>, input2: &[i8]) -> bool {
    if !offset_fits(p.input1_offset) || !offset_fits(p.input2_offset) {
        return false;
    }
    let len = io.len();
    let Some(pairs) = pairs(&p.shape, len) else {
        return false;
    };
    let (off1, off2) = (splat16(p.input1_offset), splat16(p.input2_offset));
    // The narrowing of `mul_s8_one`, from the product of the two offset values.
    let one = |product: i32| mul_product(p, product) as i8;
    // Four products of the offset values of `x` (offset `ox`) and `y` (offset `oy`), in the
    // elements' order.
    let four = |x: u32, ox: u32, y: u32, oy: u32| {
        let (x02, x13) = (sxtab16(ox, x), sxtab16_ror8(ox, x));
        let (y02, y13) = (sxtab16(oy, y), sxtab16_ror8(oy, y));
        [
            one(smulbb(x02, y02)),
            one(smulbb(x13, y13)),
            one(smultt(x02, y02)),
            one(smultt(x13, y13)),
        ]
    };
    match pairs {
        Pairs::Same => io.walk(
            len,
            |k, x| four(word4(&x), off1, word4(&four_at(input2, k)), off2),
            |k, x| mul_s8_one(p, x, at(input2, k)),
        ),
        // The scalar with its offset value in both halfwords of `c`: it fits a halfword
        // ([`offset_fits`]), so as the offset of a word of zeros it is the value of all four
        // lanes (a product's factors commute).
        Pairs::SecondScalar(n) => {
            let y = at(input2, 0);
            let c = splat16(p.input2_offset.wrapping_add(i32::from(y)));
            io.walk(
                n,
                |_, x| four(word4(&x), off1, 0, c),
                |_, x| mul_s8_one(p, x, y),
            );
        }
        Pairs::FirstScalar(n) => {
            // Read before anything is written.
            let x = io.first(0);
            let c = splat16(p.input1_offset.wrapping_add(i32::from(x)));
            io.walk(
                n,
                |k, _| four(word4(&four_at(input2, k)), off2, 0, c),
                |k, _| mul_s8_one(p, x, at(input2, k)),
            );
        }
    }
    true
}

/// Two int16 values as one word, the first in the low halfword (one `LDR`: in this form the
/// compiler merges the two loads).
#[inline(always)]
fn word2(a: i16, b: i16) -> u32 {
    <i16 as Lanes<2>>::pack(&[a, b])
}

/// int16 ADD ([`add_s16`](super::add::add_s16)) blocked for the same shapes and a scalar input
/// (module docs): blocks of four elements of each input (two words), each element's
/// requantisation by `add_quantized`'s own functions, a scalar input's term computed once.
/// Returns `false`, having written nothing, for other broadcasts (the caller runs the portable
/// walk); every offset runs (the offset values are computed in 32 bits, as the portable
/// kernel's).
#[inline(always)]
pub(super) fn add_s16(p: &AddS16, input1: &[i16], input2: &[i16], output: &mut [i16]) -> bool {
    add16_blocked(p, &mut Apart { input1, output }, input2)
}

/// [`add_s16`] on one buffer ([`overlap::add_s16`](super::overlap::add_s16)), walked and
/// declined as [`add_s8_on_one_buffer`].
#[inline(always)]
pub(super) fn add_s16_on_one_buffer(
    p: &AddS16,
    buf: &mut [i16],
    input_at: usize,
    output_at: usize,
    input2: &[i16],
) -> bool {
    match OneBuffer::new(&p.shape, buf, input_at, output_at) {
        Some(mut io) => add16_blocked(p, &mut io, input2),
        None => false,
    }
}

/// The blocked int16 ADD on `io`'s first input and output and the slice `input2`
/// ([`add_s16`]).
#[inline(always)]
fn add16_blocked(p: &AddS16, io: &mut impl FirstAndOutput<i16>, input2: &[i16]) -> bool {
    let len = io.len();
    let Some(pairs) = pairs(&p.shape, len) else {
        return false;
    };
    // One input's term from a halfword of a word.
    let t1 = |v: i32| add_scale_input(p, p.input1, p.input1_offset.wrapping_add(v));
    let t2 = |v: i32| add_scale_input(p, p.input2, p.input2_offset.wrapping_add(v));
    let sum = |a: i32, b: i32| add_scaled(p, a, b) as i16;
    match pairs {
        Pairs::Same => io.walk(
            len,
            |k, [x0, x1, x2, x3]| {
                let [y0, y1, y2, y3] = four_at(input2, k);
                let (xa, xb, ya, yb) = (word2(x0, x1), word2(x2, x3), word2(y0, y1), word2(y2, y3));
                [
                    sum(t1(lo(xa)), t2(lo(ya))),
                    sum(t1(hi(xa)), t2(hi(ya))),
                    sum(t1(lo(xb)), t2(lo(yb))),
                    sum(t1(hi(xb)), t2(hi(yb))),
                ]
            },
            |k, x| add_s16_one(p, x, at(input2, k)),
        ),
        Pairs::SecondScalar(n) => {
            let y = at(input2, 0);
            // The scalar's term, computed once.
            let c = t2(i32::from(y));
            io.walk(
                n,
                |_, [x0, x1, x2, x3]| {
                    let (xa, xb) = (word2(x0, x1), word2(x2, x3));
                    [
                        sum(t1(lo(xa)), c),
                        sum(t1(hi(xa)), c),
                        sum(t1(lo(xb)), c),
                        sum(t1(hi(xb)), c),
                    ]
                },
                |_, x| add_s16_one(p, x, y),
            );
        }
        Pairs::FirstScalar(n) => {
            // Read before anything is written.
            let x = io.first(0);
            let c = t1(i32::from(x));
            io.walk(
                n,
                |k, _| {
                    let [y0, y1, y2, y3] = four_at(input2, k);
                    let (ya, yb) = (word2(y0, y1), word2(y2, y3));
                    [
                        sum(c, t2(lo(ya))),
                        sum(c, t2(hi(ya))),
                        sum(c, t2(lo(yb))),
                        sum(c, t2(hi(yb))),
                    ]
                },
                |k, _| add_s16_one(p, x, at(input2, k)),
            );
        }
    }
    true
}

/// int16 MUL ([`mul_s16`](super::mul::mul_s16)) blocked for the same shapes and a scalar input
/// with both offsets 0 (TFLM's int16 MUL: zero points 0): blocks of four elements of each
/// input (two words), the products of two lanes by `SMULBB` and `SMULTT` (exact: two
/// halfwords' product fits 31 bits), then `mul_quantized`'s requantisation. Returns `false`,
/// having written nothing, for other offsets (an int16 plus an offset need not fit a
/// halfword) and other broadcasts (the caller runs the portable walk).
#[inline(always)]
pub(super) fn mul_s16(p: &MulS16, input1: &[i16], input2: &[i16], output: &mut [i16]) -> bool {
    mul16_blocked(p, &mut Apart { input1, output }, input2)
}

/// [`mul_s16`] on one buffer ([`overlap::mul_s16`](super::overlap::mul_s16)), walked and
/// declined as [`add_s8_on_one_buffer`].
#[inline(always)]
pub(super) fn mul_s16_on_one_buffer(
    p: &MulS16,
    buf: &mut [i16],
    input_at: usize,
    output_at: usize,
    input2: &[i16],
) -> bool {
    match OneBuffer::new(&p.shape, buf, input_at, output_at) {
        Some(mut io) => mul16_blocked(p, &mut io, input2),
        None => false,
    }
}

/// The blocked int16 MUL on `io`'s first input and output and the slice `input2`
/// ([`mul_s16`]).
#[inline(always)]
fn mul16_blocked(p: &MulS16, io: &mut impl FirstAndOutput<i16>, input2: &[i16]) -> bool {
    if p.input1_offset != 0 || p.input2_offset != 0 {
        return false;
    }
    let len = io.len();
    let Some(pairs) = pairs(&p.shape, len) else {
        return false;
    };
    let one = |product: i32| mul_product(p, product) as i16;
    // The four products of the elements of two words of each input.
    let four = |xa: u32, xb: u32, ya: u32, yb: u32| {
        [
            one(smulbb(xa, ya)),
            one(smultt(xa, ya)),
            one(smulbb(xb, yb)),
            one(smultt(xb, yb)),
        ]
    };
    match pairs {
        Pairs::Same => io.walk(
            len,
            |k, [x0, x1, x2, x3]| {
                let [y0, y1, y2, y3] = four_at(input2, k);
                four(word2(x0, x1), word2(x2, x3), word2(y0, y1), word2(y2, y3))
            },
            |k, x| mul_s16_one(p, x, at(input2, k)),
        ),
        // The scalar in both halfwords of `c` (a product's factors commute).
        Pairs::SecondScalar(n) => {
            let y = at(input2, 0);
            let c = splat16(i32::from(y));
            io.walk(
                n,
                |_, [x0, x1, x2, x3]| four(word2(x0, x1), word2(x2, x3), c, c),
                |_, x| mul_s16_one(p, x, y),
            );
        }
        Pairs::FirstScalar(n) => {
            // Read before anything is written.
            let x = io.first(0);
            let c = splat16(i32::from(x));
            io.walk(
                n,
                |k, _| {
                    let [y0, y1, y2, y3] = four_at(input2, k);
                    four(word2(y0, y1), word2(y2, y3), c, c)
                },
                |k, _| mul_s16_one(p, x, at(input2, k)),
            );
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::Requant;
    use super::super::add::add_s8 as add_s8_portable;
    use super::super::add::add_s16 as add_s16_portable;
    use super::super::mul::mul_s8 as mul_s8_portable;
    use super::super::mul::mul_s16 as mul_s16_portable;
    use super::super::pooling::{
        average_pool_s8_portable, average_pool_s16_portable, max_pool_s8_portable,
        max_pool_s16_portable,
    };
    use super::*;
    use core::fmt::Debug;
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    struct Rng(u32);
    impl Rng {
        fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 17;
            self.0 ^= self.0 << 5;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            self.next() as usize % n
        }
        fn pick<T: Copy>(&mut self, v: &[T]) -> T {
            v[self.below(v.len())]
        }
        /// int8 values, a quarter of them at the extremes.
        fn s8(&mut self) -> i8 {
            let r = self.next();
            match r % 8 {
                0 => -128,
                1 => 127,
                _ => (r >> 8) as i8,
            }
        }
        /// int16 values, a quarter of them at the extremes.
        fn s16(&mut self) -> i16 {
            let r = self.next();
            match r % 8 {
                0 => i16::MIN,
                1 => i16::MAX,
                _ => (r >> 8) as i16,
            }
        }
    }

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
            check_pools(&sub, part, xs, xs16, range);
            if skip <= left {
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

    /// Random ADD and MUL parameters: offsets over TFLM's range and past it (out of
    /// `offset_fits`: the portable walk), multipliers and shifts over their range and at the
    /// extremes, left shifts of 20 (int8), 15, 0, 31 and past it (wrapping shifts).
    fn add_params(rng: &mut Rng, shape: BinaryShape) -> AddS8 {
        let offset = |rng: &mut Rng| match rng.below(8) {
            0 => -127,
            1 => 128,
            2 => rng.pick(&[-32640, 32640, -32641, 40000, i32::MIN]),
            _ => rng.below(256) as i32 - 127,
        };
        let requant = |rng: &mut Rng| Requant {
            multiplier: match rng.below(6) {
                0 => i32::MAX,
                1 => 1 << 30,
                2 => 0,
                _ => (1 << 30) + (rng.next() >> 2) as i32,
            },
            shift: match rng.below(6) {
                0 => 0,
                1 => -31,
                2 => rng.pick(&[1, 3, -40]),
                _ => -(rng.below(20) as i32),
            },
        };
        let (act_min, act_max) = rng.pick(&RANGES);
        AddS8 {
            shape,
            left_shift: rng.pick(&[20, 20, 20, 15, 0, 31, 32, 40]),
            input1_offset: offset(rng),
            input1: requant(rng),
            input2_offset: offset(rng),
            input2: requant(rng),
            output_offset: rng.below(256) as i32 - 128,
            output: requant(rng),
            act_min,
            act_max,
        }
    }

    fn mul_params(rng: &mut Rng, shape: BinaryShape) -> MulS8 {
        let a = add_params(rng, shape);
        MulS8 {
            shape,
            input1_offset: a.input1_offset,
            input2_offset: a.input2_offset,
            output_offset: a.output_offset,
            output: Requant {
                multiplier: a.output.multiplier,
                // Shifts left too (the product of scales may exceed the output's).
                shift: a.output.shift + rng.pick(&[0, 0, 8, 20]),
            },
            act_min: a.act_min,
            act_max: a.act_max,
        }
    }

    /// A shape of `len` elements in six dimensions (`len` in one of them, or split in two).
    fn shape_of(rng: &mut Rng, len: usize) -> [usize; 6] {
        let mut s = [1; 6];
        let d = rng.below(6);
        if len.is_multiple_of(3) && len > 0 && rng.below(2) == 0 {
            s[d] = 3;
            s[(d + 1 + rng.below(5)) % 6] = len / 3;
        } else {
            s[d] = len;
        }
        s
    }

    /// Same shapes, a scalar second input and a scalar first one (`[]`-like all-ones shapes),
    /// lengths 0 to 70 and a longer one, slices now and then shorter or longer than the shapes.
    fn binary_case(rng: &mut Rng) -> (BinaryShape, Vec<i8>, Vec<i8>, usize) {
        binary_case_of(rng, Rng::s8)
    }

    /// [`binary_case`] with the elements drawn by `value`.
    fn binary_case_of<T>(
        rng: &mut Rng,
        value: fn(&mut Rng) -> T,
    ) -> (BinaryShape, Vec<T>, Vec<T>, usize) {
        let len = if rng.below(10) == 0 {
            rng.below(600)
        } else {
            rng.below(71)
        };
        let out = shape_of(rng, len);
        let ones = [1; 6];
        let (s1, s2) = match rng.below(4) {
            0 | 1 => (out, out),
            2 => (out, ones),
            _ => (ones, out),
        };
        let count = |s: &[usize; 6]| s.iter().product::<usize>();
        // Mostly the shapes' sizes; now and then a slice off by a few elements.
        let mut size = |n: usize| match rng.below(10) {
            0 => n.saturating_sub(rng.below(6)),
            1 => n + rng.below(6),
            _ => n,
        };
        let (n1, n2, no) = (size(count(&s1)), size(count(&s2)), size(len));
        let x1 = (0..n1).map(|_| value(rng)).collect();
        let x2 = (0..n2).map(|_| value(rng)).collect();
        (
            BinaryShape {
                input1: s1,
                input2: s2,
                output: out,
            },
            x1,
            x2,
            no,
        )
    }

    #[test]
    fn add_and_mul_equal_the_portable_kernels() {
        let mut rng = Rng(0x5eed_0003);
        let (mut blocked, mut declined) = (0, 0);
        for case in 0..CASES * 2 {
            let (shape, x1, x2, len) = binary_case(&mut rng);
            let (mut fast, mut slow) = (vec![0x55_i8; len], vec![0x55_i8; len]);
            if case % 2 == 0 {
                let p = add_params(&mut rng, shape);
                if add_s8(&p, &x1, &x2, &mut fast) {
                    blocked += 1;
                } else {
                    declined += 1;
                    assert!(fast.iter().all(|&v| v == 0x55), "declined, yet written");
                    add_s8_portable(&p, &x1, &x2, &mut fast);
                }
                add_s8_portable(&p, &x1, &x2, &mut slow);
                assert_eq!(fast, slow, "ADD {p:?} {} {}", x1.len(), x2.len());
            } else {
                let p = mul_params(&mut rng, shape);
                if mul_s8(&p, &x1, &x2, &mut fast) {
                    blocked += 1;
                } else {
                    declined += 1;
                    assert!(fast.iter().all(|&v| v == 0x55), "declined, yet written");
                    mul_s8_portable(&p, &x1, &x2, &mut fast);
                }
                mul_s8_portable(&p, &x1, &x2, &mut slow);
                assert_eq!(fast, slow, "MUL {p:?} {} {}", x1.len(), x2.len());
            }
        }
        assert!(blocked > declined, "{blocked} blocked, {declined} declined");
        assert!(cfg!(miri) || declined > 0);
    }

    /// Every pair of int8 values at TFLM's extreme offsets (-127 and 128), with the products'
    /// and sums' extremes.
    #[test]
    fn add_and_mul_over_every_pair_at_extreme_offsets() {
        let step = if cfg!(miri) { 37 } else { 1 };
        let xs: Vec<i8> = (-128..=127).step_by(step).collect();
        let n = xs.len();
        let shape = BinaryShape {
            input1: [1, 1, 1, 1, n, n],
            input2: [1, 1, 1, 1, n, n],
            output: [1, 1, 1, 1, n, n],
        };
        let x1: Vec<i8> = xs.iter().flat_map(|&a| xs.iter().map(move |_| a)).collect();
        let x2: Vec<i8> = xs.iter().flat_map(|_| xs.iter().copied()).collect();
        for (o1, o2) in [(-127, -127), (128, 128), (-127, 128), (128, -127), (0, 0)] {
            let mul = MulS8 {
                shape,
                input1_offset: o1,
                input2_offset: o2,
                output_offset: -3,
                output: Requant {
                    multiplier: 1_500_000_000,
                    shift: -9,
                },
                act_min: -128,
                act_max: 127,
            };
            let (mut fast, mut slow) = (vec![0_i8; n * n], vec![0_i8; n * n]);
            assert!(mul_s8(&mul, &x1, &x2, &mut fast));
            mul_s8_portable(&mul, &x1, &x2, &mut slow);
            assert_eq!(fast, slow, "MUL offsets {o1} {o2}");
            for d in [0, 1, 3] {
                assert_eq!(
                    on_one_buffer(&x1, d, |b, ia, oa| mul_s8_on_one_buffer(
                        &mul, b, ia, oa, &x2
                    )),
                    slow,
                    "MUL on one buffer, d {d}, offsets {o1} {o2}"
                );
            }
            let add = AddS8 {
                shape,
                left_shift: 20,
                input1_offset: o1,
                input1: Requant {
                    multiplier: 1_073_741_824,
                    shift: 0,
                },
                input2_offset: o2,
                input2: Requant {
                    multiplier: 2_000_000_000,
                    shift: -1,
                },
                output_offset: 5,
                output: Requant {
                    multiplier: 1_200_000_000,
                    shift: -19,
                },
                act_min: -128,
                act_max: 127,
            };
            assert!(add_s8(&add, &x1, &x2, &mut fast));
            add_s8_portable(&add, &x1, &x2, &mut slow);
            assert_eq!(fast, slow, "ADD offsets {o1} {o2}");
            for d in [0, 1, 3] {
                assert_eq!(
                    on_one_buffer(&x1, d, |b, ia, oa| add_s8_on_one_buffer(
                        &add, b, ia, oa, &x2
                    )),
                    slow,
                    "ADD on one buffer, d {d}, offsets {o1} {o2}"
                );
            }
        }
    }

    /// The output of a one-buffer entry `run(buf, input_at, output_at)` that must run, with
    /// `x1` `d` elements above the output.
    fn on_one_buffer(
        x1: &[i8],
        d: usize,
        run: impl FnOnce(&mut [i8], usize, usize) -> bool,
    ) -> Vec<i8> {
        let mut buf = vec![0_i8; d + x1.len()];
        buf[d..].copy_from_slice(x1);
        assert!(run(&mut buf, d, 0), "declined at d {d}");
        buf.truncate(x1.len());
        buf
    }

    /// The layouts `(input_at, output_at)` of a one-buffer case of `len` elements: the output
    /// from element 0, 1 or 2, the first input 0 (a full alias), 1, 2, 3, 4, 5 and more
    /// elements above it, below it and disjoint, and one element below it (refused unless
    /// `len` is at most 1).
    fn layouts(rng: &mut Rng, len: usize) -> Vec<(usize, usize)> {
        let o = rng.below(3);
        let far = [6 + rng.below(8), len + rng.below(3)];
        let mut v: Vec<_> = [0, 1, 2, 3, 4, 5]
            .into_iter()
            .chain(far)
            .map(|d| (o + d, o))
            .collect();
        v.push((o, o + len + rng.below(3)));
        v.push((o, o + 1));
        v
    }

    /// A one-buffer entry `run(buf, input_at, output_at)` at every layout of [`layouts`], on a
    /// buffer of sentinels holding `x1` at `input_at`: where it runs, `want` at `output_at` and
    /// every other element as it was; where it declines, the buffer unchanged. It must run
    /// exactly at the layouts `binary_fits` accepts when `blocked` (the two-slice kernel ran
    /// blocked). Returns how many layouts ran.
    fn check_one_buffer<T: Copy + PartialEq + Debug + From<i8>>(
        rng: &mut Rng,
        what: &str,
        x1: &[T],
        want: &[T],
        blocked: bool,
        run: impl Fn(&mut [T], usize, usize) -> bool,
    ) -> usize {
        let len = x1.len();
        let mut ran = 0;
        for (ia, oa) in layouts(rng, len) {
            let mut buf = vec![T::from(0x55); ia.max(oa) + len + 2];
            buf[ia..ia + len].copy_from_slice(x1);
            let before = buf.clone();
            let fits = ia >= oa || ia + len <= oa;
            let ok = run(&mut buf, ia, oa);
            assert_eq!(ok, blocked && fits, "{what} at {ia}, {oa}, {len} elements");
            if !ok {
                assert_eq!(buf, before, "{what} declined, yet written");
                continue;
            }
            ran += 1;
            assert_eq!(buf[oa..oa + len], want[..], "{what} at {ia}, {oa}");
            for (k, (&now, &was)) in buf.iter().zip(&before).enumerate() {
                if !(oa..oa + len).contains(&k) {
                    assert_eq!(now, was, "{what} at {ia}, {oa}: element {k} written");
                }
            }
        }
        ran
    }

    /// The blocked ADD and MUL on one buffer (the overlapped entries') equal the portable
    /// kernels on two: the first input 0 to 5 and more elements above the output, lengths of
    /// every remainder modulo 4, the same shapes and a scalar second input (now and then a
    /// second slice shorter or longer than its shape), and [`add_params`]' extreme parameters;
    /// declined, with nothing written, where the two-slice kernel declines or the layout does
    /// not fit.
    #[test]
    fn add_and_mul_on_one_buffer_equal_the_portable_kernels() {
        let mut rng = Rng(0x5eed_0004);
        let (mut ran, mut declined) = (0, 0);
        for case in 0..CASES * 2 {
            let len = if cfg!(miri) {
                rng.below(24)
            } else if rng.below(10) == 0 {
                rng.below(600)
            } else {
                rng.below(71)
            };
            let out = shape_of(&mut rng, len);
            let scalar = rng.below(3) == 0;
            let s2 = if scalar { [1; 6] } else { out };
            let n2 = match (scalar, rng.below(10)) {
                (true, _) => 1,
                (false, 0) => len.saturating_sub(1 + rng.below(5)),
                (false, 1) => len + 1 + rng.below(5),
                _ => len,
            };
            let shape = BinaryShape {
                input1: out,
                input2: s2,
                output: out,
            };
            let x1: Vec<i8> = (0..len).map(|_| rng.s8()).collect();
            let x2: Vec<i8> = (0..n2).map(|_| rng.s8()).collect();
            let mut want = vec![0_i8; len];
            let runs = if case % 2 == 0 {
                let p = add_params(&mut rng, shape);
                add_s8_portable(&p, &x1, &x2, &mut want);
                let blocked = add_s8(&p, &x1, &x2, &mut vec![0; len]);
                let run = |b: &mut [i8], ia, oa| add_s8_on_one_buffer(&p, b, ia, oa, &x2);
                check_one_buffer(&mut rng, "ADD", &x1, &want, blocked, run)
            } else {
                let p = mul_params(&mut rng, shape);
                mul_s8_portable(&p, &x1, &x2, &mut want);
                let blocked = mul_s8(&p, &x1, &x2, &mut vec![0; len]);
                let run = |b: &mut [i8], ia, oa| mul_s8_on_one_buffer(&p, b, ia, oa, &x2);
                check_one_buffer(&mut rng, "MUL", &x1, &want, blocked, run)
            };
            if runs == 0 {
                declined += 1;
            } else {
                ran += 1;
            }
        }
        assert!(ran > declined, "{ran} ran, {declined} declined");
        assert!(cfg!(miri) || declined > 0);
    }

    /// Random int16 ADD parameters: [`add_params`]' with offsets over TFLM's int16 range
    /// (minus a zero point) and at its extremes, and int16 activation ranges (the whole range,
    /// RELU-like ones, an empty one and one past int16).
    fn add16_params(rng: &mut Rng, shape: BinaryShape) -> AddS16 {
        let offset = |rng: &mut Rng| match rng.below(6) {
            0 => -32767,
            1 => 32768,
            2 => 0,
            3 => rng.pick(&[i32::MIN, i32::MAX, 70000]),
            _ => rng.below(65536) as i32 - 32767,
        };
        let (act_min, act_max) = rng.pick(&[
            (-32768, 32767),
            (-32768, 32767),
            (0, 32767),
            (-1000, 1200),
            (300, -300),
            (-40000, 40000),
        ]);
        AddS16 {
            input1_offset: offset(rng),
            input2_offset: offset(rng),
            output_offset: rng.below(65536) as i32 - 32768,
            act_min,
            act_max,
            ..add_params(rng, shape)
        }
    }

    /// Random int16 MUL parameters: mostly both offsets 0 (TFLM's int16 MUL; blocked), now and
    /// then one not (declined), [`mul_params`]' multipliers and shifts.
    fn mul16_params(rng: &mut Rng, shape: BinaryShape) -> MulS16 {
        let a = add16_params(rng, shape);
        let m = mul_params(rng, shape);
        let (input1_offset, input2_offset) = match rng.below(8) {
            0 => (a.input1_offset, 0),
            1 => (0, rng.pick(&[1, -1, 32768])),
            _ => (0, 0),
        };
        MulS16 {
            input1_offset,
            input2_offset,
            output_offset: a.output_offset,
            act_min: a.act_min,
            act_max: a.act_max,
            ..m
        }
    }

    /// A random int16 binary case: [`binary_case_of`]'s, now and then with the second input
    /// broadcast along rows instead (declined).
    fn binary16_case(rng: &mut Rng) -> (BinaryShape, Vec<i16>, Vec<i16>, usize) {
        let (shape, x1, x2, len) = binary_case_of(rng, Rng::s16);
        if rng.below(6) != 0 {
            return (shape, x1, x2, len);
        }
        let (a, b) = (1 + rng.below(5), 2 + rng.below(6));
        let full = [1, 1, 1, 1, a, b];
        let shape = BinaryShape {
            input1: full,
            input2: [1, 1, 1, 1, 1, b],
            output: full,
        };
        let x1 = (0..a * b).map(|_| rng.s16()).collect();
        let x2 = (0..b).map(|_| rng.s16()).collect();
        (shape, x1, x2, a * b)
    }

    /// The blocked int16 ADD and MUL on two slices and on one buffer (every layout of
    /// [`layouts`]) equal the portable kernels: random shapes (same, a scalar input, slices
    /// shorter or longer than the shapes) and edge values; declined, with nothing written, for
    /// other broadcasts and (MUL) offsets other than 0.
    #[test]
    fn int16_add_and_mul_equal_the_portable_kernels() {
        let mut rng = Rng(0x5eed_0016);
        let (mut blocked, mut declined, mut ran) = (0, 0, 0);
        for case in 0..CASES * 2 {
            let (shape, x1, x2, len) = binary16_case(&mut rng);
            let (mut fast, mut slow) = (vec![0x55_i16; len], vec![0x55_i16; len]);
            let is_blocked = if case % 2 == 0 {
                let p = add16_params(&mut rng, shape);
                let ok = add_s16(&p, &x1, &x2, &mut fast);
                if !ok {
                    assert!(fast.iter().all(|&v| v == 0x55), "declined, yet written");
                    add_s16_portable(&p, &x1, &x2, &mut fast);
                }
                add_s16_portable(&p, &x1, &x2, &mut slow);
                assert_eq!(fast, slow, "ADD {p:?} {} {}", x1.len(), x2.len());
                ok
            } else {
                let p = mul16_params(&mut rng, shape);
                let ok = mul_s16(&p, &x1, &x2, &mut fast);
                if !ok {
                    assert!(fast.iter().all(|&v| v == 0x55), "declined, yet written");
                    mul_s16_portable(&p, &x1, &x2, &mut fast);
                }
                mul_s16_portable(&p, &x1, &x2, &mut slow);
                assert_eq!(fast, slow, "MUL {p:?} {} {}", x1.len(), x2.len());
                ok
            };
            if is_blocked {
                blocked += 1;
            } else {
                declined += 1;
            }
            // On one buffer: the first input's elements as the shape has them (the output's
            // shape, else the layout is refused), the second input's slice as drawn.
            if shape.input1 != shape.output {
                continue;
            }
            let n = shape.output.iter().product::<usize>();
            let x1: Vec<i16> = (0..n).map(|_| rng.s16()).collect();
            let mut want = vec![0_i16; n];
            let runs = if case % 2 == 0 {
                let p = add16_params(&mut rng, shape);
                add_s16_portable(&p, &x1, &x2, &mut want);
                let b = add_s16(&p, &x1, &x2, &mut vec![0; n]);
                let run = |buf: &mut [i16], ia, oa| add_s16_on_one_buffer(&p, buf, ia, oa, &x2);
                check_one_buffer(&mut rng, "ADD int16", &x1, &want, b, run)
            } else {
                let p = mul16_params(&mut rng, shape);
                mul_s16_portable(&p, &x1, &x2, &mut want);
                let b = mul_s16(&p, &x1, &x2, &mut vec![0; n]);
                let run = |buf: &mut [i16], ia, oa| mul_s16_on_one_buffer(&p, buf, ia, oa, &x2);
                check_one_buffer(&mut rng, "MUL int16", &x1, &want, b, run)
            };
            ran += usize::from(runs > 0);
        }
        assert!(blocked > declined, "{blocked} blocked, {declined} declined");
        assert!(
            cfg!(miri) || (declined > 0 && ran > CASES / 2),
            "{declined} {ran}"
        );
    }

    /// Every pair of int16 edge values (the extremes, 0, ±1, and values whose product is at
    /// its extremes), the same shapes and each input a scalar, at extreme multipliers.
    #[test]
    fn int16_add_and_mul_over_edge_pairs() {
        let edges: Vec<i16> = vec![
            i16::MIN,
            i16::MIN + 1,
            -16384,
            -1,
            0,
            1,
            2,
            16384,
            i16::MAX - 1,
            i16::MAX,
            12345,
            -23456,
        ];
        let n = edges.len();
        let x1: Vec<i16> = edges
            .iter()
            .flat_map(|&a| edges.iter().map(move |_| a))
            .collect();
        let x2: Vec<i16> = edges.iter().flat_map(|_| edges.iter().copied()).collect();
        let full = [1, 1, 1, 1, n, n];
        let mut rng = Rng(0x16);
        for (s1, s2) in [(full, full), (full, [1; 6]), ([1; 6], full)] {
            let shape = BinaryShape {
                input1: s1,
                input2: s2,
                output: full,
            };
            let a1 = if s1 == full {
                &x1[..]
            } else {
                &x1[n * n - 1..]
            };
            let a2 = if s2 == full { &x2[..] } else { &x2[..1] };
            for (multiplier, shift) in [(i32::MAX, 0), (1 << 30, -15), (1_500_000_000, 14)] {
                let mul = MulS16 {
                    shape,
                    input1_offset: 0,
                    input2_offset: 0,
                    output_offset: 0,
                    output: Requant { multiplier, shift },
                    act_min: -32768,
                    act_max: 32767,
                };
                let (mut fast, mut slow) = (vec![0_i16; n * n], vec![0_i16; n * n]);
                assert!(mul_s16(&mul, a1, a2, &mut fast));
                mul_s16_portable(&mul, a1, a2, &mut slow);
                assert_eq!(fast, slow, "MUL {multiplier} {shift}");
                for (o1, o2) in [(-32767, 32768), (32768, -32767), (0, 0)] {
                    let add = AddS16 {
                        left_shift: 15,
                        input1_offset: o1,
                        input2_offset: o2,
                        output_offset: rng.below(3) as i32 - 1,
                        output: Requant {
                            multiplier,
                            shift: shift.min(0),
                        },
                        act_min: -32768,
                        act_max: 32767,
                        ..add16_params(&mut rng, shape)
                    };
                    assert!(add_s16(&add, a1, a2, &mut fast));
                    add_s16_portable(&add, a1, a2, &mut slow);
                    assert_eq!(fast, slow, "ADD {add:?}");
                }
            }
        }
    }

    /// Broadcasts other than a scalar are declined, with nothing written.
    #[test]
    fn other_broadcasts_are_declined() {
        let shape = BinaryShape {
            input1: [1, 1, 1, 1, 3, 4],
            input2: [1, 1, 1, 1, 1, 4],
            output: [1, 1, 1, 1, 3, 4],
        };
        let mut rng = Rng(9);
        let mut p = add_params(&mut rng, shape);
        p.input1_offset = 0;
        p.input2_offset = 0;
        let mut out = [3_i8; 12];
        assert!(!add_s8(&p, &[1; 12], &[2; 4], &mut out));
        assert_eq!(out, [3; 12]);
        let q = mul_params(&mut rng, shape);
        assert!(!mul_s8(&q, &[1; 12], &[2; 4], &mut out));
        assert_eq!(out, [3; 12]);
        // On one buffer too (a full alias), and with the first input broadcast (which no
        // one-buffer layout fits).
        let mut buf = [1_i8; 12];
        assert!(!add_s8_on_one_buffer(&p, &mut buf, 0, 0, &[2; 4]));
        assert!(!mul_s8_on_one_buffer(&q, &mut buf, 0, 0, &[2; 4]));
        assert_eq!(buf, [1; 12]);
        let flipped = BinaryShape {
            input1: shape.input2,
            input2: shape.input1,
            output: shape.output,
        };
        let p = AddS8 {
            shape: flipped,
            ..p
        };
        let mut buf = [1_i8; 16];
        assert!(!add_s8_on_one_buffer(&p, &mut buf, 12, 0, &[2; 12]));
        assert_eq!(buf, [1; 16]);
    }
}
