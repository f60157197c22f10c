//! FLOOR_DIV with broadcasting: TFLM's `reference_ops::FloorDiv<float>` through
//! `BinaryFunction` / `BroadcastBinaryFunction4DSlow`.

use super::shared::broadcast::check_binary;
use super::shared::broadcast::{BinaryShape, broadcast};
use super::shared::check::KernelError;

/// C's `floor(double)`: exact, so the same bits on every target (NaN and infinities pass
/// through, `-0.0` stays `-0.0`, negative values above -1 give -1).
fn floor_f64(x: f64) -> f64 {
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32 - 1023;
    if exponent >= 52 {
        // Integral already, infinite or NaN.
        return x;
    }
    if exponent < 0 {
        // |x| < 1.
        return if bits << 1 == 0 {
            x
        } else if bits >> 63 == 1 {
            -1.0
        } else {
            0.0
        };
    }
    let fraction = (1_u64 << (52 - exponent)) - 1;
    if bits & fraction == 0 {
        return x;
    }
    let truncated = f64::from_bits(bits & !fraction);
    if bits >> 63 == 1 {
        truncated - 1.0
    } else {
        truncated
    }
}

/// [`floor_div_f32`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_floor_div_f32(
    p: &BinaryShape,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(p, input1, input2, output)
}

/// float FLOOR_DIV: TFLM's `FloorDiv<float>`: `std::floor((double)x / (double)y)` in double,
/// narrowed to float. TFLM's Eval fails when any divisor is 0 (its model does not run); here a
/// divisor of 0 gives the IEEE quotient's floor (an infinity or NaN).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_floor_div_f32`])
/// hold: each slice holds its shape's element count; every input dimension equals the output's
/// or is 1.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn floor_div_f32(
    p: &BinaryShape,
    input1: &[f32],
    input2: &[f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_floor_div_f32(p, input1.len(), input2.len(), output.len())?;
    proven::floor_div_f32(p, input1, input2, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`floor_div_f32`](super::floor_div_f32), its [`check`](super::check_floor_div_f32) proven.
    #[inline]
    pub fn floor_div_f32(p: &BinaryShape, input1: &[f32], input2: &[f32], output: &mut [f32]) {
        debug_assert!(
            super::check_floor_div_f32(p, input1.len(), input2.len(), output.len()).is_ok()
        );
        broadcast(p, input1, input2, output, |x, y| {
            floor_f64(f64::from(x) / f64::from(y)) as f32
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_of_doubles() {
        let cases = [
            (0.5, 0.0),
            (-0.5, -1.0),
            (-0.0, -0.0),
            (2.0, 2.0),
            (-2.5, -3.0),
            (4_503_599_627_370_495.5, 4_503_599_627_370_495.0),
            (-4_503_599_627_370_495.5, -4_503_599_627_370_496.0),
            (f64::INFINITY, f64::INFINITY),
            (1e300, 1e300),
            (2.999_999_999_999, 2.0),
        ];
        for (x, want) in cases {
            assert_eq!(floor_f64(x).to_bits(), f64::to_bits(want), "{x}");
        }
        assert!(floor_f64(f64::NAN).is_nan());
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let shape = crate::kernels::BinaryShape {
            input1: [1, 1, 1, 1, 2, 2],
            input2: [1, 1, 1, 1, 1, 2],
            output: [1, 1, 1, 1, 2, 2],
        };
        let not_broadcast = crate::kernels::BinaryShape {
            input2: [1, 1, 1, 1, 1, 3],
            ..shape
        };
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7.0; o];
            let r = floor_div_f32(&shape, &vec![0.0_f32; a], &vec![0.0_f32; b], &mut out);
            (r, untouched(&out, 7.0))
        });
        let mut out = [7.0_f32; 4];
        assert!(floor_div_f32(&not_broadcast, &[0.0; 4], &[0.0; 3], &mut out).is_err());
        assert_eq!(out, [7.0; 4]);
    }
}
