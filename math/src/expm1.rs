//! `expm1f`, `e^x - 1`, which TFLM's float ELU calls (`TfLiteExpm1`, `std::expm1(float)`) and
//! glibc's `tanhf` uses.
//!
//! glibc 2.36's `sysdeps/ieee754/flt-32/s_expm1f.c` (Sun's fdlibm, in `f32` arithmetic):
//! reduction `x = k ln2 + r` with `ln2` split in two, a rational approximation on `r`, and the
//! result assembled by adding `k` to the exponent. glibc builds it once for x86-64 (no FMA
//! variant), so every operation here is the plain `f32` operation of the C source, in its
//! order.

use crate::quiet;

const O_THRESHOLD: f32 = f32::from_bits(0x42b1_7180); // 88.7216796875
const LN2_HI: f32 = f32::from_bits(0x3f31_7180); // 6.9313812256e-01
const LN2_LO: f32 = f32::from_bits(0x3717_f7d1); // 9.0580006145e-06
const INVLN2: f32 = f32::from_bits(0x3fb8_aa3b); // 1.4426950216e+00
const Q1: f32 = f32::from_bits(0xbd08_8889); // -3.3333335072e-02
const Q2: f32 = f32::from_bits(0x3ad0_0d01); // 1.5873016091e-03
const Q3: f32 = f32::from_bits(0xb8a6_70cd); // -7.9365076090e-05
const Q4: f32 = f32::from_bits(0x3686_7e54); // 4.0082177293e-06
const Q5: f32 = f32::from_bits(0xb457_edbb); // -2.0109921195e-07

/// `y` with `k` added to its exponent field (`SET_FLOAT_WORD(y, i + (k << 23))`).
fn add_exponent(y: f32, k: i32) -> f32 {
    f32::from_bits((y.to_bits() as i32).wrapping_add(k.wrapping_shl(23)) as u32)
}

/// `e^x - 1` rounded to `f32`, as glibc's `expm1f` (`-1` below `-27 ln 2`, `+inf` above
/// 88.72, `x` for `|x| < 2^-25`, `x` quietened for NaN).
#[must_use]
pub fn expm1f(x: f32) -> f32 {
    let bits = x.to_bits();
    let negative = bits & 0x8000_0000 != 0;
    let hx = bits & 0x7fff_ffff;

    // Huge and non-finite arguments.
    if hx >= 0x4195_b844 {
        // |x| >= 27 ln 2.
        if hx >= 0x42b1_7218 {
            // |x| >= 88.721...
            if hx > 0x7f80_0000 {
                return quiet(x);
            }
            if hx == 0x7f80_0000 {
                return if negative { -1.0 } else { x };
            }
            if x > O_THRESHOLD {
                return f32::INFINITY;
            }
        }
        if negative {
            // x < -27 ln 2: `tiny - one`.
            return -1.0;
        }
    }

    // Argument reduction: x = k ln2 + (hi - lo), c the error of hi - lo.
    let mut x = x;
    let k: i32;
    let mut c: f32 = 0.0;
    if hx > 0x3eb1_7218 {
        // |x| > 0.5 ln 2.
        let (hi, lo);
        if hx < 0x3f85_1592 {
            // and |x| < 1.5 ln 2.
            if negative {
                hi = x + LN2_HI;
                lo = -LN2_LO;
                k = -1;
            } else {
                hi = x - LN2_HI;
                lo = LN2_LO;
                k = 1;
            }
        } else {
            let half = if negative { -0.5 } else { 0.5 };
            // The C conversion truncates; |INVLN2 * x + 0.5| < 2^31.
            k = (INVLN2 * x + half) as i32;
            let t = k as f32;
            hi = x - t * LN2_HI;
            lo = t * LN2_LO;
        }
        x = hi - lo;
        c = (hi - x) - lo;
    } else if hx < 0x3300_0000 {
        // |x| < 2^-25: `x - ((huge + x) - (huge + x))`, which is `x`.
        return x;
    } else {
        k = 0;
    }

    // x is now in the primary range.
    let hfx = 0.5 * x;
    let hxs = x * hfx;
    let r1 = 1.0 + hxs * (Q1 + hxs * (Q2 + hxs * (Q3 + hxs * (Q4 + hxs * Q5))));
    let t = 3.0 - r1 * hfx;
    let mut e = hxs * ((r1 - t) / (6.0 - x * t));
    if k == 0 {
        // c is 0.
        return x - (x * e - hxs);
    }
    e = x * (e - c) - c;
    e -= hxs;
    if k == -1 {
        return 0.5 * (x - e) - 0.5;
    }
    if k == 1 {
        return if x < -0.25 {
            -2.0 * (e - (x + 0.5))
        } else {
            1.0 + 2.0 * (x - e)
        };
    }
    if k <= -2 || k > 56 {
        // exp(x) - 1 is exp(x) to within rounding.
        let y = 1.0 - (e - x);
        return add_exponent(y, k) - 1.0;
    }
    if k < 23 {
        // t = 1 - 2^-k.
        let t = f32::from_bits(0x3f80_0000 - (0x100_0000 >> k));
        let y = t - (e - x);
        add_exponent(y, k)
    } else {
        // t = 2^-k.
        let t = f32::from_bits(((0x7f - k) as u32) << 23);
        let y = x - (e + t);
        let y = y + 1.0;
        add_exponent(y, k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{inputs, same};

    /// `expm1f` of the host's C library (Rust's `f32::exp_m1` calls it).
    #[test]
    fn matches_the_host_c_library() {
        let edges = [
            f32::from_bits(0x4195_b844),
            f32::from_bits(0x42b1_7218),
            O_THRESHOLD,
            f32::from_bits(0x3eb1_7218),
            f32::from_bits(0x3f85_1592),
            f32::from_bits(0x3300_0000),
            -0.25,
            16.0,
            40.0,
        ];
        for x in inputs(if cfg!(miri) { 100 } else { 300_000 }, 100.0, &edges) {
            let (got, want) = (expm1f(x), x.exp_m1());
            assert!(
                same(got, want),
                "expm1 {x:e} ({:#x}): {got:e} ({:#x}) vs {want:e} ({:#x})",
                x.to_bits(),
                got.to_bits(),
                want.to_bits()
            );
        }
    }
}
