//! `expf`, the single-precision exponential TFLM's float kernels call through
//! `std::exp(float)`.
//!
//! This is the algorithm of Arm's optimized-routines `expf` (MIT), which glibc (since 2.27) and
//! musl both ship: a 32-entry table of `2^(i/32)` and a degree-3 polynomial evaluated in `f64`,
//! rounding to integer by adding `0x1.8p52`. It is evaluated as glibc's x86-64 FMA build
//! (`__expf_fma`, which glibc selects on processors with FMA) computes it: the products and
//! sums its machine code fuses are fused here too, through the exact [`fma`] (the plain build
//! gives other bits for 2 of the 2^32 inputs, e.g. 32.564632 and -63.09946). The plain
//! evaluation comes first; only a result close to an `f32` rounding boundary is evaluated
//! again with the fused operations, which decide it. Everything is IEEE arithmetic and integer
//! operations, so it gives the same bits on every target.

use crate::{madd, near_f32_midpoint, quiet};

/// `2^(i/32)` as `f64` bits, minus `i << 47`: `2^(k/32)` for an integer `k` is
/// `f64::from_bits(TAB[k % 32] + (k << 47))`.
const TAB: [u64; 32] = [
    0x3ff0_0000_0000_0000,
    0x3fef_d9b0_d315_8574,
    0x3fef_b558_6cf9_890f,
    0x3fef_9301_d012_5b51,
    0x3fef_72b8_3c7d_517b,
    0x3fef_5487_3168_b9aa,
    0x3fef_387a_6e75_6238,
    0x3fef_1e9d_f51f_dee1,
    0x3fef_06fe_0a31_b715,
    0x3fee_f1a7_373a_a9cb,
    0x3fee_dea6_4c12_3422,
    0x3fee_ce08_6061_892d,
    0x3fee_bfda_d536_2a27,
    0x3fee_b42b_569d_4f82,
    0x3fee_ab07_dd48_5429,
    0x3fee_a47e_b03a_5585,
    0x3fee_a09e_667f_3bcd,
    0x3fee_9f75_e8ec_5f74,
    0x3fee_a114_73eb_0187,
    0x3fee_a589_994c_ce13,
    0x3fee_ace5_422a_a0db,
    0x3fee_b737_b0cd_c5e5,
    0x3fee_c491_82a3_f090,
    0x3fee_d503_b23e_255d,
    0x3fee_e89f_995a_d3ad,
    0x3fee_ff76_f2fb_5e47,
    0x3fef_199b_dd85_529c,
    0x3fef_3720_dcef_9069,
    0x3fef_5818_dcfb_a487,
    0x3fef_7c97_337b_9b5f,
    0x3fef_a4af_a2a4_90da,
    0x3fef_d076_5b6e_4540,
];

/// Table size `N = 2^5`.
const N: f64 = 32.0;
/// `N / ln 2`.
const INV_LN2_N: f64 = f64::from_bits(0x3ff7_1547_652b_82fe) * N;
/// `0x1.8p52`: adding it rounds to an integer (ties to even).
const SHIFT: f64 = f64::from_bits(0x4338_0000_0000_0000);
/// The polynomial `2^(r/N) ~= C0 r^3 + C1 r^2 + C2 r + 1`, coefficients scaled by `N`.
const C0: f64 = f64::from_bits(0x3fac_6af8_4b91_2394) / N / N / N;
const C1: f64 = f64::from_bits(0x3fce_bfce_50fa_c4f3) / N / N;
const C2: f64 = f64::from_bits(0x3fe6_2e42_ff0c_52d6) / N;

/// The top 12 bits of `x`'s representation.
const fn top12(x: f32) -> u32 {
    x.to_bits() >> 20
}

/// `e^x` rounded to `f32`, as glibc's and musl's `expf`.
#[must_use]
pub fn expf(x: f32) -> f32 {
    let xd = f64::from(x);
    let abstop = top12(x) & 0x7ff;
    if abstop >= top12(88.0) {
        // |x| >= 88 or x is NaN.
        if x.to_bits() == f32::NEG_INFINITY.to_bits() {
            return 0.0;
        }
        if abstop >= top12(f32::INFINITY) {
            // +infinity, or NaN (quietened, as x86's `x + x`).
            return quiet(x);
        }
        if x > f32::from_bits(0x42b1_7217) {
            // x > log(0x1p128) ~= 88.72: overflow.
            return f32::INFINITY;
        }
        if x < f32::from_bits(0xc2cf_f1b4) {
            // x < log(0x1p-150) ~= -103.97: underflow.
            return 0.0;
        }
    }

    let y = exp_core::<false>(xd);
    let y = if near_f32_midpoint(y) {
        exp_core::<true>(xd)
    } else {
        y
    };
    y as f32
}

/// `e^xd` in `f64` before the final rounding, fused as `__expf_fma` (`FUSED`) or not.
#[inline(always)]
fn exp_core<const FUSED: bool>(xd: f64) -> f64 {
    // x * N / ln 2 = k + r with r in [-1/2, 1/2] and integer k (`z = InvLn2N * xd` is fused
    // into both of its uses).
    let kd = madd::<FUSED>(INV_LN2_N, xd, SHIFT);
    let ki = kd.to_bits();
    let kd = kd - SHIFT;
    let r = madd::<FUSED>(INV_LN2_N, xd, -kd);

    // exp(x) = 2^(k/N) * 2^(r/N) ~= s * (C0 r^3 + C1 r^2 + C2 r + 1).
    let t = TAB[(ki % 32) as usize].wrapping_add(ki << 47);
    let s = f64::from_bits(t);
    let z = madd::<FUSED>(C0, r, C1);
    let r2 = r * r;
    let y = madd::<FUSED>(C2, r, 1.0);
    let y = madd::<FUSED>(z, r2, y);
    y * s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expf_matches_correctly_rounded_values() {
        assert_eq!(expf(0.0), 1.0);
        assert_eq!(expf(-0.0), 1.0);
        // e = 2.7182817 is the f32 nearest to e; e^-1 and e^10 likewise.
        assert_eq!(expf(1.0), core::f32::consts::E);
        assert_eq!(expf(-1.0).to_bits(), 0x3ebc_5ab2);
        assert_eq!(expf(10.0).to_bits(), 0x46ac_14ee);
        assert_eq!(expf(f32::NEG_INFINITY), 0.0);
        assert_eq!(expf(f32::INFINITY), f32::INFINITY);
        assert!(expf(f32::NAN).is_nan());
        assert_eq!(expf(89.0), f32::INFINITY);
        assert_eq!(expf(-104.0), 0.0);
        // A subnormal result: e^-100 = 3.7200760e-44 = 27 * 2^-149 (nearest).
        assert_eq!(expf(-100.0).to_bits(), 27);
    }

    /// The host's C library (glibc on Linux) computes the same function.
    #[test]
    fn expf_matches_the_host_c_library() {
        let mut s: u32 = 0x2545_f491;
        for _ in 0..if cfg!(miri) { 200 } else { 300_000 } {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            // Inputs over the range where expf is neither 0 nor infinite, and some beyond.
            let x = (f64::from(s) / f64::from(u32::MAX) * 220.0 - 110.0) as f32;
            let (got, want) = (expf(x), x.exp());
            assert!(
                got.to_bits() == want.to_bits(),
                "exp {x:e}: {got:e} vs {want:e}"
            );
        }
    }
}
