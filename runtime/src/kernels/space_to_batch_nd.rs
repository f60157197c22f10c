//! SPACE_TO_BATCH_ND: TFLM's `reference_ops::SpaceToBatchND` (generic over the element type),
//! with the block shape and paddings resolved at build time.

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
/// # Preconditions
///
/// The slices' lengths are the products of the shapes.
pub fn space_to_batch_nd<T: Copy + Default>(p: &SpaceToBatch, input: &[T], output: &mut [T]) {
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
        space_to_batch_nd(&p, &[1, 2, 3, 4], &mut out);
        assert_eq!(out, [0, 0, 0, 4, 0, 0, 3, 0, 0, 2, 0, 0, 1, 0, 0, 0]);
    }
}
