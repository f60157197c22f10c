//! SQUARED_DIFFERENCE with broadcasting: TFLM's `squared_difference.cc` (`SquaredDifference`
//! for float and int32 through `BinaryFunction` / `BroadcastBinaryFunction4DSlow`, and the
//! quantised one for int8 and int16 through `ElementWise` / `BroadcastBinaryFunction4DSlow`).

use super::shared::broadcast::check_binary;
use super::shared::broadcast::{BinaryShape, broadcast, clamp_i32};
use super::shared::check::KernelError;
use super::shared::{Requant, fixed};

/// [`squared_difference_f32`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_squared_difference_f32(
    p: &BinaryShape,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(p, input1, input2, output)
}

/// float SQUARED_DIFFERENCE: `d = x - y; d * d`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_squared_difference_f32`]) hold: each slice holds its shape's element count; every
/// input dimension equals the output's or is 1.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn squared_difference_f32(
    p: &BinaryShape,
    input1: &[f32],
    input2: &[f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_squared_difference_f32(p, input1.len(), input2.len(), output.len())?;
    proven::squared_difference_f32(p, input1, input2, output);
    Ok(())
}

/// [`squared_difference_i32`]'s preconditions, as [`check_squared_difference_f32`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_squared_difference_i32(
    p: &BinaryShape,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(p, input1, input2, output)
}

/// int32 SQUARED_DIFFERENCE: `d = x - y; d * d`, both wrapping as the x86-64 build's.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_squared_difference_i32`]) hold: as [`squared_difference_f32`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn squared_difference_i32(
    p: &BinaryShape,
    input1: &[i32],
    input2: &[i32],
    output: &mut [i32],
) -> Result<(), KernelError> {
    check_squared_difference_i32(p, input1.len(), input2.len(), output.len())?;
    proven::squared_difference_i32(p, input1, input2, output);
    Ok(())
}

/// Parameters of a quantised SQUARED_DIFFERENCE (TFLM's `ArithmeticParams` from
/// `PrepareQuantized`).
#[derive(Clone, Copy, Debug)]
pub struct SquaredDifferenceQuant {
    /// The shapes.
    pub shape: BinaryShape,
    /// 7 for int8, 0 for int16.
    pub left_shift: i32,
    /// Minus the first input's zero point.
    pub input1_offset: i32,
    /// First input's multiplier (`QuantizeMultiplierSmallerThanOneExp`).
    pub input1: Requant,
    /// Minus the second input's zero point.
    pub input2_offset: i32,
    /// Second input's multiplier.
    pub input2: Requant,
    /// The output zero point.
    pub output_offset: i32,
    /// Output multiplier (`QuantizeMultiplier`).
    pub output: Requant,
    /// Lower clamp (the type's minimum).
    pub act_min: i32,
    /// Upper clamp (the type's maximum).
    pub act_max: i32,
}

/// TFLM's quantised `SquaredDifference(x, y, params)`, clamped.
#[inline(always)]
fn squared_difference_quantized(p: &SquaredDifferenceQuant, x: i32, y: i32) -> i32 {
    let scale = fixed::multiply_by_quantized_multiplier_smaller_than_one_exp;
    let shift = |v: i32| v.wrapping_mul(1_i32.wrapping_shl(p.left_shift as u32));
    let shifted_input1_val = shift(p.input1_offset.wrapping_add(x));
    let shifted_input2_val = shift(p.input2_offset.wrapping_add(y));
    let scaled_input1_val = scale(shifted_input1_val, p.input1.multiplier, p.input1.shift);
    let scaled_input2_val = scale(shifted_input2_val, p.input2.multiplier, p.input2.shift);
    let raw_diff = scaled_input1_val.wrapping_sub(scaled_input2_val);
    let squared_raw_diff = raw_diff.wrapping_mul(raw_diff);
    let raw_output = p
        .output
        .apply(squared_raw_diff)
        .wrapping_add(p.output_offset);
    clamp_i32(raw_output, p.act_min, p.act_max)
}

/// [`squared_difference_s8`]'s preconditions, as [`check_squared_difference_f32`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_squared_difference_s8(
    p: &SquaredDifferenceQuant,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// int8 SQUARED_DIFFERENCE: each offset input shifted left by `left_shift` (7) and scaled by
