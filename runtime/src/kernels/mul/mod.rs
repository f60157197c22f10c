//! MUL with broadcasting: TFLM's `reference_integer_ops::Mul` / `BroadcastMul6DSlow` and the
//! float `reference_ops` ones.

#[cfg(any(stowplan_dsp, test))]
mod dsp;
pub(crate) mod in_place;

use super::shared::broadcast::{
    BinaryF32, BinaryI32, BinaryShape, broadcast, check_binary, clamp_i32,
};
use super::shared::check::KernelError;
use super::shared::{Requant, activation_f32};

/// Parameters of an int8 MUL (TFLM's `OpDataMul` for int8).
#[derive(Clone, Copy, Debug)]
pub struct MulS8 {
    /// The shapes.
    pub shape: BinaryShape,
    /// Minus the first input's zero point.
    pub input1_offset: i32,
    /// Minus the second input's zero point.
    pub input2_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// `QuantizeMultiplier(input1_scale * input2_scale / output_scale)`.
    pub output: Requant,
    /// Lower clamp of the quantised output (fused activation).
    pub act_min: i32,
    /// Upper clamp of the quantised output (fused activation).
    pub act_max: i32,
}

/// [`mul_s8`]'s preconditions, on the lengths of its slices: what the entry checks before it
/// runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_mul_s8(
    p: &MulS8,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// [`mul_f32`]'s preconditions, on the lengths of its slices: what the entry checks before it
/// runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_mul_f32(
    p: &BinaryF32,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// [`mul_s16`]'s preconditions, on the lengths of its slices: what the entry checks before it
/// runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_mul_s16(
    p: &MulS16,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// [`mul_i32`]'s preconditions, on the lengths of its slices: what the entry checks before it
/// runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_mul_i32(
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

    /// [`mul_s8`](super::mul_s8), its [`check`](super::check_mul_s8) proven.
    pub fn mul_s8(p: &MulS8, input1: &[i8], input2: &[i8], output: &mut [i8]) {
        debug_assert!(super::check_mul_s8(p, input1.len(), input2.len(), output.len()).is_ok());
        #[cfg(stowplan_dsp)]
        if dsp::mul_s8(p, input1, input2, output) {
            return;
        }
        broadcast(&p.shape, input1, input2, output, |x, y| mul_s8_one(p, x, y));
    }

    /// [`mul_f32`](super::mul_f32), its [`check`](super::check_mul_f32) proven.
    pub fn mul_f32(p: &BinaryF32, input1: &[f32], input2: &[f32], output: &mut [f32]) {
        debug_assert!(super::check_mul_f32(p, input1.len(), input2.len(), output.len()).is_ok());
        broadcast(&p.shape, input1, input2, output, |x, y| {
            mul_f32_one(p, x, y)
        });
    }

    /// [`mul_s16`](super::mul_s16), its [`check`](super::check_mul_s16) proven.
    pub fn mul_s16(p: &MulS16, input1: &[i16], input2: &[i16], output: &mut [i16]) {
        debug_assert!(super::check_mul_s16(p, input1.len(), input2.len(), output.len()).is_ok());
        #[cfg(stowplan_dsp)]
        if dsp::mul_s16(p, input1, input2, output) {
            return;
        }
        broadcast(&p.shape, input1, input2, output, |x, y| {
            mul_s16_one(p, x, y)
        });
    }

    /// [`mul_i32`](super::mul_i32), its [`check`](super::check_mul_i32) proven.
    pub fn mul_i32(p: &BinaryI32, input1: &[i32], input2: &[i32], output: &mut [i32]) {
        debug_assert!(super::check_mul_i32(p, input1.len(), input2.len(), output.len()).is_ok());
        broadcast(&p.shape, input1, input2, output, |x, y| {
            mul_i32_one(p, x, y)
        });
    }
}

/// int8 MUL: TFLM's `MulElementwise`: `output_offset + MultiplyByQuantizedMultiplier((x +
/// input1_offset) * (y + input2_offset))`, clamped.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_mul_s8`])
/// hold: each slice holds its shape's element count; every input dimension equals the
/// output's or is 1.
///
/// With cfg `stowplan_dsp` (Armv7E-M) same shapes and a scalar input run blocked, four
/// elements per load and two products per pair of instructions with the DSP extension
/// (`dsp`); the outputs are the same.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn mul_s8(
    p: &MulS8,
    input1: &[i8],
    input2: &[i8],
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_mul_s8(p, input1.len(), input2.len(), output.len())?;
    proven::mul_s8(p, input1, input2, output);
    Ok(())
}

