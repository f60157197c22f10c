//! ABS, SIN, COS, LOG, SQRT, RSQRT and SQUARE: TFLM's `elementwise.cc` (`AbsEval`, `SinEval`,
//! `CosEval`, `LogEval`, `SqrtEval`, `RsqrtEval`, `SquareEval` over `EvalImpl` and
//! `EvalImplQuantized`: one pass over the elements in order).
//!
//! The float kernels call the C library's functions as TFLM's `std::sin(float)` and the like
//! do, through `stowplan_math` (glibc's algorithms; see that crate).

use stowplan_math::{cosf, logf, sinf, sqrtf};

use super::l2norm::get_inv_sqrt_quantized_multiplier_exp;
use super::shared::Requant;
use super::shared::unary::elementwise_kernels;

/// `f(x)` for each element, in order.
#[inline(always)]
fn map<T: Copy, U>(input: &[T], output: &mut [U], f: impl Fn(T) -> U) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = f(x);
    }
}

elementwise_kernels! {
    /// float ABS: `std::abs(float)` (`fabsf`): the sign bit cleared, NaN payloads kept.
    pub fn abs_f32 / check_abs_f32(input: &[f32], output: &mut [f32]) {
        map(input, output, |x| f32::from_bits(x.to_bits() & 0x7fff_ffff));
    }

    /// float SIN: `std::sin(float)`.
    pub fn sin_f32 / check_sin_f32(input: &[f32], output: &mut [f32]) {
        map(input, output, sinf);
    }

    /// float COS: `std::cos(float)`.
    pub fn cos_f32 / check_cos_f32(input: &[f32], output: &mut [f32]) {
        map(input, output, cosf);
    }

    /// float LOG: `std::log(float)`.
    pub fn log_f32 / check_log_f32(input: &[f32], output: &mut [f32]) {
        map(input, output, logf);
    }

    /// float SQRT: `std::sqrt(float)`.
    pub fn sqrt_f32 / check_sqrt_f32(input: &[f32], output: &mut [f32]) {
        map(input, output, sqrtf);
    }

    /// float RSQRT: `1.f / std::sqrt(f)`.
    pub fn rsqrt_f32 / check_rsqrt_f32(input: &[f32], output: &mut [f32]) {
        map(input, output, |x| 1.0 / sqrtf(x));
    }

    /// float SQUARE: `f * f`.
    pub fn square_f32 / check_square_f32(input: &[f32], output: &mut [f32]) {
        map(input, output, |x| x * x);
    }

    /// int8 ABS: TFLM's `AbsEvalQuantized<int8_t>`.
    pub fn abs_s8 / check_abs_s8(p: &AbsQuantized, input: &[i8], output: &mut [i8]) {
        map(input, output, |x| {
            abs_quantized(p, i32::from(x), i32::from(i8::MIN), i32::from(i8::MAX)) as i8
        });
    }

    /// int16 ABS of a quantised tensor (zero points 0): TFLM's `AbsEvalQuantized<int16_t>`.
    pub fn abs_s16 / check_abs_s16(p: &AbsQuantized, input: &[i16], output: &mut [i16]) {
        map(input, output, |x| {
            abs_quantized(p, i32::from(x), i32::from(i16::MIN), i32::from(i16::MAX)) as i16
        });
    }

    /// int16 ABS of a tensor without quantisation: TFLM's `AbsHelper<int16_t>`, `std::abs` of the
    /// value promoted to `int` and converted back (so -32768 stays -32768).
    pub fn abs_s16_plain / check_abs_s16_plain(input: &[i16], output: &mut [i16]) {
        map(input, output, |x| i32::from(x).abs() as i16);
    }

    /// int8 RSQRT: TFLM's `RsqrtEvalQuantized<int8_t>`: 127 for `x == zero point`; otherwise
    /// `1/sqrt(x - zero point)` as `GetInvSqrtQuantizedMultiplierExp` gives it, applied to 1
    /// shifted up by 20 bits, then requantised with the shift 20 lower, plus the output zero
    /// point, clamped.
    ///
    /// TFLM's Eval fails (`Rsqrt is only defined for positive values`, the invoke returns an
    /// error) on an element below the zero point; this kernel cannot fail, and computes such an
    /// element as `GetInvSqrtQuantizedMultiplierExp` does for inputs at most 1 (the largest
    /// multiplier).
    pub fn rsqrt_s8 / check_rsqrt_s8(p: &RsqrtS8, input: &[i8], output: &mut [i8]) {
        const SHIFT: i32 = 20;
        map(input, output, |x| {
            let value = i32::from(x).wrapping_sub(p.input_offset);
            if value == 0 {
                return i8::MAX;
            }
            let (inv_sqrt_multiplier, inv_sqrt_shift) =
                get_inv_sqrt_quantized_multiplier_exp(value, -1);
            let data = Requant {
                multiplier: inv_sqrt_multiplier,
                shift: inv_sqrt_shift.wrapping_add(SHIFT),
            }
            .apply(1);
            let out = Requant {
                multiplier: p.requant.multiplier,
                shift: p.requant.shift.wrapping_sub(SHIFT),
            }
            .apply(data)
            .wrapping_add(p.output_offset);
            out.clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8
        });
    }
}

