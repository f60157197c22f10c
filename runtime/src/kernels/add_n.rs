//! ADD_N: TFLM's `reference_ops::AddN` (float) and its int8 overload (every input rescaled
//! like ADD's, summed in int32, rescaled to the output).

use super::shared::broadcast::clamp_i32;
use super::shared::check::{KernelError, check, length};
use super::shared::{Requant, at, fixed};

/// [`add_n_f32`]'s preconditions, on each input's length (`inputs[i]`) and the output's: what
/// the entry checks before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_add_n_f32(inputs: &[usize], output: usize) -> Result<(), KernelError> {
    let mut i = 0;
    while i < inputs.len() {
        check!(length("input", Some(output), inputs[i]));
        i += 1;
    }
    Ok(())
}

/// [`check_add_n_f32`] on the slices themselves (the entries' check).
fn check_add_n_slices<T>(inputs: &[&[T]], output: &[T]) -> Result<(), KernelError> {
    for input in inputs {
        length("input", Some(output.len()), input.len())?;
    }
    Ok(())
}

/// float ADD_N: TFLM's `AddN<float>`: per element `x = 0; x += input_j[i]` for every input in
/// order (so the sum starts from `+0.0`).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_add_n_f32`]) hold:
/// every input holds `output.len()` elements.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn add_n_f32(inputs: &[&[f32]], output: &mut [f32]) -> Result<(), KernelError> {
    check_add_n_slices(inputs, output)?;
    proven::add_n_f32(inputs, output);
    Ok(())
}

/// Parameters of an int8 ADD_N (TFLM's `OpData` in `add_n.cc`).
#[derive(Clone, Copy, Debug)]
pub struct AddNS8 {
    /// 20.
    pub left_shift: i32,
    /// Minus the inputs' zero point (all inputs share it).
    pub input_offset: i32,
    /// The inputs' multiplier (1/2: `QuantizeMultiplierSmallerThanOneExp`).
    pub input: Requant,
    /// The output zero point.
    pub output_offset: i32,
    /// Output multiplier (`QuantizeMultiplierSmallerThanOneExp`).
    pub output: Requant,
    /// Lower clamp (no activation: the int8 range).
    pub act_min: i32,
    /// Upper clamp.
    pub act_max: i32,
}

/// [`add_n_s8`]'s preconditions, as [`check_add_n_f32`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_add_n_s8(
    _p: &AddNS8,
    inputs: &[usize],
    output: usize,
) -> Result<(), KernelError> {
    check_add_n_f32(inputs, output)
}

/// int8 ADD_N: TFLM's `AddN(ArithmeticParams, ...)`: per element the scaled offset of 0
/// (`x = input_offset`), plus every input offset, shifted left by `left_shift` and scaled
/// (`MultiplyByQuantizedMultiplierSmallerThanOneExp`), the sum scaled by the output multiplier,
/// offset, clamped and narrowed.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_add_n_s8`]) hold:
/// every input holds `output.len()` elements.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn add_n_s8(p: &AddNS8, inputs: &[&[i8]], output: &mut [i8]) -> Result<(), KernelError> {
    check_add_n_slices(inputs, output)?;
    proven::add_n_s8(p, inputs, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    use super::{AddNS8, at, clamp_i32, fixed};

    /// [`add_n_f32`](super::add_n_f32), its [`check`](super::check_add_n_f32) proven.
    #[inline]
    pub fn add_n_f32(inputs: &[&[f32]], output: &mut [f32]) {
        debug_assert!(super::check_add_n_slices(inputs, output).is_ok());
        for (i, o) in output.iter_mut().enumerate() {
            let mut x = 0.0_f32;
            for input in inputs {
                x += at(input, i);
            }
            *o = x;
        }
    }

    /// [`add_n_s8`](super::add_n_s8), its [`check`](super::check_add_n_s8) proven.
    #[inline]
    pub fn add_n_s8(p: &AddNS8, inputs: &[&[i8]], output: &mut [i8]) {
        debug_assert!(super::check_add_n_slices(inputs, output).is_ok());
        let scale = fixed::multiply_by_quantized_multiplier_smaller_than_one_exp;
        let shift = |v: i32| v.wrapping_mul(1_i32.wrapping_shl(p.left_shift as u32));
        let scaled = |v: i32| scale(shift(v), p.input.multiplier, p.input.shift);
        let start = scaled(p.input_offset);
        for (i, o) in output.iter_mut().enumerate() {
            let mut scaled_x = start;
            for input in inputs {
                let y = p.input_offset.wrapping_add(i32::from(at(input, i)));
                scaled_x = scaled_x.wrapping_add(scaled(y));
            }
            let raw_output =
                scale(scaled_x, p.output.multiplier, p.output.shift).wrapping_add(p.output_offset);
            *o = clamp_i32(raw_output, p.act_min, p.act_max) as i8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_sum_starts_from_positive_zero() {
        let (a, b) = ([-0.0_f32, 1.5], [-0.0_f32, 2.25]);
        let mut out = [1.0_f32; 2];
        add_n_f32(&[&a, &b], &mut out).unwrap();
        assert_eq!(out[0].to_bits(), 0.0_f32.to_bits());
        assert_eq!(out[1], 3.75);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        refuses([3, 3, 3], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7.0_f32; o];
            (
                add_n_f32(&[&vec![0.0; a], &vec![0.0; b]], &mut out),
                untouched(&out, 7.0),
            )
        });
        let r = crate::kernels::Requant {
            multiplier: 1 << 30,
            shift: 0,
        };
        let p = AddNS8 {
            left_shift: 20,
            input_offset: 0,
            input: r,
            output_offset: 0,
            output: r,
            act_min: -128,
            act_max: 127,
        };
        refuses([3, 3, 3], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7_i8; o];
            (
                add_n_s8(&p, &[&vec![0; a], &vec![0; b]], &mut out),
                untouched(&out, 7),
            )
        });
    }
}
