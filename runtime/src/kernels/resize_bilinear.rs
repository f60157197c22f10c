//! RESIZE_BILINEAR: TFLM's `reference_ops::ResizeBilinear` (float) and
//! `reference_ops::ResizeBilinearInteger` (int8).

use super::shared::check::{KernelError, check, elements, length, require};
use stowplan_math::{ceilf, floorf};

use super::shared::{at, fixed, sized_mut};

/// Parameters of RESIZE_BILINEAR (NHWC, 4 dimensions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResizeBilinear {
    /// Input shape.
    pub input: [usize; 4],
    /// Output shape (height and width from the constant size input).
    pub output: [usize; 4],
    /// `align_corners`.
    pub align_corners: bool,
    /// `half_pixel_centers`.
    pub half_pixel_centers: bool,
}

/// `static_cast<int32_t>(float)` as x86-64 computes it (NaN and out-of-range values give
/// `i32::MIN`).
fn to_i32(x: f32) -> i32 {
    if x.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        i32::MIN
    } else {
        x as i32
    }
}

/// TFLM's `ComputeInterpolationValues`: `(scaled, lower, upper)`.
fn interpolation(value: i32, scale: f32, half_pixel_centers: bool, size: i32) -> (f32, i32, i32) {
    let scaled = if half_pixel_centers {
        (value as f32 + 0.5) * scale - 0.5
    } else {
        value as f32 * scale
    };
    let lower = to_i32(floorf(scaled)).max(0);
    let upper = to_i32(ceilf(scaled)).min(size.wrapping_sub(1));
    (scaled, lower, upper)
}

/// TFLM's `ComputeInterpolationValuesInteger`: `(scaled, lower, upper)` in units of 2^-10.
fn interpolation_integer(
    value: i32,
    scale_10: i32,
    half_pixel_centers: bool,
    size: i32,
) -> (i32, i32, i32) {
    let scaled = if half_pixel_centers {
        value
            .wrapping_mul(scale_10)
            .wrapping_add(scale_10 / 2)
            .wrapping_sub(1 << 9)
    } else {
        value.wrapping_mul(scale_10)
    };
    let lower = (scaled / (1 << 10)).max(0);
    let upper = (scaled.wrapping_add((1 << 10) - 1) / (1 << 10)).min(size.wrapping_sub(1));
    (scaled, lower, upper)
}

/// The offset of pixel `(b, y, x)` channel 0 in an NHWC tensor of `shape` (negative
/// coordinates wrap to an index past the end, which reads 0).
fn offset(shape: [usize; 4], b: usize, y: i32, x: i32) -> usize {
    let [_, h, w, d] = shape;
    b.wrapping_mul(h)
        .wrapping_add(y as usize)
        .wrapping_mul(w)
        .wrapping_add(x as usize)
        .wrapping_mul(d)
}

/// [`resize_bilinear_f32`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_resize_bilinear_f32(
    p: &ResizeBilinear,
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

/// float RESIZE_BILINEAR: TFLM's `reference_ops::ResizeBilinear<float>`: the scales `in / out`
/// in `float` (`(in - 1) / (out - 1)` with `align_corners` and `out > 1`), the source
/// coordinate `y * scale` (`(y + 0.5) * scale - 0.5` with `half_pixel_centers`) between its
/// floor and ceiling (clamped to the input), and the four corners weighted and added in TFLM's
/// order: `a (1 - dy)(1 - dx) + b dy (1 - dx) + c (1 - dy) dx + d dy dx + 0`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_resize_bilinear_f32`]) hold: the slices' lengths are the products of the shapes,
/// batches and channels match, heights and widths fit in `i32`, and the input has a pixel
/// unless the output is empty.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn resize_bilinear_f32(
    p: &ResizeBilinear,
    input: &[f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_resize_bilinear_f32(p, input.len(), output.len())?;
    proven::resize_bilinear_f32(p, input, output);
    Ok(())
}

/// [`resize_bilinear_s8`]'s preconditions, as [`check_resize_bilinear_f32`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_resize_bilinear_s8(
    p: &ResizeBilinear,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_resize_bilinear_f32(p, input, output)
}

