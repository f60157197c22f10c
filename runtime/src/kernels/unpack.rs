//! UNPACK: TFLM's `UnpackImpl` (`unpack.cc`), generic over the element type.

use super::shared::check::{KernelError, check, elements, length};

/// [`unpack`]'s preconditions, on the input's length and each output's (`outputs[i]`): what
/// the entry checks before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_unpack(
    outer: usize,
    copy: usize,
    input: usize,
    outputs: &[usize],
) -> Result<(), KernelError> {
    check!(length(
        "input",
        elements(&[outer, outputs.len(), copy]),
        input
    ));
    let mut i = 0;
    while i < outputs.len() {
        check!(length("output", outer.checked_mul(copy), outputs[i]));
        i += 1;
    }
    Ok(())
}

/// [`check_unpack`] on the slices themselves (the entry's check).
fn check_unpack_slices<T>(
    outer: usize,
    copy: usize,
    input: &[T],
    outputs: &[&mut [T]],
) -> Result<(), KernelError> {
    length(
        "input",
        elements(&[outer, outputs.len(), copy]),
        input.len(),
    )?;
    for output in outputs {
        length("output", outer.checked_mul(copy), output.len())?;
    }
    Ok(())
}

/// UNPACK: TFLM's `UnpackImpl`: output `i`'s block `k` (of `copy` elements) is the input's
/// block `k * n + i` (`n` the number of outputs), for each of the `outer` positions (the product
/// of the input dimensions before the axis).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_unpack`]) hold:
/// `input.len() == outer * outputs.len() * copy`; every output holds `outer * copy` elements.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn unpack<T: Copy>(
    outer: usize,
    copy: usize,
    input: &[T],
    outputs: &mut [&mut [T]],
) -> Result<(), KernelError> {
    check_unpack_slices(outer, copy, input, outputs)?;
    proven::unpack(outer, copy, input, outputs);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    /// [`unpack`](super::unpack), its [`check`](super::check_unpack) proven.
    #[inline]
    pub fn unpack<T: Copy>(outer: usize, copy: usize, input: &[T], outputs: &mut [&mut [T]]) {
        debug_assert!(super::check_unpack_slices(outer, copy, input, outputs).is_ok());
        if copy == 0 {
            return;
        }
        let n = outputs.len();
        for (i, output) in outputs.iter_mut().enumerate() {
            for (k, dst) in output.chunks_mut(copy).take(outer).enumerate() {
                let loc = k.wrapping_mul(n).wrapping_add(i).wrapping_mul(copy);
                let src = input.get(loc..).unwrap_or(&[]);
                for (o, &x) in dst.iter_mut().zip(src) {
                    *o = x;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deinterleaves_the_input() {
        let input = [1_i32, 2, 5, 6, 3, 4, 7, 8];
        let (mut a, mut b) = ([0; 4], [0; 4]);
        unpack(2, 2, &input, &mut [&mut a, &mut b]).unwrap();
        assert_eq!((a, b), ([1, 2, 3, 4], [5, 6, 7, 8]));
        // Inconsistent lengths are refused, nothing written.
        assert!(unpack(3, 0, &input, &mut [&mut a]).is_err());
        assert!(unpack(9, 5, &input, &mut [&mut a, &mut b]).is_err());
        assert_eq!((a, b), ([1, 2, 3, 4], [5, 6, 7, 8]));
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        refuses([8, 4, 4], [Exact; 3], |[i, a, b]| {
            let (mut x, mut y) = (vec![7_i32; a], vec![7_i32; b]);
            let r = unpack(2, 2, &vec![0; i], &mut [&mut x, &mut y]);
            (r, untouched(&x, 7) && untouched(&y, 7))
        });
    }
}
