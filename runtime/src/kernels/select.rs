//! SELECT_V2: TFLM's `reference_ops::Select` (same shapes, or every tensor of one element) and
//! `BroadcastSelect5DSlow` (`BroadcastSelectSimple`): each output element is `x`'s where the
//! condition is true, `y`'s where it is false, the three inputs broadcast to the output.

use super::shared::at;
use super::shared::check::{KernelError, check, elements, length, require};

/// Shapes of SELECT_V2, each right-aligned into 6 dimensions padded with leading 1s; an input
/// dimension of 1 where the output's is larger is broadcast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelectShape {
    /// The condition (bool).
    pub condition: [usize; 6],
    /// `x`, taken where the condition holds.
    pub x: [usize; 6],
    /// `y`, taken elsewhere.
    pub y: [usize; 6],
    /// The output.
    pub output: [usize; 6],
}

/// Row-major strides of `shape`, 0 where `shape` has extent 1.
fn strides(shape: &[usize; 6]) -> [usize; 6] {
    let mut out = [0; 6];
    let mut stride = 1_usize;
    for d in (0..6).rev() {
        out[d] = if shape[d] == 1 { 0 } else { stride };
        stride = stride.wrapping_mul(shape[d]);
    }
    out
}

/// [`select`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_select(
    p: &SelectShape,
    condition: usize,
    x: usize,
    y: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length("condition", elements(&p.condition), condition));
    check!(length("x", elements(&p.x), x));
    check!(length("y", elements(&p.y), y));
    check!(length("output", elements(&p.output), output));
    let mut d = 0;
    while d < 6 {
        let o = p.output[d];
        check!(require(
            (p.condition[d] == o || p.condition[d] == 1)
                && (p.x[d] == o || p.x[d] == 1)
                && (p.y[d] == o || p.y[d] == 1),
            "an input dimension is neither the output's nor 1"
        ));
        d += 1;
    }
    Ok(())
}

/// SELECT_V2: `condition ? x : y` per output element, in the output's memory order (every
/// output element depends on one element of each input only, so the order of TFLM's loops
/// changes nothing). The condition is bytes, non-zero true.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_select`]) hold:
/// each slice holds its shape's element count; every input dimension equals the output's or is
/// 1.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn select<T: Copy + Default>(
    p: &SelectShape,
    condition: &[u8],
    x: &[T],
    y: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_select(p, condition.len(), x.len(), y.len(), output.len())?;
    proven::select(p, condition, x, y, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`select`](super::select), its [`check`](super::check_select) proven.
    #[inline]
    pub fn select<T: Copy + Default>(
        p: &SelectShape,
        condition: &[u8],
        x: &[T],
        y: &[T],
        output: &mut [T],
    ) {
        debug_assert!(
            super::check_select(p, condition.len(), x.len(), y.len(), output.len()).is_ok()
        );
        let (sc, sx, sy) = (strides(&p.condition), strides(&p.x), strides(&p.y));
        let [d0, d1, d2, d3, d4, d5] = p.output;
        let offset = |s: &[usize; 6], i: [usize; 6]| {
            i.iter()
                .zip(s)
                .fold(0_usize, |acc, (&i, &s)| acc.wrapping_add(i.wrapping_mul(s)))
        };
        let mut out = output.iter_mut();
        for i0 in 0..d0 {
            for i1 in 0..d1 {
                for i2 in 0..d2 {
                    for i3 in 0..d3 {
                        for i4 in 0..d4 {
                            for i5 in 0..d5 {
                                let i = [i0, i1, i2, i3, i4, i5];
                                let value = if at(condition, offset(&sc, i)) != 0 {
                                    at(x, offset(&sx, i))
                                } else {
                                    at(y, offset(&sy, i))
                                };
                                if let Some(o) = out.next() {
                                    *o = value;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasts_three_ways() {
        let p = SelectShape {
            condition: [1, 1, 1, 1, 2, 1],
            x: [1, 1, 1, 1, 1, 3],
            y: [1, 1, 1, 1, 1, 1],
            output: [1, 1, 1, 1, 2, 3],
        };
        let mut out = [0_i8; 6];
        select(&p, &[1, 0], &[1, 2, 3], &[-1], &mut out).unwrap();
        assert_eq!(out, [1, 2, 3, -1, -1, -1]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = SelectShape {
            condition: [1, 1, 1, 1, 2, 1],
            x: [1, 1, 1, 1, 2, 2],
            y: [1, 1, 1, 1, 1, 2],
            output: [1, 1, 1, 1, 2, 2],
        };
        refuses([2, 4, 2, 4], [Exact; 4], |[c, x, y, o]| {
            let mut out = vec![7_i8; o];
            (
                select(&p, &vec![1; c], &vec![0; x], &vec![0; y], &mut out),
                untouched(&out, 7),
            )
        });
        let bad = SelectShape {
            y: [1, 1, 1, 1, 1, 3],
            ..p
        };
        let mut out = [7_i8; 4];
        assert!(select(&bad, &[1; 2], &[0; 4], &[0; 3], &mut out).is_err());
        assert_eq!(out, [7; 4]);
    }
}
