//! CONV_2D and DEPTHWISE_CONV_2D writing their output over the input they are reading: one
//! buffer holds both, the input `d` elements above the output's start.
//!
//! # The order kept
//!
//! [`overlapped`] runs the op in *chunks* of consecutive units, in order: a unit is one
//! output row (batch, y) in general, or one output pixel when the op is pointwise (a 1 x 1
//! filter, stride 1, no padding, output as large as the input: a matrix product over pixels).
//! Each chunk is run by the op's own kernel (the portable one, or on Armv7E-M the DSP one) on
//! two disjoint slices of the buffer, split at the lowest input element any unit from the
//! chunk's first on still reads (its *read base*, `r(u)`: the start of the first input row
//! its window reaches, or its pixel): below the split, the chunk's output elements; above it,
//! the input rows the chunk reads, as a smaller image with the padding moved to match (so the
//! kernel computes exactly the elements it computes on the whole image). A chunk grows while
//! its last output element stays below `d + r(first unit)` (a chunk of pixels stops one short
//! of an odd length, unless it is one pixel or ends the tensor), so what it writes lies over
//! input no later unit reads: every input element is read, for the last time, before anything
//! is written over it, whatever the kernels do inside a chunk.
//!
//! # The displacement
//!
//! With `o(u)` one past unit `u`'s last output element, a chunk can always start at `u` when
//! `o(u) ≤ d + r(u)`, so the driver runs every unit exactly when `d ≥ D` with
//! `D = max_u (o(u) − r(u))` ([`min_displacement`], in elements). At `d = D − 1` it stops at
//! the unit attaining the maximum and returns `false`. Every `d ≥ D` runs (a larger `d` only
//! makes chunks longer), and so does every layout where the two do not share an element.
//!
//! [`min_displacement`] is a `const fn`, so generated code proves at compile time that its
//! planned offsets satisfy it.

use super::conv::{ConvF32, ConvGeometry, ConvS8, ConvS16};

/// The op as [`overlapped`] walks it: its units and the elements they touch.
#[derive(Clone, Copy)]
struct Walk {
    /// Pointwise: each unit is one pixel (`rows` pixels of `1 x 1`), not one output row.
    pointwise: bool,
    /// Units in all: pixels (pointwise) or batches × output rows.
    units: usize,
    /// Output rows per batch (pointwise: the number of pixels).
    out_rows: usize,
    /// Input rows per batch (pointwise: pixels).
    in_rows: usize,
    /// Elements per input row (pointwise: a pixel's channels).
    in_row: usize,
    /// Elements per output row (pointwise: a pixel's channels).
    out_row: usize,
    stride: usize,
    pad: usize,
    /// Input rows a window spans, `(FH − 1) × dilation + 1`.
    extent: usize,
}

/// `a * b`, `None` on overflow (a `const` helper).
const fn mul(a: usize, b: usize) -> Option<usize> {
    a.checked_mul(b)
}

/// `a + b`, `None` on overflow (a `const` helper).
const fn add(a: usize, b: usize) -> Option<usize> {
    a.checked_add(b)
}

/// `Some` of `v`'s value or an early `return None`, in a `const fn`.
macro_rules! get {
    ($v:expr) => {
        match $v {
            Some(v) => v,
            None => return None,
        }
    };
}

