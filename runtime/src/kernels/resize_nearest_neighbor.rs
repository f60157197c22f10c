//! RESIZE_NEAREST_NEIGHBOR: TFLM's `reference_ops::ResizeNearestNeighbor` (generic over the
//! element type: TFLM copies float32 as int32, bits unchanged).

use super::shared::check::{KernelError, check, elements, length, require};
use stowplan_math::{floorf, roundf};

use super::shared::sized_mut;

/// Parameters of RESIZE_NEAREST_NEIGHBOR (NHWC, 4 dimensions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResizeNearestNeighbor {
    /// Input shape.
    pub input: [usize; 4],
    /// Output shape (height and width from the constant size input).
    pub output: [usize; 4],
    /// `align_corners`.
    pub align_corners: bool,
    /// `half_pixel_centers`.
    pub half_pixel_centers: bool,
}

/// `static_cast<int32_t>(float)` of a value the caller knows to be in range (NaN and
/// out-of-range values give `i32::MIN`, as x86-64's `cvttss2si`).
fn to_i32(x: f32) -> i32 {
    if x.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        i32::MIN
    } else {
        x as i32
    }
}

/// TFLM's `GetNearestNeighbor`, in `float` as TFLM computes it.
pub(super) fn nearest(
    value: usize,
    input_size: usize,
    output_size: usize,
    align_corners: bool,
    half_pixel_centers: bool,
) -> usize {
    let (i, o) = (input_size as i32, output_size as i32);
    let scale = if align_corners && o > 1 {
        i.wrapping_sub(1) as f32 / (o - 1) as f32
    } else {
        i as f32 / o as f32
    };
    let offset = if half_pixel_centers { 0.5_f32 } else { 0.0 };
    let scaled = (value as i32 as f32 + offset) * scale;
    let rounded = if align_corners {
        to_i32(roundf(scaled))
    } else {
        to_i32(floorf(scaled))
    };
    let mut v = rounded.min(i.wrapping_sub(1));
    if half_pixel_centers {
        v = v.max(0);
    }
    usize::try_from(v).unwrap_or(0)
}

/// [`resize_nearest_neighbor`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_resize_nearest_neighbor(
    p: &ResizeNearestNeighbor,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length("input", elements(&p.input), input));
    check!(length("output", elements(&p.output), output));
    let [ib, ih, iw, id] = p.input;
    let [ob, oh, ow, od] = p.output;
    check!(require(
        ob == ib && od == id,
        "the batches or the channels differ"
    ));
    check!(require(
        ih <= i32::MAX as usize
            && iw <= i32::MAX as usize
            && oh <= i32::MAX as usize
            && ow <= i32::MAX as usize,
        "a height or a width is above i32::MAX"
    ));
    require(
        output == 0 || (ih >= 1 && iw >= 1),
        "the input has no pixels, the output has",
    )
}

/// RESIZE_NEAREST_NEIGHBOR: TFLM's `reference_ops::ResizeNearestNeighbor`: output pixel `(b, y,
/// x)` is input pixel `(b, nearest(y), nearest(x))`, all its channels, where `nearest` is
/// TFLM's `GetNearestNeighbor` in `float` (the scale `in / out`, or `(in - 1) / (out - 1)` with
/// `align_corners`; `+ 0.5` with `half_pixel_centers`; rounded half away from zero with
/// `align_corners`, else floored; at most `in - 1`, at least 0 with `half_pixel_centers`).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_resize_nearest_neighbor`]) hold: the slices' lengths are the products of the
/// shapes, batches and channels match, heights and widths fit in `i32`, and the input has a
/// pixel unless the output is empty.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn resize_nearest_neighbor<T: Copy>(
    p: &ResizeNearestNeighbor,
    input: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_resize_nearest_neighbor(p, input.len(), output.len())?;
    proven::resize_nearest_neighbor(p, input, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`resize_nearest_neighbor`](super::resize_nearest_neighbor), its [`check`](super::check_resize_nearest_neighbor) proven.
    #[inline]
    pub fn resize_nearest_neighbor<T: Copy>(
        p: &ResizeNearestNeighbor,
        input: &[T],
        output: &mut [T],
    ) {
        debug_assert!(super::check_resize_nearest_neighbor(p, input.len(), output.len()).is_ok());
        let Some(output) = sized_mut(output, &p.output) else {
            return;
        };
        let [_, ih, iw, depth] = p.input;
        let [ob, oh, ow, _] = p.output;
        if depth == 0 {
            return;
        }
        let mut pixels = output.chunks_mut(depth);
        for b in 0..ob {
            for y in 0..oh {
                let in_y = nearest(y, ih, oh, p.align_corners, p.half_pixel_centers);
                for x in 0..ow {
                    let in_x = nearest(x, iw, ow, p.align_corners, p.half_pixel_centers);
                    let Some(dst) = pixels.next() else {
                        return;
                    };
                    let at = b
                        .wrapping_mul(ih)
                        .wrapping_add(in_y)
                        .wrapping_mul(iw)
                        .wrapping_add(in_x)
                        .wrapping_mul(depth);
                    let src = input.get(at..).unwrap_or(&[]);
                    for (o, &v) in dst.iter_mut().zip(src) {
                        *o = v;
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
    fn picks_the_nearest_pixels() {
        // 2 -> 3: floor(y * 2/3) = 0, 0, 1; aligned: round(y * 1/2) = 0, 1 (0.5 up), 1;
        // half pixel: floor((y + 0.5) * 2/3) = 0, 1, 1.
        let got = |a, h| [0, 1, 2].map(|y| nearest(y, 2, 3, a, h));
        assert_eq!(got(false, false), [0, 0, 1]);
        assert_eq!(got(true, false), [0, 1, 1]);
        assert_eq!(got(false, true), [0, 1, 1]);
        let p = ResizeNearestNeighbor {
            input: [1, 1, 2, 1],
            output: [1, 1, 3, 1],
            align_corners: false,
            half_pixel_centers: false,
        };
        let mut out = [0_i8; 3];
        resize_nearest_neighbor(&p, &[4, 5], &mut out).unwrap();
        assert_eq!(out, [4, 4, 5]);
    }

    #[test]
    fn extreme_parameters_do_not_panic() {
        let p = ResizeNearestNeighbor {
            input: [1, usize::MAX, 1 << 31, 1],
            output: [1, 2, 1, 1],
            align_corners: true,
            half_pixel_centers: true,
        };
        let mut out = [7_i16; 2];
        assert!(resize_nearest_neighbor(&p, &[1, 2], &mut out).is_err());
        assert_eq!(out, [7; 2]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = ResizeNearestNeighbor {
            input: [1, 2, 2, 1],
            output: [1, 3, 3, 1],
            align_corners: false,
            half_pixel_centers: false,
        };
        refuses([4, 9], [Exact; 2], |[i, o]| {
            let mut out = vec![7_i8; o];
            (
                resize_nearest_neighbor(&p, &vec![0; i], &mut out),
                untouched(&out, 7),
            )
        });
        let mut out = [7_i8; 9];
        let channels = ResizeNearestNeighbor {
            output: [1, 3, 3, 2],
            ..p
        };
        assert!(resize_nearest_neighbor(&channels, &[0; 4], &mut [7; 18]).is_err());
        assert!(resize_nearest_neighbor(&p, &[], &mut out).is_err());
        assert_eq!(out, [7; 9]);
    }
}
