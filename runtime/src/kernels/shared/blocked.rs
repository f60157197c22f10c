//! What the int8 loops blocked for the Cortex-M DSP extension (cfg `stowplan_dsp`) share across
//! ops: four int8 values per 32-bit load, widened to two pairs of halfwords (`SXTB16`, the input
//! offset added in the same instruction by `SXTAB16`), two multiply-accumulates per `SMLAD`,
//! and the int8 epilogue ([`Epilogue`]) that requantises blocks of accumulators. The
//! instructions are [`crate::dsp`]'s; on the host (where this module is compiled for its tests)
//! their portable twins, so the tests run the very blocking the device runs.
//!
//! Every output is TFLM's value: each accumulator is the same int32 sum as the portable
//! kernel's (`sum(filter * (input + input_offset))`, its terms in another order, which is exact
//! modulo 2^32, as TFLM's accumulator wraps), then the same requantisation as
//! [`requantize_channel`](super::requant::requantize_channel) ([`Epilogue`]: the same
//! arithmetic, or an exact shorter form of it). `input + input_offset` fits a halfword: the
//! input is int8 and the offset minus an int8 zero point, so the sum lies in `-255..=255`;
//! filter values are int8; every product fits in 17 bits.

use super::fixed;
#[cfg(any(stowplan_dsp, test))]
use super::requant::{EPILOGUE_BITS, epilogue_in};
use super::requant::{Requant, clamp_to_i8, epilogue_form, scale_form};
use super::window::ConvS8;
use crate::dsp::{
    Pairs, max8, max16, rows3_fit, smlad, smlad_1x2_words, smlad_1x3_words, splat16, sxtab16,
    sxtab16_ror8, sxtb16, sxtb16_ror8, word,
};
#[cfg(doc)]
use crate::dsp::{requant_folded, smlad_2x2_requant};

