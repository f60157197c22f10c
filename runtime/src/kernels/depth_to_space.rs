//! DEPTH_TO_SPACE: TFLM's `reference_ops::DepthToSpace` (generic over the element type).

use super::shared::check::{KernelError, check, elements, length, require};
use super::shared::{at, sized_mut};

/// Parameters of DEPTH_TO_SPACE (NHWC, 4 dimensions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthToSpace {
    /// Input shape.
    pub input: [usize; 4],
    /// Output shape: `[batch, height * block, width * block, depth / block^2]`.
    pub output: [usize; 4],
    /// The block size (positive).
    pub block: usize,
}

/// [`depth_to_space`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_depth_to_space(
    p: &DepthToSpace,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length("input", elements(&p.input), input));
    check!(length("output", elements(&p.output), output));
    let [ib, ih, iw, id] = p.input;
    let [ob, oh, ow, od] = p.output;
    let bs = p.block;
    check!(require(bs >= 1, "the block size is 0"));
    check!(require(
        ob == ib,
        "the output's batches are not the input's"
    ));
    check!(length("output height", ih.checked_mul(bs), oh));
    check!(length("output width", iw.checked_mul(bs), ow));
    length("input depth", elements(&[od, bs, bs]), id)
}

/// DEPTH_TO_SPACE: TFLM's `reference_ops::DepthToSpace`: output `(b, h, w, d)` is input `(b, h /
/// block, w / block, d + ((h % block) * block + w % block) * output_depth)`, in the output's
/// order.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_depth_to_space`])
/// hold: the slices' lengths are the products of the shapes, the block size is at least 1, and
/// the output is `[batch, height * block, width * block, depth / block^2]` of the input.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn depth_to_space<T: Copy + Default>(
    p: &DepthToSpace,
    input: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_depth_to_space(p, input.len(), output.len())?;
    proven::depth_to_space(p, input, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`depth_to_space`](super::depth_to_space), its [`check`](super::check_depth_to_space) proven.
    #[inline]
    pub fn depth_to_space<T: Copy + Default>(p: &DepthToSpace, input: &[T], output: &mut [T]) {
        debug_assert!(super::check_depth_to_space(p, input.len(), output.len()).is_ok());
        let Some(output) = sized_mut(output, &p.output) else {
            return;
        };
        if p.block == 0 {
            return;
        }
        let [_, ih, iw, id] = p.input;
        let [ob, oh, ow, od] = p.output;
        let bs = p.block;
        let mut out = output.iter_mut();
        for b in 0..ob {
            for h in 0..oh {
                let row = b.wrapping_mul(ih).wrapping_add(h / bs);
                for w in 0..ow {
                    let pixel = row.wrapping_mul(iw).wrapping_add(w / bs);
                    let first = (h % bs)
                        .wrapping_mul(bs)
                        .wrapping_add(w % bs)
                        .wrapping_mul(od);
                    let base = pixel.wrapping_mul(id).wrapping_add(first);
                    for d in 0..od {
                        if let Some(o) = out.next() {
                            *o = at(input, base.wrapping_add(d));
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
    fn moves_depth_into_blocks() {
        // [1, 1, 1, 4] with block 2 -> [1, 2, 2, 1].
        let p = DepthToSpace {
            input: [1, 1, 1, 4],
            output: [1, 2, 2, 1],
            block: 2,
        };
        let mut out = [0_i8; 4];
        depth_to_space(&p, &[1, 2, 3, 4], &mut out).unwrap();
        assert_eq!(out, [1, 2, 3, 4]);
        // [1, 1, 2, 4] -> [1, 2, 4, 1]: row 0 takes depths 0, 1 of each pixel.
        let p = DepthToSpace {
            input: [1, 1, 2, 4],
            output: [1, 2, 4, 1],
            block: 2,
        };
        let mut out = [0_i8; 8];
        depth_to_space(&p, &[1, 2, 3, 4, 5, 6, 7, 8], &mut out).unwrap();
        assert_eq!(out, [1, 2, 5, 6, 3, 4, 7, 8]);
    }

    #[test]
    fn extreme_parameters_do_not_panic() {
        let p = DepthToSpace {
            input: [usize::MAX; 4],
            output: [1, 1, 2, 1],
            block: usize::MAX,
        };
        let mut out = [0_i8; 2];
        assert!(depth_to_space(&p, &[1, 2], &mut out).is_err());
        assert_eq!(out, [0; 2]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = DepthToSpace {
            input: [1, 1, 1, 4],
            output: [1, 2, 2, 1],
            block: 2,
        };
        refuses([4, 4], [Exact; 2], |[i, o]| {
            let mut out = vec![7_i8; o];
            (
                depth_to_space(&p, &vec![0; i], &mut out),
                untouched(&out, 7),
            )
        });
    }
}
