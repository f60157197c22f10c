//! FLOOR: TFLM's `floor.cc` over `reference_ops::Floor` (float).

use super::shared::unary::elementwise_kernels;
use stowplan_math::floorf;

elementwise_kernels! {
    /// float FLOOR: TFLM's `reference_ops::Floor`: `std::floor` of each element, in order
    /// (`floor(-0.0) == -0.0`; NaN and values of magnitude 2^23 or more unchanged).
    pub fn floor_f32 / check_floor_f32(input: &[f32], output: &mut [f32]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = floorf(x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_down() {
        let mut out = [0.0_f32; 3];
        floor_f32(&[-0.5, 1.75, -0.0], &mut out).unwrap();
        assert_eq!(&out[..2], &[-1.0, 1.0]);
        assert_eq!(out[2].to_bits(), 0x8000_0000);
    }
}
