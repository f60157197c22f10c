//! REVERSE_V2: TFLM's `reference_ops::Reverse` (generic over the element type), with the
//! axes resolved at build time.

use super::shared::check::{KernelError, check, elements, length};

/// Parameters of REVERSE_V2: the input as `[upper, middle, lower]`, `middle` the product of the
/// reversed (contiguous) dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reverse {
    /// The product of the dimensions before the first reversed one.
    pub upper: usize,
    /// The product of the reversed dimensions.
    pub middle: usize,
    /// The product of the dimensions after the last reversed one.
    pub lower: usize,
}

/// [`reverse`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_reverse(p: &Reverse, input: usize, output: usize) -> Result<(), KernelError> {
    let n = elements(&[p.upper, p.middle, p.lower]);
    check!(length("input", n, input));
    length("output", n, output)
}

/// REVERSE_V2: TFLM's `reference_ops::Reverse`: output block `(i, middle - 1 - j)` (of `lower`
/// elements) is input block `(i, j)`; reversing contiguous axes together is reversing their
/// flattened index (TFLM's `reverse_copy` when they are all the axes, or `lower` is 1).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_reverse`]) hold:
/// `input.len() == output.len() == upper * middle * lower`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn reverse<T: Copy>(p: &Reverse, input: &[T], output: &mut [T]) -> Result<(), KernelError> {
    check_reverse(p, input.len(), output.len())?;
    proven::reverse(p, input, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`reverse`](super::reverse), its [`check`](super::check_reverse) proven.
    #[inline]
    pub fn reverse<T: Copy>(p: &Reverse, input: &[T], output: &mut [T]) {
        debug_assert!(super::check_reverse(p, input.len(), output.len()).is_ok());
        if p.lower == 0 || p.middle == 0 {
            return;
        }
        for (k, dst) in output.chunks_mut(p.lower).enumerate() {
            let (i, j) = (k / p.middle, k % p.middle);
            if i >= p.upper {
                return;
            }
            let at = i
                .wrapping_mul(p.middle)
                .wrapping_add(p.middle - 1 - j)
                .wrapping_mul(p.lower);
            let src = input.get(at..).unwrap_or(&[]);
            for (o, &x) in dst.iter_mut().zip(src) {
                *o = x;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reverses_the_middle_axes() {
        // [2, 3] reversed along axis 1.
        let p = Reverse {
            upper: 2,
            middle: 3,
            lower: 1,
        };
        let mut out = [0_u8; 6];
        reverse(&p, &[1, 2, 3, 4, 5, 6], &mut out).unwrap();
        assert_eq!(out, [3, 2, 1, 6, 5, 4]);
        // [3, 2] reversed along axis 0.
        let p = Reverse {
            upper: 1,
            middle: 3,
            lower: 2,
        };
        reverse(&p, &[1, 2, 3, 4, 5, 6], &mut out).unwrap();
        assert_eq!(out, [5, 6, 3, 4, 1, 2]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = Reverse {
            upper: 2,
            middle: 3,
            lower: 2,
        };
        refuses([12, 12], [Exact; 2], |[i, o]| {
            let mut out = vec![7_i8; o];
            (reverse(&p, &vec![0; i], &mut out), untouched(&out, 7))
        });
    }
}
