//! int8 CONV_2D with one group whose windows hold at most [`MOST`] values, blocked for the
//! Cortex-M DSP extension (cfg `stowplan_dsp`): each pair of consecutive output pixels of a
//! call (in memory order, across rows) has its two windows gathered from the input and widened
//! once, `input + input_offset` as halfwords, into a buffer on the stack; every pair of output
//! channels then runs over it in blocks of 2 pixels x 2 channels ([`smlad_2x2_groups`]: per
//! four window values two filter loads, four widenings of the filter with `SXTB16`, four loads
//! of the widened pair, eight `SMLAD`s). In form 6 with every channel's constants in the folded
//! epilogue's range ([`Epilogue::pairs`]) the channel pairs run in one `asm!` block, their
//! outputs requantised in it ([`smlad_2x2_requant`]): all but a last pair whose filter reads
//! would pass the filter's end, which runs as the others do otherwise. An odd last channel
//! runs 2 x 1, a lone last pixel 1 x 2. The gathered kernel ([`super::gathered`]) runs its
//! widened windows through the same blocks ([`pair`], [`single`]).
//!
//! The window kernel ([`super::window`]) widens every input value again for each pair of
//! output channels; here each pixel pair's window is widened once and read by every channel.
//! Any filter size, stride, dilation and padding, any part the in-place driver gives
//! ([`Part`]), any channel counts.
//!
//! The buffer holds per four window values (a group, in the filter's order: rows, taps,
//! channels) four words: the first pixel's values 0 and 2 (`SXTAB16`), its values 1 and 3
//! (`SXTAB16` of the word rotated by 8), then the second pixel's two: the lanes `SXTB16` makes
//! of a filter word, so that one `SMLAD` multiplies matching values. A window whose size is not
//! a multiple of four ends in a part group, whose lanes past the window are 0: a channel's
//! filter read on into the next channel's values adds nothing there, so a channel pair's sums
//! run as whole groups, but for the pair whose second filter ends the filter, whose part group
//! takes a filter word of its values and zeros.
//!
//! Every output is TFLM's value: a tap in the padding, and a run of input the call's slice does
//! not hold (which the portable loop leaves out too: a pixel a part skips, never one its windows
//! read), is widened as 0, so its products are 0; every other term is the portable loop's
//! `filter * (input + input_offset)`, summed in another order modulo 2^32 as TFLM's
//! accumulator wraps; then [`Epilogue`]'s requantisation. `input + input_offset` is exact in a
//! halfword for the input offsets the window kernel takes (`-32640..=32640`).
//!
//! Order of writes: output pixels in memory order, both pixels of a pair (all their channels)
//! once both windows are gathered. A call's input and output are disjoint slices; the
//! in-place driver's order holds between its calls ([`crate::kernels::shared::in_place`]).

use core::ops::Range;

use crate::dsp::{
    Pairs, smlad, smlad_2x2_groups, smlad_2x2_requant, splat16, sxtab16, sxtab16_ror8, sxtb16,
    sxtb16_ror8,
};
use crate::kernels::conv::kernel::{SLAB, window_takes};
use crate::kernels::shared::blocked::{Epilogue, first, word4};
use crate::kernels::shared::in_place::{elements, fits, inside_buffer};
use crate::kernels::shared::{ConvGeometry, ConvS8, Part, inside, origin, sized, sized_mut};

use super::Tensors;

/// Groups of the buffer: whole groups and a part one.
const GROUPS: usize = SLAB / 4 + 1;

/// Output channels a pass over a larger window's slabs sums (their sums, 2 pixels x `BLOCK`
/// channels, on the stack: 512 bytes); the slabs are gathered again for each such block.
const BLOCK: usize = 64;

/// int8 CONV_2D with one group and any other geometry the window kernels take
/// ([`window_takes`]), on any `part` of it: writes every output (of the call's geometry) as
/// [`conv2d_s8_portable`](crate::kernels::conv::conv2d_s8_portable) does, in the order of the
/// [module docs](self).
///
/// Returns `false`, having written nothing, for a geometry [`window_takes`] declines (the
/// caller runs the portable kernel then); `true` without writing if a slice is shorter than
/// the geometry says (as the portable loop does).
///
/// Never inlined: its buffer is on the stack only while it runs.
#[inline(never)]
pub(crate) fn conv_s8<const K: u8>(
    p: &ConvS8,
    part: Part,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> bool {
    apart::<K>(p, part, input, filter, bias, output, None)
}

/// [`conv_s8`] of a whole geometry with each pixel pair's windows in `scratch` (the words
/// [`conv2d_s8_scratch`](crate::kernels::conv::kernel::conv2d_s8_scratch) gives, planned in
/// the arena), whole however many values they hold: no slabs, and no buffer on the stack.
/// Scratch too short for the windows sums them in slabs. Returns as [`conv_s8`].
#[inline(never)]
pub(crate) fn conv_scratch_s8<const K: u8>(
    p: &ConvS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
    scratch: &mut [u32],
) -> bool {
    apart::<K>(p, Part::WHOLE, input, filter, bias, output, Some(scratch))
}

/// [`conv_s8`] and [`conv_scratch_s8`] on two slices: the windows in a stack buffer (`scratch`
/// `None`) or in `scratch`.
#[inline(always)]
fn apart<const K: u8>(
    p: &ConvS8,
    part: Part,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
    scratch: Option<&mut [u32]>,
) -> bool {
    let g = &p.geometry;
    let [batches, _, _, depth] = g.input;
    let [out_depth, filter_h, filter_w, _] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    if !window_takes(g, p.input_offset) {
        return false;
    }
    let (Some(input), Some(filter), Some(output)) = (
        part.input(input, g),
        sized(filter, &[out_depth, filter_h, filter_w, depth]),
        sized_mut(output, &[batches, output_h, output_w, out_depth]),
    ) else {
        return true;
    };
    // The filter holds every window value of every channel: no product overflows.
    // The form kernel constant `K` names, or the one found now.
    let (e, form) = Epilogue::for_kernel::<K>(p, bias, out_depth);
    let w = Widen {
        c: Conv::new(p, filter),
        part,
        window: filter_h * filter_w * depth,
        pairs: e.pairs(filter, filter_h * filter_w * depth, out_depth),
        input: (0, input.len()),
        output_at: 0,
    };
    let t = &mut Tensors::Apart(input, output);
    match scratch {
        Some(scratch) => w.run_in(&e, form, t, scratch),
        None => w.run(&e, form, t),
    }
    true
}

/// [`conv_s8`] of a whole geometry on one buffer (the input's elements at `buf[input_at..]`,
/// the output's at `buf[output_at..]`), without the in-place driver: in [`Widen::pixels`]'
/// order each pixel pair's windows are gathered before any of its outputs is written, so at
/// any placement [`fits`] takes (the two apart, or the input at least
/// [`min_displacement`](crate::kernels::overlap::min_displacement) `D` above the output) no
/// value is written before its last read: a pair `(u, u + 1)`'s outputs end at `o(u + 1)`,
/// at most `D` past `r(u + 1)`, the lowest input element pixel `u + 1` or a later one reads
/// (the [`overlap` docs](crate::kernels::overlap)). A window of more than [`SLAB`] values
/// gathers its slabs again for each block of [`BLOCK`] output channels, after the block
/// before it has written its outputs: such a layer runs here only with one block, or with
/// `scratch` that holds its whole windows ([`conv_scratch_s8`]). Returns `false`, having
/// written nothing, for a layer or a placement it does not take (the caller runs the driver
/// then).
pub(crate) fn window_on_one_buffer_s8<const K: u8>(
    p: &ConvS8,
    buf: &mut [i8],
    (input_at, output_at): (usize, usize),
    filter: &[i8],
    bias: Option<&[i32]>,
    scratch: Option<&mut [u32]>,
) -> bool {
    if !window_takes(&p.geometry, p.input_offset) || !fits(&p.geometry, input_at, output_at) {
        return false;
    }
    // A 1-D convolution as its rows (the same elements, the same order), as for two buffers.
    let rows;
    let p = match p.geometry.columns_as_rows() {
        Some(geometry) => {
            rows = ConvS8 { geometry, ..*p };
            &rows
        }
        None => p,
    };
    let g = &p.geometry;
    let [_, _, _, depth] = g.input;
    let [out_depth, filter_h, filter_w, _] = g.filter;
    let window = filter_h * filter_w * depth;
    let (Some(in_len), Some(out_len), Some(filter)) = (
        elements(&g.input),
        elements(&g.output),
        sized(filter, &[out_depth, filter_h, filter_w, depth]),
    ) else {
        return false;
    };
    let whole = scratch
        .as_ref()
        .is_some_and(|s| s.len() / 4 > window.div_ceil(4));
    if !inside_buffer(buf.len(), input_at, in_len, output_at, out_len)
        || (window > SLAB && out_depth > BLOCK && !whole)
    {
        return false;
    }
    let (e, form) = Epilogue::for_kernel::<K>(p, bias, out_depth);
    let w = Widen {
        c: Conv::new(p, filter),
        part: Part::WHOLE,
        window,
        pairs: e.pairs(filter, window, out_depth),
        input: (input_at, in_len),
        output_at,
    };
    let t = &mut Tensors::One(buf);
    match scratch {
        Some(scratch) => w.run_in(&e, form, t, scratch),
        None => w.run(&e, form, t),
    }
    true
}

/// What every block of one call shares: the geometry, the filter (sized by [`conv_s8`]) and
/// the input offset.
#[derive(Clone, Copy)]
struct Conv<'a> {
    geometry: &'a ConvGeometry,
    filter: &'a [i8],
    offset: i32,
}

