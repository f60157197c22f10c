//! The int8 CONV_2D of every shape but the pointwise one ([`super::pointwise::conv1x1_s8`]) blocked
//! for the Cortex-M DSP extension (cfg `stowplan_dsp`): 3 x 3 and 5 x 5 filters, strides,
//! padding, dilation, the first layers with a few input channels, batches, any channel counts,
//! on every part the overlapped driver runs ([`crate::kernels::shared::in_place`]: whole output rows, or runs of
//! pixels of one row with input pixels skipped). Grouped convolution is left to the portable
//! loop.
//!
//! Each pixel's window is walked as the portable loop walks it ([`crate::kernels::conv`]'s
//! `conv_loops`): per valid window row one run of `taps x C` contiguous input values against
//! the filter's run of that row (one run per tap when dilated); a tap in the padding is in no
//! run. Two adjacent output pixels of a row whose windows have the same valid taps (all but
//! those at a left or right border) form a *pair*, summed in blocks of 2 pixels x 2 output
//! channels ([`dot_2x2`]: per four values four loads, eight widenings with
//! `SXTB16`/`SXTAB16`, eight `SMLAD`s), an odd last channel 2 x 1; every other pixel is a
//! *single*, 1 pixel x 2 channels ([`dot_1x2`]), an odd last channel 1 x 1. Run tails (lengths
//! not a multiple of four) are summed one value at a time. Nothing is gathered or copied: the
//! kernel needs no memory beyond its registers and a small frame (no scratch, planned or not).
//!
//! Every output is TFLM's value: each accumulator is the portable kernel's int32 sum
//! `sum(filter * (input + input_offset))` over the same input values (its terms in another
//! order, plus products of 0, which is exact modulo 2^32, as TFLM's accumulator wraps), then
//! [`Epilogue`]'s requantisation, which is
//! [`requantize_channel`](crate::kernels::shared::requant::requantize_channel)'s (or an exact shorter form of it).
//! `input + input_offset` is computed in a halfword by `SXTAB16`: exact for input offsets in
//! `-32640..=32640` (an int8 zero point gives `-127..=128`; the kernel declines any other).
//! Filter values are int8, so every product fits `SMLAD`'s 16 x 16 bits.
//!
//! Input runs are read through bounds-checked slices, as the portable loop reads them, with
//! the same index arithmetic (wrapping, modulo 2^N): a run the call's slice does not hold (a
//! skipped pixel of a part: never one a window of the part reads, but whatever the part says)
//! adds nothing to its pixel's sums, as in the portable loop, so the kernel equals it for
//! every [`Part`]. Window rows are read a word at a time, up to three values past a run (left
//! out of the sums), only where the slice holds them.
//!
//! Order of writes: output pixels in order (batch, y, x), all channels of a block's pixels (a
//! pair) written together once their sums are complete, channels in order. A call's input and output are disjoint slices; the overlapped driver's order holds
//! between its calls ([`crate::kernels::shared::in_place`]).

use crate::dsp::{smlad, splat16, sxtab16, sxtab16_ror8, sxtb16, sxtb16_ror8, word};
use crate::kernels::shared::blocked::{Epilogue, dot_offset_s8};
use crate::kernels::shared::{ConvGeometry, ConvS8, Part, origin, run, sized, sized_mut};

/// The input offsets the halfword lanes of `SXTAB16` add exactly to every int8 value.
const OFFSETS: core::ops::RangeInclusive<i32> = -32640..=32640;

/// Dilated window extents (`(taps - 1) * dilation`) past this are left to the portable loop
/// (none fits a microcontroller's memory), so that no tap coordinate wraps.
const EXTENT: usize = 1 << 15;

/// int8 CONV_2D with one group (filter depth = input depth) and any other geometry: any filter
/// size, stride, padding, dilation, batch count and channel counts, on any `part` of the
/// geometry. Writes every output (of the call's geometry) as
/// [`conv2d_s8_portable`](super::conv::conv2d_s8_portable) does, in the order of the [module
/// docs](self).
///
/// Returns `false`, having written nothing, for grouped convolution, a zero dimension, stride
/// or dilation, a dilated window extent of 2^15 or more, or an input offset outside
/// `-32640..=32640` (the caller runs the portable loop then); `true` without writing if a slice
/// is shorter than the geometry says (as the portable loop does).
///
/// Never inlined: its frame is on the stack only while it runs, not in every caller's (the
/// overlapped driver's entry, which runs the pointwise convolutions too, among them).
#[inline(never)]
pub(crate) fn conv_s8(
    p: &ConvS8,
    part: Part,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> bool {
    let g = &p.geometry;
    let [batches, input_h, input_w, depth] = g.input;
    let [out_depth, filter_h, filter_w, filter_d] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    let dims = [
        batches, input_h, input_w, depth, out_depth, filter_h, filter_w, output_h, output_w,
    ];
    let steps = [g.stride_h, g.stride_w, g.dilation_h, g.dilation_w];
    let extent =
        |taps: usize, dilation: usize| (taps - 1).checked_mul(dilation).is_some_and(|e| e < EXTENT);
    if filter_d != depth
        || dims.contains(&0)
        || steps.contains(&0)
        || !extent(filter_h, g.dilation_h)
        || !extent(filter_w, g.dilation_w)
        || !OFFSETS.contains(&p.input_offset)
    {
        return false;
    }
    let (Some(input), Some(filter), Some(output)) = (
        part.input(input, g),
        sized(filter, &[out_depth, filter_h, filter_w, depth]),
        sized_mut(output, &[batches, output_h, output_w, out_depth]),
    ) else {
        return true;
    };
    // Every size below is at most a slice's length: no product overflows.
    let c = Conv {
        input,
        filter,
        offset: p.input_offset,
        filter_size: filter_h * filter_w * depth,
        in_row: g.dilation_h.wrapping_mul(input_w).wrapping_mul(depth),
        f_row: filter_w * depth,
        in_run: g.dilation_w.wrapping_mul(depth),
        f_run: depth,
    };
    let (e, form) = Epilogue::new(p, bias, out_depth);
    match form {
        6 => c.blocks::<6>(g, part, &e, output),
        5 => c.blocks::<5>(g, part, &e, output),
        _ => c.blocks::<0>(g, part, &e, output),
    }
    true
}

/// The taps `start..end` of a window of `taps` taps `dilation` apart from `origin` whose
/// coordinate `origin + dilation * k` lies in `0..size` (those [`super::conv::inside`] takes;
/// an empty range if none does). `dilation` is at least 1.
#[inline(always)]
fn dilated_taps(origin: isize, dilation: usize, taps: usize, size: usize) -> (usize, usize) {
    if dilation == 1 {
        return crate::kernels::shared::valid_taps(origin, taps, size);
    }
    // origin + dilation * k >= 0 from k = ceil(-origin / dilation) on.
    let start = if origin < 0 {
        origin.unsigned_abs().div_ceil(dilation)
    } else {
        0
    };
    // origin + dilation * k < size below k = ceil((size - origin) / dilation).
    let limit = (size as isize).wrapping_sub(origin);
    let end = if limit <= 0 {
        0
    } else {
        (limit as usize).div_ceil(dilation).min(taps)
    };
    (start.min(end), end)
}

/// What every block of one call shares: the input and filter slices (sized by
/// [`conv_s8`]), the input offset, and the steps from run to run.
#[derive(Clone, Copy)]
struct Conv<'a> {
    input: &'a [i8],
    filter: &'a [i8],
    offset: i32,
    /// Filter elements per output channel.
    filter_size: usize,
    /// Input elements from a valid window row's first run to the next row's.
    in_row: usize,
    /// Filter elements from a filter row to the next.
    f_row: usize,
    /// Input elements from a run to the next in a window row (one run per tap: dilated).
    in_run: usize,
    /// Filter elements from a run to the next in a filter row.
    f_run: usize,
}