/// `sum(filter[k] * (input[k] + offset))` over the shorter length, wrapping: four elements per
/// step (two `SMLAD`s), the rest one by one.
#[inline(always)]
pub(crate) fn dot_offset_s8(input: &[i8], filter: &[i8], offset: i32) -> i32 {
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

/// `acc` plus the sums `[x.fa, x.fb]` of one input run against two filter runs, each
/// `sum(f * (x + offset))` over the shorter length (`off`: the offset in both halfwords), wrapping:
/// per four values three loads, six widenings, four `SMLAD`s (a 1 x 1 CONV_2D's odd pixel, a
/// FULLY_CONNECTED row against two output channels), the rest one by one.
#[inline(always)]
pub(crate) fn dot_1x2(
    x: &[i8],
    fa: &[i8],
    fb: &[i8],
    off: u32,
    offset: i32,
    acc: [i32; 2],
) -> [i32; 2] {
    let x4 = x.as_chunks::<4>().0;
    let (fa4, fb4) = (fa.as_chunks::<4>().0, fb.as_chunks::<4>().0);
    let n = x4.len().min(fa4.len()).min(fb4.len());
    let [mut a0, mut a1] = smlad_1x2_words(first(x4, n), first(fa4, n), first(fb4, n), off, acc);
    let done = 4 * n;
    let tails = tail(x, done).iter().zip(tail(fa, done));
    for ((&x, &wa), &wb) in tails.zip(tail(fb, done)) {
        let (x, wa, wb) = (
            i32::from(x).wrapping_add(offset),
            i32::from(wa),
            i32::from(wb),
        );
        a0 = a0.wrapping_add(wa.wrapping_mul(x));
        a1 = a1.wrapping_add(wb.wrapping_mul(x));
    }
    [a0, a1]
}

/// The sums `[x.f0, x.f1, x.f2]` of one input run of `depth` values against three filter rows
/// of `depth` values each, one after another in `f`: each `sum(f * (x + offset))` (`off`: the
/// offset in both halfwords), wrapping; per four values four loads, eight widenings, six
/// `SMLAD`s ([`smlad_1x3_words`]: a FULLY_CONNECTED row against three output channels), the
/// rest one by one. A row or input shorter than `depth` counts only its values.
#[inline(always)]
pub(crate) fn dot_1x3(x: &[i8], f: &[i8], depth: usize, off: u32, offset: i32) -> [i32; 3] {
    let x = first(x, depth);
    let x4 = x.as_chunks::<4>().0;
    let n = x4.len();
    let mut acc = smlad_1x3_words(x4, f, depth, off, [0; 3]);
    // `smlad_1x3_words` ran unless the rows are short (then every value is summed here).
    let done = if rows3_fit(n, f.len(), depth) {
        4 * n
    } else {
        0
    };
    if done < x.len() {
        for (r, a) in acc.iter_mut().enumerate() {
            let row = f.get(r * depth..).map_or(&[][..], |row| first(row, depth));
            for (&x, &w) in tail(x, done).iter().zip(tail(row, done)) {
                *a = a.wrapping_add(i32::from(w).wrapping_mul(i32::from(x).wrapping_add(offset)));
            }
        }
    }
    acc
}

/// The elements of `s` from `start` on (none past its end).
#[inline(always)]
pub(crate) fn tail(s: &[i8], start: usize) -> &[i8] {
    s.get(start..).unwrap_or(&[])
}

/// Four int8 values as one word, the first in the least significant byte.
#[inline(always)]
pub(crate) fn word4(x: &[i8; 4]) -> u32 {
    let [a, b, c, d] = *x;
    u32::from_le_bytes([a as u8, b as u8, c as u8, d as u8])
}

/// The first `n` elements of `s` (all of them if it is shorter).
#[inline(always)]
pub(crate) fn first<T>(s: &[T], n: usize) -> &[T] {
    s.get(..n).unwrap_or(s)
}

/// The int8 epilogue of the blocked kernels,
/// [`requantize_channel`](super::requant::requantize_channel)'s arithmetic with the channel's
/// constants read a block at a time, in form `F` (chosen per op by [`Epilogue::new`]): its low
/// bits are the least [`fixed::right_form`](super::fixed::right_form) of the op's channels (2:
/// [`fixed::multiply_by_quantized_multiplier_right2`](super::fixed::multiply_by_quantized_multiplier_right2),
/// 1: [`fixed::multiply_by_quantized_multiplier_right1`](super::fixed::multiply_by_quantized_multiplier_right1),
/// 0: the general function), and [`FULL`] is set when the clamp is the whole int8 range (then
/// a saturation); all equal TFLM's. The kernels have loops for forms 6 and 5 (the whole range
/// with right shifts of 2 and more, or of 1 and more: the layers of the models) and run every
/// other op in form 0 (the general requantisation and clamp), to keep the code small.
#[derive(Clone, Copy)]
pub(crate) struct Epilogue<'a> {
    pub(crate) bias: Option<&'a [i32]>,
    pub(crate) requant: &'a [Requant],
    pub(crate) output_offset: i32,
    pub(crate) act_min: i32,
    pub(crate) act_max: i32,
}

/// Blocks of four channels' constants for the folded epilogue ([`Epilogue::fold4`]): their
/// multipliers and shifts, their biases, and `o2 = 2 o + 1` of the output zero point `o`.
#[derive(Clone, Copy)]
pub(crate) struct Fold4<'a> {
    pub(crate) requant: &'a [[Requant; 4]],
    pub(crate) bias: &'a [[i32; 4]],
    pub(crate) o2: i32,
}

/// The bit of an epilogue's form for the whole int8 range (`act_min == -128`, `act_max ==
/// 127`): the clamp is then a saturation.
pub(crate) const FULL: u8 = 4;