impl Walk {
    /// The walk of `g`, or `None` if its sizes overflow or a dimension is zero, or some output
    /// row's window reaches no input row (all padding: no overlap is planned then).
    const fn of(g: &ConvGeometry) -> Option<Self> {
        let [n, h, w, c] = g.input;
        let [on, oh, ow, oc] = g.output;
        let fh = g.filter[1];
        if n == 0 || h == 0 || w == 0 || c == 0 || oh == 0 || ow == 0 || oc == 0 || on != n {
            return None;
        }
        if g.stride_h == 0 || g.dilation_h == 0 || fh == 0 {
            return None;
        }
        let pointwise = fh == 1
            && g.filter[2] == 1
            && g.stride_h == 1
            && g.stride_w == 1
            && g.pad_h == 0
            && g.pad_w == 0
            && oh == h
            && ow == w;
        let walk = if pointwise {
            let pixels = get!(mul(get!(mul(n, h)), w));
            Self {
                pointwise,
                units: pixels,
                out_rows: pixels,
                in_rows: pixels,
                in_row: c,
                out_row: oc,
                stride: 1,
                pad: 0,
                extent: 1,
            }
        } else {
            Self {
                pointwise,
                units: get!(mul(n, oh)),
                out_rows: oh,
                in_rows: h,
                in_row: get!(mul(w, c)),
                out_row: get!(mul(ow, oc)),
                stride: g.stride_h,
                pad: g.pad_h,
                extent: get!(add(get!(mul(fh - 1, g.dilation_h)), 1)),
            }
        };
        // Every size the walk computes fits: the whole input and output, the last window.
        let batches = if pointwise { 1 } else { n };
        let _ = get!(mul(get!(mul(batches, walk.in_rows)), walk.in_row));
        let _ = get!(mul(walk.units, walk.out_row));
        let _ = get!(add(
            get!(add(get!(mul(walk.out_rows, walk.stride)), walk.extent)),
            walk.pad
        ));
        // The first and last output rows' windows must reach an input row (so must every
        // other: the windows move down with the rows).
        if walk.extent <= walk.pad || walk.first_row(walk.out_rows - 1) >= walk.in_rows {
            return None;
        }
        Some(walk)
    }

    /// The first input row of batch-local output row `y`'s window that lies in the input.
    const fn first_row(&self, y: usize) -> usize {
        let top = (y * self.stride).saturating_sub(self.pad);
        if top < self.in_rows {
            top
        } else {
            self.in_rows
        }
    }

    /// One past the last input row that batch-local output rows up to `y` read.
    const fn end_row(&self, y: usize) -> usize {
        let end = (y * self.stride + self.extent).saturating_sub(self.pad);
        if end < self.in_rows {
            end
        } else {
            self.in_rows
        }
    }

    /// Unit `u`'s batch and batch-local row.
    const fn split(&self, u: usize) -> (usize, usize) {
        (u / self.out_rows, u % self.out_rows)
    }

    /// `r(u)`: the first input element unit `u` reads.
    const fn read_base(&self, u: usize) -> usize {
        let (b, y) = self.split(u);
        (b * self.in_rows + self.first_row(y)) * self.in_row
    }

    /// `o(u)`: one past unit `u`'s last output element.
    const fn out_end(&self, u: usize) -> usize {
        (u + 1) * self.out_row
    }
}

/// `D`, the least `offset(input) − offset(output)` (in elements) from which [`overlapped`] runs
/// `g` with its output over its input: `max_u (o(u) − r(u))` (see the [module docs](self)).
/// `None` if the geometry's sizes overflow, a dimension is zero, or an output row's window
/// reaches only padding.
///
/// Constant time: `o(u) − r(u)` is linear in the batch, and in the row on each side of the
/// first row whose window starts inside the input (`r` is 0 above it), so its maximum is at one
/// of the ends of those pieces.
#[must_use]
pub const fn min_displacement(g: &ConvGeometry) -> Option<usize> {
    let walk = get!(Walk::of(g));
    let batches = walk.units / walk.out_rows;
    // The first row whose window's top lies at or below input row 0.
    let inside = walk.pad.div_ceil(walk.stride);
    let rows = [0, inside.saturating_sub(1), inside, walk.out_rows - 1];
    let mut least = 0;
    let mut b = 0;
    while b < 2 {
        let batch = if b == 0 { 0 } else { batches - 1 };
        let mut k = 0;
        while k < rows.len() {
            let y = if rows[k] < walk.out_rows {
                rows[k]
            } else {
                walk.out_rows - 1
            };
            let u = batch * walk.out_rows + y;
            let need = walk.out_end(u).saturating_sub(walk.read_base(u));
            if need > least {
                least = need;
            }
            k += 1;
        }
        b += 1;
    }
    Some(least)
}

