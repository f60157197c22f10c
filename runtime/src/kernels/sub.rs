//! SUB with broadcasting: TFLM's `reference_ops::Sub` / `SubElementwise` /
//! `BroadcastQuantSubSlow` (int8, int16), `SubWithActivation` / `BroadcastSubSlow` (int32,
//! float).

use super::add::AddS8;
use super::shared::broadcast::{BinaryF32, BinaryI32, broadcast, clamp_i32};
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

/// int8 SUB: TFLM's `SubElementwise` (same shapes) and `BroadcastQuantSubSlow<int8_t>`: each
/// offset input shifted left by `left_shift` and scaled by its multiplier, the difference
/// scaled by the output multiplier (all `MultiplyByQuantizedMultiplierSmallerThanOneExp`),
/// offset, clamped and narrowed.
///
/// # Preconditions
///
/// Each slice holds its shape's element count; every input dimension equals the output's or
/// is 1.
pub fn sub_s8(p: &SubQuant, input1: &[i8], input2: &[i8], output: &mut [i8]) {
    broadcast(&p.shape, input1, input2, output, |x, y| {
        sub_quantized(p, i32::from(x), i32::from(y)) as i8
    });
}

/// int16 SUB: [`sub_s8`]'s arithmetic on `int16_t` (TFLM's `Sub` for int16 and
/// `BroadcastQuantSubSlow<int16_t>`; `left_shift` 15).
///
/// # Preconditions
///
/// As [`sub_s8`].
pub fn sub_s16(p: &SubQuant, input1: &[i16], input2: &[i16], output: &mut [i16]) {
    broadcast(&p.shape, input1, input2, output, |x, y| {
        sub_quantized(p, i32::from(x), i32::from(y)) as i16
    });
}

/// int32 SUB: TFLM's `SubWithActivation` / `BroadcastSubSlow<int32_t>`:
/// `ActivationFunctionWithMinMax(x - y)` with the fused activation's int32 range, the
/// difference wrapping as the x86-64 build's.
///
/// # Preconditions
///
/// As [`sub_s8`].
pub fn sub_i32(p: &BinaryI32, input1: &[i32], input2: &[i32], output: &mut [i32]) {
    broadcast(&p.shape, input1, input2, output, |x, y| {
        clamp_i32(x.wrapping_sub(y), p.act_min, p.act_max)
    });
}

/// float SUB: TFLM's `SubWithActivation` / `BroadcastSubSlow<float>`:
/// `ActivationFunctionWithMinMax(x - y)`.
///
/// # Preconditions
///
/// As [`sub_s8`].
pub fn sub_f32(p: &BinaryF32, input1: &[f32], input2: &[f32], output: &mut [f32]) {
    broadcast(&p.shape, input1, input2, output, |x, y| {
        activation_f32(x - y, p.act_min, p.act_max)
    });
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
        sub_i32(&p, &[i32::MIN, 10, 3], &[1], &mut out);
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
        sub_s8(&p, &a[..n], &b[..n], &mut out[..n]);
        for ((&x, &y), &o) in a.iter().zip(&b).zip(&out).take(n) {
            assert_eq!(i32::from(o), (i32::from(x) - i32::from(y)).clamp(-128, 127));
        }
    }
}