/// int8 RESIZE_BILINEAR: TFLM's `reference_ops::ResizeBilinearInteger<int8_t>`: scales and
/// coordinates in units of 2^-10 (`(2^10 * in + out / 2) / out`), the four corners weighted in
/// int64 and the sum rounded to 2^-20: half away from zero (`(sum ± 2^19) / 2^20`) in TFLM's
/// default build, half up (`(sum + 2^19) >> 20`) in the single-rounding one
/// ([`fixed::SINGLE_ROUNDING`]).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_resize_bilinear_s8`]) hold: as [`resize_bilinear_f32`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn resize_bilinear_s8(
    p: &ResizeBilinear,
    input: &[i8],
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_resize_bilinear_s8(p, input.len(), output.len())?;
    proven::resize_bilinear_s8(p, input, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`resize_bilinear_f32`](super::resize_bilinear_f32), its [`check`](super::check_resize_bilinear_f32) proven.
    #[inline]
    pub fn resize_bilinear_f32(p: &ResizeBilinear, input: &[f32], output: &mut [f32]) {
        debug_assert!(super::check_resize_bilinear_f32(p, input.len(), output.len()).is_ok());
        let Some(output) = sized_mut(output, &p.output) else {
            return;
        };
        let [_, ih, iw, depth] = p.input;
        let [ob, oh, ow, _] = p.output;
        let (ih32, iw32, oh32, ow32) = (ih as i32, iw as i32, oh as i32, ow as i32);
        let mut height_scale = ih32 as f32 / oh32 as f32;
        let mut width_scale = iw32 as f32 / ow32 as f32;
        if p.align_corners && oh32 > 1 {
            height_scale = ih32.wrapping_sub(1) as f32 / (oh32 - 1) as f32;
        }
        if p.align_corners && ow32 > 1 {
            width_scale = iw32.wrapping_sub(1) as f32 / (ow32 - 1) as f32;
        }
        let mut out = output.iter_mut();
        for b in 0..ob {
            for y in 0..oh32 {
                let (input_y, y0, y1) = interpolation(y, height_scale, p.half_pixel_centers, ih32);
                let dy = input_y - y0 as f32;
                for x in 0..ow32 {
                    let (input_x, x0, x1) =
                        interpolation(x, width_scale, p.half_pixel_centers, iw32);
                    let dx = input_x - x0 as f32;
                    let (p00, p10) = (offset(p.input, b, y0, x0), offset(p.input, b, y1, x0));
                    let (p01, p11) = (offset(p.input, b, y0, x1), offset(p.input, b, y1, x1));
                    for c in 0..depth {
                        let v = at(input, p00.wrapping_add(c)) * (1.0 - dy) * (1.0 - dx)
                            + at(input, p10.wrapping_add(c)) * dy * (1.0 - dx)
                            + at(input, p01.wrapping_add(c)) * (1.0 - dy) * dx
                            + at(input, p11.wrapping_add(c)) * dy * dx
                            + 0.0;
                        if let Some(o) = out.next() {
                            *o = v;
                        }
                    }
                }
            }
        }
    }

    /// [`resize_bilinear_s8`](super::resize_bilinear_s8), its [`check`](super::check_resize_bilinear_s8) proven.
    #[inline]
    pub fn resize_bilinear_s8(p: &ResizeBilinear, input: &[i8], output: &mut [i8]) {
        debug_assert!(super::check_resize_bilinear_s8(p, input.len(), output.len()).is_ok());
        let Some(output) = sized_mut(output, &p.output) else {
            return;
        };
        let [_, ih, iw, depth] = p.input;
        let [ob, oh, ow, _] = p.output;
        let (ih32, iw32, oh32, ow32) = (ih as i32, iw as i32, oh as i32, ow as i32);
        if oh32 <= 0 || ow32 <= 0 {
            return;
        }
        let scale = |i: i32, o: i32| (1_i32 << 10).wrapping_mul(i).wrapping_add(o / 2) / o;
        let mut height_scale_10 = scale(ih32, oh32);
        let mut width_scale_10 = scale(iw32, ow32);
        if p.align_corners && oh32 > 1 {
            height_scale_10 = scale(ih32.wrapping_sub(1), oh32 - 1);
        }
        if p.align_corners && ow32 > 1 {
            width_scale_10 = scale(iw32.wrapping_sub(1), ow32 - 1);
        }
        let one = 1_i64 << 10;
        let mut out = output.iter_mut();
        for b in 0..ob {
            for y in 0..oh32 {
                let (input_y, y0, y1) =
                    interpolation_integer(y, height_scale_10, p.half_pixel_centers, ih32);
                let dy = i64::from(input_y) - one * i64::from(y0);
                for x in 0..ow32 {
                    let (input_x, x0, x1) =
                        interpolation_integer(x, width_scale_10, p.half_pixel_centers, iw32);
                    let dx = i64::from(input_x) - one * i64::from(x0);
                    let (p00, p10) = (offset(p.input, b, y0, x0), offset(p.input, b, y1, x0));
                    let (p01, p11) = (offset(p.input, b, y0, x1), offset(p.input, b, y1, x1));
                    for c in 0..depth {
                        let v = |at_: usize| i64::from(at(input, at_.wrapping_add(c)));
                        // Wrapping: only inconsistent parameters overflow 64 bits.
                        let w = |a: i64, b: i64, c: i64| a.wrapping_mul(b).wrapping_mul(c);
                        let sum = w(v(p00), one - dy, one - dx)
                            .wrapping_add(w(v(p10), dy, one - dx))
                            .wrapping_add(w(v(p01), one - dy, dx))
                            .wrapping_add(w(v(p11), dy, dx));
                        let value = if fixed::SINGLE_ROUNDING {
                            sum.wrapping_add(1 << 19) >> 20
                        } else {
                            let round = if sum > 0 { 1 << 19 } else { -(1 << 19) };
                            sum.wrapping_add(round) / (1 << 20)
                        };
                        if let Some(o) = out.next() {
                            *o = value as i8;
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
    fn interpolates_between_pixels() {
        // 1x2 -> 1x4 along the width: scale 0.5, x = 0, 0.5, 1, 1.5 (clamped to the last).
        let p = ResizeBilinear {
            input: [1, 1, 2, 1],
            output: [1, 1, 4, 1],
            align_corners: false,
            half_pixel_centers: false,
        };
        let mut out = [0.0_f32; 4];
        resize_bilinear_f32(&p, &[0.0, 8.0], &mut out).unwrap();
        assert_eq!(out, [0.0, 4.0, 8.0, 8.0]);
        let mut out = [0_i8; 4];
        resize_bilinear_s8(&p, &[-3, 8], &mut out).unwrap();
        // (-3 + 8) / 2 = 2.5 rounds away from zero to 3.
        assert_eq!(out, [-3, 3, 8, 8]);
    }

    #[test]
    fn extreme_parameters_do_not_panic() {
        for (align_corners, half_pixel_centers) in [(false, false), (true, false), (false, true)] {
            let p = ResizeBilinear {
                input: [1, usize::MAX, usize::MAX >> 1, 1],
                output: [1, 1, 2, 1],
                align_corners,
                half_pixel_centers,
            };
            let mut out = [7_i8; 2];
            assert!(resize_bilinear_s8(&p, &[1, 2], &mut out).is_err());
            assert_eq!(out, [7; 2]);
            let mut out = [7.0_f32; 2];
            assert!(resize_bilinear_f32(&p, &[1.0, 2.0], &mut out).is_err());
            assert_eq!(out, [7.0; 2]);
        }
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = ResizeBilinear {
            input: [1, 2, 2, 1],
            output: [1, 3, 3, 1],
            align_corners: false,
            half_pixel_centers: false,
        };
        refuses([4, 9], [Exact; 2], |[i, o]| {
            let mut out = vec![7_i8; o];
            (
                resize_bilinear_s8(&p, &vec![0; i], &mut out),
                untouched(&out, 7),
            )
        });
        refuses([4, 9], [Exact; 2], |[i, o]| {
            let mut out = vec![7.0_f32; o];
            (
                resize_bilinear_f32(&p, &vec![0.0; i], &mut out),
                untouched(&out, 7.0),
            )
        });
    }
}
