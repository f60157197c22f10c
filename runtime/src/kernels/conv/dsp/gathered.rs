//! int8 CONV_2D whose windows are short runs (first layers: one to a few input channels, so a
//! filter row is a handful of values) blocked for the Cortex-M DSP extension (cfg
//! `stowplan_dsp`): each output pixel's window gathered into a small buffer on the stack, in the
//! filter's order (rows, then taps, then channels), a pixel pair's two windows widened into the
//! window kernel's groups (`input + input_offset` as halfwords, a word at a time), then run
//! against every filter in the window kernel's blocks of 2 pixels x 2 output channels
//! ([`window::pair`], [`window::single`]).
//!
//! The window kernel ([`super::window`]) walks a window run by run; a run of four values (a
//! 10 x 4 filter over one channel) costs more in the walk than in its products. Gathered, the
//! window is one run of `FH x FW x C` values, read once per pixel and reused by every output
//! channel.
//!
//! Every output is TFLM's value: a tap in the padding is gathered as the input's zero point
//! `-input_offset` (an int8 value for every offset this kernel takes), whose term
//! `f * (zero point + input_offset)` is 0, as the portable loop leaves the tap out (the values
//! past the window in its part group are the zero point too: widened, 0); every other
//! term is the portable loop's, summed in another order modulo 2^32 as TFLM's accumulator; the
//! requantisation is [`Epilogue`]'s.
//!
//! Order of writes: output pixels in memory order (batch, y, x), a pixel pair's channels
//! together (the pointwise kernel's order). It runs whole geometries only (the in-place
//! driver's whole-row chunks, whose input and output are apart).

use super::window::{self, next};
use crate::dsp::{splat16, sxtab16, sxtab16_ror8};
use crate::kernels::conv::kernel::{MOST, gathered_takes};
use crate::kernels::shared::blocked::{Epilogue, first, load4};
use crate::kernels::shared::{ConvGeometry, ConvS8, sized, sized_mut};

/// int8 CONV_2D of a whole geometry with one group whose filter rows are short runs (fewer than
/// [`SHORT_RUN`](crate::kernels::conv::kernel::SHORT_RUN) values when undilated, or any dilated row) and whose windows hold at most
/// [`MOST`] values, more than one filter row: every output as
/// [`conv2d_s8_portable`](crate::kernels::conv) writes it, in the order of the [module
/// docs](self).
///
/// Returns `false`, having written nothing, for any other geometry, a zero dimension, stride or
/// dilation, or an input offset whose zero point `-input_offset` is not an int8 value (the
/// caller runs another kernel then); `true` without writing if a slice is shorter than the
/// geometry says.
///
/// Never inlined: its buffers are on the stack only while it runs.
#[inline(never)]
pub(crate) fn conv_s8<const K: u8>(
    p: &ConvS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> bool {
    let g = &p.geometry;
    let [batches, input_h, input_w, depth] = g.input;
    let [out_depth, filter_h, filter_w, _] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    let Ok(zero_point) = i8::try_from(p.input_offset.wrapping_neg()) else {
        return false;
    };
    if !gathered_takes(g, p.input_offset) {
        return false;
    }
    // At most `MOST` (taken).
    let window = filter_h * filter_w * depth;
    let (Some(input), Some(filter), Some(output)) = (
        sized(input, &[batches, input_h, input_w, depth]),
        sized(filter, &[out_depth, filter_h, filter_w, depth]),
        sized_mut(output, &[batches, output_h, output_w, out_depth]),
    ) else {
        return true;
    };
    // The form kernel constant `K` names, or the one found now.
    let (e, form) = Epilogue::for_kernel::<K>(p, bias, out_depth);
    let gather = Gather {
        g,
        input,
        zero_point,
        window,
    };
    match form {
        6 => gather.blocks::<6>(&e, filter, output, p.input_offset),
        5 => gather.blocks::<5>(&e, filter, output, p.input_offset),
        _ => gather.blocks::<0>(&e, filter, output, p.input_offset),
    }
    true
}

/// What gathering a window needs: the geometry, the whole input, the value of a padding tap and
/// the window's size in values (`FH x FW x C`, at most [`MOST`]
struct Gather<'a> {
    g: &'a ConvGeometry,
    input: &'a [i8],
    zero_point: i8,
    window: usize,
}