/// The valid taps of an output pixel's window as runs: `rows` window rows of `runs` runs of
/// `len` values each, the first of them at element `f` of a channel's filter. Two pixels with
/// the same taps read the same filter runs (a pair).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Taps {
    f: usize,
    rows: usize,
    runs: usize,
    len: usize,
}

impl Conv<'_> {
    /// [`conv_s8`]'s loop over the output pixels, the epilogue's form chosen (`F`): per output
    /// row its valid filter rows, per pixel its valid taps, adjacent pixels with the same taps
    /// as pairs.
    #[inline(always)]
    fn blocks<const F: u8>(
        &self,
        g: &ConvGeometry,
        part: Part,
        e: &Epilogue<'_>,
        output: &mut [i8],
    ) {
        let [batches, ..] = g.input;
        let [out_depth, ..] = g.filter;
        let [_, output_h, output_w, _] = g.output;
        let mut pixels = output.chunks_exact_mut(out_depth);
        for batch in 0..batches {
            for out_y in 0..output_h {
                let rows = Rows::of(g, part, batch, out_y);
                let window = |out_x: usize| self.window(g, part, rows, out_x);
                let mut out_x = 0;
                let mut a = window(0);
                while out_x < output_w {
                    let Some(ya) = pixels.next() else {
                        return;
                    };
                    if out_x + 1 < output_w {
                        let b = window(out_x + 1);
                        if b.1 == a.1 {
                            let Some(yb) = pixels.next() else {
                                return;
                            };
                            self.pair::<F>(e, a.1, a.0, b.0, ya, yb);
                            out_x += 2;
                            a = window(out_x);
                            continue;
                        }
                        self.single::<F>(e, a.1, a.0, ya);
                        a = b;
                    } else {
                        self.single::<F>(e, a.1, a.0, ya);
                    }
                    out_x += 1;
                }
            }
        }
    }

    /// The window of the call's output column `out_x` in the output row of `rows`: the
    /// element of the slice its first run starts at, and its taps.
    #[inline(always)]
    fn window(&self, g: &ConvGeometry, part: Part, rows: Rows, out_x: usize) -> (usize, Taps) {
        let [_, _, input_w, depth] = g.input;
        let filter_w = g.filter[2];
        let in_x = part.origin_x(out_x, g.stride_w, g.pad_w);
        let (kx0, kx1) = dilated_taps(in_x, g.dilation_w, filter_w, input_w);
        let left = in_x.wrapping_add(g.dilation_w.wrapping_mul(kx0) as isize) as usize;
        let at = rows.top.wrapping_add(left).wrapping_mul(depth);
        let taps = kx1 - kx0;
        // Adjacent taps: one run per window row (none if no tap is inside).
        let (runs, len) = if g.dilation_w == 1 {
            (usize::from(taps > 0), taps * depth)
        } else {
            (taps, depth)
        };
        let f = rows
            .ky0
            .wrapping_mul(filter_w)
            .wrapping_add(kx0)
            .wrapping_mul(depth);
        let rows = if runs == 0 { 0 } else { rows.ky1 - rows.ky0 };
        (at, Taps { f, rows, runs, len })
    }

    /// One pair of output pixels with taps `t`, their windows' first runs at input elements
    /// `a` and `b`, their outputs `ya` and `yb`: per output channel pair the 2 x 2 sums over
    /// every run, then the four outputs; an odd last channel 2 x 1. Not inlined: the block's
    /// loop then has the registers to itself.
    #[inline(never)]
    fn pair<const F: u8>(
        &self,
        e: &Epilogue<'_>,
        t: Taps,
        a: usize,
        b: usize,
        ya: &mut [i8],
        yb: &mut [i8],
    ) {
        let (ya2, ya1) = ya.as_chunks_mut::<2>();
        let (yb2, yb1) = yb.as_chunks_mut::<2>();
        let mut channels = self.filter.chunks_exact(self.filter_size);
        for (k, (ya, yb)) in ya2.iter_mut().zip(yb2.iter_mut()).enumerate() {
            let (Some(fa), Some(fb)) = (channels.next(), channels.next()) else {
                return;
            };
            let [aa, ab, ba, bb] = self.window_2x2(t, a, b, fa, fb);
            let (c0, c1) = (e.channel::<F>(2 * k), e.channel::<F>(2 * k + 1));
            *ya = [e.finish::<F>(aa, c0), e.finish::<F>(ab, c1)];
            *yb = [e.finish::<F>(ba, c0), e.finish::<F>(bb, c1)];
        }
        // An odd last channel.
        if let (Some(ya), Some(yb), Some(f)) = (ya1.first_mut(), yb1.first_mut(), channels.next()) {
            let [aa, ba] = self.window_2x1(t, a, b, f);
            let c = e.channel::<F>(ya2.len() * 2);
            *ya = e.finish::<F>(aa, c);
            *yb = e.finish::<F>(ba, c);
        }
    }

    /// One output pixel with taps `t`, its window's first run at input element `a`, its
    /// outputs `y`: per output channel pair the 1 x 2 sums over every run, then the two
    /// outputs; an odd last channel 1 x 1. Not inlined, as [`Conv::pair`].
    #[inline(never)]
    fn single<const F: u8>(&self, e: &Epilogue<'_>, t: Taps, a: usize, y: &mut [i8]) {
        let (y2, y1) = y.as_chunks_mut::<2>();
        let mut channels = self.filter.chunks_exact(self.filter_size);
        for (k, y) in y2.iter_mut().enumerate() {
            let (Some(fa), Some(fb)) = (channels.next(), channels.next()) else {
                return;
            };
            let [a0, a1] = self.window_1x2(t, a, fa, fb);
            let (c0, c1) = (e.channel::<F>(2 * k), e.channel::<F>(2 * k + 1));
            *y = [e.finish::<F>(a0, c0), e.finish::<F>(a1, c1)];
        }
        if let (Some(y), Some(f)) = (y1.first_mut(), channels.next()) {
            let acc = self.window_1x1(t, a, f);
            *y = e.finish::<F>(acc, e.channel::<F>(y2.len() * 2));
        }
    }

    /// The input run of `len` values at element `at` of the slice (`None` if it does not
    /// hold them all, as the portable loop's `get`).
    #[inline(always)]
    fn input_run(&self, at: usize, len: usize) -> Option<&[i8]> {
        self.input.get(at..at.wrapping_add(len))
    }

    /// The runs of a pixel pair's windows with taps `t` (first runs at input elements `a` and
    /// `b`), in the portable loop's order.
    #[inline(always)]
    fn runs(&self, t: Taps, a: usize, b: usize) -> Runs<'_> {
        Runs {
            c: self,
            len: t.len,
            runs: t.runs,
            rows_left: t.rows,
            runs_left: 0,
            row: [a, b, t.f],
            at: [a, b, t.f],
        }
    }

    /// The sums `[a.fa, a.fb, b.fa, b.fb]` of a pixel pair (windows at `a`, `b`) against two
    /// channels' filters `fa`, `fb`.
    #[inline(always)]
    fn window_2x2(&self, t: Taps, a: usize, b: usize, fa: &[i8], fb: &[i8]) -> [i32; 4] {
        let (off, offset) = (splat16(self.offset), self.offset);
        let [mut aa, mut ab, mut ba, mut bb] = [0_i32; 4];
        for (xa, xb, f) in self.runs(t, a, b) {
            let (wa, wb) = (run(fa, f, t.len), run(fb, f, t.len));
            match (xa, xb) {
                (Some(xa), Some(xb)) => {
                    [aa, ab, ba, bb] = dot_2x2(xa, xb, wa, wb, off, offset, [aa, ab, ba, bb]);
                }
                // A run one pixel's slice lacks: the other pixel's sums alone.
                (Some(xa), None) => [aa, ab] = dot_1x2(xa, wa, wb, off, offset, [aa, ab]),
                (None, Some(xb)) => [ba, bb] = dot_1x2(xb, wa, wb, off, offset, [ba, bb]),
                (None, None) => {}
            }
        }
        [aa, ab, ba, bb]
    }

    /// The sums `[a.f, b.f]` of a pixel pair against one channel's filter `f`.
    #[inline(always)]
    fn window_2x1(&self, t: Taps, a: usize, b: usize, f: &[i8]) -> [i32; 2] {
        let (off, offset) = (splat16(self.offset), self.offset);
        let [mut aa, mut ba] = [0_i32; 2];
        for (xa, xb, k) in self.runs(t, a, b) {
            let w = run(f, k, t.len);
            match (xa, xb) {
                (Some(xa), Some(xb)) => [aa, ba] = dot_2x1(xa, xb, w, off, offset, [aa, ba]),
                (Some(xa), None) => aa = aa.wrapping_add(dot_offset_s8(xa, w, offset)),
                (None, Some(xb)) => ba = ba.wrapping_add(dot_offset_s8(xb, w, offset)),
                (None, None) => {}
            }
        }
        [aa, ba]
    }

    /// The sums `[a.fa, a.fb]` of one pixel (window at `a`) against two channels' filters.
    #[inline(always)]
    fn window_1x2(&self, t: Taps, a: usize, fa: &[i8], fb: &[i8]) -> [i32; 2] {
        let (off, offset) = (splat16(self.offset), self.offset);
        let mut acc = [0_i32; 2];
        // The second window is the first: only its runs are used.
        for (x, _, f) in self.runs(t, a, a) {
            if let Some(x) = x {
                acc = dot_1x2(x, run(fa, f, t.len), run(fb, f, t.len), off, offset, acc);
            }
        }
        acc
    }

    /// The sum `a.f` of one pixel against one channel's filter.
    #[inline(always)]
    fn window_1x1(&self, t: Taps, a: usize, f: &[i8]) -> i32 {
        let mut acc = 0_i32;
        for (x, _, k) in self.runs(t, a, a) {
            if let Some(x) = x {
                acc = acc.wrapping_add(dot_offset_s8(x, run(f, k, t.len), self.offset));
            }
        }
        acc
    }
}