/// its multiplier (`MultiplyByQuantizedMultiplierSmallerThanOneExp`), the difference squared,
/// scaled by the output multiplier (`MultiplyByQuantizedMultiplier`), offset, clamped and
/// narrowed.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_squared_difference_s8`]) hold: as [`squared_difference_f32`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn squared_difference_s8(
    p: &SquaredDifferenceQuant,
    input1: &[i8],
    input2: &[i8],
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_squared_difference_s8(p, input1.len(), input2.len(), output.len())?;
    proven::squared_difference_s8(p, input1, input2, output);
    Ok(())
}

/// [`squared_difference_s16`]'s preconditions, as [`check_squared_difference_f32`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_squared_difference_s16(
    p: &SquaredDifferenceQuant,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// int16 SQUARED_DIFFERENCE: [`squared_difference_s8`]'s arithmetic with `left_shift` 0.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_squared_difference_s16`]) hold: as [`squared_difference_f32`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn squared_difference_s16(
    p: &SquaredDifferenceQuant,
    input1: &[i16],
    input2: &[i16],
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_squared_difference_s16(p, input1.len(), input2.len(), output.len())?;
    proven::squared_difference_s16(p, input1, input2, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`squared_difference_f32`](super::squared_difference_f32), its [`check`](super::check_squared_difference_f32) proven.
    #[inline]
    pub fn squared_difference_f32(
        p: &BinaryShape,
        input1: &[f32],
        input2: &[f32],
        output: &mut [f32],
    ) {
        debug_assert!(
            super::check_squared_difference_f32(p, input1.len(), input2.len(), output.len())
                .is_ok()
        );
        broadcast(p, input1, input2, output, |x, y| {
            let d = x - y;
            d * d
        });
    }

    /// [`squared_difference_i32`](super::squared_difference_i32), its [`check`](super::check_squared_difference_i32) proven.
    #[inline]
    pub fn squared_difference_i32(
        p: &BinaryShape,
        input1: &[i32],
        input2: &[i32],
        output: &mut [i32],
    ) {
        debug_assert!(
            super::check_squared_difference_i32(p, input1.len(), input2.len(), output.len())
                .is_ok()
        );
        broadcast(p, input1, input2, output, |x, y| {
            let d = x.wrapping_sub(y);
            d.wrapping_mul(d)
        });
    }

    /// [`squared_difference_s8`](super::squared_difference_s8), its [`check`](super::check_squared_difference_s8) proven.
    #[inline]
    pub fn squared_difference_s8(
        p: &SquaredDifferenceQuant,
        input1: &[i8],
        input2: &[i8],
        output: &mut [i8],
    ) {
        debug_assert!(
            super::check_squared_difference_s8(p, input1.len(), input2.len(), output.len()).is_ok()
        );
        broadcast(&p.shape, input1, input2, output, |x, y| {
            squared_difference_quantized(p, i32::from(x), i32::from(y)) as i8
        });
    }

    /// [`squared_difference_s16`](super::squared_difference_s16), its [`check`](super::check_squared_difference_s16) proven.
    #[inline]
    pub fn squared_difference_s16(
        p: &SquaredDifferenceQuant,
        input1: &[i16],
        input2: &[i16],
        output: &mut [i16],
    ) {
        debug_assert!(
            super::check_squared_difference_s16(p, input1.len(), input2.len(), output.len())
                .is_ok()
        );
        broadcast(&p.shape, input1, input2, output, |x, y| {
            squared_difference_quantized(p, i32::from(x), i32::from(y)) as i16
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let q = SquaredDifferenceQuant {
            shape,
            left_shift: 7,
            input1_offset: 0,
            input1: r,
            input2_offset: 0,
            input2: r,
            output_offset: 0,
            output: r,
            act_min: -128,
            act_max: 127,
        };
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7; o];
            let r = squared_difference_s8(&q, &vec![0_i8; a], &vec![0_i8; b], &mut out);
            (r, untouched(&out, 7))
        });
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7; o];
            let r = squared_difference_s16(&q, &vec![0_i16; a], &vec![0_i16; b], &mut out);
            (r, untouched(&out, 7))
        });
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7; o];
            let r = squared_difference_i32(&shape, &vec![0_i32; a], &vec![0_i32; b], &mut out);
            (r, untouched(&out, 7))
        });
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7.0; o];
            let r = squared_difference_f32(&shape, &vec![0.0_f32; a], &vec![0.0_f32; b], &mut out);
            (r, untouched(&out, 7.0))
        });
        let mut out = [7_i32; 4];
        assert!(squared_difference_i32(&not_broadcast, &[0; 4], &[0; 3], &mut out).is_err());
        assert_eq!(out, [7; 4]);
    }
}
