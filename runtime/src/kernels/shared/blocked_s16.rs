//! What the int16 (16x8: int16 activations, int8 weights) loops blocked for the Cortex-M DSP
//! extension (cfg `stowplan_dsp`) share across CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED:
//! two int16 values per 32-bit word, int8 weights widened to halfword pairs (`SXTB16`, with a
//! filter offset `SXTAB16`), two multiply-accumulates per `SMLALD` (64-bit accumulator) or
//! `SMLAD` (32-bit), blocks of output channels summed together (each input word loaded once per
//! block). The instructions are [`crate::dsp`]'s; on the host (where this module is compiled
//! for its tests) their portable twins.
//!
//! Every output is TFLM's value: each accumulator holds the portable kernel's sum, its terms in
//! another order, then goes through the portable kernel's own epilogue (the caller's `finish`).
//! The sums are exact where the order could matter:
//!
//! - 64-bit sums (`SMLALD`): every product of an int16 and a widened int8 is exact in 32 bits
//!   (`|x * w| <= 2^15 * 2^15`), and the sum is taken modulo 2^64 as the portable kernels'
//!   `wrapping_add` takes it, so the order of the terms changes nothing.
//! - 32-bit sums (`SMLAD`, TFLM's `int32_t` accumulators): modulo 2^32, as TFLM's accumulator
//!   wraps, in any order.
//!
//! The input and weights are read through bounds-checked accessors, as the portable kernels
//! read them: each kernel returns `false`, having written nothing, for a geometry or
//! parameters it does not block (the caller runs the portable kernel then).

use crate::dsp::{pkhbt, pkhtb, smlad, smlald, sxtab16, sxtab16_ror8, sxtb16, sxtb16_ror8};

/// An accumulator of TFLM's int16 kernels: `int64_t` (`SMLALD`) or `int32_t` (`SMLAD`, the sum
/// wrapping as TFLM's does).
pub(crate) trait Acc: Copy {
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
pub(crate) fn pair(x0: i16, x1: i16) -> u32 {
    u32::from(x0 as u16) | u32::from(x1 as u16) << 16
}

/// Four int8 values as one word, the first in the least significant byte.
#[inline(always)]
pub(crate) fn word4(w: &[i8; 4]) -> u32 {
    let [a, b, c, d] = *w;
    u32::from_le_bytes([a as u8, b as u8, c as u8, d as u8])
}

/// Four int16 inputs as the halfword pairs `(x0, x2)` and `(x1, x3)`: two words `(x0, x1)`,
/// `(x2, x3)` packed by `PKHBT` and `PKHTB`, so that the weights need only `SXTB16` (bytes 0
/// and 2, then 1 and 3). (The compiler reads each word with one load or with two halfword
/// loads.)
#[inline(always)]
pub(crate) fn evens_odds(x: &[i16; 4]) -> (u32, u32) {
    let [x0, x1, x2, x3] = *x;
    let (x01, x23) = (pair(x0, x1), pair(x2, x3));
    (pkhbt(x01, x23), pkhtb(x23, x01))
}

/// The weights `w` widened to `(w0, w2)` and `(w1, w3)`, plus `off` in each halfword with
/// `OFF` (one `SXTAB16` each instead of an `SXTB16`).
#[inline(always)]
pub(crate) fn widen_even<const OFF: bool>(off: u32, w: u32) -> u32 {
    if OFF { sxtab16(off, w) } else { sxtb16(w) }
}

/// The odd half of [`widen_even`]: `(w1, w3)`.
#[inline(always)]
pub(crate) fn widen_odd<const OFF: bool>(off: u32, w: u32) -> u32 {
    if OFF {
        sxtab16_ror8(off, w)
    } else {
        sxtb16_ror8(w)
    }
}

/// The elements of `s` from `start` on (none past its end).
#[inline(always)]
pub(crate) fn tail<T>(s: &[T], start: usize) -> &[T] {
    s.get(start..).unwrap_or(&[])
}

/// The first `n` elements of `s` (all of them if it is shorter).
#[inline(always)]
pub(crate) fn first<T>(s: &[T], n: usize) -> &[T] {
    s.get(..n).unwrap_or(s)
}

/// `acc + sum((f[k] + offset) * x[k])` over the shorter length, `offset` (in both halfwords of
/// `off`) with `OFF` only: four elements per step (two loads and two packs of the inputs, one
/// load and two widenings of the weights, two multiply-accumulates), the rest one by one. Not
/// inlined (as [`dot2`]).
#[inline(never)]
pub(crate) fn dot1<A: Acc, const OFF: bool>(
    x: &[i16],
    f: &[i8],
    off: u32,
    offset: i32,
    mut a: A,
) -> A {
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
pub(crate) fn weight<const OFF: bool>(w: i8, offset: i32) -> i32 {
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
pub(crate) fn dot2<A: Acc, const OFF: bool>(
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
