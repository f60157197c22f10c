//! GATHER_ND: TFLM's `GatherNd` (`gather_nd.cc`, int32 indices), generic over the element type.

use super::shared::check::{KernelError, check, elements, length, require};

/// Parameters of GATHER_ND.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GatherNd {
    /// Slices gathered: the product of the index dimensions but the last.
    pub slices: usize,
    /// Indices per slice: the last index dimension (at most 5).
    pub index_depth: usize,
    /// Elements per slice: the product of the params dimensions from `index_depth` on.
    pub slice_size: i32,
    /// TFLM's `dims_to_count`: the elements per step of each indexed params dimension.
    pub strides: [i32; 5],
    /// The params' element count.
    pub params_size: i32,
}

/// [`gather_nd`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_gather_nd(
    p: &GatherNd,
    params: usize,
    indices: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(require(
        p.slice_size >= 0 && p.params_size >= 0,
        "a size is negative"
    ));
    check!(length("params", Some(p.params_size as usize), params));
    check!(length(
        "indices",
        elements(&[p.slices, p.index_depth]),
        indices
    ));
    check!(length(
        "output",
        elements(&[p.slices, p.slice_size as usize]),
        output
    ));
    require(
        p.index_depth <= 5 && (p.index_depth >= 1 || output == 0),
        "the index depth is not in 1..=5",
    )
}

/// GATHER_ND: TFLM's `GatherNd`: slice `i` of the output is the params' `slice_size` elements
/// from `sum(index[i][j] * strides[j])` (in `int` arithmetic, which wraps as x86-64 does).
/// TFLM stops at the first slice whose start is negative or whose end is past the params
/// (`Eval` then fails, with the earlier slices written): so does this kernel, leaving the rest
/// of the output as it was.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_gather_nd`]) hold:
/// `params.len() == params_size`, `indices.len() == slices * index_depth`, `output.len() ==
/// slices * slice_size` (sizes not negative), and `index_depth` in `1..=5`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn gather_nd<T: Copy>(
    p: &GatherNd,
    params: &[T],
    indices: &[i32],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_gather_nd(p, params.len(), indices.len(), output.len())?;
    proven::gather_nd(p, params, indices, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`gather_nd`](super::gather_nd), its [`check`](super::check_gather_nd) proven.
    #[inline]
    pub fn gather_nd<T: Copy>(p: &GatherNd, params: &[T], indices: &[i32], output: &mut [T]) {
        debug_assert!(super::check_gather_nd(p, params.len(), indices.len(), output.len()).is_ok());
        let Ok(size) = usize::try_from(p.slice_size) else {
            return;
        };
        if size == 0 || p.index_depth == 0 {
            return;
        }
        let mut blocks = output.chunks_mut(size);
        for index in indices.chunks(p.index_depth).take(p.slices) {
            let from: i32 = index
                .iter()
                .zip(&p.strides)
                .fold(0_i32, |acc, (&v, &s)| acc.wrapping_add(v.wrapping_mul(s)));
            if from < 0 || i64::from(from) + i64::from(p.slice_size) > i64::from(p.params_size) {
                return;
            }
            let Some(block) = blocks.next() else {
                return;
            };
            let src = usize::try_from(from)
                .ok()
                .and_then(|f| params.get(f..))
                .unwrap_or(&[]);
            for (o, &x) in block.iter_mut().zip(src) {
                *o = x;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gathers_slices_and_stops_out_of_bounds() {
        // Params [3, 2], indices [[2], [0], [5], [1]]: rows 2 and 0, then a bad index.
        let params = [1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0];
        let p = GatherNd {
            slices: 4,
            index_depth: 1,
            slice_size: 2,
            strides: [2, 0, 0, 0, 0],
            params_size: 6,
        };
        let mut out = [9.0_f32; 8];
        gather_nd(&p, &params, &[2, 0, 5, 1], &mut out).unwrap();
        assert_eq!(out, [5.0, 6.0, 1.0, 2.0, 9.0, 9.0, 9.0, 9.0]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = GatherNd {
            slices: 2,
            index_depth: 1,
            slice_size: 2,
            strides: [2, 0, 0, 0, 0],
            params_size: 6,
        };
        refuses([6, 2, 4], [Exact; 3], |[i, c, o]| {
            let mut out = vec![7_i8; o];
            (
                gather_nd(&p, &vec![0; i], &vec![0; c], &mut out),
                untouched(&out, 7),
            )
        });
        let mut out = [7_i8; 4];
        let deep = GatherNd {
            index_depth: 6,
            ..p
        };
        assert!(gather_nd(&deep, &[0; 6], &[0; 12], &mut out).is_err());
        assert_eq!(out, [7; 4]);
    }
}