/// One output channel's constants: bias (0 without one), multiplier, and the shift (in form 1
/// `-shift - 1`, in form 2 `-shift - 2`).
#[derive(Clone, Copy)]
pub(crate) struct Channel {
    pub(crate) bias: i32,
    pub(crate) multiplier: i32,
    pub(crate) shift: i32,
}

impl<'a> Epilogue<'a> {
    /// The epilogue of `p` with `bias`, and its form ([`epilogue_form`] of the `channels` first
    /// multipliers: 6, 5 or 0; the kernels run `finish::<F>` in it): the tests' reference for
    /// [`Epilogue::for_kernel`].
    #[cfg(test)]
    #[inline(always)]
    pub(crate) fn new(p: &ConvS8, bias: Option<&'a [i32]>, channels: usize) -> (Self, u8) {
        let e = Epilogue {
            bias,
            requant: p.requant,
            output_offset: p.output_offset,
            act_min: p.act_min,
            act_max: p.act_max,
        };
        (e, epilogue_form(p.requant, channels, p.act_min, p.act_max))
    }

    /// [`Epilogue::new`] for kernel constant `K`: the form its epilogue bits name, found from
    /// the multipliers (a pass over the channels) only for a constant without them, so that a
    /// kernel chosen when the crate compiled makes no pass at each call (the in-place driver
    /// calls it once per chunk).
    #[cfg(any(stowplan_dsp, test))]
    #[inline(always)]
    pub(crate) fn for_kernel<const K: u8>(
        p: &ConvS8,
        bias: Option<&'a [i32]>,
        channels: usize,
    ) -> (Self, u8) {
        let e = Epilogue {
            bias,
            requant: p.requant,
            output_offset: p.output_offset,
            act_min: p.act_min,
            act_max: p.act_max,
        };
        let form = if K & EPILOGUE_BITS == 0 {
            epilogue_form(p.requant, channels, p.act_min, p.act_max)
        } else {
            epilogue_in(K, 0)
        };
        (e, form)
    }

    /// Channel `c`'s constants (a missing bias or multiplier is 0, as in
    /// [`requantize_channel`](super::requant::requantize_channel)).
    #[inline(always)]
    pub(crate) fn channel<const F: u8>(&self, c: usize) -> Channel {
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
    pub(crate) fn finish4(&self, form: u8, c: usize, acc: [i32; 4]) -> [i8; 4] {
        match form {
            6 => self.block4::<6>(c, acc),
            5 => self.block4::<5>(c, acc),
            _ => self.block4::<0>(c, acc),
        }
    }

    /// [`Epilogue::finish4`] with the block's four multipliers and biases at hand.
    #[inline(always)]
    pub(crate) fn finish4_with(
        &self,
        form: u8,
        r: &[Requant; 4],
        b: [i32; 4],
        acc: [i32; 4],
    ) -> [i8; 4] {
        match form {
            6 => self.block4_with::<6>(r, b, acc),
            5 => self.block4_with::<5>(r, b, acc),
            _ => self.block4_with::<0>(r, b, acc),
        }
    }

    /// [`Epilogue::finish4`] in form `F`.
    #[inline(always)]
    pub(crate) fn block4<const F: u8>(&self, c: usize, [a0, a1, a2, a3]: [i32; 4]) -> [i8; 4] {
        [
            self.finish::<F>(a0, self.channel::<F>(c)),
            self.finish::<F>(a1, self.channel::<F>(c + 1)),
            self.finish::<F>(a2, self.channel::<F>(c + 2)),
            self.finish::<F>(a3, self.channel::<F>(c + 3)),
        ]
    }

    /// Whether the first `channels` channels take the folded epilogue ([`requant_folded`], in
    /// form 6: the whole int8 range): each with a bias, a multiplier `>= 0` and a right shift of
    /// 2 to 23, and an int8 output zero point (its constant `o2 2^t` then stays below `2^30`).
    #[inline(always)]
    pub(crate) fn folds(&self, channels: usize) -> bool {
        let (Some(_), Some(requant)) = (
            self.bias.and_then(|b| b.get(..channels)),
            self.requant.get(..channels),
        ) else {
            return false;
        };
        (-128..=127).contains(&self.output_offset)
            && requant
                .iter()
                .all(|r| r.multiplier >= 0 && (-23..=-2).contains(&r.shift))
    }

    /// The first `channels` channels' constants in blocks of four for the folded epilogue
    /// ([`crate::dsp::requant4_folded`]), if they take it ([`Epilogue::folds`]) and `channels`
    /// is a multiple of four.
    #[inline(always)]
    pub(crate) fn fold4(&self, channels: usize) -> Option<Fold4<'_>> {
        let (bias, requant) = (
            self.bias.and_then(|b| b.get(..channels))?,
            self.requant.get(..channels)?,
        );
        (channels.is_multiple_of(4) && self.folds(channels)).then(|| Fold4 {
            requant: requant.as_chunks::<4>().0,
            bias: bias.as_chunks::<4>().0,
            o2: self.output_offset * 2 + 1,
        })
    }

