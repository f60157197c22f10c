//! DIV with broadcasting: TFLM's `reference_ops::Div` / `BroadcastDivSlow` (float32, int32)
//! and `DivElementwise` / `BroadcastDivSlowQuantized` (int8).

use super::shared::broadcast::check_binary;
use super::shared::broadcast::{BinaryF32, BinaryI32, BinaryShape, broadcast, clamp_i32};
use super::shared::check::KernelError;
use super::shared::{Requant, activation_f32, fixed};

/// [`div_f32`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_div_f32(
    p: &BinaryF32,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// float DIV: TFLM's `reference_ops::Div` / `BroadcastDivSlow<float>`:
/// `ActivationFunctionWithMinMax(x / y)`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_div_f32`]) hold:
/// each slice holds its shape's element count; every input dimension equals the output's or is
/// 1.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn div_f32(
    p: &BinaryF32,
    input1: &[f32],
    input2: &[f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_div_f32(p, input1.len(), input2.len(), output.len())?;
    proven::div_f32(p, input1, input2, output);
    Ok(())
}

/// [`div_i32`]'s preconditions, as [`check_div_f32`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_div_i32(
    p: &BinaryI32,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// int32 DIV: TFLM's `reference_ops::Div` / `BroadcastDivSlow<int32_t>`:
/// `ActivationFunctionWithMinMax(x / y)`, the quotient truncated towards zero. A divisor of
/// 0, and `INT32_MIN / -1`, trap on x86-64 (TFLM's process dies); here they give 0 and
/// `INT32_MIN` (wrapping).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_div_i32`]) hold: as
/// [`div_f32`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn div_i32(
    p: &BinaryI32,
    input1: &[i32],
    input2: &[i32],
    output: &mut [i32],
) -> Result<(), KernelError> {
    check_div_i32(p, input1.len(), input2.len(), output.len())?;
    proven::div_i32(p, input1, input2, output);
    Ok(())
}

/// Parameters of an int8 DIV (TFLM's `OpDataDiv`).
#[derive(Clone, Copy, Debug)]
pub struct DivS8 {
    /// The shapes.
    pub shape: BinaryShape,
    /// Minus the first input's zero point.
    pub input1_offset: i32,
    /// Minus the second input's zero point.
    pub input2_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// `QuantizeMultiplier((double)(s1 / (s2 * so)))`, the product and quotient in float.
    pub output: Requant,
    /// Lower clamp of the quantised output (fused activation).
    pub act_min: i32,
    /// Upper clamp of the quantised output (fused activation).
    pub act_max: i32,
}

/// TFLM's `CountLeadingSignBits<int32_t>` (`__builtin_clrsb`, 31 for 0).
const fn count_leading_sign_bits(x: i32) -> i32 {
    let u = if x < 0 { !x } else { x };
    u.leading_zeros() as i32 - 1
}

/// gemmlowp's `RoundingDivideByPOT(int32_t x, int exponent)` as the x86-64 build of TFLM
/// computes it for every exponent: the mask `(1ll << exponent) - 1` in 64 bits narrowed to
/// 32, and `x >> exponent` with the shift count taken modulo 32 (x86's `sar`), the 64-bit
/// shift modulo 64 (`shl`). Exponents outside `0..=31` are undefined in C++; the int8 DIV
/// reaches them with large or small output multipliers.
const fn rounding_divide_by_pot_x86(x: i32, exponent: i32) -> i32 {
    let mask = (1_i64.wrapping_shl(exponent as u32)).wrapping_sub(1) as i32;
    let remainder = x & mask;
    let threshold = (mask >> 1).wrapping_add(if x < 0 { 1 } else { 0 });
    x.wrapping_shr(exponent as u32)
        .wrapping_add(if remainder > threshold { 1 } else { 0 })
}

/// One quotient of TFLM's `DivElementwise` (int8), clamped, before narrowing.
#[inline(always)]
fn div_quantized(p: &DivS8, x: i32, y: i32) -> i32 {
    let mut input1_val = p.input1_offset.wrapping_add(x);
    let mut input2_val = p.input2_offset.wrapping_add(y);
    if input2_val < 0 {
        // Invert signs so that the reciprocal is positive.
        input1_val = input1_val.wrapping_neg();
        input2_val = input2_val.wrapping_neg();
    }
    let (input2_inv, recip_shift) = fixed::get_reciprocal(input2_val, 31);
    let headroom = count_leading_sign_bits(input1_val);
    // MultiplyByQuantizedMultiplierGreaterThanOne: `x * (1 << headroom)` wraps at 31.
    let unscaled_quotient = fixed::saturating_rounding_doubling_high_mul(
        input1_val.wrapping_mul(1_i32.wrapping_shl(headroom as u32)),
        input2_inv,
    );
    let total_shift = p
        .output
        .shift
        .wrapping_sub(recip_shift)
        .wrapping_sub(headroom);
    // MultiplyByQuantizedMultiplierSmallerThanOneExp (double rounding).
    let scaled = rounding_divide_by_pot_x86(
        fixed::saturating_rounding_doubling_high_mul(unscaled_quotient, p.output.multiplier),
        total_shift.wrapping_neg(),
    );
    clamp_i32(p.output_offset.wrapping_add(scaled), p.act_min, p.act_max)
}

