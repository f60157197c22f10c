//! The four basic `f32` operations with the NaN bits x86-64's SSE gives them (`addss`, `subss`,
//! `mulss`, `divss`), on every target.
//!
//! IEEE 754 leaves the bits of a NaN result open, and Rust does not promise which operand's
//! NaN an operation returns (the compiler may swap the operands of an addition). TFLM's host
//! build returns, as SSE does, the first operand if it is a NaN, else the second, quietened;
//! and the default NaN `0xffc00000` for an invalid operation on numbers (`inf - inf`, `0 *
//! inf`, `0 / 0`). These give those bits, in the operand order the kernel states (TFLM's
//! compiled order), and otherwise the IEEE result.

use crate::{DEFAULT_NAN, quiet};

/// A NaN `result` replaced by the one SSE gives for `a op b`.
#[inline(always)]
fn nan_bits(result: f32, a: f32, b: f32) -> f32 {
    if !result.is_nan() {
        result
    } else if a.is_nan() {
        quiet(a)
    } else if b.is_nan() {
        quiet(b)
    } else {
        DEFAULT_NAN
    }
}

/// `a + b` as `addss` (`a` the destination operand).
#[inline(always)]
#[must_use]
pub fn add(a: f32, b: f32) -> f32 {
    nan_bits(a + b, a, b)
}

/// `a - b` as `subss`.
#[inline(always)]
#[must_use]
pub fn sub(a: f32, b: f32) -> f32 {
    nan_bits(a - b, a, b)
}

/// `a * b` as `mulss`.
#[inline(always)]
#[must_use]
pub fn mul(a: f32, b: f32) -> f32 {
    nan_bits(a * b, a, b)
}

/// `a / b` as `divss`.
#[inline(always)]
#[must_use]
pub fn div(a: f32, b: f32) -> f32 {
    nan_bits(a / b, a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_operands_and_invalid_operations() {
        let a = f32::from_bits(0x7fc0_0001);
        let b = f32::from_bits(0xff80_0002);
        assert_eq!(add(a, b).to_bits(), 0x7fc0_0001);
        assert_eq!(add(b, a).to_bits(), 0xffc0_0002);
        assert_eq!(sub(1.0, b).to_bits(), 0xffc0_0002);
        assert_eq!(mul(0.0, f32::INFINITY).to_bits(), 0xffc0_0000);
        assert_eq!(sub(f32::INFINITY, f32::INFINITY).to_bits(), 0xffc0_0000);
        assert_eq!(div(0.0, 0.0).to_bits(), 0xffc0_0000);
        assert_eq!(div(1.0, 4.0), 0.25);
        assert_eq!(add(-0.0, 0.0).to_bits(), 0);
    }
}
