//! `fma`: the fused multiply-add `a * b + c` with one rounding, in integer arithmetic.
//!
//! glibc's x86-64 `libm` has FMA builds of `expf`, `logf`, `sinf` and `cosf` (`__expf_fma`,
//! ...: the same C source compiled with `-mfma -mavx2`, where GCC contracts `a * b + c` into
//! `vfmadd`), and selects them at load time on every processor with FMA (Intel since Haswell,
//! AMD since Piledriver). Their results differ from the plain build's in rare cases, so this
//! crate evaluates those functions with the contractions that build has (read from its
//! machine code), through this exact `fma`. It is IEEE's `fusedMultiplyAdd` in round to
//! nearest, ties to even, built from integer operations, so it gives the same bits on every
//! target, with or without an FMA unit.

/// `(negative, significand, exponent)` with `value = significand * 2^exponent`, for a finite
/// non-zero `x` (subnormals included).
fn parts(x: f64) -> (bool, u64, i32) {
    let bits = x.to_bits();
    let negative = bits >> 63 != 0;
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    if biased == 0 {
        (negative, fraction, -1074)
    } else {
        (negative, fraction | (1 << 52), biased - 1075)
    }
}

/// The number of significant bits of `x`.
fn bit_length(x: u128) -> i32 {
    128 - x.leading_zeros() as i32
}

/// `x * 2^shift` for `shift >= 0`, or `x / 2^-shift` truncated with the lost bits ORed into
/// the lowest bit ("jamming": the result is odd if anything was lost). `x < 2^126` and the
/// result fits when `shift >= 0`.
fn align(x: u128, shift: i32) -> u128 {
    if shift >= 0 {
        x << shift
    } else if shift <= -128 {
        u128::from(x != 0)
    } else {
        let s = -shift as u32;
        let lost = x & ((1_u128 << s) - 1);
        (x >> s) | u128::from(lost != 0)
    }
}

/// Veltkamp's split: `(hi, lo)` with `hi + lo == x` exactly and 26 significant bits each
/// (`|x| < 2^995`).
#[inline(always)]
fn split(x: f64) -> (f64, f64) {
    const FACTOR: f64 = 134_217_729.0; // 2^27 + 1
    let t = FACTOR * x;
    let hi = t - (t - x);
    (hi, x - hi)
}

/// Knuth's TwoSum: `(s, t)` with `s = RN(a + b)` and `s + t == a + b` exactly (no overflow).
#[inline(always)]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// The biased exponent field of `x`.
#[inline(always)]
fn biased_exponent(x: f64) -> u64 {
    (x.to_bits() >> 52) & 0x7ff
}

/// [`fma`] from error-free transformations in `f64` arithmetic, for operands whose products
/// and sums neither overflow nor underflow (the caller checks): Dekker's exact product `p + e
/// = a * b`, TwoSum for `s + t = p + c`, `u + v = t + e` and `r + w = s + u`. `r` is the
/// rounded sum unless `s + u` lay exactly halfway between two doubles (`|w|` half the gap) and
/// the remainder `v` points the same way, which moves the result to the neighbour.
#[inline(always)]
fn fma_fast(a: f64, b: f64, c: f64) -> f64 {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    let e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    let (s, t) = two_sum(p, c);
    let (u, v) = two_sum(t, e);
    let (r, w) = two_sum(s, u);
    if w != 0.0 && v != 0.0 && (w > 0.0) == (v > 0.0) {
        // The neighbour of r on w's side; s + u was halfway iff it is r + 2w.
        let toward_larger = (w > 0.0) == (r > 0.0);
        let bits = r.to_bits();
        let neighbour = f64::from_bits(if toward_larger { bits + 1 } else { bits - 1 });
        // `neighbour - r` is exact (adjacent doubles), and so is `2 * w`.
        if neighbour - r == 2.0 * w {
            return neighbour;
        }
    }
    r
}

