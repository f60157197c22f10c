//! EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS and LESS_EQUAL with broadcasting: TFLM's
//! `reference_ops::Comparison*` (`ComparisonImpl`, `BroadcastComparison4DSlowImpl`, any
//! element type) and `*WithScaling` (int8, both inputs rescaled to a common scale first). The
//! output is bool (one byte, 0 or 1).

use super::shared::broadcast::{BinaryShape, broadcast};
use super::shared::{Requant, fixed};

/// Which comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// `x == y`.
    Equal,
    /// `x != y`.
    NotEqual,
    /// `x > y`.
    Greater,
    /// `x >= y`.
    GreaterEqual,
    /// `x < y`.
    Less,
    /// `x <= y`.
    LessEqual,
}

/// Runs `broadcast` with the comparison `op` of `value1(x)` and `value2(y)`, writing 1 or 0.
#[inline(always)]
fn compare_with<A: Copy + Default, T: PartialOrd>(
    shape: &BinaryShape,
    op: Comparison,
    input1: &[A],
    input2: &[A],
    output: &mut [u8],
    value1: impl Fn(A) -> T,
    value2: impl Fn(A) -> T,
) {
    let (f, g) = (&value1, &value2);
    match op {
        Comparison::Equal => {
            broadcast(shape, input1, input2, output, |x, y| u8::from(f(x) == g(y)))
        }
        Comparison::NotEqual => {
            broadcast(shape, input1, input2, output, |x, y| u8::from(f(x) != g(y)));
        }
        Comparison::Greater => {
            broadcast(shape, input1, input2, output, |x, y| u8::from(f(x) > g(y)))
        }
        Comparison::GreaterEqual => {
            broadcast(shape, input1, input2, output, |x, y| u8::from(f(x) >= g(y)));
        }
        Comparison::Less => broadcast(shape, input1, input2, output, |x, y| u8::from(f(x) < g(y))),
        Comparison::LessEqual => {
            broadcast(shape, input1, input2, output, |x, y| u8::from(f(x) <= g(y)));
        }
    }
}

/// A comparison without rescaling (TFLM's `*NoScaling` and the float ones): the C++
/// operator on the values (so every comparison with a NaN is false but `!=`). Bool inputs
/// are bytes, 0 or 1, compared as such.
///
/// # Preconditions
///
/// Each slice holds its shape's element count; every input dimension equals the output's or
/// is 1.
pub fn compare<T: Copy + Default + PartialOrd>(
    p: &BinaryShape,
    op: Comparison,
    input1: &[T],
    input2: &[T],
    output: &mut [u8],
) {
    compare_with(p, op, input1, input2, output, |v| v, |v| v);
}

/// Parameters of an int8 comparison (TFLM's `ComparisonParams` from `ComparisonsPrepare`).
#[derive(Clone, Copy, Debug)]
pub struct ComparisonS8 {
    /// The shapes.
    pub shape: BinaryShape,
    /// 8.
    pub left_shift: i32,
    /// Minus the first input's zero point.
    pub input1_offset: i32,
    /// `QuantizeMultiplierSmallerThanOneExp(input1 scale)`.
    pub input1: Requant,
    /// Minus the second input's zero point.
    pub input2_offset: i32,
    /// `QuantizeMultiplierSmallerThanOneExp(input2 scale)`.
    pub input2: Requant,
}

/// An int8 comparison: TFLM's `ComparisonWithScaling` / `BroadcastComparison4DSlowWithScaling`:
/// each input offset, shifted left by `left_shift` and scaled by its multiplier
/// (`MultiplyByQuantizedMultiplierSmallerThanOneExp`), the two int32 values compared.
///
/// # Preconditions
///
/// As [`compare`].
pub fn compare_s8(
    p: &ComparisonS8,
    op: Comparison,
    input1: &[i8],
    input2: &[i8],
    output: &mut [u8],
) {
    let scale = fixed::multiply_by_quantized_multiplier_smaller_than_one_exp;
    let shift = |v: i32| v.wrapping_mul(1_i32.wrapping_shl(p.left_shift as u32));
    let value = |offset: i32, m: Requant, v: i8| {
        scale(
            shift(offset.wrapping_add(i32::from(v))),
            m.multiplier,
            m.shift,
        )
    };
    compare_with(
        &p.shape,
        op,
        input1,
        input2,
        output,
        |x| value(p.input1_offset, p.input1, x),
        |y| value(p.input2_offset, p.input2, y),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_compares_false_but_not_equal() {
        let shape = BinaryShape {
            input1: [1, 1, 1, 1, 1, 2],
            input2: [1, 1, 1, 1, 1, 1],
            output: [1, 1, 1, 1, 1, 2],
        };
        let mut out = [9; 2];
        compare(
            &shape,
            Comparison::GreaterEqual,
            &[f32::NAN, 1.0],
            &[1.0],
            &mut out,
        );
        assert_eq!(out, [0, 1]);
        compare(
            &shape,
            Comparison::NotEqual,
            &[f32::NAN, 1.0],
            &[1.0],
            &mut out,
        );
        assert_eq!(out, [1, 0]);
    }
}