impl Gather<'_> {
    /// Every output pixel in memory order, in pairs (an odd last one alone): each pair's
    /// windows gathered (int8, side by side), widened into the window kernel's groups, then
    /// multiplied by every filter ([`window::pair`], [`window::single`]).
    #[inline(always)]
    fn blocks<const F: u8>(&self, e: &Epilogue<'_>, filter: &[i8], output: &mut [i8], offset: i32) {
        let out_depth = self.g.filter[0];
        let [_, output_h, output_w, _] = self.g.output;
        let k = self.window;
        let groups = k.div_ceil(4);
        // Past the window, the values of its part group are the zero point: widened, 0.
        let mut bytes = [[self.zero_point; MOST]; 2];
        let mut wide = [[0_u32; 4]; MOST / 4];
        let off = splat16(offset);
        let run = e.pairs(filter, k, out_depth);
        let mut pairs = output.chunks_exact_mut(2 * out_depth);
        let mut at = (0, 0, 0);
        for y2 in &mut pairs {
            let b = next(at, output_h, output_w);
            let [xa, xb] = &mut bytes;
            self.window(at, xa);
            self.window(b, xb);
            let (wa, wb) = (xa.as_chunks::<4>().0, xb.as_chunks::<4>().0);
            for ((group, wa), wb) in wide.iter_mut().zip(wa).zip(wb).take(groups) {
                let (wa, wb) = (load4(wa), load4(wb));
                *group = [
                    sxtab16(off, wa),
                    sxtab16_ror8(off, wa),
                    sxtab16(off, wb),
                    sxtab16_ror8(off, wb),
                ];
            }
            let (ya, yb) = y2.split_at_mut(out_depth);
            window::pair::<F>(e, run.as_ref(), filter, k, first(&wide, groups), ya, yb);
            at = next(b, output_h, output_w);
        }
        // An odd last pixel.
        let y = pairs.into_remainder();
        if !y.is_empty() {
            let [xa, _] = &mut bytes;
            self.window(at, xa);
            for (group, w) in wide.iter_mut().zip(xa.as_chunks::<4>().0).take(groups) {
                let w = load4(w);
                group[0] = sxtab16(off, w);
                group[1] = sxtab16_ror8(off, w);
            }
            window::single::<F>(e, filter, k, first(&wide, groups), y);
        }
    }

    /// Gathers the window of output pixel `(batch, y, x)` into `to` (its first `window` values):
    /// rows, taps, channels as the filter holds them, a tap in the padding as the zero point.
    #[inline(always)]
    fn window(&self, (batch, y, x): (usize, usize, usize), to: &mut [i8]) {
        let g = self.g;
        let [_, input_h, input_w, depth] = g.input;
        let [_, filter_h, filter_w, _] = g.filter;
        let row = filter_w * depth;
        let y0 = (y * g.stride_h).wrapping_sub(g.pad_h);
        let x0 = (x * g.stride_w).wrapping_sub(g.pad_w);
        // Whether every tap of a row is inside: one run of the input then (undilated).
        let span = (filter_w - 1) * g.dilation_w;
        let whole_row = g.dilation_w == 1 && x0 < input_w && x0 + span < input_w;
        for (ky, dst) in to.chunks_exact_mut(row).take(filter_h).enumerate() {
            let iy = y0.wrapping_add(ky * g.dilation_h);
            if iy >= input_h {
                dst.fill(self.zero_point);
                continue;
            }
            let base = (batch * input_h + iy) * input_w;
            if whole_row {
                let at = (base + x0) * depth;
                if let Some(src) = self.input.get(at..at + row) {
                    copy(dst, src);
                }
                continue;
            }
            for (kx, tap) in dst.chunks_exact_mut(depth).enumerate() {
                let ix = x0.wrapping_add(kx * g.dilation_w);
                if ix >= input_w {
                    tap.fill(self.zero_point);
                    continue;
                }
                let at = (base + ix) * depth;
                if let Some(src) = self.input.get(at..at + depth) {
                    copy(tap, src);
                }
            }
        }
    }
}