impl<'a> Conv<'a> {
    /// The call of `p` with `filter`, sized to the geometry.
    #[inline(always)]
    fn new(p: &'a ConvS8, filter: &'a [i8]) -> Self {
        Conv {
            geometry: &p.geometry,
            filter,
            offset: p.input_offset,
        }
    }
}

/// The input run of `len` values at element `at` of `input` (`None` if it does not hold them
/// all, as the portable loop's `get`).
#[inline(always)]
fn run(input: &[i8], at: usize, len: usize) -> Option<&[i8]> {
    input.get(at..at.wrapping_add(len))
}

/// One call: the filter (sized), the part, the window's size in values, and where the input
/// (its first element and length) and the output lie in the call's [`Tensors`].
struct Widen<'a> {
    c: Conv<'a>,
    part: Part,
    window: usize,
    /// The channel pairs the folded epilogue runs ([`Epilogue::pairs`]), if they take it.
    pairs: Option<Pairs<'a>>,
    input: (usize, usize),
    output_at: usize,
}

/// A pixel pair's widened windows ([module docs](self)).
type Buffer = [[u32; 4]; GROUPS];

/// The output pixel `(batch, y, x)` after `at` in memory order, in an output of `h x w`
/// pixels per batch.
#[inline(always)]
pub(super) fn next(
    (batch, y, x): (usize, usize, usize),
    h: usize,
    w: usize,
) -> (usize, usize, usize) {
    if x + 1 < w {
        (batch, y, x + 1)
    } else if y + 1 < h {
        (batch, y + 1, 0)
    } else {
        (batch + 1, 0, 0)
    }
}

