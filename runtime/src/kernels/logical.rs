//! LOGICAL_AND and LOGICAL_OR with broadcasting (TFLM's `logical.cc` / `logical_common.cc`:
//! `BinaryFunction` / `BroadcastBinaryFunction4DSlow` of `LogicalAnd` / `LogicalOr`) and
//! LOGICAL_NOT (`elementwise.cc`). Bools are bytes: 0 is false, anything else true; the output
//! is 0 or 1.

use super::shared::broadcast::check_binary;
use super::shared::broadcast::{BinaryShape, broadcast};
use super::shared::check::{KernelError, length};

/// [`logical_and`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_logical_and(
    p: &BinaryShape,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(p, input1, input2, output)
}

/// LOGICAL_AND: `x && y`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_logical_and`])
/// hold: each slice holds its shape's element count; every input dimension equals the output's
/// or is 1.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn logical_and(
    p: &BinaryShape,
    input1: &[u8],
    input2: &[u8],
    output: &mut [u8],
) -> Result<(), KernelError> {
    check_logical_and(p, input1.len(), input2.len(), output.len())?;
    proven::logical_and(p, input1, input2, output);
    Ok(())
}

/// [`logical_or`]'s preconditions, as [`check_logical_and`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_logical_or(
    p: &BinaryShape,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(p, input1, input2, output)
}

/// LOGICAL_OR: `x || y`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_logical_or`]) hold:
/// as [`logical_and`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn logical_or(
    p: &BinaryShape,
    input1: &[u8],
    input2: &[u8],
    output: &mut [u8],
) -> Result<(), KernelError> {
    check_logical_or(p, input1.len(), input2.len(), output.len())?;
    proven::logical_or(p, input1, input2, output);
    Ok(())
}

/// [`logical_not`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_logical_not(input: usize, output: usize) -> Result<(), KernelError> {
    length("output", Some(input), output)
}

/// LOGICAL_NOT: `!x`, element by element.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_logical_not`])
/// hold: `input.len() == output.len()`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn logical_not(input: &[u8], output: &mut [u8]) -> Result<(), KernelError> {
    check_logical_not(input.len(), output.len())?;
    proven::logical_not(input, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`logical_and`](super::logical_and), its [`check`](super::check_logical_and) proven.
    #[inline]
    pub fn logical_and(p: &BinaryShape, input1: &[u8], input2: &[u8], output: &mut [u8]) {
        debug_assert!(
            super::check_logical_and(p, input1.len(), input2.len(), output.len()).is_ok()
        );
        broadcast(p, input1, input2, output, |x, y| u8::from(x != 0 && y != 0));
    }

    /// [`logical_or`](super::logical_or), its [`check`](super::check_logical_or) proven.
    #[inline]
    pub fn logical_or(p: &BinaryShape, input1: &[u8], input2: &[u8], output: &mut [u8]) {
        debug_assert!(super::check_logical_or(p, input1.len(), input2.len(), output.len()).is_ok());
        broadcast(p, input1, input2, output, |x, y| u8::from(x != 0 || y != 0));
    }

    /// [`logical_not`](super::logical_not), its [`check`](super::check_logical_not) proven.
    #[inline]
    pub fn logical_not(input: &[u8], output: &mut [u8]) {
        debug_assert!(super::check_logical_not(input.len(), output.len()).is_ok());
        for (o, &x) in output.iter_mut().zip(input) {
            *o = u8::from(x == 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truth_tables() {
        let shape = BinaryShape {
            input1: [1, 1, 1, 1, 1, 4],
            input2: [1, 1, 1, 1, 1, 4],
            output: [1, 1, 1, 1, 1, 4],
        };
        let (a, b) = ([0, 0, 1, 1], [0, 1, 0, 1]);
        let mut out = [9; 4];
        logical_and(&shape, &a, &b, &mut out).unwrap();
        assert_eq!(out, [0, 0, 0, 1]);
        logical_or(&shape, &a, &b, &mut out).unwrap();
        assert_eq!(out, [0, 1, 1, 1]);
        logical_not(&a, &mut out).unwrap();
        assert_eq!(out, [1, 1, 0, 0]);
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
            let r = logical_and(&shape, &vec![0_u8; a], &vec![0_u8; b], &mut out);
            (r, untouched(&out, 7))
        });
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7; o];
            let r = logical_or(&shape, &vec![0_u8; a], &vec![0_u8; b], &mut out);
            (r, untouched(&out, 7))
        });
        refuses([3, 3], [Exact; 2], |[i, o]| {
            let mut out = vec![7; o];
            (logical_not(&vec![0; i], &mut out), untouched(&out, 7))
        });
        let mut out = [7_u8; 4];
        assert!(logical_or(&not_broadcast, &[0; 4], &[0; 3], &mut out).is_err());
        assert_eq!(out, [7; 4]);
    }
}