/// The runs of a pixel pair's windows ([`Conv::runs`]): per run the two pixels' input runs
/// (`None` where the slice does not hold one) and the run's first element in a channel's
/// filter. Wrapping index arithmetic: the portable loop's, modulo 2^N.
struct Runs<'a> {
    c: &'a Conv<'a>,
    len: usize,
    /// Runs per window row.
    runs: usize,
    /// Window rows not begun.
    rows_left: usize,
    /// Runs of the current row still to come.
    runs_left: usize,
    /// The next row's first run: both pixels' input elements and the filter element.
    row: [usize; 3],
    /// The next run's.
    at: [usize; 3],
}

impl<'a> Iterator for Runs<'a> {
    type Item = (Option<&'a [i8]>, Option<&'a [i8]>, usize);

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let c = self.c;
        while self.runs_left == 0 {
            if self.rows_left == 0 {
                return None;
            }
            // The next window row's runs.
            self.rows_left -= 1;
            self.runs_left = self.runs;
            self.at = self.row;
            let [a, b, f] = self.row;
            self.row = [
                a.wrapping_add(c.in_row),
                b.wrapping_add(c.in_row),
                f.wrapping_add(c.f_row),
            ];
        }
        let [a, b, f] = self.at;
        self.runs_left -= 1;
        self.at = [
            a.wrapping_add(c.in_run),
            b.wrapping_add(c.in_run),
            f.wrapping_add(c.f_run),
        ];
        Some((c.input_run(a, self.len), c.input_run(b, self.len), f))
    }
}

