//! SPACE_TO_BATCH_ND: TFLM's `reference_ops::SpaceToBatchND` (generic over the element type),
//! with the block shape and paddings resolved at build time.

use super::shared::check::{KernelError, check, elements, length, require};
use super::shared::sized_mut;

/// Parameters of SPACE_TO_BATCH_ND: shapes as TFLM's `ExtendShapeSpaceToBatch` makes them (a
/// 3-D `[batch, height, depth]` becomes `[batch, height, 1, depth]`, with block width 1 and no
/// left padding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpaceToBatch {
    /// Input shape.
    pub input: [usize; 4],
    /// Output shape.
    pub output: [usize; 4],
    /// Block height and width.
    pub block: [usize; 2],
    /// Paddings at the top and the left.
    pub pad: [usize; 2],
}

/// [`space_to_batch_nd`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_space_to_batch_nd(
    p: &SpaceToBatch,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length("input", elements(&p.input), input));
    check!(length("output", elements(&p.output), output));
    let [ib, ih, iw, id] = p.input;
    let [ob, oh, ow, od] = p.output;
    let [bh, bw] = p.block;
    let [top, left] = p.pad;
    check!(require(bh >= 1 && bw >= 1, "a block dimension is 0"));
    check!(length("output batches", elements(&[ib, bh, bw]), ob));
    check!(require(od == id, "the output's depth is not the input's"));
    let fits_h = match (ih.checked_add(top), oh.checked_mul(bh)) {
        (Some(end), Some(size)) => end <= size,
        _ => false,
    };
    let fits_w = match (iw.checked_add(left), ow.checked_mul(bw)) {
        (Some(end), Some(size)) => end <= size,
        _ => false,
    };
    require(
        fits_h && fits_w,
        "the padded input is larger than the output's blocks",
    )
}

/// SPACE_TO_BATCH_ND: TFLM's `reference_ops::SpaceToBatchND`: output pixel `(b, h, w)` is input
/// pixel `(b % in_batch, h * block_h + shift_h - pad_top, w * block_w + shift_w - pad_left)`
/// with `shift_w = (b / in_batch) % block_w`, `shift_h = (b / in_batch) / block_w`, or padding
/// where that lies outside the input.
///
/// The padding is zero bytes (`T::default()`: 0, and +0.0 for floats) for every type: TFLM
/// `memset`s with `SpaceToBatchParams::output_offset`, which its micro kernel never sets: a
/// field of a persistent buffer it never writes, zero in an arena that starts zeroed (a
/// device's static arena in `.bss`; the conformance suite runs TFLM on zeroed memory), and
/// never the output zero point.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_space_to_batch_nd`]) hold: the slices' lengths are the products of the shapes, the
/// block is at least 1 x 1, the output's batches are the input's times the block's size, the
/// depths match, and the padded input lies inside the output's blocks (`ih + pad_top <= oh *
/// block_h`, the same for the width).
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn space_to_batch_nd<T: Copy + Default>(
    p: &SpaceToBatch,
    input: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_space_to_batch_nd(p, input.len(), output.len())?;
    proven::space_to_batch_nd(p, input, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`space_to_batch_nd`](super::space_to_batch_nd), its [`check`](super::check_space_to_batch_nd) proven.
    #[inline]
    pub fn space_to_batch_nd<T: Copy + Default>(p: &SpaceToBatch, input: &[T], output: &mut [T]) {
        debug_assert!(super::check_space_to_batch_nd(p, input.len(), output.len()).is_ok());
        let Some(output) = sized_mut(output, &p.output) else {
            return;
        };
        let [ib, ih, iw, depth] = p.input;
        let [_, oh, ow, _] = p.output;
        let [bh, bw] = p.block;
        let [top, left] = p.pad;
        if ib == 0 || bw == 0 || depth == 0 {
            return;
        }
        for (pixel, dst) in output.chunks_mut(depth).enumerate() {
            let w = pixel % ow.max(1);
            let h = (pixel / ow.max(1)) % oh.max(1);
            let b = pixel / ow.max(1) / oh.max(1);
            let in_b = b % ib;
            let shift_w = (b / ib) % bw;
            let shift_h = (b / ib) / bw;
            let in_h = h.wrapping_mul(bh).wrapping_add(shift_h).checked_sub(top);
            let in_w = w.wrapping_mul(bw).wrapping_add(shift_w).checked_sub(left);
            let src = match (in_h, in_w) {
                (Some(in_h), Some(in_w)) if in_h < ih && in_w < iw => {
                    let at = in_b
                        .wrapping_mul(ih)
                        .wrapping_add(in_h)
                        .wrapping_mul(iw)
                        .wrapping_add(in_w)
                        .wrapping_mul(depth);
                    input.get(at..)
                }
                _ => None,
            };
            match src {
                Some(src) => {
                    for (o, &x) in dst.iter_mut().zip(src) {
                        *o = x;
                    }
                }
                None => dst.fill(T::default()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_and_moves_space_into_batches() {
        // [1, 2, 2, 1] padded by 1 all round, block 2x2 -> [4, 2, 2, 1] (TFLM's output).
        let p = SpaceToBatch {
            input: [1, 2, 2, 1],
            output: [4, 2, 2, 1],
            block: [2, 2],
            pad: [1, 1],
        };
        let mut out = [9_i8; 16];
        space_to_batch_nd(&p, &[1, 2, 3, 4], &mut out).unwrap();
        assert_eq!(out, [0, 0, 0, 4, 0, 0, 3, 0, 0, 2, 0, 0, 1, 0, 0, 0]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = SpaceToBatch {
            input: [1, 2, 2, 1],
            output: [4, 1, 1, 1],
            block: [2, 2],
            pad: [0, 0],
        };
        refuses([4, 4], [Exact; 2], |[i, o]| {
            let mut out = vec![7_i8; o];
            (
                space_to_batch_nd(&p, &vec![0; i], &mut out),
                untouched(&out, 7),
            )
        });
        let mut out = [7_i8; 4];
        let zero = SpaceToBatch { block: [0, 2], ..p };
        assert!(space_to_batch_nd(&zero, &[0; 4], &mut out).is_err());
        assert_eq!(out, [7; 4]);
    }
}
