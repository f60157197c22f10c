//! CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D and MAX_POOL_2D writing their output over the
//! input they are reading: one buffer holds both, the input `d` elements above the output's
//! start. A pool is walked as the depthwise convolution with its window ([`pool_walk`]): the
//! same elements read and written in the same order.
//!
//! # The order kept
//!
//! The driver runs the op in *chunks* of consecutive output pixels (batch, y, x), in order,
//! each by the op's own kernel (the portable one, or on Armv7E-M the DSP one) on two disjoint
//! slices of the buffer, split at the lowest input element any pixel from the chunk's first on
//! still reads (its *read base*, `r(u)`): below the split, the chunk's output elements; above
//! it, the input the chunk reads. A chunk is whole output rows where they fit, else a run of
//! pixels of one row: the kernel then gets the input rows that row's windows reach (all
//! columns, with the padding moved to match, so it computes exactly the elements it computes
//! on the whole image), the first output column of the run and how many input pixels of those
//! rows lie below the split (not in its slice, and never read). A pointwise op (a 1 x 1 filter,
//! stride 1, no padding: a matrix product over pixels) is one row of all its pixels, each run
//! of them an image of its own (a run stops one short of an odd length, unless it is one pixel
//! or ends the tensor, for the DSP kernel's pairs).
//!
//! For a pixel `u` in row `y` (of its batch) with its window's first input row `t(y)` and
//! first column `l(x)` (both clamped into the input), `r(u)` is the start of row `t(y)` plus
//! `l(x)` pixels, or just the start of row `t(y)` when the next output row's windows start at
//! the same input row (in the top padding): then a later pixel reads further left. A chunk
//! grows while its last output element stays below `d + r(first pixel)`, so what it writes
//! lies over input no later pixel reads: every input element is read, for the last time,
//! before anything is written over it, whatever the kernels do inside a chunk.
//!
//! # The displacement
//!
//! With `o(u)` one past pixel `u`'s last output element, a chunk can always start at `u` when
//! `o(u) ≤ d + r(u)`, so the driver runs every pixel exactly when `d ≥ D` with
//! `D = max_u (o(u) − r(u))` ([`min_displacement`], in elements). At `d = D − 1` it stops at
//! the pixel attaining the maximum and returns `false`. Every `d ≥ D` runs (a larger `d` only
//! makes chunks longer), and so does every layout where the two do not share an element.
//! [`row_displacement`] is the least `d` at which every chunk is at least one whole row (far
//! fewer kernel calls); the planner prefers it where the arena has room.
//!
//! Both are `const fn`s, so generated code proves at compile time that its planned offsets
//! satisfy [`min_displacement`].
//!
//! # Elementwise ops
//!
//! QUANTIZE and the activations run element by element
//! ([`requantize_s8`], [`requantize_s16`], [`requantize_s16_s8`], [`logistic_s8`], [`tanh_s8`],
//! [`relu_s8`], [`relu6_s8`], and the int16 and float RELU, RELU6, LOGISTIC, TANH, HARD_SWISH,
//! LEAKY_RELU and ELU: [`relu_s16`], [`relu_f32`], ..., [`elu_f32`]): output element `k`, no
//! wider than input element `k`, is written after that is read, so it lies below input element
//! `k + 1` whenever the input starts at or above the output ([`elementwise_fits`]): from a full
//! alias on. ADD and MUL ([`add_s8`], ..., [`mul_f32`]) walk their output in memory order too,
//! their first input (not broadcast) over the output from a full alias on, the second in a
//! slice of its own ([`binary_fits`]). On Armv7E-M (cfg `stowplan_dsp`) the int8 and int16 ADD
//! and MUL ([`add_s8`], [`mul_s8`], [`add_s16`], [`mul_s16`]; the int16 MUL with both offsets
//! 0) with the same shapes or a scalar second input run the DSP kernel's
//! blocks of four elements instead (`simd_elementwise`): each block reads its four first-input
//! elements `k..k + 4` before it writes any of its four outputs, and the blocks go in
//! increasing `k` (then the last one to three elements one by one), so with the input `d ≥ 0`
//! elements above the output a block writes over first-input elements below `k + 4`, every
//! one of them read already: [`binary_fits`] holds for it as it stands. DEQUANTIZE to float32
//! ([`dequantize_s8_f32`], [`dequantize_s16_f32`], [`dequantize_u8_f32`]) writes each output
//! element wider than its input element: from [`widening_min_displacement`] on. PAD ([`pad`])
//! writes its output in order too, from [`pad_min_displacement`] on. CONCATENATION
//! ([`concatenation`]) writes its first input's chunks into their slots in order, the other
//! inputs from their own slices: from [`concatenation_min_displacement`] on (a full alias when
//! it has one outer position).
//!
//! # FULLY_CONNECTED
//!
//! [`fully_connected_s8`] and the other FULLY_CONNECTED entries run their kernel (the portable
//! one, or on Armv7E-M the DSP one) on chunks of consecutive batch rows, each on two disjoint
//! slices split at the chunk's first input row; a row's output must lie below its own input
//! row: from [`fully_connected_min_displacement`] on (`max(U, B·U − (B−1)·K)` elements).

use super::conv::{ConvF32, ConvGeometry, ConvS8, ConvS16, Part};
use super::pooling::{PoolF32, PoolGeometry, PoolS8, PoolS16};

/// The op as the driver walks it: its rows of output pixels and the elements they touch.
#[derive(Clone, Copy)]
struct Walk {
    /// Pointwise: one row of every pixel (of all batches), each run of pixels an image.
    pointwise: bool,
    /// Output rows in all: batches × output rows (pointwise: 1).
    rows: usize,
    /// Output rows per batch (pointwise: 1).
    out_rows: usize,
    /// Input rows per batch (pointwise: 1).
    in_rows: usize,
    /// Output pixels per row (pointwise: all of them).
    out_w: usize,
    /// Input pixels per row (pointwise: all of them).
    in_w: usize,
    /// Input channels.
    in_c: usize,
    /// Output channels.
    out_c: usize,
    stride: usize,
    pad: usize,
    stride_w: usize,
    pad_w: usize,
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
        if g.stride_h == 0 || g.stride_w == 0 || g.dilation_h == 0 || fh == 0 {
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
                rows: 1,
                out_rows: 1,
                in_rows: 1,
                out_w: pixels,
                in_w: pixels,
                in_c: c,
                out_c: oc,
                stride: 1,
                pad: 0,
                stride_w: 1,
                pad_w: 0,
                extent: 1,
            }
        } else {
            Self {
                pointwise,
                rows: get!(mul(n, oh)),
                out_rows: oh,
                in_rows: h,
                out_w: ow,
                in_w: w,
                in_c: c,
                out_c: oc,
                stride: g.stride_h,
                pad: g.pad_h,
                stride_w: g.stride_w,
                pad_w: g.pad_w,
                extent: get!(add(get!(mul(fh - 1, g.dilation_h)), 1)),
            }
        };
        // Every size the walk computes fits: the whole input and output, the last window's
        // rows and columns.
        let batches = walk.rows / walk.out_rows;
        let _ = get!(mul(
            get!(mul(get!(mul(batches, walk.in_rows)), walk.in_w)),
            walk.in_c
        ));
        let _ = get!(mul(get!(mul(walk.rows, walk.out_w)), walk.out_c));
        let _ = get!(add(
            get!(add(get!(mul(walk.out_rows, walk.stride)), walk.extent)),
            walk.pad
        ));
        let _ = get!(mul(walk.out_w, walk.stride_w));
        // The first and last output rows' windows must reach an input row (so must every
        // other: the windows move down with the rows).
        if walk.extent <= walk.pad || walk.first_row(walk.out_rows - 1) >= walk.in_rows {
            return None;
        }
        Some(walk)
    }

    /// Elements per input row.
    const fn in_row(&self) -> usize {
        self.in_w * self.in_c
    }

    /// Elements of the input.
    const fn in_len(&self) -> usize {
        self.rows / self.out_rows * self.in_rows * self.in_row()
    }

    /// Elements of the output.
    const fn out_len(&self) -> usize {
        self.rows * self.out_w * self.out_c
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

    /// The first input column output column `x`'s window reaches, clamped into `0..=W`.
    const fn first_column(&self, x: usize) -> usize {
        let left = (x * self.stride_w).saturating_sub(self.pad_w);
        if left < self.in_w { left } else { self.in_w }
    }

    /// The start of the first input row output row `row` (of all) reads.
    const fn row_base(&self, row: usize) -> usize {
        let (b, y) = (row / self.out_rows, row % self.out_rows);
        (b * self.in_rows + self.first_row(y)) * self.in_row()
    }

    /// Input pixels of row `row`'s first input row below `r(u)` for its pixel `x`: `l(x)`, or
    /// 0 when the next row's windows start at the same input row (the [module docs](self)).
    const fn skipped(&self, row: usize, x: usize) -> usize {
        let y = row % self.out_rows;
        if y + 1 < self.out_rows && self.first_row(y + 1) == self.first_row(y) {
            0
        } else {
            self.first_column(x)
        }
    }

    /// `r(u)`: the lowest input element pixel `x` of output row `row` or a later one reads.
    const fn read_base(&self, row: usize, x: usize) -> usize {
        self.row_base(row) + self.skipped(row, x) * self.in_c
    }

    /// `o(u)`: one past the last output element of pixel `x` of output row `row`.
    const fn out_end(&self, row: usize, x: usize) -> usize {
        (row * self.out_w + x + 1) * self.out_c
    }

    /// `o(u) − r(u)`, or 0 where the output ends below the input.
    const fn need(&self, row: usize, x: usize) -> usize {
        self.out_end(row, x).saturating_sub(self.read_base(row, x))
    }
}

