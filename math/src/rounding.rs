//! C's `floorf`, `ceilf`, `truncf` and `roundf`, exactly (they have one right answer each).

/// Values of magnitude 2^23 or more, infinities and NaN are integers already (or not numbers).
fn is_integral_already(x: f32) -> bool {
    x.is_nan() || x.abs() >= 8_388_608.0
}

/// C's `truncf`: towards zero, the sign of zero kept.
#[must_use]
pub fn truncf(x: f32) -> f32 {
    if is_integral_already(x) {
        return x;
    }
    // |x| < 2^23: the conversion is exact.
    let t = (x as i32) as f32;
    if t == 0.0 { 0.0_f32.copysign(x) } else { t }
}

/// C's `floorf`: towards minus infinity (`floorf(-0.5) == -1`, `floorf(-0.0) == -0.0`).
#[must_use]
pub fn floorf(x: f32) -> f32 {
    let t = truncf(x);
    if t > x { t - 1.0 } else { t }
}

/// C's `ceilf`: towards plus infinity (`ceilf(-0.5) == -0.0`).
#[must_use]
pub fn ceilf(x: f32) -> f32 {
    let t = truncf(x);
    if t < x { t + 1.0 } else { t }
}

/// C's `roundf` (and `std::round(float)`): to nearest, halves away from zero, the sign of zero
/// kept (`roundf(-0.4) == -0.0`); a NaN quietened, as glibc's `roundf` (`x + x`), which TFLM
/// calls (its `floor` and `ceil`, which GCC inlines, pass NaN through unchanged, as
/// [`floorf`] and [`ceilf`] do).
#[must_use]
pub fn roundf(x: f32) -> f32 {
    if x.is_nan() {
        return crate::quiet(x);
    }
    if is_integral_already(x) {
        return x;
    }
    let t = truncf(x);
    // Exact: `x` and `t` are within 1 of each other (Sterbenz).
    let fraction = x - t;
    let r = if fraction >= 0.5 {
        t + 1.0
    } else if fraction <= -0.5 {
        t - 1.0
    } else {
        t
    };
    if r == 0.0 { 0.0_f32.copysign(x) } else { r }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    #[test]
    fn match_the_host_c_library() {
        let mut special = std::vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            0.49999997,
            -0.49999997,
            1.0,
            -1.0,
            8_388_607.5,
            -8_388_607.5,
            8_388_608.0,
            16_777_217.0,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        // A spread of values, deterministic.
        let mut s: u32 = 0x1234_5678;
        for _ in 0..if cfg!(miri) { 200 } else { 200_000 } {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            special.push(f32::from_bits(s));
        }
        for &x in &special {
            assert!(same(floorf(x), x.floor()), "floor {x:e}");
            assert!(same(ceilf(x), x.ceil()), "ceil {x:e}");
            assert!(same(truncf(x), x.trunc()), "trunc {x:e}");
            assert!(same(roundf(x), x.round()), "round {x:e}");
            assert!(
                !x.is_nan() || roundf(x).to_bits() == x.to_bits() | 0x0040_0000,
                "round {x:e} quietens"
            );
        }
    }
}
