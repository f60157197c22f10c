//! The blocked walk of ADD and MUL (int8 and int16) on the Cortex-M DSP extension (cfg
//! `stowplan_dsp`): how the inputs' elements pair (the same shapes, or one input a single
//! element), and where the first input and the output are, in two slices or in one buffer (the
//! one-buffer entries'), in blocks of four elements, each block's first-input elements read
//! before its outputs are written ([`one_buffer_walk`]).

use super::broadcast::BinaryShape;
pub(crate) use super::broadcast::offset_fits;
use super::slices::{at, product};

/// How a blocked binary kernel pairs its inputs' elements.
#[derive(Clone, Copy)]
pub(crate) enum Pairs {
    /// The same shapes: element `k` of each input, for every output element (the portable
    /// kernel's elementwise loop).
    Same,
    /// The first input has the output's shape, the second one element: `(k, 0)` for the
    /// first `n` output elements (`broadcast`'s walk).
    SecondScalar(usize),
    /// The second input has the output's shape, the first one element: `(0, k)`.
    FirstScalar(usize),
}

/// The pairing of `shape` with an output slice of `len` elements, `None` for the broadcasts
/// the blocked kernels leave to the portable walk. `broadcast` takes its elementwise loop for
/// the same shapes, else walks the output shape's elements, writing while the output slice
/// lasts.
#[inline(always)]
pub(crate) fn pairs(shape: &BinaryShape, len: usize) -> Option<Pairs> {
    // Shapes compared dimension by dimension, without branches: `==` on the arrays calls
    // `memcmp` (a byte loop on the device), once or twice per call of the kernel.
    let same = |a: &[usize; 6], b: &[usize; 6]| {
        a.iter().zip(b).fold(0, |acc, (&x, &y)| acc | (x ^ y)) == 0
    };
    if same(&shape.input1, &shape.output) && same(&shape.input2, &shape.output) {
        return Some(Pairs::Same);
    }
    let elements = if shape.output.contains(&0) {
        0
    } else {
        product(&shape.output)?
    };
    let n = elements.min(len);
    let one = |s: &[usize; 6]| s.iter().all(|&d| d == 1);
    if same(&shape.input1, &shape.output) && one(&shape.input2) {
        Some(Pairs::SecondScalar(n))
    } else if one(&shape.input1) && same(&shape.input2, &shape.output) {
        Some(Pairs::FirstScalar(n))
    } else {
        None
    }
}

/// The elements `k..k + 4` of `xs`, each 0 past its end (as [`at`]).
#[inline(always)]
pub(crate) fn four_at<T: Copy + Default>(xs: &[T], k: usize) -> [T; 4] {
    match xs.get(k..).and_then(<[T]>::first_chunk::<4>) {
        Some(&x) => x,
        None => [0, 1, 2, 3].map(|j| k.checked_add(j).map_or(T::default(), |i| at(xs, i))),
    }
}

/// Where the blocked ADD and MUL read their first input and write their output (elements of
/// type `T`): two slices ([`Apart`]: [`add_s8`], [`mul_s8`], [`add_s16`], [`mul_s16`]), or one
/// buffer holding both ([`OneBuffer`]: [`add_s8_on_one_buffer`], [`mul_s8_on_one_buffer`],
/// [`add_s16_on_one_buffer`], [`mul_s16_on_one_buffer`]). The kernels ([`add_blocked`],
/// [`mul_blocked`], [`add16_blocked`], [`mul16_blocked`]) are the same for both.
pub(crate) trait FirstAndOutput<T> {
    /// The output's elements.
    fn len(&self) -> usize;

    /// The first input's element `k`, 0 past its end.
    fn first(&self, k: usize) -> T;

    /// Output elements `0..n` (`n` at most [`len`](Self::len)), in memory order: for each
    /// whole block of four `k..k + 4` (`k = 0, 4, 8, ...`), reads the first input's elements
    /// `k..k + 4` (0 past its end), then writes `block(k, them)` over the block's output
    /// elements; then for each of the last `n % 4` elements `k`, reads the first input's
    /// element `k`, then writes `one(k, it)` over output element `k`.
    fn walk(
        &mut self,
        n: usize,
        block: impl FnMut(usize, [T; 4]) -> [T; 4],
        one: impl FnMut(usize, T) -> T,
    );
}

/// The first input and the output in slices of their own.
pub(crate) struct Apart<'a, T> {
    pub(crate) input1: &'a [T],
    pub(crate) output: &'a mut [T],
}

