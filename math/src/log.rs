//! `logf`, the single-precision natural logarithm TFLM calls through `std::log(float)` (in
//! `CheckedLog2`, which the LSTM's `Prepare` uses for the cell state's scale).
//!
//! This is the algorithm of Arm's optimized-routines `logf` (MIT), which glibc (since 2.27) and
//! musl both ship, in its portable form (no FMA contraction): `x = 2^k z` with `z` in
//! `[0x1.66p-1, 0x1.66p0)`, a 16-entry table of `1/c` and `log(c)` for the subinterval `z`
//! falls in, and a degree-3 polynomial for `log1p(z/c - 1)`, all in `f64`. Everything is IEEE
//! `f64`/`f32` arithmetic, so it gives the same bits on every target.

/// `(1/c, log(c))` as `f64` bits, for the 16 subintervals of `[OFF, 2 OFF)`.
const TAB: [(u64, u64); 16] = [
    (0x3ff6_61ec_79f8_f3be, 0xbfd5_7bf7_808c_aade),
    (0x3ff5_71ed_4aaf_883d, 0xbfd2_bef0_a7c0_6ddb),
    (0x3ff4_9539_f0f0_10b0, 0xbfd0_1eae_7f51_3a67),
    (0x3ff3_c995_b0b8_0385, 0xbfcb_31d8_a682_24e9),
    (0x3ff3_0d19_0c88_64a5, 0xbfc6_574f_0ac0_7758),
    (0x3ff2_5e22_7b0b_8ea0, 0xbfc1_aa2b_c79c_8100),
    (0x3ff1_bb4a_4a1a_343f, 0xbfba_4e76_ce8c_0e5e),
    (0x3ff1_2358_f08a_e5ba, 0xbfb1_973c_5a61_1ccc),
    (0x3ff0_953f_4199_00a7, 0xbfa2_52f4_38e1_0c1e),
    (0x3ff0_0000_0000_0000, 0x0000_0000_0000_0000),
    (0x3fee_608c_fd9a_47ac, 0x3faa_a5aa_5df2_5984),
    (0x3fec_a4b3_1f02_6aa0, 0x3fbc_5e53_aa36_2eb4),
    (0x3feb_2036_576a_fce6, 0x3fc5_26e5_7720_db08),
    (0x3fe9_c2d1_63a1_aa2d, 0x3fcb_c286_0d22_4770),
    (0x3fe8_86e6_0378_41ed, 0x3fd1_058b_c8a0_7ee1),
    (0x3fe7_67dc_f553_4862, 0x3fd4_0430_57b6_ee09),
];

/// `ln 2`.
const LN2: f64 = f64::from_bits(0x3fe6_2e42_fefa_39ef);
/// The polynomial `log1p(r) ~= A0 r^4 + A1 r^3 + A2 r^2 + r` (the terms of `r^2` and up).
const A0: f64 = f64::from_bits(0xbfd0_0ea3_48b8_8334);
const A1: f64 = f64::from_bits(0x3fd5_575b_0be0_0b6a);
const A2: f64 = f64::from_bits(0xbfdf_fffe_f20a_4123);
/// The bits of `0x1.66p-1`, the start of the reduced range.
const OFF: u32 = 0x3f33_0000;

/// `ln(x)` rounded to `f32`, as glibc's and musl's `logf`.
#[must_use]
pub fn logf(x: f32) -> f32 {
    let mut ix = x.to_bits();
    if ix.wrapping_sub(0x0080_0000) >= 0x7f80_0000 - 0x0080_0000 {
        // x < 0x1p-126, infinite or NaN.
        if ix.wrapping_mul(2) == 0 {
            return f32::NEG_INFINITY;
        }
        if ix == 0x7f80_0000 {
            return x;
        }
        if ix & 0x8000_0000 != 0 || ix.wrapping_mul(2) >= 0xff00_0000 {
            // A NaN stays itself (quieted); a negative x gives the default NaN, as the C code's
            // `(x - x) / (x - x)` does on x86.
            return if x.is_nan() {
                x + x
            } else {
                f32::from_bits(0xffc0_0000)
            };
        }
        // Subnormal: normalise.
        ix = (x * f32::from_bits(0x4b00_0000)).to_bits();
        ix = ix.wrapping_sub(23 << 23);
    }
    // x = 2^k z, z in [OFF, 2 OFF) exactly; the subinterval i holds z.
    let tmp = ix.wrapping_sub(OFF);
    let i = ((tmp >> (23 - 4)) % 16) as usize;
    let k = (tmp as i32) >> 23;
    let iz = ix.wrapping_sub(tmp & (0x1ff << 23));
    let (invc, logc) = match TAB.get(i) {
        Some(&(a, b)) => (f64::from_bits(a), f64::from_bits(b)),
        None => (1.0, 0.0),
    };
    let z = f64::from(f32::from_bits(iz));
    // log(x) = log1p(z/c - 1) + log(c) + k ln 2.
    let r = z * invc - 1.0;
    let y0 = logc + f64::from(k) * LN2;
    let r2 = r * r;
    let y = A1 * r + A2;
    let y = A0 * r2 + y;
    let y = y * r2 + (y0 + r);
    y as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logf_special_values() {
        assert_eq!(logf(1.0).to_bits(), 0);
        assert_eq!(logf(0.0), f32::NEG_INFINITY);
        assert_eq!(logf(-0.0), f32::NEG_INFINITY);
        assert_eq!(logf(f32::INFINITY), f32::INFINITY);
        assert!(logf(-1.0).is_nan());
        assert!(logf(f32::NAN).is_nan());
        assert_eq!(logf(2.0), core::f32::consts::LN_2);
    }

    /// The host's C library (glibc on Linux) computes the same function.
    #[test]
    fn logf_matches_the_host_c_library() {
        let mut s: u32 = 0x2545_f491;
        for _ in 0..if cfg!(miri) { 200 } else { 300_000 } {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            // Every positive float, subnormals included.
            let x = f32::from_bits(s & 0x7fff_ffff);
            let (got, want) = (logf(x), x.ln());
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "log {x:e}: {got:e} vs {want:e}"
            );
        }
    }
}
