//! STRIDED_SLICE: TFLM's `reference_ops::StridedSlice` (the 5-dimensional version its micro
//! kernel calls, generic over the element type), with the start, stop and stride of every
//! dimension resolved at build time (`StridedSlicePadIndices`, `StridedSliceStartForAxis`,
//! `StridedSliceEndForAxis`).

use super::shared::check::{KernelError, check, elements, length, require};
use super::shared::{at, sized_mut};

/// Parameters of STRIDED_SLICE, in TFLM's 5 padded dimensions: along dimension `d` the kernel
/// visits `start[d], start[d] + stride[d], ..` while the index is below `stop[d]` (above it for
/// a negative stride), as TFLM's loops do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StridedSlice {
    /// Input shape, right-aligned into 5 dimensions padded with leading 1s.
    pub input: [usize; 5],
    /// First index along each dimension.
    pub start: [i32; 5],
    /// The bound the index stops at (exclusive).
    pub stop: [i32; 5],
    /// The step (never 0).
    pub stride: [i32; 5],
}

/// How many indices `start, start + stride, ..` TFLM's loop visits before reaching `stop`.
const fn steps(start: i32, stop: i32, stride: i32) -> usize {
    let (start, stop, stride) = (start as i64, stop as i64, stride as i64);
    let n = if stride > 0 && stop > start {
        (stop - start + stride - 1) / stride
    } else if stride < 0 && start > stop {
        (start - stop - stride - 1) / -stride
    } else {
        0
    };
    if n < 0 { 0 } else { n as usize }
}

/// [`strided_slice`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_strided_slice(
    p: &StridedSlice,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length("input", elements(&p.input), input));
    let mut counts = [0_usize; 5];
    let mut d = 0;
    while d < 5 {
        check!(require(p.stride[d] != 0, "a stride is 0"));
        let count = steps(p.start[d], p.stop[d], p.stride[d]);
        if count > 0 {
            let (start, stride) = (p.start[d] as i64, p.stride[d] as i64);
            let last = start + stride * (count as i64 - 1);
            let size = p.input[d] as i64;
            check!(require(
                start >= 0 && start < size && last >= 0 && last < size,
                "a visited index lies outside the input"
            ));
        }
        counts[d] = count;
        d += 1;
    }
    length("output", elements(&counts), output)
}

/// STRIDED_SLICE: TFLM's `reference_ops::StridedSlice`: the input elements at the visited
/// indices of every dimension, in the order of TFLM's five nested loops (which its
/// `SequentialTensorWriter` writes one after another).
///
/// The indices are computed in 64 bits; TFLM's `int` arithmetic gives the same indices for
/// every slice whose visited indices lie inside the input (the planner checks that they do).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_strided_slice`])
/// hold: `input.len()` is the product of the input shape, no stride is 0, every visited index
/// lies inside the input, and `output.len()` is the number of elements visited.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn strided_slice<T: Copy + Default>(
    p: &StridedSlice,
    input: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_strided_slice(p, input.len(), output.len())?;
    proven::strided_slice(p, input, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`strided_slice`](super::strided_slice), its [`check`](super::check_strided_slice) proven.
    #[inline]
    pub fn strided_slice<T: Copy + Default>(p: &StridedSlice, input: &[T], output: &mut [T]) {
        debug_assert!(super::check_strided_slice(p, input.len(), output.len()).is_ok());
        let counts: [usize; 5] =
            core::array::from_fn(|d| steps(p.start[d], p.stop[d], p.stride[d]));
        let Some(output) = sized_mut(output, &counts) else {
            return;
        };
        let dims = p.input.map(|d| i64::try_from(d).unwrap_or(0));
        let start = p.start.map(i64::from);
        let stride = p.stride.map(i64::from);
        // Wrapping: only inconsistent parameters overflow 64 bits.
        let index = |d: usize, k: usize| start[d].wrapping_add(stride[d].wrapping_mul(k as i64));
        let mut out = output.iter_mut();
        for a in 0..counts[0] {
            let ia = index(0, a);
            for b in 0..counts[1] {
                let ib = ia.wrapping_mul(dims[1]).wrapping_add(index(1, b));
                for c in 0..counts[2] {
                    let ic = ib.wrapping_mul(dims[2]).wrapping_add(index(2, c));
                    for d in 0..counts[3] {
                        let id = ic.wrapping_mul(dims[3]).wrapping_add(index(3, d));
                        for e in 0..counts[4] {
                            let i = id.wrapping_mul(dims[4]).wrapping_add(index(4, e));
                            if let Some(o) = out.next() {
                                *o = usize::try_from(i)
                                    .map_or_else(|_| T::default(), |i| at(input, i));
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_count_like_tflm_loops() {
        assert_eq!(steps(0, 5, 2), 3);
        assert_eq!(steps(4, -1, -2), 3);
        assert_eq!(steps(3, 3, 1), 0);
        assert_eq!(steps(0, 5, -1), 0);
        assert_eq!(steps(i32::MIN, i32::MAX, i32::MAX), 3);
    }

    #[test]
    fn reverses_with_a_negative_stride() {
        // A 2x3 input: rows reversed, every other column from the last.
        let input = [1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0];
        let p = StridedSlice {
            input: [1, 1, 1, 2, 3],
            start: [0, 0, 0, 1, 2],
            stop: [1, 1, 1, -1, -1],
            stride: [1, 1, 1, -1, -2],
        };
        let mut out = [0.0; 4];
        strided_slice(&p, &input, &mut out).unwrap();
        assert_eq!(out, [6.0, 4.0, 3.0, 1.0]);
    }

    #[test]
    fn extreme_parameters_do_not_panic() {
        let p = StridedSlice {
            input: [usize::MAX; 5],
            start: [i32::MAX, i32::MIN, 0, 1, -1],
            stop: [i32::MIN, i32::MAX, 1, 2, 1],
            stride: [i32::MIN, i32::MAX, 1, 1, 1],
        };
        let mut out = [7_i8; 4];
        assert!(strided_slice(&p, &[1, 2, 3], &mut out).is_err());
        assert_eq!(out, [7; 4]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = StridedSlice {
            input: [1, 1, 1, 1, 6],
            start: [0, 0, 0, 0, 1],
            stop: [1, 1, 1, 1, 6],
            stride: [1, 1, 1, 1, 2],
        };
        refuses([6, 3], [Exact; 2], |[i, o]| {
            let mut out = vec![7_i8; o];
            (strided_slice(&p, &vec![0; i], &mut out), untouched(&out, 7))
        });
        let mut out = [7_i8; 3];
        let outside = StridedSlice {
            start: [0, 0, 0, 0, 2],
            stop: [1, 1, 1, 1, 7],
            ..p
        };
        assert!(strided_slice(&outside, &[0; 6], &mut out).is_err());
        let zero = StridedSlice {
            stride: [1, 1, 1, 0, 2],
            ..p
        };
        assert!(strided_slice(&zero, &[0; 6], &mut out).is_err());
        assert_eq!(out, [7; 3]);
    }
}
