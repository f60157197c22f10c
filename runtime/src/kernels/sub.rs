//! SUB with broadcasting: TFLM's `reference_ops::Sub` / `SubElementwise` /
//! `BroadcastQuantSubSlow` (int8, int16), `SubWithActivation` / `BroadcastSubSlow` (int32,
//! float).

use super::add::AddS8;
use super::shared::broadcast::check_binary;
use super::shared::broadcast::{BinaryF32, BinaryI32, broadcast, clamp_i32};
use super::shared::check::KernelError;
use super::shared::{activation_f32, fixed};

/// Parameters of a quantised SUB (TFLM's `OpDataSub`: the fields of ADD's, computed by
/// `CalculateOpDataSub`; `left_shift` 20 for int8, 15 for int16).
pub type SubQuant = AddS8;

/// The quantised difference of TFLM's `SubElementwise` / `BroadcastQuantSubSlow`, clamped.
#[inline(always)]
fn sub_quantized(p: &SubQuant, x: i32, y: i32) -> i32 {
    let scale = fixed::multiply_by_quantized_multiplier_smaller_than_one_exp;
    let shift = |x: i32| x.wrapping_mul(1_i32.wrapping_shl(p.left_shift as u32));
    let shifted_input1_val = shift(p.input1_offset.wrapping_add(x));
    let shifted_input2_val = shift(p.input2_offset.wrapping_add(y));
    let scaled_input1_val = scale(shifted_input1_val, p.input1.multiplier, p.input1.shift);
    let scaled_input2_val = scale(shifted_input2_val, p.input2.multiplier, p.input2.shift);
    let raw_sub = scaled_input1_val.wrapping_sub(scaled_input2_val);
    let raw_output =
        scale(raw_sub, p.output.multiplier, p.output.shift).wrapping_add(p.output_offset);
    clamp_i32(raw_output, p.act_min, p.act_max)
}

/// [`sub_s8`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_sub_s8(
    p: &SubQuant,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// int8 SUB: TFLM's `SubElementwise` (same shapes) and `BroadcastQuantSubSlow<int8_t>`: each
/// offset input shifted left by `left_shift` and scaled by its multiplier, the difference
/// scaled by the output multiplier (all `MultiplyByQuantizedMultiplierSmallerThanOneExp`),
/// offset, clamped and narrowed.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_sub_s8`]) hold:
/// each slice holds its shape's element count; every input dimension equals the output's or is
/// 1.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn sub_s8(
    p: &SubQuant,
    input1: &[i8],
    input2: &[i8],
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_sub_s8(p, input1.len(), input2.len(), output.len())?;
    proven::sub_s8(p, input1, input2, output);
    Ok(())
}

/// [`sub_s16`]'s preconditions, as [`check_sub_s8`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_sub_s16(
    p: &SubQuant,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// int16 SUB: [`sub_s8`]'s arithmetic on `int16_t` (TFLM's `Sub` for int16 and
/// `BroadcastQuantSubSlow<int16_t>`; `left_shift` 15).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_sub_s16`]) hold: as
/// [`sub_s8`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn sub_s16(
    p: &SubQuant,
    input1: &[i16],
    input2: &[i16],
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_sub_s16(p, input1.len(), input2.len(), output.len())?;
    proven::sub_s16(p, input1, input2, output);
    Ok(())
}

/// [`sub_i32`]'s preconditions, as [`check_sub_s8`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_sub_i32(
    p: &BinaryI32,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// int32 SUB: TFLM's `SubWithActivation` / `BroadcastSubSlow<int32_t>`:
/// `ActivationFunctionWithMinMax(x - y)` with the fused activation's int32 range, the
/// difference wrapping as the x86-64 build's.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_sub_i32`]) hold: as
/// [`sub_s8`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn sub_i32(
    p: &BinaryI32,
    input1: &[i32],
    input2: &[i32],
    output: &mut [i32],
) -> Result<(), KernelError> {
    check_sub_i32(p, input1.len(), input2.len(), output.len())?;
    proven::sub_i32(p, input1, input2, output);
    Ok(())
}

/// [`sub_f32`]'s preconditions, as [`check_sub_s8`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_sub_f32(
    p: &BinaryF32,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// float SUB: TFLM's `SubWithActivation` / `BroadcastSubSlow<float>`:
