//! The int8 loops of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED blocked for the Cortex-M
//! DSP extension (cfg `stowplan_dsp`): four int8 values per 32-bit load, widened to two pairs of
//! halfwords (`SXTB16`, the input offset added in the same instruction by `SXTAB16`), two
//! multiply-accumulates per `SMLAD`, and blocks of accumulators that stay in registers. The
//! instructions are [`crate::dsp`]'s; on the host (where this module is compiled for its tests)
//! their portable twins, so the tests here run the very blocking the device runs and compare it
//! with the portable kernels.
//!
//! Every output is TFLM's value: each accumulator is the same int32 sum as the portable
//! kernel's (`sum(filter * (input + input_offset))`, its terms in another order, which is exact
//! modulo 2^32, as TFLM's accumulator wraps), then the same requantisation
//! as [`requantize_channel`](super::conv::requantize_channel) ([`Epilogue`]: the same
//! arithmetic, or an exact shorter form of it). `input + input_offset` fits a halfword: the
//! input is int8 and the offset minus an int8 zero point, so the sum lies in `-255..=255`; filter values are int8;
//! every product fits in 17 bits.

use super::conv::{ConvS8, Part, valid_taps};
use super::{Requant, product, sized, sized_mut};
use crate::dsp::{
    smlabb, smlabt, smlad, smlatt, splat16, sxtab16, sxtab16_ror8, sxtb16, sxtb16_ror8, word,
};

/// `sum(filter[k] * (input[k] + offset))` over the shorter length, wrapping: four elements per
/// step (two `SMLAD`s), the rest one by one.
#[inline(always)]
pub(super) fn dot_offset_s8(input: &[i8], filter: &[i8], offset: i32) -> i32 {
    let off = splat16(offset);
    let (xs, fs) = (input.chunks_exact(4), filter.chunks_exact(4));
    let mut acc: i32 = 0;
    let full = xs.len().min(fs.len());
    for (x, f) in xs.zip(fs) {
        let (x, f) = (word(x), word(f));
        acc = smlad(sxtab16(off, x), sxtb16(f), acc);
        acc = smlad(sxtab16_ror8(off, x), sxtb16_ror8(f), acc);
    }
    // The tail of the shorter one, paired with the longer one's elements at the same index.
    let (x_rest, f_rest) = (
        input.get(full * 4..).unwrap_or(&[]),
        filter.get(full * 4..).unwrap_or(&[]),
    );
    for (&x, &f) in x_rest.iter().zip(f_rest) {
        acc = acc.wrapping_add(i32::from(f).wrapping_mul(i32::from(x).wrapping_add(offset)));
    }
    acc
}

/// The elements of `s` from `start` on (none past its end).
#[inline(always)]
fn tail(s: &[i8], start: usize) -> &[i8] {
    s.get(start..).unwrap_or(&[])
}

/// Four int8 values as one word, the first in the least significant byte.
#[inline(always)]
fn word4(x: &[i8; 4]) -> u32 {
    let [a, b, c, d] = *x;
    u32::from_le_bytes([a as u8, b as u8, c as u8, d as u8])
}

/// The first `n` elements of `s` (all of them if it is shorter).
#[inline(always)]
fn first<T>(s: &[T], n: usize) -> &[T] {
    s.get(..n).unwrap_or(s)
}

/// The four sums of a 2 x 2 block: input rows `a`, `b` (two output pixels) against filter rows
/// `fa`, `fb` (two output channels), `[a.fa, a.fb, b.fa, b.fb]`, each
/// `sum(f * (x + offset))` over the rows' common length. Per four input channels: four loads,
/// eight widenings, eight `SMLAD`s (16 multiply-accumulates), the four sums in registers.
#[inline(always)]
fn dot_2x2(a: &[i8], b: &[i8], fa: &[i8], fb: &[i8], offset: i32) -> [i32; 4] {
    let (a4, b4) = (a.as_chunks::<4>().0, b.as_chunks::<4>().0);
    let (fa4, fb4) = (fa.as_chunks::<4>().0, fb.as_chunks::<4>().0);
    let n = a4.len().min(b4.len()).min(fa4.len()).min(fb4.len());
    let [mut aa, mut ab, mut ba, mut bb] = dot_2x2_words(a4, b4, fa4, fb4, offset);
    let done = 4 * n;
    if a.len() <= done {
        return [aa, ab, ba, bb];
    }
    let (a, b) = (tail(a, done), tail(b, done));
    for (((&xa, &xb), &wa), &wb) in a.iter().zip(b).zip(tail(fa, done)).zip(tail(fb, done)) {
        let (xa, xb) = (
            i32::from(xa).wrapping_add(offset),
            i32::from(xb).wrapping_add(offset),
        );
        let (wa, wb) = (i32::from(wa), i32::from(wb));
        aa = aa.wrapping_add(wa.wrapping_mul(xa));
        ab = ab.wrapping_add(wb.wrapping_mul(xa));
        ba = ba.wrapping_add(wa.wrapping_mul(xb));
        bb = bb.wrapping_add(wb.wrapping_mul(xb));
    }
    [aa, ab, ba, bb]
}

/// [`dot_2x2`] of rows of whole words (four elements each): the same sums, with no tail.
#[inline(always)]
fn dot_2x2_words(
    a4: &[[i8; 4]],
    b4: &[[i8; 4]],
    fa4: &[[i8; 4]],
    fb4: &[[i8; 4]],
    offset: i32,
) -> [i32; 4] {
    let off = splat16(offset);
    let (mut aa, mut ab, mut ba, mut bb) = (0_i32, 0_i32, 0_i32, 0_i32);
    let n = a4.len().min(b4.len()).min(fa4.len()).min(fb4.len());
    // All four of length `n`: the compiler drops the checks of `get(k)` below.
    let (a4, b4, fa4, fb4) = (first(a4, n), first(b4, n), first(fa4, n), first(fb4, n));
    for k in 0..n {
        let (Some(xa), Some(xb), Some(wa), Some(wb)) =
            (a4.get(k), b4.get(k), fa4.get(k), fb4.get(k))
        else {
            break;
        };
        // In this order (the instructions run as written): at most six widened words live.
        let wa = word4(wa);
        let (w0, w1) = (sxtb16(wa), sxtb16_ror8(wa));
        let xa = word4(xa);
        let (xa0, xa1) = (sxtab16(off, xa), sxtab16_ror8(off, xa));
        aa = smlad(xa0, w0, aa);
        aa = smlad(xa1, w1, aa);
        let xb = word4(xb);
        let (xb0, xb1) = (sxtab16(off, xb), sxtab16_ror8(off, xb));
        ba = smlad(xb0, w0, ba);
        ba = smlad(xb1, w1, ba);
        let wb = word4(wb);
        let (w0, w1) = (sxtb16(wb), sxtb16_ror8(wb));
        ab = smlad(xa0, w0, ab);
        ab = smlad(xa1, w1, ab);
        bb = smlad(xb0, w0, bb);
        bb = smlad(xb1, w1, bb);
    }
    [aa, ab, ba, bb]
}

/// The int8 epilogue of the blocked kernels,
/// [`requantize_channel`](super::conv::requantize_channel)'s arithmetic with the channel's
/// constants read a block at a time, in form `F` (chosen per op by [`Epilogue::new`]): its low
/// bits are the least [`fixed::right_form`](super::fixed::right_form) of the op's channels (2:
/// [`fixed::multiply_by_quantized_multiplier_right2`](super::fixed::multiply_by_quantized_multiplier_right2),
/// 1: [`fixed::multiply_by_quantized_multiplier_right1`](super::fixed::multiply_by_quantized_multiplier_right1),
/// 0: the general function), and [`FULL`] is set when the clamp is the whole int8 range (then
/// a saturation); all equal TFLM's. The kernels have loops for forms 6 and 5 (the whole range
/// with right shifts of 2 and more, or of 1 and more: the layers of the models) and run every
/// other op in form 0 (the general requantisation and clamp), to keep the code small.
#[derive(Clone, Copy)]
pub(super) struct Epilogue<'a> {
    bias: Option<&'a [i32]>,
    requant: &'a [Requant],
    output_offset: i32,
    act_min: i32,
    act_max: i32,
}

/// The bit of an epilogue's form for the whole int8 range (`act_min == -128`, `act_max ==
/// 127`): the clamp is then a saturation.
const FULL: u8 = 4;

/// One output channel's constants: bias (0 without one), multiplier, and the shift (in form 1
/// `-shift - 1`, in form 2 `-shift - 2`).
#[derive(Clone, Copy)]
pub(super) struct Channel {
    bias: i32,
    multiplier: i32,
    shift: i32,
}

impl<'a> Epilogue<'a> {
    /// The epilogue of `p` with `bias`, and its form: the one every one of the `channels`
    /// first multipliers has, with [`FULL`] for the whole int8 range (the kernels run
    /// `finish::<F>` in it, or in form 0).
    #[inline(always)]
    pub(super) fn new(p: &ConvS8, bias: Option<&'a [i32]>, channels: usize) -> (Self, u8) {
        let e = Epilogue {
            bias,
            requant: p.requant,
            output_offset: p.output_offset,
            act_min: p.act_min,
            act_max: p.act_max,
        };
        let form = if p.requant.len() >= channels {
            p.requant.iter().take(channels).fold(2, |form, r| {
                form.min(super::fixed::right_form(r.multiplier, r.shift))
            })
        } else {
            0
        };
        // The whole int8 range (no fused activation narrows it): the clamp is a saturation.
        let full = if (p.act_min, p.act_max) == (-128, 127) {
            FULL
        } else {
            0
        };
        (e, form | full)
    }

