//! CONV_2D with a 1 x 1 filter, stride 1, no padding and one group, blocked for the Cortex-M
//! DSP extension (cfg `stowplan_dsp`): the matrix product of pixels by filters in blocks of
//! 2 pixels x 2 output channels, the accumulators in registers (see [`conv1x1_s8`]); for the
//! layers of the folded epilogue's constants each pixel pair widened once, then every channel
//! pair in one `asm!` block (see [`widened_s8`]).

use crate::dsp::{
    Pairs, rows3_folded, smlad, smlad_1x2_words, smlad_2x2_requant, splat16, sxtab16, sxtab16_ror8,
    sxtb16, sxtb16_ror8, widen_words_2,
};
use crate::kernels::conv::kernel::{
    ANY, KERNEL_BITS, SLAB, WIDE, pointwise_takes, widened_channels,
};
use crate::kernels::shared::blocked::{Epilogue, dot_1x2, dot_offset_s8, first, tail, word4};
use crate::kernels::shared::in_place::{fits, inside_buffer};
use crate::kernels::shared::{ConvS8, product, sized, sized_mut};

use super::Tensors;

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

/// int8 CONV_2D with a 1 x 1 filter, stride 1, no padding and one group, as the matrix product
/// `output[pixel][o] = requantise(filter[o] . (input[pixel] + input_offset) + bias[o])`, in
/// blocks of 2 pixels x 2 output channels. With kernel `K` [`ANY`] the layers of the folded
/// epilogue's constants take the widened pixel pairs ([`widened_s8`]); every other layer runs
/// [`Epilogue::pixel_pair`] ([`dot_2x2`]), which writes every output, as
/// [`conv2d_s8`](crate::kernels::conv2d_s8), in this order: pixel pairs in memory order; within
/// a pair, channel pairs in order, each writing `(first pixel, o)`, `(first pixel, o + 1)`, `(second pixel,
/// o)`, `(second pixel, o + 1)`; an odd last channel after the pair's other channels (first
/// pixel, then second); so all channels of a pixel pair are written before the next pair is
/// read. An odd last pixel comes last, channel by channel.
///
/// Returns `false`, having written nothing, for any other geometry (or a zero dimension): the
/// caller runs the general kernel then. Returns `true` without writing if a slice is shorter
/// than the geometry says.
pub(crate) fn conv1x1_s8<const K: u8>(
    p: &ConvS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> bool {
    conv1x1::<K, true>(p, input, filter, bias, output)
}

/// [`conv1x1_s8`] with kernel `K` [`WIDENED_64`](crate::kernels::conv::kernel::WIDENED_64),
/// [`WIDENED`](crate::kernels::conv::kernel::WIDENED),
/// [`WIDENED_336`](crate::kernels::conv::kernel::WIDENED_336) or [`ANY`] (the run-time
/// choice's first try, with the buffer the layer's rows need): the widened pixel pairs alone
/// (`false`, having written nothing, for a layer they do not take).
pub(crate) fn widened_s8<const K: u8>(
    p: &ConvS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> bool {
    conv1x1::<K, false>(p, input, filter, bias, output)
}

/// A 1 x 1 layer on two slices, each sized by its geometry.
struct Layer<'a> {
    pixels: usize,
    depth: usize,
    out_depth: usize,
    input: &'a [i8],
    filter: &'a [i8],
    output: &'a mut [i8],
}

/// `p`'s 1 x 1 layer on `input`, `filter` and `output`: `Err(false)` for a geometry the 1 x 1
/// kernels do not take (or a zero dimension), `Err(true)` for a slice shorter than the geometry
/// says (the call is over, nothing written).
#[inline(always)]
fn layer<'a>(
    p: &ConvS8,
    input: &'a [i8],
    filter: &'a [i8],
    output: &'a mut [i8],
) -> Result<Layer<'a>, bool> {
    let g = &p.geometry;
    let [batches, height, width, depth] = g.input;
    let out_depth = g.filter[0];
    if !pointwise_takes(g) {
        return Err(false);
    }
    let Some(pixels) = product(&[batches, height, width]) else {
        return Err(false);
    };
    match (
        sized(input, &[pixels, depth]),
        sized(filter, &[out_depth, depth]),
        sized_mut(output, &[pixels, out_depth]),
    ) {
        (Some(input), Some(filter), Some(output)) => Ok(Layer {
            pixels,
            depth,
            out_depth,
            input,
            filter,
            output,
        }),
        _ => Err(true),
    }
}