/// The greatest of `f(row, x)` over the pixels where the walk's `o(u) − r(u)` can peak: it is
/// linear in the batch and, within a batch, piecewise linear in the row (the top padding where
/// windows share their first row, the rows whose window starts at input row 0, the rest) and
/// in the column (windows starting in the left padding, inside the input, past its right
/// edge), so the maximum is at the ends of those pieces.
const fn most(walk: &Walk, rows_only: bool) -> usize {
    let batches = walk.rows / walk.out_rows;
    // Rows `y < e` share their window's first row with the next; `inside` is the first whose
    // window's top lies at or below input row 0.
    let e = walk.pad / walk.stride;
    let inside = walk.pad.div_ceil(walk.stride);
    let ys = [
        0,
        e.saturating_sub(1),
        e,
        e + 1,
        inside.saturating_sub(1),
        inside,
        inside + 1,
        walk.out_rows - 1,
    ];
    // The last column whose window starts at column 0, and the last that starts inside.
    let left = walk.pad_w / walk.stride_w;
    let right = (walk.in_w + walk.pad_w) / walk.stride_w;
    let xs = [0, left, left + 1, right, right + 1, walk.out_w - 1];
    let mut best = 0;
    let mut b = 0;
    while b < 2 {
        let batch = if b == 0 { 0 } else { batches - 1 };
        let mut k = 0;
        while k < ys.len() {
            let y = if ys[k] < walk.out_rows {
                ys[k]
            } else {
                walk.out_rows - 1
            };
            let row = batch * walk.out_rows + y;
            let need = if rows_only {
                walk.out_end(row, walk.out_w - 1)
                    .saturating_sub(walk.row_base(row))
            } else {
                let mut need = 0;
                let mut j = 0;
                while j < xs.len() {
                    let x = if xs[j] < walk.out_w {
                        xs[j]
                    } else {
                        walk.out_w - 1
                    };
                    let n = walk.need(row, x);
                    if n > need {
                        need = n;
                    }
                    j += 1;
                }
                need
            };
            if need > best {
                best = need;
            }
            k += 1;
        }
        b += 1;
    }
    best
}

/// `D`, the least `offset(input) − offset(output)` (in elements) from which the driver runs
/// `g` with its output over its input: `max_u (o(u) − r(u))` over the output pixels (see the
/// [module docs](self)). `None` if the geometry's sizes overflow, a dimension is zero, or an
/// output row's window reaches only padding.
///
/// Constant time: the maximum is taken at the ends of the pieces on which `o(u) − r(u)` is
/// linear.
#[must_use]
pub const fn min_displacement(g: &ConvGeometry) -> Option<usize> {
    let walk = get!(Walk::of(g));
    Some(most(&walk, false))
}

/// The least displacement at which the driver runs `g` in chunks of whole output rows:
/// `max` over rows of (one past the row's last output element − the start of the first input
/// row it reads). At least [`min_displacement`]; pointwise ops (one row of all pixels) only
/// from a displacement past the output's end. `None` as [`min_displacement`].
#[must_use]
pub const fn row_displacement(g: &ConvGeometry) -> Option<usize> {
    let walk = get!(Walk::of(g));
    Some(most(&walk, true))
}

/// The driver's walk of one op on one buffer (the [module docs](self)): [`Steps::next`] gives
/// the chunks in order, each with its elements of the buffer.
struct Steps {
    walk: Walk,
    input_at: usize,
    output_at: usize,
    /// The two share no element: one chunk, the whole op.
    disjoint: bool,
    /// How far the input starts above the output (when they share elements).
    d: usize,
    /// The next chunk's first pixel.
    row: usize,
    x: usize,
}

impl Steps {
    /// The walk of `g` with the input at `input_at` and the output at `output_at` of a buffer
    /// of `len` elements; `None` (nothing to run) when the geometry has no walk, a tensor does
    /// not fit, or the input starts below the output and reaches into it (writing the output in
    /// order would overwrite input still to be read).
    fn new(g: &ConvGeometry, len: usize, input_at: usize, output_at: usize) -> Option<Self> {
        let walk = Walk::of(g)?;
        let (in_end, out_end) = (
            input_at.checked_add(walk.in_len())?,
            output_at.checked_add(walk.out_len())?,
        );
        if in_end > len || out_end > len {
            return None;
        }
        let disjoint = in_end <= output_at || out_end <= input_at;
        let d = match input_at.checked_sub(output_at) {
            Some(d) => d,
            None if disjoint => 0,
            None => return None,
        };
        Some(Self {
            walk,
            input_at,
            output_at,
            disjoint,
            d,
            row: 0,
            x: 0,
        })
    }

    /// The next chunk of `g` (the geometry [`Steps::new`] took), its ranges of the buffer;
    /// `Some(None)` when the next pixel cannot run (the input too close above the output),
    /// `None` after the last.
    /// `sub` (the op's geometry, or the last chunk's) becomes the chunk's. Never inlined: the
    /// chunk's description stays in this function's frame, out of the kernel's.
    #[inline(never)]
    fn next(&mut self, g: &ConvGeometry, sub: &mut impl Shaped) -> Option<Option<Run>> {
        if self.row >= self.walk.rows {
            return None;
        }
        let (chunk, next) = if self.disjoint {
            let whole = Chunk {
                input: [g.input[0], g.input[1], g.input[2]],
                output: [g.output[0], g.output[1], g.output[2]],
                pad_h: g.pad_h,
                part: Part::WHOLE,
                input_at: (0, self.walk.in_len()),
                output_at: (0, self.walk.out_len()),
            };
            (whole, (self.walk.rows, 0))
        } else {
            match self.walk.chunk(g, self.d, self.row, self.x) {
                Some(next) => next,
                None => {
                    // Stop here: the caller returns `false`.
                    self.row = self.walk.rows;
                    return Some(None);
                }
            }
        };
        (self.row, self.x) = next;
        sub.shape(&chunk);
        let (i, o) = (self.input_at, self.output_at);
        Some(Some(Run {
            part: chunk.part,
            input_at: (i + chunk.input_at.0, i + chunk.input_at.1),
            output_at: (o + chunk.output_at.0, o + chunk.output_at.1),
        }))
    }
}

/// A chunk as [`Steps::next`] gives it, its geometry already the kernel's: the part, and the
/// elements `start..end` of the buffer its input and its output are.
struct Run {
    part: Part,
    input_at: (usize, usize),
    output_at: (usize, usize),
}

impl Run {
    /// The run's two disjoint slices of `buf`, its input and its output.
    #[inline(always)]
    fn slices<'a, T>(&self, buf: &'a mut [T]) -> (&'a [T], &'a mut [T]) {
        let ((i0, i1), (o0, o1)) = (self.input_at, self.output_at);
        if i1 <= o0 {
            let (lo, hi) = buf.split_at_mut(o0);
            (&lo[i0..i1], &mut hi[..o1 - o0])
        } else {
            let (lo, hi) = buf.split_at_mut(i0);
            (&hi[..i1 - i0], &mut lo[o0..o1])
        }
    }
}

/// Runs a CONV_2D or DEPTHWISE_CONV_2D (or a pool, by its [`pool_walk`]) of geometry `g` on one buffer: the input's `N*H*W*C`
/// elements at `buf[input_at..]`, the output's `N*OH*OW*O` at `buf[output_at..]`, in the order
/// of the [module docs](self). `kernel(sub, part, input, output)` is the op's kernel on a
/// chunk: `sub` is `g` for the chunk's rows (or pixels), `part` the chunk's first output column
/// and skipped input pixels, `input` its input and `output` its output elements, disjoint
/// slices of `buf`; it is called for the chunks in order. (The entry points below run the same
/// loop with their kernel written in it, so that it is inlined into one frame.)
///
/// Returns `true` when every chunk ran: the two do not share an element, or the input starts
/// at least [`min_displacement`] elements above the output. Returns `false` without calling
/// `kernel` when a tensor does not fit in `buf` or the geometry has no walk, and `false` after
/// the chunks before it when a pixel cannot run (the input too close above the output, or
/// below it and overlapping).
#[cfg(test)]
fn overlapped<T>(
    g: &ConvGeometry,
    buf: &mut [T],
    input_at: usize,
    output_at: usize,
    mut kernel: impl FnMut(&ConvGeometry, Part, &[T], &mut [T]),
) -> bool {
    let Some(mut steps) = Steps::new(g, buf.len(), input_at, output_at) else {
        return false;
    };
    let mut sub = *g;
    while let Some(run) = steps.next(g, &mut sub) {
        let Some(run) = run else {
            return false;
        };
        let (input, output) = run.slices(buf);
        kernel(&sub, run.part, input, output);
    }
    true
}

/// One kernel call of the driver: what its geometry changes of the op's (the first three
/// dimensions of the input and output shapes, the padding above), its part, and the elements
/// `start..end` of the input and of the output it is given (counted from each tensor's first
/// element).
struct Chunk {
    input: [usize; 3],
    output: [usize; 3],
    pad_h: usize,
    part: Part,
    input_at: (usize, usize),
    output_at: (usize, usize),
}

/// A kernel's geometry, which the driver makes each chunk's in turn.
trait Shaped {
    /// Makes `self` (the op's geometry, or an earlier chunk's) `chunk`'s.
    fn shape(&mut self, chunk: &Chunk);
}

/// [`Shaped`] for the geometries with NHWC `input` and `output` shapes and a `pad_h`.
macro_rules! shaped {
    ($($geometry:ty),*) => {$(
        impl Shaped for $geometry {
            #[inline(always)]
            fn shape(&mut self, chunk: &Chunk) {
                let ([n, h, w], [on, oh, ow]) = (chunk.input, chunk.output);
                (self.input[0], self.input[1], self.input[2]) = (n, h, w);
                (self.output[0], self.output[1], self.output[2]) = (on, oh, ow);
                self.pad_h = chunk.pad_h;
            }
        }
    )*};
}

shaped!(ConvGeometry, PoolGeometry);

impl Walk {
    /// The chunk from pixel `x` of output row `row` of `g` at displacement `d` (the [module
    /// docs](self)), with the row and pixel after it; `None` if that pixel cannot run.
    fn chunk(
        &self,
        g: &ConvGeometry,
        d: usize,
        row: usize,
        x: usize,
    ) -> Option<(Chunk, (usize, usize))> {
        let y = row % self.out_rows;
        let out_row = self.out_w * self.out_c;
        if x == 0 && !self.pointwise {
            // Whole rows from `row` while they fit below the input the first still reads.
            let base = self.row_base(row);
            let limit = d + base;
            let mut v = row;
            while v < self.rows
                && v / self.out_rows == row / self.out_rows
                && self.out_end(v, self.out_w - 1) <= limit
            {
                v += 1;
            }
            if v > row {
                let (r0, r1) = (self.first_row(y), self.end_row(y + (v - row) - 1));
                let chunk = Chunk {
                    input: [1, r1 - r0, g.input[2]],
                    output: [1, v - row, g.output[2]],
                    // The rows above the chunk's first input row are not in its image: the
                    // padding left above it is what the first output row's window still
                    // reaches above row 0.
                    pad_h: self.pad + r0 - y * self.stride,
                    part: Part::WHOLE,
                    input_at: (base, base + (r1 - r0) * self.in_row()),
                    output_at: (row * out_row, v * out_row),
                };
                return Some((chunk, (v, 0)));
            }
        }
        // A run of pixels of row `row` from `x`.
        let base = self.read_base(row, x);
        let limit = d + base;
        if self.out_end(row, x) > limit {
            return None;
        }
        let mut x1 = x + 1;
        while x1 < self.out_w && self.out_end(row, x1) <= limit {
            x1 += 1;
        }
        if self.pointwise && x1 - x > 1 && (x1 - x) % 2 == 1 && x1 < self.out_w {
            // An even number of pixels where it can: the DSP 1 x 1 kernel takes them in
            // pairs, and an odd last pixel goes channel by channel.
            x1 -= 1;
        }
        let output = (
            row * out_row + x * self.out_c,
            row * out_row + x1 * self.out_c,
        );
        let next = if x1 == self.out_w {
            (row + 1, 0)
        } else {
            (row, x1)
        };
        let chunk = if self.pointwise {
            Chunk {
                input: [1, 1, x1 - x],
                output: [1, 1, x1 - x],
                pad_h: 0,
                part: Part::WHOLE,
                input_at: (base, base + (x1 - x) * self.in_c),
                output_at: output,
            }
        } else {
            let (r0, r1) = (self.first_row(y), self.end_row(y));
            let skip = self.skipped(row, x);
            Chunk {
                input: [1, r1 - r0, g.input[2]],
                output: [1, 1, x1 - x],
                pad_h: self.pad + r0 - y * self.stride,
                part: Part { x0: x, skip },
                input_at: (base, self.row_base(row) + (r1 - r0) * self.in_row()),
                output_at: output,
            }
        };
        Some((chunk, next))
    }
}