/// `a * b + c` rounded once, to nearest with ties to even: IEEE 754's `fusedMultiplyAdd`
/// (C's `fma`), including signed zeros, subnormals, overflow to infinity and NaN.
///
/// Operands of moderate magnitude (all of those of the functions here) take [`fma_fast`];
/// the others the exact integer computation.
#[must_use]
pub fn fma(a: f64, b: f64, c: f64) -> f64 {
    let (ea, eb, ec) = (biased_exponent(a), biased_exponent(b), biased_exponent(c));
    // a, b normal within 2^±400, c normal (or 0) below 2^900: p, e and the sums are exact
    // where the algorithm needs them (no overflow, no underflow of e's parts).
    if (623..1423).contains(&ea) && (623..1423).contains(&eb) && ec < 1923 && (ec > 0 || c == 0.0) {
        return if c == 0.0 { a * b } else { fma_fast(a, b, c) };
    }
    fma_exact(a, b, c)
}

/// [`fma`] in integer arithmetic, for every operand.
#[must_use]
fn fma_exact(a: f64, b: f64, c: f64) -> f64 {
    if !a.is_finite() || !b.is_finite() {
        // a * b is infinite or NaN (or 0 * inf = NaN): no rounding of the product matters.
        return a * b + c;
    }
    if !c.is_finite() {
        // A finite product does not change an infinite or NaN addend.
        return c + c;
    }
    if a == 0.0 || b == 0.0 {
        // The product is an exact (signed) zero.
        return a * b + c;
    }
    if c == 0.0 {
        // The exact sum is the product (non-zero): its rounding is the result, and an
        // underflow to zero keeps the product's sign.
        return a * b;
    }
    let (na, ma, ea) = parts(a);
    let (nb, mb, eb) = parts(b);
    let (nc, mc, ec) = parts(c);
    let product_negative = na != nb;
    let mp = u128::from(ma) * u128::from(mb);
    let ep = ea + eb;
    let mc = u128::from(mc);
    // The exponent of each operand's leading bit; the window's lowest bit weighs 2^(top-124),
    // so that both fit below bit 125 and their sum below bit 126.
    let top_p = ep + bit_length(mp) - 1;
    let top_c = ec + bit_length(mc) - 1;
    let top = top_p.max(top_c);
    let base = top - 124;
    // Only the smaller operand can lose bits (a sticky bit), and then far below the result's
    // rounding position, whatever cancels.
    let p = align(mp, ep - base);
    let q = align(mc, ec - base);
    let (negative, sum) = if product_negative == nc {
        (nc, p + q)
    } else if p >= q {
        (product_negative, p - q)
    } else {
        (nc, q - p)
    };
    if sum == 0 {
        // Exact cancellation: +0 in round to nearest.
        return 0.0;
    }
    // value = sum * 2^base; keep 53 bits (fewer for a subnormal result).
    let lead = base + bit_length(sum) - 1;
    let lsb = (lead - 52).max(-1074);
    let shift = lsb - base;
    let mut q = if shift <= 0 {
        sum << -shift
    } else {
        let s = shift as u32;
        let kept = sum >> s;
        let rest = sum & ((1_u128 << s) - 1);
        let half = 1_u128 << (s - 1);
        if rest > half || (rest == half && kept & 1 == 1) {
            kept + 1
        } else {
            kept
        }
    };
    let mut lsb = lsb;
    if q == 1 << 53 {
        q >>= 1;
        lsb += 1;
    }
    let sign = u64::from(negative) << 63;
    let q = q as u64;
    if q < 1 << 52 {
        // Subnormal (lsb is -1074): the significand is the encoding.
        return f64::from_bits(sign | q);
    }
    let biased = lsb + 1075;
    if biased >= 0x7ff {
        return f64::from_bits(sign | f64::INFINITY.to_bits());
    }
    f64::from_bits(sign | ((biased as u64) << 52) | (q & ((1 << 52) - 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    fn check(a: f64, b: f64, c: f64) {
        let (got, want) = (fma(a, b, c), a.mul_add(b, c));
        assert!(
            same(got, want),
            "fma({a:e}, {b:e}, {c:e}): {got:e} ({:#x}) vs {want:e} ({:#x})",
            got.to_bits(),
            want.to_bits()
        );
    }

    struct Xorshift(u64);
    impl Xorshift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn special_values() {
        let values = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1.5,
            3.0,
            0.1,
            1e300,
            1e-300,
            f64::from_bits(0x000f_ffff_ffff_ffff),
        ];
        for &a in &values {
            for &b in &values {
                for &c in &values {
                    check(a, b, c);
                }
            }
        }
    }

    /// The fast path agrees with the exact computation where it is taken: random moderate
    /// operands, cancelling sums and ties.
    #[test]
    fn fast_path_is_exact() {
        let mut r = Xorshift(0x2545_f491_4f6c_dd1d);
        let m = |x: u64, e: u64| f64::from_bits((x & 0x800f_ffff_ffff_ffff) | (e << 52));
        for _ in 0..if cfg!(miri) { 300 } else { 3_000_000 } {
            let (ea, eb) = (623 + r.next() % 800, 623 + r.next() % 800);
            let a = m(r.next(), ea);
            let b = m(r.next(), eb);
            let ab = a * b;
            let cands = [
                m(r.next(), 1 + r.next() % 1900),
                f64::from_bits((-ab).to_bits().wrapping_add(r.next() % 5)),
                -ab,
                ab,
                // Halfway cases: c one ulp-fraction away from the product's neighbours.
                m(
                    r.next() & !0xfff_ffff,
                    ((ab.to_bits() >> 52) & 0x7ff).saturating_sub(53),
                ),
            ];
            for c in cands {
                if c.is_finite() && biased_exponent(c) < 1923 {
                    let (fast, exact) = (fma(a, b, c), fma_exact(a, b, c));
                    assert!(
                        fast.to_bits() == exact.to_bits(),
                        "fma({a:e}, {b:e}, {c:e}): {fast:e} vs {exact:e}"
                    );
                }
            }
            // Small integers: many exact ties.
            let a = (r.next() % 20_001) as f64 - 1e4;
            let b = ((r.next() % 20_001) as f64 + 1.0) * 2f64.powi(43);
            let c = (r.next() % 20_001) as f64 - 1e4;
            if a != 0.0 {
                assert_eq!(fma(a, b, c).to_bits(), fma_exact(a, b, c).to_bits());
            }
        }
    }

    /// Random operands, and sums that cancel (`c` near `-a * b`), round at ties, overflow and
    /// underflow: the host's `fma` (hardware or glibc) is exact.
    #[test]
    fn matches_the_host() {
        let mut r = Xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..if cfg!(miri) { 300 } else { 2_000_000 } {
            let a = f64::from_bits(r.next());
            let b = f64::from_bits(r.next());
            let c = f64::from_bits(r.next());
            check(a, b, c);
            // Moderate exponents, so that the terms interact.
            let m = |x: u64, e: u64| f64::from_bits((x & 0x800f_ffff_ffff_ffff) | (e << 52));
            let (ea, eb) = (1023 - 40 + r.next() % 80, 1023 - 40 + r.next() % 80);
            let a = m(r.next(), ea);
            let b = m(r.next(), eb);
            let ab = a * b;
            let ec = ((ab.to_bits() >> 52) & 0x7ff).saturating_sub(r.next() % 120);
            check(a, b, m(r.next(), ec));
            // Near cancellation: c = -(a * b) rounded, perturbed by a few ulps.
            let k = (r.next() % 9) as i64 - 4;
            let c = f64::from_bits((-ab).to_bits().wrapping_add(k as u64));
            check(a, b, c);
            // Products near the subnormal range and past the overflow threshold.
            let a = m(r.next(), r.next() % 300);
            let b = m(r.next(), 1023 - 700 + r.next() % 400);
            check(a, b, m(r.next(), r.next() % 60));
            let a = m(r.next(), 1600 + r.next() % 446);
            let b = m(r.next(), 1023 + r.next() % 200);
            check(a, b, -a * b);
            check(a, b, m(r.next(), 2000 + r.next() % 46));
            // Small integers: exact ties.
            let a = (r.next() % 2_000_001) as f64 - 1e6;
            let b = (r.next() % 2_000_001) as f64 * 2f64.powi(40);
            let c = (r.next() % 2_000_001) as f64 - 1e6;
            check(a, b, c);
        }
    }
}
