//! ADD with broadcasting: TFLM's `reference_integer_ops::Add` / `BroadcastAdd6DSlow` and the
//! float `reference_ops` ones.

#[cfg(any(stowplan_dsp, test))]
pub(crate) mod dsp;
pub(crate) mod in_place;
pub mod kernel;

use super::shared::broadcast::{
    BinaryF32, BinaryI32, BinaryShape, broadcast, check_binary, clamp_i32,
};
use super::shared::check::{KernelError, require};
use super::shared::{Requant, activation_f32, fixed};

/// Parameters of an int8 ADD (TFLM's `OpDataAdd` for int8).
#[derive(Clone, Copy, Debug)]
pub struct AddS8 {
    /// The shapes.
    pub shape: BinaryShape,
    /// Left shift applied to both offset inputs (20 for int8).
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
    /// Output multiplier.
    pub output: Requant,
    /// Lower clamp of the quantised output (fused activation).
    pub act_min: i32,
    /// Upper clamp of the quantised output (fused activation).
    pub act_max: i32,
}

/// [`add_s8`]'s preconditions, on the lengths of its slices: what the entry checks before it
/// runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_add_s8(
    p: &AddS8,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// The preconditions of [`proven::add_s8_with`] with kernel `K` (one of [`kernel`]'s):
/// [`check_add_s8`]'s, and that the kernel is the layer's ([`kernel::add_s8_takes`]).
/// Generated code asserts it when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_add_s8_with<const K: u8>(
    p: &AddS8,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    match check_add_s8(p, input1, input2, output) {
        Ok(()) => require(
            kernel::add_s8_takes(K, p),
            "the chosen ADD kernel is not this layer's",
        ),
        Err(e) => Err(e),
    }
}

/// [`add_f32`]'s preconditions, on the lengths of its slices: what the entry checks before it
/// runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_add_f32(
    p: &BinaryF32,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// [`add_s16`]'s preconditions, on the lengths of its slices: what the entry checks before it
/// runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_add_s16(
    p: &AddS16,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// [`add_i32`]'s preconditions, on the lengths of its slices: what the entry checks before it
/// runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_add_i32(
    p: &BinaryI32,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`add_s8`](super::add_s8), its [`check`](super::check_add_s8) proven.
    pub fn add_s8(p: &AddS8, input1: &[i8], input2: &[i8], output: &mut [i8]) {
        add_s8_with::<{ kernel::ANY }>(p, input1, input2, output);
    }

    /// [`add_s8`](super::add_s8) with its loop chosen when the crate compiled (`K`, one of
    /// [`kernel`](super::kernel)'s, usually
    /// [`add_s8_kernel`](super::kernel::add_s8_kernel)'s choice): only that loop is linked. Its
    /// [`check`](super::check_add_s8_with) proven.
    pub fn add_s8_with<const K: u8>(p: &AddS8, input1: &[i8], input2: &[i8], output: &mut [i8]) {
        debug_assert!(
            super::check_add_s8_with::<K>(p, input1.len(), input2.len(), output.len()).is_ok()
        );
        #[cfg(stowplan_dsp)]
        if K != kernel::PORTABLE && dsp::add_s8::<K>(p, input1, input2, output) {
            return;
        }
        broadcast(&p.shape, input1, input2, output, |x, y| add_s8_one(p, x, y));
    }

    /// [`add_f32`](super::add_f32), its [`check`](super::check_add_f32) proven.
    pub fn add_f32(p: &BinaryF32, input1: &[f32], input2: &[f32], output: &mut [f32]) {
        debug_assert!(super::check_add_f32(p, input1.len(), input2.len(), output.len()).is_ok());
        broadcast(&p.shape, input1, input2, output, |x, y| {
            add_f32_one(p, x, y)
        });
    }

    /// [`add_s16`](super::add_s16), its [`check`](super::check_add_s16) proven.
    pub fn add_s16(p: &AddS16, input1: &[i16], input2: &[i16], output: &mut [i16]) {
        debug_assert!(super::check_add_s16(p, input1.len(), input2.len(), output.len()).is_ok());
        #[cfg(stowplan_dsp)]
        if dsp::add_s16(p, input1, input2, output) {
            return;
        }
        broadcast(&p.shape, input1, input2, output, |x, y| {
            add_s16_one(p, x, y)
        });
    }

    /// [`add_i32`](super::add_i32), its [`check`](super::check_add_i32) proven.
    pub fn add_i32(p: &BinaryI32, input1: &[i32], input2: &[i32], output: &mut [i32]) {
        debug_assert!(super::check_add_i32(p, input1.len(), input2.len(), output.len()).is_ok());
        broadcast(&p.shape, input1, input2, output, |x, y| {
            add_i32_one(p, x, y)
        });
    }
}

