//! PAD: TFLM's `reference_ops::Pad` (generic over the element type; the padding value is
//! given).

pub(crate) mod in_place;

use super::shared::check::{KernelError, check, elements, length};

/// Parameters of PAD: shapes right-aligned into 5 dimensions padded with leading 1s, and the
/// padding before each dimension (0 for the added ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pad {
    /// Input shape.
    pub input: [usize; 5],
    /// Output shape: `input[d] + before[d] + after[d]`.
    pub output: [usize; 5],
    /// Padding before each dimension.
    pub before: [usize; 5],
}

/// [`pad`]'s preconditions, on the lengths of its slices: what the entry checks before it
/// runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_pad(p: &Pad, input: usize, output: usize) -> Result<(), KernelError> {
    check!(length("input", elements(&p.input), input));
    check!(length("output", elements(&p.output), output));
    let mut d = 0;
    while d < 5 {
        let fits = match p.before[d].checked_add(p.input[d]) {
            Some(end) => end <= p.output[d],
            None => false,
        };
        if !fits {
            return Err(KernelError::Parameters(
                "a dimension's padding before and input do not fit in the output's",
            ));
        }
        d += 1;
    }
    Ok(())
}

/// The entry generated code calls after asserting the kernel's check when the crate compiled:
/// the public entry without its run-time check (in debug builds it is asserted).
pub mod proven {
    use super::Pad;

    /// [`pad`](super::pad), its [`check`](super::check_pad) proven.
    pub fn pad<T: Copy>(p: &Pad, input: &[T], pad_value: T, output: &mut [T]) {
        debug_assert!(super::check_pad(p, input.len(), output.len()).is_ok());
        let mut out = output.iter_mut();
        super::pad_walk(p, |j| {
            if let Some(o) = out.next() {
                *o = j.and_then(|j| input.get(j).copied()).unwrap_or(pad_value);
            }
        });
    }
}

/// PAD / PADV2: TFLM's `reference_ops::PadImpl`: each output element is the input element it
/// covers, or `pad_value` in the padding (for int8, TFLM's pad value is the constant input or
/// else the output zero point).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_pad`]) hold:
/// `input.len()` and `output.len()` are the products of the shapes; `before[d] + input[d] <=
/// output[d]`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn pad<T: Copy>(
    p: &Pad,
    input: &[T],
    pad_value: T,
    output: &mut [T],
) -> Result<(), KernelError> {
    check_pad(p, input.len(), output.len())?;
    proven::pad(p, input, pad_value, output);
    Ok(())
}

/// PAD's loop nest: `emit(Some(j))` for each output element, in order, that is input element
/// `j`, `emit(None)` for one in the padding.
#[inline(always)]
pub(super) fn pad_walk(p: &Pad, mut emit: impl FnMut(Option<usize>)) {
    let [o0, o1, o2, o3, o4] = p.output;
    let [_, i1, i2, i3, i4] = p.input;
    let inside = |o: usize, d: usize| o.checked_sub(p.before[d]).filter(|&i| i < p.input[d]);
    for a in 0..o0 {
        let ia = inside(a, 0);
        for b in 0..o1 {
            let ib = inside(b, 1);
            for c in 0..o2 {
                let ic = inside(c, 2);
                for d in 0..o3 {
                    let id = inside(d, 3);
                    for e in 0..o4 {
                        emit(match (ia, ib, ic, id, inside(e, 4)) {
                            (Some(ia), Some(ib), Some(ic), Some(id), Some(ie)) => {
                                Some((((ia * i1 + ib) * i2 + ic) * i3 + id) * i4 + ie)
                            }
                            _ => None,
                        });
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PAD refuses, writing nothing, an input or output of the wrong length and a padding that
    /// does not fit in the output; its one-buffer entry a tensor past the end and an input too
    /// close above the output.
    #[test]
    fn refused_calls_write_nothing() {
        let p = Pad {
            input: [1, 1, 1, 2, 2],
            output: [1, 1, 1, 3, 3],
            before: [0, 0, 0, 1, 0],
        };
        let x = [1_i8, 2, 3, 4];
        let mut out = [7_i8; 10];
        let past = Pad {
            before: [0, 0, 0, 2, 0],
            ..p
        };
        assert!(matches!(
            pad(&p, &x[..3], 0, &mut out[..9]),
            Err(KernelError::Length {
                operand: "input",
                ..
            })
        ));
        assert!(matches!(
            pad(&p, &x, 0, &mut out),
            Err(KernelError::Length {
                operand: "output",
                ..
            })
        ));
        assert!(matches!(
            pad(&past, &x, 0, &mut out[..9]),
            Err(KernelError::Parameters(_))
        ));
        assert_eq!(out, [7; 10]);
        let least = in_place::pad_min_displacement(&p).unwrap();
        assert_eq!(least, 4);
        for at in [6, least - 1] {
            let mut buf = [7_i8; 9];
            let buf = &mut buf[..];
            let before = buf.to_vec();
            let r = in_place::pad(&p, buf, at, 0, 0);
            assert_eq!(r, Err(KernelError::Placement), "{at}");
            assert_eq!(buf, &before[..]);
        }
        let mut buf = [0_i8; 16];
        buf[least..least + 4].copy_from_slice(&x);
        in_place::pad(&p, &mut buf[..(least + 4).max(9)], least, 0, -1).unwrap();
        assert_eq!(buf[..9], [-1, -1, -1, 1, 2, -1, 3, 4, -1]);
    }
}
