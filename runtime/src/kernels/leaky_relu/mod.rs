//! LEAKY_RELU: TFLM's `leaky_relu.cc` over `reference_ops::LeakyRelu` (float) and
//! `reference_ops::QuantizeLeakyRelu` (int8, int16).

pub(crate) mod in_place;

use stowplan_math::sse;

use super::shared::Requant;
use super::shared::unary::elementwise_kernels;

/// Parameters of a quantised LEAKY_RELU (TFLM's `LeakyReluOpData`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeakyReluQuantized {
    /// The input zero point.
    pub input_zero_point: i32,
    /// The output zero point.
    pub output_zero_point: i32,
    /// `QuantizeMultiplier(input_scale * alpha / output_scale)` (negative for a negative
    /// alpha).
    pub alpha: Requant,
    /// `QuantizeMultiplier(input_scale / output_scale)`.
    pub identity: Requant,
}

/// TFLM's `QuantizeLeakyRelu<T>` for one value: the difference to the input zero point
/// requantised by the identity multiplier when it is not negative, else by alpha's (its
/// magnitude, the sign applied after), plus the output zero point, clamped to `[min, max]`.
#[inline(always)]
fn leaky_relu_quantized(p: &LeakyReluQuantized, x: i32, min: i32, max: i32) -> i32 {
    let input_value = x.wrapping_sub(p.input_zero_point);
    let unclamped = if input_value >= 0 {
        p.output_zero_point
            .wrapping_add(p.identity.apply(input_value))
    } else {
        let negative = p.alpha.multiplier < 0;
        let safe = Requant {
            multiplier: p.alpha.multiplier.wrapping_abs(),
            shift: p.alpha.shift,
        };
        let scaled = safe.apply(input_value);
        p.output_zero_point.wrapping_add(if negative {
            scaled.wrapping_neg()
        } else {
            scaled
        })
    };
    unclamped.clamp(min, max)
}

elementwise_kernels! {
    /// int8 LEAKY_RELU: TFLM's `QuantizeLeakyRelu<int8_t>`.
    pub fn leaky_relu_s8 / check_leaky_relu_s8(p: &LeakyReluQuantized, input: &[i8], output: &mut [i8]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = leaky_relu_quantized(p, i32::from(x), i32::from(i8::MIN), i32::from(i8::MAX)) as i8;
        }
    }

    /// int16 LEAKY_RELU: TFLM's `QuantizeLeakyRelu<int16_t>`.
    pub fn leaky_relu_s16 / check_leaky_relu_s16(p: &LeakyReluQuantized, input: &[i16], output: &mut [i16]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = leaky_relu_quantized(p, i32::from(x), i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        }
    }

    /// float LEAKY_RELU: TFLM's `reference_ops::LeakyRelu`: `x > 0 ? x : x * alpha` (NaN goes to
    /// the product; `-inf * 0` is the x86-64 default NaN, through `stowplan_math::sse`).
    pub fn leaky_relu_f32 / check_leaky_relu_f32(p: &LeakyReluF32, input: &[f32], output: &mut [f32]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = if x > 0.0 { x } else { sse::mul(x, p.alpha) };
        }
    }
}

/// Parameters of a float LEAKY_RELU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LeakyReluF32 {
    /// The op's `alpha`.
    pub alpha: f32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_alpha() {
        // Identity 1 (2^30 * 2^(1-31)), alpha -0.5 (-2^30 * 2^(0-31)).
        let p = LeakyReluQuantized {
            input_zero_point: 0,
            output_zero_point: 0,
            alpha: Requant {
                multiplier: -(1 << 30),
                shift: 0,
            },
            identity: Requant {
                multiplier: 1 << 30,
                shift: 1,
            },
        };
        let mut out = [0_i8; 3];
        leaky_relu_s8(&p, &[-100, 0, 100], &mut out).unwrap();
        assert_eq!(out, [50, 0, 100]);
        let mut f = [0.0_f32; 2];
        leaky_relu_f32(&LeakyReluF32 { alpha: 0.1 }, &[-1.0, 1.0], &mut f).unwrap();
        assert_eq!(f, [-0.1, 1.0]);
    }
}