/// The valid filter rows `ky0..ky1` of an output row's windows, and `top`, the index in the
/// slice of pixel 0 of the input row of filter row `ky0` (wrapping: past the slice's end for
/// a skipped pixel).
#[derive(Clone, Copy)]
struct Rows {
    ky0: usize,
    ky1: usize,
    top: usize,
}

impl Rows {
    /// The rows of output row `out_y` of batch `batch` of the call's geometry `g`.
    #[inline(always)]
    fn of(g: &ConvGeometry, part: Part, batch: usize, out_y: usize) -> Self {
        let [_, input_h, input_w, _] = g.input;
        let in_y = origin(out_y, g.stride_h, g.pad_h);
        let (ky0, ky1) = dilated_taps(in_y, g.dilation_h, g.filter[1], input_h);
        // Wrapping: the portable loop's index arithmetic, modulo 2^N.
        let y = in_y.wrapping_add(g.dilation_h.wrapping_mul(ky0) as isize) as usize;
        let top = part.pixel((batch * input_h).wrapping_add(y).wrapping_mul(input_w));
        Rows { ky0, ky1, top }
    }
}

/// The elements of `s` from `start` on (none past its end).
#[inline(always)]
fn tail(s: &[i8], start: usize) -> &[i8] {
    s.get(start..).unwrap_or(&[])
}

/// The first `n` words of `s` (all of them if it is shorter).
#[inline(always)]
fn first(s: &[[i8; 4]], n: usize) -> &[[i8; 4]] {
    s.get(..n).unwrap_or(s)
}

/// `x + offset` of an int8 input value, as `i32`.
#[inline(always)]
fn shifted(x: i8, offset: i32) -> i32 {
    i32::from(x).wrapping_add(offset)
}

/// `acc` plus the sums `[a.fa, a.fb, b.fa, b.fb]` of input runs `a`, `b` (two pixels) against
/// filter runs `fa`, `fb` (two channels), each `sum(f * (x + offset))` over the runs' common
/// length (`off` is `offset` in both halfwords). Per four values: four loads, eight widenings,
/// eight `SMLAD`s (16 multiply-accumulates); the tail one value at a time.
#[inline(always)]
fn dot_2x2(
    a: &[i8],
    b: &[i8],
    fa: &[i8],
    fb: &[i8],
    off: u32,
    offset: i32,
    acc: [i32; 4],
) -> [i32; 4] {
    let (a4, b4) = (a.as_chunks::<4>().0, b.as_chunks::<4>().0);
    let (fa4, fb4) = (fa.as_chunks::<4>().0, fb.as_chunks::<4>().0);
    let n = a4.len().min(b4.len()).min(fa4.len()).min(fb4.len());
    // All four of length `n`: the compiler drops the checks of `get(k)` below.
    let (a4, b4, fa4, fb4) = (first(a4, n), first(b4, n), first(fa4, n), first(fb4, n));
    let [mut aa, mut ab, mut ba, mut bb] = if n == 0 {
        acc
    } else {
        Conv::words_2x2(a4, b4, fa4, fb4, off, acc)
    };
    let done = 4 * n;
    let tails = tail(a, done).iter().zip(tail(b, done));
    for ((&xa, &xb), (&wa, &wb)) in tails.zip(tail(fa, done).iter().zip(tail(fb, done))) {
        let (xa, xb, wa, wb) = (
            shifted(xa, offset),
            shifted(xb, offset),
            i32::from(wa),
            i32::from(wb),
        );
        aa = aa.wrapping_add(wa.wrapping_mul(xa));
        ab = ab.wrapping_add(wb.wrapping_mul(xa));
        ba = ba.wrapping_add(wa.wrapping_mul(xb));
        bb = bb.wrapping_add(wb.wrapping_mul(xb));
    }
    [aa, ab, ba, bb]
}

impl Conv<'_> {
    /// [`dot_2x2`]'s whole words (all four slices of one length). Not inlined: its loop has the
    /// registers to itself (an associated function: `Conv`'s name keeps it out of the kernel
    /// entries the instruction counter marks).
    #[inline(never)]
    fn words_2x2(
        a4: &[[i8; 4]],
        b4: &[[i8; 4]],
        fa4: &[[i8; 4]],
        fb4: &[[i8; 4]],
        off: u32,
        acc: [i32; 4],
    ) -> [i32; 4] {
        let n = a4.len().min(b4.len()).min(fa4.len()).min(fb4.len());
        let (a4, b4, fa4, fb4) = (first(a4, n), first(b4, n), first(fa4, n), first(fb4, n));
        let [mut aa, mut ab, mut ba, mut bb] = acc;
        for k in 0..n {
            let (Some(xa), Some(xb), Some(wa), Some(wb)) =
                (a4.get(k), b4.get(k), fa4.get(k), fb4.get(k))
            else {
                break;
            };
            // In this order (the instructions run as written): at most six widened words live.
            let wa = word(wa);
            let (w0, w1) = (sxtb16(wa), sxtb16_ror8(wa));
            let xa = word(xa);
            let (xa0, xa1) = (sxtab16(off, xa), sxtab16_ror8(off, xa));
            aa = smlad(xa0, w0, aa);
            aa = smlad(xa1, w1, aa);
            let xb = word(xb);
            let (xb0, xb1) = (sxtab16(off, xb), sxtab16_ror8(off, xb));
            ba = smlad(xb0, w0, ba);
            ba = smlad(xb1, w1, ba);
            let wb = word(wb);
            let (w0, w1) = (sxtb16(wb), sxtb16_ror8(wb));
            ab = smlad(xa0, w0, ab);
            ab = smlad(xa1, w1, ab);
            bb = smlad(xb0, w0, bb);
            bb = smlad(xb1, w1, bb);
        }
        [aa, ab, ba, bb]
    }
}