/// int8 ADD: TFLM's `AddFunc`: each offset input is shifted left by `left_shift`, scaled by
/// its multiplier, the two are summed, scaled by the output multiplier (all with
/// `MultiplyByQuantizedMultiplierSmallerThanOneExp`), offset and clamped.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_add_s8`]) hold:
/// each slice holds its shape's element count; every input dimension equals the output's or
/// is 1.
///
/// With cfg `stowplan_dsp` (Armv7E-M) same shapes and a scalar input run blocked, four
/// elements per load with the DSP extension's instructions (`dsp`); the outputs
/// are the same.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn add_s8(
    p: &AddS8,
    input1: &[i8],
    input2: &[i8],
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_add_s8(p, input1.len(), input2.len(), output.len())?;
    proven::add_s8(p, input1, input2, output);
    Ok(())
}

/// One element of [`add_s8`].
#[inline(always)]
pub(super) fn add_s8_one(p: &AddS8, x: i8, y: i8) -> i8 {
    // The clamp of TFLM's int8 kernels (`min(act_max, max(act_min, x))`), then the narrowing.
    add_quantized(p, i32::from(x), i32::from(y)) as i8
}

/// float ADD: TFLM's `reference_ops::Add` / `BroadcastAdd6DSlow` (float):
/// `ActivationFunctionWithMinMax(x + y)`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_add_f32`]) hold:
/// as [`add_s8`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn add_f32(
    p: &BinaryF32,
    input1: &[f32],
    input2: &[f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_add_f32(p, input1.len(), input2.len(), output.len())?;
    proven::add_f32(p, input1, input2, output);
    Ok(())
}

/// One element of [`add_f32`].
#[inline(always)]
pub(super) fn add_f32_one(p: &BinaryF32, x: f32, y: f32) -> f32 {
    activation_f32(x + y, p.act_min, p.act_max)
}

/// Parameters of an int16 ADD: TFLM's `OpDataAdd` for int16, the general path (`left_shift`
/// 15, clamps in the int16 range); the same fields as [`AddS8`].
pub type AddS16 = AddS8;

/// The quantised sum of TFLM's `AddFunc` / `AddElementwise` / `BroadcastAdd6DSlow` for small
/// integers, before narrowing: shifted, scaled, summed, rescaled, offset and clamped.
#[inline(always)]
pub(super) fn add_quantized(p: &AddS8, x: i32, y: i32) -> i32 {
    let input1_val = p.input1_offset.wrapping_add(x);
    let input2_val = p.input2_offset.wrapping_add(y);
    add_scaled(
        p,
        add_scale_input(p, p.input1, input1_val),
        add_scale_input(p, p.input2, input2_val),
    )
}

/// One input's term of [`add_quantized`]: its offset value (`input_offset + x`) shifted left by
/// `left_shift` and scaled by the input's multiplier `r`.
#[inline(always)]
pub(super) fn add_scale_input(p: &AddS8, r: Requant, input_val: i32) -> i32 {
    let shifted = input_val.wrapping_mul(1_i32.wrapping_shl(p.left_shift as u32));
    fixed::multiply_by_quantized_multiplier_smaller_than_one_exp(shifted, r.multiplier, r.shift)
}

/// The rest of [`add_quantized`] from the two inputs' terms ([`add_scale_input`]): summed,
/// rescaled, offset and clamped.
#[inline(always)]
pub(super) fn add_scaled(p: &AddS8, scaled_input1_val: i32, scaled_input2_val: i32) -> i32 {
    let scale = fixed::multiply_by_quantized_multiplier_smaller_than_one_exp;
    let raw_sum = scaled_input1_val.wrapping_add(scaled_input2_val);
    let raw_output =
        scale(raw_sum, p.output.multiplier, p.output.shift).wrapping_add(p.output_offset);
    clamp_i32(raw_output, p.act_min, p.act_max)
}

/// int16 ADD: TFLM's `reference_ops::AddGeneralParamScale` (same shapes; TFLM's micro ADD
/// passes `pot_scale = false`) and `BroadcastAdd6DSlow` for `int16_t`: [`add_s8`]'s arithmetic
/// with `left_shift` 15, the clamped result narrowed with `static_cast<int16_t>`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_add_s16`]) hold:
/// as [`add_s8`]'s.
///
/// With cfg `stowplan_dsp` (Armv7E-M) same shapes and a scalar input run blocked, four
/// elements (two words) of each input at once (`dsp`); the outputs are the same.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn add_s16(
    p: &AddS16,
    input1: &[i16],
    input2: &[i16],
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_add_s16(p, input1.len(), input2.len(), output.len())?;
    proven::add_s16(p, input1, input2, output);
    Ok(())
}

