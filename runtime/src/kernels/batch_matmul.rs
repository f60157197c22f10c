//! BATCH_MATMUL: TFLM's `batch_matmul.cc` (`BatchMatMulEval`, `EvalInt8`, `EvalInt16`) with
//! `reference_ops::BatchMatMul` (float, and the quantised template with `int32_t` / `int64_t`
//! accumulators).
//!
//! TFLM transposes the right-hand side (unless `adj_y`) and the left-hand side (if `adj_x`)
//! into buffers of its own and calls the reference kernel with the operands swapped; the sums
//! it computes are, for output `[batch.., a, c]`, `sum over k of rhs(k, c) * lhs(a, k)` in
//! increasing `k`, from 0. These kernels read the operands where they are (an adjoint operand
//! by its transposed index), so they need no buffer, and add the same products in the same
//! order (float sums round identically). TFLM's `ReshapeToFlattenBatchDimsIfPossible` only
//! regroups the batches: it changes no sum. Outputs are written in memory order.

use super::shared::check::{KernelError, check, elements, length, require};
use super::shared::clamp_to_i16;
use super::shared::{Requant, at, clamp_to_i8, fixed, sized, sized_mut};

/// The operands' shapes and adjoints of a BATCH_MATMUL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchMatMulShape {
    /// The left-hand side's shape, right-aligned into 5 dimensions padded with leading 1s:
    /// three batch dimensions, then `[rows, depth]` (`[depth, rows]` with `adj_x`).
    pub lhs: [usize; 5],
    /// The right-hand side's shape, likewise: `[depth, columns]` (`[columns, depth]` with
    /// `adj_y`) after the batch dimensions.
    pub rhs: [usize; 5],
    /// The left-hand side is transposed (its last two dimensions swapped).
    pub adj_x: bool,
    /// The right-hand side is transposed.
    pub adj_y: bool,
}

/// Parameters of a float BATCH_MATMUL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchMatMulF32 {
    /// The operands.
    pub shape: BatchMatMulShape,
}

/// Parameters of an int8 or int16 BATCH_MATMUL (TFLM's `FullyConnectedParams` of `EvalInt8` /
/// `EvalInt16`).
#[derive(Clone, Copy, Debug)]
pub struct BatchMatMulQ {
    /// The operands.
    pub shape: BatchMatMulShape,
    /// Minus the left-hand side's zero point (TFLM's `input_offset`).
    pub lhs_offset: i32,
    /// Minus the right-hand side's zero point (TFLM's `weights_offset`).
    pub rhs_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// `QuantizeMultiplier(lhs_scale * rhs_scale / output_scale)`.
    pub requant: Requant,
    /// The output type's minimum (BATCH_MATMUL has no fused activation).
    pub act_min: i32,
    /// The output type's maximum.
    pub act_max: i32,
}

/// The extent of dimension `d` of a 5-D shape: the elements one step along it skips, 0 for a
/// broadcast dimension of 1 (TFLM's `batch_matmul::extent`).
#[inline(always)]
fn extent(shape: &[usize; 5], d: usize) -> usize {
    if at(shape, d) == 1 {
        return 0;
    }
    shape
        .iter()
        .skip(d + 1)
        .fold(1usize, |n, &x| n.wrapping_mul(x))
}

/// TFLM's `batch_matmul::broadcast_dim`.
#[inline(always)]
fn broadcast_dim(lhs: usize, rhs: usize) -> usize {
    if lhs == 1 { rhs } else { lhs }
}

/// The pairs `(lhs(a, k), rhs(k, c))` of one output, for `k` in increasing order: each
/// operand walked from its first element with its stride (1 along a row, the row length down
/// a column); past a slice's end it reads 0.
#[derive(Clone, Debug)]
struct Pairs<'a, L, R> {
    lhs: &'a [L],
    rhs: &'a [R],
    lhs_at: usize,
    lhs_step: usize,
    rhs_at: usize,
    rhs_step: usize,
    left: usize,
}

impl<L: Copy + Default, R: Copy + Default> Iterator for Pairs<'_, L, R> {
    type Item = (L, R);

    #[inline(always)]
    fn next(&mut self) -> Option<(L, R)> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let pair = (at(self.lhs, self.lhs_at), at(self.rhs, self.rhs_at));
        self.lhs_at = self.lhs_at.wrapping_add(self.lhs_step);
        self.rhs_at = self.rhs_at.wrapping_add(self.rhs_step);
        Some(pair)
    }
}

