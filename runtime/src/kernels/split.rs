//! SPLIT (and SPLIT_V's copy): TFLM's `SplitImpl` (`split.cc`, `split_v.cc`), generic over the
//! element type.

use super::shared::check::{KernelError, check, length, require};

/// The input's length [`split()`] and [`super::split_v()`] need: `outer * copies.iter().sum()`.
const fn split_input(outer: usize, copies: &[usize]) -> Option<usize> {
    let mut sum: usize = 0;
    let mut i = 0;
    while i < copies.len() {
        sum = match sum.checked_add(copies[i]) {
            Some(s) => s,
            None => return None,
        };
        i += 1;
    }
    outer.checked_mul(sum)
}

/// [`split()`]'s preconditions, on its input's length and each output's (`outputs[i]`): what
/// the entry checks before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_split(
    outer: usize,
    copies: &[usize],
    input: usize,
    outputs: &[usize],
) -> Result<(), KernelError> {
    check!(require(
        outputs.len() == copies.len(),
        "there are not as many outputs as copies"
    ));
    check!(length("input", split_input(outer, copies), input));
    let mut i = 0;
    while i < outputs.len() {
        check!(length("output", outer.checked_mul(copies[i]), outputs[i]));
        i += 1;
    }
    Ok(())
}

/// [`check_split`] on the slices themselves (the entries' check).
pub(super) fn check_split_slices<T>(
    outer: usize,
    copies: &[usize],
    input: &[T],
    outputs: &[&mut [T]],
) -> Result<(), KernelError> {
    require(
        outputs.len() == copies.len(),
        "there are not as many outputs as copies",
    )?;
    length("input", split_input(outer, copies), input.len())?;
    for (output, &copy) in outputs.iter().zip(copies) {
        length("output", outer.checked_mul(copy), output.len())?;
    }
    Ok(())
}

/// SPLIT: TFLM's `SplitImpl`: for each of the `outer` positions (the product of the input
/// dimensions before the axis), the input's next `copies[i]` elements go to output `i`, outputs
/// in order. `copies[i]` is output `i`'s extent along the axis times the product of the
/// dimensions after it (for SPLIT, TFLM takes output 0's extent for every output).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_split`]) hold:
/// `outputs.len() == copies.len()`, `outputs[i].len() == outer * copies[i]`, `input.len() ==
/// outer * copies.iter().sum()`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn split<T: Copy>(
    outer: usize,
    copies: &[usize],
    input: &[T],
    outputs: &mut [&mut [T]],
) -> Result<(), KernelError> {
    check_split_slices(outer, copies, input, outputs)?;
    proven::split(outer, copies, input, outputs);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    /// [`split`](super::split()), its [`check`](super::check_split) proven.
    #[inline]
    pub fn split<T: Copy>(outer: usize, copies: &[usize], input: &[T], outputs: &mut [&mut [T]]) {
        debug_assert!(super::check_split_slices(outer, copies, input, outputs).is_ok());
        let mut at = 0_usize;
        for k in 0..outer {
            if at >= input.len() {
                return;
            }
            for (output, &copy) in outputs.iter_mut().zip(copies) {
                let src = input.get(at..).unwrap_or(&[]).iter().take(copy);
                let dst = output.get_mut(k.wrapping_mul(copy)..).unwrap_or(&mut []);
                for (&x, o) in src.zip(dst.iter_mut()) {
                    *o = x;
                }
                at = at.wrapping_add(copy);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_rows_in_turn() {
        // A 2x3 input split along axis 1 into [1, 2].
        let input = [1_i8, 2, 3, 4, 5, 6];
        let (mut a, mut b) = ([0_i8; 2], [0_i8; 4]);
        split(2, &[1, 2], &input, &mut [&mut a, &mut b]).unwrap();
        assert_eq!(a, [1, 4]);
        assert_eq!(b, [2, 3, 5, 6]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        refuses([6, 2, 4], [Exact; 3], |[i, a, b]| {
            let (mut x, mut y) = (vec![7_i8; a], vec![7_i8; b]);
            let r = split(2, &[1, 2], &vec![0; i], &mut [&mut x, &mut y]);
            (r, untouched(&x, 7) && untouched(&y, 7))
        });
        let mut x = [7_i8; 2];
        assert!(split(2, &[1, 2], &[0; 6], &mut [&mut x]).is_err());
        assert_eq!(x, [7; 2]);
    }
}