impl Widen<'_> {
    /// The call's pixels in form `form` of the epilogue.
    #[inline(always)]
    fn run(&self, e: &Epilogue<'_>, form: u8, t: &mut Tensors<'_>) {
        match form {
            6 => self.pixels::<6>(e, t),
            5 => self.pixels::<5>(e, t),
            _ => self.pixels::<0>(e, t),
        }
    }

    /// The call's output pixels and the elements of each: `(pixels, out_depth)`.
    #[inline(always)]
    fn outputs(&self) -> (usize, usize) {
        let [batches, output_h, output_w, out_depth] = self.c.geometry.output;
        let pixels = batches.saturating_mul(output_h).saturating_mul(output_w);
        (pixels, out_depth)
    }

    /// Every output pixel of the call in memory order, in pairs (a lone last one alone), in
    /// form `F` of the epilogue: each pair's windows gathered from the input, then its
    /// outputs written.
    #[inline(always)]
    fn pixels<const F: u8>(&self, e: &Epilogue<'_>, t: &mut Tensors<'_>) {
        if self.window > SLAB {
            self.slabs::<F>(e, t);
            return;
        }
        let mut buf: Buffer = [[0; 4]; GROUPS];
        self.whole::<F>(e, t, &mut buf);
    }

    /// The call's pixels in form `form` with the pixel pair's windows in `scratch` (the
    /// arena's): whole, however many values, where it holds them and their part group
    /// ([`conv2d_s8_scratch`](crate::kernels::conv::kernel::conv2d_s8_scratch)), else in
    /// slabs.
    #[inline(always)]
    fn run_in(&self, e: &Epilogue<'_>, form: u8, t: &mut Tensors<'_>, scratch: &mut [u32]) {
        let groups = scratch.as_chunks_mut::<4>().0;
        let Some(buf) = groups.get_mut(..self.window.div_ceil(4) + 1) else {
            match form {
                6 => self.slabs::<6>(e, t),
                5 => self.slabs::<5>(e, t),
                _ => self.slabs::<0>(e, t),
            }
            return;
        };
        // The part group's lanes past the window are 0 (the arena's bytes are not).
        buf.fill([0; 4]);
        match form {
            6 => self.whole::<6>(e, t, buf),
            5 => self.whole::<5>(e, t, buf),
            _ => self.whole::<0>(e, t, buf),
        }
    }

    /// [`Widen::pixels`] with every window whole in `buf` (at least its groups and a part
    /// group, whose lanes past the window are 0).
    #[inline(always)]
    fn whole<const F: u8>(&self, e: &Epilogue<'_>, t: &mut Tensors<'_>, buf: &mut [[u32; 4]]) {
        let [_, output_h, output_w, _] = self.c.geometry.output;
        let (pixels, out_depth) = self.outputs();
        let (i, n) = self.input;
        let two = 2 * out_depth;
        let mut at = (0, 0, 0);
        for q in 0..pixels / 2 {
            let b = next(at, output_h, output_w);
            let Some(x) = t.input(i, n) else {
                return;
            };
            self.gather(x, at, 0, buf, 0);
            self.gather(x, b, 2, buf, 0);
            let Some(y2) = t.output(self.output_at + q * two, two) else {
                return;
            };
            let (ya, yb) = y2.split_at_mut(out_depth);
            self.pair::<F>(e, buf, ya, yb);
            at = next(b, output_h, output_w);
        }
        if pixels % 2 == 1 {
            let Some(x) = t.input(i, n) else {
                return;
            };
            self.gather(x, at, 0, buf, 0);
            let Some(y) = t.output(self.output_at + (pixels - 1) * out_depth, out_depth) else {
                return;
            };
            self.single::<F>(e, buf, y);
        }
    }

    /// [`Widen::pixels`] for windows of more than [`SLAB`] values: per pixel pair (a lone last
    /// pixel as a pair with itself, one of its outputs written) and per block of [`BLOCK`]
    /// output channels, the windows' slabs gathered in turn, every slab's sums added to the
    /// block's, then the block's outputs. Not inlined: its sums are on the stack only while
    /// it runs.
    #[inline(never)]
    fn slabs<const F: u8>(&self, e: &Epilogue<'_>, t: &mut Tensors<'_>) {
        let [_, output_h, output_w, _] = self.c.geometry.output;
        let (pixels, out_depth) = self.outputs();
        let (i, n) = self.input;
        let mut buf: Buffer = [[0; 4]; GROUPS];
        let mut sums = [[0_i32; 4]; BLOCK / 2];
        let mut at = (0, 0, 0);
        for q in 0..pixels.div_ceil(2) {
            let lone = 2 * q + 1 == pixels;
            let b = if lone {
                at
            } else {
                next(at, output_h, output_w)
            };
            let m = if lone { out_depth } else { 2 * out_depth };
            for c0 in (0..out_depth).step_by(BLOCK) {
                let c1 = out_depth.min(c0 + BLOCK);
                let Some(x) = t.input(i, n) else {
                    return;
                };
                for k0 in (0..self.window).step_by(SLAB) {
                    self.gather(x, at, 0, &mut buf, k0);
                    self.gather(x, b, 2, &mut buf, k0);
                    self.slab(&buf, k0, c0..c1, &mut sums);
                }
                let Some(y2) = t.output(self.output_at + q * 2 * out_depth, m) else {
                    return;
                };
                let (ya, yb) = y2.split_at_mut(out_depth.min(m));
                for (j, c) in (c0..c1).enumerate() {
                    let s = sums.get(j / 2).copied().unwrap_or([0; 4]);
                    let (sa, sb) = if j % 2 == 0 {
                        (s[0], s[2])
                    } else {
                        (s[1], s[3])
                    };
                    let ch = e.channel::<F>(c);
                    if let Some(y) = ya.get_mut(c) {
                        *y = e.finish::<F>(sa, ch);
                    }
                    if let Some(y) = yb.get_mut(c) {
                        *y = e.finish::<F>(sb, ch);
                    }
                }
            }
            at = next(b, output_h, output_w);
        }
    }

    /// One slab (window values `k0..`, at most [`SLAB`], in `buf`) of a pixel pair against the
    /// filters of `channels`: each channel pair's four sums in `sums` (in order; an odd last
    /// channel's two in lanes 0 and 2), set from the first slab (`k0 == 0`), added to after.
    #[inline(never)]
    fn slab(&self, buf: &Buffer, k0: usize, channels: Range<usize>, sums: &mut [[i32; 4]]) {
        let len = SLAB.min(self.window.saturating_sub(k0));
        let (groups, rest) = (len / 4, len % 4);
        let (x, last) = (
            first(buf, groups),
            buf.get(groups).copied().unwrap_or([0; 4]),
        );
        let mut filters = self
            .c
            .filter
            .chunks_exact(self.window)
            .skip(channels.start)
            .take(channels.len())
            .map(|f| f.get(k0..k0 + len).unwrap_or(&[]));
        for s in sums.iter_mut() {
            let acc = if k0 == 0 { [0; 4] } else { *s };
            *s = match (filters.next(), filters.next()) {
                (Some(fa), Some(fb)) => sums_2x2((x, last, rest), fa, fb, acc),
                (Some(f), None) => {
                    let [aa, ba] = sums_2x1((x, last, rest), f);
                    [acc[0].wrapping_add(aa), 0, acc[2].wrapping_add(ba), 0]
                }
                _ => return,
            };
        }
    }

    /// Gathers and widens the window of the call's output pixel `(batch, y, x)` into the
    /// buffer's words `lane` and `lane + 1` of every group: rows, taps, channels as the filter
    /// holds them; a tap in the padding, or a run the slice does not hold, as 0. A window
    /// wholly inside the input, undilated, of one slab and rows of whole words (most pixels of
    /// most layers) takes [`Widen::gather_inside`], any other [`Widen::gather_any`].
    #[inline(always)]
    fn gather(
        &self,
        input: &[i8],
        pixel: (usize, usize, usize),
        lane: usize,
        buf: &mut [[u32; 4]],
        k0: usize,
    ) {
        if !(k0 == 0 && self.gather_inside(input, pixel, lane, buf)) {
            self.gather_any(input, pixel, lane, buf, k0);
        }
    }

    /// [`Widen::gather`] of a window wholly inside the input, undilated, of at most [`SLAB`]
    /// values in rows of whole words: each row one run of the input, its words widened
    /// straight into its groups. Returns `false` for any other window, or a row the slice does
    /// not hold (having widened the rows before it, which [`Widen::gather_any`] widens again).
    /// Not inlined: its loop has the registers to itself.
    #[inline(never)]
    fn gather_inside(
        &self,
        input: &[i8],
        (batch, y, x): (usize, usize, usize),
        lane: usize,
        buf: &mut [[u32; 4]],
    ) -> bool {
        let g = self.c.geometry;
        let [_, input_h, input_w, depth] = g.input;
        let [_, filter_h, filter_w, _] = g.filter;
        let row = filter_w * depth;
        let (y0, x0) = (
            origin(y, g.stride_h, g.pad_h),
            self.part.origin_x(x, g.stride_w, g.pad_w),
        );
        // The buffer holds the whole window and its part group (a stack buffer: windows of
        // at most `SLAB` values).
        if g.dilation_h != 1
            || g.dilation_w != 1
            || buf.len() < self.window.div_ceil(4) + 1
            || !row.is_multiple_of(4)
            || y0 < 0
            || x0 < 0
            || (y0 as usize).saturating_add(filter_h) > input_h
            || (x0 as usize).saturating_add(filter_w) > input_w
        {
            return false;
        }
        // Wrapping: the portable loop's index arithmetic, modulo 2^N.
        let first = self.part.pixel(
            batch
                .wrapping_mul(input_h)
                .wrapping_add(y0 as usize)
                .wrapping_mul(input_w)
                .wrapping_add(x0 as usize),
        );
        let stride = input_w.wrapping_mul(depth);
        for ky in 0..filter_h {
            let at = first
                .wrapping_mul(depth)
                .wrapping_add(ky.wrapping_mul(stride));
            let Some(run) = run(input, at, row) else {
                return false;
            };
            self.c.widen_words(buf, lane, ky * (row / 4), run);
        }
        true
    }

    /// [`Widen::gather`] of any window. Not inlined: one copy for every form and both pixels.
    #[inline(never)]
    fn gather_any(
        &self,
        input: &[i8],
        (batch, y, x): (usize, usize, usize),
        lane: usize,
        buf: &mut [[u32; 4]],
        k0: usize,
    ) {
        let c = &self.c;
        // Window values `k0..k1` go to the buffer's values `0..k1 - k0`: a slab of `SLAB`
        // values in a stack buffer, or the whole window in scratch (its part group past it).
        let k1 = k0.saturating_add(4 * buf.len().saturating_sub(1));
        let put = |buf: &mut [[u32; 4]], k: usize, run: Option<&[i8]>, len: usize| {
            let (lo, hi) = (k.max(k0), k.saturating_add(len).min(k1));
            if lo < hi {
                let run = run.and_then(|r| r.get(lo - k..hi - k));
                c.widen(buf, lane, lo - k0, run, hi - lo);
            }
        };
        let g = c.geometry;
        let [_, input_h, input_w, depth] = g.input;
        let [_, filter_h, filter_w, _] = g.filter;
        let row = filter_w * depth;
        let y0 = origin(y, g.stride_h, g.pad_h);
        let x0 = self.part.origin_x(x, g.stride_w, g.pad_w);
        // Whether every tap of a row is inside: one run of the input then (undilated).
        let whole_row = g.dilation_w == 1
            && x0 >= 0
            && (x0 as usize)
                .checked_add(filter_w)
                .is_some_and(|end| end <= input_w);
        let mut k = 0;
        for ky in 0..filter_h {
            if k >= k1 {
                break;
            }
            if k.saturating_add(row) <= k0 {
                k += row;
                continue;
            }
            let Some(iy) = inside(y0, g.dilation_h, ky, input_h) else {
                put(buf, k, None, row);
                k += row;
                continue;
            };
            // Wrapping: the portable loop's index arithmetic, modulo 2^N.
            let base = batch
                .wrapping_mul(input_h)
                .wrapping_add(iy)
                .wrapping_mul(input_w);
            if whole_row {
                let at = self.part.pixel(base.wrapping_add(x0 as usize));
                put(buf, k, run(input, at.wrapping_mul(depth), row), row);
            } else {
                for kx in 0..filter_w {
                    let run = inside(x0, g.dilation_w, kx, input_w).and_then(|ix| {
                        let at = self.part.pixel(base.wrapping_add(ix));
                        run(input, at.wrapping_mul(depth), depth)
                    });
                    put(buf, k + kx * depth, run, depth);
                }
            }
            k += row;
        }
    }

    /// A pixel pair (windows in `buf`, outputs `ya`, `yb`): [`pair`] of the call's filter.
    #[inline(always)]
    fn pair<const F: u8>(&self, e: &Epilogue<'_>, buf: &[[u32; 4]], ya: &mut [i8], yb: &mut [i8]) {
        pair::<F>(
            e,
            self.pairs.as_ref(),
            self.c.filter,
            self.window,
            buf,
            ya,
            yb,
        );
    }

    /// A lone pixel (its window in the buffer's first words, outputs `y`): [`single`] of the
    /// call's filter.
    #[inline(always)]
    fn single<const F: u8>(&self, e: &Epilogue<'_>, buf: &[[u32; 4]], y: &mut [i8]) {
        single::<F>(e, self.c.filter, self.window, buf, y);
    }
}