/// Runs a CONV_2D or DEPTHWISE_CONV_2D of geometry `g` on one buffer: the input's `N*H*W*C`
/// elements at `buf[input_at..]`, the output's `N*OH*OW*O` at `buf[output_at..]`, in the order
/// of the [module docs](self). `kernel(sub, input, output)` is the op's kernel on a chunk:
/// `sub` is `g` for the chunk's rows (or pixels), `input` its input rows and `output` its
/// output elements, disjoint slices of `buf`; it is called for the chunks in order.
///
/// Returns `true` when every chunk ran: the two do not share an element, or the input starts
/// at least [`min_displacement`] elements above the output. Returns `false` without calling
/// `kernel` when a tensor does not fit in `buf` or the geometry has no walk, and `false` after
/// the chunks before it when a unit cannot run (the input too close above the output, or
/// below it and overlapping).
pub fn overlapped<T>(
    g: &ConvGeometry,
    buf: &mut [T],
    input_at: usize,
    output_at: usize,
    mut kernel: impl FnMut(&ConvGeometry, &[T], &mut [T]),
) -> bool {
    let Some(walk) = Walk::of(g) else {
        return false;
    };
    let batches = if walk.pointwise { 1 } else { g.input[0] };
    let in_len = batches * walk.in_rows * walk.in_row;
    let out_len = walk.units * walk.out_row;
    let (Some(in_end), Some(out_end)) =
        (input_at.checked_add(in_len), output_at.checked_add(out_len))
    else {
        return false;
    };
    if in_end > buf.len() || out_end > buf.len() {
        return false;
    }
    if in_end <= output_at {
        // The input wholly below the output: one run.
        let (lo, hi) = buf.split_at_mut(output_at);
        kernel(g, &lo[input_at..], &mut hi[..out_len]);
        return true;
    }
    let Some(d) = input_at.checked_sub(output_at) else {
        // The input starts below the output and reaches into it: writing the output in
        // order would overwrite input still to be read.
        return false;
    };
    let mut u = 0;
    while u < walk.units {
        let base = walk.read_base(u);
        // Output elements below `limit` lie over input no unit from `u` on reads.
        let limit = d + base;
        if walk.out_end(u) > limit {
            return false;
        }
        let (b, y0) = walk.split(u);
        let mut v = u + 1;
        while v < walk.units && walk.split(v).0 == b && walk.out_end(v) <= limit {
            v += 1;
        }
        if walk.pointwise && v - u > 1 && (v - u) % 2 == 1 && v < walk.units {
            // An even number of pixels where it can: the DSP 1 x 1 kernel takes them in
            // pairs, and an odd last pixel goes channel by channel.
            v -= 1;
        }
        let y1 = y0 + (v - u);
        let (r0, r1) = (walk.first_row(y0), walk.end_row(y1 - 1));
        let sub = if walk.pointwise {
            ConvGeometry {
                input: [1, 1, v - u, g.input[3]],
                output: [1, 1, v - u, g.output[3]],
                ..*g
            }
        } else {
            ConvGeometry {
                input: [1, r1 - r0, g.input[2], g.input[3]],
                output: [1, v - u, g.output[2], g.output[3]],
                // The rows above the chunk's first input row are not in its image: the padding
                // left above it is what the first output row's window still reaches above row 0.
                pad_h: walk.pad + r0 - y0 * walk.stride,
                ..*g
            }
        };
        let (lo, hi) = buf.split_at_mut(input_at + base);
        let output = &mut lo[output_at + u * walk.out_row..output_at + v * walk.out_row];
        let input = &hi[..(r1 - r0) * walk.in_row];
        kernel(&sub, input, output);
        u = v;
    }
    true
}

/// Whether [`overlapped`] runs `g` with the input at `input_at` and the output at `output_at`
/// (elements) of one buffer: the two share no element, or the input starts at least
/// [`min_displacement`] above the output. Generated code asserts it at compile time for the
/// offsets it was planned with.
#[must_use]
pub const fn fits(g: &ConvGeometry, input_at: usize, output_at: usize) -> bool {
    let (Some(i), Some(o)) = (elements(&g.input), elements(&g.output)) else {
        return false;
    };
    let (Some(in_end), Some(out_end)) = (input_at.checked_add(i), output_at.checked_add(o)) else {
        return false;
    };
    if in_end <= output_at || out_end <= input_at {
        return Walk::of(g).is_some();
    }
    match (min_displacement(g), input_at.checked_sub(output_at)) {
        (Some(least), Some(d)) => d >= least,
        _ => false,
    }
}

/// The element count of a shape, `None` on overflow.
const fn elements(shape: &[usize; 4]) -> Option<usize> {
    mul(get!(mul(shape[0], shape[1])), get!(mul(shape[2], shape[3])))
}