/// The loop nest: for every output `[b0, b1, b2, a, c]` in memory order, `dot` of its pairs.
///
/// Returns without writing if a slice is shorter than its shape, the depths differ or a batch
/// dimension does not broadcast.
#[inline(always)]
fn matmul_loops<L, R, O>(
    s: &BatchMatMulShape,
    lhs: &[L],
    rhs: &[R],
    output: &mut [O],
    mut dot: impl FnMut(Pairs<'_, L, R>) -> O,
) where
    L: Copy + Default,
    R: Copy + Default,
{
    let (l, r) = (&s.lhs, &s.rhs);
    let (rows, depth) = if s.adj_x { (l[4], l[3]) } else { (l[3], l[4]) };
    let (columns, rhs_depth) = if s.adj_y { (r[3], r[4]) } else { (r[4], r[3]) };
    if depth != rhs_depth {
        return;
    }
    let mut batches = [0usize; 3];
    for (d, b) in batches.iter_mut().enumerate() {
        let (x, y) = (l[d], r[d]);
        if x != y && x != 1 && y != 1 {
            return;
        }
        *b = broadcast_dim(x, y);
    }
    let (Some(lhs), Some(rhs), Some(output)) = (
        sized(lhs, l),
        sized(rhs, r),
        sized_mut(output, &[batches[0], batches[1], batches[2], rows, columns]),
    ) else {
        return;
    };
    let (lhs_ext, rhs_ext) = (
        [extent(l, 0), extent(l, 1), extent(l, 2)],
        [extent(r, 0), extent(r, 1), extent(r, 2)],
    );
    // Along k: the left-hand side steps along a row, or down a column when transposed; the
    // right-hand side down a column, or along a row when transposed.
    let lhs_step = if s.adj_x { rows } else { 1 };
    let rhs_step = if s.adj_y { 1 } else { columns };
    let mut out = output.iter_mut();
    for b0 in 0..batches[0] {
        for b1 in 0..batches[1] {
            for b2 in 0..batches[2] {
                // The indices are below the slices' lengths (sized above): no overflow.
                let lhs_base = b0 * lhs_ext[0] + b1 * lhs_ext[1] + b2 * lhs_ext[2];
                let rhs_base = b0 * rhs_ext[0] + b1 * rhs_ext[1] + b2 * rhs_ext[2];
                for a in 0..rows {
                    let lhs_at = lhs_base + if s.adj_x { a } else { a * depth };
                    for c in 0..columns {
                        let rhs_at = rhs_base + if s.adj_y { c * depth } else { c };
                        let value = dot(Pairs {
                            lhs,
                            rhs,
                            lhs_at,
                            lhs_step,
                            rhs_at,
                            rhs_step,
                            left: depth,
                        });
                        if let Some(o) = out.next() {
                            *o = value;
                        }
                    }
                }
            }
        }
    }
}

/// What every BATCH_MATMUL kernel needs of its shapes and its slices' lengths.
const fn check_batch_matmul(
    s: &BatchMatMulShape,
    lhs: usize,
    rhs: usize,
    output: usize,
) -> Result<(), KernelError> {
    let (l, r) = (&s.lhs, &s.rhs);
    let (rows, depth) = if s.adj_x { (l[4], l[3]) } else { (l[3], l[4]) };
    let (columns, rhs_depth) = if s.adj_y { (r[3], r[4]) } else { (r[4], r[3]) };
    check!(length("lhs", elements(l), lhs));
    check!(length("rhs", elements(r), rhs));
    check!(require(depth == rhs_depth, "the operands' depths differ"));
    let mut batches = [0usize; 3];
    let mut d = 0;
    while d < 3 {
        let (x, y) = (l[d], r[d]);
        check!(require(
            x == y || x == 1 || y == 1,
            "a batch dimension does not broadcast"
        ));
        batches[d] = if x == 1 { y } else { x };
        d += 1;
    }
    length(
        "output",
        elements(&[batches[0], batches[1], batches[2], rows, columns]),
        output,
    )
}

/// [`batch_matmul_f32`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_batch_matmul_f32(
    p: &BatchMatMulF32,
    lhs: usize,
    rhs: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_batch_matmul(&p.shape, lhs, rhs, output)
}

/// float BATCH_MATMUL: TFLM's float `reference_ops::BatchMatMul`: per output `total = 0`,
/// `total += rhs(k, c) * lhs(a, k)` for `k` in order.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_batch_matmul_f32`])
/// hold: the slices hold the shapes' elements; the depths are equal; each batch dimension is
/// equal in both or 1 in one; `output.len()` is the broadcast batches times `rows * columns`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn batch_matmul_f32(
    p: &BatchMatMulF32,
    lhs: &[f32],
    rhs: &[f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_batch_matmul_f32(p, lhs.len(), rhs.len(), output.len())?;
    proven::batch_matmul_f32(p, lhs, rhs, output);
    Ok(())
}