/// Input words widened into the groups' words `L` and `L + 1` (`L` 0 or 2), `x + offset` as
/// halfwords (`off` in both): per word one load, two widenings and a store of the pair.
#[inline(always)]
fn widen_row<const L: usize>(groups: &mut [[u32; 4]], run: &[[i8; 4]], off: u32) {
    for (group, w) in groups.iter_mut().zip(run) {
        let w = word4(w);
        if let Some(pair) = group.get_mut(L..L + 2) {
            pair.copy_from_slice(&[sxtab16(off, w), sxtab16_ror8(off, w)]);
        }
    }
}

impl Conv<'_> {
    /// Widens `run`'s whole words into the buffer's groups from `group` on, words `lane` and
    /// `lane + 1` (`lane` 0 or 2): [`widen_row`], one loop per pixel of the pair.
    #[inline(always)]
    fn widen_words(&self, buf: &mut [[u32; 4]], lane: usize, group: usize, run: &[i8]) {
        let off = splat16(self.offset);
        let groups = buf.get_mut(group..).unwrap_or(&mut []);
        let words = run.as_chunks::<4>().0;
        if lane == 0 {
            widen_row::<0>(groups, words, off);
        } else {
            widen_row::<2>(groups, words, off);
        }
    }

    /// Widens `run` (`len` input values, `None`: `len` zeros) into window values `k..k + len`
    /// of the buffer's words `lane` and `lane + 1`: a word (four values) at a time from a
    /// group's start, the others one by one.
    #[inline(always)]
    fn widen(&self, buf: &mut [[u32; 4]], lane: usize, k: usize, run: Option<&[i8]>, len: usize) {
        let aligned = k.is_multiple_of(4);
        match run {
            Some(run) if aligned => {
                let (words, rest) = run.as_chunks::<4>();
                self.widen_words(buf, lane, k / 4, run);
                let done = 4 * words.len();
                for (j, &v) in rest.iter().enumerate() {
                    set(
                        buf,
                        lane,
                        k + done + j,
                        i32::from(v).wrapping_add(self.offset),
                    );
                }
            }
            Some(run) => {
                for (j, &v) in run.iter().enumerate() {
                    set(buf, lane, k + j, i32::from(v).wrapping_add(self.offset));
                }
            }
            None if aligned => {
                let groups = buf.get_mut(k / 4..).unwrap_or(&mut []);
                for group in groups.iter_mut().take(len / 4) {
                    if let Some(words) = group.get_mut(lane..lane + 2) {
                        words.fill(0);
                    }
                }
                for j in 4 * (len / 4)..len {
                    set(buf, lane, k + j, 0);
                }
            }
            None => {
                for j in 0..len {
                    set(buf, lane, k + j, 0);
                }
            }
        }
    }
}

