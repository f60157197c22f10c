//! FILL: TFLM's `reference_ops::Fill`: every output element the value tensor's one element.

use super::shared::at;
use super::shared::check::{KernelError, length};

/// [`fill`]'s preconditions, on the lengths of its slices: `value` holds one element (what the
/// entry checks before it runs, and what generated code asserts when the crate compiles).
///
/// # Errors
///
/// [`KernelError::Length`] of `value` otherwise.
pub const fn check_fill(value: usize, output: usize) -> Result<(), KernelError> {
    let _ = output;
    length("value", Some(1), value)
}

/// FILL: `output[i] = value[0]` for every element.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless [`check_fill`] holds for the slices' lengths.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn fill<T: Copy + Default>(value: &[T], output: &mut [T]) -> Result<(), KernelError> {
    check_fill(value.len(), output.len())?;
    proven::fill(value, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    use super::at;

    /// [`fill`](super::fill), its [check](super::check_fill) proven.
    pub fn fill<T: Copy + Default>(value: &[T], output: &mut [T]) {
        debug_assert!(super::check_fill(value.len(), output.len()).is_ok());
        let v = at(value, 0);
        for o in output.iter_mut() {
            *o = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::zeros_like;

    #[test]
    fn fills_and_zeros() {
        let mut out = [0_i8; 3];
        fill(&[-7], &mut out).unwrap();
        assert_eq!(out, [-7; 3]);
        zeros_like(&mut out);
        assert_eq!(out, [0; 3]);
    }
}
