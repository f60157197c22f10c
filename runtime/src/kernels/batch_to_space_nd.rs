//! BATCH_TO_SPACE_ND: TFLM's `reference_ops::BatchToSpaceND` (generic over the element type),
//! with the block shape and crops resolved at build time.

use super::shared::check::{KernelError, check, elements, length, require};
use super::shared::sized;

/// Parameters of BATCH_TO_SPACE_ND: shapes as TFLM's `ExtendShapeBatchToSpace` makes them
/// (a 3-D `[batch, height, depth]` becomes `[batch, height, 1, depth]`, with block width 1 and
/// no left crop).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchToSpace {
    /// Input shape.
    pub input: [usize; 4],
    /// Output shape.
    pub output: [usize; 4],
    /// Block height and width.
    pub block: [usize; 2],
    /// Crops at the top and the left.
    pub crop: [usize; 2],
}

/// [`batch_to_space_nd`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_batch_to_space_nd(
    p: &BatchToSpace,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length("input", elements(&p.input), input));
    check!(length("output", elements(&p.output), output));
    let [ib, ih, iw, id] = p.input;
    let [ob, oh, ow, od] = p.output;
    let [bh, bw] = p.block;
    let [top, left] = p.crop;
    check!(require(bh >= 1 && bw >= 1, "a block dimension is 0"));
    check!(length("input batches", elements(&[ob, bh, bw]), ib));
    check!(require(od == id, "the output's depth is not the input's"));
    let fits_h = match (oh.checked_add(top), ih.checked_mul(bh)) {
        (Some(end), Some(size)) => end <= size,
        _ => false,
    };
    let fits_w = match (ow.checked_add(left), iw.checked_mul(bw)) {
        (Some(end), Some(size)) => end <= size,
        _ => false,
    };
    require(
        fits_h && fits_w,
        "the cropped output is larger than the input's blocks",
    )
}

/// BATCH_TO_SPACE_ND: TFLM's `reference_ops::BatchToSpaceND`: input pixel `(b, h, w)` goes to
/// output pixel `(b % out_batch, h * block_h + s / block_w - crop_top, w * block_w +
/// s % block_w - crop_left)` with `s = b / out_batch`, its `depth` elements at once, unless that
/// lies outside the output (the crops).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_batch_to_space_nd`]) hold: the slices' lengths are the products of the shapes, the
/// block is at least 1 x 1, the input's batches are the output's times the block's size, the
/// depths match, and the output and the crops lie inside the input's blocks (`oh + crop_top <=
/// ih * block_h`, the same for the width).
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn batch_to_space_nd<T: Copy>(
    p: &BatchToSpace,
    input: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_batch_to_space_nd(p, input.len(), output.len())?;
    proven::batch_to_space_nd(p, input, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`batch_to_space_nd`](super::batch_to_space_nd), its [`check`](super::check_batch_to_space_nd) proven.
    #[inline]
    pub fn batch_to_space_nd<T: Copy>(p: &BatchToSpace, input: &[T], output: &mut [T]) {
        debug_assert!(super::check_batch_to_space_nd(p, input.len(), output.len()).is_ok());
        let Some(input) = sized(input, &p.input) else {
            return;
        };
        let [ib, ih, iw, depth] = p.input;
        let [ob, oh, ow, _] = p.output;
        let [bh, bw] = p.block;
        let [top, left] = p.crop;
        if ob == 0 || bw == 0 || depth == 0 {
            return;
        }
        let mut pixels = input.chunks(depth);
        for b in 0..ib {
            let out_b = b % ob;
            let s = b / ob;
            for h in 0..ih {
                let out_h = (h.wrapping_mul(bh).wrapping_add(s / bw)).checked_sub(top);
                for w in 0..iw {
                    let Some(src) = pixels.next() else {
                        return;
                    };
                    let out_w = (w.wrapping_mul(bw).wrapping_add(s % bw)).checked_sub(left);
                    let (Some(out_h), Some(out_w)) = (out_h, out_w) else {
                        continue;
                    };
                    if out_h >= oh || out_w >= ow {
                        continue;
                    }
                    let at = out_b
                        .wrapping_mul(oh)
                        .wrapping_add(out_h)
                        .wrapping_mul(ow)
                        .wrapping_add(out_w)
                        .wrapping_mul(depth);
                    let dst = output.get_mut(at..).unwrap_or(&mut []);
                    for (o, &x) in dst.iter_mut().zip(src) {
                        *o = x;
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
    fn interleaves_batches_into_space() {
        // [4, 1, 1, 1] with block 2x2 -> [1, 2, 2, 1].
        let p = BatchToSpace {
            input: [4, 1, 1, 1],
            output: [1, 2, 2, 1],
            block: [2, 2],
            crop: [0, 0],
        };
        let mut out = [0_i8; 4];
        batch_to_space_nd(&p, &[1, 2, 3, 4], &mut out).unwrap();
        assert_eq!(out, [1, 2, 3, 4]);
        // Cropping the top row: [4, 1, 1, 1] -> [1, 1, 2, 1].
        let p = BatchToSpace {
            output: [1, 1, 2, 1],
            crop: [1, 0],
            ..p
        };
        let mut out = [0_i8; 2];
        batch_to_space_nd(&p, &[1, 2, 3, 4], &mut out).unwrap();
        assert_eq!(out, [3, 4]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = BatchToSpace {
            input: [4, 1, 1, 1],
            output: [1, 2, 2, 1],
            block: [2, 2],
            crop: [0, 0],
        };
        refuses([4, 4], [Exact; 2], |[i, o]| {
            let mut out = vec![7_i8; o];
            (
                batch_to_space_nd(&p, &vec![0; i], &mut out),
                untouched(&out, 7),
            )
        });
        let mut out = [7_i8; 4];
        let cropped = BatchToSpace { crop: [1, 0], ..p };
        assert!(batch_to_space_nd(&cropped, &[0; 4], &mut out).is_err());
        assert_eq!(out, [7; 4]);
    }
}
