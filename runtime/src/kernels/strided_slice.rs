//! STRIDED_SLICE: TFLM's `reference_ops::StridedSlice` (the 5-dimensional version its micro
//! kernel calls, generic over the element type), with the start, stop and stride of every
//! dimension resolved at build time (`StridedSlicePadIndices`, `StridedSliceStartForAxis`,
//! `StridedSliceEndForAxis`).

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
fn steps(start: i32, stop: i32, stride: i32) -> usize {
    let (start, stop, stride) = (i64::from(start), i64::from(stop), i64::from(stride));
    let n = if stride > 0 && stop > start {
        (stop - start + stride - 1) / stride
    } else if stride < 0 && start > stop {
        (start - stop - stride - 1) / -stride
    } else {
        0
    };
    usize::try_from(n).unwrap_or(0)
}

/// STRIDED_SLICE: TFLM's `reference_ops::StridedSlice`: the input elements at the visited
/// indices of every dimension, in the order of TFLM's five nested loops (which its
/// `SequentialTensorWriter` writes one after another).
///
/// The indices are computed in 64 bits; TFLM's `int` arithmetic gives the same indices for
/// every slice whose visited indices lie inside the input (the planner checks that they do).
///
/// # Preconditions
///
/// The visited indices lie inside the input; `output.len()` is the number of elements visited.
pub fn strided_slice<T: Copy + Default>(p: &StridedSlice, input: &[T], output: &mut [T]) {
    let counts: [usize; 5] = core::array::from_fn(|d| steps(p.start[d], p.stop[d], p.stride[d]));
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
                            *o = usize::try_from(i).map_or_else(|_| T::default(), |i| at(input, i));
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
        strided_slice(&p, &input, &mut out);
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
        let mut out = [0_i8; 4];
        strided_slice(&p, &[1, 2, 3], &mut out);
    }
}
