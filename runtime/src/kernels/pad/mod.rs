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
        let mut k = 0;
        super::pad_runs(p, |run| match run {
            super::Run::Fill(len) => {
                if let Some(out) = output.get_mut(k..k + len) {
                    out.fill(pad_value);
                }
                k += len;
            }
            super::Run::Copy { from, len } => {
                if let (Some(out), Some(x)) =
                    (output.get_mut(k..k + len), input.get(from..from + len))
                {
                    out.copy_from_slice(x);
                }
                k += len;
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

/// A run of PAD's output, in order: `len` elements of padding, or `len` input elements from
/// input element `from` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Run {
    /// Padding.
    Fill(usize),
    /// Input elements `from..from + len`.
    Copy { from: usize, len: usize },
}

/// PAD's output as runs, in order: per row of the innermost dimension the padding before it,
/// the input row and the padding after it, adjacent padding merged into one run (whole padded
/// rows, the padding after a row with the one before the next), and so are adjacent input rows
/// with no padding between them (consecutive in the input and in the output: a PAD of outer
/// dimensions copies each unpadded stretch as one run). Runs cover the output once, in order:
/// an output element that is input element `j` lies in a copy run at `j`'s place, every other
/// in a fill (the tests hold it to the element-by-element walk).
#[inline(always)]
pub(super) fn pad_runs(p: &Pad, mut emit: impl FnMut(Run)) {
    let [o0, o1, o2, o3, o4] = p.output;
    let [_, i1, i2, i3, i4] = p.input;
    let (b4, after4) = (p.before[4], o4.saturating_sub(p.before[4] + i4));
    let inside = |o: usize, d: usize| o.checked_sub(p.before[d]).filter(|&i| i < p.input[d]);
    // The padding and the input rows not yet emitted: `fill` elements of padding, then (none
    // when `len` is 0) input elements `from..from + len`.
    let (mut fill, mut from, mut len) = (0, 0, 0);
    for a in 0..o0 {
        let ia = inside(a, 0);
        for b in 0..o1 {
            let ib = inside(b, 1);
            for c in 0..o2 {
                let ic = inside(c, 2);
                for d in 0..o3 {
                    match (ia, ib, ic, inside(d, 3)) {
                        (Some(ia), Some(ib), Some(ic), Some(id)) if i4 > 0 => {
                            let row = (((ia * i1 + ib) * i2 + ic) * i3 + id) * i4;
                            if len > 0 && fill == 0 && b4 == 0 && row == from + len {
                                // The next input row, right after the pending one in both.
                                len += i4;
                            } else {
                                if len > 0 {
                                    emit(Run::Copy { from, len });
                                }
                                fill += b4;
                                if fill > 0 {
                                    emit(Run::Fill(fill));
                                }
                                (from, len) = (row, i4);
                            }
                            fill = after4;
                        }
                        _ => {
                            if len > 0 {
                                emit(Run::Copy { from, len });
                                len = 0;
                            }
                            fill += o4;
                        }
                    }
                }
            }
        }
    }
    if len > 0 {
        emit(Run::Copy { from, len });
    }
    if fill > 0 {
        emit(Run::Fill(fill));
    }
}

/// PAD's loop nest element by element: `emit(Some(j))` for each output element, in order, that
/// is input element `j`, `emit(None)` for one in the padding. The definition [`pad_runs`] is
/// tested against, and the one-buffer entry's least displacement.
#[cfg(test)]
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
    extern crate std;
    use super::*;
    use std::vec::Vec;

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

    /// The runs cover the output once, in order, and map each element as the element-by-element
    /// walk does, on random shapes with and without padding in each dimension.
    #[test]
    fn runs_are_the_walk() {
        let mut seed = 0x9ad_5eed_u32;
        let mut below = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as usize % n
        };
        // Under miri a few small shapes (the walk is the time).
        let (cases, most) = if cfg!(miri) { (12, 2) } else { (2000, 4) };
        for _ in 0..cases {
            let mut p = Pad {
                input: [1; 5],
                output: [1; 5],
                before: [0; 5],
            };
            for d in 0..5 {
                p.input[d] = below(most);
                p.before[d] = below(most - 1);
                p.output[d] = p.input[d] + p.before[d] + below(most - 1);
            }
            let mut walk = Vec::new();
            pad_walk(&p, |j| walk.push(j));
            let mut runs = Vec::new();
            let mut last_fill = false;
            // The end of the last run if it was a copy: the next copy must not start there.
            let mut last_copy_end = None;
            pad_runs(&p, |run| match run {
                Run::Fill(len) => {
                    assert!(len > 0 && !last_fill, "{p:?}: an empty or unmerged fill");
                    last_fill = true;
                    last_copy_end = None;
                    runs.extend(core::iter::repeat_n(None, len));
                }
                Run::Copy { from, len } => {
                    assert!(len > 0, "{p:?}");
                    assert_ne!(last_copy_end, Some(from), "{p:?}: an unmerged copy");
                    last_fill = false;
                    last_copy_end = Some(from + len);
                    runs.extend((from..from + len).map(Some));
                }
            });
            assert_eq!(runs, walk, "{p:?}");
        }
    }
}