impl<T: Copy + Default> FirstAndOutput<T> for Apart<'_, T> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.output.len()
    }

    #[inline(always)]
    fn first(&self, k: usize) -> T {
        at(self.input1, k)
    }

    #[inline(always)]
    fn walk(
        &mut self,
        n: usize,
        mut block: impl FnMut(usize, [T; 4]) -> [T; 4],
        mut one: impl FnMut(usize, T) -> T,
    ) {
        let out = self.output.get_mut(..n).unwrap_or(&mut []);
        let (blocks, rest) = out.as_chunks_mut::<4>();
        let mut k = 0;
        for o in blocks {
            *o = block(k, four_at(self.input1, k));
            k += 4;
        }
        for o in rest {
            *o = one(k, at(self.input1, k));
            k += 1;
        }
    }
}

/// The first input and the output in one buffer (the overlapped entries'): `len` elements
/// each, the first input's from `buf[input_at]`, the output's from `buf[output_at]`, both
/// inside `buf`, the input at or above the output or the two disjoint
/// ([`binary_fits`](crate::kernels::overlap::binary_fits)).
pub(crate) struct OneBuffer<'a, T> {
    pub(crate) buf: &'a mut [T],
    pub(crate) input_at: usize,
    pub(crate) output_at: usize,
    pub(crate) len: usize,
}

impl<'a, T> OneBuffer<'a, T> {
    /// The layout of an op of `shape` in `buf`, `None` unless
    /// [`binary_fits`](crate::kernels::overlap::binary_fits) and both tensors lie inside `buf`.
    #[inline(always)]
    pub(crate) fn new(
        shape: &BinaryShape,
        buf: &'a mut [T],
        input_at: usize,
        output_at: usize,
    ) -> Option<Self> {
        let len = super::in_place::binary_len(shape, buf.len(), input_at, output_at)?;
        Some(Self {
            buf,
            input_at,
            output_at,
            len,
        })
    }
}

impl<T: Copy + Default> FirstAndOutput<T> for OneBuffer<'_, T> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    fn first(&self, k: usize) -> T {
        if k < self.len {
            at(self.buf, self.input_at.saturating_add(k))
        } else {
            T::default()
        }
    }

    #[inline(always)]
    fn walk(
        &mut self,
        n: usize,
        block: impl FnMut(usize, [T; 4]) -> [T; 4],
        one: impl FnMut(usize, T) -> T,
    ) {
        one_buffer_walk(
            self.buf,
            self.input_at,
            self.output_at,
            n.min(self.len),
            block,
            one,
        );
    }
}

/// [`OneBuffer`]'s walk, for any element type (the tests instrument it with tagged cells):
/// output elements `0..n` in memory order as [`FirstAndOutput::walk`] walks them, the first
/// input's element `k` at `buf[input_at + k]`, the output's at `buf[output_at + k]` (an
/// element past `buf`'s end is read as `T::default()` and not written; the callers' layouts
/// lie inside `buf`).
///
/// # The order kept
///
/// Each block of four reads its first-input elements `k..k + 4` into registers before it
/// writes any of its outputs, and the blocks go in increasing `k`, then the last `n % 4`
/// elements one by one, each read before it is written. With the first input `d ≥ 0` elements
/// above the output (`input_at = output_at + d`, a full alias at `d = 0`), block `k..k + 4`
/// writes over the first input's elements `k − d..k + 4 − d` (those at or above its start), all
/// below `k + 4`: read already, by this block or an earlier one; the later blocks and elements
/// read from `k + 4` on. So every write lands on elements already read, for every `d ≥ 0`, as
/// in the portable walk (element by element); when the two tensors share no element nothing
/// written is read at all. The second input is a slice of its own and never written.
#[inline(always)]
pub(crate) fn one_buffer_walk<T: Copy + Default>(
    buf: &mut [T],
    input_at: usize,
    output_at: usize,
    n: usize,
    mut block: impl FnMut(usize, [T; 4]) -> [T; 4],
    mut one: impl FnMut(usize, T) -> T,
) {
    let whole = n - n % 4;
    for k in (0..whole).step_by(4) {
        // All four read before anything is written.
        let x = four_at(buf, input_at.saturating_add(k));
        let y = block(k, x);
        if let Some(o) = buf
            .get_mut(output_at.saturating_add(k)..)
            .and_then(<[T]>::first_chunk_mut::<4>)
        {
            *o = y;
        }
    }
    for k in whole..n {
        let x = at(buf, input_at.saturating_add(k));
        let y = one(k, x);
        if let Some(o) = buf.get_mut(output_at.saturating_add(k)) {
            *o = y;
        }
    }
}