/// Whether the driver runs `g` with the input at `input_at` and the output at `output_at`
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

/// The geometry the driver walks for AVERAGE_POOL_2D and MAX_POOL_2D of geometry `g`: a
/// depthwise convolution's with the pool's window (depth multiplier 1, no dilation), which reads
/// and writes the same elements in the same order.
#[must_use]
pub const fn pool_walk(g: &PoolGeometry) -> ConvGeometry {
    ConvGeometry {
        input: g.input,
        filter: [1, g.filter_h, g.filter_w, g.input[3]],
        output: g.output,
        stride_h: g.stride_h,
        stride_w: g.stride_w,
        dilation_h: 1,
        dilation_w: 1,
        pad_h: g.pad_h,
        pad_w: g.pad_w,
        depth_multiplier: 1,
    }
}

/// [`fits`] for a pool of geometry `g` ([`pool_walk`]): generated code asserts it at compile
/// time for the offsets it was planned with.
#[must_use]
pub const fn pool_fits(g: &PoolGeometry, input_at: usize, output_at: usize) -> bool {
    g.output[3] == g.input[3] && fits(&pool_walk(g), input_at, output_at)
}

/// The element count of a shape, `None` on overflow.
const fn elements(shape: &[usize; 4]) -> Option<usize> {
    mul(get!(mul(shape[0], shape[1])), get!(mul(shape[2], shape[3])))
}

