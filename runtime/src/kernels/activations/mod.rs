//! RELU and RELU6: TFLM's `activations.cc` (`ReluQuantized`, `Relu6Quantized`, `ReluFloat`,
//! `Relu6Float`).

pub(crate) mod in_place;

use super::shared::Requant;
use super::shared::unary::elementwise_kernels;

/// Parameters of an int8 RELU (TFLM's `ReluOpData` for int8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReluS8 {
    /// Minus the input zero point (TFLM stores the zero point and subtracts it).
    pub input_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// `QuantizeMultiplier(input_scale / output_scale)`.
    pub requant: Requant,
    /// `max(-128, output_zero_point + round(0 / output_scale))`.
    pub act_min: i32,
    /// 127.
    pub act_max: i32,
}

elementwise_kernels! {
    /// int8 RELU: TFLM's `ReluQuantized`: requantise to the output (`output_offset +
    /// MultiplyByQuantizedMultiplier(x + input_offset)`), then clamp (`max` then `min`).
    pub fn relu_s8 / check_relu_s8(p: &ReluS8, input: &[i8], output: &mut [i8]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = relu_s8_one(p, x);
        }
    }

    /// int8 RELU6: TFLM's `Relu6Quantized`: `x > six ? six : x < zero ? zero : x`.
    pub fn relu6_s8 / check_relu6_s8(p: &Relu6S8, input: &[i8], output: &mut [i8]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = relu6_s8_one(p, x);
        }
    }

    /// float RELU: TFLM's `ReluFloat`: `x < 0 ? 0 : x` (NaN stays NaN).
    pub fn relu_f32 / check_relu_f32(input: &[f32], output: &mut [f32]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = if x < 0.0 { 0.0 } else { x };
        }
    }

    /// float RELU6: TFLM's `Relu6Float`: `x > 6 ? 6 : x < 0 ? 0 : x` (NaN stays NaN).
    pub fn relu6_f32 / check_relu6_f32(input: &[f32], output: &mut [f32]) {
        for (o, &x) in output.iter_mut().zip(input) {
            // `x > 6 ? 6 : x < 0 ? 0 : x` is `clamp` (NaN and -0.0 pass through both).
            *o = x.clamp(0.0, 6.0);
        }
    }

    /// int16 RELU: TFLM's `ReluQuantized<int16_t>`: requantise to the output (`output_offset +
    /// MultiplyByQuantizedMultiplier(x + input_offset)`), then clamp (`max` then `min`), then the
    /// conversion to `int16`.
    pub fn relu_s16 / check_relu_s16(p: &ReluS16, input: &[i16], output: &mut [i16]) {
        for (o, &x) in output.iter_mut().zip(input) {
            let clamped = p
                .output_offset
                .wrapping_add(p.requant.apply(i32::from(x).wrapping_add(p.input_offset)));
            let clamped = p.act_min.max(clamped);
            *o = p.act_max.min(clamped) as i16;
        }
    }

    /// int16 RELU6: TFLM's `Relu6Quantized<int16_t>`: `x > six ? six : x < zero ? zero : x`.
    pub fn relu6_s16 / check_relu6_s16(p: &Relu6S16, input: &[i16], output: &mut [i16]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = if x > p.six {
                p.six
            } else if x < p.zero {
                p.zero
            } else {
                x
            };
        }
    }
}

/// One element of [`relu_s8`].
#[inline(always)]
pub(super) fn relu_s8_one(p: &ReluS8, x: i8) -> i8 {
    let clamped = p
        .output_offset
        .wrapping_add(p.requant.apply(i32::from(x).wrapping_add(p.input_offset)));
    let clamped = p.act_min.max(clamped);
    p.act_max.min(clamped) as i8
}

/// Parameters of an int8 RELU6 (TFLM's `Relu6OpData`): the bounds in the *input*'s
/// quantisation; TFLM does not requantise RELU6.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relu6S8 {
    /// The input zero point.
    pub zero: i8,
    /// `FloatToQuantizedType<int8_t>(6.0, input_scale, input_zero_point)`.
    pub six: i8,
}

/// One element of [`relu6_s8`].
#[inline(always)]
pub(super) fn relu6_s8_one(p: &Relu6S8, x: i8) -> i8 {
    if x > p.six {
        p.six
    } else if x < p.zero {
        p.zero
    } else {
        x
    }
}

/// Parameters of an int16 RELU (TFLM's `ReluOpData` for int16; TFLM requires both zero
/// points to be 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReluS16 {
    /// Minus the input zero point.
    pub input_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// `QuantizeMultiplier(input_scale / output_scale)`.
    pub requant: Requant,
    /// `max(-32768, output_zero_point + round(0 / output_scale))`.
    pub act_min: i32,
    /// 32767.
    pub act_max: i32,
}

/// Parameters of an int16 RELU6 (TFLM's `Relu6OpData` for int16): the bounds in the input's
/// quantisation, converted to `int16` as TFLM's `Relu6Quantized<int16_t>` takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relu6S16 {
    /// The input zero point.
    pub zero: i16,
    /// `FloatToQuantizedType<int16_t>(6.0, input_scale, input_zero_point)`.
    pub six: i16,
}
