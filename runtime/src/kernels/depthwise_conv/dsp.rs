//! DEPTHWISE_CONV_2D blocked for the Cortex-M DSP extension (cfg `stowplan_dsp`): output
//! channels in blocks of four, the window's taps into accumulators in registers (see
//! [`depthwise_s8`]).

use crate::dsp::{
    depthwise_3x3, depthwise_3x3_folded, requant4_folded, smlabb, smlabt, smlatt, splat16, sxtab16,
    sxtab16_ror8, sxtb16, sxtb16_ror8,
};
use crate::kernels::depthwise_conv::kernel::{
    ANY, BLOCKS, KERNEL_BITS, MOST_TAPS, ONE_TO_EIGHT, TAPS, depthwise_conv2d_s8_kernel,
    dsp_kernel_takes,
};
use crate::kernels::shared::blocked::{Epilogue, Fold4, first, load4, word4};
use crate::kernels::shared::in_place::Steps;
use crate::kernels::shared::{ConvS8, Part, origin, sized, sized_mut, valid_taps};

/// int8 DEPTHWISE_CONV_2D without dilation, for output channels in blocks of four: with depth
/// multiplier 1 (each block reads four input channels, one word per tap) or a multiple of four
/// (a block's four outputs share one input channel, its value in both halfwords). Per output
/// pixel and block, the window's valid taps in TFLM's (filter_y, filter_x) order into four
/// accumulators in registers: per tap one load of the four weights, widened in pairs (channels
/// 0, 2 and 1, 3), then `SMLABB` / `SMLATT` per channel. With depth multiplier 1 any channel
/// count takes one path ([`depthwise_taps`]): a 3 x 3 filter's windows of two or three rows of
/// two or three taps are one `asm!` block per block of four channels ([`depthwise_3x3`]: the
/// input and filter strides in registers, a row's whole windows in one call), other windows of
/// up to nine taps sum lists of their taps' runs; larger windows, and other multipliers, walk
/// the input and the filter a row of taps at a time. The epilogue is [`Epilogue`]'s, its
/// channel constants read once per block; a 3 x 3 filter's windows in form 6 with every
/// channel's constants in the folded epilogue's range take that epilogue, one `asm!` block per
/// block of four channels ([`requant4_folded`]: six instructions an output).
///
/// Writes in memory order, as [`super::depthwise_conv2d_s8`](crate::kernels::depthwise_conv2d_s8): output pixels in order (batch,
/// y, x), within a pixel its blocks of four channels in order, each block's four bytes
/// together once its sums are complete (so a pixel's outputs are written only after every input
/// its window reads has been read for them).
///
/// `K` is the kernel chosen when the crate compiled (one of
/// [`kernel`](crate::kernels::depthwise_conv::kernel)'s; [`ANY`] chooses at every call): only
/// its loops are linked. Returns `false`, having written nothing, for a geometry the kernel
/// does not take (the caller runs the general kernel then); `true` without writing if a slice
/// is shorter than the geometry says. Not inlined: the whole-tensor entry and the overlapped
/// driver's share one copy.
#[inline(never)]
pub(crate) fn depthwise_s8<const K: u8>(
    p: &ConvS8,
    part: Part,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> bool {
    let g = &p.geometry;
    let batches = g.input[0];
    let [_, filter_h, filter_w, depth] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    // The kernel chosen when the crate compiled (`K`), or now.
    let kernel = if K == ANY {
        depthwise_conv2d_s8_kernel(p)
    } else {
        K
    };
    if !dsp_kernel_takes(kernel, g) {
        return false;
    }
    let (Some(input), Some(filter), Some(output)) = (
        part.input(input, g),
        sized(filter, &[filter_h, filter_w, depth]),
        sized_mut(output, &[batches, output_h, output_w, depth]),
    ) else {
        return true;
    };
    // The form kernel constant `K` names, or the one found now.
    let (e, form) = Epilogue::for_kernel::<K>(p, bias, depth);
    match kernel & KERNEL_BITS {
        ONE_TO_EIGHT => match form {
            6 => depthwise_one_to_eight::<6>(p, part, &e, input, filter, output),
            5 => depthwise_one_to_eight::<5>(p, part, &e, input, filter, output),
            _ => depthwise_one_to_eight::<0>(p, part, &e, input, filter, output),
        },
        TAPS => {
            let fold = if form == 6 { e.fold4(depth) } else { None };
            taps_in_form(form, p, part, (&e, fold.as_ref()), input, filter, output);
        }
        BLOCKS => depthwise_blocks::<true>(p, part, &e, form, input, filter, output),
        _ => depthwise_blocks::<false>(p, part, &e, form, input, filter, output),
    }
    true
}

/// [`depthwise_s8`] of a whole geometry on one buffer (the input's elements at
/// `buf[input_at..]`, the output's at `buf[output_at..]`) for the taps kernel (`K`'s kernel
/// [`TAPS`]): the in-place driver's chunks ([`Steps`]) run in this one frame, each through
/// [`depthwise_taps`] with the epilogue and its folded constants found once for the op, where
/// each chunk through [`depthwise_s8`] found them again (a pass over the channels' multipliers
/// a chunk: chunks of two pixels at the least displacement of most layers). The chunks, their
/// order and their parts are the driver's. Returns `false`, having written nothing, for
/// another kernel, a geometry the taps kernel does not take, or a placement the driver has no
/// walk for (the caller runs the driver then).
pub(crate) fn depthwise_taps_on_one_buffer_s8<const K: u8>(
    p: &ConvS8,
    buf: &mut [i8],
    (input_at, output_at): (usize, usize),
    filter: &[i8],
    bias: Option<&[i32]>,
) -> bool {
    let g = &p.geometry;
    let [_, filter_h, filter_w, depth] = g.filter;
    if K & KERNEL_BITS != TAPS || !dsp_kernel_takes(K, g) {
        return false;
    }
    let (Some(filter), Some(mut steps)) = (
        sized(filter, &[filter_h, filter_w, depth]),
        Steps::new(g, buf.len(), input_at, output_at),
    ) else {
        return false;
    };
    let (e, form) = Epilogue::for_kernel::<K>(p, bias, depth);
    let fold = if form == 6 { e.fold4(depth) } else { None };
    // One copy of the parameters, its geometry each chunk's in turn (as the driver's).
    let mut q = *p;
    while let Some(Some(run)) = steps.next(g, &mut q.geometry) {
        let (input, output) = run.slices(buf);
        let c = &q.geometry;
        let (Some(input), Some(output)) = (
            run.part.input(input, c),
            sized_mut(output, &[c.output[0], c.output[1], c.output[2], depth]),
        ) else {
            return true;
        };
        taps_in_form(
            form,
            &q,
            run.part,
            (&e, fold.as_ref()),
            input,
            filter,
            output,
        );
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

/// [`depthwise_s8`] for depth multiplier 1, any number of blocks of four channels and windows
/// of at most [`MOST_TAPS`] taps. A 3 x 3 filter's windows of two or three rows of two or three taps
/// run [`window_3x3`] (a row's run of whole windows at once); any other window lists each
/// valid tap's input pixel and filter tap as runs of `blocks` words (one word per block of four
/// channels), then sums per block the taps' words into four accumulators ([`Taps::pixel`]).
/// Writes in memory order: output pixels in order (batch, y, x), within a pixel its
/// blocks of four channels in order, each block's four bytes together once its sums are
/// complete. The slices have the geometry's sizes (checked by the caller); `fold` is the
/// folded epilogue's constants ([`Epilogue::fold4`]) where form 6 takes it; `F` the epilogue's
/// form. Not inlined: one copy per form for [`depthwise_s8`] and the one-buffer entry.
#[inline(never)]
fn depthwise_taps<const F: u8>(
    p: &ConvS8,
    part: Part,
    (e, fold): (&Epilogue<'_>, Option<&Fold4<'_>>),
    input: &[i8],
    filter: &[i8],
    output: &mut [i8],
) {
    let form = F;
    let g = &p.geometry;
    let [batches, input_h, input_w, _] = g.input;
    let [_, filter_h, filter_w, depth] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    let blocks = depth / 4;
    let (input4, filter4) = (input.as_chunks::<4>().0, filter.as_chunks::<4>().0);
    let out4 = output.as_chunks_mut::<4>().0;
    let off = splat16(p.input_offset);
    let three = (filter_h, filter_w) == (3, 3);
    // In form 6 with every channel's constants in the folded epilogue's range (`fold`), the
    // 3 x 3 windows' outputs in its block ([`window_3x3_folded`]); a layer of form 6 without
    // them sums its windows as tap lists ([`Taps::pixel`]), the other forms run
    // [`window_3x3`].
    // The output pixel (of all the call's) the loops are at.
    let mut q = 0;
    // Every index below is under a slice's length (sized by the caller) or wraps to past it (a
    // skipped pixel: `run` returns `None`, nothing is read).
    for batch in 0..batches {
        for out_y in 0..output_h {
            let in_y_origin = origin(out_y, g.stride_h, g.pad_h);
            let (y_start, y_end) = valid_taps(in_y_origin, filter_h, input_h);
            let rows = y_end - y_start;
            let mut out_x = 0;
            while out_x < output_w {
                let in_x_origin = part.origin_x(out_x, g.stride_w, g.pad_w);
                let (x_start, x_end) = valid_taps(in_x_origin, filter_w, input_w);
                let corner = part.pixel(
                    (batch * input_h + in_y_origin.wrapping_add(y_start as isize) as usize)
                        * input_w
                        + in_x_origin.wrapping_add(x_start as isize) as usize,
                );
                // A 3 x 3 filter's windows of two or three rows of two or three taps: the taps
                // at the input's and the filter's strides; the run of the row's whole-width
                // windows at once, each `stride_w` pixels after the last.
                let cols = x_end - x_start;
                let mut n = 1;
                if three && cols == 3 {
                    while out_x + n < output_w && {
                        let o = part.origin_x(out_x + n, g.stride_w, g.pad_w);
                        o >= 0 && o as usize + 3 <= input_w
                    } {
                        n += 1;
                    }
                }
                let outs = q * blocks..(q + n) * blocks;
                let Some(out) = out4.get_mut(outs) else {
                    return;
                };
                let run3 = [n, g.stride_w * blocks];
                if three
                    && let Some(xs) = input4.get(corner.wrapping_mul(blocks)..)
                    && let Some(ws) = filter4.get((y_start * 3 + x_start) * blocks..)
                {
                    let row = input_w * blocks;
                    let done = match (fold, [rows, cols]) {
                        (Some(f), [3, 3]) => {
                            window_3x3_folded::<3, 3>(xs, ws, row, run3, f, off, out)
                        }
                        (Some(f), [3, 2]) => {
                            window_3x3_folded::<3, 2>(xs, ws, row, run3, f, off, out)
                        }
                        (Some(f), [2, 3]) => {
                            window_3x3_folded::<2, 3>(xs, ws, row, run3, f, off, out)
                        }
                        (Some(f), [2, 2]) => {
                            window_3x3_folded::<2, 2>(xs, ws, row, run3, f, off, out)
                        }
                        (_, _) if form == 6 => false,
                        (_, [3, 3]) => window_3x3::<3, 3>(xs, ws, row, run3, e, form, off, out),
                        (_, [3, 2]) => window_3x3::<3, 2>(xs, ws, row, run3, e, form, off, out),
                        (_, [2, 3]) => window_3x3::<2, 3>(xs, ws, row, run3, e, form, off, out),
                        (_, [2, 2]) => window_3x3::<2, 2>(xs, ws, row, run3, e, form, off, out),
                        _ => false,
                    };
                    if done {
                        (q, out_x) = (q + n, out_x + n);
                        continue;
                    }
                }
                // One pixel: its valid taps in TFLM's (filter_y, filter_x) order.
                let Some(out) = out.get_mut(..blocks) else {
                    return;
                };
                let mut taps = Taps::default();
                for r in 0..rows {
                    for t in 0..cols {
                        let x = corner.wrapping_add(r * input_w + t).wrapping_mul(blocks);
                        let w = ((y_start + r) * filter_w + x_start + t) * blocks;
                        if let (Some(x), Some(w)) =
                            (run(input4, x, blocks), run(filter4, w, blocks))
                        {
                            taps.push(x, w);
                        }
                    }
                }
                taps.pixel(e, form, off, out);
                (q, out_x) = (q + 1, out_x + 1);
            }
        }
    }
}

/// [`depthwise_taps`] in epilogue form `form` (6, 5, or any other: 0), each form's copy
/// linked only where its form is run (a kernel constant's form is known when the crate
/// compiles).
#[inline(always)]
fn taps_in_form(
    form: u8,
    p: &ConvS8,
    part: Part,
    e: (&Epilogue<'_>, Option<&Fold4<'_>>),
    input: &[i8],
    filter: &[i8],
    output: &mut [i8],
) {
    match form {
        6 => depthwise_taps::<6>(p, part, e, input, filter, output),
        5 => depthwise_taps::<5>(p, part, e, input, filter, output),
        _ => depthwise_taps::<0>(p, part, e, input, filter, output),
    }
}

/// Output pixels of [`depthwise_taps`] whose windows, of a 3 x 3 filter, have `R` rows of `C`
/// valid taps (2 or 3 each): `[n, step]`, `n` pixels whose windows start `step` words apart; per
/// pixel and block of four channels [`depthwise_3x3`]'s sums, then the block's outputs. `xs`
/// starts at the first window's first valid input word, `ws` at that tap's filter word, input
/// rows are `row` words apart; `false`, having written nothing, if the slices are shorter. Not
/// inlined: the block loop has the registers to itself.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn window_3x3<const R: usize, const C: usize>(
    xs: &[[i8; 4]],
    ws: &[[i8; 4]],
    row: usize,
    run: [usize; 2],
    e: &Epilogue<'_>,
    form: u8,
    off: u32,
    out: &mut [[i8; 4]],
) -> bool {
    let blocks = out.len() / run[0].max(1);
    depthwise_3x3::<R, C>(xs, ws, blocks, row, run, off, |i, acc| {
        if let Some(out) = out.get_mut(i) {
            *out = block_out(e, form, i % blocks, acc);
        }
    })
}

/// [`window_3x3`] in the folded epilogue: per pixel and block of four channels
/// [`depthwise_3x3`]'s sums, then the block's outputs from its constants in `fold`
/// ([`requant4_folded`]), the blocks counted as they come (no division); whole windows (`R`
/// and `C` 3) in one block with their epilogue ([`depthwise_3x3_folded`]). Not inlined, as
/// [`window_3x3`].
#[inline(never)]
fn window_3x3_folded<const R: usize, const C: usize>(
    xs: &[[i8; 4]],
    ws: &[[i8; 4]],
    row: usize,
    run: [usize; 2],
    fold: &Fold4<'_>,
    off: u32,
    out: &mut [[i8; 4]],
) -> bool {
    let blocks = out.len() / run[0].max(1);
    let (Some(requant), Some(bias)) = (fold.requant.get(..blocks), fold.bias.get(..blocks)) else {
        return false;
    };
    let o2 = fold.o2;
    if R == 3 && (C == 3 || C == 2) {
        // Whole windows, and a left or right edge's: the taps and the epilogue in one block,
        // the blocks in a loop in it.
        return depthwise_3x3_folded::<C>(
            xs,
            ws,
            [blocks, row],
            run,
            off,
            (requant, bias, o2),
            out,
        );
    }
    let mut outs = out.iter_mut();
    let mut k = 0;
    depthwise_3x3::<R, C>(xs, ws, blocks, row, run, off, |_, acc| {
        if let (Some(y), Some(r), Some(b)) = (outs.next(), requant.get(k), bias.get(k)) {
            *y = requant4_folded(acc, r, b, o2);
        }
        k = if k + 1 == blocks { 0 } else { k + 1 };
    })
}

/// A tap's run of `n` words from word `at` of `s` (`None` past the slice).
#[inline(always)]
fn run(s: &[[i8; 4]], at: usize, n: usize) -> Option<&[[i8; 4]]> {
    s.get(at..).and_then(|s| s.get(..n))
}

/// The valid taps of one output pixel of [`depthwise_taps`]: per tap its input pixel's run of
/// words and its filter tap's, as many words each as the pixel has blocks.
#[derive(Default)]
struct Taps<'a> {
    x: [&'a [[i8; 4]]; MOST_TAPS],
    w: [&'a [[i8; 4]]; MOST_TAPS],
    n: usize,
}

impl<'a> Taps<'a> {
    /// Adds a tap (none past [`MOST_TAPS`]: the caller's windows have no more).
    #[inline(always)]
    fn push(&mut self, x: &'a [[i8; 4]], w: &'a [[i8; 4]]) {
        if let (Some(xs), Some(ws)) = (self.x.get_mut(self.n), self.w.get_mut(self.n)) {
            (*xs, *ws) = (x, w);
            self.n += 1;
        }
    }

    /// The pixel's outputs `out` (a word per block), the taps in a loop (the windows of filters
    /// other than 3 x 3, and a 3 x 3 filter's one-row or one-column windows: rare enough that a
    /// loop per tap count would cost more flash than it saves cycles).
    #[inline(never)]
    fn pixel(&self, e: &Epilogue<'_>, form: u8, off: u32, out: &mut [[i8; 4]]) {
        for (k, out) in out.iter_mut().enumerate() {
            let mut acc = [0; 4];
            for (x, w) in self.x.iter().zip(&self.w).take(self.n) {
                acc = tap4(acc, x.get(k), w.get(k), off);
            }
            *out = block_out(e, form, k, acc);
        }
    }
}

/// The four outputs of block `k` (channels `4 * k..4 * k + 4`) from their sums, the block's
/// multipliers and biases read together.
#[inline(always)]
fn block_out(e: &Epilogue<'_>, form: u8, k: usize, acc: [i32; 4]) -> [i8; 4] {
    let requant = e.requant.as_chunks::<4>().0.get(k);
    match (requant, e.bias.map(|b| b.as_chunks::<4>().0.get(k))) {
        (Some(r), None) => e.finish4_with(form, r, [0; 4], acc),
        (Some(r), Some(Some(&b))) => e.finish4_with(form, r, b, acc),
        _ => e.finish4(form, 4 * k, acc),
    }
}

/// `acc` plus one tap of a block of four channels: its input word `x` widened with the offset
/// (`off`, in both halfwords) to channels (0, 2) and (1, 3), the filter word `w` likewise, then
/// one multiply-accumulate per channel (a missing word adds nothing).
#[inline(always)]
fn tap4(
    [a0, a1, a2, a3]: [i32; 4],
    x: Option<&[i8; 4]>,
    w: Option<&[i8; 4]>,
    off: u32,
) -> [i32; 4] {
    let (Some(x), Some(w)) = (x, w) else {
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

impl Window {
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
    extern crate std;
    use std::vec;

    use super::*;
    use crate::kernels::depthwise_conv::depthwise_conv2d_s8_portable;
    use crate::kernels::depthwise_conv::kernel::{
        EPILOGUE_GENERAL, EPILOGUE_SHIFT1, EPILOGUE_SHIFT2,
    };
    use crate::kernels::shared::ConvGeometry;
    use crate::kernels::shared::testing::{Rng, driver_chunks, geometry, padded, params};

    /// Depth multiplier 1 over channel counts of 1 to 36 blocks of four, windows of one to nine
    /// taps (3 x 3 among them, whole and at every edge) and a few larger ones, strides,
    /// paddings and batches: the DSP entry against the portable loop, on the whole
    /// geometry and on the in-place driver's chunks (runs of rows, runs of pixels with input
    /// pixels skipped), every chunk's output also against the whole output's pixels.
    #[test]
    fn taps_equal_the_portable_kernel() {
        let mut rng = Rng(0xd3e_0001);
        let cases = if cfg!(miri) { 4 } else { 700 };
        // Whole 3 x 3 windows, their edges, windows summed from lists of taps; chunks run;
        // layers in the folded epilogue (form 6 with its constants), and in form 6 without.
        let (mut seen, mut chunks, mut folded) = ([0_usize; 3], 0, [0_usize; 2]);
        let mut drawn = 0;
        while drawn < cases {
            let c = if cfg!(miri) {
                rng.pick(&[4, 12])
            } else {
                rng.pick(&[4, 12, 20, 24, 36, 44, 48, 56, 96, 144, 8, 16, 64])
            };
            let k = rng.pick(&[
                [3, 3],
                [3, 3],
                [3, 3],
                [2, 2],
                [1, 3],
                [3, 1],
                [1, 1],
                [2, 3],
                [1, 9],
                [5, 5],
                [3, 4],
            ]);
            let stride = rng.pick(&[[1, 1], [1, 1], [2, 2], [1, 2], [3, 1]]);
            let pad = rng.pick(&[None, None, Some(0), Some(1), Some(2)]);
            let max = if cfg!(miri) { 4 } else { 11 };
            let (h, w) = (1 + rng.below(max), 1 + rng.below(max));
            let n = rng.pick(&[1, 1, 2]);
            let Some(g) = padded([n, h, w, c], c, k, stride, [1, 1], pad) else {
                continue;
            };
            let g = ConvGeometry {
                filter: [1, k[0], k[1], c],
                ..g
            };
            let p = params(g, &mut rng);
            let input = rng.values(g.input.iter().product());
            let filter = rng.values(k[0] * k[1] * c);
            let bias: vec::Vec<i32> = (0..c).map(|_| rng.below(40_001) as i32 - 20_000).collect();
            let bias = (rng.below(4) != 0).then_some(&bias[..]);
            let (e, form) = Epilogue::new(&p, bias, c);
            if form == 6 {
                folded[usize::from(e.fold4(c).is_none())] += 1;
            }
            let run = |g: ConvGeometry, part: Part, input: &[i8], dsp: bool| {
                let q = ConvS8 { geometry: g, ..p };
                let mut out = vec![0x55_i8; g.output.iter().product()];
                if dsp {
                    assert!(
                        depthwise_s8::<ANY>(&q, part, input, &filter, bias, &mut out),
                        "{g:?}"
                    );
                } else {
                    depthwise_conv2d_s8_portable(&q, part, input, &filter, bias, &mut out);
                }
                out
            };
            let expected = run(g, Part::WHOLE, &input, false);
            assert_eq!(run(g, Part::WHOLE, &input, true), expected, "{g:?}");
            // The output pixels' windows: a 3 x 3 filter's whole windows and edges (`asm!`),
            // lists of taps.
            for y in 0..g.output[1] {
                for x in 0..g.output[2] {
                    let rows = valid_taps(origin(y, g.stride_h, g.pad_h), k[0], h);
                    let cols = valid_taps(origin(x, g.stride_w, g.pad_w), k[1], w);
                    let shape = [rows.1 - rows.0, cols.1 - cols.0];
                    let three = k == [3, 3] && shape.iter().all(|&n| n == 2 || n == 3);
                    match (three, shape) {
                        (true, [3, 3]) => seen[0] += 1,
                        (true, _) => seen[1] += 1,
                        _ if k[0] * k[1] <= MOST_TAPS && shape[0] * shape[1] > 0 => seen[2] += 1,
                        _ => {}
                    }
                }
            }
            for (sub, part, [i0, i1], [o0, o1]) in driver_chunks(&g, &mut rng) {
                let got = run(sub, part, &input[i0..i1], true);
                assert_eq!(
                    got,
                    run(sub, part, &input[i0..i1], false),
                    "{g:?}: {sub:?} {part:?}"
                );
                assert_eq!(got, expected[o0..o1], "{g:?}: {sub:?} {part:?}");
                chunks += 1;
            }
            drawn += 1;
        }
        // Off miri, whose few small cases are not tallied: every way of summing ran.
        assert!(
            cfg!(miri) || (seen.iter().all(|&n| n > 1000) && chunks > 2000),
            "{seen:?} {chunks}"
        );
        assert!(cfg!(miri) || folded.iter().all(|&n| n > 20), "{folded:?}");
    }

    /// The taps kernel's one-buffer entry ([`depthwise_taps_on_one_buffer_s8`]: the driver's
    /// chunks with the set-up made once) against the portable kernel on two buffers: 3 x 3 and
    /// other windows, strides, paddings, batches, channel counts within and past the
    /// multiplier tables, the input at the least displacement above the output, a little more,
    /// and apart; another kernel constant, and a geometry the taps kernel does not take, are
    /// declined with nothing written.
    #[test]
    fn taps_on_one_buffer_equal_two_buffers() {
        use crate::kernels::depthwise_conv::kernel::{BLOCKS, depthwise_conv2d_s8_kernel};
        use crate::kernels::overlap::min_displacement;
        let mut rng = Rng(0xd3e_0b0f);
        let cases = if cfg!(miri) { 4 } else { 600 };
        let (mut ran, mut folded, mut drawn) = ([0_usize; 3], 0, 0);
        while drawn < cases {
            let c = rng.pick(&[4, 8, 12, 16, 24, 64]);
            let k = rng.pick(&[[3, 3], [3, 3], [2, 2], [1, 3], [3, 1], [5, 5]]);
            let stride = rng.pick(&[[1, 1], [1, 1], [2, 2], [1, 2]]);
            let pad = rng.pick(&[None, Some(0), Some(1)]);
            let max = if cfg!(miri) { 4 } else { 9 };
            let (h, w) = (1 + rng.below(max), 1 + rng.below(max));
            let n = rng.pick(&[1, 1, 2]);
            let Some(g) = padded([n, h, w, c], c, k, stride, [1, 1], pad) else {
                continue;
            };
            let g = ConvGeometry {
                filter: [1, k[0], k[1], c],
                ..g
            };
            let Some(least) = min_displacement(&g) else {
                continue;
            };
            let p = params(g, &mut rng);
            let input = rng.values(g.input.iter().product());
            let filter = rng.values(k[0] * k[1] * c);
            let bias: vec::Vec<i32> = (0..c).map(|_| rng.below(40_001) as i32 - 20_000).collect();
            let bias = (rng.below(4) != 0).then_some(&bias[..]);
            let (in_len, out_len) = (input.len(), g.output.iter().product::<usize>());
            let mut expected = vec![0x55_i8; out_len];
            depthwise_conv2d_s8_portable(&p, Part::WHOLE, &input, &filter, bias, &mut expected);
            let how = drawn % 3;
            let (input_at, output_at) = match how {
                0 => (least, 0),
                1 => (least + 1 + rng.below(9), 0),
                _ => (0, in_len + rng.below(5)),
            };
            let mut buf = vec![0x55_i8; (input_at + in_len).max(output_at + out_len)];
            buf[input_at..input_at + in_len].copy_from_slice(&input);
            let before = buf.clone();
            let kernel = depthwise_conv2d_s8_kernel(&p);
            let at = (input_at, output_at);
            // The layer's own constant (the taps kernel where it takes the layer), and another
            // kernel's, declined.
            assert!(!depthwise_taps_on_one_buffer_s8::<BLOCKS>(
                &p, &mut buf, at, &filter, bias
            ));
            assert_eq!(buf, before);
            let done = match kernel {
                k if k == TAPS | EPILOGUE_SHIFT2 => {
                    depthwise_taps_on_one_buffer_s8::<{ TAPS | EPILOGUE_SHIFT2 }>(
                        &p, &mut buf, at, &filter, bias,
                    )
                }
                k if k == TAPS | EPILOGUE_SHIFT1 => {
                    depthwise_taps_on_one_buffer_s8::<{ TAPS | EPILOGUE_SHIFT1 }>(
                        &p, &mut buf, at, &filter, bias,
                    )
                }
                k if k == TAPS | EPILOGUE_GENERAL => {
                    depthwise_taps_on_one_buffer_s8::<{ TAPS | EPILOGUE_GENERAL }>(
                        &p, &mut buf, at, &filter, bias,
                    )
                }
                _ => depthwise_taps_on_one_buffer_s8::<TAPS>(&p, &mut buf, at, &filter, bias),
            };
            assert_eq!(done, kernel & KERNEL_BITS == TAPS, "{g:?} {kernel:#x}");
            if done {
                ran[how] += 1;
                let (e, form) = Epilogue::new(&p, bias, c);
                folded += usize::from(form == 6 && e.fold4(c).is_some());
                assert_eq!(
                    buf[output_at..output_at + out_len],
                    expected[..],
                    "{g:?} at {at:?}"
                );
            } else {
                assert_eq!(buf, before, "{g:?}");
            }
            drawn += 1;
        }
        assert!(
            cfg!(miri) || (ran.iter().all(|&r| r > 100) && folded > 40),
            "{ran:?}, {folded} in the folded epilogue"
        );
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
            assert!(depthwise_s8::<ANY>(
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
        assert!(!depthwise_s8::<ANY>(
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
