//! `logf`, the natural logarithm TFLM's float kernels call through `std::log(float)` (LOG,
//! LOG_SOFTMAX).
//!
//! glibc 2.36's `sysdeps/ieee754/flt-32/e_logf.c` (Arm's optimized-routines `logf`): `x = 2^k
//! z` with `z` in a 16-way subdivided interval around 1, `log(x) = log1p(z/c - 1) + log(c) + k
//! ln 2` with a table of `1/c` and `log(c)` and a degree-4 polynomial in `f64`. Evaluated as
//! glibc's x86-64 FMA build (`__logf_fma`) computes it: `z * invc - 1`, `k * ln2 + logc` and the
//! three polynomial steps are fused (the exact `fma`; the plain evaluation first, the fused one
//! only for a result close to an `f32` rounding boundary). glibc documents 0.818 ULP as its
//! largest error.

use crate::{invalid, madd, near_f32_midpoint, quiet};

/// `(1/c, log(c))` for the 16 subintervals (`__logf_data.tab`).
const TAB: [(f64, f64); 16] = [
    (
        f64::from_bits(0x3ff6_61ec_79f8_f3be),
        f64::from_bits(0xbfd5_7bf7_808c_aade),
    ),
    (
        f64::from_bits(0x3ff5_71ed_4aaf_883d),
        f64::from_bits(0xbfd2_bef0_a7c0_6ddb),
    ),
    (
        f64::from_bits(0x3ff4_9539_f0f0_10b0),
        f64::from_bits(0xbfd0_1eae_7f51_3a67),
    ),
    (
        f64::from_bits(0x3ff3_c995_b0b8_0385),
        f64::from_bits(0xbfcb_31d8_a682_24e9),
    ),
    (
        f64::from_bits(0x3ff3_0d19_0c88_64a5),
        f64::from_bits(0xbfc6_574f_0ac0_7758),
    ),
    (
        f64::from_bits(0x3ff2_5e22_7b0b_8ea0),
        f64::from_bits(0xbfc1_aa2b_c79c_8100),
    ),
    (
        f64::from_bits(0x3ff1_bb4a_4a1a_343f),
        f64::from_bits(0xbfba_4e76_ce8c_0e5e),
    ),
    (
        f64::from_bits(0x3ff1_2358_f08a_e5ba),
        f64::from_bits(0xbfb1_973c_5a61_1ccc),
    ),
    (
        f64::from_bits(0x3ff0_953f_4199_00a7),
        f64::from_bits(0xbfa2_52f4_38e1_0c1e),
    ),
    (1.0, 0.0),
    (
        f64::from_bits(0x3fee_608c_fd9a_47ac),
        f64::from_bits(0x3faa_a5aa_5df2_5984),
    ),
    (
        f64::from_bits(0x3fec_a4b3_1f02_6aa0),
        f64::from_bits(0x3fbc_5e53_aa36_2eb4),
    ),
    (
        f64::from_bits(0x3feb_2036_576a_fce6),
        f64::from_bits(0x3fc5_26e5_7720_db08),
    ),
    (
        f64::from_bits(0x3fe9_c2d1_63a1_aa2d),
        f64::from_bits(0x3fcb_c286_0d22_4770),
    ),
    (
        f64::from_bits(0x3fe8_86e6_0378_41ed),
        f64::from_bits(0x3fd1_058b_c8a0_7ee1),
    ),
    (
        f64::from_bits(0x3fe7_67dc_f553_4862),
        f64::from_bits(0x3fd4_0430_57b6_ee09),
    ),
];

/// `ln 2` (`__logf_data.ln2`).
const LN2: f64 = f64::from_bits(0x3fe6_2e42_fefa_39ef);
/// The polynomial (`__logf_data.poly`): `log1p(r) ~= r + A0 r^4 + A1 r^3 + A2 r^2`.
const A0: f64 = f64::from_bits(0xbfd0_0ea3_48b8_8334);
const A1: f64 = f64::from_bits(0x3fd5_575b_0be0_0b6a);
const A2: f64 = f64::from_bits(0xbfdf_fffe_f20a_4123);
/// The start of the interval `z` is reduced to (about `0.7`).
const OFF: u32 = 0x3f33_0000;

