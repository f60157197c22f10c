//! `sqrtf`, correctly rounded (IEEE 754 requires it, so it has one right answer), from the
//! integer square root of the significand.

use crate::{DEFAULT_NAN, quiet};

/// `floor(sqrt(n))` for `n < 2^52`, digit by digit.
fn isqrt(n: u64) -> u64 {
    let mut rem = n;
    let mut root: u64 = 0;
    let mut bit: u64 = 1 << 50;
    while bit > n {
        bit >>= 2;
    }
    while bit != 0 {
        if rem >= root + bit {
            rem -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    root
}

/// C's `sqrtf`: the square root rounded to nearest, ties to even; `-0.0` for `-0.0`, the
/// operand for `+inf`, a NaN quietened (as x86-64's `sqrtss`), and for negative operands the
/// NaN `sqrtss` gives (TFLM's host build), `0xffc00000`.
#[must_use]
pub fn sqrtf(x: f32) -> f32 {
    if x.is_nan() {
        return quiet(x);
    }
    if x == 0.0 || x == f32::INFINITY {
        return x;
    }
    if x < 0.0 {
        return DEFAULT_NAN;
    }
    let bits = x.to_bits();
    let mut exponent = ((bits >> 23) & 0xff) as i32;
    let mut significand = bits & 0x7f_ffff;
    if exponent == 0 {
        // Subnormal: normalise.
        exponent = 1;
        while significand & 0x80_0000 == 0 {
            significand <<= 1;
            exponent -= 1;
        }
    } else {
        significand |= 0x80_0000;
    }
    // x = significand * 2^(exponent - 150), significand in [2^23, 2^24). Make the power even.
    let mut e = exponent - 150;
    let mut m = u64::from(significand);
    if e & 1 != 0 {
        m <<= 1;
        e -= 1;
    }
    // m in [2^23, 2^25): scale by an even power k so that m * 2^k lies in [2^48, 2^50) and its
    // root q in [2^24, 2^25): 24 bits for the result and one to round with.
    let k = if m < 1 << 24 { 26 } else { 24 };
    let scaled = m << k;
    let q = isqrt(scaled);
    let sticky = q * q != scaled;
    let mut r = q >> 1;
    let mut e2 = (e - k) / 2 + 1;
    if q & 1 == 1 && (sticky || r & 1 == 1) {
        r += 1;
        if r == 1 << 24 {
            r >>= 1;
            e2 += 1;
        }
    }
    // r in [2^23, 2^24): the value is r * 2^e2; the biased exponent of the result is e2 + 150.
    let biased = e2 + 150;
    f32::from_bits(((biased as u32) << 23) | (r as u32 & 0x7f_ffff))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn correctly_rounded() {
        let mut values = std::vec![
            0.0,
            -0.0,
            1.0,
            2.0,
            4.0,
            0.25,
            f32::MAX,
            f32::MIN_POSITIVE,
            1e-45,
            3e-39,
            f32::INFINITY,
            2.0000002,
            0.99999994,
        ];
        let mut s: u32 = 0x9e37_79b9;
        for _ in 0..if cfg!(miri) { 200 } else { 500_000 } {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            values.push(f32::from_bits(s & 0x7fff_ffff));
        }
        for &x in &values {
            let want = x.sqrt();
            let got = sqrtf(x);
            assert!(
                got.to_bits() == want.to_bits(),
                "sqrt {x:e}: {got:e} vs {want:e}"
            );
        }
        assert_eq!(sqrtf(-1.0).to_bits(), 0xffc0_0000);
        assert_eq!(sqrtf(-0.0).to_bits(), (-0.0_f32).to_bits());
    }
}
