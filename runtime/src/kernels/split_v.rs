//! SPLIT_V: TFLM's `split_v.cc` `SplitImpl`, the same copy as SPLIT's with each output's own
//! extent along the axis ([`super::split`]).

use super::shared::check::KernelError;
use super::split::check_split_slices;

/// [`split_v`]'s preconditions, as [`super::check_split`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_split_v(
    outer: usize,
    copies: &[usize],
    input: usize,
    outputs: &[usize],
) -> Result<(), KernelError> {
    super::split::check_split(outer, copies, input, outputs)
}

/// SPLIT_V: TFLM's `SplitImpl` of `split_v.cc`: as [`super::split()`], with `copies[i]` output
/// `i`'s own extent along the axis times the product of the dimensions after it.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_split_v`]) hold,
/// as [`super::split()`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn split_v<T: Copy>(
    outer: usize,
    copies: &[usize],
    input: &[T],
    outputs: &mut [&mut [T]],
) -> Result<(), KernelError> {
    check_split_slices(outer, copies, input, outputs)?;
    proven::split_v(outer, copies, input, outputs);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    /// [`split_v`](super::split_v), its [`check`](super::check_split_v) proven.
    #[inline]
    pub fn split_v<T: Copy>(outer: usize, copies: &[usize], input: &[T], outputs: &mut [&mut [T]]) {
        super::super::split::proven::split(outer, copies, input, outputs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        refuses([6, 2, 4], [Exact; 3], |[i, a, b]| {
            let (mut x, mut y) = (vec![7_i8; a], vec![7_i8; b]);
            let r = split_v(2, &[1, 2], &vec![0; i], &mut [&mut x, &mut y]);
            (r, untouched(&x, 7) && untouched(&y, 7))
        });
    }
}
