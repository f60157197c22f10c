//! DEPTHWISE_CONV_2D blocked for the Cortex-M DSP extension (cfg `stowplan_dsp`): output
//! channels in blocks of four, the window's taps into accumulators in registers (see
//! [`depthwise_s8`]).

use crate::dsp::{smlabb, smlabt, smlatt, splat16, sxtab16, sxtab16_ror8, sxtb16, sxtb16_ror8};
use crate::kernels::shared::blocked::{Epilogue, first, load4, word4};
use crate::kernels::shared::{ConvS8, Part, origin, sized, sized_mut, valid_taps};

/// int8 DEPTHWISE_CONV_2D without dilation, for output channels in blocks of four: with depth
/// multiplier 1 (each block reads four input channels, one word per tap) or a multiple of four
/// (a block's four outputs share one input channel, its value in both halfwords). Per output
/// pixel and block, the window's valid taps in TFLM's (filter_y, filter_x) order into four
/// accumulators in registers, walking the input and the filter a row of taps at a time (one
/// index each, advanced by a pixel per tap and by a row per filter row): per tap one load of
/// the four weights, widened in pairs (channels 0, 2 and 1, 3), then `SMLABB` / `SMLATT` per
/// channel. The epilogue is [`Epilogue`]'s, its channel constants read once per block.
///
/// Writes in memory order, as [`super::depthwise_conv2d_s8`](crate::kernels::depthwise_conv2d_s8): output pixels in order (batch,
/// y, x), within a pixel its blocks of four channels in order, each block's four bytes
/// together once its sums are complete (so a pixel's outputs are written only after every input
/// its window reads has been read for them).
///
/// Returns `false`, having written nothing, for any other geometry (the caller runs the general
/// kernel then); `true` without writing if a slice is shorter than the geometry says.
#[inline(always)]
pub(crate) fn depthwise_s8(
    p: &ConvS8,
    part: Part,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> bool {
    let g = &p.geometry;
    let [batches, _, _, input_d] = g.input;
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
        part.input(input, g),
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
            let in_y_origin = origin(out_y, g.stride_h, g.pad_h);
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
            let in_y_origin = origin(out_y, g.stride_h, g.pad_h);
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
            let in_y_origin = origin(out_y, g.stride_h, g.pad_h);
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
mod tests {
    use super::*;
    use crate::kernels::depthwise_conv::depthwise_conv2d_s8_portable;
    use crate::kernels::shared::ConvGeometry;
    use crate::kernels::shared::testing::{Rng, geometry, params};

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
