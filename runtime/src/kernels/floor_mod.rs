//! FLOOR_MOD with broadcasting: TFLM's `reference_ops::FloorMod<float>` through
//! `BinaryFunction` / `BroadcastBinaryFunction4DSlow`.

use super::shared::broadcast::check_binary;
use super::shared::broadcast::{BinaryShape, broadcast};
use super::shared::check::KernelError;

/// C's `fmodf`: the exact remainder of `x / y` truncated, with the sign of `x` (musl's bit
/// algorithm; the result is exact, so every correct C library gives the same bits). NaN for
/// a NaN operand (that operand's, as `x * y` gives it), an infinite `x` or a zero `y`.
fn fmodf(x: f32, y: f32) -> f32 {
    let mut uxi = x.to_bits();
    let mut uyi = y.to_bits();
    let mut ex = ((uxi >> 23) & 0xff) as i32;
    let mut ey = ((uyi >> 23) & 0xff) as i32;
    let sx = uxi & 0x8000_0000;
    if uyi << 1 == 0 || y.is_nan() || ex == 0xff {
        // C's `(x * y) / (x * y)`: NaN, the operand's where one is NaN.
        #[allow(clippy::eq_op)]
        let nan = (x * y) / (x * y);
        return nan;
    }
    if uxi << 1 <= uyi << 1 {
        if uxi << 1 == uyi << 1 {
            return 0.0 * x;
        }
        return x;
    }
    // Normalise x and y.
    if ex == 0 {
        let mut i = uxi << 9;
        while i >> 31 == 0 {
            ex -= 1;
            i <<= 1;
        }
        uxi <<= (1 - ex) as u32;
    } else {
        uxi &= u32::MAX >> 9;
        uxi |= 1 << 23;
    }
    if ey == 0 {
        let mut i = uyi << 9;
        while i >> 31 == 0 {
            ey -= 1;
            i <<= 1;
        }
        uyi <<= (1 - ey) as u32;
    } else {
        uyi &= u32::MAX >> 9;
        uyi |= 1 << 23;
    }
    // x mod y.
    while ex > ey {
        let i = uxi.wrapping_sub(uyi);
        if i >> 31 == 0 {
            if i == 0 {
                return 0.0 * x;
            }
            uxi = i;
        }
        uxi <<= 1;
        ex -= 1;
    }
    let i = uxi.wrapping_sub(uyi);
    if i >> 31 == 0 {
        if i == 0 {
            return 0.0 * x;
        }
        uxi = i;
    }
    while uxi >> 23 == 0 {
        uxi <<= 1;
        ex -= 1;
    }
    // Scale the result back.
    if ex > 0 {
        uxi -= 1 << 23;
        uxi |= (ex as u32) << 23;
    } else {
        uxi >>= (1 - ex) as u32;
    }
    f32::from_bits(uxi | sx)
}

/// [`floor_mod_f32`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_floor_mod_f32(
    p: &BinaryShape,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(p, input1, input2, output)
}

/// float FLOOR_MOD: TFLM's `FloorMod<float>`: `t = fmodf(x, y)`, then `t + y` where `t` is
/// non-zero and its sign differs from `y`'s, else `t`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_floor_mod_f32`])
/// hold: each slice holds its shape's element count; every input dimension equals the output's
/// or is 1.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn floor_mod_f32(
    p: &BinaryShape,
    input1: &[f32],
    input2: &[f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_floor_mod_f32(p, input1.len(), input2.len(), output.len())?;
    proven::floor_mod_f32(p, input1, input2, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`floor_mod_f32`](super::floor_mod_f32), its [`check`](super::check_floor_mod_f32) proven.
    #[inline]
    pub fn floor_mod_f32(p: &BinaryShape, input1: &[f32], input2: &[f32], output: &mut [f32]) {
        debug_assert!(
            super::check_floor_mod_f32(p, input1.len(), input2.len(), output.len()).is_ok()
        );
        broadcast(p, input1, input2, output, |x, y| {
            let trunc_mod = fmodf(x, y);
            if trunc_mod != 0.0 && ((y < 0.0) != (trunc_mod < 0.0)) {
                trunc_mod + y
            } else {
                trunc_mod
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remainders() {
        let cases: [(f32, f32, f32); 8] = [
            (5.5, 2.0, 1.5),
            (-5.5, 2.0, -1.5),
            (5.5, -2.0, 1.5),
            (1e30, 3.0, 0.0),
            (1e-45, 1.0, 1e-45),
            (3.0, 1e-45, 0.0),
            (-0.0, 1.0, -0.0),
            (7.0, 7.0, 0.0),
        ];
        for (x, y, want) in cases {
            assert_eq!(fmodf(x, y).to_bits(), want.to_bits(), "fmodf({x}, {y})");
        }
        assert!(fmodf(1.0, 0.0).is_nan());
        assert!(fmodf(f32::INFINITY, 1.0).is_nan());
        assert_eq!(fmodf(1.0, f32::INFINITY), 1.0);
        let shape = BinaryShape {
            input1: [1, 1, 1, 1, 1, 2],
            input2: [1, 1, 1, 1, 1, 1],
            output: [1, 1, 1, 1, 1, 2],
        };
        let mut out = [0.0; 2];
        floor_mod_f32(&shape, &[-5.5, 5.5], &[2.0], &mut out).unwrap();
        assert_eq!(out, [0.5, 1.5]);
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
            let r = floor_mod_f32(&shape, &vec![0.0_f32; a], &vec![0.0_f32; b], &mut out);
            (r, untouched(&out, 7.0))
        });
        let mut out = [7.0_f32; 4];
        assert!(floor_mod_f32(&not_broadcast, &[0.0; 4], &[0.0; 3], &mut out).is_err());
        assert_eq!(out, [7.0; 4]);
    }
}
