//! ROUND: TFLM's `round.cc` over `reference_ops::Round` (float): to nearest, ties to even
//! (TensorFlow's `tf.round`), by TFLM's `RoundToNearest`.

use super::shared::unary::elementwise_kernels;
use stowplan_math::floorf;

/// TFLM's `RoundToNearest`: `floor(x)`, plus one if the fraction `x - floor(x)` is above one
/// half, or exactly one half with an odd floor (`static_cast<int>(floor) % 2 != 0`; the
/// conversion as x86-64 does it: `INT32_MIN`, which is even, beyond the int range).
fn round_to_nearest(value: f32) -> f32 {
    let floor_val = floorf(value);
    let diff = value - floor_val;
    let floor_is_even =
        if floor_val.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&floor_val) {
            true
        } else {
            (floor_val as i32) % 2 == 0
        };
    if diff < 0.5 || (diff == 0.5 && floor_is_even) {
        floor_val
    } else {
        floor_val + 1.0
    }
}

elementwise_kernels! {
    /// float ROUND: TFLM's `reference_ops::Round`: `RoundToNearest` of each element, in order.
    ///
    /// TFLM's comparisons decide NaN and infinities: `diff` is NaN there, neither below nor equal
    /// to one half, so the result is `floor + 1` (NaN stays NaN, `inf` stays `inf`).
    pub fn round_f32 / check_round_f32(input: &[f32], output: &mut [f32]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = round_to_nearest(x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_to_even() {
        let mut out = [0.0_f32; 6];
        round_f32(&[0.5, 1.5, 2.5, -0.5, -1.5, 2.4], &mut out).unwrap();
        assert_eq!(out, [0.0, 2.0, 2.0, 0.0, -2.0, 2.0]);
        // -0.5: floor -1, diff 0.5, -1 odd: -1 + 1 = +0.
        assert_eq!(out[3].to_bits(), 0);
    }
}