    /// Channel `c`'s constants (a missing bias or multiplier is 0, as in
    /// [`requantize_channel`](super::conv::requantize_channel)).
    #[inline(always)]
    pub(super) fn channel<const F: u8>(&self, c: usize) -> Channel {
        let bias = match self.bias.and_then(|b| b.get(c)) {
            Some(&b) => b,
            None => 0,
        };
        let (multiplier, shift) = match self.requant.get(c) {
            Some(r) => (r.multiplier, r.shift),
            None => (0, 0),
        };
        let shift = match F & 3 {
            2 => -shift - 2,
            1 => -shift - 1,
            _ => shift,
        };
        Channel {
            bias,
            multiplier,
            shift,
        }
    }

    /// The outputs of channels `c..c + 4` from their accumulators, in the `form` of
    /// [`Epilogue::new`] (6, 5, else 0) chosen here, once per block (the depthwise kernels: one
    /// loop for the forms).
    #[inline(always)]
    pub(super) fn finish4(&self, form: u8, c: usize, acc: [i32; 4]) -> [i8; 4] {
        match form {
            6 => self.block4::<6>(c, acc),
            5 => self.block4::<5>(c, acc),
            _ => self.block4::<0>(c, acc),
        }
    }

    /// [`Epilogue::finish4`] in form `F`.
    #[inline(always)]
    fn block4<const F: u8>(&self, c: usize, [a0, a1, a2, a3]: [i32; 4]) -> [i8; 4] {
        [
            self.finish::<F>(a0, self.channel::<F>(c)),
            self.finish::<F>(a1, self.channel::<F>(c + 1)),
            self.finish::<F>(a2, self.channel::<F>(c + 2)),
            self.finish::<F>(a3, self.channel::<F>(c + 3)),
        ]
    }

    /// The constants of a channel of multiplier `r` and bias `bias` in form `F` (as
    /// [`Epilogue::channel`] reads them).
    #[inline(always)]
    fn of<const F: u8>(&self, r: Requant, bias: i32) -> Channel {
        Channel {
            bias,
            multiplier: r.multiplier,
            shift: match F & 3 {
                2 => -r.shift - 2,
                1 => -r.shift - 1,
                _ => r.shift,
            },
        }
    }

    /// Block `k`'s four outputs of a pixel of `B` blocks whose multipliers and biases are
    /// `requant` and `bias` (`None` if the slices are shorter: then block by block, as
    /// [`Epilogue::channel`] reads them).
    #[inline(always)]
    fn block4_of<const F: u8, const B: usize>(
        &self,
        requant: Option<&[[Requant; 4]; B]>,
        bias: Option<Option<&[[i32; 4]; B]>>,
        k: usize,
        acc: [i32; 4],
    ) -> [i8; 4] {
        match (
            requant.and_then(|r| r.get(k)),
            bias.map(|b| b.and_then(|b| b.get(k))),
        ) {
            (Some(r), None) => self.block4_with::<F>(r, [0; 4], acc),
            (Some(r), Some(Some(&b))) => self.block4_with::<F>(r, b, acc),
            _ => self.block4::<F>(4 * k, acc),
        }
    }

    /// [`Epilogue::block4`] with the block's four multipliers and biases at hand.
    #[inline(always)]
    fn block4_with<const F: u8>(&self, r: &[Requant; 4], b: [i32; 4], acc: [i32; 4]) -> [i8; 4] {
        let [r0, r1, r2, r3] = *r;
        let [b0, b1, b2, b3] = b;
        let [a0, a1, a2, a3] = acc;
        [
            self.finish::<F>(a0, self.of::<F>(r0, b0)),
            self.finish::<F>(a1, self.of::<F>(r1, b1)),
            self.finish::<F>(a2, self.of::<F>(r2, b2)),
            self.finish::<F>(a3, self.of::<F>(r3, b3)),
        ]
    }

    /// The output value of accumulator `acc` of channel `ch`.
    #[inline(always)]
    pub(super) fn finish<const F: u8>(&self, acc: i32, ch: Channel) -> i8 {
        let acc = acc.wrapping_add(ch.bias);
        let (m, t) = (ch.multiplier, ch.shift as u32);
        let acc = match F & 3 {
            2 => right2(acc, m, t),
            1 => super::fixed::multiply_by_quantized_multiplier_right1(acc, m, t),
            _ => super::fixed::multiply_by_quantized_multiplier(acc, m, ch.shift),
        };
        let acc = acc.wrapping_add(self.output_offset);
        if F & FULL != 0 {
            // `clamp_to_i8` with `act_min == -128`, `act_max == 127` (one `SSAT`).
            acc.clamp(-128, 127) as i8
        } else {
            super::clamp_to_i8(acc, self.act_min, self.act_max)
        }
    }
}

/// [`fixed::multiply_by_quantized_multiplier_right2`](super::fixed::multiply_by_quantized_multiplier_right2),
/// its 64-bit nudge (`2^30 - [x < 0] 2^31`) written as its two words: the high one `x >> 31`,
/// the low one `2^30 | (x & 2^31)` (for `x < 0`, `-2^32 + 2^31 + 2^30`), so that one `SMLAL`
/// adds the product to it.
#[inline(always)]
fn right2(x: i32, multiplier: i32, t: u32) -> i32 {
    let lo = (x as u32 & 0x8000_0000) | 0x4000_0000;
    let nudge = (i64::from(x >> 31) << 32) | i64::from(lo);
    // `|x * multiplier| <= 2^62`: no overflow.
    let h = ((i64::from(x) * i64::from(multiplier) + nudge) >> 32) as i32;
    ((h >> (t & 31)) + 1) >> 1
}