/// The outputs of a pixel pair whose windows (`window` values each, at most [`SLAB`]) are
/// widened in `buf` (the [module docs](self)' groups; every lane of the part group past the
/// window 0), against `filter` (each output channel's `window` values in turn), into `ya` and
/// `yb`: per output channel pair the 2 x 2 sums, then the four outputs, the pair's constants
/// read once; an odd last channel 2 x 1. In form 6 with `run` (the filter's channel pairs the
/// folded epilogue takes, [`Epilogue::pairs`]), its pairs run first in one block
/// ([`smlad_2x2_requant`]), the others as above.
///
/// With a part group (`window` not a multiple of 4) a channel pair's filters are read on to the
/// group's end, into the next channel's values, which the part group's zero lanes multiply by
/// 0: every pair's sums run as whole groups ([`smlad_2x2_groups`]) but a pair whose second
/// filter ends `filter` (its part group as a word of its values and zeros). Not inlined: one
/// copy for the window and gathered kernels, its loop with the registers to itself.
#[inline(never)]
pub(super) fn pair<const F: u8>(
    e: &Epilogue<'_>,
    run: Option<&Pairs<'_>>,
    filter: &[i8],
    window: usize,
    buf: &[[u32; 4]],
    ya: &mut [i8],
    yb: &mut [i8],
) {
    let (groups, rest) = (window / 4, window % 4);
    let padded = window.div_ceil(4);
    let whole = first(buf, padded);
    let x: Pair<'_> = (
        first(buf, groups),
        buf.get(groups).copied().unwrap_or([0; 4]),
        rest,
    );
    let (ya2, ya1) = ya.as_chunks_mut::<2>();
    let (yb2, yb1) = yb.as_chunks_mut::<2>();
    let pairs = ya2.len().min(yb2.len());
    let requant = e.requant.as_chunks::<2>().0;
    let bias = e.bias.map(|b| b.as_chunks::<2>().0);
    let two = window.saturating_mul(2);
    // In form 6 with every channel's constants in the folded epilogue's range, the channel
    // pairs whose filters' reads lie in `filter` run in one block, the rest below.
    let done = match run {
        Some(run) if F == 6 => smlad_2x2_requant(run, whole, ya2, yb2),
        _ => 0,
    };
    let rest = ya2.get_mut(done..).unwrap_or(&mut []).iter_mut();
    for (k, (ya, yb)) in (done..).zip(rest.zip(yb2.get_mut(done..).unwrap_or(&mut []))) {
        let at = k.saturating_mul(two);
        let read = window.saturating_add(4 * padded);
        let [aa, ab, ba, bb] = match filter.get(at..at.saturating_add(read)) {
            Some(f) => {
                let fb = f.get(window..).unwrap_or(&[]);
                smlad_2x2_groups(whole, f.as_chunks::<4>().0, fb.as_chunks::<4>().0, [0; 4])
            }
            None => {
                let f = filter.get(at..at.saturating_add(two)).unwrap_or(&[]);
                let (fa, fb) = f.split_at(window.min(f.len()));
                sums_2x2(x, fa, fb, [0; 4])
            }
        };
        let (c0, c1) = match (requant.get(k), bias.map(|b| b.get(k))) {
            (Some(&[r0, r1]), None) => (e.of::<F>(r0, 0), e.of::<F>(r1, 0)),
            (Some(&[r0, r1]), Some(Some(&[b0, b1]))) => (e.of::<F>(r0, b0), e.of::<F>(r1, b1)),
            _ => (e.channel::<F>(2 * k), e.channel::<F>(2 * k + 1)),
        };
        *ya = [e.finish::<F>(aa, c0), e.finish::<F>(ab, c1)];
        *yb = [e.finish::<F>(ba, c0), e.finish::<F>(bb, c1)];
    }
    // An odd last channel: its filter follows the pairs'.
    let f = filter
        .get(pairs.saturating_mul(two)..)
        .and_then(|f| f.get(..window))
        .unwrap_or(&[]);
    if let (Some(ya), Some(yb), false) = (ya1.first_mut(), yb1.first_mut(), f.is_empty()) {
        let [aa, ba] = sums_2x1(x, f);
        let c = e.channel::<F>(2 * pairs);
        *ya = e.finish::<F>(aa, c);
        *yb = e.finish::<F>(ba, c);
    }
}

/// The outputs of a lone pixel whose window (`window` values, at most [`SLAB`]) is widened in
/// the first two words of `buf`'s groups, against `filter` (each output channel's `window`
/// values in turn), into `y`: per output channel pair the 1 x 2 sums, an odd last channel
/// 1 x 1. Not inlined: its loop has the registers to itself.
#[inline(never)]
pub(super) fn single<const F: u8>(
    e: &Epilogue<'_>,
    filter: &[i8],
    window: usize,
    buf: &[[u32; 4]],
    y: &mut [i8],
) {
    let (groups, rest) = (window / 4, window % 4);
    let (x, last) = (
        first(buf, groups),
        buf.get(groups).copied().unwrap_or([0; 4]),
    );
    let tail = |f: &[i8], mut acc: i32| {
        for j in 0..rest {
            acc = acc.wrapping_add(at(f, 4 * groups + j).wrapping_mul(value(last, 0, j)));
        }
        acc
    };
    let (y2, y1) = y.as_chunks_mut::<2>();
    let mut channels = filter.chunks_exact(window);
    for (k, y) in y2.iter_mut().enumerate() {
        let (Some(fa), Some(fb)) = (channels.next(), channels.next()) else {
            return;
        };
        let [a0, a1] = words_1x2(x, fa.as_chunks::<4>().0, fb.as_chunks::<4>().0);
        let (c0, c1) = (e.channel::<F>(2 * k), e.channel::<F>(2 * k + 1));
        *y = [
            e.finish::<F>(tail(fa, a0), c0),
            e.finish::<F>(tail(fb, a1), c1),
        ];
    }
    if let (Some(y), Some(f)) = (y1.first_mut(), channels.next()) {
        let acc = tail(f, words_1x1(x, f.as_chunks::<4>().0));
        *y = e.finish::<F>(acc, e.channel::<F>(y2.len() * 2));
    }
}

/// Window value `j` of a buffer's words `lane`, `lane + 1` set to `v` (a halfword: the lanes
/// of the [module docs](self)).
#[inline(always)]
fn set(buf: &mut [[u32; 4]], lane: usize, j: usize, v: i32) {
    let (q, v) = (j % 4, v as u32 & 0xffff);
    if let Some(w) = buf.get_mut(j / 4).and_then(|g| g.get_mut(lane + (q & 1))) {
        *w = if q < 2 {
            (*w & 0xffff_0000) | v
        } else {
            (*w & 0xffff) | (v << 16)
        };
    }
}

/// Value `j` (0 to 3) of a group's pixel whose words begin at `lane`, as `i32`.
#[inline(always)]
fn value(group: [u32; 4], lane: usize, j: usize) -> i32 {
    let w = group.get(lane + (j & 1)).copied().unwrap_or(0) as i32;
    if j < 2 { (w << 16) >> 16 } else { w >> 16 }
}