    /// The channel pairs of `filter` (each channel's `window` values in turn) that
    /// [`smlad_2x2_requant`] runs for windows widened in `window.div_ceil(4)` groups, if the
    /// first `channels` channels take the folded epilogue ([`Epilogue::folds`]).
    #[inline(always)]
    pub(crate) fn pairs<'b>(
        &'b self,
        filter: &'b [i8],
        window: usize,
        channels: usize,
    ) -> Option<Pairs<'b>> {
        let (bias, requant) = (
            self.bias.and_then(|b| b.get(..channels))?,
            self.requant.get(..channels)?,
        );
        self.folds(channels).then(|| {
            Pairs::new(
                window.div_ceil(4),
                filter,
                window,
                bias.as_chunks::<2>().0,
                requant.as_chunks::<2>().0,
                self.output_offset * 2 + 1,
            )
        })
    }

    /// The constants of a channel of multiplier `r` and bias `bias` in form `F` (as
    /// [`Epilogue::channel`] reads them).
    #[inline(always)]
    pub(crate) fn of<const F: u8>(&self, r: Requant, bias: i32) -> Channel {
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

    /// [`Epilogue::block4`] with the block's four multipliers and biases at hand.
    #[inline(always)]
    pub(crate) fn block4_with<const F: u8>(
        &self,
        r: &[Requant; 4],
        b: [i32; 4],
        acc: [i32; 4],
    ) -> [i8; 4] {
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
    pub(crate) fn finish<const F: u8>(&self, acc: i32, ch: Channel) -> i8 {
        let acc = acc.wrapping_add(ch.bias);
        let (m, t) = (ch.multiplier, ch.shift as u32);
        let acc = match F & 3 {
            2 => right2(acc, m, t),
            1 => fixed::multiply_by_quantized_multiplier_right1(acc, m, t),
            _ => fixed::multiply_by_quantized_multiplier(acc, m, ch.shift),
        };
        let acc = acc.wrapping_add(self.output_offset);
        if F & FULL != 0 {
            // `clamp_to_i8` with `act_min == -128`, `act_max == 127` (one `SSAT`).
            acc.clamp(-128, 127) as i8
        } else {
            clamp_to_i8(acc, self.act_min, self.act_max)
        }
    }
}

/// [`fixed::multiply_by_quantized_multiplier_right2`](super::fixed::multiply_by_quantized_multiplier_right2),
/// its 64-bit nudge (`2^30 - [x < 0] 2^31`) written as its two words: the high one `x >> 31`,
/// the low one `2^30 | (x & 2^31)` (for `x < 0`, `-2^32 + 2^31 + 2^30`), so that one `SMLAL`
/// adds the product to it.
#[inline(always)]
pub(crate) fn right2(x: i32, multiplier: i32, t: u32) -> i32 {
    let lo = (x as u32 & 0x8000_0000) | 0x4000_0000;
    let nudge = (i64::from(x >> 31) << 32) | i64::from(lo);
    // `|x * multiplier| <= 2^62`: no overflow.
    let h = ((i64::from(x) * i64::from(multiplier) + nudge) >> 32) as i32;
    ((h >> (t & 31)) + 1) >> 1
}

/// TFLM's `MultiplyByQuantizedMultiplierSmallerThanOneExp` (ADD's scalings,
/// [`fixed::multiply_by_quantized_multiplier_smaller_than_one_exp`]) for one multiplier and
/// shift, in the shortest exact form for them, chosen once per op ([`Scale::new`]): in the
/// double-rounding build with a non-negative multiplier, [`right2`] for right shifts of 2 to 31
/// and [`fixed::multiply_by_quantized_multiplier_right1`] for a right shift of 1 (as
/// [`fixed::right_form`] chooses them for [`Epilogue`]), the rounding doubling high multiply
/// alone for shift 0 (its rounding division by `2^0` is the identity, and with `multiplier >=
/// 0` it never saturates: `floor((x m + 2^30) / 2^31)`, one 64-bit multiply-accumulate); the
/// general function otherwise.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scale {
    multiplier: i32,
    shift: i32,
    /// 2, 1 (the right forms), 3 (shift 0) or 0 (the general function).
    form: u8,
    /// The right forms' shift operand (`-shift - 2` or `-shift - 1`).
    t: u32,
}

