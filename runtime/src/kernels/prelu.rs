//! PRELU with the alphas broadcast to the input: TFLM's `BroadcastPrelu4DSlowFloat`
//! (`prelu_common.cc`) and `reference_ops::BroadcastPrelu4DSlow` (int8 input with int8
//! alphas, int16 input with int8 alphas).

use super::shared::Requant;
use super::shared::broadcast::check_binary;
use super::shared::broadcast::{BinaryShape, broadcast, broadcast_mixed, clamp_i32};
use super::shared::check::KernelError;

/// [`prelu_f32`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_prelu_f32(
    p: &BinaryShape,
    input: usize,
    alpha: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(p, input, alpha, output)
}

/// float PRELU: `x >= 0 ? x : x * alpha`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_prelu_f32`]) hold:
/// each slice holds its shape's element count; every input dimension equals the output's or is
/// 1.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn prelu_f32(
    p: &BinaryShape,
    input: &[f32],
    alpha: &[f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_prelu_f32(p, input.len(), alpha.len(), output.len())?;
    proven::prelu_f32(p, input, alpha, output);
    Ok(())
}

/// Parameters of a quantised PRELU (TFLM's `PreluParams` from `CalculatePreluParams`).
#[derive(Clone, Copy, Debug)]
pub struct PreluQuant {
    /// The shapes (input, alpha, output).
    pub shape: BinaryShape,
    /// Minus the input zero point.
    pub input_offset: i32,
    /// Minus the alpha zero point.
    pub alpha_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// `QuantizeMultiplier(input_scale / output_scale)`, for non-negative inputs.
    pub output1: Requant,
    /// `QuantizeMultiplier(input_scale * alpha_scale / output_scale)`, for negative ones.
    pub output2: Requant,
}

/// TFLM's quantised PRELU of one element, before clamping.
#[inline(always)]
fn prelu_quantized(p: &PreluQuant, x: i32, a: i32) -> i32 {
    let input_value = p.input_offset.wrapping_add(x);
    let output_value = if input_value >= 0 {
        p.output1.apply(input_value)
    } else {
        let alpha_value = p.alpha_offset.wrapping_add(a);
        p.output2.apply(input_value.wrapping_mul(alpha_value))
    };
    output_value.wrapping_add(p.output_offset)
}

/// [`prelu_s8`]'s preconditions, as [`check_prelu_f32`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_prelu_s8(
    p: &PreluQuant,
    input: usize,
    alpha: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input, alpha, output)
}

/// int8 PRELU: the offset input times the first multiplier where it is non-negative, else the
/// offset input times the offset alpha times the second multiplier
/// (`MultiplyByQuantizedMultiplier`), offset and clamped to int8.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_prelu_s8`]) hold:
/// as [`prelu_f32`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn prelu_s8(
    p: &PreluQuant,
    input: &[i8],
    alpha: &[i8],
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_prelu_s8(p, input.len(), alpha.len(), output.len())?;
    proven::prelu_s8(p, input, alpha, output);
    Ok(())
}

/// [`prelu_s16`]'s preconditions, as [`check_prelu_f32`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_prelu_s16(
    p: &PreluQuant,
    input: usize,
    alpha: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input, alpha, output)
}

/// int16 PRELU with int8 alphas: [`prelu_s8`]'s arithmetic, clamped to int16.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_prelu_s16`]) hold:
/// as [`prelu_f32`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn prelu_s16(
    p: &PreluQuant,
    input: &[i16],
    alpha: &[i8],
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_prelu_s16(p, input.len(), alpha.len(), output.len())?;
    proven::prelu_s16(p, input, alpha, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`prelu_f32`](super::prelu_f32), its [`check`](super::check_prelu_f32) proven.
    #[inline]
    pub fn prelu_f32(p: &BinaryShape, input: &[f32], alpha: &[f32], output: &mut [f32]) {
        debug_assert!(super::check_prelu_f32(p, input.len(), alpha.len(), output.len()).is_ok());
        broadcast(
            p,
            input,
            alpha,
            output,
            |x, a| if x >= 0.0 { x } else { x * a },
        );
    }

    /// [`prelu_s8`](super::prelu_s8), its [`check`](super::check_prelu_s8) proven.
    #[inline]
    pub fn prelu_s8(p: &PreluQuant, input: &[i8], alpha: &[i8], output: &mut [i8]) {
        debug_assert!(super::check_prelu_s8(p, input.len(), alpha.len(), output.len()).is_ok());
        broadcast(&p.shape, input, alpha, output, |x, a| {
            clamp_i32(prelu_quantized(p, i32::from(x), i32::from(a)), -128, 127) as i8
        });
    }

    /// [`prelu_s16`](super::prelu_s16), its [`check`](super::check_prelu_s16) proven.
    #[inline]
    pub fn prelu_s16(p: &PreluQuant, input: &[i16], alpha: &[i8], output: &mut [i16]) {
        debug_assert!(super::check_prelu_s16(p, input.len(), alpha.len(), output.len()).is_ok());
        broadcast_mixed(&p.shape, input, alpha, output, |x, a| {
            clamp_i32(
                prelu_quantized(p, i32::from(x), i32::from(a)),
                i32::from(i16::MIN),
                i32::from(i16::MAX),
            ) as i16
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
        let q = PreluQuant {
            shape,
            input_offset: 0,
            alpha_offset: 0,
            output_offset: 0,
            output1: r,
            output2: r,
        };
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7.0; o];
            let r = prelu_f32(&shape, &vec![0.0_f32; a], &vec![0.0_f32; b], &mut out);
            (r, untouched(&out, 7.0))
        });
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7; o];
            let r = prelu_s8(&q, &vec![0_i8; a], &vec![0_i8; b], &mut out);
            (r, untouched(&out, 7))
        });
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7_i16; o];
            (
                prelu_s16(&q, &vec![0; a], &vec![0; b], &mut out),
                untouched(&out, 7),
            )
        });
        let mut out = [7.0_f32; 4];
        assert!(prelu_f32(&not_broadcast, &[0.0; 4], &[0.0; 3], &mut out).is_err());
        assert_eq!(out, [7.0; 4]);
    }
}