/// The quantised product of TFLM's `MulElementwise` / `BroadcastMul6DSlow` for small integers,
/// before narrowing: offset, multiplied, rescaled, offset and clamped.
#[inline(always)]
fn mul_quantized(p: &MulS8, x: i32, y: i32) -> i32 {
    let input1_val = p.input1_offset.wrapping_add(x);
    let input2_val = p.input2_offset.wrapping_add(y);
    mul_product(p, input1_val.wrapping_mul(input2_val))
}

/// The rest of [`mul_quantized`] from the product of the two offset values: rescaled, offset
/// and clamped.
#[inline(always)]
pub(super) fn mul_product(p: &MulS8, product: i32) -> i32 {
    let unclamped = p.output_offset.wrapping_add(p.output.apply(product));
    clamp_i32(unclamped, p.act_min, p.act_max)
}

/// One element of [`mul_s8`].
#[inline(always)]
pub(super) fn mul_s8_one(p: &MulS8, x: i8, y: i8) -> i8 {
    // The clamp of TFLM's int8 kernels (`min(act_max, max(act_min, x))`), then the narrowing.
    mul_quantized(p, i32::from(x), i32::from(y)) as i8
}

/// float MUL: TFLM's `reference_ops::Mul` / `BroadcastMul6DSlow` (float):
/// `ActivationFunctionWithMinMax(x * y)`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_mul_f32`])
/// hold: each slice holds its shape's element count; every input dimension equals the
/// output's or is 1.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn mul_f32(
    p: &BinaryF32,
    input1: &[f32],
    input2: &[f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_mul_f32(p, input1.len(), input2.len(), output.len())?;
    proven::mul_f32(p, input1, input2, output);
    Ok(())
}

/// One element of [`mul_f32`].
#[inline(always)]
pub(super) fn mul_f32_one(p: &BinaryF32, x: f32, y: f32) -> f32 {
    activation_f32(x * y, p.act_min, p.act_max)
}

/// Parameters of an int16 MUL (TFLM's `OpDataMul` for int16: zero points 0); the fields of
/// [`MulS8`].
pub type MulS16 = MulS8;

/// int16 MUL: TFLM's `reference_integer_ops::Mul` / `BroadcastMul6DSlow` for `int16_t`:
/// [`mul_s8`]'s arithmetic, clamped into the int16 activation range and narrowed.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_mul_s16`])
/// hold: each slice holds its shape's element count; every input dimension equals the
/// output's or is 1.
///
/// With cfg `stowplan_dsp` (Armv7E-M) same shapes and a scalar input with both offsets 0 run
/// blocked, two products per pair of instructions with the DSP extension
/// (`dsp`); the outputs are the same.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn mul_s16(
    p: &MulS16,
    input1: &[i16],
    input2: &[i16],
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_mul_s16(p, input1.len(), input2.len(), output.len())?;
    proven::mul_s16(p, input1, input2, output);
    Ok(())
}

/// One element of [`mul_s16`].
#[inline(always)]
pub(super) fn mul_s16_one(p: &MulS16, x: i16, y: i16) -> i16 {
    mul_quantized(p, i32::from(x), i32::from(y)) as i16
}

/// int32 MUL: TFLM's `reference_ops::Mul` / `BroadcastMul6DSlow` for `int32_t`:
/// `ActivationFunctionWithMinMax(WrappingMul(x, y))` with the fused activation's int32 range.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_mul_i32`])
/// hold: each slice holds its shape's element count; every input dimension equals the
/// output's or is 1.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn mul_i32(
    p: &BinaryI32,
    input1: &[i32],
    input2: &[i32],
    output: &mut [i32],
) -> Result<(), KernelError> {
    check_mul_i32(p, input1.len(), input2.len(), output.len())?;
    proven::mul_i32(p, input1, input2, output);
    Ok(())
}

/// One element of [`mul_i32`].
#[inline(always)]
pub(super) fn mul_i32_one(p: &BinaryI32, x: i32, y: i32) -> i32 {
    clamp_i32(x.wrapping_mul(y), p.act_min, p.act_max)
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::vec;

    /// Each MUL kernel refuses, writing nothing, a slice of the wrong length (either
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
        let s8 = MulS8 {
            shape,
            input1_offset: 0,
            input2_offset: 0,
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
        refused!(mul_s8, check_mul_s8, s8, i8);
        refused!(mul_s16, check_mul_s16, s8, i16);
        refused!(mul_i32, check_mul_i32, int, i32);
        refused!(mul_f32, check_mul_f32, float, f32);
    }
}
