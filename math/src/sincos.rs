//! `sinf` and `cosf`, which TFLM's SIN and COS call through `std::sin(float)` and
//! `std::cos(float)`.
//!
//! glibc 2.36's `sysdeps/ieee754/flt-32/s_sinf.c`, `s_cosf.c` and `s_sincosf.h` (Arm's
//! optimized-routines `sinf`/`cosf`; the table in the layout of `sysdeps/x86/fpu/`): below
//! pi/4 a polynomial directly; below 120 a reduction `x - n pi/2` by one multiply-subtract in
//! `f64`; above, an exact reduction with a 192-bit table of `4/pi` in integer arithmetic. In
//! the reduced range, odd polynomials for sine and even ones for cosine in `f64`. Evaluated as
//! glibc's x86-64 FMA build (`__sinf_fma`, `__cosf_fma`) computes it: the reduction's `x - n *
//! hpi` and each polynomial step are fused (the exact `fma`; the plain evaluation first, the
//! fused one only for a result close to an `f32` rounding boundary). glibc documents 0.5607 ULP as
//! the largest error.

use crate::{invalid, madd, near_f32_midpoint};

/// The constants and polynomials of one quadrant pair (`sincos_t`).
struct Poly {
    c0: f64,
    c1: f64,
    c2: f64,
    c3: f64,
    c4: f64,
    s1: f64,
    s2: f64,
    s3: f64,
}

/// Signs of the sine in quadrants 0..3.
const SIGN: [f64; 4] = [1.0, -1.0, -1.0, 1.0];
/// `2 / pi * 2^24` (the quadrant ends up in bits 24..31 of the product).
const HPI_INV: f64 = f64::from_bits(0x4164_5f30_6dc9_c883);
/// `pi / 2`.
const HPI: f64 = f64::from_bits(0x3ff9_21fb_5444_2d18);
/// `2 pi * 2^-64`.
const PI63: f64 = f64::from_bits(0x3c19_21fb_5444_2d18);
/// `pi / 4` as `f32` (`0x1.921fb6p-1`).
const PIO4: f32 = f32::from_bits(0x3f49_0fdb);

const C1: f64 = f64::from_bits(0xbfdf_ffff_fd0c_621c);
const C2: f64 = f64::from_bits(0x3fa5_5553_e106_8f19);
const C3: f64 = f64::from_bits(0xbf56_c087_e89a_359d);
const C4: f64 = f64::from_bits(0x3ef9_9343_027b_f8c3);
const S1: f64 = f64::from_bits(0xbfc5_5554_5995_a603);
const S2: f64 = f64::from_bits(0x3f81_1076_0523_0bc4);
const S3: f64 = f64::from_bits(0xbf29_94eb_3774_cf24);

/// `__sincosf_table`: the second entry computes `-cos(x)`, to negate for free.
const TABLE: [Poly; 2] = [
    Poly {
        c0: 1.0,
        c1: C1,
        c2: C2,
        c3: C3,
        c4: C4,
        s1: S1,
        s2: S2,
        s3: S3,
    },
    Poly {
        c0: -1.0,
        c1: -C1,
        c2: -C2,
        c3: -C3,
        c4: -C4,
        s1: S1,
        s2: S2,
        s3: S3,
    },
];

/// `4 / pi` to 192 bits, 8 new bits an entry (`__inv_pio4`).
const INV_PIO4: [u32; 24] = [
    0xa2,
    0xa2f9,
    0xa2_f983,
    0xa2f9_836e,
    0xf983_6e4e,
    0x836e_4e44,
    0x6e4e_4415,
    0x4e44_1529,
    0x4415_29fc,
    0x1529_fc27,
    0x29fc_2757,
    0xfc27_57d1,
    0x2757_d1f5,
    0x57d1_f534,
    0xd1f5_34dd,
    0xf534_ddc0,
    0x34dd_c0db,
    0xddc0_db62,
    0xc0db_6295,
    0xdb62_9599,
    0x6295_993c,
    0x9599_3c43,
    0x993c_4390,
    0x3c43_9041,
];

/// The top 12 bits of `x` without the sign.
const fn abstop12(x: f32) -> u32 {
    (x.to_bits() >> 20) & 0x7ff
}

/// `sinf_poly`: the sine polynomial of `x` (`x2 = x * x`) for even `n`, the cosine polynomial
/// for odd `n`, in `f64` before the final rounding, fused as the FMA build (`FUSED`) or not.
#[inline(always)]
fn poly<const FUSED: bool>(x: f64, x2: f64, p: &Poly, n: u32) -> f64 {
    if n & 1 == 0 {
        let x3 = x * x2;
        let s1 = madd::<FUSED>(x2, p.s3, p.s2);
        let x7 = x3 * x2;
        let s = madd::<FUSED>(x3, p.s1, x);
        madd::<FUSED>(x7, s1, s)
    } else {
        let x4 = x2 * x2;
        let c2 = madd::<FUSED>(x2, p.c4, p.c3);
        let c1 = madd::<FUSED>(x2, p.c1, p.c0);
        let x6 = x4 * x2;
        let c = madd::<FUSED>(x4, p.c2, c1);
        madd::<FUSED>(x6, c2, c)
    }
}

