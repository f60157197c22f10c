//! EXP: TFLM's `exp.cc` over `reference_ops::Exp` (float).

use super::shared::unary::elementwise_kernels;
use stowplan_math::expf;

elementwise_kernels! {
    /// float EXP: TFLM's `reference_ops::Exp`: `std::exp` of each element, in order.
    pub fn exp_f32 / check_exp_f32(input: &[f32], output: &mut [f32]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = expf(x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponentials() {
        let mut out = [0.0_f32; 3];
        exp_f32(&[0.0, f32::NEG_INFINITY, 89.0], &mut out).unwrap();
        assert_eq!(out, [1.0, 0.0, f32::INFINITY]);
    }
}