/// [`batch_matmul_s8`]'s preconditions, as [`check_batch_matmul_f32`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_batch_matmul_s8(
    p: &BatchMatMulQ,
    lhs: usize,
    rhs: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_batch_matmul(&p.shape, lhs, rhs, output)
}

/// int8 BATCH_MATMUL: TFLM's `reference_ops::BatchMatMul<int8_t, int32_t>`: `total +=
/// (rhs + rhs_offset) * (lhs + lhs_offset)` in a wrapping int32 accumulator, then
/// `MultiplyByQuantizedMultiplier`, the output offset, the clamp.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_batch_matmul_s8`])
/// hold: as [`batch_matmul_f32`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn batch_matmul_s8(
    p: &BatchMatMulQ,
    lhs: &[i8],
    rhs: &[i8],
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_batch_matmul_s8(p, lhs.len(), rhs.len(), output.len())?;
    proven::batch_matmul_s8(p, lhs, rhs, output);
    Ok(())
}

/// [`batch_matmul_s16`]'s preconditions, as [`check_batch_matmul_f32`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_batch_matmul_s16(
    p: &BatchMatMulQ,
    lhs: usize,
    rhs: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_batch_matmul(&p.shape, lhs, rhs, output)
}

/// int16 BATCH_MATMUL: TFLM's `reference_ops::BatchMatMul<int16_t, int64_t>`: the products in
/// 64 bits (TFLM requires zero points 0, so the offsets are 0), the 64-bit
/// `MultiplyByQuantizedMultiplier`, the output offset, the clamp.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_batch_matmul_s16`])
/// hold: as [`batch_matmul_f32`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn batch_matmul_s16(
    p: &BatchMatMulQ,
    lhs: &[i16],
    rhs: &[i16],
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_batch_matmul_s16(p, lhs.len(), rhs.len(), output.len())?;
    proven::batch_matmul_s16(p, lhs, rhs, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`batch_matmul_f32`](super::batch_matmul_f32), its [`check`](super::check_batch_matmul_f32) proven.
    #[inline]
    pub fn batch_matmul_f32(p: &BatchMatMulF32, lhs: &[f32], rhs: &[f32], output: &mut [f32]) {
        debug_assert!(super::check_batch_matmul_f32(p, lhs.len(), rhs.len(), output.len()).is_ok());
        matmul_loops(&p.shape, lhs, rhs, output, |pairs| {
            let mut total = 0.0_f32;
            for (l, r) in pairs {
                total += r * l;
            }
            total
        });
    }

    /// [`batch_matmul_s8`](super::batch_matmul_s8), its [`check`](super::check_batch_matmul_s8) proven.
    #[inline]
    pub fn batch_matmul_s8(p: &BatchMatMulQ, lhs: &[i8], rhs: &[i8], output: &mut [i8]) {
        debug_assert!(super::check_batch_matmul_s8(p, lhs.len(), rhs.len(), output.len()).is_ok());
        matmul_loops(&p.shape, lhs, rhs, output, |pairs| {
            let mut total: i32 = 0;
            for (l, r) in pairs {
                let product = i32::from(r)
                    .wrapping_add(p.rhs_offset)
                    .wrapping_mul(i32::from(l).wrapping_add(p.lhs_offset));
                total = total.wrapping_add(product);
            }
            let scaled = p.requant.apply(total).wrapping_add(p.output_offset);
            clamp_to_i8(scaled, p.act_min, p.act_max)
        });
    }

    /// [`batch_matmul_s16`](super::batch_matmul_s16), its [`check`](super::check_batch_matmul_s16) proven.
    #[inline]
    pub fn batch_matmul_s16(p: &BatchMatMulQ, lhs: &[i16], rhs: &[i16], output: &mut [i16]) {
        debug_assert!(super::check_batch_matmul_s16(p, lhs.len(), rhs.len(), output.len()).is_ok());
        matmul_loops(&p.shape, lhs, rhs, output, |pairs| {
            let mut total: i64 = 0;
            for (l, r) in pairs {
                let product = (i64::from(r).wrapping_add(i64::from(p.rhs_offset)))
                    .wrapping_mul(i64::from(l).wrapping_add(i64::from(p.lhs_offset)));
                total = total.wrapping_add(product);
            }
            let scaled = fixed::multiply_by_quantized_multiplier_i64(
                total,
                p.requant.multiplier,
                p.requant.shift,
            )
            .wrapping_add(p.output_offset);
            clamp_to_i16(scaled, p.act_min, p.act_max)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(lhs: [usize; 5], rhs: [usize; 5], adj_x: bool, adj_y: bool) -> BatchMatMulShape {
        BatchMatMulShape {
            lhs,
            rhs,
            adj_x,
            adj_y,
        }
    }

    #[test]
    fn float_matmul_with_adjoints_and_broadcast() {
        // lhs [2, 2, 3] (two batches), rhs [3, 2] broadcast: out [2, 2, 2].
        let lhs: [f32; 12] = core::array::from_fn(|i| i as f32);
        let rhs: [f32; 6] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let mut out = [0f32; 8];
        let p = BatchMatMulF32 {
            shape: shape([1, 1, 2, 2, 3], [1, 1, 1, 3, 2], false, false),
        };
        batch_matmul_f32(&p, &lhs, &rhs, &mut out).unwrap();
        // Batch 0: [[0,1,2],[3,4,5]] x [[1,2],[3,4],[5,6]].
        assert_eq!(out, [13.0, 16.0, 40.0, 52.0, 67.0, 88.0, 94.0, 124.0]);
        // The same with both operands stored transposed.
        let lhs_t = [0.0, 3.0, 1.0, 4.0, 2.0, 5.0, 6.0, 9.0, 7.0, 10.0, 8.0, 11.0];
        let rhs_t = [1.0, 3.0, 5.0, 2.0, 4.0, 6.0];
        let p = BatchMatMulF32 {
            shape: shape([1, 1, 2, 3, 2], [1, 1, 1, 2, 3], true, true),
        };
        let mut out_t = [0f32; 8];
        batch_matmul_f32(&p, &lhs_t, &rhs_t, &mut out_t).unwrap();
        assert_eq!(out_t, out);
    }

    #[test]
    fn int8_matmul_offsets_and_wrap() {
        let p = BatchMatMulQ {
            shape: shape([1, 1, 1, 1, 2], [1, 1, 1, 2, 1], false, false),
            lhs_offset: 1,
            rhs_offset: -2,
            output_offset: 5,
            requant: Requant {
                multiplier: 1 << 30,
                shift: 1,
            },
            act_min: -128,
            act_max: 127,
        };
        let mut out = [0i8; 1];
        // (10 - 2) * (3 + 1) + (-4 - 2) * (7 + 1) = 32 - 48 = -16, + 5.
        batch_matmul_s8(&p, &[3, 7], &[10, -4], &mut out).unwrap();
        assert_eq!(out, [-11]);
        let mut out16 = [0i16; 1];
        let p16 = BatchMatMulQ {
            lhs_offset: 0,
            rhs_offset: 0,
            output_offset: 0,
            act_min: -32768,
            act_max: 32767,
            ..p
        };
        batch_matmul_s16(&p16, &[300, -2], &[100, 7], &mut out16).unwrap();
        assert_eq!(out16, [29986]);
        // Shapes that do not broadcast are refused, nothing written.
        let bad = BatchMatMulQ {
            shape: shape([1, 1, 2, 1, 2], [1, 1, 3, 2, 1], false, false),
            ..p
        };
        let mut untouched = [9i8; 6];
        assert_eq!(
            batch_matmul_s8(&bad, &[0; 4], &[0; 6], &mut untouched),
            Err(KernelError::Parameters(
                "a batch dimension does not broadcast"
            ))
        );
        assert_eq!(untouched, [9; 6]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = BatchMatMulF32 {
            shape: shape([1, 1, 2, 2, 3], [1, 1, 1, 3, 2], false, false),
        };
        refuses([12, 6, 8], [Exact; 3], |[l, r, o]| {
            let mut out = vec![7.0; o];
            (
                batch_matmul_f32(&p, &vec![0.0; l], &vec![0.0; r], &mut out),
                untouched(&out, 7.0),
            )
        });
        let q = BatchMatMulQ {
            shape: p.shape,
            lhs_offset: 0,
            rhs_offset: 0,
            output_offset: 0,
            requant: crate::kernels::Requant {
                multiplier: 1 << 30,
                shift: 0,
            },
            act_min: -128,
            act_max: 127,
        };
        refuses([12, 6, 8], [Exact; 3], |[l, r, o]| {
            let mut out = vec![7_i8; o];
            (
                batch_matmul_s8(&q, &vec![0; l], &vec![0; r], &mut out),
                untouched(&out, 7),
            )
        });
        refuses([12, 6, 8], [Exact; 3], |[l, r, o]| {
            let mut out = vec![7_i16; o];
            (
                batch_matmul_s16(&q, &vec![0; l], &vec![0; r], &mut out),
                untouched(&out, 7),
            )
        });
        let mut out = [7.0_f32; 8];
        let deep = BatchMatMulF32 {
            shape: shape([1, 1, 2, 2, 3], [1, 1, 1, 2, 2], false, false),
        };
        assert!(batch_matmul_f32(&deep, &[0.0; 12], &[0.0; 4], &mut out).is_err());
        assert_eq!(out, [7.0; 8]);
    }
}
