//! CONCATENATION: TFLM's `reference_ops::Concatenation`, a copy of each input's rows (int8
//! inputs are quantised as the output, so no arithmetic: generic over the element type).

pub(crate) mod in_place;

use super::shared::check::{KernelError, length};

/// TFLM's `kMaxInputNum`: the most inputs a CONCATENATION takes.
const MAX_INPUTS: usize = 10;

/// [`concatenation`]'s preconditions, on the lengths of its slices (`inputs[i]`: input `i`'s):
/// what the entry checks before it runs, and what generated code asserts when the crate
/// compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_concatenation(
    outer: usize,
    input_inner: &[usize],
    inputs: &[usize],
    output: usize,
) -> Result<(), KernelError> {
    if inputs.len() != input_inner.len() {
        return Err(KernelError::Parameters(
            "the inputs are not as many as their sizes (`input_inner`)",
        ));
    }
    if inputs.len() > MAX_INPUTS {
        return Err(KernelError::Parameters(
            "more inputs than TFLM's CONCATENATION takes (10)",
        ));
    }
    let (mut row, mut i) = (Some(0_usize), 0);
    while i < inputs.len() {
        if let Err(e) = length("inputs", outer.checked_mul(input_inner[i]), inputs[i]) {
            return Err(e);
        }
        row = match row {
            Some(r) => r.checked_add(input_inner[i]),
            None => None,
        };
        i += 1;
    }
    let expected = match row {
        Some(r) => outer.checked_mul(r),
        None => None,
    };
    length("output", expected, output)
}

/// The inputs' lengths, in an array of [`MAX_INPUTS`] (`None` for more inputs).
fn lengths<T>(inputs: &[&[T]]) -> Option<([usize; MAX_INPUTS], usize)> {
    let mut lens = [0_usize; MAX_INPUTS];
    for (l, input) in lens.get_mut(..inputs.len())?.iter_mut().zip(inputs) {
        *l = input.len();
    }
    Some((lens, inputs.len()))
}

/// [`check_concatenation`] on the slices themselves.
fn check_slices<T>(
    outer: usize,
    input_inner: &[usize],
    inputs: &[&[T]],
    output: usize,
) -> Result<(), KernelError> {
    let Some((lens, n)) = lengths(inputs) else {
        return Err(KernelError::Parameters(
            "more inputs than TFLM's CONCATENATION takes (10)",
        ));
    };
    check_concatenation(outer, input_inner, lens.get(..n).unwrap_or(&[]), output)
}

/// The entry generated code calls after asserting the kernel's check when the crate compiled:
/// the public entry without its run-time check (in debug builds it is asserted).
pub mod proven {
    /// [`concatenation`](super::concatenation), its [`check`](super::check_concatenation)
    /// proven.
    pub fn concatenation<T: Copy>(
        outer: usize,
        input_inner: &[usize],
        inputs: &[&[T]],
        output: &mut [T],
    ) {
        debug_assert!(super::check_slices(outer, input_inner, inputs, output.len()).is_ok());
        let mut out = output.iter_mut();
        for k in 0..outer {
            for (input, &inner) in inputs.iter().zip(input_inner) {
                let start = k.wrapping_mul(inner);
                let chunk = input.get(start..).unwrap_or(&[]).iter().take(inner);
                // The chunk first: `zip` stops on it without taking an output element.
                for (&i, o) in chunk.zip(&mut out) {
                    *o = i;
                }
            }
        }
    }
}

/// CONCATENATION along an axis of inputs quantised alike: TFLM's
/// `reference_ops::Concatenation`: for each of the `outer` positions (the product of the
/// dimensions before the axis), input `i`'s next `input_inner[i]` elements (the product of its
/// dimensions from the axis on), inputs in order.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions hold (its lengths satisfy
/// [`check_concatenation`]): `inputs.len() == input_inner.len()`, at most 10 (TFLM's
/// `kMaxInputNum`), `inputs[i].len() == outer * input_inner[i]`,
/// `output.len() == outer * input_inner.iter().sum()`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn concatenation<T: Copy>(
    outer: usize,
    input_inner: &[usize],
    inputs: &[&[T]],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_slices(outer, input_inner, inputs, output.len())?;
    proven::concatenation(outer, input_inner, inputs, output);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CONCATENATION refuses, writing nothing, sizes not one per input, more than 10 inputs,
    /// an input or the output of the wrong length; its one-buffer entry other inputs not one
    /// fewer than the sizes, one of the wrong length, and a first input too close above the
    /// output.
    #[test]
    fn refused_calls_write_nothing() {
        let (a, b) = ([1_i8, 2, 3, 4], [9_i8, 8]);
        let mut out = [7_i8; 7];
        let calls = [
            concatenation(2, &[2], &[&a, &b], &mut out[..6]),
            concatenation(2, &[2, 1], &[&a[..3], &b], &mut out[..6]),
            concatenation(2, &[2, 1], &[&a, &b], &mut out),
            concatenation(1, &[0; 11], &[&[] as &[i8]; 11], &mut out[..0]),
        ];
        assert!(matches!(calls[0], Err(KernelError::Parameters(_))));
        assert_eq!(
            calls[1],
            Err(KernelError::Length {
                operand: "inputs",
                expected: Some(4),
                found: 3
            })
        );
        assert_eq!(check_concatenation(2, &[2, 1], &[4, 2], 7), calls[2]);
        assert!(matches!(calls[3], Err(KernelError::Parameters(_))));
        assert_eq!(out, [7; 7]);
        // One buffer: the first input [1 2; 3 4] at 4, the output's 6 elements at 0.
        let fresh = || [0, 0, 0, 0, 1_i8, 2, 3, 4];
        // The last: the first input at the output's start, one element closer than the least
        // displacement (1).
        let refused: [(usize, &[&[i8]]); 3] = [(4, &[]), (4, &[&b[..1]]), (0, &[&b])];
        for (at, rest) in refused {
            let mut buf = fresh();
            if at == 0 {
                buf.copy_within(4.., 0);
            }
            let before = buf;
            assert!(in_place::concatenation(&(), &mut buf, at, 0, 2, &[2, 1], rest).is_err());
            assert_eq!(buf, before);
        }
        let mut buf = fresh();
        in_place::concatenation(&(), &mut buf, 4, 0, 2, &[2, 1], &[&b]).unwrap();
        assert_eq!(buf[..6], [1, 2, 9, 3, 4, 8]);
        assert_eq!(
            in_place::check_concatenation(8, 0, 0, 2, &[2, 1], &[2]),
            Err(KernelError::Placement)
        );
    }
}