/// One buffer's entry point for each CONV_2D and DEPTHWISE_CONV_2D kernel: [`overlapped`] with
/// the kernel on each chunk (`$kernel`: the int8 ones inlined, so that an op is one call of a
/// kernel function, as the instruction counter's per-op table takes it), its parameters'
/// geometry the chunk's. Never inlined itself, for the same reason.
macro_rules! on_one_buffer {
    ($($(#[$doc:meta])* $name:ident => $kernel:path, ($params:ident, $t:ty, $filter:ty, $bias:ty);)*) => {$(
        $(#[$doc])*
        ///
        /// The input's elements at `buf[input_at..]`, the output's at `buf[output_at..]`; returns
        /// what [`overlapped`] returns.
        #[inline(never)]
        pub fn $name(
            p: &$params,
            buf: &mut [$t],
            input_at: usize,
            output_at: usize,
            filter: &[$filter],
            bias: Option<&[$bias]>,
        ) -> bool {
            overlapped(&p.geometry, buf, input_at, output_at, |g, input, output| {
                let p = $params { geometry: *g, ..*p };
                $kernel(&p, input, filter, bias, output);
            })
        }
    )*};
}

on_one_buffer! {
    /// [`super::conv2d_s8`] on one buffer.
    conv2d_s8 => super::conv::conv2d_s8_inlined, (ConvS8, i8, i8, i32);
    /// [`super::conv2d_s8_i4`] on one buffer.
    conv2d_s8_i4 => super::conv2d_s8_i4, (ConvS8, i8, u8, i32);
    /// [`super::conv2d_s16`] on one buffer.
    conv2d_s16 => super::conv2d_s16, (ConvS16, i16, i8, i64);
    /// [`super::conv2d_s16_acc32`] on one buffer.
    conv2d_s16_acc32 => super::conv2d_s16_acc32, (ConvS16, i16, i8, i32);
    /// [`super::conv2d_f32`] on one buffer.
    conv2d_f32 => super::conv2d_f32, (ConvF32, f32, f32, f32);
    /// [`super::depthwise_conv2d_s8`] on one buffer.
    depthwise_conv2d_s8 => super::depthwise_conv::depthwise_conv2d_s8_inlined, (ConvS8, i8, i8, i32);
    /// [`super::depthwise_conv2d_s8_i4`] on one buffer.
    depthwise_conv2d_s8_i4 => super::depthwise_conv2d_s8_i4, (ConvS8, i8, u8, i32);
    /// [`super::depthwise_conv2d_s16`] on one buffer.
    depthwise_conv2d_s16 => super::depthwise_conv2d_s16, (ConvS16, i16, i8, i64);
    /// [`super::depthwise_conv2d_f32`] on one buffer.
    depthwise_conv2d_f32 => super::depthwise_conv2d_f32, (ConvF32, f32, f32, f32);
}

#[cfg(test)]
mod tests {
    use super::super::conv::{ConvS8, conv2d_s8_portable};
    use super::super::depthwise_conv::depthwise_conv2d_s8_portable;
    use super::super::{ConvF32, conv2d_f32};
    use super::*;
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Cases per test: fewer under miri.
    const CASES: usize = if cfg!(miri) { 12 } else { 600 };

    /// Output size and TFLM's padding of one dimension (`same`: SAME, else VALID).
    fn dimension(
        size: usize,
        filter: usize,
        stride: usize,
        dilation: usize,
        same: bool,
    ) -> Option<(usize, usize)> {
        let extent = (filter - 1) * dilation + 1;
        let out = if same {
            size.div_ceil(stride)
        } else {
            (size.checked_sub(extent)? / stride) + 1
        };
        let pad = ((out - 1) * stride + extent).saturating_sub(size) / 2;
        Some((out, pad))
    }

    /// A random CONV_2D (`depthwise == false`) or DEPTHWISE_CONV_2D geometry: pointwise ones
    /// a quarter of the time.
    fn random_geometry(rng: &mut Rng, depthwise: bool) -> ConvGeometry {
        loop {
            let n = 1 + rng.below(2);
            let (h, w, c) = (1 + rng.below(9), 1 + rng.below(8), 1 + rng.below(5));
            let pointwise = rng.below(4) == 0;
            let (fh, fw) = if pointwise {
                (1, 1)
            } else {
                (1 + rng.below(3), 1 + rng.below(3))
            };
            let (sh, sw) = if pointwise {
                (1, 1)
            } else {
                (1 + rng.below(2), 1 + rng.below(2))
            };
            let (dh, dw) = if pointwise {
                (1, 1)
            } else {
                (1 + rng.below(2), 1 + rng.below(2))
            };
            let same = !pointwise && rng.below(2) == 0;
            let (Some((oh, ph)), Some((ow, pw))) = (
                dimension(h, fh, sh, dh, same),
                dimension(w, fw, sw, dw, same),
            ) else {
                continue;
            };
            let multiplier = 1 + rng.below(3);
            let (oc, filter) = if depthwise {
                (c * multiplier, [1, fh, fw, c * multiplier])
            } else {
                let oc = 1 + rng.below(6);
                (oc, [oc, fh, fw, c])
            };
            return ConvGeometry {
                input: [n, h, w, c],
                filter,
                output: [n, oh, ow, oc],
                stride_h: sh,
                stride_w: sw,
                dilation_h: dh,
                dilation_w: dw,
                pad_h: ph,
                pad_w: pw,
                depth_multiplier: if depthwise { multiplier } else { 1 },
            };
        }
    }

    fn elements(shape: [usize; 4]) -> usize {
        shape.iter().product()
    }

    /// The displacements to try: `D`, just above, a random one below the output's end, and
    /// one past it (disjoint).
    fn displacements(rng: &mut Rng, least: usize, output: usize) -> [usize; 4] {
        [least, least + 1, least + rng.below(output + 1), output + 1]
    }

    /// The constant-time maximum is the maximum over every unit.
    #[test]
    fn min_displacement_is_the_most_any_unit_needs() {
        let mut rng = Rng(0x0d15_7ace);
        for case in 0..CASES * 4 {
            let g = random_geometry(&mut rng, case % 2 == 1);
            let walk = Walk::of(&g).unwrap();
            let every = (0..walk.units)
                .map(|u| walk.out_end(u).saturating_sub(walk.read_base(u)))
                .max();
            assert_eq!(min_displacement(&g), every, "{g:?}");
        }
    }

    #[test]
    fn displacements_of_the_person_detect_shapes() {
        let g = |input, filter: [usize; 2], output: [usize; 4], stride, pad| ConvGeometry {
            input,
            filter: [output[3], filter[0], filter[1], 1],
            output,
            stride_h: stride,
            stride_w: stride,
            dilation_h: 1,
            dilation_w: 1,
            pad_h: pad,
            pad_w: pad,
            depth_multiplier: 1,
        };
        // 1 x 1, 8 -> 16 channels on 48 x 48: the last pixel's 16 outputs end 8 elements past
        // its input's start (2304 · 16 − 2303 · 8).
        let conv = g([1, 48, 48, 8], [1, 1], [1, 48, 48, 16], 1, 0);
        assert_eq!(min_displacement(&conv), Some(2304 * 16 - 2303 * 8));
        // 3 x 3, stride 1, SAME: a row's outputs end two input rows past the start of the row
        // above it.
        let dw = g([1, 48, 48, 8], [3, 3], [1, 48, 48, 8], 1, 1);
        assert_eq!(min_displacement(&dw), Some(2 * 48 * 8));
        // Stride 2 halving the rows, 1 -> 8 channels: row y ends at (y + 1) · 384 and reads
        // from input row 2y (of 96 elements).
        let first = g([1, 96, 96, 1], [3, 3], [1, 48, 48, 8], 2, 0);
        let expected = (0..48).map(|y| (y + 1) * 384 - 2 * y * 96).max();
        assert_eq!(min_displacement(&first), expected);
        // Zero dimensions and windows of padding only have no walk.
        let empty = g([1, 0, 4, 1], [1, 1], [1, 0, 4, 1], 1, 0);
        assert_eq!(min_displacement(&empty), None);
        let padding = g([1, 2, 2, 1], [1, 1], [1, 4, 2, 1], 1, 2);
        assert_eq!(min_displacement(&padding), None);
        assert!(!overlapped(&padding, &mut [0_u8; 64], 8, 0, |_, _, _| {}));
    }

    /// Shadow memory: every element carries what it holds (an input element's index, or the
    /// output element written there). A chunk's kernel sees only its two slices; each input
    /// element it is given must still be the input (not yet written over), and it writes its
    /// output elements in order. So no element is written before its last read, every output
    /// element is written once, and the sub-geometries match the slices.
    #[test]
    fn no_element_is_written_before_its_last_read() {
        #[derive(Clone, Copy, PartialEq, Debug)]
        enum Cell {
            Free,
            Input(usize),
            Output(usize),
        }
        let mut rng = Rng(0x5eed_0f0e_71a5);
        for case in 0..CASES {
            let g = random_geometry(&mut rng, case % 2 == 1);
            let least = min_displacement(&g).expect("a walk");
            let (input, output) = (elements(g.input), elements(g.output));
            for d in displacements(&mut rng, least, output) {
                let len = (d + input).max(output);
                let mut buf = vec![Cell::Free; len];
                for (k, x) in buf[d..d + input].iter_mut().enumerate() {
                    *x = Cell::Input(k);
                }
                let (mut written, mut read_from) = (0, 0);
                let done = overlapped(&g, &mut buf, d, 0, |sub, i, o| {
                    assert_eq!(i.len(), elements(sub.input), "{g:?} d {d}: {sub:?}");
                    assert_eq!(o.len(), elements(sub.output), "{g:?} d {d}: {sub:?}");
                    // The chunk's input: consecutive input elements, none written over, never
                    // before the previous chunk's first.
                    let Some(&Cell::Input(first)) = i.first() else {
                        panic!("{g:?} d {d}: a chunk's input starts with {:?}", i.first());
                    };
                    assert!(first >= read_from, "{g:?} d {d}");
                    read_from = first;
                    for (k, x) in i.iter().enumerate() {
                        assert_eq!(*x, Cell::Input(first + k), "{g:?} d {d}: {sub:?}");
                    }
                    for y in o.iter_mut() {
                        *y = Cell::Output(written);
                        written += 1;
                    }
                });
                assert!(done, "{g:?} at d = {d} (D = {least})");
                for (k, y) in buf[..output].iter().enumerate() {
                    assert_eq!(*y, Cell::Output(k), "{g:?} d {d}");
                }
            }
            // One element less: the driver stops before a unit it cannot run.
            if least > 0 && least < output {
                let mut buf = vec![Cell::Free; (least - 1 + input).max(output)];
                for (k, x) in buf[least - 1..least - 1 + input].iter_mut().enumerate() {
                    *x = Cell::Input(k);
                }
                let done = overlapped(&g, &mut buf, least - 1, 0, |_, i, _| {
                    assert!(i.iter().all(|x| matches!(x, Cell::Input(_))));
                });
                assert!(!done, "{g:?} at D − 1 = {}", least - 1);
            }
        }
    }

    // 24 multipliers of the models' form (the blocked kernels' tests'), for up to 24 output
    // channels.
    use super::super::simd::tests::REQUANT;

    /// The int8 kernels on one buffer give what they give on two, at every displacement tried,
    /// and refuse one element closer (their output then differs). The DSP build's blocked
    /// kernels run in the host build too (with portable instruction semantics): each chunk
    /// runs one of them where it takes the shape.
    #[test]
    fn int8_kernels_on_one_buffer_equal_two_buffers() {
        let mut rng = Rng(0x0e1a_9500);
        for case in 0..CASES {
            let depthwise = case % 2 == 1;
            let g = random_geometry(&mut rng, depthwise);
            let least = min_displacement(&g).expect("a walk");
            let (input, output) = (elements(g.input), elements(g.output));
            let values =
                |rng: &mut Rng, n: usize| -> Vec<i8> { (0..n).map(|_| rng.next() as i8).collect() };
            let x = values(&mut rng, input);
            let filter = values(&mut rng, elements(g.filter));
            let bias: Vec<i32> = (0..g.output[3])
                .map(|_| (rng.next() % 4001) as i32 - 2000)
                .collect();
            let p = ConvS8 {
                geometry: g,
                input_offset: (rng.next() % 256) as i32 - 127,
                output_offset: (rng.next() % 21) as i32 - 10,
                requant: &REQUANT,
                act_min: -128,
                act_max: 127,
            };
            let blocked = rng.below(2) == 0;
            let kernel = |sub: &ConvGeometry, i: &[i8], o: &mut [i8]| {
                let p = ConvS8 {
                    geometry: *sub,
                    ..p
                };
                let bias = Some(&bias[..]);
                match (depthwise, blocked) {
                    (false, true) if super::super::simd::conv1x1_s8(&p, i, &filter, bias, o) => {}
                    (true, true) if super::super::simd::depthwise_s8(&p, i, &filter, bias, o) => {}
                    (false, _) => conv2d_s8_portable(&p, i, &filter, bias, o),
                    (true, _) => depthwise_conv2d_s8_portable(&p, i, &filter, bias, o),
                }
            };
            let mut expected = vec![0_i8; output];
            kernel(&g, &x, &mut expected);
            for d in displacements(&mut rng, least, output) {
                let mut buf = vec![0x55_i8; (d + input).max(output)];
                buf[d..d + input].copy_from_slice(&x);
                assert!(overlapped(&g, &mut buf, d, 0, &kernel), "{g:?} d {d}");
                assert_eq!(
                    buf[..output],
                    expected[..],
                    "{g:?} at d = {d} (D = {least})"
                );
            }
            // The input wholly below the output: one run.
            let mut buf = vec![0_i8; input + output];
            buf[..input].copy_from_slice(&x);
            assert!(overlapped(&g, &mut buf, 0, input, &kernel));
            assert_eq!(buf[input..], expected[..], "{g:?} below");
            if least > 0 && least < output {
                let mut buf = vec![0x55_i8; (least - 1 + input).max(output)];
                buf[least - 1..least - 1 + input].copy_from_slice(&x);
                assert!(
                    !overlapped(&g, &mut buf, least - 1, 0, &kernel),
                    "{g:?} D − 1"
                );
            }
        }
    }

    /// `fits` says exactly where the driver runs: disjoint, or at least `D` above.
    #[test]
    fn fits_is_where_the_driver_runs() {
        let mut rng = Rng(0x0f17_5000);
        for case in 0..CASES {
            let g = random_geometry(&mut rng, case % 2 == 1);
            let least = min_displacement(&g).unwrap();
            let (input, output) = (elements(g.input), elements(g.output));
            let len = input + output + least;
            for (i, o) in [
                (least, 0),
                (least.saturating_sub(1), 0),
                (0, input),
                (output, 0),
                (0, 1),
                (len - input, 0),
            ] {
                let mut buf = vec![0_i8; len.max(i + input).max(o + output)];
                let runs = overlapped(&g, &mut buf, i, o, |_, _, _| {});
                assert_eq!(fits(&g, i, o), runs, "{g:?} input at {i}, output at {o}");
            }
        }
    }

    /// The float CONV_2D too, on `f32` buffers: bit for bit.
    #[test]
    fn float_conv_on_one_buffer_equals_two_buffers() {
        let mut rng = Rng(0x00f1_0a70);
        for _ in 0..CASES / 4 {
            let g = random_geometry(&mut rng, false);
            let least = min_displacement(&g).expect("a walk");
            let (input, output) = (elements(g.input), elements(g.output));
            let values = |rng: &mut Rng, n: usize| -> Vec<f32> {
                (0..n)
                    .map(|_| (rng.next() % 2001) as f32 / 1000.0 - 1.0)
                    .collect()
            };
            let x = values(&mut rng, input);
            let filter = values(&mut rng, elements(g.filter));
            let p = ConvF32 {
                geometry: g,
                act_min: f32::NEG_INFINITY,
                act_max: f32::INFINITY,
            };
            let kernel = |sub: &ConvGeometry, i: &[f32], o: &mut [f32]| {
                conv2d_f32(
                    &ConvF32 {
                        geometry: *sub,
                        ..p
                    },
                    i,
                    &filter,
                    None,
                    o,
                );
            };
            let mut expected = vec![0.0_f32; output];
            kernel(&g, &x, &mut expected);
            let mut buf = vec![0.0_f32; (least + input).max(output)];
            buf[least..least + input].copy_from_slice(&x);
            assert!(overlapped(&g, &mut buf, least, 0, &kernel));
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&buf[..output]), bits(&expected), "{g:?}");
        }
    }
}
