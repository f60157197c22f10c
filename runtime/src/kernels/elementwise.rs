//! ADD and MUL with broadcasting: TFLM's `reference_integer_ops::Add` / `BroadcastAdd6DSlow`,
//! `reference_integer_ops::Mul` / `BroadcastMul6DSlow` and the float `reference_ops` ones.
//!
//! Every output element depends on one element of each input only, so the order in which the
//! broadcast loops visit the output does not change any result; these kernels walk the output
//! in memory order.

use super::{Requant, activation_f32, at, fixed};

/// Shapes of a binary elementwise op, each right-aligned into 6 dimensions padded with leading
/// 1s. An input dimension of 1 where the output's is larger is broadcast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BinaryShape {
    /// First input.
    pub input1: [usize; 6],
    /// Second input.
    pub input2: [usize; 6],
    /// Output.
    pub output: [usize; 6],
}

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

/// Parameters of a float ADD or MUL.
#[derive(Clone, Copy, Debug)]
pub struct BinaryF32 {
    /// The shapes.
    pub shape: BinaryShape,
    /// Lower clamp of the output (fused activation).
    pub act_min: f32,
    /// Upper clamp of the output (fused activation).
    pub act_max: f32,
}

/// Row-major strides of `shape`, 0 where `shape` has extent 1 (broadcast).
fn broadcast_strides(shape: &[usize; 6]) -> [usize; 6] {
    let mut strides = [0; 6];
    let mut stride = 1_usize;
    for d in (0..6).rev() {
        strides[d] = if shape[d] == 1 { 0 } else { stride };
        stride = stride.wrapping_mul(shape[d]);
    }
    strides
}

/// Walks the output in memory order, calling `op(a, b)` with the input elements that
/// broadcast to each output element.
#[inline(always)]
fn broadcast<T: Copy + Default, O>(
    shape: &BinaryShape,
    input1: &[T],
    input2: &[T],
    output: &mut [O],
    mut op: impl FnMut(T, T) -> O,
) {
    if shape.input1 == shape.output && shape.input2 == shape.output {
        // TFLM's elementwise path (no broadcast): the same pairs, element by element.
        for (i, o) in output.iter_mut().enumerate() {
            *o = op(at(input1, i), at(input2, i));
        }
        return;
    }
    let s1 = broadcast_strides(&shape.input1);
    let s2 = broadcast_strides(&shape.input2);
    let [d0, d1, d2, d3, d4, d5] = shape.output;
    let mut out = output.iter_mut();
    for i0 in 0..d0 {
        for i1 in 0..d1 {
            for i2 in 0..d2 {
                for i3 in 0..d3 {
                    let base1 = i0 * s1[0] + i1 * s1[1] + i2 * s1[2] + i3 * s1[3];
                    let base2 = i0 * s2[0] + i1 * s2[1] + i2 * s2[2] + i3 * s2[3];
                    for i4 in 0..d4 {
                        for i5 in 0..d5 {
                            let a = at(input1, base1 + i4 * s1[4] + i5 * s1[5]);
                            let b = at(input2, base2 + i4 * s2[4] + i5 * s2[5]);
                            if let Some(o) = out.next() {
                                *o = op(a, b);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Clamps as TFLM's binary int8 kernels do: `min(act_max, max(act_min, x))`, then narrows.
#[inline(always)]
fn clamp_binary(x: i32, act_min: i32, act_max: i32) -> i8 {
    let x = if x < act_min { act_min } else { x };
    let x = if act_max < x { act_max } else { x };
    x as i8
}

/// int8 ADD: TFLM's `AddFunc`: each offset input is shifted left by `left_shift`, scaled by
/// its multiplier, the two are summed, scaled by the output multiplier (all with
/// `MultiplyByQuantizedMultiplierSmallerThanOneExp`), offset and clamped.
///
/// # Preconditions
///
/// Each slice holds its shape's element count; every input dimension equals the output's or
/// is 1.
pub fn add_s8(p: &AddS8, input1: &[i8], input2: &[i8], output: &mut [i8]) {
    let scale = fixed::multiply_by_quantized_multiplier_smaller_than_one_exp;
    let shift = |x: i32| x.wrapping_mul(1_i32.wrapping_shl(p.left_shift as u32));
    broadcast(&p.shape, input1, input2, output, |x, y| {
        let input1_val = p.input1_offset.wrapping_add(i32::from(x));
        let input2_val = p.input2_offset.wrapping_add(i32::from(y));
        let scaled_input1_val = scale(shift(input1_val), p.input1.multiplier, p.input1.shift);
        let scaled_input2_val = scale(shift(input2_val), p.input2.multiplier, p.input2.shift);
        let raw_sum = scaled_input1_val.wrapping_add(scaled_input2_val);
        let raw_output =
            scale(raw_sum, p.output.multiplier, p.output.shift).wrapping_add(p.output_offset);
        clamp_binary(raw_output, p.act_min, p.act_max)
    });
}

/// int8 MUL: TFLM's `MulElementwise`: `output_offset + MultiplyByQuantizedMultiplier((x +
/// input1_offset) * (y + input2_offset))`, clamped.
///
/// # Preconditions
///
/// As [`add_s8`].
pub fn mul_s8(p: &MulS8, input1: &[i8], input2: &[i8], output: &mut [i8]) {
    broadcast(&p.shape, input1, input2, output, |x, y| {
        let input1_val = p.input1_offset.wrapping_add(i32::from(x));
        let input2_val = p.input2_offset.wrapping_add(i32::from(y));
        let unclamped = p
            .output_offset
            .wrapping_add(p.output.apply(input1_val.wrapping_mul(input2_val)));
        clamp_binary(unclamped, p.act_min, p.act_max)
    });
}

/// float ADD: TFLM's `reference_ops::Add` / `BroadcastAdd6DSlow` (float):
/// `ActivationFunctionWithMinMax(x + y)`.
///
/// # Preconditions
///
/// As [`add_s8`].
pub fn add_f32(p: &BinaryF32, input1: &[f32], input2: &[f32], output: &mut [f32]) {
    broadcast(&p.shape, input1, input2, output, |x, y| {
        activation_f32(x + y, p.act_min, p.act_max)
    });
}

/// float MUL: TFLM's `reference_ops::Mul` / `BroadcastMul6DSlow` (float):
/// `ActivationFunctionWithMinMax(x * y)`.
///
/// # Preconditions
///
/// As [`add_s8`].
pub fn mul_f32(p: &BinaryF32, input1: &[f32], input2: &[f32], output: &mut [f32]) {
    broadcast(&p.shape, input1, input2, output, |x, y| {
        activation_f32(x * y, p.act_min, p.act_max)
    });
}
