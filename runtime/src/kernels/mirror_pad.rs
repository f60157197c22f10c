//! MIRROR_PAD: TFLM's `MirrorPad` (`mirror_pad.cc`), generic over the element type, with the
//! paddings resolved at build time.

use super::shared::check::{KernelError, check, elements, length, require};
use super::shared::{at, sized_mut};

/// Parameters of MIRROR_PAD: shapes right-aligned into 6 dimensions padded with leading 1s
/// (and paddings of 0), which maps every element as TFLM's `GetFlatIndex` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MirrorPad {
    /// Input shape.
    pub input: [usize; 6],
    /// Output shape: `input[d] + before[d] + after[d]`.
    pub output: [usize; 6],
    /// The padding before each dimension.
    pub before: [usize; 6],
    /// TFLM's `offset`: 1 for `REFLECT` (the border is not repeated), 0 for `SYMMETRIC`.
    pub offset: usize,
}

/// TFLM's `GetInputDimension`: the input index an output index `padded` of one dimension
/// mirrors.
fn input_index(padded: usize, before: usize, size: usize, offset: usize) -> usize {
    if padded < before {
        let original = before.saturating_add(offset).saturating_sub(1);
        return original.saturating_sub(padded.min(original.saturating_sub(offset)));
    }
    let padded = padded - before;
    if padded >= size {
        let padded = padded - size;
        let original = size.saturating_sub(1 + offset);
        return original.saturating_sub(padded.min(original));
    }
    padded
}

/// [`mirror_pad`]'s preconditions, on the lengths of its slices: what the entry checks before
/// it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_mirror_pad(
    p: &MirrorPad,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length("input", elements(&p.input), input));
    check!(length("output", elements(&p.output), output));
    check!(require(
        p.offset <= 1,
        "the offset is neither 1 (REFLECT) nor 0 (SYMMETRIC)"
    ));
    let mut d = 0;
    while d < 6 {
        let (size, before) = (p.input[d], p.before[d]);
        // The padding after: what the output holds beyond the input and the padding before.
        let after = match p.output[d].checked_sub(size) {
            Some(rest) => rest.checked_sub(before),
            None => None,
        };
        let mirrored = match (after, size.checked_sub(p.offset)) {
            (Some(after), Some(limit)) => before <= limit && after <= limit,
            _ => false,
        };
        if !mirrored {
            return Err(KernelError::Parameters(
                "a dimension's paddings exceed its input's size (less 1 for REFLECT), or the output's size is not their sum",
            ));
        }
        d += 1;
    }
    Ok(())
}

/// The entry generated code calls after asserting the kernel's check when the crate compiled:
/// the public entry without its run-time check (in debug builds it is asserted).
pub mod proven {
    use super::{MirrorPad, at, input_index, sized_mut};