/// `acc` plus the sums `[x.fa, x.fb]` of one input run against two filter runs, as
/// [`dot_2x2`]: per four values three loads, six widenings, four `SMLAD`s.
#[inline(always)]
pub(super) fn dot_1x2(
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
    let (x4, fa4, fb4) = (first(x4, n), first(fa4, n), first(fb4, n));
    let [mut a0, mut a1] = acc;
    for k in 0..n {
        let (Some(x), Some(wa), Some(wb)) = (x4.get(k), fa4.get(k), fb4.get(k)) else {
            break;
        };
        let x = word(x);
        let (x0, x1) = (sxtab16(off, x), sxtab16_ror8(off, x));
        let wa = word(wa);
        a0 = smlad(x0, sxtb16(wa), a0);
        a0 = smlad(x1, sxtb16_ror8(wa), a0);
        let wb = word(wb);
        a1 = smlad(x0, sxtb16(wb), a1);
        a1 = smlad(x1, sxtb16_ror8(wb), a1);
    }
    let done = 4 * n;
    let tails = tail(x, done).iter().zip(tail(fa, done));
    for ((&x, &wa), &wb) in tails.zip(tail(fb, done)) {
        let (x, wa, wb) = (shifted(x, offset), i32::from(wa), i32::from(wb));
        a0 = a0.wrapping_add(wa.wrapping_mul(x));
        a1 = a1.wrapping_add(wb.wrapping_mul(x));
    }
    [a0, a1]
}

