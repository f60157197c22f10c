//! GATHER: TFLM's `Gather` (`gather.cc`, int32 coordinates), generic over the element type.

use super::shared::check::{KernelError, check, elements, length};

/// Parameters of GATHER, TFLM's sizes: the input as `[batch, outer, axis_size, inner]` and the
/// coordinates as `[batch, coords]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gather {
    /// The product of the first `batch_dims` input dimensions.
    pub batch: usize,
    /// The product of the input dimensions from `batch_dims` to the axis.
    pub outer: usize,
    /// The product of the coordinate dimensions from `batch_dims` on.
    pub coords: usize,
    /// The input's extent along the axis.
    pub axis_size: usize,
    /// The product of the input dimensions after the axis.
    pub inner: usize,
}

/// [`gather`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_gather(
    p: &Gather,
    input: usize,
    coords: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length(
        "input",
        elements(&[p.batch, p.outer, p.axis_size, p.inner]),
        input
    ));
    check!(length("coords", elements(&[p.batch, p.coords]), coords));
    length(
        "output",
        elements(&[p.batch, p.outer, p.coords, p.inner]),
        output,
    )
}

/// GATHER: TFLM's `Gather`: output block `(batch, outer, coord)` (of `inner` elements) is input
/// block `(batch, outer, coords[batch * p.coords + coord])`, in the output's order.
///
/// A coordinate outside `0..axis_size` (TFLM only `DCHECK`s it; its release build reads
/// outside the input) gives a block of the type's default value (0).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_gather`]) hold:
/// `input.len() == batch * outer * axis_size * inner`, `coords.len() == batch * p.coords`,
/// `output.len() == batch * outer * p.coords * inner`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn gather<T: Copy + Default>(
    p: &Gather,
    input: &[T],
    coords: &[i32],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_gather(p, input.len(), coords.len(), output.len())?;
    proven::gather(p, input, coords, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`gather`](super::gather), its [`check`](super::check_gather) proven.
    #[inline]
    pub fn gather<T: Copy + Default>(p: &Gather, input: &[T], coords: &[i32], output: &mut [T]) {
        debug_assert!(super::check_gather(p, input.len(), coords.len(), output.len()).is_ok());
        if p.inner == 0 {
            return;
        }
        let mut blocks = output.chunks_mut(p.inner);
        for batch in 0..p.batch {
            for outer in 0..p.outer {
                let base = batch.wrapping_mul(p.outer).wrapping_add(outer);
                for coord in 0..p.coords {
                    let Some(block) = blocks.next() else {
                        return;
                    };
                    let c = coords
                        .get(batch.wrapping_mul(p.coords).wrapping_add(coord))
                        .and_then(|&c| usize::try_from(c).ok())
                        .filter(|&c| c < p.axis_size);
                    let src = c.and_then(|c| {
                        let at = base
                            .wrapping_mul(p.axis_size)
                            .wrapping_add(c)
                            .wrapping_mul(p.inner);
                        input.get(at..)
                    });
                    match src {
                        Some(src) => {
                            for (o, &x) in block.iter_mut().zip(src) {
                                *o = x;
                            }
                        }
                        None => block.fill(T::default()),
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
    fn gathers_rows_and_batches() {
        // Input [2, 3] (batch_dims 1, axis 1), coordinates [2, 2].
        let input = [1_i8, 2, 3, 4, 5, 6];
        let p = Gather {
            batch: 2,
            outer: 1,
            coords: 2,
            axis_size: 3,
            inner: 1,
        };
        let mut out = [0_i8; 4];
        gather(&p, &input, &[2, 0, 1, 7], &mut out).unwrap();
        assert_eq!(out, [3, 1, 5, 0]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = Gather {
            batch: 1,
            outer: 2,
            coords: 3,
            axis_size: 4,
            inner: 2,
        };
        refuses([16, 3, 12], [Exact; 3], |[i, c, o]| {
            let mut out = vec![7_i8; o];
            (
                gather(&p, &vec![0; i], &vec![0; c], &mut out),
                untouched(&out, 7),
            )
        });
    }
}
