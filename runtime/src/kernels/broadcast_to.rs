//! BROADCAST_TO: TFLM's `reference_ops::BroadcastTo<5>` (a copy of bytes, generic over the
//! element type here).

use super::shared::check::{KernelError, check, elements, length, require};
use super::shared::{at, sized_mut};

/// Parameters of BROADCAST_TO: shapes right-aligned into 5 dimensions padded with leading 1s;
/// an input dimension of 1 where the output's is larger is broadcast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BroadcastTo {
    /// Input shape.
    pub input: [usize; 5],
    /// Output shape.
    pub output: [usize; 5],
}

/// [`broadcast_to`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_broadcast_to(
    p: &BroadcastTo,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length("input", elements(&p.input), input));
    check!(length("output", elements(&p.output), output));
    let mut d = 0;
    while d < 5 {
        check!(require(
            p.input[d] == 1 || p.input[d] == p.output[d],
            "an input dimension is neither the output's nor 1"
        ));
        d += 1;
    }
    Ok(())
}

/// BROADCAST_TO: TFLM's `reference_ops::BroadcastTo`: output element `(o0..o4)` is input
/// element `(i0..i4)` with `i[d] = 0` where the input's extent is 1 and `o[d]` elsewhere (TFLM
/// copies the input's rows, then duplicates them; every element ends up with the same value).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_broadcast_to`])
/// hold: the slices' lengths are the products of the shapes, and every input dimension is 1 or
/// the output's.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn broadcast_to<T: Copy + Default>(
    p: &BroadcastTo,
    input: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_broadcast_to(p, input.len(), output.len())?;
    proven::broadcast_to(p, input, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`broadcast_to`](super::broadcast_to), its [`check`](super::check_broadcast_to) proven.
    #[inline]
    pub fn broadcast_to<T: Copy + Default>(p: &BroadcastTo, input: &[T], output: &mut [T]) {
        debug_assert!(super::check_broadcast_to(p, input.len(), output.len()).is_ok());
        let Some(output) = sized_mut(output, &p.output) else {
            return;
        };
        let mut strides = [0_usize; 5];
        let mut stride = 1_usize;
        for d in (0..5).rev() {
            strides[d] = if p.input[d] == 1 { 0 } else { stride };
            stride = stride.wrapping_mul(p.input[d]);
        }
        let [o0, o1, o2, o3, o4] = p.output;
        let [s0, s1, s2, s3, s4] = strides;
        let mut out = output.iter_mut();
        for a in 0..o0 {
            for b in 0..o1 {
                for c in 0..o2 {
                    for d in 0..o3 {
                        let base = a
                            .wrapping_mul(s0)
                            .wrapping_add(b.wrapping_mul(s1))
                            .wrapping_add(c.wrapping_mul(s2))
                            .wrapping_add(d.wrapping_mul(s3));
                        for e in 0..o4 {
                            if let Some(o) = out.next() {
                                *o = at(input, base.wrapping_add(e.wrapping_mul(s4)));
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
    fn broadcasts_rows_and_columns() {
        let p = BroadcastTo {
            input: [1, 1, 1, 2, 1],
            output: [1, 1, 2, 2, 3],
        };
        let mut out = [0_i64; 12];
        broadcast_to(&p, &[1, 2], &mut out).unwrap();
        assert_eq!(out, [1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = BroadcastTo {
            input: [1, 1, 1, 1, 2],
            output: [1, 1, 1, 3, 2],
        };
        refuses([2, 6], [Exact; 2], |[i, o]| {
            let mut out = vec![7_i8; o];
            (broadcast_to(&p, &vec![0; i], &mut out), untouched(&out, 7))
        });
    }
}