impl Scale {
    /// The form of `r`'s multiplier and shift.
    #[inline(always)]
    pub(crate) fn new(r: Requant) -> Self {
        let (multiplier, shift) = (r.multiplier, r.shift);
        let form = scale_form(r);
        let t = match form {
            2 => (-shift - 2) as u32,
            1 => (-shift - 1) as u32,
            _ => 0,
        };
        Scale {
            multiplier,
            shift,
            form,
            t,
        }
    }

    /// The form [`Scale::apply_in`] takes for this multiplier and shift
    /// ([`apply_form`](super::requant::apply_form)).
    #[inline(always)]
    pub(crate) fn form(self) -> u8 {
        if self.form == 3 && self.multiplier == 1 << 30 {
            4
        } else {
            self.form
        }
    }

    /// [`Scale::apply`] in form `F`, which must be [`Scale::form`]'s (2, 1, 3 or 4; any other
    /// runs the general function): no choice made here. Form 4 is `floor((x 2^30 + 2^30) /
    /// 2^31) = floor((x + 1) / 2)`, computed as `(x >> 1) + (x & 1)` (no overflow).
    #[inline(always)]
    pub(crate) fn apply_in<const F: u8>(self, x: i32) -> i32 {
        let m = self.multiplier;
        match F {
            4 => (x >> 1) + (x & 1),
            2 => right2(x, m, self.t),
            1 => fixed::multiply_by_quantized_multiplier_right1(x, m, self.t),
            3 => ((i64::from(x) * i64::from(m) + (1 << 30)) >> 31) as i32,
            _ => fixed::multiply_by_quantized_multiplier_smaller_than_one_exp(x, m, self.shift),
        }
    }

    /// `multiply_by_quantized_multiplier_smaller_than_one_exp(x, multiplier, shift)`.
    #[inline(always)]
    pub(crate) fn apply(self, x: i32) -> i32 {
        let m = self.multiplier;
        match self.form {
            2 => right2(x, m, self.t),
            1 => fixed::multiply_by_quantized_multiplier_right1(x, m, self.t),
            // `|x m| <= 2^62`: no overflow; the quotient fits (`m >= 0`).
            3 => ((i64::from(x) * i64::from(m) + (1 << 30)) >> 31) as i32,
            _ => fixed::multiply_by_quantized_multiplier_smaller_than_one_exp(x, m, self.shift),
        }
    }
}

