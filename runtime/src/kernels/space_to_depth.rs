//! SPACE_TO_DEPTH: TFLM's `reference_ops::SpaceToDepth` (generic over the element type).

use super::shared::check::{KernelError, check, elements, length, require};
use super::shared::{at, sized_mut};

/// Parameters of SPACE_TO_DEPTH (NHWC, 4 dimensions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpaceToDepth {
    /// Input shape.
    pub input: [usize; 4],
    /// Output shape: `[batch, height / block, width / block, depth * block^2]`.
    pub output: [usize; 4],
    /// The block size (positive).
    pub block: usize,
}

/// [`space_to_depth`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_space_to_depth(
    p: &SpaceToDepth,
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
    check!(length("input height", oh.checked_mul(bs), ih));
    check!(length("input width", ow.checked_mul(bs), iw));
    length("output depth", elements(&[id, bs, bs]), od)
}

/// SPACE_TO_DEPTH: TFLM's `reference_ops::SpaceToDepth`, which writes input `(b, h, w, d)` to
/// output `(b, h / block, w / block, d + ((h % block) * block + w % block) * input_depth)`: a
/// one-to-one map, walked here in the output's order (output `(b, h, w, d)` reads input `(b, h *
/// block + t / block, w * block + t % block, d % input_depth)` with `t = d / input_depth`).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_space_to_depth`])
/// hold: the slices' lengths are the products of the shapes, the block size is at least 1, and
/// the output is `[batch, height / block, width / block, depth * block^2]` of the input.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn space_to_depth<T: Copy + Default>(
    p: &SpaceToDepth,
    input: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_space_to_depth(p, input.len(), output.len())?;
    proven::space_to_depth(p, input, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`space_to_depth`](super::space_to_depth), its [`check`](super::check_space_to_depth) proven.
    #[inline]
    pub fn space_to_depth<T: Copy + Default>(p: &SpaceToDepth, input: &[T], output: &mut [T]) {
        debug_assert!(super::check_space_to_depth(p, input.len(), output.len()).is_ok());
        let Some(output) = sized_mut(output, &p.output) else {
            return;
        };
        let [_, ih, iw, id] = p.input;
        let [ob, oh, ow, od] = p.output;
        let bs = p.block;
        if bs == 0 || id == 0 {
            return;
        }
        let mut out = output.iter_mut();
        for b in 0..ob {
            for h in 0..oh {
                for w in 0..ow {
                    for d in 0..od {
                        let t = d / id;
                        let in_h = h.wrapping_mul(bs).wrapping_add(t / bs);
                        let in_w = w.wrapping_mul(bs).wrapping_add(t % bs);
                        let i = b
                            .wrapping_mul(ih)
                            .wrapping_add(in_h)
                            .wrapping_mul(iw)
                            .wrapping_add(in_w)
                            .wrapping_mul(id)
                            .wrapping_add(d % id);
                        if let Some(o) = out.next() {
                            *o = at(input, i);
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
    use crate::kernels::{DepthToSpace, depth_to_space};

    #[test]
    fn inverts_depth_to_space() {
        let input: [i16; 16] = core::array::from_fn(|i| i as i16);
        let p = SpaceToDepth {
            input: [1, 2, 4, 2],
            output: [1, 1, 2, 8],
            block: 2,
        };
        let mut out = [0_i16; 16];
        space_to_depth(&p, &input, &mut out).unwrap();
        let back = DepthToSpace {
            input: p.output,
            output: p.input,
            block: 2,
        };
        let mut round = [0_i16; 16];
        depth_to_space(&back, &out, &mut round).unwrap();
        assert_eq!(round, input);
        // Output (0, 0, 0, 2..4) is input (0, 0, 1, 0..2).
        assert_eq!(&out[2..4], &[2, 3]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = SpaceToDepth {
            input: [1, 2, 2, 1],
            output: [1, 1, 1, 4],
            block: 2,
        };
        refuses([4, 4], [Exact; 2], |[i, o]| {
            let mut out = vec![7_i8; o];
            (
                space_to_depth(&p, &vec![0; i], &mut out),
                untouched(&out, 7),
            )
        });
        let mut out = [7_i8; 4];
        let zero = SpaceToDepth { block: 0, ..p };
        assert!(space_to_depth(&zero, &[0; 4], &mut out).is_err());
        assert_eq!(out, [7; 4]);
    }
}