/// [`div_s8`]'s preconditions, as [`check_div_f32`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_div_s8(
    p: &DivS8,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// int8 DIV: TFLM's `DivElementwise` / `BroadcastDivSlowQuantized<int8_t>`: the offset
/// dividend, headroom-normalised, times the divisor's reciprocal (`GetReciprocal`), rescaled by
/// the output multiplier with the total shift, offset and clamped. A divisor equal to its zero
/// point takes TFLM's path with the reciprocal of 0 (undefined in C++), as x86-64 computes it.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_div_s8`]) hold: as
/// [`div_f32`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn div_s8(
    p: &DivS8,
    input1: &[i8],
    input2: &[i8],
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_div_s8(p, input1.len(), input2.len(), output.len())?;
    proven::div_s8(p, input1, input2, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`div_f32`](super::div_f32), its [`check`](super::check_div_f32) proven.
    #[inline]
    pub fn div_f32(p: &BinaryF32, input1: &[f32], input2: &[f32], output: &mut [f32]) {
        debug_assert!(super::check_div_f32(p, input1.len(), input2.len(), output.len()).is_ok());
        broadcast(&p.shape, input1, input2, output, |x, y| {
            activation_f32(x / y, p.act_min, p.act_max)
        });
    }

    /// [`div_i32`](super::div_i32), its [`check`](super::check_div_i32) proven.
    #[inline]
    pub fn div_i32(p: &BinaryI32, input1: &[i32], input2: &[i32], output: &mut [i32]) {
        debug_assert!(super::check_div_i32(p, input1.len(), input2.len(), output.len()).is_ok());
        broadcast(&p.shape, input1, input2, output, |x, y| {
            let q = if y == 0 { 0 } else { x.wrapping_div(y) };
            clamp_i32(q, p.act_min, p.act_max)
        });
    }

    /// [`div_s8`](super::div_s8), its [`check`](super::check_div_s8) proven.
    #[inline]
    pub fn div_s8(p: &DivS8, input1: &[i8], input2: &[i8], output: &mut [i8]) {
        debug_assert!(super::check_div_s8(p, input1.len(), input2.len(), output.len()).is_ok());
        broadcast(&p.shape, input1, input2, output, |x, y| {
            div_quantized(p, i32::from(x), i32::from(y)) as i8
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_bits() {
        assert_eq!(count_leading_sign_bits(0), 31);
        assert_eq!(count_leading_sign_bits(-1), 31);
        assert_eq!(count_leading_sign_bits(1), 30);
        assert_eq!(count_leading_sign_bits(255), 23);
        assert_eq!(count_leading_sign_bits(i32::MIN), 0);
    }

    #[test]
    fn pot_matches_gemmlowp_in_range() {
        for e in 0..32 {
            for x in [-1000, -3, -2, -1, 0, 1, 2, 3, 1000, i32::MAX, i32::MIN] {
                assert_eq!(
                    rounding_divide_by_pot_x86(x, e),
                    fixed::rounding_divide_by_pot(x, e)
                );
            }
        }
    }

    #[test]
    fn int32_quotients() {
        let shape = BinaryShape {
            input1: [1, 1, 1, 1, 1, 4],
            input2: [1, 1, 1, 1, 1, 4],
            output: [1, 1, 1, 1, 1, 4],
        };
        let p = BinaryI32 {
            shape,
            act_min: i32::MIN,
            act_max: i32::MAX,
        };
        let mut out = [0; 4];
        div_i32(&p, &[7, -7, i32::MIN, 5], &[2, 2, -1, 0], &mut out).unwrap();
        assert_eq!(out, [3, -3, i32::MIN, 0]);
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
        let q = DivS8 {
            shape,
            input1_offset: 0,
            input2_offset: 0,
            output_offset: 0,
            output: r,
            act_min: -128,
            act_max: 127,
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
            let r = div_s8(&q, &vec![0_i8; a], &vec![0_i8; b], &mut out);
            (r, untouched(&out, 7))
        });
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7; o];
            let r = div_i32(&ip, &vec![0_i32; a], &vec![0_i32; b], &mut out);
            (r, untouched(&out, 7))
        });
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7.0; o];
            let r = div_f32(&fp, &vec![0.0_f32; a], &vec![0.0_f32; b], &mut out);
            (r, untouched(&out, 7.0))
        });
        let mut out = [7.0_f32; 4];
        let bad = crate::kernels::BinaryF32 {
            shape: not_broadcast,
            ..fp
        };
        assert!(div_f32(&bad, &[0.0; 4], &[0.0; 3], &mut out).is_err());
        assert_eq!(out, [7.0; 4]);
    }
}