/// Parameters of a quantised ABS (TFLM's `OpDataAbsRsqrt` for ABS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AbsQuantized {
    /// The input zero point (0 for int16).
    pub input_offset: i32,
    /// The output zero point (0 for int16).
    pub output_offset: i32,
    /// `input_scale != output_scale` (float comparison): only then is the value requantised.
    pub needs_rescale: bool,
    /// `QuantizeMultiplier(input_scale / output_scale)` (unused without rescaling; TFLM leaves
    /// it 0 then).
    pub requant: Requant,
}

/// TFLM's `AbsEvalQuantized<T>`: `|x - input_offset|`, requantised if the scales differ, plus
/// the output offset, clamped to `[min, max]` of the type.
#[inline(always)]
fn abs_quantized(p: &AbsQuantized, x: i32, min: i32, max: i32) -> i32 {
    // |x - zero point| <= 65535 for int8 and int16 values: no overflow.
    let value = x.wrapping_sub(p.input_offset).wrapping_abs();
    let output = if p.needs_rescale {
        p.requant.apply(value).wrapping_add(p.output_offset)
    } else {
        value.wrapping_add(p.output_offset)
    };
    output.clamp(min, max)
}

/// Parameters of an int8 RSQRT (TFLM's `OpDataAbsRsqrt` for RSQRT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RsqrtS8 {
    /// The input zero point.
    pub input_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// `QuantizeMultiplier(1 / (sqrtf(input_scale) * output_scale))` (the product in float,
    /// the quotient in double).
    pub requant: Requant,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abs_plain_and_quantized() {
        let mut out = [0_i16; 3];
        abs_s16_plain(&[-32768, -5, 7], &mut out).unwrap();
        assert_eq!(out, [-32768, 5, 7]);
        let p = AbsQuantized {
            input_offset: -10,
            output_offset: 3,
            needs_rescale: false,
            requant: Requant {
                multiplier: 0,
                shift: 0,
            },
        };
        let mut out = [0_i8; 3];
        abs_s8(&p, &[-128, -10, 127], &mut out).unwrap();
        // |-128 + 10| + 3 = 121, |0| + 3, |137| + 3 clamped.
        assert_eq!(out, [121, 3, 127]);
        let mut f = [0.0_f32; 2];
        abs_f32(&[-0.0, f32::from_bits(0xffc0_0001)], &mut f).unwrap();
        assert_eq!(f[0].to_bits(), 0);
        assert_eq!(f[1].to_bits(), 0x7fc0_0001);
    }

    #[test]
    fn rsqrt_s8_saturates_at_the_zero_point() {
        let p = RsqrtS8 {
            input_offset: 0,
            output_offset: 0,
            requant: Requant {
                multiplier: 1 << 30,
                shift: 1,
            },
        };
        let mut out = [0_i8; 4];
        // Below the zero point: computed, no panic.
        rsqrt_s8(&p, &[0, 1, 4, -100], &mut out).unwrap();
        assert_eq!(out[0], 127);
    }
}