/// `reduce_fast`: `(x - n pi/2, n)` for `|x| < 120` (the subtraction fused for `FUSED`).
#[inline(always)]
fn reduce_fast<const FUSED: bool>(x: f64) -> (f64, u32) {
    let r = x * HPI_INV;
    // (int32_t) r truncates; |r| < 2^31.
    let n = ((r as i32).wrapping_add(0x80_0000)) >> 24;
    (madd::<FUSED>(-f64::from(n), HPI, x), n as u32)
}

/// `reduce_large`: `(x - n pi/2, n)` for the float with bits `xi` (`|x| >= 120`, the sign bit
/// ignored), in exact integer arithmetic.
fn reduce_large(xi: u32) -> (f64, u32) {
    let at = ((xi >> 26) & 15) as usize;
    let arr = |k: usize| INV_PIO4.get(at + k).copied().unwrap_or(0);
    let shift = (xi >> 23) & 7;
    let xi = ((xi & 0xff_ffff) | 0x80_0000) << shift;
    let res0 = u64::from(xi.wrapping_mul(arr(0)));
    let res1 = u64::from(xi) * u64::from(arr(4));
    let res2 = u64::from(xi) * u64::from(arr(8));
    let res0 = ((res2 >> 32) | (res0 << 32)).wrapping_add(res1);
    let n = res0.wrapping_add(1 << 61) >> 62;
    let res0 = res0.wrapping_sub(n << 62);
    ((res0 as i64) as f64 * PI63, n as u32)
}

/// The sine (`cos == 0`) or cosine (`cos == 1`) of a finite `y` with `|y| >= 2^-12`, in `f64`
/// before the final rounding, fused as the FMA build (`FUSED`) or not.
#[inline(always)]
fn eval<const FUSED: bool>(y: f32, cos: u32) -> f64 {
    let x = f64::from(y);
    if abstop12(y) < abstop12(PIO4) {
        return poly::<FUSED>(x, x * x, &TABLE[0], cos);
    }
    let (x, n, quadrant) = if abstop12(y) < abstop12(120.0) {
        let (x, n) = reduce_fast::<FUSED>(x);
        (x, n, n)
    } else {
        let xi = y.to_bits();
        let (x, n) = reduce_large(xi);
        (x, n, n.wrapping_add(xi >> 31))
    };
    let s = SIGN[(quadrant & 3) as usize];
    let p = &TABLE[((quadrant >> 1) & 1) as usize];
    poly::<FUSED>(x * s, x * x, p, n ^ cos)
}

/// [`eval`] unfused, and fused where that result is close to an `f32` rounding boundary.
fn sin_or_cos(y: f32, cos: u32) -> f32 {
    let v = eval::<false>(y, cos);
    let v = if near_f32_midpoint(v) {
        eval::<true>(y, cos)
    } else {
        v
    };
    v as f32
}

/// `sin(x)` rounded to `f32`, as glibc's `sinf` on x86-64 with FMA (`x` for `|x| < 2^-12`; the
/// default NaN for infinities, `x` quietened for NaN).
#[must_use]
pub fn sinf(y: f32) -> f32 {
    if abstop12(y) < abstop12(f32::from_bits(0x3980_0000)) {
        // |y| < 2^-12: sin(y) rounds to y.
        return y;
    }
    if abstop12(y) >= abstop12(f32::INFINITY) {
        return invalid(y);
    }
    sin_or_cos(y, 0)
}

/// `cos(x)` rounded to `f32`, as glibc's `cosf` on x86-64 with FMA (1 for `|x| < 2^-12`; the
/// default NaN for infinities, `x` quietened for NaN).
#[must_use]
pub fn cosf(y: f32) -> f32 {
    if abstop12(y) < abstop12(f32::from_bits(0x3980_0000)) {
        return 1.0;
    }
    if abstop12(y) >= abstop12(f32::INFINITY) {
        return invalid(y);
    }
    sin_or_cos(y, 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{inputs, same};

    #[test]
    fn special_values() {
        assert_eq!(sinf(0.0).to_bits(), 0);
        assert_eq!(sinf(-0.0).to_bits(), 0x8000_0000);
        assert_eq!(cosf(0.0), 1.0);
        assert_eq!(sinf(f32::INFINITY).to_bits(), 0xffc0_0000);
        assert_eq!(cosf(f32::NEG_INFINITY).to_bits(), 0xffc0_0000);
        assert_eq!(sinf(f32::from_bits(0x7f80_0001)).to_bits(), 0x7fc0_0001);
        assert_eq!(sinf(1e-30), 1e-30);
    }

    /// The host's C library (glibc on x86-64 Linux) computes the same functions.
    #[test]
    fn matches_the_host_c_library() {
        let edges = [
            PIO4,
            120.0,
            f32::from_bits(0x3980_0000),
            1.570_796_4,
            core::f32::consts::PI,
            1e4,
            1e30,
        ];
        for x in inputs(if cfg!(miri) { 100 } else { 300_000 }, 200.0, &edges) {
            for (name, got, want) in [("sin", sinf(x), x.sin()), ("cos", cosf(x), x.cos())] {
                assert!(
                    same(got, want),
                    "{name} {x:e} ({:#x}): {got:e} ({:#x}) vs {want:e} ({:#x})",
                    x.to_bits(),
                    got.to_bits(),
                    want.to_bits()
                );
            }
        }
    }
}