/// `ActivationFunctionWithMinMax(x - y)`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_sub_f32`]) hold: as
/// [`sub_s8`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn sub_f32(
    p: &BinaryF32,
    input1: &[f32],
    input2: &[f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_sub_f32(p, input1.len(), input2.len(), output.len())?;
    proven::sub_f32(p, input1, input2, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`sub_s8`](super::sub_s8), its [`check`](super::check_sub_s8) proven.
    #[inline]
    pub fn sub_s8(p: &SubQuant, input1: &[i8], input2: &[i8], output: &mut [i8]) {
        debug_assert!(super::check_sub_s8(p, input1.len(), input2.len(), output.len()).is_ok());
        broadcast(&p.shape, input1, input2, output, |x, y| {
            sub_quantized(p, i32::from(x), i32::from(y)) as i8
        });
    }

    /// [`sub_s16`](super::sub_s16), its [`check`](super::check_sub_s16) proven.
    #[inline]
    pub fn sub_s16(p: &SubQuant, input1: &[i16], input2: &[i16], output: &mut [i16]) {
        debug_assert!(super::check_sub_s16(p, input1.len(), input2.len(), output.len()).is_ok());
        broadcast(&p.shape, input1, input2, output, |x, y| {
            sub_quantized(p, i32::from(x), i32::from(y)) as i16
        });
    }

    /// [`sub_i32`](super::sub_i32), its [`check`](super::check_sub_i32) proven.
    #[inline]
    pub fn sub_i32(p: &BinaryI32, input1: &[i32], input2: &[i32], output: &mut [i32]) {
        debug_assert!(super::check_sub_i32(p, input1.len(), input2.len(), output.len()).is_ok());
        broadcast(&p.shape, input1, input2, output, |x, y| {
            clamp_i32(x.wrapping_sub(y), p.act_min, p.act_max)
        });
    }

    /// [`sub_f32`](super::sub_f32), its [`check`](super::check_sub_f32) proven.
    #[inline]
    pub fn sub_f32(p: &BinaryF32, input1: &[f32], input2: &[f32], output: &mut [f32]) {
        debug_assert!(super::check_sub_f32(p, input1.len(), input2.len(), output.len()).is_ok());
        broadcast(&p.shape, input1, input2, output, |x, y| {
            activation_f32(x - y, p.act_min, p.act_max)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{BinaryShape, Requant};

    #[test]
    fn int32_wraps_and_clamps() {
        let shape = BinaryShape {
            input1: [1, 1, 1, 1, 1, 3],
            input2: [1, 1, 1, 1, 1, 1],
            output: [1, 1, 1, 1, 1, 3],
        };
        let p = BinaryI32 {
            shape,
            act_min: 0,
            act_max: 6,
        };
        let mut out = [0; 3];
        sub_i32(&p, &[i32::MIN, 10, 3], &[1], &mut out).unwrap();
        // i32::MIN - 1 wraps to i32::MAX, clamped to 6.
        assert_eq!(out, [6, 6, 2]);
    }

    #[test]
    fn int8_of_equal_scales() {
        const N: usize = 64;
        let n = if cfg!(miri) { 4 } else { N };
        let shape = BinaryShape {
            input1: [1, 1, 1, 1, 1, n],
            input2: [1, 1, 1, 1, 1, n],
            output: [1, 1, 1, 1, 1, n],
        };
        // Scales 1, 1 -> 1: multipliers 1/2, 1/2 and 2 / 2^20 (0.5 * 2^-18).
        let half = Requant {
            multiplier: 1 << 30,
            shift: 0,
        };
        let p = SubQuant {
            shape,
            left_shift: 20,
            input1_offset: 0,
            input1: half,
            input2_offset: 0,
            input2: half,
            output_offset: 0,
            output: Requant {
                multiplier: 1 << 30,
                shift: -18,
            },
            act_min: -128,
            act_max: 127,
        };
        let mut a = [0_i8; N];
        let mut b = [0_i8; N];
        for (i, (x, y)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
            *x = (i as i8).wrapping_mul(3);
            *y = (i as i8).wrapping_mul(-5);
        }
        let mut out = [0_i8; N];
        sub_s8(&p, &a[..n], &b[..n], &mut out[..n]).unwrap();
        for ((&x, &y), &o) in a.iter().zip(&b).zip(&out).take(n) {
            assert_eq!(i32::from(o), (i32::from(x) - i32::from(y)).clamp(-128, 127));
        }
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
        let r = crate::kernels::Requant {
            multiplier: 1 << 30,
            shift: 0,
        };
        let q = crate::kernels::AddS8 {
            shape,
            left_shift: 20,
            input1_offset: 0,
            input1: r,
            input2_offset: 0,
            input2: r,
            output_offset: 0,
            output: r,
            act_min: -128,
            act_max: 127,
        };
        let bad = crate::kernels::AddS8 {
            shape: not_broadcast,
            ..q
        };
        let fp = crate::kernels::BinaryF32 {
            shape,
            act_min: f32::MIN,
            act_max: f32::MAX,
        };
        let ip = crate::kernels::BinaryI32 {
            shape,
            act_min: i32::MIN,
            act_max: i32::MAX,
        };
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7; o];
            let r = sub_s8(&q, &vec![0_i8; a], &vec![0_i8; b], &mut out);
            (r, untouched(&out, 7))
        });
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7; o];
            let r = sub_s16(&q, &vec![0_i16; a], &vec![0_i16; b], &mut out);
            (r, untouched(&out, 7))
        });
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7; o];
            let r = sub_i32(&ip, &vec![0_i32; a], &vec![0_i32; b], &mut out);
            (r, untouched(&out, 7))
        });
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7.0; o];
            let r = sub_f32(&fp, &vec![0.0_f32; a], &vec![0.0_f32; b], &mut out);
            (r, untouched(&out, 7.0))
        });
        let mut out = [7_i8; 4];
        assert!(sub_s8(&bad, &[0; 4], &[0; 3], &mut out).is_err());
        assert_eq!(out, [7; 4]);
    }
}
