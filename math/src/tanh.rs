//! `tanhf` and `expm1f`, as glibc (through 2.40) computes them: TFLM's float kernels call
//! `tanhf` through `std::tanh(float)` (the float LSTM's cell gate and cell output, SVDF's
//! `TANH` activation).
//!
//! Both are Sun's fdlibm algorithms in their single-precision form (Ian Lance Taylor's
//! conversion, glibc's `sysdeps/ieee754/flt-32/s_tanhf.c` and `s_expm1f.c`): `tanh(x)` from
//! `expm1(2|x|)` or `expm1(-2|x|)`, and `expm1` by reduction `x = k ln 2 + r` and a rational
//! approximation on `[-ln 2 / 2, ln 2 / 2]`, all in `f32`. Plain IEEE arithmetic (no FMA
//! contraction), so the same bits on every target. (musl's `tanhf` is a different algorithm;
//! TFLM's wheel is built against glibc.)

/// `ln 2`, high part (its last bits zero, so that `k * LN2_HI` is exact).
const LN2_HI: f32 = f32::from_bits(0x3f31_7180);
/// `ln 2 - LN2_HI`.
const LN2_LO: f32 = f32::from_bits(0x3717_f7d1);
/// `1 / ln 2`.
const INV_LN2: f32 = f32::from_bits(0x3fb8_aa3b);
/// Overflow threshold: `expm1(x)` is infinite above it.
const O_THRESHOLD: f32 = f32::from_bits(0x42b1_7180);
/// The rational approximation's coefficients.
const Q1: f32 = f32::from_bits(0xbd08_8889);
const Q2: f32 = f32::from_bits(0x3ad0_0d01);
const Q3: f32 = f32::from_bits(0xb8a6_70cd);
const Q4: f32 = f32::from_bits(0x3686_7e54);
const Q5: f32 = f32::from_bits(0xb457_edbb);
const HUGE: f32 = 1.0e30;
const TINY: f32 = 1.0e-30;

/// `e^x - 1` rounded to `f32`, as glibc's `expm1f` (fdlibm).
#[must_use]
pub fn expm1f(x: f32) -> f32 {
    let bits = x.to_bits();
    let negative = bits & 0x8000_0000 != 0;
    let hx = bits & 0x7fff_ffff;
    let mut x = x;

    // Huge and non-finite arguments.
    if hx >= 0x4195_b844 {
        // |x| >= 27 ln 2.
        if hx >= 0x42b1_7218 {
            // |x| >= 88.721...
            if hx > 0x7f80_0000 {
                return x + x; // NaN
            }
            if hx == 0x7f80_0000 {
                return if negative { -1.0 } else { x };
            }
            if x > O_THRESHOLD {
                return HUGE * HUGE; // overflow
            }
        }
        if negative {
            // x < -27 ln 2: -1 (inexact).
            return TINY - 1.0;
        }
    }

    // Argument reduction.
    let k: i32;
    let mut c = 0.0_f32;
    if hx > 0x3eb1_7218 {
        // |x| > ln 2 / 2.
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
            // The C `(int32_t)` conversion truncates; |x| < 88.8 here, so it is in range.
            k = (INV_LN2 * x + half) as i32;
            let t = k as f32;
            hi = x - t * LN2_HI; // exact
            lo = t * LN2_LO;
        }
        x = hi - lo;
        c = (hi - x) - lo;
    } else if hx < 0x3300_0000 {
        // |x| < 2^-25: x itself.
        let t = HUGE + x;
        return x - (t - (HUGE + x));
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
    // Adds k to the exponent of y.
    let scale = |y: f32| f32::from_bits(y.to_bits().wrapping_add((k as u32).wrapping_shl(23)));
    if k <= -2 || k > 56 {
        let y = 1.0 - (e - x);
        return scale(y) - 1.0;
    }
    if k < 23 {
        let t = f32::from_bits(0x3f80_0000 - (0x0100_0000 >> k)); // 1 - 2^-k
        scale(t - (e - x))
    } else {
        let t = f32::from_bits(((0x7f - k) as u32) << 23); // 2^-k
        let y = x - (e + t) + 1.0;
        scale(y)
    }
}

/// `tanh(x)` rounded to `f32`, as glibc's `tanhf` (fdlibm): `1 - 2 / (expm1(2|x|) + 2)` for
/// `|x| >= 1`, `-t / (t + 2)` with `t = expm1(-2|x|)` below, `x` itself for tiny `x`, `±1`
/// from 22 on.
#[must_use]
pub fn tanhf(x: f32) -> f32 {
    let jx = x.to_bits() as i32;
    let ix = jx & 0x7fff_ffff;
    if ix >= 0x7f80_0000 {
        // Infinite or NaN.
        return if jx >= 0 {
            1.0 / x + 1.0
        } else {
            1.0 / x - 1.0
        };
    }
    let z = if ix < 0x41b0_0000 {
        // |x| < 22.
        if ix == 0 {
            return x; // ±0
        }
        if ix < 0x2400_0000 {
            // |x| < 2^-55.
            return x * (1.0 + x);
        }
        let ax = f32::from_bits(ix as u32);
        if ix >= 0x3f80_0000 {
            // |x| >= 1.
            let t = expm1f(2.0 * ax);
            1.0 - 2.0 / (t + 2.0)
        } else {
            let t = expm1f(-2.0 * ax);
            -t / (t + 2.0)
        }
    } else {
        1.0 - TINY
    };
    if jx >= 0 { z } else { -z }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tanhf_special_values() {
        assert_eq!(tanhf(0.0).to_bits(), 0);
        assert_eq!(tanhf(-0.0).to_bits(), (-0.0_f32).to_bits());
        assert_eq!(tanhf(f32::INFINITY), 1.0);
        assert_eq!(tanhf(f32::NEG_INFINITY), -1.0);
        assert!(tanhf(f32::NAN).is_nan());
        assert_eq!(tanhf(30.0), 1.0);
        assert_eq!(tanhf(-30.0), -1.0);
        assert_eq!(expm1f(0.0), 0.0);
        assert_eq!(expm1f(f32::NEG_INFINITY), -1.0);
        assert_eq!(expm1f(100.0), f32::INFINITY);
    }

    /// The host's C library (glibc on Linux) computes the same functions.
    #[test]
    fn tanhf_and_expm1f_match_the_host_c_library() {
        let mut s: u32 = 0x2545_f491;
        for _ in 0..if cfg!(miri) { 200 } else { 300_000 } {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            // Every float, and the range where tanh is neither tiny nor ±1.
            let x = if s & 1 == 0 {
                f32::from_bits(s)
            } else {
                (f64::from(s) / f64::from(u32::MAX) * 40.0 - 20.0) as f32
            };
            let (got, want) = (tanhf(x), x.tanh());
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "tanh {x:e}: {got:e} vs {want:e}"
            );
            let (got, want) = (expm1f(x), x.exp_m1());
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "expm1 {x:e}: {got:e} vs {want:e}"
            );
        }
    }
}