/// `dst` from `src` (the same length), four values at a time (a word load and store, which
/// Armv7-M allows unaligned), then the rest one by one: the runs are a few values long, for
/// which a call of `memcpy` costs more than the copy.
#[inline(always)]
fn copy(dst: &mut [i8], src: &[i8]) {
    let (d4, d1) = dst.as_chunks_mut::<4>();
    let (s4, s1) = src.as_chunks::<4>();
    for (d, s) in d4.iter_mut().zip(s4) {
        *d = *s;
    }
    for (d, &s) in d1.iter_mut().zip(s1) {
        *d = s;
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use super::*;
    use crate::kernels::conv::conv2d_s8_portable;
    use crate::kernels::conv::kernel::SHORT_RUN;
    use crate::kernels::shared::Part;
    use crate::kernels::shared::testing::{REQUANT, REQUANT_TWO, Rng, padded};

    /// The gathered kernel against the portable loop on random first-layer shapes (one to four
    /// channels, filters up to 10 x 4, strides, dilations, SAME and VALID padding, batches), with
    /// every input offset it takes; and what it declines it leaves unwritten.
    #[test]
    fn gathered_equals_the_portable_kernel() {
        let mut rng = Rng(0x6a7_0001);
        let cases = if cfg!(miri) { 4 } else { 1500 };
        let (mut taken, mut drawn) = (0, 0);
        while drawn < cases {
            let depth = rng.pick(&[1, 1, 2, 3, 4, 5]);
            let (kh, kw) = (1 + rng.below(10), 1 + rng.below(4));
            let (sh, sw) = (1 + rng.below(3), 1 + rng.below(3));
            let (dh, dw) = if rng.below(4) == 0 {
                (1 + rng.below(3), 1 + rng.below(3))
            } else {
                (1, 1)
            };
            let n = rng.pick(&[1, 1, 2]);
            let (h, w) = if cfg!(miri) {
                (1 + rng.below(6), 1 + rng.below(5))
            } else {
                (1 + rng.below(20), 1 + rng.below(12))
            };
            let pad = if rng.below(2) == 0 { None } else { Some(0) };
            let out_depth = rng.pick(&[1, 2, 3, 8, 9, 24]);
            let Some(g) = padded(
                [n, h, w, depth],
                out_depth,
                [kh, kw],
                [sh, sw],
                [dh, dw],
                pad,
            ) else {
                continue;
            };
            let requant = if rng.below(2) == 0 {
                &REQUANT[..]
            } else {
                &REQUANT_TWO[..]
            };
            let (act_min, act_max) = rng.pick(&[(-128, 127), (-128, 127), (-100, 90)]);
            let p = ConvS8 {
                geometry: g,
                input_offset: rng.pick(&[-127, 128, 0, 5, -3, 77, 129, -200]),
                output_offset: rng.below(41) as i32 - 20,
                requant,
                act_min,
                act_max,
            };
            let values =
                |rng: &mut Rng, len: usize| -> Vec<i8> { (0..len).map(|_| rng.s8()).collect() };
            let input = values(&mut rng, n * h * w * depth);
            let filter = values(&mut rng, out_depth * kh * kw * depth);
            let bias: Vec<i32> = (0..out_depth)
                .map(|_| rng.below(40_001) as i32 - 20_000)
                .collect();
            let bias = (rng.below(4) != 0).then_some(&bias[..]);
            let len = g.output.iter().product::<usize>();
            let mut expected = vec![0_i8; len];
            conv2d_s8_portable(&p, Part::WHOLE, &input, &filter, bias, &mut expected);
            let mut got = vec![0x55_i8; len];
            if conv_s8::<0>(&p, &input, &filter, bias, &mut got) {
                assert_eq!(got, expected, "{g:?} offset {}", p.input_offset);
                taken += 1;
            } else {
                assert!(got.iter().all(|&v| v == 0x55), "declined, yet wrote: {g:?}");
                let window = kh * kw * depth;
                assert!(
                    window > MOST
                        || kh == 1
                        || (kw * depth >= SHORT_RUN && dw == 1)
                        || i8::try_from(-p.input_offset).is_err(),
                    "declined {g:?} offset {}",
                    p.input_offset
                );
            }
            drawn += 1;
        }
        // Under miri the few cases drawn may all be declined.
        if !cfg!(miri) {
            assert!(taken > cases / 3, "{taken} of {cases} taken");
        }
    }
}
