//! PACK: TFLM's `PackImpl` (`pack.cc`), generic over the element type.

use super::shared::check::{KernelError, check, elements, length};

/// [`pack`]'s preconditions, on each input's length (`inputs[i]`) and the output's: what the
/// entry checks before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_pack(
    outer: usize,
    copy: usize,
    inputs: &[usize],
    output: usize,
) -> Result<(), KernelError> {
    let mut i = 0;
    while i < inputs.len() {
        check!(length("input", outer.checked_mul(copy), inputs[i]));
        i += 1;
    }
    length("output", elements(&[outer, inputs.len(), copy]), output)
}

/// [`check_pack`] on the slices themselves (the entry's check).
fn check_pack_slices<T>(
    outer: usize,
    copy: usize,
    inputs: &[&[T]],
    output: &[T],
) -> Result<(), KernelError> {
    for input in inputs {
        length("input", outer.checked_mul(copy), input.len())?;
    }
    length(
        "output",
        elements(&[outer, inputs.len(), copy]),
        output.len(),
    )
}

/// PACK: TFLM's `PackImpl`: output element block `k * n + i` (of `copy` elements, `n` the
/// number of inputs) is input `i`'s block `k`, for each of the `outer` positions (the product of
/// the output dimensions before the axis). The output is written in order.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_pack`]) hold: every
/// input holds `outer * copy` elements; `output.len() == outer * inputs.len() * copy`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn pack<T: Copy>(
    outer: usize,
    copy: usize,
    inputs: &[&[T]],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_pack_slices(outer, copy, inputs, output)?;
    proven::pack(outer, copy, inputs, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    /// [`pack`](super::pack), its [`check`](super::check_pack) proven.
    #[inline]
    pub fn pack<T: Copy>(outer: usize, copy: usize, inputs: &[&[T]], output: &mut [T]) {
        debug_assert!(super::check_pack_slices(outer, copy, inputs, output).is_ok());
        let mut out = output.iter_mut();
        for k in 0..outer {
            if out.len() == 0 {
                return;
            }
            for input in inputs {
                let src = input
                    .get(k.wrapping_mul(copy)..)
                    .unwrap_or(&[])
                    .iter()
                    .take(copy);
                // The source first: `zip` stops on it without taking an output element.
                for (&x, o) in src.zip(&mut out) {
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
    fn interleaves_the_inputs() {
        // Two [2, 2] inputs packed along axis 1: output [2, 2, 2].
        let (a, b) = ([1_i16, 2, 3, 4], [5_i16, 6, 7, 8]);
        let mut out = [0_i16; 8];
        pack(2, 2, &[&a, &b], &mut out).unwrap();
        assert_eq!(out, [1, 2, 5, 6, 3, 4, 7, 8]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        refuses([4, 4, 8], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7_i16; o];
            (
                pack(2, 2, &[&vec![0; a], &vec![0; b]], &mut out),
                untouched(&out, 7),
            )
        });
    }
}