/// int8 CONV_2D with a 1 x 1 filter, stride 1, no padding and one group, as the matrix product
/// `output[pixel][o] = requantise(filter[o] . (input[pixel] + input_offset) + bias[o])`, in
/// blocks of 2 pixels x 2 output channels. The layers' shapes (8, 16, 32, 64, 128 or 256 input
/// channels, an even number of output channels, a bias, epilogue form 6 or 5) each have a loop
/// of their own ([`Epilogue::conv1x1_words`]: the channel count a constant, the rows' words
/// immediate offsets from two pointers, sixteen or eight words an iteration unrolled, the odd
/// last pixel in blocks of 1 x 2; with fewer than 64 input channels channel pairs outermost);
/// every other shape runs [`Epilogue::pixel_pair`] ([`dot_2x2`]), which writes every output, as
/// [`super::conv2d_s8`], in this order: pixel pairs in memory order; within a pair, channel
/// pairs in order, each writing `(first pixel, o)`, `(first pixel, o + 1)`, `(second pixel,
/// o)`, `(second pixel, o + 1)`; an odd last channel after the pair's other channels (first
/// pixel, then second); so all channels of a pixel pair are written before the next pair is
/// read. An odd last pixel comes last, channel by channel.
///
/// Returns `false`, having written nothing, for any other geometry (or a zero dimension): the
/// caller runs the general kernel then. Returns `true` without writing if a slice is shorter
/// than the geometry says.
pub(super) fn conv1x1_s8(
    p: &ConvS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> bool {
    let g = &p.geometry;
    let [batches, height, width, depth] = g.input;
    let out_depth = g.filter[0];
    if g.filter[1..] != [1, 1, depth]
        || g.output != [batches, height, width, out_depth]
        || (g.stride_h, g.stride_w, g.pad_h, g.pad_w) != (1, 1, 0, 0)
        || depth == 0
        || out_depth == 0
    {
        return false;
    }
    let Some(pixels) = product(&[batches, height, width]) else {
        return false;
    };
    let (Some(input), Some(filter), Some(output)) = (
        sized(input, &[pixels, depth]),
        sized(filter, &[out_depth, depth]),
        sized_mut(output, &[pixels, out_depth]),
    ) else {
        return true;
    };
    let (e, form) = Epilogue::new(p, bias, out_depth);
    let offset = p.input_offset;
    match form {
        6 => conv1x1_blocks::<6>(&e, input, filter, output, depth, out_depth, offset),
        5 => conv1x1_blocks::<5>(&e, input, filter, output, depth, out_depth, offset),
        _ => conv1x1_blocks::<0>(&e, input, filter, output, depth, out_depth, offset),
    }
    true
}

/// [`conv1x1_s8`]'s loops, the epilogue's form chosen (`F`); the slices hold whole pixels
/// (`depth` input, `out_depth` output channels, both non-zero).
#[inline(always)]
fn conv1x1_blocks<const F: u8>(
    e: &Epilogue<'_>,
    input: &[i8],
    filter: &[i8],
    output: &mut [i8],
    depth: usize,
    out_depth: usize,
    offset: i32,
) {
    // The layers' shapes (8 to 256 input channels, an even number of output channels, every
    // channel's constants): one loop per channel count, all pixel pairs in it.
    let constants = e.requant.len() >= out_depth && e.bias.is_some_and(|b| b.len() >= out_depth);
    let counted = F & 3 != 0
        && constants
        && out_depth.is_multiple_of(2)
        && depth.is_multiple_of(4)
        && match depth / 4 {
            2 => e.conv1x1_words::<F, 2>(input, filter, output, out_depth, offset),
            4 => e.conv1x1_words::<F, 4>(input, filter, output, out_depth, offset),
            8 => e.conv1x1_words::<F, 8>(input, filter, output, out_depth, offset),
            16 => e.conv1x1_words::<F, 16>(input, filter, output, out_depth, offset),
            32 => e.conv1x1_words::<F, 32>(input, filter, output, out_depth, offset),
            64 => e.conv1x1_words::<F, 64>(input, filter, output, out_depth, offset),
            _ => false,
        };
    if counted {
        return;
    }
    let mut ins = input.chunks_exact(2 * depth);
    let mut outs = output.chunks_exact_mut(2 * out_depth);
    if depth.is_multiple_of(4) {
        for (x2, y2) in (&mut ins).zip(&mut outs) {
            e.pixel_pair::<F, true>(x2, filter, y2, depth, out_depth, offset);
        }
    } else {
        for (x2, y2) in (&mut ins).zip(&mut outs) {
            e.pixel_pair::<F, false>(x2, filter, y2, depth, out_depth, offset);
        }
    }
    // An odd last pixel.
    let a = ins.remainder();
    if !a.is_empty() {
        let ya = outs.into_remainder();
        for (o, (f, y)) in filter.chunks_exact(depth).zip(ya).enumerate() {
            *y = e.finish::<F>(dot_offset_s8(a, f, offset), e.channel::<F>(o));
        }
    }
}

/// Four int8 values as one word, as [`word4`], copied as one array (one load).
#[inline(always)]
fn load4(x: &[i8; 4]) -> u32 {
    u32::from_le_bytes(x.map(|v| v as u8))
}

/// [`load4`] if `array`, else [`word4`] (the same value): the compiler's code for the two
/// differs in places (unrolled blocks of words keep [`word4`]'s bytes unmerged at times).
#[inline(always)]
fn word_of(array: bool, x: &[i8; 4]) -> u32 {
    if array { load4(x) } else { word4(x) }
}

/// `acc` (`[a.fa, a.fb, b.fa, b.fb]`) plus the products of one word of each row: pixels `xa`,
/// `xb`, filter rows `wa`, `wb` (`off`: the input offset in both halfwords). Written in the
/// order that keeps at most six widened words live.
#[inline(always)]
fn step_2x2<const ARRAY: bool>(
    [aa, ab, ba, bb]: [i32; 4],
    xa: &[i8; 4],
    xb: &[i8; 4],
    wa: &[i8; 4],
    wb: &[i8; 4],
    off: u32,
) -> [i32; 4] {
    let wa = word_of(ARRAY, wa);
    let (wa0, wa1) = (sxtb16(wa), sxtb16_ror8(wa));
    let xa = word_of(ARRAY, xa);
    let (xa0, xa1) = (sxtab16(off, xa), sxtab16_ror8(off, xa));
    let aa = smlad(xa0, wa0, aa);
    let aa = smlad(xa1, wa1, aa);
    let xb = word_of(ARRAY, xb);
    let xb0 = sxtab16(off, xb);
    let ba = smlad(xb0, wa0, ba);
    let xb1 = sxtab16_ror8(off, xb);
    let ba = smlad(xb1, wa1, ba);
    let wb = word_of(ARRAY, wb);
    let wb0 = sxtb16(wb);
    let ab = smlad(xa0, wb0, ab);
    let bb = smlad(xb0, wb0, bb);
    let wb1 = sxtb16_ror8(wb);
    let ab = smlad(xa1, wb1, ab);
    let bb = smlad(xb1, wb1, bb);
    [aa, ab, ba, bb]
}

/// `acc` (`[x.fa, x.fb]`) plus the products of one word of pixel `x` and of filter rows `wa`,
/// `wb` (the odd last pixel of [`Epilogue::conv1x1_words`]).
#[inline(always)]
fn step_1x2([a, b]: [i32; 2], x: &[i8; 4], wa: &[i8; 4], wb: &[i8; 4], off: u32) -> [i32; 2] {
    let x = load4(x);
    let (x0, x1) = (sxtab16(off, x), sxtab16_ror8(off, x));
    let wa = load4(wa);
    let (wa0, wa1) = (sxtb16(wa), sxtb16_ror8(wa));
    let a = smlad(x0, wa0, a);
    let a = smlad(x1, wa1, a);
    let wb = load4(wb);
    let (wb0, wb1) = (sxtb16(wb), sxtb16_ror8(wb));
    let b = smlad(x0, wb0, b);
    let b = smlad(x1, wb1, b);
    [a, b]
}

/// `f(acc, 0)`, then `f` of that and 1, ... up to `N - 1` (`N` at most 16), written out: loops
/// are not unrolled at opt-level "s", and with constant indices each word is an immediate
/// offset from the rows' pointers.
#[inline(always)]
fn unrolled<A, const N: usize>(mut acc: A, mut f: impl FnMut(A, usize) -> A) -> A {
    macro_rules! at {
        ($($i:literal)*) => {$(
            if $i < N {
                acc = f(acc, $i);
            }
        )*};
    }
    at!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    acc
}

/// [`dot_2x2_rows`] in blocks of `N` words of each row per iteration, walking both pairs of
/// rows from their starts: a row's word and the second row's are `W` words apart, an immediate
/// offset from one pointer; the loop ends when the first rows are done (`W` a multiple of `N`).
#[inline(always)]
fn dot_2x2_blocks<const W: usize, const N: usize>(
    x: &[[[i8; 4]; W]; 2],
    f: &[[[i8; 4]; W]; 2],
    off: u32,
    mut acc: [i32; 4],
) -> [i32; 4] {
    let (mut xs, mut fs) = (
        x.as_flattened().as_chunks::<N>().0,
        f.as_flattened().as_chunks::<N>().0,
    );
    while let (Some(xa), Some(xb), Some(wa), Some(wb)) =
        (xs.first(), xs.get(W / N), fs.first(), fs.get(W / N))
    {
        acc = unrolled::<_, N>(acc, |acc, i| {
            match (xa.get(i), xb.get(i), wa.get(i), wb.get(i)) {
                (Some(xa), Some(xb), Some(wa), Some(wb)) => {
                    step_2x2::<false>(acc, xa, xb, wa, wb, off)
                }
                _ => acc,
            }
        });
        (xs, fs) = (xs.get(1..).unwrap_or(&[]), fs.get(1..).unwrap_or(&[]));
    }
    acc
}

/// The four sums of a 2 x 2 block of rows of `W` words each (pixels `x`, filter rows `f`) onto
/// `acc` (`[a.fa, a.fb, b.fa, b.fb]`): sixteen words of each row an iteration when `W` is a
/// multiple of 16, else eight when a multiple of 8, all of them written out when `W` is 8 at
/// most (else a word at a time). The loops' words are [`word4`]'s, the others [`load4`]'s (the
/// compiler's code is best so: measured).
#[inline(always)]
fn dot_2x2_rows<const W: usize>(
    x: &[[[i8; 4]; W]; 2],
    f: &[[[i8; 4]; W]; 2],
    off: u32,
    mut acc: [i32; 4],
) -> [i32; 4] {
    let ([xa, xb], [wa, wb]) = (x, f);
    if W.is_multiple_of(16) {
        // Sixteen words of each row per iteration (half the loop's overhead).
        acc = dot_2x2_blocks::<W, 16>(x, f, off, acc);
    } else if W.is_multiple_of(8) && W > 8 {
        acc = dot_2x2_blocks::<W, 8>(x, f, off, acc);
    } else if W <= 8 {
        acc = unrolled::<_, W>(acc, |acc, i| {
            match (xa.get(i), xb.get(i), wa.get(i), wb.get(i)) {
                (Some(xa), Some(xb), Some(wa), Some(wb)) => {
                    step_2x2::<true>(acc, xa, xb, wa, wb, off)
                }
                _ => acc,
            }
        });
    } else {
        // Other counts (not instantiated by the kernel), a word at a time.
        for (((xa, xb), wa), wb) in xa.iter().zip(xb).zip(wa).zip(wb) {
            acc = step_2x2::<true>(acc, xa, xb, wa, wb, off);
        }
    }
    acc
}

/// The two sums of pixel `x` against filter rows `f` of `W` words each onto `acc` (`[x.fa,
/// x.fb]`), as [`dot_2x2_rows`].
#[inline(always)]
fn dot_1x2_rows<const W: usize>(
    x: &[[i8; 4]; W],
    f: &[[[i8; 4]; W]; 2],
    off: u32,
    mut acc: [i32; 2],
) -> [i32; 2] {
    let [wa, wb] = f;
    if W.is_multiple_of(8) {
        let (mut xs, mut fs) = (x.as_chunks::<8>().0, f.as_flattened().as_chunks::<8>().0);
        while let (Some(x), Some(wa), Some(wb)) = (xs.first(), fs.first(), fs.get(W / 8)) {
            acc = unrolled::<_, 8>(acc, |acc, i| match (x.get(i), wa.get(i), wb.get(i)) {
                (Some(x), Some(wa), Some(wb)) => step_1x2(acc, x, wa, wb, off),
                _ => acc,
            });
            (xs, fs) = (xs.get(1..).unwrap_or(&[]), fs.get(1..).unwrap_or(&[]));
        }
    } else if W < 8 {
        acc = unrolled::<_, W>(acc, |acc, i| match (x.get(i), wa.get(i), wb.get(i)) {
            (Some(x), Some(wa), Some(wb)) => step_1x2(acc, x, wa, wb, off),
            _ => acc,
        });
    } else {
        for ((x, wa), wb) in x.iter().zip(wa).zip(wb) {
            acc = step_1x2(acc, x, wa, wb, off);
        }
    }
    acc
}

impl Epilogue<'_> {
    /// [`conv1x1_blocks`] for rows of `W` words (`4 * W` input channels: `W` 2, 4, 8, 16, 32
    /// or 64), an even `out_depth` and every channel's multiplier and bias at hand (form `F` 6
    /// or 5): the loops of one layer shape. Rows of 64 and more channels are written as
    /// [`Epilogue::pixel_pair`] and the odd last pixel there do (pixel pairs in order, in each
    /// the channel pairs in order; then the odd last pixel, a channel pair at a time); shorter
    /// rows a channel pair at a time (its constants read once), in it the pixel pairs in order,
    /// then the odd last pixel (the output is a slice of its own: the order of the writes is not
    /// observable). Per block ([`dot_2x2_rows`]): the accumulators start at the channels'
    /// biases, the sums stay in registers (sixteen or eight words of each row an iteration,
    /// unrolled), then the channel pair's constants and the four outputs. Returns `false`,
    /// having written nothing, if the slices are not of that shape. Not inlined: its loops have
    /// the registers to themselves (and there is no call per pixel pair).
    #[inline(never)]
    fn conv1x1_words<const F: u8, const W: usize>(
        &self,
        input: &[i8],
        filter: &[i8],
        output: &mut [i8],
        out_depth: usize,
        offset: i32,
    ) -> bool {
        let n = out_depth / 2;
        let pixels = input.as_chunks::<4>().0.as_chunks::<W>().0;
        let channel_pairs = filter
            .as_chunks::<4>()
            .0
            .as_chunks::<W>()
            .0
            .as_chunks::<2>()
            .0;
        if n == 0 {
            return false;
        }
        let (Some(channel_pairs), Some(requant), Some(outputs)) = (
            channel_pairs.get(..n),
            self.requant.as_chunks::<2>().0.get(..n),
            output.as_chunks_mut::<2>().0.get_mut(..pixels.len() * n),
        ) else {
            return false;
        };
        let Some(bias) = self.bias.and_then(|b| b.as_chunks::<2>().0.get(..n)) else {
            return false;
        };
        let off = splat16(offset);
        let (pairs, odd) = pixels.as_chunks::<2>();
        if W <= 8 {
            // Short rows: a channel pair at a time (its constants once), all pixel pairs, then
            // the odd last pixel; the output rows (`n` pairs of bytes each) a pixel pair at a
            // time. (The slices are distinct: the order of the writes is free.)
            for (j, ((f, r), &[b0, b1])) in channel_pairs.iter().zip(requant).zip(bias).enumerate()
            {
                let [r0, r1] = *r;
                let (c0, c1) = (self.of::<F>(r0, 0), self.of::<F>(r1, 0));
                let mut ys = outputs.chunks_exact_mut(2 * n);
                for (x, y) in pairs.iter().zip(&mut ys) {
                    let [aa, ab, ba, bb] = dot_2x2_rows::<W>(x, f, off, [b0, b1, b0, b1]);
                    let (ya, yb) = y.split_at_mut(n.min(y.len()));
                    if let (Some(ya), Some(yb)) = (ya.get_mut(j), yb.get_mut(j)) {
                        *ya = [self.finish::<F>(aa, c0), self.finish::<F>(ab, c1)];
                        *yb = [self.finish::<F>(ba, c0), self.finish::<F>(bb, c1)];
                    }
                }
                if let (Some(x), Some(y)) = (odd.first(), ys.into_remainder().get_mut(j)) {
                    let [a, b] = dot_1x2_rows::<W>(x, f, off, [b0, b1]);
                    *y = [self.finish::<F>(a, c0), self.finish::<F>(b, c1)];
                }
            }
            return true;
        }
        // Long rows: a pixel pair at a time, in it the channel pairs in order; then the odd
        // last pixel.
        let Some((ys, y_odd)) = outputs.split_at_mut_checked(pairs.len() * 2 * n) else {
            return false;
        };
        for (x, y) in pairs.iter().zip(ys.chunks_exact_mut(2 * n)) {
            let (ya, yb) = y.split_at_mut(n.min(y.len()));
            let ys = ya.iter_mut().zip(yb);
            for (((f, r), &[b0, b1]), (ya, yb)) in
                channel_pairs.iter().zip(requant).zip(bias).zip(ys)
            {
                let [aa, ab, ba, bb] = dot_2x2_rows::<W>(x, f, off, [b0, b1, b0, b1]);
                // The constants read after the sums (not kept through their loop).
                let [r0, r1] = *r;
                let (c0, c1) = (self.of::<F>(r0, 0), self.of::<F>(r1, 0));
                *ya = [self.finish::<F>(aa, c0), self.finish::<F>(ab, c1)];
                *yb = [self.finish::<F>(ba, c0), self.finish::<F>(bb, c1)];
            }
        }
        if let Some(x) = odd.first() {
            for (((f, r), &b), y) in channel_pairs.iter().zip(requant).zip(bias).zip(y_odd) {
                let [a, b] = dot_1x2_rows::<W>(x, f, off, b);
                let [r0, r1] = *r;
                let (c0, c1) = (self.of::<F>(r0, 0), self.of::<F>(r1, 0));
                *y = [self.finish::<F>(a, c0), self.finish::<F>(b, c1)];
            }
        }
        true
    }

    /// One pixel pair of [`conv1x1_blocks`]: `x2` the two input pixels, `y2` the two output pixels;
    /// `WORDS` when the rows are whole words (`depth` a multiple of four: no tails; one loop
    /// each way, not a choice per channel pair). Not inlined: the 2 x 2 loop then has the registers to itself (inlined into the kernel it
    /// spilled its pointers), which saves more than the call per pixel pair costs.
    #[inline(never)]
    fn pixel_pair<const F: u8, const WORDS: bool>(
        &self,
        x2: &[i8],
        filter: &[i8],
        y2: &mut [i8],
        depth: usize,
        out_depth: usize,
        offset: i32,
    ) {
        {
            let (a, b) = x2.split_at(depth.min(x2.len()));
            let (ya, yb) = y2.split_at_mut(out_depth.min(y2.len()));
            let mut fs = filter.chunks_exact(2 * depth);
            let mut o = 0;
            let pairs = ya.as_chunks_mut::<2>().0.iter_mut();
            // The multipliers and biases in pairs, as the channel pairs read them.
            let requant = self.requant.as_chunks::<2>().0;
            let bias = self.bias.map(|b| b.as_chunks::<2>().0);
            let (a4, b4) = (a.as_chunks::<4>().0, b.as_chunks::<4>().0);
            for ((f2, ya), yb) in (&mut fs).zip(pairs).zip(yb.as_chunks_mut::<2>().0) {
                let (fa, fb) = f2.split_at(depth);
                let [aa, ab, ba, bb] = if WORDS {
                    let (fa4, fb4) = (fa.as_chunks::<4>().0, fb.as_chunks::<4>().0);
                    dot_2x2_words(a4, b4, fa4, fb4, offset)
                } else {
                    dot_2x2(a, b, fa, fb, offset)
                };
                let (c0, c1) = match (requant.get(o / 2), bias.map(|b| b.get(o / 2))) {
                    (Some(&[r0, r1]), None) => (self.of::<F>(r0, 0), self.of::<F>(r1, 0)),
                    (Some(&[r0, r1]), Some(Some(&[b0, b1]))) => {
                        (self.of::<F>(r0, b0), self.of::<F>(r1, b1))
                    }
                    _ => (self.channel::<F>(o), self.channel::<F>(o + 1)),
                };
                *ya = [self.finish::<F>(aa, c0), self.finish::<F>(ab, c1)];
                *yb = [self.finish::<F>(ba, c0), self.finish::<F>(bb, c1)];
                o += 2;
            }
            // An odd last channel: its filter row is what the pairs left.
            let f = fs.remainder();
            if !f.is_empty() {
                let [aa, _, ba, _] = dot_2x2(a, b, f, f, offset);
                let c = self.channel::<F>(o);
                if let (Some(ya), Some(yb)) = (ya.last_mut(), yb.last_mut()) {
                    *ya = self.finish::<F>(aa, c);
                    *yb = self.finish::<F>(ba, c);
                }
            }
        }
    }
}