/// [`conv1x1_s8`], with the pixel pairs for a layer the widened pixel pairs do not take when
/// `PAIRS`, else `false` for it.
#[inline(always)]
fn conv1x1<const K: u8, const PAIRS: bool>(
    p: &ConvS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> bool {
    let Layer {
        depth,
        out_depth,
        input,
        filter,
        output,
        ..
    } = match layer(p, input, filter, output) {
        Ok(l) => l,
        Err(done) => return done,
    };
    // The form kernel constant `K` names, or the one found now.
    let (e, form) = Epilogue::for_kernel::<K>(p, bias, out_depth);
    let offset = p.input_offset;
    match form {
        6 => conv1x1_blocks::<K, 6, PAIRS>(&e, input, filter, output, depth, out_depth, offset),
        5 => conv1x1_blocks::<K, 5, PAIRS>(&e, input, filter, output, depth, out_depth, offset),
        _ => conv1x1_blocks::<K, 0, PAIRS>(&e, input, filter, output, depth, out_depth, offset),
    }
}

/// [`conv1x1_s8`]'s loops, the epilogue's form chosen (`F`) and kernel constant `K`'s loop (a
/// [`WIDENED_64`](crate::kernels::conv::kernel::WIDENED_64)-like kernel: the widened pixel
/// pairs alone; [`POINTWISE`](crate::kernels::conv::kernel::POINTWISE): the pixel pairs alone;
/// [`ANY`]: the widened pixel pairs if they take the layer, else the pixel pairs if `PAIRS`);
/// the slices hold whole pixels (`depth` input, `out_depth` output channels, both non-zero).
/// Returns `false`, having written nothing, if `K`'s loop does not take the layer (its
/// compile-time check proves it does).
#[inline(always)]
fn conv1x1_blocks<const K: u8, const F: u8, const PAIRS: bool>(
    e: &Epilogue<'_>,
    input: &[i8],
    filter: &[i8],
    output: &mut [i8],
    depth: usize,
    out_depth: usize,
    offset: i32,
) -> bool {
    // The pixel pairs widened once for every channel pair (a `WIDENED_64`-like kernel: alone;
    // the run-time choice's first try), where the folded epilogue takes the layer.
    if let Some(g) = widened_channels(K).or(if K & KERNEL_BITS == ANY {
        Some(depth)
    } else {
        None
    }) {
        let at = Placed {
            depth,
            out_depth,
            input_at: 0,
            output_at: 0,
            pixels: input.len().checked_div(depth).unwrap_or(0),
        };
        let t = &mut Tensors::Apart(input, &mut *output);
        let done = if g <= 64 {
            widened::<F, 16>(e, filter, offset, t, &at)
        } else if g <= SLAB {
            widened::<F, 36>(e, filter, offset, t, &at)
        } else {
            widened::<F, { WIDE / 4 }>(e, filter, offset, t, &at)
        };
        // A `WIDENED_64`-like kernel: the widened pixel pairs alone.
        if done || widened_channels(K).is_some() {
            return done;
        }
    }
    if !PAIRS {
        return false;
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
    // An odd last pixel (every pixel of the in-place driver's one-pixel chunks).
    let a = ins.remainder();
    if !a.is_empty() {
        e.pixel::<F>(a, filter, outs.into_remainder(), depth, offset);
    }
    true
}

/// [`conv1x1_blocks`] in form 6 for rows of at most `4 G` values (`G` 16 or 36: the buffer's
/// groups), whole words of them (`depth` a multiple of 4: a part group would have the last
/// channel pair read past the filter), an even number of output channels and constants the
/// folded epilogue takes ([`Epilogue::pairs`]): per pixel pair both pixels widened once, `x +
/// offset` as halfwords, into the window kernel's groups, then every channel pair in one block
/// ([`smlad_2x2_requant`]); the odd last pixel as [`Epilogue::pixel`]. The tensors are `t`,
/// placed as `at` says. On one buffer each pair is widened before any of its outputs is
/// written, so its outputs may lie over its own input and, where the input starts at least
/// [`min_displacement`](crate::kernels::overlap::min_displacement) above the output, below the
/// input of the pairs after it (pair `q`'s outputs end `(q + 2) (out_depth − depth)` past its
/// input's start, at most that displacement); the odd last pixel's input and output are apart
/// there. Returns `false`, having written nothing, for any other layer.
///
/// The buffer is the only part that depends on `G`: each size is a small function of its own
/// around one copy of the loops ([`widened_in`]).
#[inline(never)]
fn widened<const F: u8, const G: usize>(
    e: &Epilogue<'_>,
    filter: &[i8],
    offset: i32,
    t: &mut Tensors<'_>,
    at: &Placed,
) -> bool {
    let mut wide = [[0_u32; 4]; G];
    widened_in::<F>(e, filter, offset, t, at, &mut wide)
}

/// [`widened`]'s loops with the pixel pair's buffer `wide` (rows of at most `4 wide.len()`
/// values).
#[inline(never)]
fn widened_in<const F: u8>(
    e: &Epilogue<'_>,
    filter: &[i8],
    offset: i32,
    t: &mut Tensors<'_>,
    at: &Placed,
    wide: &mut [[u32; 4]],
) -> bool {
    let (depth, out_depth) = (at.depth, at.out_depth);
    if F != 6 || depth > 4 * wide.len() || !depth.is_multiple_of(4) || !out_depth.is_multiple_of(2)
    {
        return false;
    }
    let Some(run) = e.pairs(filter, depth, out_depth) else {
        return false;
    };
    if run.len() != out_depth / 2 {
        return false;
    }
    let groups = depth / 4;
    let (x2, y2) = (2 * depth, 2 * out_depth);
    for q in 0..at.pixels / 2 {
        let Some(x) = t.input(at.input_at + q * x2, x2) else {
            return true;
        };
        widen_pair(wide, x, depth, offset);
        let Some(y) = t.output(at.output_at + q * y2, y2) else {
            return true;
        };
        write_pair(&run, first(wide, groups), y, out_depth);
    }
    // An odd last pixel.
    if at.pixels % 2 == 1 {
        let last = at.pixels - 1;
        let (i, o) = (at.input_at + last * depth, at.output_at + last * out_depth);
        if let Some((x, y)) = t.apart((i, depth), (o, out_depth)) {
            lone::<F>(e, x, filter, y, depth, offset);
        }
    }
    true
}

/// [`widened_in`]'s odd last pixel `x` into `y` (form 6, every channel's constants in the
/// folded epilogue's range and a bias: [`Epilogue::pairs`] took the layer): one input row of a
/// FULLY_CONNECTED, so its channel triples run in that op's block with their epilogue
/// ([`rows3_folded`]: about 1.9 estimated cycles a multiply-accumulate, where
/// [`Epilogue::pixel`]'s pairs took about 2.5), the last one or two channels as
/// [`Epilogue::pixel`] does.
#[inline(always)]
fn lone<const F: u8>(
    e: &Epilogue<'_>,
    x: &[i8],
    filter: &[i8],
    y: &mut [i8],
    depth: usize,
    offset: i32,
) {
    let constants = (e.requant, e.bias, 2 * e.output_offset + 1);
    let words = x.as_chunks::<4>().0;
    let done = if F == 6 {
        3 * rows3_folded(words, filter, depth, splat16(offset), constants, y)
    } else {
        0
    };
    let mut rows = filter.chunks_exact(depth).skip(done);
    for (c, y) in y.iter_mut().enumerate().skip(done) {
        let Some(f) = rows.next() else {
            return;
        };
        *y = e.finish::<F>(dot_offset_s8(x, f, offset), e.channel::<F>(c));
    }
}

/// [`widened_s8`] on one buffer (the input's elements at `buf[input_at..]`, the output's at
/// `buf[output_at..]`), without the in-place driver ([`widened`]'s order). Returns `false`,
/// having written nothing, for a layer the kernel does not take or a placement
/// [`fits`](crate::kernels::overlap::fits) refuses.
pub(crate) fn widened_on_one_buffer_s8<const K: u8>(
    p: &ConvS8,
    buf: &mut [i8],
    (input_at, output_at): (usize, usize),
    filter: &[i8],
    bias: Option<&[i32]>,
    scratch: Option<&mut [u32]>,
) -> bool {
    let g = &p.geometry;
    let [batches, height, width, depth] = g.input;
    let out_depth = g.filter[0];
    if !pointwise_takes(g) || !fits(g, input_at, output_at) {
        return false;
    }
    let Some(pixels) = product(&[batches, height, width]) else {
        return false;
    };
    let (Some(in_len), Some(out_len), Some(filter)) = (
        pixels.checked_mul(depth),
        pixels.checked_mul(out_depth),
        sized(filter, &[out_depth, depth]),
    ) else {
        return false;
    };
    if !inside_buffer(buf.len(), input_at, in_len, output_at, out_len) {
        return false;
    }
    let (e, form) = Epilogue::for_kernel::<K>(p, bias, out_depth);
    if form != 6 {
        return false;
    }
    let at = Placed {
        depth,
        out_depth,
        input_at,
        output_at,
        pixels,
    };
    let (offset, t) = (p.input_offset, &mut Tensors::One(buf));
    match (scratch, widened_channels(K)) {
        (_, None) => false,
        (Some(wide), Some(_)) => widened_in::<6>(&e, filter, offset, t, &at, groups(wide)),
        (None, Some(64)) => widened::<6, 16>(&e, filter, offset, t, &at),
        (None, Some(SLAB)) => widened::<6, 36>(&e, filter, offset, t, &at),
        (None, Some(_)) => widened::<6, { WIDE / 4 }>(&e, filter, offset, t, &at),
    }
}

/// [`widened_s8`] with the pixel pair's buffer `scratch` (at least `depth` words: generated
/// code plans it in the arena), not on the stack: `false`, having written nothing, for a
/// layer the widened pixel pairs do not take or scratch too short for it. Returns `true`
/// without writing if a slice is shorter than the geometry says.
pub(crate) fn widened_scratch_s8<const K: u8>(
    p: &ConvS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
    scratch: &mut [u32],
) -> bool {
    if widened_channels(K).is_none() {
        return false;
    }
    let Layer {
        pixels,
        depth,
        out_depth,
        input,
        filter,
        output,
    } = match layer(p, input, filter, output) {
        Ok(l) => l,
        Err(done) => return done,
    };
    let (e, form) = Epilogue::for_kernel::<K>(p, bias, out_depth);
    if form != 6 {
        return false;
    }
    let at = Placed {
        depth,
        out_depth,
        input_at: 0,
        output_at: 0,
        pixels,
    };
    let t = &mut Tensors::Apart(input, output);
    widened_in::<6>(&e, filter, p.input_offset, t, &at, groups(scratch))
}

/// Words as the widened groups of four ([`widened_in`]'s buffer), a last part group dropped.
#[inline(always)]
fn groups(words: &mut [u32]) -> &mut [[u32; 4]] {
    words.as_chunks_mut::<4>().0
}

/// Where a 1 x 1 layer's tensors lie: the channel counts, each tensor's first element (of its
/// slice, or of the one buffer) and the pixels.
struct Placed {
    depth: usize,
    out_depth: usize,
    input_at: usize,
    output_at: usize,
    pixels: usize,
}

/// A pixel pair's `2 depth` input values (whole words) widened into `buf`'s groups, the
/// first pixel in lanes 0 and 1, the second in 2 and 3 (the window kernel's layout): per word
/// of four values `x + offset` as the `SXTAB16` lanes of the word and of the word rotated by
/// 8, both pixels' words in one loop ([`widen_words_2`]), each group written whole.
#[inline(always)]
fn widen_pair(buf: &mut [[u32; 4]], x2: &[i8], depth: usize, offset: i32) {
    let (a, b) = x2.split_at(depth.min(x2.len()));
    widen_words_2(
        buf,
        a.as_chunks::<4>().0,
        b.as_chunks::<4>().0,
        splat16(offset),
    );
}

/// A pixel pair's outputs (`2 out_depth` values, the first pixel's then the second's): every
/// channel pair of `run` over the widened groups in one block.
#[inline(always)]
fn write_pair(run: &Pairs<'_>, groups: &[[u32; 4]], y2: &mut [i8], out_depth: usize) {
    let (ya, yb) = y2.split_at_mut(out_depth.min(y2.len()));
    smlad_2x2_requant(
        run,
        groups,
        ya.as_chunks_mut::<2>().0,
        yb.as_chunks_mut::<2>().0,
    );
}

impl Epilogue<'_> {
    /// One pixel `x` of [`conv1x1_blocks`] into `y`: channel pairs in blocks of 1 pixel x 2
    /// channels (per four input values three loads, six widenings, four `SMLAD`s), channels
    /// in order, an odd last channel alone. Not inlined: the in-place driver's one-pixel chunks
    /// call it once a pixel, and the 1 x 2 loop has the registers to itself.
    #[inline(never)]
    pub(super) fn pixel<const F: u8>(
        &self,
        x: &[i8],
        filter: &[i8],
        y: &mut [i8],
        depth: usize,
        offset: i32,
    ) {
        let off = splat16(offset);
        let (y2, y1) = y.as_chunks_mut::<2>();
        let mut rows = filter.chunks_exact(depth);
        for (k, y) in y2.iter_mut().enumerate() {
            let (Some(fa), Some(fb)) = (rows.next(), rows.next()) else {
                return;
            };
            let [a0, a1] = dot_1x2(x, fa, fb, off, offset, [0, 0]);
            let (c0, c1) = (self.channel::<F>(2 * k), self.channel::<F>(2 * k + 1));
            *y = [self.finish::<F>(a0, c0), self.finish::<F>(a1, c1)];
        }
        if let (Some(y), Some(f)) = (y1.first_mut(), rows.next()) {
            *y = self.finish::<F>(dot_offset_s8(x, f, offset), self.channel::<F>(2 * y2.len()));
        }
    }

    /// One pixel pair of [`conv1x1_blocks`]: `x2` the two input pixels, `y2` the two output pixels;
    /// `WORDS` when the rows are whole words (`depth` a multiple of four: no tails; one loop
    /// each way, not a choice per channel pair). Not inlined: the 2 x 2 loop then has the registers to itself (inlined into the kernel it
    /// spilled its pointers), which saves more than the call per pixel pair costs.
    #[inline(never)]
    pub(super) fn pixel_pair<const F: u8, const WORDS: bool>(
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
                    // A pixel at a time against the channel pair (`smlad_1x2_words`: its
                    // loop keeps its pointers in registers, where the 2 x 2 loop over four
                    // pointers of a run-time length spilled them).
                    let off = splat16(offset);
                    let [aa, ab] = smlad_1x2_words(a4, fa4, fb4, off, [0, 0]);
                    let [ba, bb] = smlad_1x2_words(b4, fa4, fb4, off, [0, 0]);
                    [aa, ab, ba, bb]
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
#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::conv::conv2d_s8_portable;
    use crate::kernels::shared::Requant;
    use crate::kernels::shared::testing::{REQUANT, REQUANT_TWO, Rng, geometry, params};
    use crate::kernels::shared::{ConvGeometry, Part};

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
            assert!(conv1x1_s8::<0>(&p, input, filter, bias, &mut fast[..len]));
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
        assert!(!conv1x1_s8::<0>(
            &params(g, &mut rng),
            &[0; 64],
            &[0; 16],
            None,
            &mut out
        ));
        assert_eq!(out, [3; 64]);
    }

    /// The widened pixel pairs on one buffer ([`widened_on_one_buffer_s8`]) against the
    /// portable kernel on two: input channel counts of whole words up to 336 (each buffer's)
    /// and output channel counts below and above them, odd and even pixel counts (an odd last
    /// pixel's channel triples and the one or two after them), the input at the least
    /// displacement above the output, a little more, or apart (above or below); one element
    /// short of the least displacement is declined with nothing written, as is a layer the
    /// two-buffer kernel declines.
    #[test]
    fn widened_on_one_buffer_equals_two_buffers() {
        use crate::kernels::conv::kernel::{WIDENED, WIDENED_64, WIDENED_336};
        use crate::kernels::overlap::min_displacement;
        use crate::kernels::shared::testing::REQUANT_DEEP;
        let mut rng = Rng(0x0b0f);
        let cases = if cfg!(miri) { 3 } else { 1200 };
        let mut ran = [0_usize; 4];
        for case in 0..cases {
            let c = rng.pick(&[4, 8, 16, 32, 64, 68, 96, 144, 6, 192, 336]);
            let o = rng.pick(&[2, 4, 8, 12, 16, 24, 3, 10]);
            let w = rng.range(1, if cfg!(miri) { 3 } else { 9 });
            let g = geometry([1, 1, w, c], [o, 1, 1, c], [1, 1, w, o]);
            let requant: &'static [Requant] = rng.pick(&[&REQUANT_TWO[..], &REQUANT_DEEP[..]]);
            let p = ConvS8 {
                geometry: g,
                input_offset: rng.pick(&[128, -127, 3, 0]),
                output_offset: rng.range(0, 255) as i32 - 128,
                requant,
                act_min: -128,
                act_max: 127,
            };
            let bias: [i32; 24] = core::array::from_fn(|_| rng.range(0, 80_000) as i32 - 40_000);
            let bias = Some(&bias[..o]);
            let (mut input, mut filter) = ([0i8; 9 * 336], [0i8; 24 * 336]);
            rng.fill(&mut input);
            rng.fill(&mut filter);
            let (input, filter) = (&input[..w * c], &filter[..o * c]);
            let (in_len, out_len) = (w * c, w * o);
            let mut slow = [0i8; 9 * 24];
            conv2d_s8_portable(&p, Part::WHOLE, input, filter, bias, &mut slow[..out_len]);
            let least = min_displacement(&g).unwrap();
            // The placement: 0 the least displacement, 1 a little more, 2 the input below and
            // apart, 3 above and apart; 4 one short of the least (declined).
            let how = case % 5;
            let (input_at, output_at) = match how {
                0 => (least, 0),
                1 => (least + rng.range(1, 9), 0),
                2 => (0, in_len + rng.range(0, 5)),
                3 => (out_len + rng.range(0, 5), 0),
                _ => (least - 1, 0),
            };
            let mut buf = [0x55_u8 as i8; 2 * 9 * 336 + 16];
            let len = (input_at + in_len).max(output_at + out_len);
            let buf = &mut buf[..len];
            buf[input_at..input_at + in_len].copy_from_slice(input);
            let before = buf.to_vec();
            let at = (input_at, output_at);
            // Every other case with the pixel pair's buffer in scratch of exactly its size
            // (the arena's), the others on the stack.
            let mut words = [0x5555_5555_u32; 336];
            let scratch = (case % 2 == 1).then_some(&mut words[..c]);
            let done = if c <= 64 {
                widened_on_one_buffer_s8::<WIDENED_64>(&p, buf, at, filter, bias, scratch)
            } else if c <= 144 {
                widened_on_one_buffer_s8::<WIDENED>(&p, buf, at, filter, bias, scratch)
            } else {
                widened_on_one_buffer_s8::<WIDENED_336>(&p, buf, at, filter, bias, scratch)
            };
            let folds = requant[..o]
                .iter()
                .all(|r| r.multiplier >= 0 && (-23..=-2).contains(&r.shift));
            let form = Epilogue::new(&p, bias, o).1;
            let takes =
                form == 6 && folds && c.is_multiple_of(4) && o.is_multiple_of(2) && how != 4;
            assert_eq!(done, takes, "{:?}", (c, o, w, how));
            if done {
                ran[how] += 1;
                assert_eq!(
                    buf[output_at..output_at + out_len],
                    slow[..out_len],
                    "{:?}",
                    (c, o, w, how)
                );
            } else {
                assert_eq!(buf[..], before[..], "{:?}", (c, o, w, how));
            }
        }
        assert!(cfg!(miri) || ran.iter().all(|&n| n > 30), "{ran:?}");
    }

    /// The widened pixel pairs ([`WIDENED_64`](crate::kernels::conv::kernel::WIDENED_64), [`WIDENED`](
    /// crate::kernels::conv::kernel::WIDENED), [`WIDENED_336`](
    /// crate::kernels::conv::kernel::WIDENED_336)) against the portable kernel: input channel
    /// counts of whole words up to 336 (at and past each buffer's end), odd and even pixel and
    /// output channel counts (an odd last pixel's channel triples and the one or two after
    /// them), every requantisation table, with and without a bias and a fused activation; a
    /// layer they do not take (form 6 missing, a bias missing, a right shift past 23, an odd
    /// output channel count, rows not of whole words, past the buffer) is declined with nothing
    /// written, and the ones they take are exactly those.
    #[test]
    fn widened_pixel_pairs_equal_the_portable_kernel() {
        use crate::kernels::conv::kernel::{WIDENED, WIDENED_64, WIDENED_336};
        use crate::kernels::shared::testing::{REQUANT_DEEP, REQUANT_GENERAL};
        let mut rng = Rng(0x71de);
        let cases = if cfg!(miri) { 4 } else { 1500 };
        let mut ran = [0_usize; 3];
        for case in 0..cases {
            let c = rng.pick(&[
                4, 8, 12, 16, 28, 32, 60, 64, 68, 96, 128, 144, 148, 6, 30, 192, 256, 336, 340,
            ]);
            let o = rng.range(1, 12);
            let w = rng.range(1, if cfg!(miri) { 3 } else { 7 });
            let g = geometry([1, 1, w, c], [o, 1, 1, c], [1, 1, w, o]);
            let requant: &'static [Requant] = rng.pick(&[
                &REQUANT_TWO[..],
                &REQUANT_DEEP[..],
                &REQUANT[..],
                &REQUANT_GENERAL[..],
            ]);
            let (act_min, act_max) = rng.pick(&[(-128, 127), (-128, 127), (-100, 90)]);
            let p = ConvS8 {
                geometry: g,
                input_offset: rng.pick(&[128, -127, 3, 0]),
                output_offset: rng.range(0, 255) as i32 - 128,
                requant,
                act_min,
                act_max,
            };
            let bias: [i32; 12] = core::array::from_fn(|_| rng.range(0, 80_000) as i32 - 40_000);
            let bias = (case % 5 != 0).then_some(&bias[..o]);
            let (mut input, mut filter) = ([0i8; 7 * 340], [0i8; 12 * 340]);
            rng.fill(&mut input);
            rng.fill(&mut filter);
            let (input, filter) = (&input[..w * c], &filter[..o * c]);
            let len = w * o;
            let (mut fast, mut slow) = ([0x55_u8 as i8; 84], [0i8; 84]);
            conv2d_s8_portable(&p, Part::WHOLE, input, filter, bias, &mut slow[..len]);
            let folds = requant[..o]
                .iter()
                .all(|r| r.multiplier >= 0 && (-23..=-2).contains(&r.shift));
            let (e, form) = Epilogue::new(&p, bias, o);
            let takes =
                form == 6 && bias.is_some() && folds && c.is_multiple_of(4) && o.is_multiple_of(2);
            // The folded epilogue's constants: a bias, and every multiplier and shift in range.
            assert_eq!(e.pairs(filter, c, o).is_some(), bias.is_some() && folds);
            for (k, most) in [64, 144, 336].into_iter().enumerate() {
                let done = match k {
                    0 => widened_s8::<WIDENED_64>(&p, input, filter, bias, &mut fast[..len]),
                    1 => widened_s8::<WIDENED>(&p, input, filter, bias, &mut fast[..len]),
                    _ => widened_s8::<WIDENED_336>(&p, input, filter, bias, &mut fast[..len]),
                };
                // A buffer declines what it cannot hold; a larger one takes the smaller ones'
                // layers too.
                assert_eq!(done, takes && c <= most, "{:?}", (c, o, w, most));
                if done {
                    ran[k] += 1;
                    assert_eq!(fast[..len], slow[..len], "{:?}", (c, o, w, most));
                } else {
                    assert!(
                        fast[..len].iter().all(|&v| v == 0x55_u8 as i8),
                        "{:?}",
                        (c, o, w)
                    );
                }
                fast = [0x55_u8 as i8; 84];
            }
            // The buffer in scratch of exactly the layer's words (as the arena holds it) takes
            // the same layers with the same bytes; scratch a group short, none.
            for (words, takes) in [(c, takes), (c.saturating_sub(4), false)] {
                let mut scratch = [0x5555_5555_u32; 340];
                let mut out = [0x55_u8 as i8; 84];
                let done = widened_scratch_s8::<WIDENED_336>(
                    &p,
                    input,
                    filter,
                    bias,
                    &mut out[..len],
                    &mut scratch[..words],
                );
                assert_eq!(done, takes, "{:?}", (c, o, w, words));
                if done {
                    assert_eq!(out[..len], slow[..len], "{:?}", (c, o, w));
                } else {
                    assert!(out.iter().all(|&v| v == 0x55_u8 as i8), "{:?}", (c, o, w));
                }
            }
            // The run-time choice's first try takes the same layers, with the same bytes.
            let mut any = [0i8; 84];
            assert!(conv1x1_s8::<0>(&p, input, filter, bias, &mut any[..len]));
            assert_eq!(any[..len], slow[..len], "{:?}", (c, o, w));
        }
        assert!(cfg!(miri) || ran.iter().all(|&n| n > 20), "{ran:?}");
    }
}
