//! SHAPE: TFLM's `ExtractShape` (`shape.cc`): the input's dimensions, known at build time.

use super::shared::check::{KernelError, length};

/// [`shape`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_shape(dims: usize, output: usize) -> Result<(), KernelError> {
    length("output", Some(dims), output)
}

/// SHAPE: TFLM's `ExtractShape`: the input's dimensions as int32 (the planner passes them).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_shape`]) hold:
/// `output.len() == dims.len()`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn shape(dims: &[i32], output: &mut [i32]) -> Result<(), KernelError> {
    check_shape(dims.len(), output.len())?;
    proven::shape(dims, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    /// [`shape`](super::shape), its [`check`](super::check_shape) proven.
    #[inline]
    pub fn shape(dims: &[i32], output: &mut [i32]) {
        debug_assert!(super::check_shape(dims.len(), output.len()).is_ok());
        for (o, &d) in output.iter_mut().zip(dims) {
            *o = d;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        refuses([3, 3], [Exact; 2], |[d, o]| {
            let mut out = vec![7; o];
            (shape(&vec![1; d], &mut out), untouched(&out, 7))
        });
    }
}
