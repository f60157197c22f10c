//! The driver that runs an op with its output over the input it consumes (one buffer holds
//! both, the input `d` elements above the output's start): the walk of a window op's output
//! pixels in chunks, the least displacements, and the walks of the elementwise and binary ops.
//! Each op's one-buffer entries are in its own folder (`conv::in_place`, `pooling::in_place`,
//! ...) and call what is here; the public module [`overlap`](crate::kernels::overlap) lists
//! them all, and its documentation gives the order kept and every least displacement.

use super::broadcast::BinaryShape;
use super::check::KernelError;
use super::window::{ConvGeometry, Part};

pub(crate) struct Walk {
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
pub(crate) const fn mul(a: usize, b: usize) -> Option<usize> {
    a.checked_mul(b)
}

/// `a + b`, `None` on overflow (a `const` helper).
pub(crate) const fn add(a: usize, b: usize) -> Option<usize> {
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
pub(crate) use get;

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
    /// 0 when the next row's windows start at the same input row (the [`overlap` docs](crate::kernels::overlap)).
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
pub(crate) const fn most(walk: &Walk, rows_only: bool) -> usize {
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
/// [`overlap` docs](crate::kernels::overlap)). `None` if the geometry's sizes overflow, a dimension is zero, or an
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

/// The driver's walk of one op on one buffer (the [`overlap` docs](crate::kernels::overlap)): [`Steps::next`] gives
/// the chunks in order, each with its elements of the buffer.
pub(crate) struct Steps {
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
    pub(crate) fn new(
        g: &ConvGeometry,
        len: usize,
        input_at: usize,
        output_at: usize,
    ) -> Option<Self> {
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
    pub(crate) fn next(&mut self, g: &ConvGeometry, sub: &mut impl Shaped) -> Option<Option<Run>> {
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
pub(crate) struct Run {
    pub(crate) part: Part,
    pub(crate) input_at: (usize, usize),
    pub(crate) output_at: (usize, usize),
}

impl Run {
    /// The run's two disjoint slices of `buf`, its input and its output.
    #[inline(always)]
    pub(crate) fn slices<'a, T>(&self, buf: &'a mut [T]) -> (&'a [T], &'a mut [T]) {
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
/// of the [`overlap` docs](crate::kernels::overlap). `kernel(sub, part, input, output)` is the op's kernel on a
/// chunk: `sub` is `g` for the chunk's rows (or pixels), `part` the chunk's first output column
/// and skipped input pixels, `input` its input and `output` its output elements, disjoint
/// slices of `buf`; it is called for the chunks in order. (The entry points below run the same
/// loop with their kernel written in it, so that it is inlined into one frame.)
///
/// Returns `true` when every chunk ran: the two do not share an element, or the input starts
/// at least [`min_displacement`](crate::kernels::overlap::min_displacement) elements above the output. Returns `false` without calling
/// `kernel` when a tensor does not fit in `buf` or the geometry has no walk, and `false` after
/// the chunks before it when a pixel cannot run (the input too close above the output, or
/// below it and overlapping).
#[cfg(test)]
pub(crate) fn overlapped<T>(
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
pub(crate) struct Chunk {
    pub(crate) input: [usize; 3],
    pub(crate) output: [usize; 3],
    pub(crate) pad_h: usize,
    pub(crate) part: Part,
    pub(crate) input_at: (usize, usize),
    pub(crate) output_at: (usize, usize),
}

/// A kernel's geometry, which the driver makes each chunk's in turn.
pub(crate) trait Shaped {
    /// Makes `self` (the op's geometry, or an earlier chunk's) `chunk`'s.
    fn shape(&mut self, chunk: &Chunk);
}

/// [`Shaped`] for the geometries with NHWC `input` and `output` shapes and a `pad_h`.
macro_rules! shaped {
    ($($geometry:ty),*) => {$(
        impl $crate::kernels::shared::in_place::Shaped for $geometry {
            #[inline(always)]
            fn shape(&mut self, chunk: &$crate::kernels::shared::in_place::Chunk) {
                let ([n, h, w], [on, oh, ow]) = (chunk.input, chunk.output);
                (self.input[0], self.input[1], self.input[2]) = (n, h, w);
                (self.output[0], self.output[1], self.output[2]) = (on, oh, ow);
                self.pad_h = chunk.pad_h;
            }
        }
    )*};
}

shaped!(ConvGeometry);
pub(crate) use shaped;

impl Walk {
    /// The chunk from pixel `x` of output row `row` of `g` at displacement `d` (the [`overlap`
    /// docs](crate::kernels::overlap)), with the row and pixel after it; `None` if that pixel cannot run.
    pub(crate) fn chunk(
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
/// [`min_displacement`](crate::kernels::overlap::min_displacement) above the output. Generated code asserts it at compile time for the
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
pub(crate) const fn elements(shape: &[usize; 4]) -> Option<usize> {
    mul(get!(mul(shape[0], shape[1])), get!(mul(shape[2], shape[3])))
}
/// Whether a tensor of `input` elements at `input_at` and one of `output` elements at
/// `output_at` both lie in a buffer of `buf` elements.
pub(crate) const fn inside_buffer(
    buf: usize,
    input_at: usize,
    input: usize,
    output_at: usize,
    output: usize,
) -> bool {
    match (input_at.checked_add(input), output_at.checked_add(output)) {
        (Some(in_end), Some(out_end)) => in_end <= buf && out_end <= buf,
        _ => false,
    }
}

/// The placement a window kernel's one-buffer entry needs: the input and the output inside
/// the buffer and [`fits`] (apart, or the input at least the least displacement above).
///
/// # Errors
///
/// [`KernelError::Placement`] otherwise, [`KernelError::Length`] for a geometry whose sizes
/// overflow.
pub(crate) const fn window_placement(
    g: &ConvGeometry,
    buf: usize,
    input_at: usize,
    output_at: usize,
) -> Result<(usize, usize), KernelError> {
    let (Some(i), Some(o)) = (elements(&g.input), elements(&g.output)) else {
        return Err(KernelError::Length {
            operand: "buf",
            expected: None,
            found: buf,
        });
    };
    if inside_buffer(buf, input_at, i, output_at, o) && fits(g, input_at, output_at) {
        Ok((i, o))
    } else {
        Err(KernelError::Placement)
    }
}

/// One buffer's entry point for each CONV_2D and DEPTHWISE_CONV_2D kernel (`$name`), its check
/// (`$check_name`: the placement and the kernel's own `$check` on the geometry's lengths) and
/// its proven entry (`$proven::$name`, what generated code calls): the driver with the kernel on
/// each chunk's part (`$kernel`, a path from the crate's root, inlined, so that an op is one
/// call of a kernel function, as the instruction counter's per-op table takes it), its
/// parameters' geometry the chunk's. Never inlined itself, for the same reason. An entry may
/// name a walk of its own (`$own`, inlined: `true` when it ran the op), tried first; one that
/// runs for a kernel constant leaves the driver's loop out of that constant's entry.
macro_rules! on_one_buffer {
    (mod $proven:ident; $($(#[$doc:meta])* $name:ident $(<$k:ident>)? $(($own:path))?, $check_name:ident => $kernel:path, $check:path, ($params:ident, $t:ty, $filter:ty, $bias:ty);)*) => {
        $(
        $(#[$doc])*
        ///
        /// The input's elements at `buf[input_at..]`, the output's at `buf[output_at..]`: the two
        /// share no element, or the input starts at least
        /// [`min_displacement`](crate::kernels::overlap::min_displacement) elements above the
        /// output.
        ///
        /// # Errors
        ///
        #[doc = concat!("[`KernelError`](crate::kernels::KernelError), with nothing written, unless [`", stringify!($check_name), "`] holds.")]
        #[must_use = "the kernel writes nothing when it returns an error"]
        pub fn $name $(<const $k: u8>)? (
            p: &$params,
            buf: &mut [$t],
            input_at: usize,
            output_at: usize,
            filter: &[$filter],
            bias: Option<&[$bias]>,
        ) -> Result<(), $crate::kernels::KernelError> {
            $check_name $(::<$k>)? (p, buf.len(), input_at, output_at, filter.len(), bias.map(<[$bias]>::len))?;
            $proven::$name $(::<$k>)? (p, buf, input_at, output_at, filter, bias);
            Ok(())
        }

        #[doc = concat!("The preconditions of [`", stringify!($name), "`], on the lengths of its slices (`bias`: `None` for no bias): the placement of the input and the output in the buffer (both inside it, and [`fits`](crate::kernels::overlap::fits)) and the two-buffer kernel's check on the lengths the geometry gives them. Generated code asserts it when the crate compiles.")]
        ///
        /// # Errors
        ///
        /// The first that does not hold.
        pub const fn $check_name $(<const $k: u8>)? (
            p: &$params,
            buf: usize,
            input_at: usize,
            output_at: usize,
            filter: usize,
            bias: Option<usize>,
        ) -> Result<(), $crate::kernels::KernelError> {
            match $crate::kernels::shared::in_place::window_placement(&p.geometry, buf, input_at, output_at) {
                Ok((input, output)) => $check(p, input, filter, bias, output),
                Err(e) => Err(e),
            }
        }
        )*

        /// The entries generated code calls once it has asserted their checks when the crate
        /// compiled (asserted again in debug builds).
        #[doc(hidden)]
        pub mod $proven {
            use super::*;
            $(
            #[doc = concat!("[`", stringify!($name), "`](super::", stringify!($name), "), its check proven.")]
            #[inline(never)]
            pub fn $name $(<const $k: u8>)? (
                p: &$params,
                buf: &mut [$t],
                input_at: usize,
                output_at: usize,
                filter: &[$filter],
                bias: Option<&[$bias]>,
            ) {
                debug_assert!(
                    super::$check_name $(::<$k>)? (p, buf.len(), input_at, output_at, filter.len(), bias.map(<[$bias]>::len)).is_ok()
                );
                $(
                // The kernel's own walk of the buffer, where it has one (`true`: it ran).
                if $own(p, buf, (input_at, output_at), filter, bias) {
                    return;
                }
                )?
                // The loop of the driver (`overlapped`), the kernel in this function's frame.
                let Some(mut steps) = $crate::kernels::shared::in_place::Steps::new(&p.geometry, buf.len(), input_at, output_at) else {
                    return;
                };
                // One copy of the parameters, its geometry each chunk's in turn.
                let mut q = *p;
                while let Some(run) = steps.next(&p.geometry, &mut q.geometry) {
                    // Every chunk runs where the check holds.
                    let Some(run) = run else {
                        debug_assert!(false, "a chunk the driver cannot run where its check holds");
                        return;
                    };
                    let (input, output) = run.slices(buf);
                    $kernel(&q, run.part, input, filter, bias, output);
                }
            }
            )*
        }
    };
}
pub(crate) use on_one_buffer;

/// Whether the elementwise entries ([`requantize_s8`](crate::kernels::overlap::requantize_s8), ...) run an op of `len` elements with its input at `input_at` and its
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
/// the output and reaches into it ([`elementwise_fits`](crate::kernels::overlap::elementwise_fits)).
#[inline(always)]
pub(crate) fn elementwise<T: Copy>(
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

/// The placement the elementwise one-buffer entries need: the input's `len` elements of
/// `width` buffer elements at `input_at` and the output's `len` at `output_at` both inside a
/// buffer of `buf` elements, and [`elementwise_fits`](crate::kernels::overlap::elementwise_fits).
///
/// # Errors
///
/// [`KernelError::Placement`] otherwise (sizes that overflow too).
pub(crate) const fn elementwise_placement(
    buf: usize,
    input_at: usize,
    output_at: usize,
    len: usize,
    width: usize,
) -> Result<(), KernelError> {
    match len.checked_mul(width) {
        Some(in_len)
            if inside_buffer(buf, input_at, in_len, output_at, len)
                && elementwise_fits(input_at, output_at, len, width) =>
        {
            Ok(())
        }
        _ => Err(KernelError::Placement),
    }
}

/// One buffer's entry point for each elementwise kernel whose input and output elements are of
/// one type (`$name`), its check (`$check`: [`elementwise_placement`] with width 1; the
/// two-buffer kernel's check holds for two slices of `len` elements) and its proven entry
/// (`$proven::$name`, what generated code calls): [`elementwise`] with the kernel's value of
/// each element, either `value(|p, x| ..)`, the value of element `x`, or `kernel(|p, x, o|
/// ..)`, the two-buffer kernel's proven entry on the one-element slices `x` and `o`. The
/// proven entries are never inlined, so that an op is one call of a kernel function, as the
/// instruction counter's per-op table takes it. Items in braces after the module's name go
/// into it too (the proven twins of a module's other one-buffer entries).
macro_rules! elementwise_on_one_buffer {
    (mod $proven:ident $({ $($extra:item)* })?; $($(#[$doc:meta])* $name:ident, $check:ident ($params:ty, $t:ty) => $kind:ident $f:tt;)*) => {
        $(
        $(#[$doc])*
        ///
        /// `len` elements, the input's at `buf[input_at..]`, the output's at `buf[output_at..]`:
        /// both inside `buf`, apart or the input at or above the output
        /// ([`elementwise_fits`](crate::kernels::overlap::elementwise_fits), width 1).
        ///
        /// # Errors
        ///
        #[doc = concat!("[`KernelError`](crate::kernels::KernelError), with nothing written, unless [`", stringify!($check), "`] holds.")]
        #[must_use = "the kernel writes nothing when it returns an error"]
        pub fn $name(
            p: &$params,
            buf: &mut [$t],
            input_at: usize,
            output_at: usize,
            len: usize,
        ) -> Result<(), $crate::kernels::KernelError> {
            $check(p, buf.len(), input_at, output_at, len)?;
            $proven::$name(p, buf, input_at, output_at, len);
            Ok(())
        }

        #[doc = concat!("The preconditions of [`", stringify!($name), "`], on the buffer's length: the input's and the output's `len` elements inside it, apart or the input at or above the output. Generated code asserts it when the crate compiles.")]
        ///
        /// # Errors
        ///
        /// [`KernelError::Placement`](crate::kernels::KernelError::Placement) otherwise.
        pub const fn $check(
            _: &$params,
            buf: usize,
            input_at: usize,
            output_at: usize,
            len: usize,
        ) -> Result<(), $crate::kernels::KernelError> {
            $crate::kernels::shared::in_place::elementwise_placement(buf, input_at, output_at, len, 1)
        }
        )*

        /// The entries generated code calls once it has asserted their checks when the crate
        /// compiled (asserted again in debug builds).
        #[doc(hidden)]
        pub mod $proven {
            #[allow(unused_imports)]
            use super::*;
            $(
            $crate::kernels::shared::in_place::elementwise_on_one_buffer!(@proven $name, $check, $params, $t, $kind $f);
            )*
            $($($extra)*)?
        }
    };
    (@proven $name:ident, $check:ident, $params:ty, $t:ty, value (|$p:pat_param, $x:ident| $value:expr)) => {
        #[doc = concat!("[`", stringify!($name), "`](super::", stringify!($name), "), its check proven.")]
        #[inline(never)]
        pub fn $name(params: &$params, buf: &mut [$t], input_at: usize, output_at: usize, len: usize) {
            debug_assert!(super::$check(params, buf.len(), input_at, output_at, len).is_ok());
            let $p = params;
            let ran = $crate::kernels::shared::in_place::elementwise(buf, input_at, output_at, len, 1, |x| match *x {
                [$x] => $value,
                _ => 0,
            });
            debug_assert!(ran, "the walk refused what its check accepts");
        }
    };
    (@proven $name:ident, $check:ident, $params:ty, $t:ty, kernel (|$p:pat_param, $x:ident, $o:ident| $call:expr)) => {
        #[doc = concat!("[`", stringify!($name), "`](super::", stringify!($name), "), its check proven.")]
        #[inline(never)]
        pub fn $name(params: &$params, buf: &mut [$t], input_at: usize, output_at: usize, len: usize) {
            debug_assert!(super::$check(params, buf.len(), input_at, output_at, len).is_ok());
            let $p = params;
            let ran = $crate::kernels::shared::in_place::elementwise(buf, input_at, output_at, len, 1, |$x| {
                let mut $o = [<$t>::default()];
                $call;
                let [value] = $o;
                value
            });
            debug_assert!(ran, "the walk refused what its check accepts");
        }
    };
}
pub(crate) use elementwise_on_one_buffer;

/// The element count of a six-dimensional shape, `None` on overflow.
pub(crate) const fn elements6(shape: &[usize; 6]) -> Option<usize> {
    let (mut n, mut d) = (1_usize, 0);
    while d < 6 {
        n = get!(mul(n, shape[d]));
        d += 1;
    }
    Some(n)
}

/// Whether the binary entries ([`add_s8`](crate::kernels::overlap::add_s8), ...) run an op of `shape` with its first input at
/// `input_at` and its output at `output_at` (elements) of one buffer: the first input is not
/// broadcast (its shape is the output's), and the two share no element or the input starts at
/// or above the output ([`elementwise_fits`](crate::kernels::overlap::elementwise_fits)). The second input, broadcast or not, is a slice
/// of its own. Generated code asserts it at compile time.
#[must_use]
pub const fn binary_fits(shape: &BinaryShape, input_at: usize, output_at: usize) -> bool {
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
/// `output_at`: `None` unless [`binary_fits`](crate::kernels::overlap::binary_fits) and both lie inside the buffer.
#[inline(always)]
pub(crate) const fn binary_len(
    shape: &BinaryShape,
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
/// order). Returns `false`, writing nothing, unless [`binary_fits`](crate::kernels::overlap::binary_fits) and both fit in `buf`.
#[inline(always)]
pub(crate) fn binary<T: Copy + Default>(
    shape: &BinaryShape,
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
        let value = f(buf[input_at + k], super::slices::at(input2, j));
        buf[output_at + k] = value;
        k += 1;
    });
    true
}

/// The placement the binary one-buffer entries need: the first input not broadcast and the
/// two apart or the input at or above the output ([`binary_fits`](crate::kernels::overlap::binary_fits)), both inside a buffer of `buf`
/// elements; `Ok` with their length.
///
/// # Errors
///
/// [`KernelError::Placement`] otherwise, [`KernelError::Length`] for a shape whose size
/// overflows.
pub(crate) const fn binary_placement(
    shape: &BinaryShape,
    buf: usize,
    input_at: usize,
    output_at: usize,
) -> Result<usize, KernelError> {
    if elements6(&shape.output).is_none() {
        return Err(KernelError::Length {
            operand: "buf",
            expected: None,
            found: buf,
        });
    }
    match binary_len(shape, buf, input_at, output_at) {
        Some(len) => Ok(len),
        None => Err(KernelError::Placement),
    }
}

/// One buffer's entry point for each binary kernel (`$name`), its check (`$check_name`: the
/// placement, [`binary_placement`], and the kernel's own `$check` on the lengths the shapes
/// give) and its proven entry (`$proven::$name`, what generated code calls): [`binary`] with
/// the kernel's value of each pair of elements (`$one`, a path from the crate's root); with
/// `, dsp $blocked`, first (cfg `stowplan_dsp`) the kernel's blocked one-buffer loop, which
/// returns `false` for what it declines.
macro_rules! binary_on_one_buffer {
    (mod $proven:ident; $(
        $(#[$doc:meta])*
        $name:ident, $check_name:ident($params:ty, $t:ty) => $one:path, $check:path $(, dsp $blocked:path)?;
    )*) => {
        $(
        $(#[$doc])*
        ///
        /// The first input's elements at `buf[input_at..]`, the output's at `buf[output_at..]`,
        /// the second input's in `input2`: the first input not broadcast, and the two apart or
        /// the input at or above the output ([`binary_fits`](crate::kernels::overlap::binary_fits)).
        ///
        /// # Errors
        ///
        #[doc = concat!("[`KernelError`](crate::kernels::KernelError), with nothing written, unless [`", stringify!($check_name), "`] holds.")]
        #[must_use = "the kernel writes nothing when it returns an error"]
        pub fn $name(
            p: &$params,
            buf: &mut [$t],
            input_at: usize,
            output_at: usize,
            input2: &[$t],
        ) -> Result<(), $crate::kernels::KernelError> {
            $check_name(p, buf.len(), input_at, output_at, input2.len())?;
            $proven::$name(p, buf, input_at, output_at, input2);
            Ok(())
        }

        #[doc = concat!("The preconditions of [`", stringify!($name), "`], on the lengths of its slices: the placement of the first input and the output in the buffer (both inside it, and [`binary_fits`](crate::kernels::overlap::binary_fits)) and the two-buffer kernel's check on the lengths the shapes give them. Generated code asserts it when the crate compiles.")]
        ///
        /// # Errors
        ///
        /// The first that does not hold.
        pub const fn $check_name(
            p: &$params,
            buf: usize,
            input_at: usize,
            output_at: usize,
            input2: usize,
        ) -> Result<(), $crate::kernels::KernelError> {
            match $crate::kernels::shared::in_place::binary_placement(&p.shape, buf, input_at, output_at) {
                Ok(len) => $check(p, len, input2, len),
                Err(e) => Err(e),
            }
        }
        )*

        /// The entries generated code calls once it has asserted their checks when the crate
        /// compiled (asserted again in debug builds).
        #[doc(hidden)]
        pub mod $proven {
            use super::*;
            $(
            #[doc = concat!("[`", stringify!($name), "`](super::", stringify!($name), "), its check proven.")]
            #[inline(never)]
            pub fn $name(
                p: &$params,
                buf: &mut [$t],
                input_at: usize,
                output_at: usize,
                input2: &[$t],
            ) {
                debug_assert!(
                    super::$check_name(p, buf.len(), input_at, output_at, input2.len()).is_ok()
                );
                $(
                    #[cfg(stowplan_dsp)]
                    if $blocked(p, buf, input_at, output_at, input2) {
                        return;
                    }
                )?
                let ran = $crate::kernels::shared::in_place::binary(&p.shape, buf, input_at, output_at, input2, |x, y| $one(p, x, y));
                debug_assert!(ran, "a binary op the walk cannot run where its check holds");
            }
            )*
        }
    };
}
pub(crate) use binary_on_one_buffer;

#[cfg(test)]
mod tests;
