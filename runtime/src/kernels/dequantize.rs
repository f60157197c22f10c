//! DEQUANTIZE: TFLM's `reference_ops::Dequantize` (int8 to float).

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
    let scale = f64::from(p.scale);
    for (o, &x) in output.iter_mut().zip(input) {
        let value = i32::from(x).wrapping_sub(p.zero_point);
        *o = (scale * f64::from(value)) as f32;
    }
}
