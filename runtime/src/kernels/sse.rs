//! Float arithmetic with the NaNs of TFLM's x86-64 build.
//!
//! IEEE arithmetic fixes every result but a NaN's bits: when both operands are NaN, SSE returns
//! the first source (the destination register) quietened, and an invalid operation on numbers
//! (`inf - inf`, `0 × inf`) gives x86's default NaN, negative. Rust leaves those bits
//! unspecified (the compiler may swap the operands of `+` and `*`), and other targets have
//! other default NaNs. Kernels whose NaNs meet NaNs (the recurrent state of an LSTM or an SVDF
//! carries them from step to step) use these, with the operand order TFLM's `_runtime.so`
//! has for each operation.

/// x86's default NaN (`0xffc00000`).
pub(super) const DEFAULT_NAN: u32 = 0xffc0_0000;

/// The result of an SSE binary operation whose first source is `a` and whose IEEE result is
/// `r`: a NaN `a` (quietened), else a NaN `b` (quietened), else `r` (x86's default NaN if `r`
/// is a NaN).
#[inline(always)]
fn sse(a: f32, b: f32, r: f32) -> f32 {
    if a.is_nan() {
        f32::from_bits(a.to_bits() | 0x0040_0000)
    } else if b.is_nan() {
        f32::from_bits(b.to_bits() | 0x0040_0000)
    } else if r.is_nan() {
        f32::from_bits(DEFAULT_NAN)
    } else {
        r
    }
}

/// `a + b` with `a` the first source.
#[inline(always)]
pub(super) fn add(a: f32, b: f32) -> f32 {
    sse(a, b, a + b)
}

/// `a × b` with `a` the first source.
#[inline(always)]
pub(super) fn mul(a: f32, b: f32) -> f32 {
    sse(a, b, a * b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_nan_wins() {
        let (p, n) = (f32::from_bits(0x7fc0_0001), f32::from_bits(0xffc0_0002));
        assert_eq!(add(p, n).to_bits(), p.to_bits());
        assert_eq!(add(n, p).to_bits(), n.to_bits());
        assert_eq!(mul(1.0, n).to_bits(), n.to_bits());
        // A signalling NaN is quietened.
        assert_eq!(add(f32::from_bits(0x7f80_0001), 1.0).to_bits(), 0x7fc0_0001);
        assert_eq!(add(f32::INFINITY, f32::NEG_INFINITY).to_bits(), DEFAULT_NAN);
        assert_eq!(mul(0.0, f32::INFINITY).to_bits(), DEFAULT_NAN);
        assert_eq!(add(1.5, 2.0), 3.5);
    }
}