/// One element of [`add_s16`].
#[inline(always)]
pub(super) fn add_s16_one(p: &AddS16, x: i16, y: i16) -> i16 {
    add_quantized(p, i32::from(x), i32::from(y)) as i16
}

/// int32 ADD: TFLM's `reference_ops::Add` / `BroadcastAdd6DSlow` for `int32_t`:
/// `ActivationFunctionWithMinMax(x + y)`, the sum wrapping as the x86-64 build's (signed
/// overflow is undefined in C++). TFLM's micro ADD clamps int32 to the whole int32 range,
/// whatever the fused activation.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_add_i32`]) hold:
/// as [`add_s8`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn add_i32(
    p: &BinaryI32,
    input1: &[i32],
    input2: &[i32],
    output: &mut [i32],
) -> Result<(), KernelError> {
    check_add_i32(p, input1.len(), input2.len(), output.len())?;
    proven::add_i32(p, input1, input2, output);
    Ok(())
}

/// One element of [`add_i32`].
#[inline(always)]
pub(super) fn add_i32_one(p: &BinaryI32, x: i32, y: i32) -> i32 {
    clamp_i32(x.wrapping_add(y), p.act_min, p.act_max)
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::vec;

    /// Each ADD kernel refuses, writing nothing, a slice of the wrong length (either
    /// input, the output) and an input dimension neither the output's nor 1; its one-buffer
    /// entry a broadcast first input, a tensor past the buffer's end, and an input below the
    /// output that reaches into it.
    #[test]
    fn refused_calls_write_nothing() {
        let shape = BinaryShape {
            input1: [1, 1, 1, 1, 2, 3],
            input2: [1, 1, 1, 1, 1, 3],
            output: [1, 1, 1, 1, 2, 3],
        };
        let wide = BinaryShape {
            input2: [1, 1, 1, 1, 1, 4],
            ..shape
        };
        let broadcast1 = BinaryShape {
            input1: [1, 1, 1, 1, 1, 3],
            ..shape
        };
        let r = Requant {
            multiplier: 1 << 30,
            shift: 0,
        };
        let s8 = AddS8 {
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
        let float = BinaryF32 {
            shape,
            act_min: f32::MIN,
            act_max: f32::MAX,
        };
        let int = BinaryI32 {
            shape,
            act_min: i32::MIN,
            act_max: i32::MAX,
        };
        macro_rules! refused {
            ($f:ident, $check:ident, $p:expr, $t:ty) => {
                let p = $p;
                let cases = [
                    (shape, 5, 3, 6, Some("input1")),
                    (shape, 6, 4, 6, Some("input2")),
                    (shape, 6, 3, 5, Some("output")),
                    (wide, 6, 4, 6, None),
                ];
                for (sh, n1, n2, m, why) in cases {
                    let q = {
                        let mut q = p;
                        q.shape = sh;
                        q
                    };
                    let (x1, x2) = (vec![<$t>::default(); n1], vec![<$t>::default(); n2]);
                    let mut out = vec![<$t>::from(7_i8); m];
                    let e = $f(&q, &x1, &x2, &mut out);
                    assert_eq!(e, $check(&q, n1, n2, m));
                    match why {
                        Some(why) => assert!(
                            matches!(e, Err(KernelError::Length { operand, .. }) if operand == why),
                            "{} {why}: {e:?}",
                            stringify!($f)
                        ),
                        None => assert!(matches!(e, Err(KernelError::Parameters(_)))),
                    }
                    assert!(out.iter().all(|&v| v == <$t>::from(7_i8)));
                }
                // One buffer: the first input broadcast, past the end, below and overlapping.
                let x2 = [<$t>::default(); 3];
                let mut q = p;
                q.shape = broadcast1;
                for (q, len, ia, oa) in [(q, 12, 6, 0), (p, 11, 6, 0), (p, 12, 0, 1)] {
                    let mut buf = vec![<$t>::from(7_i8); len];
                    let e = in_place::$f(&q, &mut buf, ia, oa, &x2);
                    assert_eq!(e, Err(KernelError::Placement), "{} one buffer", stringify!($f));
                    assert!(buf.iter().all(|&v| v == <$t>::from(7_i8)));
                }
                let mut buf = vec![<$t>::from(7_i8); 6];
                in_place::$f(&p, &mut buf, 0, 0, &x2).unwrap();
                assert!(matches!(
                    in_place::$f(&p, &mut buf, 0, 0, &x2[..2]),
                    Err(KernelError::Length { operand: "input2", .. })
                ));
            };
        }
        refused!(add_s8, check_add_s8, s8, i8);
        refused!(add_s16, check_add_s16, s8, i16);
        refused!(add_i32, check_add_i32, int, i32);
        refused!(add_f32, check_add_f32, float, f32);
    }
}