/// Filter value `k` as `i32` (0 past the slice).
#[inline(always)]
fn at(f: &[i8], k: usize) -> i32 {
    f.get(k).map_or(0, |&v| i32::from(v))
}

/// A pixel pair's widened window in the buffer: its whole groups, its part group and how many
/// values that holds (0 to 3).
type Pair<'a> = (&'a [[u32; 4]], [u32; 4], usize);

/// `acc` plus the sums `[a.fa, a.fb, b.fa, b.fb]` of a pixel pair's widened window against two
/// channels' filters `fa`, `fb` (as many values): the whole groups by [`smlad_2x2_groups`] (one
/// loop in twelve registers on the device), the part group as one more, its filter words the
/// part's values and zeros (whatever the buffer's lanes past the window hold).
#[inline(always)]
fn sums_2x2((x, last, rest): Pair<'_>, fa: &[i8], fb: &[i8], acc: [i32; 4]) -> [i32; 4] {
    let [mut aa, mut ab, mut ba, mut bb] =
        smlad_2x2_groups(x, fa.as_chunks::<4>().0, fb.as_chunks::<4>().0, acc);
    if rest > 0 {
        let at = 4 * x.len();
        let (wa, wb) = (part_word(fa, at, rest), part_word(fb, at, rest));
        let (wa0, wa1, wb0, wb1) = (sxtb16(wa), sxtb16_ror8(wa), sxtb16(wb), sxtb16_ror8(wb));
        let [a0, a1, b0, b1] = last;
        aa = smlad(a1, wa1, smlad(a0, wa0, aa));
        ab = smlad(a1, wb1, smlad(a0, wb0, ab));
        ba = smlad(b1, wa1, smlad(b0, wa0, ba));
        bb = smlad(b1, wb1, smlad(b0, wb0, bb));
    }
    [aa, ab, ba, bb]
}

/// The word of `f`'s values `at..at + rest` (`rest` below 4: the word's last byte is always 0),
/// the others 0.
#[inline(always)]
fn part_word(f: &[i8], at: usize, rest: usize) -> u32 {
    let part = f.get(at..).unwrap_or(&[]);
    let value = |i: usize| match part.get(i) {
        Some(&v) if i < rest => v as u8,
        _ => 0,
    };
    u32::from_le_bytes([value(0), value(1), value(2), 0])
}

/// The sums `[a.f, b.f]` of a pixel pair's widened window against one channel's filter, as
/// [`sums_2x2`].
#[inline(always)]
fn sums_2x1((x, last, rest): Pair<'_>, f: &[i8]) -> [i32; 2] {
    let [mut aa, mut ba] = words_2x1(x, f.as_chunks::<4>().0);
    if rest > 0 {
        let w = part_word(f, 4 * x.len(), rest);
        let (w0, w1) = (sxtb16(w), sxtb16_ror8(w));
        let [a0, a1, b0, b1] = last;
        aa = smlad(a1, w1, smlad(a0, w0, aa));
        ba = smlad(b1, w1, smlad(b0, w0, ba));
    }
    [aa, ba]
}

/// The sums `[a.f, b.f]` of a pixel pair's widened groups against one channel's filter.
#[inline(always)]
fn words_2x1(x: &[[u32; 4]], f: &[[i8; 4]]) -> [i32; 2] {
    let n = x.len().min(f.len());
    let (x, f) = (first(x, n), first(f, n));
    let [mut aa, mut ba] = [0_i32; 2];
    for k in 0..n {
        let (Some(&[a0, a1, b0, b1]), Some(w)) = (x.get(k), f.get(k)) else {
            break;
        };
        let w = word4(w);
        let (w0, w1) = (sxtb16(w), sxtb16_ror8(w));
        aa = smlad(a0, w0, aa);
        aa = smlad(a1, w1, aa);
        ba = smlad(b0, w0, ba);
        ba = smlad(b1, w1, ba);
    }
    [aa, ba]
}

/// The sums `[a.fa, a.fb]` of a lone pixel (the groups' first two words) against two channels'
/// filters over their common length.
#[inline(always)]
fn words_1x2(x: &[[u32; 4]], fa: &[[i8; 4]], fb: &[[i8; 4]]) -> [i32; 2] {
    let n = x.len().min(fa.len()).min(fb.len());
    let (x, fa, fb) = (first(x, n), first(fa, n), first(fb, n));
    let [mut a0, mut a1] = [0_i32; 2];
    for k in 0..n {
        let (Some(&[x0, x1, _, _]), Some(wa), Some(wb)) = (x.get(k), fa.get(k), fb.get(k)) else {
            break;
        };
        let (wa, wb) = (word4(wa), word4(wb));
        a0 = smlad(x0, sxtb16(wa), a0);
        a0 = smlad(x1, sxtb16_ror8(wa), a0);
        a1 = smlad(x0, sxtb16(wb), a1);
        a1 = smlad(x1, sxtb16_ror8(wb), a1);
    }
    [a0, a1]
}