/// `ln(x)` rounded to `f32`, as glibc's `logf` on x86-64 with FMA: `-inf` for `±0`, `+inf`
/// for `+inf`, the default NaN for negative numbers and `-inf`, `x` quietened for NaN.
#[must_use]
pub fn logf(x: f32) -> f32 {
    let mut ix = x.to_bits();
    if ix == 0x3f80_0000 {
        return 0.0;
    }
    if ix.wrapping_sub(0x0080_0000) >= 0x7f80_0000 - 0x0080_0000 {
        // x < 2^-126, infinite or NaN.
        if ix.wrapping_mul(2) == 0 {
            return f32::NEG_INFINITY;
        }
        if ix == 0x7f80_0000 {
            return x;
        }
        if ix & 0x8000_0000 != 0 || ix.wrapping_mul(2) >= 0xff00_0000 {
            return if x.is_nan() { quiet(x) } else { invalid(x) };
        }
        // Subnormal: normalise (exact).
        ix = (x * 8_388_608.0).to_bits().wrapping_sub(23 << 23);
    }
    // x = 2^k z, z in [OFF, 2 OFF] exactly; the subinterval i contains z.
    let tmp = ix.wrapping_sub(OFF);
    let i = ((tmp >> (23 - 4)) % 16) as usize;
    let k = (tmp as i32) >> 23;
    let iz = ix.wrapping_sub(tmp & (0x1ff << 23));
    let (invc, logc) = TAB[i];
    let z = f64::from(f32::from_bits(iz));

    let y = log_core::<false>(z, invc, logc, k);
    let y = if near_f32_midpoint(y) {
        log_core::<true>(z, invc, logc, k)
    } else {
        y
    };
    y as f32
}

/// `log1p(z/c - 1) + log(c) + k ln 2` in `f64` before the final rounding, fused as
/// `__logf_fma` (`FUSED`) or not.
#[inline(always)]
fn log_core<const FUSED: bool>(z: f64, invc: f64, logc: f64, k: i32) -> f64 {
    let r = madd::<FUSED>(z, invc, -1.0);
    let y0 = madd::<FUSED>(f64::from(k), LN2, logc);
    let r2 = r * r;
    let y = madd::<FUSED>(A1, r, A2);
    let y = madd::<FUSED>(A0, r2, y);
    madd::<FUSED>(y, r2, y0 + r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{inputs, same};

    #[test]
    fn special_values() {
        assert_eq!(logf(1.0).to_bits(), 0);
        assert_eq!(logf(0.0), f32::NEG_INFINITY);
        assert_eq!(logf(-0.0), f32::NEG_INFINITY);
        assert_eq!(logf(f32::INFINITY), f32::INFINITY);
        assert_eq!(logf(-1.0).to_bits(), 0xffc0_0000);
        assert_eq!(logf(f32::NEG_INFINITY).to_bits(), 0xffc0_0000);
        assert_eq!(logf(f32::from_bits(0x7f80_0001)).to_bits(), 0x7fc0_0001);
        assert_eq!(logf(2.0).to_bits(), core::f32::consts::LN_2.to_bits());
    }

    /// The host's C library (glibc on x86-64 Linux) computes the same function.
    #[test]
    fn matches_the_host_c_library() {
        let edges = [
            1.0,
            0.5,
            2.0,
            f32::MIN_POSITIVE,
            f32::from_bits(OFF),
            0.7,
            1.4,
        ];
        for x in inputs(if cfg!(miri) { 100 } else { 300_000 }, 4.0, &edges) {
            let (got, want) = (logf(x), x.ln());
            assert!(
                same(got, want),
                "log {x:e} ({:#x}): {got:e} ({:#x}) vs {want:e} ({:#x})",
                x.to_bits(),
                got.to_bits(),
                want.to_bits()
            );
        }
    }
}
