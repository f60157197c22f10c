//! MAXIMUM and MINIMUM with broadcasting: TFLM's `reference_ops::MaximumMinimumBroadcastSlow`
//! with `MaximumOp` / `MinimumOp` (any element type).

use super::shared::broadcast::{BinaryShape, broadcast};

/// MAXIMUM: TFLM's `MaximumOp::op`, `x > y ? x : y` (so a NaN `x` gives `y`, and of `0.0` and
/// `-0.0` the second), element by element with broadcasting.
///
/// # Preconditions
///
/// Each slice holds its shape's element count; every input dimension equals the output's or
/// is 1.
pub fn maximum<T: Copy + Default + PartialOrd>(
    p: &BinaryShape,
    input1: &[T],
    input2: &[T],
    output: &mut [T],
) {
    broadcast(p, input1, input2, output, |x, y| if x > y { x } else { y });
}

/// MINIMUM: TFLM's `MinimumOp::op`, `x < y ? x : y`, element by element with broadcasting.
///
/// # Preconditions
///
/// As [`maximum`].
pub fn minimum<T: Copy + Default + PartialOrd>(
    p: &BinaryShape,
    input1: &[T],
    input2: &[T],
    output: &mut [T],
) {
    broadcast(p, input1, input2, output, |x, y| if x < y { x } else { y });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_and_zeros_as_tflm() {
        let shape = BinaryShape {
            input1: [1, 1, 1, 1, 1, 3],
            input2: [1, 1, 1, 1, 1, 3],
            output: [1, 1, 1, 1, 1, 3],
        };
        let mut out = [0.0_f32; 3];
        maximum(
            &shape,
            &[f32::NAN, 1.0, 0.0],
            &[2.0, f32::NAN, -0.0],
            &mut out,
        );
        assert_eq!(out[0], 2.0);
        assert!(out[1].is_nan());
        assert!(out[2].is_sign_negative());
        let mut out = [0_i64; 3];
        minimum(&shape, &[i64::MIN, 5, 3], &[0, -5, 3], &mut out);
        assert_eq!(out, [i64::MIN, -5, 3]);
    }
}
