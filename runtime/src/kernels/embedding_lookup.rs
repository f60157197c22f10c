//! EMBEDDING_LOOKUP: TFLM's `EvalSimple` (a copy of rows, generic over the element type) and
//! `EvalHybrid` (int8 rows dequantised to float) of `embedding_lookup.cc`.

use super::shared::check::{KernelError, check, elements, length};

/// Parameters of EMBEDDING_LOOKUP: the value tensor as `[rows, columns]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmbeddingLookup {
    /// The value's first dimension.
    pub rows: usize,
    /// The product of its other dimensions (TFLM's `num_columns`).
    pub columns: usize,
}

/// Parameters of the hybrid EMBEDDING_LOOKUP (int8 value, float output).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmbeddingLookupHybrid {
    /// The value's shape as rows and columns.
    pub shape: EmbeddingLookup,
    /// The value's scale (its zero point is 0: TFLM's Prepare requires it).
    pub scale: f32,
}

/// The rows `ids` name, in order, until the first id outside `0..rows` (where TFLM's `Eval`
/// fails, with the earlier rows written).
fn rows<'a, T, O>(
    rows: usize,
    columns: usize,
    ids: &'a [i32],
    value: &'a [T],
    output: &'a mut [O],
) -> impl Iterator<Item = (&'a [T], &'a mut [O])> + 'a {
    let columns = columns.max(1);
    ids.iter()
        .map_while(move |&id| {
            usize::try_from(id)
                .ok()
                .filter(|&id| id < rows)
                .map(|id| value.get(id.wrapping_mul(columns)..).unwrap_or(&[]))
        })
        .zip(output.chunks_mut(columns))
}

/// [`embedding_lookup`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_embedding_lookup(
    p: &EmbeddingLookup,
    ids: usize,
    value: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length("value", elements(&[p.rows, p.columns]), value));
    length("output", elements(&[ids, p.columns]), output)
}

/// EMBEDDING_LOOKUP: TFLM's `EvalSimple`: output row `i` is value row `ids[i]`, up to the first
/// id outside the value's rows (TFLM then fails; the remaining output rows are left as they
/// were).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_embedding_lookup`])
/// hold: `value.len() == rows * columns`, `output.len() == ids.len() * columns`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn embedding_lookup<T: Copy>(
    p: &EmbeddingLookup,
    ids: &[i32],
    value: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_embedding_lookup(p, ids.len(), value.len(), output.len())?;
    proven::embedding_lookup(p, ids, value, output);
    Ok(())
}

/// [`embedding_lookup_s8_f32`]'s preconditions, as [`check_embedding_lookup`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_embedding_lookup_s8_f32(
    p: &EmbeddingLookupHybrid,
    ids: usize,
    value: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length(
        "value",
        elements(&[p.shape.rows, p.shape.columns]),
        value
    ));
    length("output", elements(&[ids, p.shape.columns]), output)
}

/// Hybrid EMBEDDING_LOOKUP: TFLM's `EvalHybrid`: output row `i` is value row `ids[i]`
/// dequantised by TFLM's `Dequantize` (`(x - 0) * scale`, the int converted to float), up to the
/// first id outside the value's rows.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_embedding_lookup_s8_f32`]) hold: as [`embedding_lookup`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn embedding_lookup_s8_f32(
    p: &EmbeddingLookupHybrid,
    ids: &[i32],
    value: &[i8],
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_embedding_lookup_s8_f32(p, ids.len(), value.len(), output.len())?;
    proven::embedding_lookup_s8_f32(p, ids, value, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`embedding_lookup`](super::embedding_lookup), its [`check`](super::check_embedding_lookup) proven.
    #[inline]
    pub fn embedding_lookup<T: Copy>(
        p: &EmbeddingLookup,
        ids: &[i32],
        value: &[T],
        output: &mut [T],
    ) {
        debug_assert!(
            super::check_embedding_lookup(p, ids.len(), value.len(), output.len()).is_ok()
        );
        if p.columns == 0 {
            return;
        }
        for (src, dst) in rows(p.rows, p.columns, ids, value, output) {
            for (o, &x) in dst.iter_mut().zip(src) {
                *o = x;
            }
        }
    }

    /// [`embedding_lookup_s8_f32`](super::embedding_lookup_s8_f32), its [`check`](super::check_embedding_lookup_s8_f32) proven.
    #[inline]
    pub fn embedding_lookup_s8_f32(
        p: &EmbeddingLookupHybrid,
        ids: &[i32],
        value: &[i8],
        output: &mut [f32],
    ) {
        debug_assert!(
            super::check_embedding_lookup_s8_f32(p, ids.len(), value.len(), output.len()).is_ok()
        );
        if p.shape.columns == 0 {
            return;
        }
        for (src, dst) in rows(p.shape.rows, p.shape.columns, ids, value, output) {
            for (o, &x) in dst.iter_mut().zip(src) {
                *o = i32::from(x) as f32 * p.scale;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_up_rows_until_a_bad_id() {
        let p = EmbeddingLookup {
            rows: 3,
            columns: 2,
        };
        let mut out = [0_i8; 6];
        embedding_lookup(&p, &[2, 0, 3], &[1, 2, 3, 4, 5, 6], &mut out).unwrap();
        assert_eq!(out, [5, 6, 1, 2, 0, 0]);
        let h = EmbeddingLookupHybrid {
            shape: p,
            scale: 0.25,
        };
        let mut out = [0.0_f32; 4];
        embedding_lookup_s8_f32(&h, &[2, 0], &[1, 2, 3, 4, -128, 127], &mut out).unwrap();
        assert_eq!(out, [-32.0, 31.75, 0.25, 0.5]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = EmbeddingLookup {
            rows: 3,
            columns: 2,
        };
        refuses([2, 6, 4], [Exact; 3], |[n, v, o]| {
            let mut out = vec![7_i8; o];
            (
                embedding_lookup(&p, &vec![0; n], &vec![0; v], &mut out),
                untouched(&out, 7),
            )
        });
        let h = EmbeddingLookupHybrid {
            shape: p,
            scale: 0.5,
        };
        refuses([2, 6, 4], [Exact; 3], |[n, v, o]| {
            let mut out = vec![7.0; o];
            let r = embedding_lookup_s8_f32(&h, &vec![0; n], &vec![0; v], &mut out);
            (r, untouched(&out, 7.0))
        });
    }
}
