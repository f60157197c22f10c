//! DEQUANTIZE: TFLM's `reference_ops::Dequantize` (int8, int16 and uint8 to float), and
//! float16 to float32 as TensorFlow Lite's reference kernel has it (TFLM has none: models that
//! store their weights as float16 run through it, usually folded when the crate compiles).

use super::shared::unary::elementwise_kernels;

pub(crate) mod in_place;

/// Parameters of an int8 to float DEQUANTIZE.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DequantizeS8F32 {
    /// The input scale.
    pub scale: f32,
    /// The input zero point.
    pub zero_point: i32,
}

elementwise_kernels! {
    /// int8 to float DEQUANTIZE: TFLM's `reference_ops::Dequantize`: `(float)(scale * (x -
    /// zero_point))` with the product in `double`, as TFLM.
    pub fn dequantize_s8_f32 / check_dequantize_s8_f32(p: &DequantizeS8F32, input: &[i8], output: &mut [f32]) {
        dequantize(p.scale, p.zero_point, input, output);
    }

    /// int16 to float DEQUANTIZE: TFLM's `reference_ops::Dequantize<int16_t, float>`, as
    /// [`dequantize_s8_f32`].
    pub fn dequantize_s16_f32 / check_dequantize_s16_f32(p: &Dequantize, input: &[i16], output: &mut [f32]) {
        dequantize(p.scale, p.zero_point, input, output);
    }

    /// uint8 to float DEQUANTIZE: TFLM's `reference_ops::Dequantize<uint8_t, float>`, as
    /// [`dequantize_s8_f32`].
    pub fn dequantize_u8_f32 / check_dequantize_u8_f32(p: &Dequantize, input: &[u8], output: &mut [f32]) {
        dequantize(p.scale, p.zero_point, input, output);
    }

    /// float16 to float32 DEQUANTIZE: TensorFlow Lite's reference `Dequantize` of a float16 tensor
    /// (`dequantize.h`, each value converted exactly: [`f16_to_f32`]); TFLM's kernel refuses it.
    /// float16 views hold the values' bits as `u16`.
    pub fn dequantize_f16_f32 / check_dequantize_f16_f32(input: &[u16], output: &mut [f32]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = f16_to_f32(x);
        }
    }
}

/// Parameters of an int16 or uint8 to float DEQUANTIZE.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dequantize {
    /// The input scale.
    pub scale: f32,
    /// The input zero point.
    pub zero_point: i32,
}

/// `(float)(scale * (x - zero_point))`, the product in double.
#[inline(always)]
fn dequantize<T: Copy + Into<i32>>(scale: f32, zero_point: i32, input: &[T], output: &mut [f32]) {
    let scale = f64::from(scale);
    for (o, &x) in output.iter_mut().zip(input) {
        let value = x.into().wrapping_sub(zero_point);
        *o = (scale * f64::from(value)) as f32;
    }
}

/// An IEEE 754 binary16 value (its bits) as the binary32 value it is: exact, so the same bits
/// as TensorFlow Lite's `fp16_ieee_to_fp32_value` and the hardware conversions; subnormals are
/// normalised, infinities stay infinite, a NaN keeps its sign and payload (shifted into the
/// wider mantissa).
#[must_use]
pub const fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exp = ((h as u32) >> 10) & 0x1f;
    let mant = (h as u32) & 0x03ff;
    let bits = if exp == 0x1f {
        // Infinity or NaN.
        sign | 0x7f80_0000 | (mant << 13)
    } else if exp != 0 {
        // Normal: rebias the exponent (15 to 127).
        sign | ((exp + 112) << 23) | (mant << 13)
    } else if mant == 0 {
        sign
    } else {
        // Subnormal: mant * 2^-24, normalised. The leading 1 of `mant` is bit `p` (0..=9).
        let p = 31 - mant.leading_zeros();
        let e = p + 103; // 2^(p - 24), biased by 127
        sign | (e << 23) | ((mant << (23 - p)) & 0x007f_ffff)
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The binary16 value of `h` computed in f64 from its fields.
    fn reference(h: u16) -> f64 {
        let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
        let exp = i32::from((h >> 10) & 0x1f);
        let mant = f64::from(h & 0x3ff);
        match exp {
            0 => sign * mant * pow2(-24),
            31 if mant == 0.0 => sign * f64::INFINITY,
            31 => f64::NAN,
            e => sign * (1.0 + mant / 1024.0) * pow2(e - 15),
        }
    }

    /// `2^k`, exactly (built from its bits: miri's `powi` is not exact).
    fn pow2(k: i32) -> f64 {
        f64::from_bits(((1023 + k) as u64) << 52)
    }

    #[test]
    fn every_float16_converts_exactly() {
        let step = if cfg!(miri) { 97 } else { 1 };
        for h in (0..=u16::MAX).step_by(step) {
            let got = f16_to_f32(h);
            let want = reference(h);
            if want.is_nan() {
                assert!(got.is_nan(), "{h:#06x}");
                assert_eq!(got.to_bits() >> 31, u32::from(h >> 15), "{h:#06x} sign");
                assert_eq!(got.to_bits() & 0x007f_ffff, u32::from(h & 0x3ff) << 13);
            } else {
                assert_eq!(f64::from(got), want, "{h:#06x}");
                assert_eq!(got.is_sign_negative(), h & 0x8000 != 0, "{h:#06x} sign");
            }
        }
        let mut out = [0f32; 4];
        dequantize_f16_f32(&[0x3c00, 0xc000, 0x0001, 0x7bff], &mut out).unwrap();
        assert_eq!(out, [1.0, -2.0, f32::from_bits(0x3380_0000), 65504.0]);
    }

    #[test]
    fn int16_and_uint8_dequantize_in_double() {
        let p = Dequantize {
            scale: 0.1,
            zero_point: -3,
        };
        let mut out = [0f32; 2];
        dequantize_s16_f32(&p, &[-32768, 32767], &mut out).unwrap();
        let scale = f64::from(0.1_f32);
        assert_eq!(out, [(scale * -32765.0) as f32, (scale * 32770.0) as f32]);
        dequantize_u8_f32(&p, &[0, 255], &mut out).unwrap();
        assert_eq!(out, [(scale * 3.0) as f32, (scale * 258.0) as f32]);
    }
}
