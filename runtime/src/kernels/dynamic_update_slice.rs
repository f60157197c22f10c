//! DYNAMIC_UPDATE_SLICE: TFLM's `EvalImpl` (`dynamic_update_slice.cc`), generic over the
//! element type and the index type (int32 or int64), with the start indices read at run time.

use super::shared::check::{KernelError, check, elements, length, require};
use super::shared::sized_mut;

/// Parameters of DYNAMIC_UPDATE_SLICE: shapes right-aligned into 6 dimensions padded with
/// leading 1s (the padded dimensions start at 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DynamicUpdateSlice {
    /// The operand's (and the output's) shape.
    pub operand: [usize; 6],
    /// The update's shape (no larger than the operand's in any dimension).
    pub update: [usize; 6],
}

/// [`dynamic_update_slice`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_dynamic_update_slice(
    p: &DynamicUpdateSlice,
    operand: usize,
    update: usize,
    indices: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length("operand", elements(&p.operand), operand));
    check!(length("update", elements(&p.update), update));
    check!(length("output", elements(&p.operand), output));
    check!(require(indices <= 6, "more than 6 start indices"));
    let mut d = 0;
    while d < 6 {
        check!(require(
            p.update[d] <= p.operand[d],
            "the update is larger than the operand"
        ));
        d += 1;
    }
    Ok(())
}

/// DYNAMIC_UPDATE_SLICE: TFLM's `EvalImpl`: the output is the operand with the update written
/// over it from the start indices, each clamped to `0..=operand[d] - update[d]` (TFLM's
/// `CalculateClampedStartIndices`, in 64 bits). Operand and update of the same element count:
/// the output is the update.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_dynamic_update_slice`]) hold: the slices' lengths are the products of the shapes
/// (the output's the operand's), the update is nowhere larger than the operand, and `indices`
/// holds at most 6 indices (one per dimension of the operand).
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn dynamic_update_slice<T: Copy, I: Copy + Into<i64>>(
    p: &DynamicUpdateSlice,
    operand: &[T],
    update: &[T],
    indices: &[I],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_dynamic_update_slice(p, operand.len(), update.len(), indices.len(), output.len())?;
    proven::dynamic_update_slice(p, operand, update, indices, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`dynamic_update_slice`](super::dynamic_update_slice), its [`check`](super::check_dynamic_update_slice) proven.
    #[inline]
    pub fn dynamic_update_slice<T: Copy, I: Copy + Into<i64>>(
        p: &DynamicUpdateSlice,
        operand: &[T],
        update: &[T],
        indices: &[I],
        output: &mut [T],
    ) {
        debug_assert!(
            super::check_dynamic_update_slice(
                p,
                operand.len(),
                update.len(),
                indices.len(),
                output.len()
            )
            .is_ok()
        );
        let Some(output) = sized_mut(output, &p.operand) else {
            return;
        };
        let same_size = elements(&p.operand) == elements(&p.update);
        let src = if same_size { update } else { operand };
        for (o, &x) in output.iter_mut().zip(src) {
            *o = x;
        }
        if same_size || p.update.contains(&0) {
            return;
        }
        let pad = 6_usize.saturating_sub(indices.len());
        let start: [usize; 6] = core::array::from_fn(|d| {
            let raw: i64 = d
                .checked_sub(pad)
                .and_then(|i| indices.get(i))
                .map_or(0, |&v| v.into());
            let room = i64::try_from(p.operand[d].saturating_sub(p.update[d])).unwrap_or(0);
            usize::try_from(raw.max(0).min(room)).unwrap_or(0)
        });
        let [_, o1, o2, o3, o4, o5] = p.operand;
        let [u0, u1, u2, u3, u4, u5] = p.update;
        let mut rows = update.chunks(u5);
        for a in 0..u0 {
            let ia = start[0].wrapping_add(a);
            for b in 0..u1 {
                let ib = ia.wrapping_mul(o1).wrapping_add(start[1].wrapping_add(b));
                for c in 0..u2 {
                    let ic = ib.wrapping_mul(o2).wrapping_add(start[2].wrapping_add(c));
                    for d in 0..u3 {
                        let id = ic.wrapping_mul(o3).wrapping_add(start[3].wrapping_add(d));
                        for e in 0..u4 {
                            let ie = id.wrapping_mul(o4).wrapping_add(start[4].wrapping_add(e));
                            let at = ie.wrapping_mul(o5).wrapping_add(start[5]);
                            let Some(row) = rows.next() else {
                                return;
                            };
                            let dst = output.get_mut(at..).unwrap_or(&mut []);
                            for (o, &x) in dst.iter_mut().zip(row) {
                                *o = x;
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
    fn writes_the_update_at_clamped_indices() {
        let p = DynamicUpdateSlice {
            operand: [1, 1, 1, 1, 3, 3],
            update: [1, 1, 1, 1, 2, 2],
        };
        let operand = [0_i16; 9];
        let mut out = [7_i16; 9];
        // Start (5, -1) clamps to (1, 0).
        dynamic_update_slice(&p, &operand, &[1, 2, 3, 4], &[5_i32, -1], &mut out).unwrap();
        assert_eq!(out, [0, 0, 0, 1, 2, 0, 3, 4, 0]);
        dynamic_update_slice(&p, &operand, &[1, 2, 3, 4], &[0_i64, 1], &mut out).unwrap();
        assert_eq!(out, [0, 1, 2, 0, 3, 4, 0, 0, 0]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = DynamicUpdateSlice {
            operand: [1, 1, 1, 1, 3, 4],
            update: [1, 1, 1, 1, 2, 2],
        };
        refuses([12, 4, 12], [Exact; 3], |[a, u, o]| {
            let mut out = vec![7_i8; o];
            let r = dynamic_update_slice(&p, &vec![0; a], &vec![0; u], &[0_i32; 2], &mut out);
            (r, untouched(&out, 7))
        });
        let mut out = [7_i8; 12];
        assert!(dynamic_update_slice(&p, &[0; 12], &[0; 4], &[0_i32; 7], &mut out).is_err());
        let large = DynamicUpdateSlice {
            update: [1, 1, 1, 1, 4, 1],
            ..p
        };
        assert!(dynamic_update_slice(&large, &[0; 12], &[0; 4], &[0_i32; 2], &mut out).is_err());
        assert_eq!(out, [7; 12]);
    }
}