/// int8 DEPTHWISE_CONV_2D without dilation, for output channels in blocks of four: with depth
/// multiplier 1 (each block reads four input channels, one word per tap) or a multiple of four
/// (a block's four outputs share one input channel, its value in both halfwords). Per output
/// pixel and block, the window's valid taps in TFLM's (filter_y, filter_x) order into four
/// accumulators in registers, walking the input and the filter a row of taps at a time (one
/// index each, advanced by a pixel per tap and by a row per filter row): per tap one load of
/// the four weights, widened in pairs (channels 0, 2 and 1, 3), then `SMLABB` / `SMLATT` per
/// channel. The epilogue is [`Epilogue`]'s, its channel constants read once per block.
///
/// Writes in memory order, as [`super::depthwise_conv2d_s8`]: output pixels in order (batch,
/// y, x), within a pixel its blocks of four channels in order, each block's four bytes
/// together once its sums are complete (so a pixel's outputs are written only after every input
/// its window reads has been read for them).
///
/// Returns `false`, having written nothing, for any other geometry (the caller runs the general
/// kernel then); `true` without writing if a slice is shorter than the geometry says.
#[inline(always)]
pub(super) fn depthwise_s8(
    p: &ConvS8,
    part: Part,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> bool {
    let g = &p.geometry;
    let [batches, input_h, input_w, input_d] = g.input;
    let [_, filter_h, filter_w, depth] = g.filter;
    let [out_batches, output_h, output_w, output_d] = g.output;
    let multiplier = g.depth_multiplier;
    if multiplier != 1 && !multiplier.is_multiple_of(4)
        || input_d.checked_mul(multiplier) != Some(depth)
        || output_d != depth
        || out_batches != batches
        || (g.dilation_h, g.dilation_w) != (1, 1)
        || depth == 0
        || !depth.is_multiple_of(4)
    {
        return false;
    }
    let (Some(input), Some(filter), Some(output)) = (
        part.input(input, &[batches, input_h, input_w, input_d]),
        sized(filter, &[filter_h, filter_w, depth]),
        sized_mut(output, &[batches, output_h, output_w, depth]),
    ) else {
        return true;
    };
    let (e, form) = Epilogue::new(p, bias, depth);
    if input_d == 1 && depth == 8 {
        match form {
            6 => depthwise_one_to_eight::<6>(p, part, &e, input, filter, output),
            5 => depthwise_one_to_eight::<5>(p, part, &e, input, filter, output),
            _ => depthwise_one_to_eight::<0>(p, part, &e, input, filter, output),
        }
        return true;
    }
    if multiplier == 1 {
        // One loop per channel count of the models' layers (8 to 256): the pixel's words are
        // then an array, indexed without checks.
        let done = match depth / 4 {
            2 => depthwise_words::<2>(p, part, &e, form, input, filter, output),
            4 => depthwise_words::<4>(p, part, &e, form, input, filter, output),
            8 => depthwise_words::<8>(p, part, &e, form, input, filter, output),
            16 => depthwise_words::<16>(p, part, &e, form, input, filter, output),
            32 => depthwise_words::<32>(p, part, &e, form, input, filter, output),
            64 => depthwise_words::<64>(p, part, &e, form, input, filter, output),
            _ => false,
        };
        if done {
            return true;
        }
        depthwise_blocks::<true>(p, part, &e, form, input, filter, output);
    } else {
        depthwise_blocks::<false>(p, part, &e, form, input, filter, output);
    }
    true
}

/// [`depthwise_s8`]'s loops for depth multiplier 1 (`ONE`) or another, with the epilogue's
/// form chosen (`F`): one loop nest each, so no choice is made per tap. The slices have the
/// geometry's sizes (checked by the caller).
#[inline(always)]
fn depthwise_blocks<const ONE: bool>(
    p: &ConvS8,
    part: Part,
    e: &Epilogue<'_>,
    form: u8,
    input: &[i8],
    filter: &[i8],
    output: &mut [i8],
) {
    let g = &p.geometry;
    let [batches, input_h, input_w, input_d] = g.input;
    let [_, filter_h, filter_w, depth] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    let multiplier = g.depth_multiplier;
    let off = splat16(p.input_offset);
    let offset = p.input_offset;
    let blocks = depth / 4;
    // Words of four channels: the filter's, and with depth multiplier 1 the input's.
    let filter4 = filter.as_chunks::<4>().0;
    let input4 = input.as_chunks::<4>().0;
    let mut out4 = output.as_chunks_mut::<4>().0.iter_mut();
    // Every index below is under a slice's length (sized by the caller): no arithmetic
    // overflows.
    for batch in 0..batches {
        for out_y in 0..output_h {
            let in_y_origin = super::conv::origin(out_y, g.stride_h, g.pad_h);
            let (y_start, y_end) = valid_taps(in_y_origin, filter_h, input_h);
            for out_x in 0..output_w {
                let in_x_origin = part.origin_x(out_x, g.stride_w, g.pad_w);
                let (x_start, x_end) = valid_taps(in_x_origin, filter_w, input_w);
                // The input pixel of tap (y_start, x_start).
                let (rows, taps) = (y_end - y_start, x_end - x_start);
                // The words a row of taps spans: the first tap's, then `blocks` apart.
                let run = if taps == 0 {
                    0
                } else {
                    (taps - 1) * blocks + 1
                };
                // In the slice (past its end for a skipped pixel: nothing is read then).
                let corner = part.pixel(
                    (batch * input_h + in_y_origin.wrapping_add(y_start as isize) as usize)
                        * input_w
                        + in_x_origin.wrapping_add(x_start as isize) as usize,
                );
                let mut c = 0;
                while c < depth {
                    let Some(out) = out4.next() else {
                        return;
                    };
                    let k = c / 4;
                    let (mut a0, mut a1, mut a2, mut a3) = (0_i32, 0_i32, 0_i32, 0_i32);
                    // One filter row at a time: its valid taps' words (`taps` of them, `blocks`
                    // words apart) and, with depth multiplier 1, the input words they meet
                    // (as far apart); with another multiplier the input bytes (`input_d`
                    // apart).
                    let f_first = y_start * filter_w + x_start;
                    for r in 0..rows {
                        let f = (f_first + r * filter_w) * blocks + k;
                        let ws = filter4.get(f..f + run).unwrap_or(&[]);
                        let pixel = corner.wrapping_add(r * input_w);
                        if ONE {
                            for t in 0..taps {
                                let x = input4
                                    .get(pixel.wrapping_add(t).wrapping_mul(blocks).wrapping_add(k))
                                    .map_or(0, word4);
                                let w = filter4.get(f + t * blocks).map_or(0, word4);
                                let (x02, x13) = (sxtab16(off, x), sxtab16_ror8(off, x));
                                let (w02, w13) = (sxtb16(w), sxtb16_ror8(w));
                                a0 = smlabb(x02, w02, a0);
                                a2 = smlatt(x02, w02, a2);
                                a1 = smlabb(x13, w13, a1);
                                a3 = smlatt(x13, w13, a3);
                            }
                        } else {
                            let i = pixel.wrapping_mul(input_d).wrapping_add(c / multiplier);
                            let xs = input.get(i..).unwrap_or(&[]);
                            let taps = xs.iter().step_by(input_d).zip(ws.iter().step_by(blocks));
                            for (&x, w) in taps {
                                // The value with its offset in the low halfword (|x| < 2^9),
                                // against both halfwords of the widened weights.
                                let x = i32::from(x).wrapping_add(offset) as u32;
                                let w = word4(w);
                                let (w02, w13) = (sxtb16(w), sxtb16_ror8(w));
                                a0 = smlabb(x, w02, a0);
                                a2 = smlabt(x, w02, a2);
                                a1 = smlabb(x, w13, a1);
                                a3 = smlabt(x, w13, a3);
                            }
                        }
                    }
                    *out = e.finish4(form, c, [a0, a1, a2, a3]);
                    c += 4;
                }
            }
        }
    }
}

/// [`depthwise_s8`] for depth multiplier 1 and `4 * B` channels: each input pixel and each
/// filter tap is an array of `B` words (four channels each). Per output pixel
/// [`Window::pixel_words`]. Writes in memory order: output pixels in order (batch, y, x),
/// within a pixel its blocks of four channels in order, each block's four bytes together once
/// its sums are complete. Returns `false` (nothing written) unless the slices hold whole pixels
/// and taps of `B` words (checked by the caller: they have the geometry's sizes).
#[inline(always)]
fn depthwise_words<const B: usize>(
    p: &ConvS8,
    part: Part,
    e: &Epilogue<'_>,
    form: u8,
    input: &[i8],
    filter: &[i8],
    output: &mut [i8],
) -> bool {
    let g = &p.geometry;
    let [batches, input_h, input_w, _] = g.input;
    let [_, filter_h, filter_w, _] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    let (input_px, filter_taps) = (
        input.as_chunks::<4>().0.as_chunks::<B>().0,
        filter.as_chunks::<4>().0.as_chunks::<B>().0,
    );
    let mut out_px = output
        .as_chunks_mut::<4>()
        .0
        .as_chunks_mut::<B>()
        .0
        .iter_mut();
    let off = splat16(p.input_offset);
    // Every index below is under a slice's length (sized by the caller): no arithmetic
    // overflows.
    for batch in 0..batches {
        for out_y in 0..output_h {
            let in_y_origin = super::conv::origin(out_y, g.stride_h, g.pad_h);
            let (y_start, y_end) = valid_taps(in_y_origin, filter_h, input_h);
            for out_x in 0..output_w {
                let in_x_origin = part.origin_x(out_x, g.stride_w, g.pad_w);
                let (x_start, x_end) = valid_taps(in_x_origin, filter_w, input_w);
                let Some(out) = out_px.next() else {
                    return true;
                };
                // In the slice (past its end for a skipped pixel: nothing is read then).
                let corner = part.pixel(
                    (batch * input_h + in_y_origin.wrapping_add(y_start as isize) as usize)
                        * input_w
                        + in_x_origin.wrapping_add(x_start as isize) as usize,
                );
                let window = Window {
                    rows: y_end - y_start,
                    taps: x_end - x_start,
                    input_row: input_w,
                    filter_row: filter_w,
                };
                let f = y_start * filter_w + x_start;
                let (xs, ws) = (
                    input_px.get(corner..).unwrap_or(&[]),
                    filter_taps.get(f..).unwrap_or(&[]),
                );
                match form {
                    6 => window.pixel_words::<B, 6>(xs, ws, e, off, out),
                    5 => window.pixel_words::<B, 5>(xs, ws, e, off, out),
                    _ => window.pixel_words::<B, 0>(xs, ws, e, off, out),
                }
            }
        }
    }
    true
}

/// [`depthwise_s8`] for one input channel and eight output channels (depth multiplier 8: the
/// first layer of many image and audio models): per output pixel all eight channels at once,
/// one input value per tap (its offset added, in both halfwords) against the tap's eight
/// weights (two words), four channels at a time ([`Window::one_to_four`]). Writes in memory
/// order: output pixels in order (batch, y, x), each pixel's eight bytes together once its sums
/// are complete. The slices have the geometry's sizes (checked by the caller). The epilogue in
/// form `F`, its eight channels' constants read in two blocks of four.
#[inline(always)]
fn depthwise_one_to_eight<const F: u8>(
    p: &ConvS8,
    part: Part,
    e: &Epilogue<'_>,
    input: &[i8],
    filter: &[i8],
    output: &mut [i8],
) {
    let g = &p.geometry;
    // The eight channels' multipliers and biases (`None` if the slices are shorter: then
    // channel by channel, as `Epilogue::channel` reads them).
    let requant = e.requant.as_chunks::<4>().0.first_chunk::<2>();
    let bias = e.bias.map(|b| b.as_chunks::<4>().0.first_chunk::<2>());
    let [batches, input_h, input_w, _] = g.input;
    let [_, filter_h, filter_w, _] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    // The filter's taps, eight weights each.
    let filter4 = filter.as_chunks::<4>().0;
    let mut out8 = output.as_chunks_mut::<8>().0.iter_mut();
    // Every index below is under a slice's length (sized by the caller): no arithmetic
    // overflows.
    for batch in 0..batches {
        for out_y in 0..output_h {
            let in_y_origin = super::conv::origin(out_y, g.stride_h, g.pad_h);
            let (y_start, y_end) = valid_taps(in_y_origin, filter_h, input_h);
            for out_x in 0..output_w {
                let in_x_origin = part.origin_x(out_x, g.stride_w, g.pad_w);
                let (x_start, x_end) = valid_taps(in_x_origin, filter_w, input_w);
                let Some(out) = out8.next() else {
                    return;
                };
                // In the slice (past its end for a skipped pixel: nothing is read then).
                let corner = part.pixel(
                    (batch * input_h + in_y_origin.wrapping_add(y_start as isize) as usize)
                        * input_w
                        + in_x_origin.wrapping_add(x_start as isize) as usize,
                );
                let window = Window {
                    rows: y_end - y_start,
                    taps: x_end - x_start,
                    input_row: input_w,
                    filter_row: filter_w,
                };
                let f = y_start * filter_w + x_start;
                let xs = input.get(corner..).unwrap_or(&[]);
                let ws = filter4.get(2 * f..).unwrap_or(&[]);
                let low = window.one_to_four::<0>(xs, ws, p.input_offset);
                let high = window.one_to_four::<1>(xs, ws, p.input_offset);
                let ([o0, o1, o2, o3], [o4, o5, o6, o7]) = match (requant, bias) {
                    (Some([r0, r1]), None) => (
                        e.block4_with::<F>(r0, [0; 4], low),
                        e.block4_with::<F>(r1, [0; 4], high),
                    ),
                    (Some([r0, r1]), Some(Some([b0, b1]))) => (
                        e.block4_with::<F>(r0, *b0, low),
                        e.block4_with::<F>(r1, *b1, high),
                    ),
                    _ => (e.block4::<F>(0, low), e.block4::<F>(4, high)),
                };
                *out = [o0, o1, o2, o3, o4, o5, o6, o7];
            }
        }
    }
}

/// `acc` plus four taps of [`Window::one_to_four`]: their input values `x` one word, widened
/// with the offset (`off2`, in both halfwords) to taps (0, 2) and (1, 3) in two instructions,
/// each tap then against its word `H` of weights (channels 0 and 2 in one widened word, 1 and
/// 3 in the other) in the halfword it is in.
#[inline(always)]
fn four_taps<const H: usize>(
    [a0, a1, a2, a3]: [i32; 4],
    x: &[i8; 4],
    w: &[[i8; 4]; 8],
    off2: u32,
) -> [i32; 4] {
    let x = load4(x);
    let (x02, x13) = (sxtab16(off2, x), sxtab16_ror8(off2, x));
    let half = |t: usize| {
        let w = w.get(2 * t + H).map_or(0, word4);
        (sxtb16(w), sxtb16_ror8(w))
    };
    let (e, o) = half(0);
    let (a0, a1) = (smlabb(x02, e, a0), smlabb(x02, o, a1));
    let (a2, a3) = (smlabt(x02, e, a2), smlabt(x02, o, a3));
    let (e, o) = half(1);
    let (a0, a1) = (smlabb(x13, e, a0), smlabb(x13, o, a1));
    let (a2, a3) = (smlabt(x13, e, a2), smlabt(x13, o, a3));
    // The top halfwords: `x.top * w.bottom` as `SMLABT(w, x)`.
    let (e, o) = half(2);
    let (a0, a1) = (smlabt(e, x02, a0), smlabt(o, x02, a1));
    let (a2, a3) = (smlatt(x02, e, a2), smlatt(x02, o, a3));
    let (e, o) = half(3);
    let (a0, a1) = (smlabt(e, x13, a0), smlabt(o, x13, a1));
    let (a2, a3) = (smlatt(x13, e, a2), smlatt(x13, o, a3));
    [a0, a1, a2, a3]
}

/// The valid taps of a window: `rows` rows of `taps` taps, `input_row` / `filter_row` elements
/// from a row's first tap to the next row's in the input / the filter.
struct Window {
    rows: usize,
    taps: usize,
    input_row: usize,
    filter_row: usize,
}

/// A row's run of taps: its input pixels and filter taps, `B` words each.
type Run<'a, const B: usize> = (&'a [[[i8; 4]; B]], &'a [[[i8; 4]; B]]);

impl Window {
    /// One output pixel of [`depthwise_words`]: `xs` starts at the input pixel of the window's
    /// first tap, `ws` at that tap of the filter; per block of four channels (in order) the
    /// taps in TFLM's (filter_y, filter_x) order into four accumulators (`SMLABB` / `SMLATT`
    /// on the widened words), then the block's four outputs. Not inlined: its loop then has
    /// the registers to itself.
    #[inline(never)]
    fn pixel_words<const B: usize, const F: u8>(
        &self,
        xs: &[[[i8; 4]; B]],
        ws: &[[[i8; 4]; B]],
        e: &Epilogue<'_>,
        off: u32,
        out: &mut [[i8; 4]; B],
    ) {
        let taps = self.taps;
        // The pixel's multipliers and biases, four channels per block (`None` if the slices are
        // shorter: then block by block, as `Epilogue::channel` reads them).
        let requant = e.requant.as_chunks::<4>().0.as_chunks::<B>().0.first();
        let bias = e
            .bias
            .map(|b| b.as_chunks::<4>().0.as_chunks::<B>().0.first());
        // One tap of block `k`: the input and filter words widened, four multiply-accumulates.
        let tap = |[a0, a1, a2, a3]: [i32; 4], x: &[[i8; 4]; B], w: &[[i8; 4]; B], k: usize| {
            let (Some(x), Some(w)) = (x.get(k), w.get(k)) else {
                return [a0, a1, a2, a3];
            };
            let (x, w) = (word4(x), word4(w));
            let (x02, x13) = (sxtab16(off, x), sxtab16_ror8(off, x));
            let (w02, w13) = (sxtb16(w), sxtb16_ror8(w));
            [
                smlabb(x02, w02, a0),
                smlabb(x13, w13, a1),
                smlatt(x02, w02, a2),
                smlatt(x13, w13, a3),
            ]
        };
        // A whole window of a 3 x 3 filter (the interior of its output): the input's three
        // rows of three pixels and the filter's nine taps as arrays (one pointer each, the
        // taps at constant distances), the nine taps of a block unrolled.
        if (self.rows, taps, self.filter_row) == (3, 3, 3) {
            let row = |r: usize| {
                xs.get(r * self.input_row..)
                    .and_then(|x| x.first_chunk::<3>())
            };
            if let (Some(x0), Some(x1), Some(x2), Some(w)) =
                (row(0), row(1), row(2), ws.first_chunk::<9>())
            {
                for (k, out) in out.iter_mut().enumerate() {
                    let mut acc = [0_i32; 4];
                    acc = tap(acc, &x0[0], &w[0], k);
                    acc = tap(acc, &x0[1], &w[1], k);
                    acc = tap(acc, &x0[2], &w[2], k);
                    acc = tap(acc, &x1[0], &w[3], k);
                    acc = tap(acc, &x1[1], &w[4], k);
                    acc = tap(acc, &x1[2], &w[5], k);
                    acc = tap(acc, &x2[0], &w[6], k);
                    acc = tap(acc, &x2[1], &w[7], k);
                    acc = tap(acc, &x2[2], &w[8], k);
                    *out = e.block4_of::<F, B>(requant, bias, k, acc);
                }
                return;
            }
        }
        // Windows of up to three rows (3 x 3 filters): the rows' runs of taps sliced once for
        // all blocks (rows past the window's stay empty).
        let mut runs: [Run<'_, B>; 3] = [(&[], &[]); 3];
        let three = self.rows <= 3;
        if three {
            for (r, run) in runs.iter_mut().enumerate().take(self.rows) {
                let (xi, wi) = (r * self.input_row, r * self.filter_row);
                if let (Some(xr), Some(wr)) = (xs.get(xi..xi + taps), ws.get(wi..wi + taps)) {
                    *run = (xr, wr);
                }
            }
        }
        for (k, out) in out.iter_mut().enumerate() {
            let mut acc = [0_i32; 4];
            if three {
                for &(xr, wr) in &runs {
                    for (x, w) in xr.iter().zip(wr) {
                        acc = tap(acc, x, w, k);
                    }
                }
            } else {
                let (mut xi, mut wi) = (0, 0);
                for _ in 0..self.rows {
                    let (Some(xr), Some(wr)) = (xs.get(xi..xi + taps), ws.get(wi..wi + taps))
                    else {
                        break;
                    };
                    for (x, w) in xr.iter().zip(wr) {
                        acc = tap(acc, x, w, k);
                    }
                    xi += self.input_row;
                    wi += self.filter_row;
                }
            }
            *out = e.block4_of::<F, B>(requant, bias, k, acc);
        }
    }

    /// Four of the eight sums of [`depthwise_one_to_eight`] over the window: `xs` starts at the
    /// input value of its first tap, `ws` at that tap's two words (of channels 0..4 and 4..8:
    /// `H` selects the half summed), the taps in TFLM's (filter_y, filter_x) order. Not inlined: its
    /// loop then has the registers to itself; one word per tap keeps each a single load.
    #[inline(never)]
    fn one_to_four<const H: usize>(&self, xs: &[i8], ws: &[[i8; 4]], offset: i32) -> [i32; 4] {
        let taps = self.taps;
        // One tap: the value with its offset in the low halfword (|x| < 2^9), against both
        // halfwords of the widened weights (word `H` of the tap's pair).
        let tap = |[a0, a1, a2, a3]: [i32; 4], x: i8, w: &[[i8; 4]; 2]| {
            let x = i32::from(x).wrapping_add(offset) as u32;
            let w = w.get(H).map_or(0, word4);
            let (w02, w13) = (sxtb16(w), sxtb16_ror8(w));
            [
                smlabb(x, w02, a0),
                smlabb(x, w13, a1),
                smlabt(x, w02, a2),
                smlabt(x, w13, a3),
            ]
        };
        // A whole 3 x 3 window: its three rows of three taps as arrays, the nine taps unrolled.
        if (self.rows, taps) == (3, 3) {
            let row = |r: usize| {
                let (xi, wi) = (r * self.input_row, 2 * r * self.filter_row);
                let x = xs.get(xi..).and_then(|x| x.first_chunk::<3>());
                let w = ws.get(wi..).and_then(|w| w.first_chunk::<6>());
                x.zip(w)
            };
            if let (Some((x0, w0)), Some((x1, w1)), Some((x2, w2))) = (row(0), row(1), row(2)) {
                let (w0, w1, w2) = (
                    w0.as_chunks::<2>().0,
                    w1.as_chunks::<2>().0,
                    w2.as_chunks::<2>().0,
                );
                let mut acc = [0_i32; 4];
                for (xr, wr) in [(x0, w0), (x1, w1), (x2, w2)] {
                    if let (&[xa, xb, xc], [wa, wb, wc]) = (xr, wr) {
                        acc = tap(acc, xa, wa);
                        acc = tap(acc, xb, wb);
                        acc = tap(acc, xc, wc);
                    }
                }
                return acc;
            }
        }
        // Rows as wide as the filter's, in blocks of four taps ([`four_taps`]; the layers'
        // windows away from the edges): the window's weights are one run, walked once; the
        // input steps from row to row.
        if taps == self.filter_row && taps.is_multiple_of(4) && taps <= self.input_row {
            let off2 = splat16(offset);
            // The sums as four scalars (an array here, the return value, is kept in memory).
            let (mut a0, mut a1, mut a2, mut a3) = (0, 0, 0, 0);
            // The window's span of the input: its rows from their first taps, the last row's
            // taps (the rows as chunks of the input row's length).
            let span = (self.rows.saturating_sub(1))
                .checked_mul(self.input_row)
                .and_then(|n| n.checked_add(taps))
                .and_then(|n| xs.get(..n));
            let blocks = (2 * taps)
                .checked_mul(self.rows)
                .and_then(|n| ws.get(..n))
                .map(|w| w.as_chunks::<8>().0);
            if let (Some(span), Some(blocks)) = (span, blocks) {
                let mut blocks = blocks.iter();
                for xr in span.chunks(self.input_row.max(1)) {
                    for x in first(xr, taps).as_chunks::<4>().0 {
                        let Some(w) = blocks.next() else {
                            break;
                        };
                        [a0, a1, a2, a3] = four_taps::<H>([a0, a1, a2, a3], x, w, off2);
                    }
                }
            }
            return [a0, a1, a2, a3];
        }
        let mut acc = [0_i32; 4];
        let (mut xi, mut wi) = (0, 0);
        for _ in 0..self.rows {
            // A row's taps: `taps` input values and as many pairs of words (word `H` of each
            // is this half's).
            let (Some(xr), Some(wr)) = (xs.get(xi..xi + taps), ws.get(wi..wi + 2 * taps)) else {
                break;
            };
            // Both of one length: the loop needs no bounds checks (and indexing, unlike an
            // iterator walk, keeps each word one load).
            let wr = wr.as_chunks::<2>().0;
            let n = xr.len().min(wr.len());
            let (xr, wr) = (first(xr, n), first(wr, n));
            for t in 0..n {
                let (Some(&x), Some(w)) = (xr.get(t), wr.get(t)) else {
                    break;
                };
                acc = tap(acc, x, w);
            }
            xi += self.input_row;
            wi += 2 * self.filter_row;
        }
        acc
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::Requant;
    use super::super::conv::{ConvGeometry, conv2d_s8_portable};
    use super::super::depthwise_conv::depthwise_conv2d_s8_portable;
    use super::*;

    struct Rng(u32);
    impl Rng {
        fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 17;
            self.0 ^= self.0 << 5;
            self.0
        }
        /// int8 values, a quarter of them at the extremes.
        fn fill(&mut self, v: &mut [i8]) {
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

    pub(in crate::kernels) static REQUANT: [Requant; 24] = {
        let mut r = [Requant {
            multiplier: 0,
            shift: 0,
        }; 24];
        let mut i = 0;
        while i < 24 {
            r[i] = Requant {
                multiplier: (1 << 30) + (i as i32) * 37_000_001,
                // Mostly the shifts of the models' layers, a right shift of 1 among them.
                shift: if i % 7 == 3 { -1 } else { -7 - (i as i32 % 5) },
            };
            i += 1;
        }
        r
    };

    /// Multipliers outside the right form in every fifth channel (shifts 1, 0, -1, -32 and a
    /// negative multiplier): the blocked kernels take the general requantisation.
    static REQUANT_GENERAL: [Requant; 24] = {
        let mut r = REQUANT;
        let mut i = 0;
        while i < 24 {
            if i % 5 == 2 {
                r[i] = match i % 4 {
                    0 => Requant {
                        multiplier: 1 << 30,
                        shift: 1,
                    },
                    1 => Requant {
                        multiplier: (1 << 30) + 12345,
                        shift: 0,
                    },
                    2 => Requant {
                        multiplier: i32::MAX,
                        shift: -1,
                    },
                    _ => Requant {
                        multiplier: -(1 << 30),
                        shift: -5,
                    },
                };
            }
            i += 1;
        }
        r
    };

    /// Right shifts of 2 and more only: the kernels' shortest requantisation.
    static REQUANT_TWO: [Requant; 24] = {
        let mut r = REQUANT;
        let mut i = 0;
        while i < 24 {
            r[i].shift = -7 - (i as i32 % 5);
            i += 1;
        }
        r
    };

    fn params(geometry: ConvGeometry, rng: &mut Rng) -> ConvS8 {
        let offsets = [-127, 128, 0, 5, -3];
        let requant: &'static [Requant] = match rng.next() % 3 {
            0 => &REQUANT_GENERAL,
            1 => &REQUANT,
            _ => &REQUANT_TWO,
        };
        // The whole int8 range (no fused activation) or a narrower one.
        let (act_min, act_max) = if rng.next().is_multiple_of(2) {
            (-128, 127)
        } else {
            (-100, 90)
        };
        ConvS8 {
            geometry,
            input_offset: offsets[rng.next() as usize % offsets.len()],
            output_offset: (rng.next() % 21) as i32 - 10,
            requant,
            act_min,
            act_max,
        }
    }

    fn geometry(input: [usize; 4], filter: [usize; 4], output: [usize; 4]) -> ConvGeometry {
        super::super::conv::tests::geometry(input, filter, output)
    }

    #[test]
    fn right2_equals_the_fixed_point_function() {
        let mut rng = Rng(11);
        let n = if cfg!(miri) { 200 } else { 200_000 };
        let edges = [
            0,
            1,
            -1,
            i32::MAX,
            i32::MIN,
            i32::MIN + 1,
            1 << 30,
            -(1 << 30),
        ];
        for k in 0..n {
            let x = match k % 4 {
                0 => edges[k / 4 % edges.len()],
                1 => (rng.next() >> (rng.next() % 32)) as i32 * if k % 8 == 1 { -1 } else { 1 },
                _ => rng.next() as i32,
            };
            let m = match k % 3 {
                0 => (rng.next() >> 1) as i32,
                1 => (1 << 30) + (rng.next() >> 2) as i32,
                _ => [0, 1, i32::MAX, 1 << 30][k % 4],
            };
            let t = rng.next() % 30;
            assert_eq!(
                right2(x, m, t),
                super::super::fixed::multiply_by_quantized_multiplier_right2(x, m, t),
                "{x} {m} {t}"
            );
        }
    }

    #[test]
    fn dot_equals_the_scalar_sum() {
        let mut rng = Rng(7);
        for len in 0..if cfg!(miri) { 10 } else { 40 } {
            let (mut x, mut f) = ([0i8; 40], [0i8; 40]);
            rng.fill(&mut x);
            rng.fill(&mut f);
            for offset in [-127, 128, 0, 17] {
                let scalar = x[..len].iter().zip(&f[..len]).fold(0_i32, |s, (&x, &f)| {
                    s + i32::from(f) * (i32::from(x) + offset)
                });
                assert_eq!(dot_offset_s8(&x[..len], &f[..len], offset), scalar);
                // A longer filter: the sum stops at the input's end.
                assert_eq!(dot_offset_s8(&x[..len], &f, offset), scalar);
            }
        }
    }

    #[test]
    fn conv1x1_equals_the_portable_kernel() {
        let mut rng = Rng(1);
        // (pixels as N, H, W; input channels; output channels): odd and even of each, channel
        // counts below, at and past a multiple of four.
        let shapes: &[([usize; 3], usize, usize)] = if cfg!(miri) {
            &[([1, 1, 3], 5, 3), ([1, 2, 2], 8, 4)]
        } else {
            &[
                ([1, 1, 1], 1, 1),
                ([1, 3, 3], 8, 16),
                ([2, 3, 5], 7, 5),
                ([1, 4, 4], 12, 24),
                ([1, 1, 7], 3, 2),
                ([1, 5, 1], 17, 9),
                // The layers' channel counts (one loop each): 8 to 256 input channels.
                ([1, 3, 3], 16, 12),
                ([1, 2, 3], 32, 10),
                ([1, 1, 5], 64, 8),
                ([1, 3, 1], 128, 6),
                ([1, 1, 3], 256, 4),
                ([1, 2, 2], 256, 2),
                // Not one of them (24 and 48 input channels), an odd output channel count.
                ([1, 3, 1], 24, 4),
                ([1, 1, 4], 48, 5),
            ]
        };
        for &([n, h, w], c, o) in shapes.iter().cycle().take(6 * shapes.len()) {
            let g = geometry([n, h, w, c], [o, 1, 1, c], [n, h, w, o]);
            let p = params(g, &mut rng);
            let mut input = [0i8; 1024];
            let mut filter = [0i8; 24 * 256];
            rng.fill(&mut input);
            rng.fill(&mut filter);
            let bias: [i32; 24] =
                core::array::from_fn(|i| (rng.next() % 20001) as i32 - 10000 + i as i32);
            let (input, filter) = (&input[..n * h * w * c], &filter[..o * c]);
            let (mut fast, mut slow) = ([0i8; 400], [0i8; 400]);
            let len = n * h * w * o;
            // Every fourth case without a bias.
            let bias = (!rng.next().is_multiple_of(4)).then_some(&bias[..]);
            assert!(conv1x1_s8(&p, input, filter, bias, &mut fast[..len]));
            conv2d_s8_portable(&p, Part::WHOLE, input, filter, bias, &mut slow[..len]);
            assert_eq!(fast[..len], slow[..len], "{:?}", (n, h, w, c, o));
            assert!(fast[..len].iter().any(|&v| v != fast[0]) || len < 4);
        }
        // Other geometries are declined, with nothing written.
        let g = ConvGeometry {
            stride_h: 2,
            ..geometry([1, 4, 4, 4], [4, 1, 1, 4], [1, 4, 4, 4])
        };
        let mut out = [3i8; 64];
        assert!(!conv1x1_s8(
            &params(g, &mut rng),
            &[0; 64],
            &[0; 16],
            None,
            &mut out
        ));
        assert_eq!(out, [3; 64]);
    }

    /// Every loop of [`Epilogue::conv1x1_words`] (each channel count, forms 6 and 5, odd and
    /// even pixel counts) against the portable kernel, deterministically.
    #[test]
    fn conv1x1_layer_loops_equal_the_portable_kernel() {
        let mut rng = Rng(5);
        let depths: &[usize] = if cfg!(miri) {
            &[8, 32]
        } else {
            &[8, 16, 32, 64, 128, 256]
        };
        for &c in depths {
            for (requant, form) in [(&REQUANT_TWO, 6), (&REQUANT, 5)] {
                for (w, o) in [(3, 4), (2, 6), (1, 8)] {
                    let g = geometry([1, 1, w, c], [o, 1, 1, c], [1, 1, w, o]);
                    let p = ConvS8 {
                        geometry: g,
                        input_offset: [128, -127, 3][c % 3],
                        output_offset: (rng.next() % 21) as i32 - 10,
                        requant: &requant[..],
                        act_min: -128,
                        act_max: 127,
                    };
                    let bias: [i32; 24] =
                        core::array::from_fn(|_| (rng.next() % 40001) as i32 - 20000);
                    assert_eq!(Epilogue::new(&p, Some(&bias[..]), o).1, form);
                    let (mut input, mut filter) = ([0i8; 3 * 256], [0i8; 8 * 256]);
                    rng.fill(&mut input);
                    rng.fill(&mut filter);
                    let (input, filter) = (&input[..w * c], &filter[..o * c]);
                    let (mut fast, mut slow) = ([0i8; 24], [0i8; 24]);
                    let len = w * o;
                    let bias = Some(&bias[..]);
                    assert!(conv1x1_s8(&p, input, filter, bias, &mut fast[..len]));
                    conv2d_s8_portable(&p, Part::WHOLE, input, filter, bias, &mut slow[..len]);
                    assert_eq!(fast[..len], slow[..len], "{:?}", (c, form, w, o));
                }
            }
        }
    }

    #[test]
    fn depthwise_equals_the_portable_kernel() {
        let mut rng = Rng(3);
        // (input H, W, C; filter H, W; stride; padding; depth multiplier).
        type Case = ([usize; 3], [usize; 2], usize, usize, usize);
        let cases: &[Case] = if cfg!(miri) {
            &[([3, 3, 4], [3, 3], 1, 1, 1), ([3, 2, 1], [2, 2], 1, 1, 4)]
        } else {
            &[
                ([5, 5, 8], [3, 3], 1, 1, 1),
                ([6, 6, 8], [4, 4], 1, 1, 1),
                ([5, 7, 16], [2, 3], 2, 1, 1),
                ([6, 6, 8], [3, 3], 2, 0, 1),
                ([7, 6, 12], [3, 3], 2, 1, 1),
                ([4, 4, 4], [2, 3], 1, 1, 1),
                ([5, 3, 16], [1, 1], 1, 0, 1),
                ([4, 5, 4], [3, 3], 1, 2, 1),
                ([6, 5, 1], [3, 3], 2, 1, 8),
                ([12, 9, 1], [5, 4], 2, 2, 8),
                ([7, 8, 1], [4, 4], 1, 2, 8),
                // Rows of eight taps (the audio models' 10 x 8 window) with edges.
                ([14, 12, 1], [10, 8], 2, 4, 8),
                ([9, 10, 1], [3, 8], 1, 2, 8),
                ([4, 4, 2], [3, 2], 1, 1, 4),
                ([5, 4, 3], [1, 3], 1, 1, 4),
            ]
        };
        for &([h, w, ic], [fh, fw], stride, pad, m) in cases.iter().cycle().take(6 * cases.len()) {
            let c = ic * m;
            let oh = (h + 2 * pad - fh) / stride + 1;
            let ow = (w + 2 * pad - fw) / stride + 1;
            let g = ConvGeometry {
                stride_h: stride,
                stride_w: stride,
                pad_h: pad,
                pad_w: pad,
                depth_multiplier: m,
                ..geometry([1, h, w, ic], [1, fh, fw, c], [1, oh, ow, c])
            };
            let p = params(g, &mut rng);
            let mut input = [0i8; 600];
            let mut filter = [0i8; 640];
            rng.fill(&mut input);
            rng.fill(&mut filter);
            let bias: [i32; 24] = core::array::from_fn(|_| (rng.next() % 2001) as i32 - 1000);
            let (input, filter) = (&input[..h * w * ic], &filter[..fh * fw * c]);
            let len = oh * ow * c;
            let (mut fast, mut slow) = ([0i8; 800], [0i8; 800]);
            // Every fourth case without a bias.
            let bias = (!rng.next().is_multiple_of(4)).then_some(&bias[..]);
            assert!(depthwise_s8(
                &p,
                Part::WHOLE,
                input,
                filter,
                bias,
                &mut fast[..len]
            ));
            depthwise_conv2d_s8_portable(&p, Part::WHOLE, input, filter, bias, &mut slow[..len]);
            assert_eq!(
                fast[..len],
                slow[..len],
                "{:?}",
                (h, w, ic, fh, fw, stride, pad, m)
            );
            assert!(fast[..len].iter().any(|&v| v != fast[0]));
        }
        // Channel counts not a multiple of four are declined, with nothing written.
        let g = geometry([1, 3, 3, 6], [1, 3, 3, 6], [1, 1, 1, 6]);
        let mut out = [3i8; 6];
        assert!(!depthwise_s8(
            &params(g, &mut rng),
            Part::WHOLE,
            &[0; 54],
            &[0; 54],
            None,
            &mut out
        ));
        assert_eq!(out, [3; 6]);
    }
}