/// Four int8 values as one word, as [`word4`], copied as one array (one load).
#[inline(always)]
pub(crate) fn load4(x: &[i8; 4]) -> u32 {
    u32::from_le_bytes(x.map(|v| v as u8))
}

/// The signed low halfword of `w`.
#[inline(always)]
pub(crate) fn lo(w: u32) -> i32 {
    i32::from(w as u16 as i16)
}

/// The signed high halfword of `w`.
#[inline(always)]
pub(crate) fn hi(w: u32) -> i32 {
    (w as i32) >> 16
}

/// A lane type of the max pools: `N` values per 32-bit word, the first in the low bits.
pub(crate) trait Lanes<const N: usize>: Copy {
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

/// Two int16 values as one word, the first in the low halfword (one `LDR`: in this form the
/// compiler merges the two loads).
#[inline(always)]
pub(crate) fn word2(a: i16, b: i16) -> u32 {
    <i16 as Lanes<2>>::pack(&[a, b])
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::shared::testing::Rng;

    /// [`Epilogue::new`]'s form is 6 or 5 when the least [`fixed::right_form`] of the op's
    /// channels (2 for none) is 2 or 1 over the whole int8 range, else 0: every window of up to six channels of a
    /// table of multipliers and shifts in and out of the short forms' ranges.
    #[test]
    fn epilogue_form_is_the_least_right_form() {
        const fn r(multiplier: i32, shift: i32) -> Requant {
            Requant { multiplier, shift }
        }
        static TABLE: [Requant; 16] = [
            r(1 << 30, -2),
            r(1 << 30, -9),
            r(i32::MAX, -31),
            r(1 << 30, -1),
            r(1 << 30, -3),
            r(-1, -4),
            r(1 << 30, -5),
            r(1 << 30, 0),
            r(1 << 30, -7),
            r(1 << 30, -32),
            r(0, -2),
            r(1 << 30, -1),
            r(i32::MIN, -6),
            r(1 << 30, 3),
            r(1 << 30, -12),
            r(1 << 30, -30),
        ];
        let mut seen = [0_usize; 3];
        for start in 0..TABLE.len() {
            for n in 0..=6.min(TABLE.len() - start) {
                for (channels, full) in [(n, true), (n, false), (n + 1, true)] {
                    let requant = &TABLE[start..start + n];
                    let p = ConvS8 {
                        geometry: crate::kernels::shared::testing::geometry([1; 4], [1; 4], [1; 4]),
                        input_offset: 0,
                        output_offset: 0,
                        requant,
                        act_min: if full { -128 } else { 0 },
                        act_max: 127,
                    };
                    let least = if requant.len() >= channels {
                        requant.iter().take(channels).fold(2, |form, r| {
                            form.min(fixed::right_form(r.multiplier, r.shift))
                        })
                    } else {
                        0
                    };
                    seen[usize::from(least)] += 1;
                    let want = match (least, full) {
                        (2, true) => 6,
                        (1, true) => 5,
                        _ => 0,
                    };
                    assert_eq!(
                        Epilogue::new(&p, None, channels).1,
                        want,
                        "{requant:?} {channels}"
                    );
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 5), "{seen:?}");
    }

    /// [`Scale`] in every form against the general function: right shifts of 0 to 31 and the
    /// shifts and multipliers no short form takes, over edge and random values.
    #[test]
    fn scales_equal_the_general_function() {
        let mut rng = Rng(0x5ca1e);
        let n = if cfg!(miri) { 300 } else { 300_000 };
        let edges = [
            0,
            1,
            -1,
            i32::MAX,
            i32::MIN,
            i32::MIN + 1,
            1 << 28,
            -(1 << 28),
            255 << 20,
        ];
        let mut forms = [0_usize; 4];
        for k in 0..n {
            let x = match k % 3 {
                0 => edges[k / 3 % edges.len()],
                1 => (rng.next() as i32) >> (rng.next() % 32),
                _ => ((rng.below(512) as i32) - 256) << 20,
            };
            let multiplier = match rng.below(5) {
                0 => i32::MAX,
                1 => 1 << 30,
                2 => rng.pick(&[0, -1, i32::MIN, -(1 << 30)]),
                _ => (1 << 30) + (rng.next() >> 2) as i32,
            };
            let shift = match rng.below(4) {
                0 => 0,
                1 => rng.pick(&[-1, -2, -31, 1, 5, -32]),
                _ => -(rng.below(32) as i32),
            };
            let s = Scale::new(Requant { multiplier, shift });
            forms[usize::from(s.form)] += 1;
            let want =
                fixed::multiply_by_quantized_multiplier_smaller_than_one_exp(x, multiplier, shift);
            assert_eq!(s.apply(x), want, "{x} {multiplier} {shift} {s:?}");
            let got = match s.form() {
                4 => s.apply_in::<4>(x),
                3 => s.apply_in::<3>(x),
                2 => s.apply_in::<2>(x),
                1 => s.apply_in::<1>(x),
                _ => s.apply_in::<0>(x),
            };
            assert_eq!(
                got,
                want,
                "{x} {multiplier} {shift} {s:?} in form {}",
                s.form()
            );
        }
        // Every form ran (off miri, whose few cases are not tallied).
        assert!(cfg!(miri) || forms.iter().all(|&f| f > 1000), "{forms:?}");
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
                fixed::multiply_by_quantized_multiplier_right2(x, m, t),
                "{x} {m} {t}"
            );
        }
    }

