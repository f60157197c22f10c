//! EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS and LESS_EQUAL with broadcasting: TFLM's
//! `reference_ops::Comparison*` (`ComparisonImpl`, `BroadcastComparison4DSlowImpl`, any
//! element type) and `*WithScaling` (int8, both inputs rescaled to a common scale first). The
//! output is bool (one byte, 0 or 1).

use super::shared::broadcast::check_binary;
use super::shared::broadcast::{BinaryShape, broadcast};
use super::shared::check::KernelError;
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

/// [`compare`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_compare(
    p: &BinaryShape,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(p, input1, input2, output)
}

/// A comparison without rescaling (TFLM's `*NoScaling` and the float ones): the C++
/// operator on the values (so every comparison with a NaN is false but `!=`). Bool inputs
/// are bytes, 0 or 1, compared as such.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_compare`]) hold:
/// each slice holds its shape's element count; every input dimension equals the output's or is
/// 1.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn compare<T: Copy + Default + PartialOrd>(
    p: &BinaryShape,
    op: Comparison,
    input1: &[T],
    input2: &[T],
    output: &mut [u8],
) -> Result<(), KernelError> {
    check_compare(p, input1.len(), input2.len(), output.len())?;
    proven::compare(p, op, input1, input2, output);
    Ok(())
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

/// [`compare_s8`]'s preconditions, as [`check_compare`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_compare_s8(
    p: &ComparisonS8,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_binary(&p.shape, input1, input2, output)
}

/// An int8 comparison: TFLM's `ComparisonWithScaling` / `BroadcastComparison4DSlowWithScaling`:
/// each input offset, shifted left by `left_shift` and scaled by its multiplier
/// (`MultiplyByQuantizedMultiplierSmallerThanOneExp`), the two int32 values compared.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_compare_s8`]) hold:
/// as [`compare`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn compare_s8(
    p: &ComparisonS8,
    op: Comparison,
    input1: &[i8],
    input2: &[i8],
    output: &mut [u8],
) -> Result<(), KernelError> {
    check_compare_s8(p, input1.len(), input2.len(), output.len())?;
    proven::compare_s8(p, op, input1, input2, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`compare`](super::compare), its [`check`](super::check_compare) proven.
    #[inline]
    pub fn compare<T: Copy + Default + PartialOrd>(
        p: &BinaryShape,
        op: Comparison,
        input1: &[T],
        input2: &[T],
        output: &mut [u8],
    ) {
        debug_assert!(super::check_compare(p, input1.len(), input2.len(), output.len()).is_ok());
        compare_with(p, op, input1, input2, output, |v| v, |v| v);
    }

    /// [`compare_s8`](super::compare_s8), its [`check`](super::check_compare_s8) proven.
    #[inline]
    pub fn compare_s8(
        p: &ComparisonS8,
        op: Comparison,
        input1: &[i8],
        input2: &[i8],
        output: &mut [u8],
    ) {
        debug_assert!(super::check_compare_s8(p, input1.len(), input2.len(), output.len()).is_ok());
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
        )
        .unwrap();
        assert_eq!(out, [0, 1]);
        compare(
            &shape,
            Comparison::NotEqual,
            &[f32::NAN, 1.0],
            &[1.0],
            &mut out,
        )
        .unwrap();
        assert_eq!(out, [1, 0]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let shape = crate::kernels::BinaryShape {
            input1: [1, 1, 1, 1, 2, 2],
            input2: [1, 1, 1, 1, 1, 2],
            output: [1, 1, 1, 1, 2, 2],
        };
        let not_broadcast = crate::kernels::BinaryShape {
            input2: [1, 1, 1, 1, 1, 3],
            ..shape
        };
        let r = crate::kernels::Requant {
            multiplier: 1 << 30,
            shift: 0,
        };
        let q = ComparisonS8 {
            shape,
            left_shift: 8,
            input1_offset: 0,
            input1: r,
            input2_offset: 0,
            input2: r,
        };
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7; o];
            let r = compare(
                &shape,
                Comparison::Less,
                &vec![0.0_f32; a],
                &vec![0.0_f32; b],
                &mut out,
            );
            (r, untouched(&out, 7))
        });
        refuses([4, 2, 4], [Exact; 3], |[a, b, o]| {
            let mut out = vec![7; o];
            let r = compare_s8(
                &q,
                Comparison::Equal,
                &vec![0_i8; a],
                &vec![0_i8; b],
                &mut out,
            );
            (r, untouched(&out, 7))
        });
        let mut out = [7_u8; 4];
        assert!(compare(&not_broadcast, Comparison::Less, &[0; 4], &[0; 3], &mut out).is_err());
        assert_eq!(out, [7; 4]);
    }
}
