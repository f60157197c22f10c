//! TRANSPOSE: TFLM's `reference_ops::Transpose` (generic over the element type).

use super::shared::check::{KernelError, check, elements, length, require};

/// Parameters of TRANSPOSE: the input shape right-aligned into 6 dimensions padded with
/// leading 1s, and the permutation extended accordingly (`perm[d]` is the input dimension that
/// becomes output dimension `d`; the added leading dimensions map to themselves).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transpose {
    /// Input shape.
    pub input: [usize; 6],
    /// Output dimension `d` is input dimension `perm[d]`.
    pub perm: [usize; 6],
}

/// [`transpose`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_transpose(
    p: &Transpose,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    let mut seen = [false; 6];
    let mut d = 0;
    while d < 6 {
        let from = p.perm[d];
        check!(require(
            from < 6 && !seen[from],
            "`perm` is not a permutation of 0..6"
        ));
        seen[from] = true;
        d += 1;
    }
    check!(length("input", elements(&p.input), input));
    length("output", elements(&p.input), output)
}

/// TRANSPOSE: TFLM's `reference_ops::Transpose`: output element `(o0..o5)` is input element
/// `i` with `i[perm[d]] = o[d]`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_transpose`]) hold:
/// `perm` is a permutation of `0..6`; `input.len() == output.len()` is the product of the input
/// shape.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn transpose<T: Copy>(p: &Transpose, input: &[T], output: &mut [T]) -> Result<(), KernelError> {
    check_transpose(p, input.len(), output.len())?;
    proven::transpose(p, input, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`transpose`](super::transpose), its [`check`](super::check_transpose) proven.
    #[inline]
    pub fn transpose<T: Copy>(p: &Transpose, input: &[T], output: &mut [T]) {
        debug_assert!(super::check_transpose(p, input.len(), output.len()).is_ok());
        let mut strides = [0_usize; 6];
        let mut stride = 1_usize;
        for d in (0..6).rev() {
            strides[d] = stride;
            stride = stride.wrapping_mul(p.input[d]);
        }
        // Output dimension d walks input dimension perm[d].
        let dim = |d: usize| p.perm.get(d).copied().unwrap_or(d);
        let extent = |d: usize| p.input.get(dim(d)).copied().unwrap_or(0);
        let step = |d: usize| strides.get(dim(d)).copied().unwrap_or(0);
        let (s0, s1, s2, s3, s4, s5) = (step(0), step(1), step(2), step(3), step(4), step(5));
        let mut out = output.iter_mut();
        for a in 0..extent(0) {
            for b in 0..extent(1) {
                for c in 0..extent(2) {
                    for d in 0..extent(3) {
                        let base = a * s0 + b * s1 + c * s2 + d * s3;
                        for e in 0..extent(4) {
                            for f in 0..extent(5) {
                                let value = input.get(base + e * s4 + f * s5);
                                if let (Some(o), Some(&value)) = (out.next(), value) {
                                    *o = value;
                                }
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
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = Transpose {
            input: [1, 1, 1, 1, 2, 3],
            perm: [0, 1, 2, 3, 5, 4],
        };
        refuses([6, 6], [Exact; 2], |[i, o]| {
            let mut out = vec![7_i8; o];
            (transpose(&p, &vec![0; i], &mut out), untouched(&out, 7))
        });
        let mut out = [7_i8; 6];
        let bad = Transpose {
            perm: [0, 1, 2, 3, 4, 4],
            ..p
        };
        assert!(transpose(&bad, &[0; 6], &mut out).is_err());
        assert_eq!(out, [7; 6]);
    }
}