/// `acc` plus the sums `[a.f, b.f]` of two input runs against one filter run, as [`dot_2x2`]:
/// per four values three loads, six widenings, four `SMLAD`s.
#[inline(always)]
fn dot_2x1(a: &[i8], b: &[i8], f: &[i8], off: u32, offset: i32, acc: [i32; 2]) -> [i32; 2] {
    let (a4, b4, f4) = (
        a.as_chunks::<4>().0,
        b.as_chunks::<4>().0,
        f.as_chunks::<4>().0,
    );
    let n = a4.len().min(b4.len()).min(f4.len());
    let (a4, b4, f4) = (first(a4, n), first(b4, n), first(f4, n));
    let [mut aa, mut ba] = acc;
    for k in 0..n {
        let (Some(xa), Some(xb), Some(w)) = (a4.get(k), b4.get(k), f4.get(k)) else {
            break;
        };
        let w = word(w);
        let (w0, w1) = (sxtb16(w), sxtb16_ror8(w));
        let xa = word(xa);
        aa = smlad(sxtab16(off, xa), w0, aa);
        aa = smlad(sxtab16_ror8(off, xa), w1, aa);
        let xb = word(xb);
        ba = smlad(sxtab16(off, xb), w0, ba);
        ba = smlad(sxtab16_ror8(off, xb), w1, ba);
    }
    let done = 4 * n;
    let tails = tail(a, done).iter().zip(tail(b, done));
    for ((&xa, &xb), &w) in tails.zip(tail(f, done)) {
        let (xa, xb, w) = (shifted(xa, offset), shifted(xb, offset), i32::from(w));
        aa = aa.wrapping_add(w.wrapping_mul(xa));
        ba = ba.wrapping_add(w.wrapping_mul(xb));
    }
    [aa, ba]
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use super::*;
    use crate::kernels::conv::conv2d_s8_portable;
    use crate::kernels::shared::Requant;
    use crate::kernels::shared::{ConvGeometry, inside};

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
        fn pick<T: Copy>(&mut self, items: &[T]) -> T {
            items[self.below(items.len())]
        }
        /// int8 values, a quarter of them at the extremes.
        fn values(&mut self, n: usize) -> Vec<i8> {
            (0..n)
                .map(|_| {
                    let r = self.next();
                    match r % 8 {
                        0 => -128,
                        1 => 127,
                        _ => (r >> 8) as i8,
                    }
                })
                .collect()
        }
    }

    /// Up to 24 output channels' multipliers: the models' form (right shifts of 1 to 11).
    use crate::kernels::shared::testing::{REQUANT, fails_in_debug};

    /// Multipliers outside the right form in every third channel (shifts 1 and 0, the largest
    /// multiplier, a negative one, 0): the general requantisation.
    static REQUANT_GENERAL: [Requant; 24] = {
        let mut r = REQUANT;
        let mut i = 1;
        while i < 24 {
            r[i] = match i % 5 {
                0 => Requant {
                    multiplier: 1 << 30,
                    shift: 1,
                },
                1 => Requant {
                    multiplier: (1 << 30) + 777,
                    shift: 0,
                },
                2 => Requant {
                    multiplier: i32::MAX,
                    shift: -31,
                },
                3 => Requant {
                    multiplier: -(1 << 30),
                    shift: -3,
                },
                _ => Requant {
                    multiplier: 0,
                    shift: 0,
                },
            };
            i += 3;
        }
        r
    };

    /// Right shifts of 2 and more only: the shortest requantisation.
    static REQUANT_TWO: [Requant; 24] = {
        let mut r = REQUANT;
        let mut i = 0;
        while i < 24 {
            r[i].shift = -2 - (i as i32 % 9);
            i += 1;
        }
        r
    };

    /// One geometry: `[N, H, W, C]`, `O` filters of `kh x kw`, strides, dilations, and the
    /// padding (`None`: TFLite's SAME, `Some(p)`: `p` on both sides, `Some(0)` being VALID).
    #[allow(clippy::too_many_arguments)]
    fn geometry(
        [n, h, w, c]: [usize; 4],
        o: usize,
        [kh, kw]: [usize; 2],
        [sh, sw]: [usize; 2],
        [dh, dw]: [usize; 2],
        pad: Option<usize>,
    ) -> Option<ConvGeometry> {
        // TFLM's output size and padding per dimension.
        let dim = |size: usize, k: usize, s: usize, d: usize| -> Option<(usize, usize)> {
            let extent = (k - 1) * d + 1;
            match pad {
                None => {
                    let out = size.div_ceil(s);
                    let total = ((out - 1) * s + extent).saturating_sub(size);
                    Some((out, total / 2))
                }
                Some(p) => {
                    let padded = size + 2 * p;
                    (padded >= extent).then(|| ((padded - extent) / s + 1, p))
                }
            }
        };
        let (oh, ph) = dim(h, kh, sh, dh)?;
        let (ow, pw) = dim(w, kw, sw, dw)?;
        Some(ConvGeometry {
            input: [n, h, w, c],
            filter: [o, kh, kw, c],
            output: [n, oh, ow, o],
            stride_h: sh,
            stride_w: sw,
            dilation_h: dh,
            dilation_w: dw,
            pad_h: ph,
            pad_w: pw,
            depth_multiplier: 1,
        })
    }

    fn params(geometry: ConvGeometry, rng: &mut Rng) -> ConvS8 {
        let requant: &'static [Requant] = match rng.below(3) {
            0 => &REQUANT_GENERAL,
            1 => &REQUANT,
            _ => &REQUANT_TWO,
        };
        // The whole int8 range (no fused activation), RELU6-like, or RELU.
        let (act_min, act_max) = rng.pick(&[(-128, 127), (-128, 127), (-100, 90), (-5, 127)]);
        ConvS8 {
            geometry,
            input_offset: rng.pick(&[-127, 128, 0, 5, -3, 77, 32640, -32640]),
            output_offset: rng.below(41) as i32 - 20,
            requant,
            act_min,
            act_max,
        }
    }

    /// The blocked kernel's output of `p` on `part`, where it takes the geometry (the
    /// portable loop's where it declines, checked to write nothing).
    fn blocked(
        p: &ConvS8,
        part: Part,
        input: &[i8],
        filter: &[i8],
        bias: Option<&[i32]>,
        len: usize,
    ) -> (bool, Vec<i8>) {
        let mut out = vec![0x55_i8; len];
        let taken = conv_s8(p, part, input, filter, bias, &mut out);
        if !taken {
            assert!(out.iter().all(|&v| v == 0x55), "declined, yet wrote");
            conv2d_s8_portable(p, part, input, filter, bias, &mut out);
        }
        (taken, out)
    }

    fn portable(
        p: &ConvS8,
        part: Part,
        input: &[i8],
        filter: &[i8],
        bias: Option<&[i32]>,
        len: usize,
    ) -> Vec<i8> {
        let mut out = vec![0x55_i8; len];
        conv2d_s8_portable(p, part, input, filter, bias, &mut out);
        out
    }

    fn elements(shape: [usize; 4]) -> usize {
        shape.iter().product()
    }

    /// The overlapped driver's chunks of `g` (as `overlap`'s walk makes them), cut at random:
    /// per batch, runs of whole output rows (their input rows, the padding above moved to
    /// match, [`Part::WHOLE`]), and rows cut into runs of pixels (the input rows the row's
    /// windows reach, all columns, the run's first column and up to as many input pixels
    /// skipped as its first window leaves of its first row). Each: the chunk's geometry, part,
    /// input elements and output elements of the whole tensors.
    fn chunks(
        g: &ConvGeometry,
        rng: &mut Rng,
    ) -> Vec<(ConvGeometry, Part, [usize; 2], [usize; 2])> {
        let [n, h, w, c] = g.input;
        let [_, oh, ow, o] = g.output;
        let extent = (g.filter[1] - 1) * g.dilation_h + 1;
        let first_row = |y: usize| (y * g.stride_h).saturating_sub(g.pad_h).min(h);
        let end_row = |y: usize| (y * g.stride_h + extent).saturating_sub(g.pad_h).min(h);
        let first_column = |x: usize| (x * g.stride_w).saturating_sub(g.pad_w).min(w);
        let mut out = Vec::new();
        for b in 0..n {
            let mut y = 0;
            while y < oh {
                let rows = 1 + rng.below(oh - y);
                let (r0, r1) = (first_row(y), end_row(y + rows - 1));
                if r0 >= r1 {
                    // Windows of padding alone: no chunk can hold them.
                    y += rows;
                    continue;
                }
                let sub = ConvGeometry {
                    input: [1, r1 - r0, w, c],
                    output: [1, rows, ow, o],
                    pad_h: g.pad_h + r0 - y * g.stride_h,
                    ..*g
                };
                let at = (b * h + r0) * w * c;
                let input = [at, at + (r1 - r0) * w * c];
                let out_at = (b * oh + y) * ow * o;
                if rows > 1 || rng.below(2) == 0 {
                    let output = [out_at, out_at + rows * ow * o];
                    out.push((sub, Part::WHOLE, input, output));
                    y += rows;
                    continue;
                }
                // One row in runs of pixels.
                let mut x = 0;
                while x < ow {
                    let x1 = x + 1 + rng.below(ow - x);
                    let skip = rng.below(first_column(x) + 1);
                    let sub = ConvGeometry {
                        output: [1, 1, x1 - x, o],
                        ..sub
                    };
                    let part = Part { x0: x, skip };
                    let input = [input[0] + skip * c, input[1]];
                    let output = [out_at + x * o, out_at + x1 * o];
                    out.push((sub, part, input, output));
                    x = x1;
                }
                y += 1;
            }
        }
        out
    }

    /// What [`check`] ran: geometries whose filter rows are whole words and those with run
    /// tails, chunks of whole rows, runs of pixels, those with pixels skipped, and parts
    /// skipping pixels their windows read.
    #[derive(Default, Debug)]
    struct Seen {
        words: usize,
        tails: usize,
        rows: usize,
        pixels: usize,
        skipping: usize,
        overskipping: usize,
    }

    /// One geometry: the blocked kernel against the portable loop on the whole geometry and on
    /// every chunk of [`chunks`], each chunk's output also against the whole output's pixels;
    /// then on parts that skip input pixels their windows read (no driver gives them): both
    /// kernels fail in debug builds.
    fn check(g: ConvGeometry, rng: &mut Rng, seen: &mut Seen) {
        let p = params(g, rng);
        let input = rng.values(elements(g.input));
        let filter = rng.values(elements(g.filter));
        let bias: Vec<i32> = (0..g.filter[0])
            .map(|_| match rng.below(16) {
                0 => i32::MAX - rng.below(1000) as i32,
                1 => i32::MIN + rng.below(1000) as i32,
                _ => rng.below(40_001) as i32 - 20_000,
            })
            .collect();
        // Every fourth case without a bias.
        let bias = (rng.below(4) != 0).then_some(&bias[..]);
        let len = elements(g.output);
        let expected = portable(&p, Part::WHOLE, &input, &filter, bias, len);
        let (taken, whole) = blocked(&p, Part::WHOLE, &input, &filter, bias, len);
        assert!(taken, "{g:?}");
        assert_eq!(whole, expected, "{g:?} offset {}", p.input_offset);
        // A run is a filter row (one tap's channels when dilated).
        let run = if g.dilation_w == 1 {
            g.filter[2] * g.filter[3]
        } else {
            g.filter[3]
        };
        if run % 4 == 0 {
            seen.words += 1;
        } else {
            seen.tails += 1;
        }
        for (sub, part, [i0, i1], [o0, o1]) in chunks(&g, rng) {
            let q = ConvS8 { geometry: sub, ..p };
            let input = &input[i0..i1];
            let (taken, got) = blocked(&q, part, input, &filter, bias, o1 - o0);
            assert!(taken, "{sub:?} {part:?}");
            let slow = portable(&q, part, input, &filter, bias, o1 - o0);
            assert_eq!(got, slow, "{g:?}: chunk {sub:?} {part:?}");
            assert_eq!(got, expected[o0..o1], "{g:?}: chunk {sub:?} {part:?}");
            if part == Part::WHOLE {
                seen.rows += 1;
            } else {
                seen.pixels += 1;
                seen.skipping += usize::from(part.skip > 0);
                // Up to a row and a half more skipped (windows then lack runs), or up to the
                // second pixel's first column (a pair's first pixel lacks a run).
                let [_, rows, w, c] = sub.input;
                let second = ((part.x0 + 1) * g.stride_w).saturating_sub(g.pad_w);
                let skip = if rng.below(2) == 0 && second > part.skip {
                    second
                } else {
                    part.skip + 1 + rng.below(w + w / 2)
                };
                if skip <= rows * w && skip > (Part { skip: 0, ..part }).first_read(&sub) {
                    // A part no driver gives: its windows would read outside the slice, which
                    // both kernels refuse in debug builds.
                    let input = &input[(skip - part.skip) * c..];
                    let part = Part { skip, ..part };
                    assert!(
                        fails_in_debug(|| {
                            blocked(&q, part, input, &filter, bias, o1 - o0);
                        }),
                        "{g:?}: over-skipping {sub:?} {part:?}"
                    );
                    assert!(
                        fails_in_debug(|| {
                            portable(&q, part, input, &filter, bias, o1 - o0);
                        }),
                        "{g:?}: over-skipping {sub:?} {part:?}"
                    );
                    seen.overskipping += 1;
                }
            }
        }
    }

    #[test]
    fn blocked_equals_the_portable_kernel() {
        let mut rng = Rng(0x5eed_c0de);
        let cases = if cfg!(miri) { 5 } else { 800 };
        let mut seen = Seen::default();
        let mut drawn = 0;
        while drawn < cases {
            let depth = rng.pick(&[1, 2, 3, 4, 5, 8, 16, 17]);
            let out_depth = if cfg!(miri) {
                rng.pick(&[1, 2, 3, 5])
            } else {
                rng.pick(&[1, 2, 3, 4, 5, 8, 9, 24])
            };
            let k = rng.pick(&[[3, 3], [3, 3], [5, 5], [1, 3], [3, 1], [2, 2], [1, 1]]);
            let stride = rng.pick(&[[1, 1], [1, 1], [2, 2], [1, 2], [3, 2]]);
            let dilation = if rng.below(4) == 0 {
                rng.pick(&[[2, 2], [1, 2], [2, 1], [3, 2]])
            } else {
                [1, 1]
            };
            let pad = rng.pick(&[None, None, Some(0), Some(0), Some(1), Some(2)]);
            let n = rng.pick(&[1, 1, 2]);
            let (h, w) = if cfg!(miri) {
                (1 + rng.below(5), 1 + rng.below(5))
            } else {
                (1 + rng.below(9), 1 + rng.below(11))
            };
            let Some(g) = geometry([n, h, w, depth], out_depth, k, stride, dilation, pad) else {
                continue;
            };
            check(g, &mut rng, &mut seen);
            drawn += 1;
        }
        if !cfg!(miri) {
            let Seen {
                words,
                tails,
                rows,
                pixels,
                skipping,
                overskipping,
            } = seen;
            assert!(words > cases / 8 && tails > cases / 4, "{seen:?}");
            assert!(rows > cases && pixels > cases / 2, "{seen:?}");
            assert!(skipping > cases / 4 && overskipping > cases / 4, "{seen:?}");
        }
    }

    /// One-pixel-wide images (1-D convolutions, as TFLite lays them out) through the DSP
    /// entry, which runs them as rows ([`ConvGeometry::columns_as_rows`]): every output the
    /// portable loop's, over filter heights, strides, dilations, paddings and channel counts.
    #[test]
    fn columns_run_as_rows_and_equal_the_portable_kernel() {
        let mut rng = Rng(0xc01_0001);
        let cases = if cfg!(miri) { 3 } else { 400 };
        let mut drawn = 0;
        while drawn < cases {
            let depth = rng.pick(&[1, 3, 4, 8, 13, 48]);
            let out_depth = rng.pick(&[1, 2, 3, 8, 24]);
            let kh = rng.pick(&[1, 2, 3, 5]);
            let sh = rng.pick(&[1, 1, 2, 3]);
            let dh = rng.pick(&[1, 1, 2, 4, 8]);
            let pad = rng.pick(&[None, Some(0), Some(1)]);
            let h = 2 + rng.below(if cfg!(miri) { 6 } else { 40 });
            let n = rng.pick(&[1, 1, 2]);
            let Some(mut g) = geometry([n, h, 1, depth], out_depth, [kh, 1], [sh, 1], [dh, 1], pad)
            else {
                continue;
            };
            // Explicit padding of the rows only (the helper pads both dimensions alike).
            (g.pad_w, g.output[2]) = (0, 1);
            if g.output[1] < 2 {
                continue;
            }
            let rows = g.columns_as_rows().expect("a column geometry");
            assert_eq!((rows.input[1], rows.output[1]), (1, 1), "{g:?}");
            let p = params(g, &mut rng);
            let input = rng.values(elements(g.input));
            let filter = rng.values(elements(g.filter));
            let bias: Vec<i32> = (0..out_depth)
                .map(|_| rng.below(40_001) as i32 - 20_000)
                .collect();
            let bias = (rng.below(4) != 0).then_some(&bias[..]);
            let len = elements(g.output);
            let expected = portable(&p, Part::WHOLE, &input, &filter, bias, len);
            let mut got = vec![0x55_i8; len];
            let taken =
                super::super::conv2d_s8_part(&p, Part::WHOLE, &input, &filter, bias, &mut got);
            assert!(taken, "{g:?}");
            assert_eq!(got, expected, "{g:?} offset {}", p.input_offset);
            drawn += 1;
        }
    }

    #[test]
    fn the_layers_shapes_equal_the_portable_kernel() {
        let mut rng = Rng(0x1a7e_0002);
        // (input H, W, C; output channels; filter; stride; SAME): the first layers (one to
        // three input channels, stride 2), 3 x 3 and 5 x 5 inside a network, odd widths.
        type Case = ([usize; 3], usize, usize, usize, bool);
        let cases: &[Case] = if cfg!(miri) {
            &[([5, 5, 3], 8, 3, 2, true), ([4, 5, 8], 3, 3, 1, true)]
        } else {
            &[
                ([16, 16, 1], 8, 3, 2, true),
                ([15, 17, 3], 16, 3, 2, true),
                ([12, 12, 2], 8, 3, 2, false),
                ([9, 11, 8], 16, 3, 1, true),
                ([8, 8, 16], 24, 3, 1, true),
                ([7, 9, 16], 8, 3, 1, false),
                ([9, 9, 4], 8, 5, 1, true),
                ([11, 7, 5], 3, 5, 2, false),
                ([6, 13, 17], 9, 3, 2, true),
            ]
        };
        // Three rounds of random values (one under miri).
        let rounds = if cfg!(miri) { 1 } else { 3 };
        for &([h, w, c], o, k, s, same) in cases.iter().cycle().take(rounds * cases.len()) {
            let pad = if same { None } else { Some(0) };
            let g = geometry([1, h, w, c], o, [k, k], [s, s], [1, 1], pad).expect("a geometry");
            check(g, &mut rng, &mut Seen::default());
        }
    }

    #[test]
    fn edge_values_equal_the_portable_kernel() {
        let mut rng = Rng(0xed9e_0003);
        let input = if cfg!(miri) {
            [1, 3, 4, 5]
        } else {
            [2, 5, 7, 5]
        };
        let g = geometry(input, 5, [3, 3], [1, 1], [1, 1], None).expect("a geometry");
        let len = elements(g.output);
        let rounds = if cfg!(miri) { 2 } else { 48 };
        for round in 0..rounds {
            // Inputs and weights at the extremes (or one of them constant).
            let extreme = |rng: &mut Rng, n: usize, kind: usize| -> Vec<i8> {
                (0..n)
                    .map(|_| match kind {
                        0 => -128,
                        1 => 127,
                        _ => rng.pick(&[-128, 127]),
                    })
                    .collect()
            };
            let input = extreme(&mut rng, elements(g.input), round % 3);
            let filter = extreme(&mut rng, elements(g.filter), round / 3 % 3);
            let bias: Vec<i32> = (0..5)
                .map(|_| rng.pick(&[i32::MAX, i32::MIN, 0, -1, 1 << 30]))
                .collect();
            let p = ConvS8 {
                input_offset: rng.pick(&[-127, 128, 32640, -32640]),
                output_offset: rng.pick(&[-128, 127, 0]),
                act_min: rng.pick(&[-128, 0, 127]),
                act_max: 127,
                ..params(g, &mut rng)
            };
            let expected = portable(&p, Part::WHOLE, &input, &filter, Some(&bias), len);
            let (taken, got) = blocked(&p, Part::WHOLE, &input, &filter, Some(&bias), len);
            assert!(taken);
            assert_eq!(got, expected, "{:?}", (p.input_offset, round));
        }
    }

    #[test]
    fn other_geometries_are_declined() {
        let mut rng = Rng(0xdec1_0004);
        let g = geometry([1, 4, 4, 4], 4, [3, 3], [1, 1], [1, 1], None).expect("a geometry");
        let (input, filter) = ([1_i8; 64], [1_i8; 144]);
        let decline = |p: ConvS8, filter: &[i8]| {
            let mut out = [3_i8; 64];
            assert!(!conv_s8(&p, Part::WHOLE, &input, filter, None, &mut out));
            assert_eq!(out, [3; 64]);
        };
        let p = params(g, &mut rng);
        // Grouped (two groups of two input channels).
        let grouped = ConvGeometry {
            filter: [4, 3, 3, 2],
            ..g
        };
        decline(
            ConvS8 {
                geometry: grouped,
                ..p
            },
            &filter[..72],
        );
        // An input offset no int8 zero point gives.
        decline(
            ConvS8 {
                input_offset: 32641,
                ..p
            },
            &filter,
        );
        // A zero stride or dilation, a zero dimension.
        for geometry in [
            ConvGeometry { stride_w: 0, ..g },
            ConvGeometry { dilation_h: 0, ..g },
            ConvGeometry {
                output: [1, 4, 0, 4],
                ..g
            },
        ] {
            decline(ConvS8 { geometry, ..p }, &filter);
        }
        // A slice shorter than the geometry: taken, nothing written (as the portable loop).
        let mut out = [3_i8; 64];
        assert!(conv_s8(
            &p,
            Part::WHOLE,
            &input[..63],
            &filter,
            None,
            &mut out
        ));
        assert_eq!(out, [3; 64]);
    }

    #[test]
    fn dilated_taps_are_those_inside() {
        let (origins, sizes) = if cfg!(miri) {
            (-4..4, 1..4)
        } else {
            (-12..12, 1..9)
        };
        for origin in origins {
            for size in sizes.clone() {
                for dilation in 1..4 {
                    for taps in 1..6 {
                        let (start, end) = dilated_taps(origin, dilation, taps, size);
                        let inside: Vec<usize> = (0..taps)
                            .filter(|&k| inside(origin, dilation, k, size).is_some())
                            .collect();
                        let got: Vec<usize> = (start..end).collect();
                        assert_eq!(got, inside, "{:?}", (origin, dilation, taps, size));
                    }
                }
            }
        }
    }
}
