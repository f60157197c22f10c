//! NEG: TFLM's `neg.cc` over `reference_ops::Negate` (float; TFLM's NEG has no other type).

use super::shared::unary::elementwise_kernels;

elementwise_kernels! {
    /// float NEG: TFLM's `reference_ops::Negate`: `-x` for each element, in order (the sign bit
    /// flipped, NaN and zeros included).
    pub fn neg_f32 / check_neg_f32(input: &[f32], output: &mut [f32]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = -x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flips_the_sign_bit() {
        let mut out = [0.0_f32; 3];
        neg_f32(&[0.0, -1.5, f32::from_bits(0x7fc0_0001)], &mut out).unwrap();
        assert_eq!(out[0].to_bits(), 0x8000_0000);
        assert_eq!(out[1], 1.5);
        assert_eq!(out[2].to_bits(), 0xffc0_0001);
    }
}
