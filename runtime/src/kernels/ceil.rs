//! CEIL: TFLM's `ceil.cc` over `reference_ops::Ceil` (float).

use super::shared::unary::elementwise_kernels;
use stowplan_math::ceilf;

elementwise_kernels! {
    /// float CEIL: TFLM's `reference_ops::Ceil`: `std::ceil` of each element, in order
    /// (`ceil(-0.5) == -0.0`; NaN and values of magnitude 2^23 or more unchanged).
    pub fn ceil_f32 / check_ceil_f32(input: &[f32], output: &mut [f32]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = ceilf(x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_up() {
        let mut out = [0.0_f32; 3];
        ceil_f32(&[-0.5, 1.25, -2.0], &mut out).unwrap();
        assert_eq!(out[0].to_bits(), 0x8000_0000);
        assert_eq!(&out[1..], &[2.0, -2.0]);
    }
}
