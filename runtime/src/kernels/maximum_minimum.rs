//! MAXIMUM and MINIMUM with broadcasting: TFLM's `reference_ops::MaximumMinimumBroadcastSlow`
//! with `MaximumOp` / `MinimumOp` (any element type).

use super::shared::broadcast::check_binary;
use super::shared::broadcast::{BinaryShape, broadcast};
use super::shared::check::KernelError;

/// [`maximum`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_maximum(
    p: &BinaryShape,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(p, input1, input2, output)
}

/// MAXIMUM: TFLM's `MaximumOp::op`, `x > y ? x : y` (so a NaN `x` gives `y`, and of `0.0` and
/// `-0.0` the second), element by element with broadcasting.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_maximum`]) hold:
/// each slice holds its shape's element count; every input dimension equals the output's or is
/// 1.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn maximum<T: Copy + Default + PartialOrd>(
    p: &BinaryShape,
    input1: &[T],
    input2: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_maximum(p, input1.len(), input2.len(), output.len())?;
    proven::maximum(p, input1, input2, output);
    Ok(())
}

/// [`minimum`]'s preconditions, as [`check_maximum`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_minimum(
    p: &BinaryShape,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(p, input1, input2, output)
}

/// MINIMUM: TFLM's `MinimumOp::op`, `x < y ? x : y`, element by element with broadcasting.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_minimum`]) hold: as
/// [`maximum`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn minimum<T: Copy + Default + PartialOrd>(
    p: &BinaryShape,
    input1: &[T],
    input2: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_minimum(p, input1.len(), input2.len(), output.len())?;
    proven::minimum(p, input1, input2, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`maximum`](super::maximum), its [`check`](super::check_maximum) proven.
    #[inline]
    pub fn maximum<T: Copy + Default + PartialOrd>(
        p: &BinaryShape,
        input1: &[T],
        input2: &[T],
        output: &mut [T],
    ) {
        debug_assert!(super::check_maximum(p, input1.len(), input2.len(), output.len()).is_ok());
        broadcast(p, input1, input2, output, |x, y| if x > y { x } else { y });
    }

    /// [`minimum`](super::minimum), its [`check`](super::check_minimum) proven.
    #[inline]
    pub fn minimum<T: Copy + Default + PartialOrd>(
        p: &BinaryShape,
        input1: &[T],
        input2: &[T],
        output: &mut [T],
    ) {
        debug_assert!(super::check_minimum(p, input1.len(), input2.len(), output.len()).is_ok());
        broadcast(p, input1, input2, output, |x, y| if x < y { x } else { y });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_and_zeros_as_tflm() {
        let shape = BinaryShape {
            input1: [1, 1, 1, 1, 1, 3],
            input2: [1, 1, 1, 1, 1, 3],
            output: [1, 1, 1, 1, 1, 3],
        };
        let mut out = [0.0_f32; 3];
        maximum(
            &shape,
            &[f32::NAN, 1.0, 0.0],
            &[2.0, f32::NAN, -0.0],
            &mut out,
        )
        .unwrap();
        assert_eq!(out[0], 2.0);
        assert!(out[1].is_nan());
        assert!(out[2].is_sign_negative());
        let mut out = [0_i64; 3];
        minimum(&shape, &[i64::MIN, 5, 3], &[0, -5, 3], &mut out).unwrap();
        assert_eq!(out, [i64::MIN, -5, 3]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let shape = crate::kernels::BinaryShape {
            input1: [1, 1, 1, 1, 2, 2],
            input2: [1, 1, 1, 1, 1, 2],
            output: [1, 1, 1, 1, 2, 2],
        };
        let not_broadcast = crate::kernels::BinaryShape {
            input2: [1, 1, 1, 1, 1, 3],
            ..shape
        };
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7; o];
            let r = maximum(&shape, &vec![0_i16; a], &vec![0_i16; b], &mut out);
            (r, untouched(&out, 7))
        });
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7.0; o];
            let r = minimum(&shape, &vec![0.0_f32; a], &vec![0.0_f32; b], &mut out);
            (r, untouched(&out, 7.0))
        });
        let mut out = [7_i8; 4];
        assert!(maximum(&not_broadcast, &[0; 4], &[0; 3], &mut out).is_err());
        assert_eq!(out, [7; 4]);
    }
}
