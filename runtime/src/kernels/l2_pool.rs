//! L2_POOL_2D: TFLM's `l2_pool_2d.cc` over `reference_ops::L2Pool` (float32 only, as TFLM).

use stowplan_math::sqrtf;

use super::pooling::{PoolF32, check_pool, pool_loops};
use super::shared::activation_f32;
use super::shared::check::KernelError;

/// [`l2_pool_f32`]'s preconditions, on the lengths of its slices: what the entry checks before
/// it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_l2_pool_f32(
    p: &PoolF32,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_pool(&p.geometry, input, output)
}

/// The entry generated code calls after asserting the kernel's check when the crate compiled:
/// the public entry without its run-time check (in debug builds it is asserted).
pub mod proven {
    use super::{PoolF32, activation_f32, pool_loops, sqrtf};

    /// [`l2_pool_f32`](super::l2_pool_f32), its [`check`](super::check_l2_pool_f32) proven.
    pub fn l2_pool_f32(p: &PoolF32, input: &[f32], output: &mut [f32]) {
        debug_assert!(super::check_l2_pool_f32(p, input.len(), output.len()).is_ok());
        pool_loops(
            &p.geometry,
            crate::kernels::shared::Part::WHOLE,
            input,
            output,
            0.0_f32,
            |sum, value| sum + value * value,
            |sum, count| {
                // TFLM's window always holds an input element (its padding is below the
                // filter's size), so the count is at least 1; an empty one gives sqrt(0/0),
                // NaN, as TFLM's would.
                Some(activation_f32(
                    sqrtf(sum / count as f32),
                    p.act_min,
                    p.act_max,
                ))
            },
        );
    }
}

/// float L2_POOL_2D: TFLM's `reference_ops::L2Pool`: for each output element, over the window
/// clamped to the input (rows, then columns) `sum_squares += val * val` from `0.f`, then
/// `std::sqrt(sum_squares / filter_count)` (the count converted to float) and the activation
/// clamp. Loops batch, output row, output column, channel as TFLM (the channels of one window
/// are accumulated side by side, each in TFLM's order: the same sums).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_l2_pool_f32`])
/// hold: `input` and `output` hold `geometry.input` and `geometry.output` (NHWC, the same `N`
/// and `C`), windows and strides of at least 1.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn l2_pool_f32(p: &PoolF32, input: &[f32], output: &mut [f32]) -> Result<(), KernelError> {
    check_l2_pool_f32(p, input.len(), output.len())?;
    proven::l2_pool_f32(p, input, output);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::pooling::PoolGeometry;
    use super::*;

    #[test]
    fn root_mean_square_of_each_window() {
        // 1x2x3x2 input, 2x2 windows at stride 1 with SAME padding (right column cut).
        let g = PoolGeometry {
            input: [1, 2, 3, 2],
            output: [1, 1, 3, 2],
            filter_h: 2,
            filter_w: 2,
            stride_h: 2,
            stride_w: 1,
            pad_h: 0,
            pad_w: 0,
        };
        let p = PoolF32 {
            geometry: g,
            act_min: f32::MIN,
            act_max: f32::MAX,
        };
        let x: [f32; 12] = [
            1.0, -2.0, 3.0, 0.5, -4.0, 1.0, 2.0, 2.0, 0.0, -1.5, 4.0, 3.0,
        ];
        let mut out = [0.0_f32; 6];
        l2_pool_f32(&p, &x, &mut out).unwrap();
        // Pixel (y, x) channel c is x[(y * 3 + x) * 2 + c].
        let px = |y: usize, xx: usize, c: usize| x[(y * 3 + xx) * 2 + c];
        for ox in 0..3 {
            for c in 0..2 {
                let mut sum = 0.0_f32;
                let mut n = 0;
                for y in 0..2 {
                    for xx in ox..(ox + 2).min(3) {
                        sum += px(y, xx, c) * px(y, xx, c);
                        n += 1;
                    }
                }
                assert_eq!(out[ox * 2 + c], sqrtf(sum / n as f32), "({ox}, {c})");
            }
        }
        // RELU6-like clamp.
        let clamped = PoolF32 {
            act_min: 0.0,
            act_max: 2.0,
            ..p
        };
        l2_pool_f32(&clamped, &x, &mut out).unwrap();
        assert!(out.iter().all(|&v| (0.0..=2.0).contains(&v)));
        assert_eq!(out[4], 2.0);
    }

    /// L2_POOL_2D refuses, writing nothing, an input or output of the wrong length, channels
    /// or batches that differ, a zero stride or window.
    #[test]
    fn refused_calls_write_nothing() {
        let g = PoolGeometry {
            input: [1, 2, 2, 1],
            output: [1, 1, 1, 1],
            filter_h: 2,
            filter_w: 2,
            stride_h: 2,
            stride_w: 2,
            pad_h: 0,
            pad_w: 0,
        };
        let cases = [
            (g, 3, 1),
            (g, 4, 2),
            (
                PoolGeometry {
                    output: [1, 1, 1, 2],
                    ..g
                },
                4,
                2,
            ),
            (
                PoolGeometry {
                    output: [2, 1, 1, 1],
                    ..g
                },
                4,
                2,
            ),
            (PoolGeometry { stride_h: 0, ..g }, 4, 1),
            (PoolGeometry { filter_w: 0, ..g }, 4, 1),
        ];
        for (geometry, n, m) in cases {
            let p = PoolF32 {
                geometry,
                act_min: f32::MIN,
                act_max: f32::MAX,
            };
            let mut out = [7.0_f32; 2];
            let r = l2_pool_f32(&p, &[1.0; 4][..n], &mut out[..m]);
            assert!(r.is_err(), "{geometry:?}");
            assert_eq!(r, check_l2_pool_f32(&p, n, m));
            assert_eq!(out, [7.0; 2]);
        }
    }
}
