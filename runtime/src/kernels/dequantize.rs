//! DEQUANTIZE: TFLM's `reference_ops::Dequantize` (int8, int16 and uint8 to float).

/// Parameters of an int8 to float DEQUANTIZE.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DequantizeS8F32 {
    /// The input scale.
    pub scale: f32,
    /// The input zero point.
    pub zero_point: i32,
}

/// int8 to float DEQUANTIZE: TFLM's `reference_ops::Dequantize`: `(float)(scale * (x -
/// zero_point))` with the product in `double`, as TFLM.
///
/// # Preconditions
///
/// `input.len() == output.len()`.
pub fn dequantize_s8_f32(p: &DequantizeS8F32, input: &[i8], output: &mut [f32]) {
    dequantize(p.scale, p.zero_point, input, output);
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

/// int16 to float DEQUANTIZE: TFLM's `reference_ops::Dequantize<int16_t, float>`, as
/// [`dequantize_s8_f32`].
///
/// # Preconditions
///
/// `input.len() == output.len()`.
pub fn dequantize_s16_f32(p: &Dequantize, input: &[i16], output: &mut [f32]) {
    dequantize(p.scale, p.zero_point, input, output);
}

/// uint8 to float DEQUANTIZE: TFLM's `reference_ops::Dequantize<uint8_t, float>`, as
/// [`dequantize_s8_f32`].
///
/// # Preconditions
///
/// `input.len() == output.len()`.
pub fn dequantize_u8_f32(p: &Dequantize, input: &[u8], output: &mut [f32]) {
    dequantize(p.scale, p.zero_point, input, output);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int16_and_uint8_dequantize_in_double() {
        let p = Dequantize {
            scale: 0.1,
            zero_point: -3,
        };
        let mut out = [0f32; 2];
        dequantize_s16_f32(&p, &[-32768, 32767], &mut out);
        let scale = f64::from(0.1_f32);
        assert_eq!(out, [(scale * -32765.0) as f32, (scale * 32770.0) as f32]);
        dequantize_u8_f32(&p, &[0, 255], &mut out);
        assert_eq!(out, [(scale * 3.0) as f32, (scale * 258.0) as f32]);
    }
}