    /// [`requant_folded`] against form 6 of the epilogue ([`Epilogue::finish`], the bias in
    /// the accumulator) for every right shift it takes (2 to 23), output zero points over the
    /// int8 range and accumulators at the extremes and at random, with multipliers of the whole
    /// range; and [`Epilogue::pairs`] takes exactly those constants.
    #[test]
    fn folded_epilogue_equals_form_6() {
        use crate::dsp::requant_folded;
        let mut rng = Rng(23);
        let n = if cfg!(miri) { 80 } else { 400_000 };
        let edges = [
            0,
            1,
            -1,
            i32::MAX,
            i32::MIN,
            i32::MIN + 1,
            1 << 30,
            -(1 << 30),
            127,
            -128,
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
            let shift = -2 - (rng.next() % 22) as i32;
            let o = (rng.next() % 256) as i32 - 128;
            let e = Epilogue {
                bias: None,
                requant: &[],
                output_offset: o,
                act_min: -128,
                act_max: 127,
            };
            let r = Requant {
                multiplier: m,
                shift,
            };
            assert_eq!(
                requant_folded(x, m, shift, 2 * o + 1),
                e.finish::<6>(x, e.of::<6>(r, 0)),
                "{x} {m} {shift} {o}"
            );
        }
        // The constants `pairs` takes: a bias, multipliers >= 0, right shifts of 2 to 23, an
        // int8 output zero point.
        let bias = [0_i32; 4];
        for (shift, multiplier, o, with_bias, takes) in [
            (-2, 1 << 30, 0, true, true),
            (-23, i32::MAX, -128, true, true),
            (-24, 1 << 30, 0, true, false),
            (-1, 1 << 30, 0, true, false),
            (-5, -1, 0, true, false),
            (-5, 1 << 30, 128, true, false),
            (-5, 1 << 30, 127, false, false),
        ] {
            let requant = [Requant { multiplier, shift }; 4];
            let e = Epilogue {
                bias: with_bias.then_some(&bias[..]),
                requant: &requant,
                output_offset: o,
                act_min: -128,
                act_max: 127,
            };
            assert_eq!(
                e.pairs(&[0; 16], 4, 4).is_some(),
                takes,
                "{shift} {multiplier} {o}"
            );
            // Fewer constants than channels: none.
            assert!(e.pairs(&[0; 16], 4, 5).is_none());
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
}
