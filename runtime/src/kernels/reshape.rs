//! RESHAPE, SQUEEZE and EXPAND_DIMS: TFLM copies the bytes (when generated `invoke` does not
//! give the output its input's buffer, which needs no kernel at all).

use super::shared::check::{KernelError, length};

/// [`copy`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_copy(input: usize, output: usize) -> Result<(), KernelError> {
    length("output", Some(input), output)
}

/// RESHAPE, SQUEEZE or EXPAND_DIMS when the output does not alias the input: TFLM copies the
/// bytes.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_copy`]) hold:
/// `input.len() == output.len()`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn copy<T: Copy>(input: &[T], output: &mut [T]) -> Result<(), KernelError> {
    check_copy(input.len(), output.len())?;
    proven::copy(input, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    /// [`copy`](super::copy), its [`check`](super::check_copy) proven.
    #[inline]
    pub fn copy<T: Copy>(input: &[T], output: &mut [T]) {
        debug_assert!(super::check_copy(input.len(), output.len()).is_ok());
        // One `copy_from_slice` (the target's `memcpy`, a word at a time where it can) over the
        // shorter length, rather than an element loop.
        let n = output.len().min(input.len());
        if let (Some(o), Some(i)) = (output.get_mut(..n), input.get(..n)) {
            o.copy_from_slice(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        refuses([3, 3], [Exact; 2], |[i, o]| {
            let mut out = vec![7_i8; o];
            (copy(&vec![0; i], &mut out), untouched(&out, 7))
        });
    }
}