/// One buffer's entry point for each CONV_2D and DEPTHWISE_CONV_2D kernel: the driver with the
/// kernel on each chunk's part (`$kernel`, inlined, so that an op is one call of a kernel
/// function, as the instruction counter's per-op table takes it), its parameters' geometry the
/// chunk's. Never inlined itself, for the same reason.
macro_rules! on_one_buffer {
    ($($(#[$doc:meta])* $name:ident => $kernel:path, ($params:ident, $t:ty, $filter:ty, $bias:ty);)*) => {$(
        $(#[$doc])*
        ///
        /// The input's elements at `buf[input_at..]`, the output's at `buf[output_at..]`. Returns
        /// `true` when every chunk ran: the two share no element, or the input starts at least
        /// [`min_displacement`] elements above the output ([`fits`]); `false` when a tensor does
        /// not fit in `buf` (nothing written) or the input lies too close (the output is then
        /// written only up to the pixel that could not run).
        #[inline(never)]
        pub fn $name(
            p: &$params,
            buf: &mut [$t],
            input_at: usize,
            output_at: usize,
            filter: &[$filter],
            bias: Option<&[$bias]>,
        ) -> bool {
            // The loop of the driver (`overlapped`), the kernel in this function's frame.
            let Some(mut steps) = Steps::new(&p.geometry, buf.len(), input_at, output_at) else {
                return false;
            };
            // One copy of the parameters, its geometry each chunk's in turn.
            let mut q = *p;
            while let Some(run) = steps.next(&p.geometry, &mut q.geometry) {
                let Some(run) = run else {
                    return false;
                };
                let (input, output) = run.slices(buf);
                $kernel(&q, run.part, input, filter, bias, output);
            }
            true
        }
    )*};
}

on_one_buffer! {
    /// [`super::conv2d_s8`] on one buffer.
    conv2d_s8 => super::conv::conv2d_s8_part, (ConvS8, i8, i8, i32);
    /// [`super::conv2d_s8_i4`] on one buffer.
    conv2d_s8_i4 => super::conv::conv2d_s8_i4_part, (ConvS8, i8, u8, i32);
    /// [`super::conv2d_s16`] on one buffer.
    conv2d_s16 => super::conv::conv2d_s16_part, (ConvS16, i16, i8, i64);
    /// [`super::conv2d_s16_acc32`] on one buffer.
    conv2d_s16_acc32 => super::conv::conv2d_s16_acc32_part, (ConvS16, i16, i8, i32);
    /// [`super::conv2d_f32`] on one buffer.
    conv2d_f32 => super::conv::conv2d_f32_part, (ConvF32, f32, f32, f32);
    /// [`super::depthwise_conv2d_s8`] on one buffer.
    depthwise_conv2d_s8 => super::depthwise_conv::depthwise_conv2d_s8_part, (ConvS8, i8, i8, i32);
    /// [`super::depthwise_conv2d_s8_i4`] on one buffer.
    depthwise_conv2d_s8_i4 => super::depthwise_conv::depthwise_conv2d_s8_i4_part, (ConvS8, i8, u8, i32);
    /// [`super::depthwise_conv2d_s16`] on one buffer.
    depthwise_conv2d_s16 => super::depthwise_conv::depthwise_conv2d_s16_part, (ConvS16, i16, i8, i64);
    /// [`super::depthwise_conv2d_f32`] on one buffer.
    depthwise_conv2d_f32 => super::depthwise_conv::depthwise_conv2d_f32_part, (ConvF32, f32, f32, f32);
}

/// One buffer's entry point for each AVERAGE_POOL_2D and MAX_POOL_2D kernel: the driver's loop
/// over [`pool_walk`] with the kernel on each chunk's part, as `on_one_buffer`'s.
macro_rules! pool_on_one_buffer {
    ($($(#[$doc:meta])* $name:ident => $kernel:path, ($params:ident, $t:ty);)*) => {$(
        $(#[$doc])*
        ///
        /// The input's elements at `buf[input_at..]`, the output's at `buf[output_at..]`. Returns
        /// `true` when every chunk ran: the two share no element, or the input starts far
        /// enough above the output ([`pool_fits`]); `false` when a tensor does not fit in `buf`
        /// or the input and output channels differ (nothing written) or the input lies too
        /// close (the output is then written only up to the pixel that could not run).
        #[inline(never)]
        pub fn $name(p: &$params, buf: &mut [$t], input_at: usize, output_at: usize) -> bool {
            let walk = pool_walk(&p.geometry);
            if p.geometry.output[3] != p.geometry.input[3] {
                return false;
            }
            let Some(mut steps) = Steps::new(&walk, buf.len(), input_at, output_at) else {
                return false;
            };
            let mut q = *p;
            while let Some(run) = steps.next(&walk, &mut q.geometry) {
                let Some(run) = run else {
                    return false;
                };
                let (input, output) = run.slices(buf);
                $kernel(&q, run.part, input, output);
            }
            true
        }
    )*};
}

pool_on_one_buffer! {
    /// [`super::average_pool_s8`] on one buffer.
    average_pool_s8 => super::pooling::average_pool_s8_part, (PoolS8, i8);
    /// [`super::max_pool_s8`] on one buffer.
    max_pool_s8 => super::pooling::max_pool_s8_part, (PoolS8, i8);
    /// [`super::average_pool_s16`] on one buffer.
    average_pool_s16 => super::pooling::average_pool_s16_part, (PoolS16, i16);
    /// [`super::max_pool_s16`] on one buffer.
    max_pool_s16 => super::pooling::max_pool_s16_part, (PoolS16, i16);
    /// [`super::average_pool_f32`] on one buffer.
    average_pool_f32 => super::pooling::average_pool_f32_part, (PoolF32, f32);
    /// [`super::max_pool_f32`] on one buffer.
    max_pool_f32 => super::pooling::max_pool_f32_part, (PoolF32, f32);
}

/// Whether the elementwise entries ([`requantize_s8`], ...) run an op of `len` elements with its input at `input_at` and its
/// output at `output_at` of one buffer, each input element `width` buffer elements wide and
/// each output element one: the two share no element, or the input starts at or above the
/// output. Generated code asserts it at compile time for the offsets it was planned with.
#[must_use]
pub const fn elementwise_fits(input_at: usize, output_at: usize, len: usize, width: usize) -> bool {
    let Some(in_len) = len.checked_mul(width) else {
        return false;
    };
    let (Some(in_end), Some(out_end)) = (input_at.checked_add(in_len), output_at.checked_add(len))
    else {
        return false;
    };
    width > 0 && (in_end <= output_at || out_end <= input_at || input_at >= output_at)
}

/// An elementwise op on one buffer: output element `k` (one buffer element at
/// `output_at + k`) is `f` of input element `k` (the `width` buffer elements at
/// `input_at + k · width`), for `k` in order. Each input element is read before its output
/// element is written, and output element `k` lies below input element `k + 1` when the input
/// starts at or above the output: no element is written before its last read. Returns `false`,
/// writing nothing, when a tensor does not fit in `buf`, `width` is 0, or the input starts below
/// the output and reaches into it ([`elementwise_fits`]).
#[inline(always)]
fn elementwise<T: Copy>(
    buf: &mut [T],
    input_at: usize,
    output_at: usize,
    len: usize,
    width: usize,
    mut f: impl FnMut(&[T]) -> T,
) -> bool {
    if !elementwise_fits(input_at, output_at, len, width) {
        return false;
    }
    let in_end = input_at + len * width;
    if in_end > buf.len() || output_at + len > buf.len() {
        return false;
    }
    if in_end <= output_at {
        // The input wholly below the output.
        let (lo, hi) = buf.split_at_mut(output_at);
        for (o, x) in hi.iter_mut().zip(lo[input_at..in_end].chunks_exact(width)) {
            *o = f(x);
        }
        return true;
    }
    for k in 0..len {
        let i = input_at + k * width;
        let value = f(&buf[i..i + width]);
        buf[output_at + k] = value;
    }
    true
}

/// One buffer's entry point for each elementwise kernel whose input and output elements are of
/// one type: [`elementwise`] with the kernel's value of each element.
macro_rules! elementwise_on_one_buffer {
    ($($(#[$doc:meta])* $name:ident($params:ty, $t:ty) => |$p:ident, $x:ident| $value:expr;)*) => {$(
        $(#[$doc])*
        ///
        /// `len` elements, the input's at `buf[input_at..]`, the output's at `buf[output_at..]`;
        /// `false` (nothing written) unless [`elementwise_fits`] (width 1) and both fit in `buf`.
        #[inline(never)]
        pub fn $name(
            $p: &$params,
            buf: &mut [$t],
            input_at: usize,
            output_at: usize,
            len: usize,
        ) -> bool {
            elementwise(buf, input_at, output_at, len, 1, |x| match *x {
                [$x] => $value,
                _ => 0,
            })
        }
    )*};
}

elementwise_on_one_buffer! {
    /// [`super::requantize_s8`] on one buffer.
    requantize_s8(super::Requantize, i8) => |p, x| {
        super::quantize::to_s8(super::quantize::requantized(p, i32::from(x)))
    };
    /// [`super::requantize_s16`] on one buffer.
    requantize_s16(super::Requantize, i16) => |p, x| {
        super::quantize::to_s16(super::quantize::requantized(p, i32::from(x)))
    };
    /// [`super::logistic_s8`] on one buffer.
    logistic_s8(super::LogisticS8, i8) => |p, x| super::logistic::logistic_s8_one(p, x);
    /// [`super::tanh_s8`] on one buffer.
    tanh_s8(super::TanhS8, i8) => |p, x| super::tanh::tanh_s8_one(p, x);
    /// [`super::relu_s8`] on one buffer.
    relu_s8(super::ReluS8, i8) => |p, x| super::activations::relu_s8_one(p, x);
    /// [`super::relu6_s8`] on one buffer.
    relu6_s8(super::Relu6S8, i8) => |p, x| super::activations::relu6_s8_one(p, x);
}

/// [`super::requantize_s16_s8`] on one buffer of bytes (as `i8`): `len` elements, the int16
/// input's little-endian (TFLite's byte order) from byte `input_at` (width 2), the int8
/// output's from byte `output_at`; `false` (nothing written) unless [`elementwise_fits`] and
/// both fit in `buf`.
#[inline(never)]
pub fn requantize_s16_s8(
    p: &super::Requantize,
    buf: &mut [i8],
    input_at: usize,
    output_at: usize,
    len: usize,
) -> bool {
    use super::quantize::{requantized, to_s8};
    elementwise(buf, input_at, output_at, len, 2, |x| match *x {
        [lo, hi] => {
            let x = i16::from_le_bytes([lo.to_le_bytes()[0], hi.to_le_bytes()[0]]);
            to_s8(requantized(p, i32::from(x)))
        }
        _ => 0,
    })
}

/// One buffer's entry point for each elementwise kernel whose input and output elements are of
/// one type, computed by the kernel itself on one element at a time (slices of one element):
/// [`elementwise`] with width 1, from a full alias on.
macro_rules! kernel_on_one_buffer {
    ($($(#[$doc:meta])* $name:ident($params:ty, $t:ty) => |$p:pat, $x:ident, $o:ident| $call:expr;)*) => {$(
        $(#[$doc])*
        ///
        /// `len` elements, the input's at `buf[input_at..]`, the output's at `buf[output_at..]`;
        /// `false` (nothing written) unless [`elementwise_fits`] (width 1) and both fit in `buf`.
        #[inline(never)]
        pub fn $name(
            $p: &$params,
            buf: &mut [$t],
            input_at: usize,
            output_at: usize,
            len: usize,
        ) -> bool {
            elementwise(buf, input_at, output_at, len, 1, |$x| {
                let mut $o = [<$t>::default()];
                $call;
                let [value] = $o;
                value
            })
        }
    )*};
}

kernel_on_one_buffer! {
    /// [`super::relu_s16`](super::activations::relu_s16) on one buffer.
    relu_s16(super::activations::ReluS16, i16) => |p, x, o| super::activations::relu_s16(p, x, &mut o);
    /// [`super::relu6_s16`](super::activations::relu6_s16) on one buffer.
    relu6_s16(super::activations::Relu6S16, i16) => |p, x, o| super::activations::relu6_s16(p, x, &mut o);
    /// [`super::relu_f32`] on one buffer (no parameters: `()`).
    relu_f32((), f32) => |_, x, o| super::relu_f32(x, &mut o);
    /// [`super::relu6_f32`] on one buffer (no parameters: `()`).
    relu6_f32((), f32) => |_, x, o| super::relu6_f32(x, &mut o);
    /// [`super::logistic_s16`](super::logistic::logistic_s16) on one buffer.
    logistic_s16(super::logistic::LogisticS16, i16) => |p, x, o| super::logistic::logistic_s16(p, x, &mut o);
    /// [`super::logistic_f32`](super::logistic::logistic_f32) on one buffer (no parameters: `()`).
    logistic_f32((), f32) => |_, x, o| super::logistic::logistic_f32(x, &mut o);
    /// [`super::tanh_s16`](super::tanh::tanh_s16) on one buffer.
    tanh_s16(super::tanh::TanhS16, i16) => |p, x, o| super::tanh::tanh_s16(p, x, &mut o);
    /// [`super::tanh_f32`](super::tanh::tanh_f32) on one buffer (no parameters: `()`).
    tanh_f32((), f32) => |_, x, o| super::tanh::tanh_f32(x, &mut o);
    /// [`super::hard_swish_s8`](super::hard_swish::hard_swish_s8) on one buffer.
    hard_swish_s8(super::hard_swish::HardSwishS8, i8) => |p, x, o| super::hard_swish::hard_swish_s8(p, x, &mut o);
    /// [`super::hard_swish_f32`](super::hard_swish::hard_swish_f32) on one buffer (no
    /// parameters: `()`).
    hard_swish_f32((), f32) => |_, x, o| super::hard_swish::hard_swish_f32(x, &mut o);
    /// [`super::leaky_relu_s8`](super::leaky_relu::leaky_relu_s8) on one buffer.
    leaky_relu_s8(super::leaky_relu::LeakyReluQuantized, i8) => |p, x, o| super::leaky_relu::leaky_relu_s8(p, x, &mut o);
    /// [`super::leaky_relu_s16`](super::leaky_relu::leaky_relu_s16) on one buffer.
    leaky_relu_s16(super::leaky_relu::LeakyReluQuantized, i16) => |p, x, o| super::leaky_relu::leaky_relu_s16(p, x, &mut o);
    /// [`super::leaky_relu_f32`](super::leaky_relu::leaky_relu_f32) on one buffer.
    leaky_relu_f32(super::leaky_relu::LeakyReluF32, f32) => |p, x, o| super::leaky_relu::leaky_relu_f32(p, x, &mut o);
    /// [`super::elu_s8`](super::elu::elu_s8) on one buffer.
    elu_s8(super::elu::EluS8, i8) => |p, x, o| super::elu::elu_s8(p, x, &mut o);
    /// [`super::elu_f32`](super::elu::elu_f32) on one buffer (no parameters: `()`).
    elu_f32((), f32) => |_, x, o| super::elu::elu_f32(x, &mut o);
}

/// The least displacement, in buffer elements, of an elementwise op whose output elements are
/// `width` buffer elements wide and its input's one ([`dequantize_s8_f32`], ...): output element
/// `k` is written after input element `k` is read and must lie below input element `k + 1`,
/// `(k + 1) · width ≤ d + k + 1` for every `k` below `len − 1`: `D = (width − 1) · (len − 1)`.
/// `None` for `width` 0 or sizes that overflow.
#[must_use]
pub const fn widening_min_displacement(len: usize, width: usize) -> Option<usize> {
    if width == 0 {
        return None;
    }
    (width - 1).checked_mul(len.saturating_sub(1))
}

/// Whether the widening entries ([`dequantize_s8_f32`], ...) run an op of `len` elements with
/// its input at `input_at` and its output at `output_at` (buffer elements) of one buffer, each
/// output element `width` buffer elements wide: the two share no element, or the input starts
/// at least [`widening_min_displacement`] above the output. Generated code asserts it at
/// compile time.
#[must_use]
pub const fn widening_fits(input_at: usize, output_at: usize, len: usize, width: usize) -> bool {
    let (Some(least), Some(out_len)) = (
        widening_min_displacement(len, width),
        len.checked_mul(width),
    ) else {
        return false;
    };
    let (Some(in_end), Some(out_end)) = (input_at.checked_add(len), output_at.checked_add(out_len))
    else {
        return false;
    };
    if in_end <= output_at || out_end <= input_at {
        return true;
    }
    match input_at.checked_sub(output_at) {
        Some(d) => d >= least,
        None => false,
    }
}

/// An elementwise op widening each element on one buffer: output element `k` (the `W` buffer
/// elements at `output_at + k · W`) is `f` of input element `k` (at `input_at + k`), for `k` in
/// order, each written after its input element is read. Returns `false`, writing nothing,
/// unless [`widening_fits`] and both fit in `buf`.
#[inline(always)]
fn widening<T: Copy, const W: usize>(
    buf: &mut [T],
    input_at: usize,
    output_at: usize,
    len: usize,
    mut f: impl FnMut(T) -> [T; W],
) -> bool {
    if !widening_fits(input_at, output_at, len, W)
        || input_at.saturating_add(len) > buf.len()
        || output_at.saturating_add(len.saturating_mul(W)) > buf.len()
    {
        return false;
    }
    for k in 0..len {
        let value = f(buf[input_at + k]);
        let at = output_at + k * W;
        buf[at..at + W].copy_from_slice(&value);
    }
    true
}

/// [`super::dequantize_s8_f32`] on one buffer of bytes (as `i8`): `len` elements, the input's
/// from byte `input_at`, the float32 output's (four bytes each, in the machine's byte order, as
/// a float view reads them) from byte `output_at`; `false` (nothing written) unless
/// [`widening_fits`] (width 4) and both fit in `buf`.
#[inline(never)]
pub fn dequantize_s8_f32(
    p: &super::DequantizeS8F32,
    buf: &mut [i8],
    input_at: usize,
    output_at: usize,
    len: usize,
) -> bool {
    widening(buf, input_at, output_at, len, |x| {
        let mut o = [0.0_f32];
        super::dequantize_s8_f32(p, &[x], &mut o);
        o[0].to_ne_bytes().map(|b| i8::from_ne_bytes([b]))
    })
}

/// [`super::dequantize_u8_f32`](super::dequantize::dequantize_u8_f32) on one buffer of bytes:
/// as [`dequantize_s8_f32`].
#[inline(never)]
pub fn dequantize_u8_f32(
    p: &super::dequantize::Dequantize,
    buf: &mut [u8],
    input_at: usize,
    output_at: usize,
    len: usize,
) -> bool {
    widening(buf, input_at, output_at, len, |x| {
        let mut o = [0.0_f32];
        super::dequantize::dequantize_u8_f32(p, &[x], &mut o);
        o[0].to_ne_bytes()
    })
}

/// [`super::dequantize_s16_f32`](super::dequantize::dequantize_s16_f32) on one buffer of
/// halfwords: `len` elements, the input's from halfword `input_at`, the float32 output's (two
/// halfwords each, holding its bytes in the machine's order) from halfword `output_at`;
/// `false` (nothing written) unless [`widening_fits`] (width 2) and both fit in `buf`.
#[inline(never)]
pub fn dequantize_s16_f32(
    p: &super::dequantize::Dequantize,
    buf: &mut [i16],
    input_at: usize,
    output_at: usize,
    len: usize,
) -> bool {
    widening(buf, input_at, output_at, len, |x| {
        let mut o = [0.0_f32];
        super::dequantize::dequantize_s16_f32(p, &[x], &mut o);
        let [a, b, c, d] = o[0].to_ne_bytes();
        [i16::from_ne_bytes([a, b]), i16::from_ne_bytes([c, d])]
    })
}

/// The element count of a six-dimensional shape, `None` on overflow.
const fn elements6(shape: &[usize; 6]) -> Option<usize> {
    let (mut n, mut d) = (1_usize, 0);
    while d < 6 {
        n = get!(mul(n, shape[d]));
        d += 1;
    }
    Some(n)
}

/// Whether the binary entries ([`add_s8`], ...) run an op of `shape` with its first input at
/// `input_at` and its output at `output_at` (elements) of one buffer: the first input is not
/// broadcast (its shape is the output's), and the two share no element or the input starts at
/// or above the output ([`elementwise_fits`]). The second input, broadcast or not, is a slice
/// of its own. Generated code asserts it at compile time.
#[must_use]
pub const fn binary_fits(shape: &super::BinaryShape, input_at: usize, output_at: usize) -> bool {
    let mut d = 0;
    while d < 6 {
        if shape.input1[d] != shape.output[d] {
            return false;
        }
        d += 1;
    }
    match elements6(&shape.output) {
        Some(len) => elementwise_fits(input_at, output_at, len, 1),
        None => false,
    }
}

/// The elements of the output (and of the first input) of an op of `shape` that the binary
/// entries run on a buffer of `buf_len` elements, the first input at `input_at`, the output at
/// `output_at`: `None` unless [`binary_fits`] and both lie inside the buffer.
#[inline(always)]
pub(super) const fn binary_len(
    shape: &super::BinaryShape,
    buf_len: usize,
    input_at: usize,
    output_at: usize,
) -> Option<usize> {
    let len = get!(elements6(&shape.output));
    if !binary_fits(shape, input_at, output_at)
        || input_at.saturating_add(len) > buf_len
        || output_at.saturating_add(len) > buf_len
    {
        return None;
    }
    Some(len)
}

/// A binary op on one buffer: output element `k` is `f` of the first input's element `k` (in
/// `buf` from `input_at`) and the second input's element that broadcasts to it, for `k` in
/// order, each written after the first input's element is read (TFLM's kernels' memory
/// order). Returns `false`, writing nothing, unless [`binary_fits`] and both fit in `buf`.
#[inline(always)]
fn binary<T: Copy + Default>(
    shape: &super::BinaryShape,
    buf: &mut [T],
    input_at: usize,
    output_at: usize,
    input2: &[T],
    mut f: impl FnMut(T, T) -> T,
) -> bool {
    if binary_len(shape, buf.len(), input_at, output_at).is_none() {
        return false;
    }
    let mut k = 0;
    super::broadcast::walk(shape, |_, j| {
        let value = f(buf[input_at + k], super::at(input2, j));
        buf[output_at + k] = value;
        k += 1;
    });
    true
}

/// One buffer's entry point for each binary kernel: [`binary`] with the kernel's value of each
/// pair of elements; with `, dsp $blocked`, first (cfg `stowplan_dsp`) the kernel's blocked
/// one-buffer loop, which returns `false` for what it declines.
macro_rules! binary_on_one_buffer {
    ($(
        $(#[$doc:meta])*
        $name:ident($params:ty, $t:ty) => $one:path $(, dsp $blocked:path)?;
    )*) => {$(
        $(#[$doc])*
        ///
        /// The first input's elements at `buf[input_at..]`, the output's at `buf[output_at..]`,
        /// the second input's in `input2`; `false` (nothing written) unless [`binary_fits`] and
        /// both fit in `buf`.
        #[inline(never)]
        pub fn $name(
            p: &$params,
            buf: &mut [$t],
            input_at: usize,
            output_at: usize,
            input2: &[$t],
        ) -> bool {
            $(
                #[cfg(stowplan_dsp)]
                if $blocked(p, buf, input_at, output_at, input2) {
                    return true;
                }
            )?
            binary(&p.shape, buf, input_at, output_at, input2, |x, y| $one(p, x, y))
        }
    )*};
}

binary_on_one_buffer! {
    /// [`super::add_s8`] on one buffer.
    ///
    /// With cfg `stowplan_dsp` (Armv7E-M) the same shapes and a scalar second input run
    /// blocked, four elements per load, as [`super::add_s8`] runs them there: each block reads
    /// its four first-input elements before it writes its four outputs, in increasing order
    /// (module docs, "Elementwise ops"); the outputs are the same.
    add_s8(super::AddS8, i8) => super::add::add_s8_one,
        dsp super::simd_elementwise::add_s8_on_one_buffer;
    /// [`super::add_s16`](super::add::add_s16) on one buffer.
    ///
    /// With cfg `stowplan_dsp` blocked as [`add_s8`], four elements (two words) at once.
    add_s16(super::add::AddS16, i16) => super::add::add_s16_one,
        dsp super::simd_elementwise::add_s16_on_one_buffer;
    /// [`super::add_i32`](super::add::add_i32) on one buffer.
    add_i32(super::broadcast::BinaryI32, i32) => super::add::add_i32_one;
    /// [`super::add_f32`] on one buffer.
    add_f32(super::BinaryF32, f32) => super::add::add_f32_one;
    /// [`super::mul_s8`](super::mul::mul_s8) on one buffer.
    ///
    /// With cfg `stowplan_dsp` blocked as [`add_s8`].
    mul_s8(super::mul::MulS8, i8) => super::mul::mul_s8_one,
        dsp super::simd_elementwise::mul_s8_on_one_buffer;
    /// [`super::mul_s16`](super::mul::mul_s16) on one buffer.
    ///
    /// With cfg `stowplan_dsp` blocked as [`add_s8`], four elements (two words) at once, when
    /// both offsets are 0.
    mul_s16(super::mul::MulS16, i16) => super::mul::mul_s16_one,
        dsp super::simd_elementwise::mul_s16_on_one_buffer;
    /// [`super::mul_i32`](super::mul::mul_i32) on one buffer.
    mul_i32(super::broadcast::BinaryI32, i32) => super::mul::mul_i32_one;
    /// [`super::mul_f32`](super::mul::mul_f32) on one buffer.
    mul_f32(super::BinaryF32, f32) => super::mul::mul_f32_one;
}

/// FULLY_CONNECTED's least displacement in elements (input and output of one element type):
/// batch row `b` writes `[b·U, (b+1)·U)` while it reads input row `b`, `[d + b·K, d + (b+1)·K)`
/// (`U` outputs per row, `K` inputs): the row's output must lie below its input row,
/// `(b+1)·U ≤ d + b·K` for every `b`, so `D = max(U, B·U − (B−1)·K)` over the `B` rows (the
/// difference is linear in `b`). `None` without rows or on overflow.
#[must_use]
pub const fn fully_connected_min_displacement(
    batches: usize,
    depth: usize,
    units: usize,
) -> Option<usize> {
    if batches == 0 || units == 0 {
        return None;
    }
    let last = get!(mul(batches, units));
    let below = get!(mul(batches - 1, depth));
    Some(if last > below && last - below > units {
        last - below
    } else {
        units
    })
}

/// Whether the FULLY_CONNECTED entries ([`fully_connected_s8`], ...) run `batches` rows of
/// `depth` inputs and `units` outputs with the input at `input_at` and the output at
/// `output_at` (elements) of one buffer: the two share no element, or the input starts at least
/// [`fully_connected_min_displacement`] above the output. Generated code asserts it at compile
/// time.
#[must_use]
pub const fn fully_connected_fits(
    batches: usize,
    depth: usize,
    units: usize,
    input_at: usize,
    output_at: usize,
) -> bool {
    let (Some(least), Some(i), Some(o)) = (
        fully_connected_min_displacement(batches, depth, units),
        mul(batches, depth),
        mul(batches, units),
    ) else {
        return false;
    };
    let (Some(in_end), Some(out_end)) = (input_at.checked_add(i), output_at.checked_add(o)) else {
        return false;
    };
    if in_end <= output_at || out_end <= input_at {
        return true;
    }
    match input_at.checked_sub(output_at) {
        Some(d) => d >= least,
        None => false,
    }
}

/// Rows of a FULLY_CONNECTED on one buffer: the kernel runs on *chunks* of consecutive rows,
/// in order, each on two disjoint slices split at the chunk's first input row: below, the
/// chunk's output rows; above, its input rows. A chunk grows while its last output row ends at
/// or below that split, so every row's output is written after its input row (and every later
/// one) is read from above it. `kernel(rows, input, output)`. Returns `false`, writing
/// nothing, unless [`fully_connected_fits`] and both fit in `buf`.
#[inline(always)]
fn rows<T>(
    (batches, depth, units): (usize, usize, usize),
    buf: &mut [T],
    input_at: usize,
    output_at: usize,
    mut kernel: impl FnMut(usize, &[T], &mut [T]),
) -> bool {
    if !fully_connected_fits(batches, depth, units, input_at, output_at) {
        return false;
    }
    let (i, o) = (batches * depth, batches * units);
    if input_at.saturating_add(i) > buf.len() || output_at.saturating_add(o) > buf.len() {
        return false;
    }
    if input_at + i <= output_at || output_at + o <= input_at {
        // Disjoint: one call on both.
        if input_at < output_at {
            let (lo, hi) = buf.split_at_mut(output_at);
            kernel(batches, &lo[input_at..input_at + i], &mut hi[..o]);
        } else {
            let (lo, hi) = buf.split_at_mut(input_at);
            kernel(batches, &hi[..i], &mut lo[output_at..output_at + o]);
        }
        return true;
    }
    let mut b = 0;
    while b < batches {
        // Input row `b` starts at `split`; the fit puts output row `b` below it.
        let split = input_at + b * depth;
        let mut e = b + 1;
        while e < batches && output_at + (e + 1) * units <= split {
            e += 1;
        }
        let (lo, hi) = buf.split_at_mut(split);
        kernel(
            e - b,
            &hi[..(e - b) * depth],
            &mut lo[output_at + b * units..output_at + e * units],
        );
        b = e;
    }
    true
}

/// One buffer's entry point for each FULLY_CONNECTED kernel: [`rows`] with the kernel on each
/// chunk, its parameters' `batches` the chunk's rows.
macro_rules! fully_connected_on_one_buffer {
    ($($(#[$doc:meta])* $name:ident => $kernel:path, ($params:ty, $t:ty, $filter:ty, $bias:ty);)*) => {$(
        $(#[$doc])*
        ///
        /// The input's `batches × accum_depth` elements at `buf[input_at..]`, the output's
        /// `batches × output_depth` at `buf[output_at..]`, the filter and bias in slices of
        /// their own; `false` (nothing written) unless [`fully_connected_fits`] and both fit in
        /// `buf`.
        #[inline(never)]
        pub fn $name(
            p: &$params,
            buf: &mut [$t],
            input_at: usize,
            output_at: usize,
            filter: &[$filter],
            bias: Option<&[$bias]>,
        ) -> bool {
            let shape = (p.batches, p.accum_depth, p.output_depth);
            rows(shape, buf, input_at, output_at, |batches, input, output| {
                let mut chunk = *p;
                chunk.batches = batches;
                $kernel(&chunk, input, filter, bias, output);
            })
        }
    )*};
}

fully_connected_on_one_buffer! {
    /// [`super::fully_connected_s8`] on one buffer.
    fully_connected_s8 => super::fully_connected_s8, (super::FullyConnectedS8, i8, i8, i32);
    /// [`super::fully_connected_s8_i4`] on one buffer.
    fully_connected_s8_i4 => super::fully_connected_s8_i4, (super::FullyConnectedS8, i8, u8, i32);
    /// [`super::fully_connected_s16`] on one buffer.
    fully_connected_s16 => super::fully_connected_s16, (super::FullyConnectedS16, i16, i8, i64);
    /// [`super::fully_connected_s16_acc32`] on one buffer.
    fully_connected_s16_acc32 => super::fully_connected_s16_acc32, (super::FullyConnectedS16, i16, i8, i32);
    /// [`super::fully_connected_f32`] on one buffer.
    fully_connected_f32 => super::fully_connected_f32, (super::FullyConnectedF32, f32, f32, f32);
}

/// CONCATENATION's least displacement in elements for its first input over the output: the
/// kernel copies, for each of the `outer` positions in turn, each input's next chunk
/// (`inners[i]` elements), so before it reads the first input's chunk `k` (at `d + k·L`, `L =
/// inners[0]`) it has written the output up to `k·R` (`R` the sum of `inners`): `k·R ≤ d + k·L`
/// for every `k`, `D = (outer − 1)·(R − L)`; the chunk itself moves within the buffer (a
/// `copy_within`). `None` without inputs or positions, or on overflow.
#[must_use]
pub const fn concatenation_min_displacement(outer: usize, inners: &[usize]) -> Option<usize> {
    if outer == 0 || inners.is_empty() {
        return None;
    }
    let (mut row, mut i) = (0_usize, 0);
    while i < inners.len() {
        row = get!(add(row, inners[i]));
        i += 1;
    }
    mul(outer - 1, row - inners[0])
}

/// Whether [`concatenation`] runs `outer` positions of `inners` with its first input at
/// `input_at` and its output at `output_at` (elements) of one buffer: the two share no
/// element, or the input starts at least [`concatenation_min_displacement`] above the output.
/// Generated code asserts it at compile time.
#[must_use]
pub const fn concatenation_fits(
    outer: usize,
    inners: &[usize],
    input_at: usize,
    output_at: usize,
) -> bool {
    let Some(least) = concatenation_min_displacement(outer, inners) else {
        return false;
    };
    let (mut row, mut i) = (0_usize, 0);
    while i < inners.len() {
        row = match add(row, inners[i]) {
            Some(r) => r,
            None => return false,
        };
        i += 1;
    }
    let (Some(n_in), Some(n_out)) = (mul(outer, inners[0]), mul(outer, row)) else {
        return false;
    };
    let (Some(in_end), Some(out_end)) = (input_at.checked_add(n_in), output_at.checked_add(n_out))
    else {
        return false;
    };
    if in_end <= output_at || out_end <= input_at {
        return true;
    }
    match input_at.checked_sub(output_at) {
        Some(d) => d >= least,
        None => false,
    }
}

/// [`super::concatenation`] with its first input and the output on one buffer (no
/// parameters: `()`): the first input's `outer × inners[0]` elements at `buf[input_at..]`, the
/// output's at `buf[output_at..]`, the other inputs in `rest` (input `i + 1` in `rest[i]`).
/// The output is written in the kernel's order, each chunk of the first input moved by
/// `copy_within` after every chunk before it is written. Returns `false`, writing nothing,
/// unless [`concatenation_fits`], `rest` has an entry for each other input, and both fit in
/// `buf`.
#[inline(never)]
pub fn concatenation<T: Copy>(
    _: &(),
    buf: &mut [T],
    input_at: usize,
    output_at: usize,
    outer: usize,
    inners: &[usize],
    rest: &[&[T]],
) -> bool {
    if !concatenation_fits(outer, inners, input_at, output_at) || rest.len() + 1 != inners.len() {
        return false;
    }
    let row: usize = inners.iter().sum();
    let first = inners[0];
    if input_at.saturating_add(outer * first) > buf.len()
        || output_at.saturating_add(outer * row) > buf.len()
    {
        return false;
    }
    let mut at = output_at;
    for k in 0..outer {
        let from = input_at + k * first;
        buf.copy_within(from..from + first, at);
        at += first;
        for (input, &inner) in rest.iter().zip(&inners[1..]) {
            let start = k.wrapping_mul(inner);
            let chunk = input.get(start..).unwrap_or(&[]).iter().take(inner);
            // Each input holds `outer × inner` elements (the kernel's precondition); a short
            // one leaves the rest of its part of the output as it was.
            for (o, &i) in buf[at..at + inner].iter_mut().zip(chunk) {
                *o = i;
            }
            at += inner;
        }
    }
    true
}

/// PAD's least displacement in elements: writing its output in order over its input, output
/// element `k` is written after the input element it covers is read, and lies below every input
/// element still to be read when the input starts at least the padding written before the
/// input's last element above the output: `q − (n − 1)`, with `q` the output index of input
/// element `n − 1`, the last. `None` for an empty input, shapes that do not hold the input
/// (`before[d] + input[d] > output[d]`) or sizes that overflow.
#[must_use]
pub const fn pad_min_displacement(p: &super::Pad) -> Option<usize> {
    let (mut q, mut last) = (0_usize, 0_usize);
    let (mut out_stride, mut in_stride) = (1_usize, 1_usize);
    let mut d = 5;
    while d > 0 {
        d -= 1;
        let (i, o, b) = (p.input[d], p.output[d], p.before[d]);
        if i == 0 || get!(add(b, i)) > o {
            return None;
        }
        q = get!(add(q, get!(mul(b + i - 1, out_stride))));
        last = get!(add(last, get!(mul(i - 1, in_stride))));
        out_stride = get!(mul(out_stride, o));
        in_stride = get!(mul(in_stride, i));
    }
    q.checked_sub(last)
}

/// Whether [`pad`] runs `p` with its input at `input_at` and its output at `output_at`
/// (elements) of one buffer: the two share no element, or the input starts at least
/// [`pad_min_displacement`] above the output. Generated code asserts it at compile time.
#[must_use]
pub const fn pad_fits(p: &super::Pad, input_at: usize, output_at: usize) -> bool {
    let (Some(least), Some(i), Some(o)) = (
        pad_min_displacement(p),
        elements5(&p.input),
        elements5(&p.output),
    ) else {
        return false;
    };
    let (Some(in_end), Some(out_end)) = (input_at.checked_add(i), output_at.checked_add(o)) else {
        return false;
    };
    if in_end <= output_at || out_end <= input_at {
        return true;
    }
    match input_at.checked_sub(output_at) {
        Some(d) => d >= least,
        None => false,
    }
}

/// The element count of a five-dimensional shape, `None` on overflow.
const fn elements5(shape: &[usize; 5]) -> Option<usize> {
    mul(
        get!(mul(
            get!(mul(shape[0], shape[1])),
            get!(mul(shape[2], shape[3]))
        )),
        shape[4],
    )
}

/// [`super::pad`] on one buffer: the input's elements at `buf[input_at..]`, the output's at
/// `buf[output_at..]`, output elements written in order, each after the input element it covers
/// is read. Returns `false`, writing nothing, unless [`pad_fits`] and both fit in `buf`.
pub fn pad<T: Copy>(
    p: &super::Pad,
    buf: &mut [T],
    input_at: usize,
    output_at: usize,
    pad_value: T,
) -> bool {
    let (Some(i), Some(o)) = (elements5(&p.input), elements5(&p.output)) else {
        return false;
    };
    if !pad_fits(p, input_at, output_at)
        || input_at.saturating_add(i) > buf.len()
        || output_at.saturating_add(o) > buf.len()
    {
        return false;
    }
    if input_at + i <= output_at {
        // The input wholly below the output.
        let (lo, hi) = buf.split_at_mut(output_at);
        super::pad(p, &lo[input_at..input_at + i], pad_value, &mut hi[..o]);
        return true;
    }
    let mut k = output_at;
    super::pad::pad_walk(p, |j| {
        let value = j
            .and_then(|j| buf.get(input_at + j).copied())
            .unwrap_or(pad_value);
        if let Some(slot) = buf.get_mut(k) {
            *slot = value;
        }
        k += 1;
    });
    true
}

#[cfg(test)]
mod ops_tests;

#[cfg(test)]
mod tests {
    use super::super::ConvF32;
    use super::super::conv::conv2d_f32_part;
    use super::super::conv::{ConvS8, conv2d_s8_portable};
    use super::super::depthwise_conv::depthwise_conv2d_s8_portable;
    use super::*;
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    pub(super) struct Rng(pub(super) u64);
    impl Rng {
        pub(super) fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        pub(super) fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Cases per test: fewer under miri.
    pub(super) const CASES: usize = if cfg!(miri) { 6 } else { 600 };

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

    /// The least input element each output pixel (batch, y, x, in order) reads, from the
    /// geometry alone: its window's first row and column, clamped into the input.
    fn first_reads(g: &ConvGeometry) -> Vec<usize> {
        let [n, h, w, c] = g.input;
        let [_, oh, ow, _] = g.output;
        let mut reads = Vec::new();
        for b in 0..n {
            for y in 0..oh {
                for x in 0..ow {
                    let top = (y * g.stride_h).saturating_sub(g.pad_h).min(h);
                    let left = (x * g.stride_w).saturating_sub(g.pad_w).min(w);
                    reads.push(((b * h + top) * w + left) * c);
                }
            }
        }
        reads
    }

    /// The constant-time maxima are the maxima over every pixel and every row: `D` with each
    /// pixel's read base the least first read of it and every later pixel.
    #[test]
    fn min_displacement_is_the_most_any_pixel_needs() {
        let mut rng = Rng(0x0d15_7ace);
        for case in 0..CASES * 4 {
            let g = random_geometry(&mut rng, case % 2 == 1);
            let [_, oh, ow, oc] = g.output;
            let reads = first_reads(&g);
            let mut later = usize::MAX;
            let mut every = 0;
            for (p, &r) in reads.iter().enumerate().rev() {
                later = later.min(r);
                every = every.max(((p + 1) * oc).saturating_sub(later));
            }
            assert_eq!(min_displacement(&g), Some(every), "{g:?}");
            let pointwise = Walk::of(&g).unwrap().pointwise;
            let rows = if pointwise {
                reads.len() * oc
            } else {
                (0..reads.len() / ow)
                    .map(|row| ((row + 1) * ow * oc).saturating_sub(reads[row * ow]))
                    .max()
                    .unwrap()
            };
            assert_eq!(row_displacement(&g), Some(rows), "{g:?}");
            assert!(rows >= every && oh > 0);
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
        // 3 x 3, stride 1, SAME: from row 1 on, pixel x (x ≥ 1) ends one row and two pixels
        // past its window's corner, input pixel x − 1 of the row above; whole rows end two
        // input rows past the start of the row above.
        let dw = g([1, 48, 48, 8], [3, 3], [1, 48, 48, 8], 1, 1);
        assert_eq!(min_displacement(&dw), Some(48 * 8 + 2 * 8));
        assert_eq!(row_displacement(&dw), Some(2 * 48 * 8));
        // Stride 2 halving the rows, 1 -> 8 channels: pixel (y, x) ends at
        // (48y + x + 1) · 8 and reads from input pixel (2y, 2x) (of one element); row y ends
        // at (y + 1) · 384 and reads from input row 2y (of 96 elements).
        let first = g([1, 96, 96, 1], [3, 3], [1, 48, 48, 8], 2, 0);
        assert_eq!(min_displacement(&first), Some(2304 * 8 - (94 * 96 + 94)));
        let rows = (0..48).map(|y| (y + 1) * 384 - 2 * y * 96).max();
        assert_eq!(row_displacement(&first), rows);
        // Zero dimensions and windows of padding only have no walk.
        let empty = g([1, 0, 4, 1], [1, 1], [1, 0, 4, 1], 1, 0);
        assert_eq!(min_displacement(&empty), None);
        let padding = g([1, 2, 2, 1], [1, 1], [1, 4, 2, 1], 1, 2);
        assert_eq!(min_displacement(&padding), None);
        assert!(!overlapped(
            &padding,
            &mut [0_u8; 64],
            8,
            0,
            |_, _, _, _| {}
        ));
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
        // Chunks of pixels of one row, and those with pixels skipped.
        let (mut runs, mut skipping) = (0, 0);
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
                let done = overlapped(&g, &mut buf, d, 0, |sub, part, i, o| {
                    let skipped = part.skip * sub.input[3];
                    assert_eq!(
                        i.len(),
                        elements(sub.input) - skipped,
                        "{g:?} d {d}: {sub:?}"
                    );
                    if part != Part::WHOLE {
                        runs += 1;
                        skipping += usize::from(part.skip > 0);
                        // A run of one row's pixels.
                        assert_eq!(sub.output[1], 1, "{g:?} d {d}: {sub:?}");
                        assert!(
                            part.x0 + sub.output[2] <= g.output[2],
                            "{g:?} d {d}: {part:?}"
                        );
                    }
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
                let done = overlapped(&g, &mut buf, least - 1, 0, |_, _, i, _| {
                    assert!(i.iter().all(|x| matches!(x, Cell::Input(_))));
                });
                assert!(!done, "{g:?} at D − 1 = {}", least - 1);
            }
        }
        assert!(
            runs > CASES && skipping > CASES / 4,
            "{runs} runs, {skipping} skipping"
        );
    }

    // 24 multipliers of the models' form (the blocked kernels' tests'), for up to 24 output
    // channels.
    pub(super) use super::super::simd::tests::REQUANT;

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
            let kernel = |sub: &ConvGeometry, part: Part, i: &[i8], o: &mut [i8]| {
                let p = ConvS8 {
                    geometry: *sub,
                    ..p
                };
                let bias = Some(&bias[..]);
                let simd = super::super::simd::conv1x1_s8;
                match (depthwise, blocked) {
                    (false, true) if part == Part::WHOLE && simd(&p, i, &filter, bias, o) => {}
                    (true, true)
                        if super::super::simd::depthwise_s8(&p, part, i, &filter, bias, o) => {}
                    (false, _) => conv2d_s8_portable(&p, part, i, &filter, bias, o),
                    (true, _) => depthwise_conv2d_s8_portable(&p, part, i, &filter, bias, o),
                }
            };
            let mut expected = vec![0_i8; output];
            kernel(&g, Part::WHOLE, &x, &mut expected);
            for d in displacements(&mut rng, least, output) {
                let mut buf = vec![0x55_i8; (d + input).max(output)];
                buf[d..d + input].copy_from_slice(&x);
                assert!(overlapped(&g, &mut buf, d, 0, &kernel), "{g:?} d {d}");
                assert_eq!(
                    buf[..output],
                    expected[..],
                    "{g:?} at d = {d} (D = {least})"
                );
                // The entry point generated code calls (its loop of its own).
                let mut buf = vec![0x55_i8; (d + input).max(output)];
                buf[d..d + input].copy_from_slice(&x);
                let entry = if depthwise {
                    depthwise_conv2d_s8
                } else {
                    conv2d_s8
                };
                assert!(
                    entry(&p, &mut buf, d, 0, &filter, Some(&bias)),
                    "{g:?} d {d}"
                );
                assert_eq!(buf[..output], expected[..], "entry, {g:?} at d = {d}");
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
                let entry = if depthwise {
                    depthwise_conv2d_s8
                } else {
                    conv2d_s8
                };
                assert!(!entry(&p, &mut buf, least - 1, 0, &filter, Some(&bias)));
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
                let runs = overlapped(&g, &mut buf, i, o, |_, _, _, _| {});
                assert_eq!(fits(&g, i, o), runs, "{g:?} input at {i}, output at {o}");
            }
        }
    }

    /// A random pool geometry (windows up to 3 x 3, strides up to 2, SAME or VALID).
    fn random_pool(rng: &mut Rng) -> PoolGeometry {
        loop {
            let n = 1 + rng.below(2);
            let (h, w, c) = (1 + rng.below(9), 1 + rng.below(8), 1 + rng.below(5));
            let (fh, fw) = (1 + rng.below(3), 1 + rng.below(3));
            let (sh, sw) = (1 + rng.below(2), 1 + rng.below(2));
            let same = rng.below(2) == 0;
            let (Some((oh, ph)), Some((ow, pw))) =
                (dimension(h, fh, sh, 1, same), dimension(w, fw, sw, 1, same))
            else {
                continue;
            };
            return PoolGeometry {
                input: [n, h, w, c],
                output: [n, oh, ow, c],
                filter_h: fh,
                filter_w: fw,
                stride_h: sh,
                stride_w: sw,
                pad_h: ph,
                pad_w: pw,
            };
        }
    }

    /// The int8, int16 and float pools on one buffer give what they give on two, at `D` and
    /// above, disjoint, and refuse one element closer.
    #[test]
    fn pools_on_one_buffer_equal_two_buffers() {
        let mut rng = Rng(0x0b00_1500);
        for case in 0..CASES {
            let g = random_pool(&mut rng);
            let least = min_displacement(&pool_walk(&g)).expect("a walk");
            let (input, output) = (elements(g.input), elements(g.output));
            let x: Vec<i8> = (0..input).map(|_| rng.next() as i8).collect();
            let (act_min, act_max) = (-100 + rng.below(20) as i32, 100 - rng.below(20) as i32);
            let p8 = PoolS8 {
                geometry: g,
                act_min,
                act_max,
            };
            let p16 = PoolS16 {
                geometry: g,
                act_min: act_min * 200,
                act_max: act_max * 200,
            };
            let pf = PoolF32 {
                geometry: g,
                act_min: -1.5,
                act_max: 1.5,
            };
            let avg = case % 2 == 0;
            let mut want8 = vec![0_i8; output];
            let mut want16 = vec![0_i16; output];
            let mut wantf = vec![0.0_f32; output];
            let x16: Vec<i16> = x.iter().map(|&v| i16::from(v) * 251).collect();
            let xf: Vec<f32> = x.iter().map(|&v| f32::from(v) / 64.0).collect();
            if avg {
                super::super::average_pool_s8(&p8, &x, &mut want8);
                super::super::average_pool_s16(&p16, &x16, &mut want16);
                super::super::average_pool_f32(&pf, &xf, &mut wantf);
            } else {
                super::super::max_pool_s8(&p8, &x, &mut want8);
                super::super::max_pool_s16(&p16, &x16, &mut want16);
                super::super::max_pool_f32(&pf, &xf, &mut wantf);
            }
            let ds = displacements(&mut rng, least, output);
            for (k, d) in ds.into_iter().chain([least.wrapping_sub(1)]).enumerate() {
                // The last: one element closer than `D` (refused where it shares elements).
                let refused = k == ds.len();
                if refused && (least == 0 || least >= output) {
                    continue;
                }
                let len = (d + input).max(output);
                let mut b8 = vec![0x55_i8; len];
                b8[d..d + input].copy_from_slice(&x);
                let mut b16 = vec![0x5555_i16; len];
                b16[d..d + input].copy_from_slice(&x16);
                let mut bf = vec![7.0_f32; len];
                bf[d..d + input].copy_from_slice(&xf);
                let runs = if avg {
                    [
                        average_pool_s8(&p8, &mut b8, d, 0),
                        average_pool_s16(&p16, &mut b16, d, 0),
                        average_pool_f32(&pf, &mut bf, d, 0),
                    ]
                } else {
                    [
                        max_pool_s8(&p8, &mut b8, d, 0),
                        max_pool_s16(&p16, &mut b16, d, 0),
                        max_pool_f32(&pf, &mut bf, d, 0),
                    ]
                };
                assert_eq!(runs, [!refused; 3], "{g:?} d {d} (D = {least})");
                assert_eq!(pool_fits(&g, d, 0), !refused, "{g:?} d {d}");
                if !refused {
                    assert_eq!(b8[..output], want8[..], "{g:?} d {d}");
                    assert_eq!(b16[..output], want16[..], "{g:?} d {d}");
                    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&bf[..output]), bits(&wantf), "{g:?} d {d}");
                }
            }
        }
    }

    /// QUANTIZE (int8, int16, int16 to int8) and the int8 LOGISTIC on one buffer give what
    /// they give on two, with the input at the output's start (a full alias), above it,
    /// disjoint on either side; the input below the output and overlapping it is refused.
    #[test]
    fn elementwise_on_one_buffer_equals_two_buffers() {
        let mut rng = Rng(0x0e1e_0001);
        for case in 0..CASES {
            let len = 1 + rng.below(40);
            let p = super::super::Requantize {
                input_offset: (rng.next() % 256) as i32 - 128,
                output_offset: (rng.next() % 21) as i32 - 10,
                requant: REQUANT[case % REQUANT.len()],
            };
            let l = super::super::LogisticS8 {
                input_zero_point: (rng.next() % 41) as i32 - 20,
                input_range_radius: 90 + rng.below(40) as i32,
                input_multiplier: 1_500_000_000 + rng.below(500_000_000) as i32,
                input_left_shift: 18 + rng.below(6) as i32,
            };
            let x8: Vec<i8> = (0..len).map(|_| rng.next() as i8).collect();
            let x16: Vec<i16> = (0..len).map(|_| rng.next() as i16).collect();
            let mut want = (
                vec![0_i8; len],
                vec![0_i16; len],
                vec![0_i8; len],
                vec![0_i8; len],
            );
            super::super::requantize_s8(&p, &x8, &mut want.0);
            super::super::requantize_s16(&p, &x16, &mut want.1);
            super::super::requantize_s16_s8(&p, &x16, &mut want.2);
            super::super::logistic_s8(&l, &x8, &mut want.3);
            // (input at, output at): a full alias, the input above, disjoint both ways, and
            // the input one element below the output (refused).
            let gap = rng.below(3);
            for (at, (ia, oa)) in [
                (0, 0),
                (gap + 1, 0),
                (2 * len + gap, 0),
                (0, 2 * len + gap),
                (0, 1),
            ]
            .into_iter()
            .enumerate()
            {
                let refused = at == 4 && len > 1;
                let n = 2 * (ia + oa + 2 * len + 1);
                let mut b8 = vec![0x55_i8; n];
                b8[ia..ia + len].copy_from_slice(&x8);
                assert_eq!(requantize_s8(&p, &mut b8, ia, oa, len), !refused);
                if !refused {
                    assert_eq!(b8[oa..oa + len], want.0[..], "requantize_s8 {ia} {oa}");
                }
                let mut b16 = vec![0x55_i16; n];
                b16[ia..ia + len].copy_from_slice(&x16);
                assert_eq!(requantize_s16(&p, &mut b16, ia, oa, len), !refused);
                if !refused {
                    assert_eq!(b16[oa..oa + len], want.1[..], "requantize_s16 {ia} {oa}");
                }
                // int16 to int8 on bytes: the input's two bytes per element.
                let mut bytes = vec![0x55_i8; n];
                for (k, v) in x16.iter().enumerate() {
                    let [lo, hi] = v.to_le_bytes();
                    (bytes[ia + 2 * k], bytes[ia + 2 * k + 1]) = (lo as i8, hi as i8);
                }
                let oa2 = if oa == 0 { 0 } else { oa + len };
                let ok = requantize_s16_s8(&p, &mut bytes, ia, oa2, len);
                assert_eq!(ok, !refused, "requantize_s16_s8 {ia} {oa2}");
                if !refused {
                    assert_eq!(
                        bytes[oa2..oa2 + len],
                        want.2[..],
                        "requantize_s16_s8 {ia} {oa2}"
                    );
                }
                let mut b8 = vec![0x55_i8; n];
                b8[ia..ia + len].copy_from_slice(&x8);
                assert_eq!(logistic_s8(&l, &mut b8, ia, oa, len), !refused);
                if !refused {
                    assert_eq!(b8[oa..oa + len], want.3[..], "logistic_s8 {ia} {oa}");
                }
                assert_eq!(elementwise_fits(ia, oa, len, 1), !refused);
            }
            assert!(want.3.iter().any(|&v| v != want.3[0]) || len < 8);
        }
    }

    /// The int8 TANH, RELU and RELU6 on one buffer give what they give on two, aliased, above,
    /// disjoint; the input one element below the output (and overlapping it) is refused.
    #[test]
    fn activations_on_one_buffer_equal_two_buffers() {
        let mut rng = Rng(0x0ac7_0001);
        for case in 0..CASES {
            let len = 2 + rng.below(40);
            let t = super::super::TanhS8 {
                input_zero_point: (rng.next() % 41) as i32 - 20,
                input_range_radius: 90 + rng.below(40) as i32,
                input_multiplier: 1_500_000_000 + rng.below(500_000_000) as i32,
                input_left_shift: 18 + rng.below(6) as i32,
            };
            let r = super::super::ReluS8 {
                input_offset: (rng.next() % 41) as i32 - 20,
                output_offset: (rng.next() % 21) as i32 - 10,
                requant: REQUANT[case % REQUANT.len()],
                act_min: -128 + rng.below(100) as i32,
                act_max: 127,
            };
            let r6 = super::super::Relu6S8 {
                zero: (rng.next() % 41) as i8 - 20,
                six: 60 + (rng.next() % 60) as i8,
            };
            let x: Vec<i8> = (0..len).map(|_| rng.next() as i8).collect();
            let mut want = (vec![0_i8; len], vec![0_i8; len], vec![0_i8; len]);
            super::super::tanh_s8(&t, &x, &mut want.0);
            super::super::relu_s8(&r, &x, &mut want.1);
            super::super::relu6_s8(&r6, &x, &mut want.2);
            let gap = rng.below(3);
            for (ia, oa) in [(0, 0), (gap + 1, 0), (len + gap, 0), (0, len + gap), (0, 1)] {
                let refused = (ia, oa) == (0, 1);
                let n = 2 * (ia + oa + len + 1);
                let run = |f: &dyn Fn(&mut [i8]) -> bool, want: &[i8]| {
                    let mut buf = vec![0x55_i8; n];
                    buf[ia..ia + len].copy_from_slice(&x);
                    assert_eq!(f(&mut buf), !refused, "{ia} {oa}");
                    if !refused {
                        assert_eq!(buf[oa..oa + len], *want, "{ia} {oa}");
                    }
                };
                run(&|b| tanh_s8(&t, b, ia, oa, len), &want.0);
                run(&|b| relu_s8(&r, b, ia, oa, len), &want.1);
                run(&|b| relu6_s8(&r6, b, ia, oa, len), &want.2);
            }
        }
    }

    /// PAD on one buffer gives what it gives on two at its least displacement (the most any
    /// input element's output index exceeds its own, found by walking the output), above it
    /// and disjoint, and refuses one element closer.
    #[test]
    fn pad_on_one_buffer_equals_two_buffers() {
        let mut rng = Rng(0x9ad0_0001);
        for _ in 0..CASES {
            let mut p = super::super::Pad {
                input: [1; 5],
                output: [1; 5],
                before: [0; 5],
            };
            for d in 5 - (1 + rng.below(4))..5 {
                p.input[d] = 1 + rng.below(4);
                p.before[d] = rng.below(3);
                p.output[d] = p.input[d] + p.before[d] + rng.below(3);
            }
            let (i, o) = (elements5(&p.input).unwrap(), elements5(&p.output).unwrap());
            let mut q = Vec::new();
            let mut k = 0;
            super::super::pad::pad_walk(&p, |j| {
                if j.is_some() {
                    q.push(k);
                }
                k += 1;
            });
            let least = q.iter().enumerate().map(|(j, &q)| q - j).max().unwrap();
            assert_eq!(pad_min_displacement(&p), Some(least), "{p:?}");
            let x: Vec<i16> = (0..i).map(|_| rng.next() as i16).collect();
            let mut want = vec![0_i16; o];
            super::super::pad(&p, &x, -7, &mut want);
            for d in [least, least + 1, o + rng.below(3)] {
                let mut buf = vec![0x5555_i16; (d + i).max(o)];
                buf[d..d + i].copy_from_slice(&x);
                assert!(pad(&p, &mut buf, d, 0, -7), "{p:?} d {d}");
                assert_eq!(buf[..o], want[..], "{p:?} d {d} (D = {least})");
            }
            // The input wholly below the output.
            let mut buf = vec![0_i16; i + o];
            buf[..i].copy_from_slice(&x);
            assert!(pad(&p, &mut buf, 0, i, -7));
            assert_eq!(buf[i..], want[..], "{p:?} below");
            if least > 0 && least < o {
                let mut buf = vec![0x5555_i16; least - 1 + i + o];
                assert!(!pad(&p, &mut buf, least - 1, 0, -7), "{p:?} D − 1");
                assert!(!pad_fits(&p, least - 1, 0));
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
            let kernel = |sub: &ConvGeometry, part: Part, i: &[f32], o: &mut [f32]| {
                conv2d_f32_part(
                    &ConvF32 {
                        geometry: *sub,
                        ..p
                    },
                    part,
                    i,
                    &filter,
                    None,
                    o,
                );
            };
            let mut expected = vec![0.0_f32; output];
            kernel(&g, Part::WHOLE, &x, &mut expected);
            let mut buf = vec![0.0_f32; (least + input).max(output)];
            buf[least..least + input].copy_from_slice(&x);
            assert!(overlapped(&g, &mut buf, least, 0, &kernel));
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&buf[..output]), bits(&expected), "{g:?}");
        }
    }
}