    /// [`mirror_pad`](super::mirror_pad), its [`check`](super::check_mirror_pad) proven.
    pub fn mirror_pad<T: Copy + Default>(p: &MirrorPad, input: &[T], output: &mut [T]) {
        debug_assert!(super::check_mirror_pad(p, input.len(), output.len()).is_ok());
        let Some(output) = sized_mut(output, &p.output) else {
            return;
        };
        let [_, i1, i2, i3, i4, i5] = p.input;
        let [o0, o1, o2, o3, o4, o5] = p.output;
        let m = |o: usize, d: usize| input_index(o, p.before[d], p.input[d], p.offset);
        let mut out = output.iter_mut();
        for a in 0..o0 {
            let ia = m(a, 0);
            for b in 0..o1 {
                let ib = ia.wrapping_mul(i1).wrapping_add(m(b, 1));
                for c in 0..o2 {
                    let ic = ib.wrapping_mul(i2).wrapping_add(m(c, 2));
                    for d in 0..o3 {
                        let id = ic.wrapping_mul(i3).wrapping_add(m(d, 3));
                        for e in 0..o4 {
                            let ie = id.wrapping_mul(i4).wrapping_add(m(e, 4));
                            for f in 0..o5 {
                                let i = ie.wrapping_mul(i5).wrapping_add(m(f, 5));
                                if let Some(o) = out.next() {
                                    *o = at(input, i);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// MIRROR_PAD: TFLM's `MirrorPad`: output element `i` is input element `GetFlatIndex(i)`, each
/// dimension's index mirrored at the borders (repeating the border for `SYMMETRIC`, not for
/// `REFLECT`), in the output's order.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_mirror_pad`])
/// hold: the slices' lengths are the products of the shapes; `offset` is 0 or 1;
/// `output[d] == before[d] + input[d] + after[d]` with `before[d]` and `after[d]` at most
/// `input[d] - offset`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn mirror_pad<T: Copy + Default>(
    p: &MirrorPad,
    input: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_mirror_pad(p, input.len(), output.len())?;
    proven::mirror_pad(p, input, output);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_dim(before: usize, out: usize, offset: usize) -> [f32; 12] {
        let p = MirrorPad {
            input: [1, 1, 1, 1, 1, 4],
            output: [1, 1, 1, 1, 1, out],
            before: [0, 0, 0, 0, 0, before],
            offset,
        };
        let mut o = [0.0; 12];
        mirror_pad(&p, &[1.0, 2.0, 3.0, 4.0], &mut o[..out]).unwrap();
        o
    }

    #[test]
    fn reflects_and_mirrors_like_tflm() {
        // TFLM: REFLECT [1, 2, 3, 4] by (3, 3) -> 4 3 2 1 2 3 4 3 2 1.
        assert_eq!(
            &one_dim(3, 10, 1)[..10],
            &[4.0, 3.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 2.0, 1.0]
        );
        // SYMMETRIC by (4, 4) -> 4 3 2 1 1 2 3 4 4 3 2 1.
        assert_eq!(
            one_dim(4, 12, 0),
            [4.0, 3.0, 2.0, 1.0, 1.0, 2.0, 3.0, 4.0, 4.0, 3.0, 2.0, 1.0]
        );
    }

    #[test]
    fn inconsistent_parameters_are_refused() {
        let p = MirrorPad {
            input: [usize::MAX, 0, 1, 1, 1, 1],
            output: [1, 1, 1, 1, 1, 2],
            before: [usize::MAX; 6],
            offset: usize::MAX,
        };
        let mut out = [3_i8; 2];
        assert!(mirror_pad(&p, &[1, 2], &mut out).is_err());
        let reflect = MirrorPad {
            input: [1, 1, 1, 1, 1, 4],
            output: [1, 1, 1, 1, 1, 7],
            before: [0, 0, 0, 0, 0, 2],
            offset: 1,
        };
        let input = [1_i8, 2, 3, 4];
        let mut ok = [0_i8; 7];
        mirror_pad(&reflect, &input, &mut ok).unwrap();
        assert_eq!(ok, [3, 2, 1, 2, 3, 4, 3]);
        // One refused call per precondition, the output untouched.
        let mut out = [9_i8; 7];
        let input_short = mirror_pad(&reflect, &input[..3], &mut out);
        let mut long = [9_i8; 8];
        let output_long = mirror_pad(&reflect, &input, &mut long);
        let offset = mirror_pad(
            &MirrorPad {
                offset: 2,
                ..reflect
            },
            &input,
            &mut out,
        );
        let before = MirrorPad {
            before: [0, 0, 0, 0, 0, 4],
            output: [1, 1, 1, 1, 1, 9],
            ..reflect
        };
        let mut nine = [9_i8; 9];
        let too_far = mirror_pad(&before, &input, &mut nine);
        let after = MirrorPad {
            output: [1, 1, 1, 1, 1, 10],
            ..reflect
        };
        let mut ten = [9_i8; 10];
        let after_far = mirror_pad(&after, &input, &mut ten);
        assert_eq!(
            input_short,
            Err(KernelError::Length {
                operand: "input",
                expected: Some(4),
                found: 3
            })
        );
        assert!(matches!(
            output_long,
            Err(KernelError::Length {
                operand: "output",
                ..
            })
        ));
        for r in [offset, too_far, after_far] {
            assert!(matches!(r, Err(KernelError::Parameters(_))), "{r:?}");
        }
        assert_eq!(out, [9; 7]);
        assert_eq!(long, [9; 8]);
        assert_eq!(nine, [9; 9]);
        assert_eq!(ten, [9; 10]);
    }
}