/// The sum `a.f` of a lone pixel against one channel's filter over their common length.
#[inline(always)]
fn words_1x1(x: &[[u32; 4]], f: &[[i8; 4]]) -> i32 {
    let mut acc = 0_i32;
    for (&[x0, x1, _, _], w) in x.iter().zip(f) {
        let w = word4(w);
        acc = smlad(x0, sxtb16(w), acc);
        acc = smlad(x1, sxtb16_ror8(w), acc);
    }
    acc
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use super::*;
    use crate::kernels::conv::conv2d_s8_portable;
    use crate::kernels::shared::ConvGeometry;
    use crate::kernels::shared::Requant;

    /// The models' form of multipliers (right shifts of 1 to 11), one per channel.
    use crate::kernels::shared::testing::{
        REQUANT, REQUANT_DEEP, Rng, TABLE, driver_chunks, fails_in_debug, padded,
    };

    /// Multipliers outside the right form in every third channel (shifts 1 and 0, the largest
    /// multiplier, a negative one, 0): the general requantisation.
    static REQUANT_GENERAL: [Requant; TABLE] = {
        let mut r = REQUANT;
        let mut i = 1;
        while i < TABLE {
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
    static REQUANT_TWO: [Requant; TABLE] = {
        let mut r = REQUANT;
        let mut i = 0;
        while i < TABLE {
            r[i].shift = -2 - (i as i32 % 9);
            i += 1;
        }
        r
    };

    /// 80 output channels' multipliers whose right shifts (8 to 14) leave most outputs of
    /// windows of 9 to 1,200 values unclamped: every channel of a layer of more than 24, in
    /// the folded epilogue's range.
    static REQUANT_WIDE: [Requant; 80] = {
        let mut r = [Requant {
            multiplier: 0,
            shift: 0,
        }; 80];
        let mut i = 0;
        while i < 80 {
            r[i] = Requant {
                multiplier: (1 << 30) + (i as i32) * 7_000_001,
                shift: -8 - (i as i32 % 7),
            };
            i += 1;
        }
        r
    };

    fn params(geometry: ConvGeometry, rng: &mut Rng) -> ConvS8 {
        let requant: &'static [Requant] = match rng.below(4) {
            0 => &REQUANT_GENERAL,
            // More channels than the other tables hold: each its own multiplier.
            _ if geometry.filter[0] > 24 => &REQUANT_WIDE,
            1 => &REQUANT,
            // Right shifts past 23 in some channels: form 6 without the folded epilogue.
            2 => &REQUANT_DEEP,
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

    /// The kernel's entry (or the DSP entry that runs it).
    type Kernel = fn(&ConvS8, Part, &[i8], &[i8], Option<&[i32]>, &mut [i8]) -> bool;

    /// The blocked kernel's output of `p` on `part`, where it takes the geometry (the
    /// portable loop's where it declines, checked to write nothing).
    fn blocked(
        kernel: Kernel,
        p: &ConvS8,
        part: Part,
        input: &[i8],
        filter: &[i8],
        bias: Option<&[i32]>,
        len: usize,
    ) -> (bool, Vec<i8>) {
        let mut out = vec![0x55_i8; len];
        let taken = kernel(p, part, input, filter, bias, &mut out);
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

    /// What [`check`] ran: geometries whose filter rows are whole words and those with run
    /// tails, chunks of whole rows, runs of pixels, those with pixels skipped, and parts
    /// skipping pixels their windows read.
    #[derive(Default, Debug)]
    struct Seen {
        /// Windows of more than [`SLAB`] values (summed in slabs).
        slabs: usize,
        words: usize,
        tails: usize,
        rows: usize,
        pixels: usize,
        skipping: usize,
        overskipping: usize,
    }

    /// One geometry: the blocked kernel against the portable loop on the whole geometry and on
    /// every chunk of [`driver_chunks`], each chunk's output also against the whole output's pixels;
    /// then on parts that skip input pixels their windows read (no driver gives them): both
    /// kernels fail in debug builds.
    fn check(kernel: Kernel, g: ConvGeometry, rng: &mut Rng, seen: &mut Seen) {
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
        let (taken, whole) = blocked(kernel, &p, Part::WHOLE, &input, &filter, bias, len);
        assert!(taken, "{g:?}");
        assert_eq!(whole, expected, "{g:?} offset {}", p.input_offset);
        // A run is a filter row (one tap's channels when dilated).
        let run = if g.dilation_w == 1 {
            g.filter[2] * g.filter[3]
        } else {
            g.filter[3]
        };
        seen.slabs += usize::from(g.filter[1] * g.filter[2] * g.filter[3] > SLAB);
        if run % 4 == 0 {
            seen.words += 1;
        } else {
            seen.tails += 1;
        }
        for (sub, part, [i0, i1], [o0, o1]) in driver_chunks(&g, rng) {
            let q = ConvS8 { geometry: sub, ..p };
            let input = &input[i0..i1];
            let (taken, got) = blocked(kernel, &q, part, input, &filter, bias, o1 - o0);
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
                            blocked(kernel, &q, part, input, &filter, bias, o1 - o0);
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

    /// `cases` random geometries through `kernel` ([`check`]: whole, in the driver's chunks,
    /// over-skipping parts): input channel counts from `depths`, filters of 1 x 1 to 5 x 5,
    /// strides, dilations, paddings, batches, output channel counts from `outs`; with the tally
    /// of what ran asserted.
    fn sweep(kernel: Kernel, seed: u32, depths: &[usize], outs: &[usize]) -> usize {
        let mut rng = Rng(seed);
        let cases = if cfg!(miri) { 5 } else { 800 };
        let mut seen = Seen::default();
        let mut drawn = 0;
        while drawn < cases {
            let depth = rng.pick(depths);
            let out_depth = if cfg!(miri) {
                rng.pick(&[1, 2, 3, 5])
            } else {
                rng.pick(outs)
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
            let Some(g) = padded([n, h, w, depth], out_depth, k, stride, dilation, pad) else {
                continue;
            };
            check(kernel, g, &mut rng, &mut seen);
            drawn += 1;
        }
        if !cfg!(miri) {
            let Seen {
                slabs,
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
            return slabs;
        }
        cases
    }

    #[test]
    fn blocked_equals_the_portable_kernel() {
        let outs = [1, 2, 3, 4, 5, 8, 9, 24];
        sweep(
            conv_s8::<0>,
            0x5eed_c0de,
            &[1, 2, 3, 4, 5, 8, 16, 17],
            &outs,
        );
    }

    /// Windows of more than [`SLAB`] values (in slabs, their sums kept per block of [`BLOCK`]
    /// output channels): 3 x 3 and 5 x 5 over up to 64 input channels, up to 70 outputs (two
    /// blocks).
    #[test]
    fn slabs_equal_the_portable_kernel() {
        let outs = [1, 2, 3, 8, 24, 63, 64, 65, 70];
        let slabs = sweep(
            conv_s8::<0>,
            0x5eed_c0e0,
            &[12, 21, 31, 32, 33, 45, 64],
            &outs,
        );
        // Off miri, whose few small cases are not tallied.
        assert!(cfg!(miri) || slabs > 250, "{slabs} windows in slabs");
    }

    /// [`conv_scratch_s8`] of a whole geometry: its windows whole in scratch of the words
    /// [`conv2d_s8_scratch`](crate::kernels::conv::kernel::conv2d_s8_scratch) gives (the
    /// arena's, its words not zeroed), or in slabs where the scratch is short.
    fn in_scratch(
        p: &ConvS8,
        part: Part,
        input: &[i8],
        filter: &[i8],
        bias: Option<&[i32]>,
        output: &mut [i8],
    ) -> bool {
        use crate::kernels::conv::kernel::{WINDOW, conv2d_s8_scratch};
        if part != Part::WHOLE {
            return conv_s8::<0>(p, part, input, filter, bias, output);
        }
        let words = conv2d_s8_scratch(WINDOW, &p.geometry);
        let mut scratch = std::vec![0x5555_5555_u32; words];
        conv_scratch_s8::<0>(p, input, filter, bias, output, &mut scratch)
    }

    /// The windows of more than [`SLAB`] values whole in scratch ([`conv_scratch_s8`]) against
    /// the portable kernel: the slabs' sweep (3 x 3 and 5 x 5 over up to 64 input channels, up
    /// to 70 outputs).
    #[test]
    fn windows_in_scratch_equal_the_portable_kernel() {
        let outs = [1, 2, 3, 8, 24, 63, 64, 65, 70];
        let large = sweep(
            in_scratch,
            0x5eed_c0e1,
            &[12, 21, 31, 32, 33, 45, 64],
            &outs,
        );
        assert!(cfg!(miri) || large > 250, "{large} windows in scratch");
    }

    /// The kernel's own walk of one buffer ([`window_on_one_buffer_s8`]) against the portable
    /// kernel on two: random geometries (windows in slabs, 1-D columns, strides, dilations,
    /// paddings, batches), the input at the least displacement above the output, a little
    /// more, apart below and above, and one element short of the least (declined, nothing
    /// written); a window in slabs with more than one block of output channels is declined
    /// too, and the walk takes exactly the others.
    #[test]
    fn on_one_buffer_equals_two_buffers() {
        use crate::kernels::conv::kernel::{WINDOW, window_takes};
        use crate::kernels::overlap::min_displacement;
        let mut rng = Rng(0x0b0f_0003);
        let cases = if cfg!(miri) { 5 } else { 1000 };
        let (mut ran, mut slabs, mut columns, mut drawn) = ([0_usize; 4], 0, 0, 0);
        let (mut unclamped, mut outputs) = (0, 0);
        while drawn < cases {
            let depth = rng.pick(&[1, 3, 4, 8, 16, 17, 32, 48]);
            let out_depth = rng.pick(&[1, 2, 3, 8, 16, 24, 64, 65]);
            let k = rng.pick(&[[3, 3], [3, 3], [5, 5], [1, 3], [3, 1], [1, 1]]);
            let stride = rng.pick(&[[1, 1], [1, 1], [2, 2], [1, 2]]);
            let dilation = if rng.below(4) == 0 { [2, 2] } else { [1, 1] };
            let pad = rng.pick(&[None, Some(0), Some(1)]);
            let n = rng.pick(&[1, 1, 2]);
            let (h, w) = if cfg!(miri) {
                (1 + rng.below(4), 1 + rng.below(4))
            } else {
                let w = 1 + rng.below(9);
                (1 + rng.below(8), rng.pick(&[1, w, w]))
            };
            let Some(mut g) = padded([n, h, w, depth], out_depth, k, stride, dilation, pad) else {
                continue;
            };
            if w == 1 {
                // A 1-D convolution: its columns run as rows.
                (g.pad_w, g.output[2], g.filter[2], g.stride_w, g.dilation_w) = (0, 1, 1, 1, 1);
            }
            let Some(least) = min_displacement(&g) else {
                continue;
            };
            let how = drawn % 5;
            if how == 4 && least == 0 {
                continue;
            }
            // Every channel its own multiplier, most outputs unclamped: a value read after it
            // was overwritten shows.
            let p = ConvS8 {
                requant: &REQUANT_WIDE,
                input_offset: rng.pick(&[-127, 128, 0, 5, -3]),
                ..params(g, &mut rng)
            };
            let input = rng.values(elements(g.input));
            let filter = rng.values(elements(g.filter));
            let bias: Vec<i32> = (0..out_depth)
                .map(|_| rng.below(40_001) as i32 - 20_000)
                .collect();
            let bias = (rng.below(4) != 0).then_some(&bias[..]);
            let (in_len, out_len) = (elements(g.input), elements(g.output));
            let expected = portable(&p, Part::WHOLE, &input, &filter, bias, out_len);
            let (input_at, output_at) = match how {
                0 => (least, 0),
                1 => (least + 1 + rng.below(9), 0),
                2 => (0, in_len + rng.below(5)),
                3 => (out_len + rng.below(5), 0),
                _ => (least - 1, 0),
            };
            let len = (input_at + in_len).max(output_at + out_len);
            let mut buf = vec![0x55_i8; len];
            buf[input_at..input_at + in_len].copy_from_slice(&input);
            let before = buf.clone();
            let window = g.filter[1] * g.filter[2] * depth;
            // Every other case with the windows in scratch (the arena's words, not zeroed).
            let words = crate::kernels::conv::kernel::conv2d_s8_scratch(WINDOW, &g);
            let mut words = vec![0x5555_5555_u32; words];
            let scratch = (drawn % 2 == 1 && window > SLAB).then_some(&mut words[..]);
            let whole = scratch.is_some();
            let done = window_on_one_buffer_s8::<WINDOW>(
                &p,
                &mut buf,
                (input_at, output_at),
                &filter,
                bias,
                scratch,
            );
            let takes = window_takes(&g, p.input_offset)
                && how != 4
                && (window <= SLAB || out_depth <= BLOCK || whole);
            assert_eq!(done, takes, "{g:?} at {input_at}, {output_at}");
            if done {
                ran[how] += 1;
                let free = expected
                    .iter()
                    .filter(|&&v| (p.act_min + 1..p.act_max).contains(&i32::from(v)))
                    .count();
                (unclamped, outputs) = (unclamped + free, outputs + out_len);
                slabs += usize::from(window > SLAB);
                columns += usize::from(w == 1);
                assert_eq!(
                    buf[output_at..output_at + out_len],
                    expected[..],
                    "{g:?} at {input_at}, {output_at}"
                );
            } else {
                assert_eq!(buf, before, "{g:?} at {input_at}, {output_at}");
            }
            drawn += 1;
        }
        assert!(
            cfg!(miri)
                || (ran.iter().all(|&r| r > 100)
                    && slabs > 40
                    && columns > 40
                    && unclamped * 2 > outputs),
            "{ran:?}, {slabs} in slabs, {columns} 1-D, {unclamped} of {outputs} outputs unclamped"
        );
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
            let Some(mut g) = padded([n, h, 1, depth], out_depth, [kh, 1], [sh, 1], [dh, 1], pad)
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
            let taken = super::super::conv2d_s8_part::<{ crate::kernels::conv::kernel::ANY }>(
                &p,
                Part::WHOLE,
                &input,
                &filter,
                bias,
                &mut got,
            );
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
            let g = padded([1, h, w, c], o, [k, k], [s, s], [1, 1], pad).expect("a geometry");
            check(conv_s8::<0>, g, &mut rng, &mut Seen::default());
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
        let g = padded(input, 5, [3, 3], [1, 1], [1, 1], None).expect("a geometry");
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
            for kernel in [
                conv_s8::<0> as Kernel,
                super::super::conv2d_s8_part::<{ crate::kernels::conv::kernel::ANY }>,
            ] {
                let (taken, got) =
                    blocked(kernel, &p, Part::WHOLE, &input, &filter, Some(&bias), len);
                assert!(taken);
                assert_eq!(got, expected, "{:?}", (p.input_offset, round));
            }
        }
    }

    #[test]
    fn other_geometries_are_declined() {
        let mut rng = Rng(0xdec1_0004);
        let g = padded([1, 4, 4, 4], 4, [3, 3], [1, 1], [1, 1], None).expect("a geometry");
        let (input, filter) = ([1_i8; 64], [1_i8; 144]);
        let decline = |p: ConvS8, filter: &[i8]| {
            let mut out = [3_i8; 64];
            assert!(!conv_s8::<0>(
                &p,
                Part::WHOLE,
                &input,
                filter,
                None,
                &mut out
            ));
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
        assert!(conv_s8::<0>(
            &p,
            Part::WHOLE,
            &input[..63],
            &filter,
            None,
            &mut out
        ));
        assert_eq!(out, [3; 64]);
    }
}
