//! Fixed-point arithmetic of TensorFlow Lite Micro and gemmlowp, operation for operation.
//!
//! Every function here mirrors one C++ function (named in its docs) including its rounding and
//! saturation. Where the C++ relies on signed overflow wrapping (undefined behaviour in C++ that
//! every compiler TFLM is built with turns into two's complement wrapping), these functions wrap
//! explicitly, so they never panic, in debug builds either.
//!
//! # Rounding
//!
//! TFLM's `MultiplyByQuantizedMultiplier` has two builds: double rounding (the default:
//! gemmlowp's `SaturatingRoundingDoublingHighMul`, then `RoundingDivideByPOT`) and single
//! rounding (`TFLITE_SINGLE_ROUNDING=1`: one 64-bit multiply, add and shift). Both are here
//! ([`multiply_by_quantized_multiplier_double`], [`multiply_by_quantized_multiplier_single`]);
//! every kernel goes through [`multiply_by_quantized_multiplier`] and its two companions, which
//! pick one by [`SINGLE_ROUNDING`], the one switch. The requantisation functions are
//! `#[inline(always)]`: the kernels call them once per output value, and a call costs more than
//! the arithmetic (at opt-level "s" the compiler would not inline them otherwise). The build-time side (the planner's
//! `QuantizeMultiplier`, `PreprocessSoftmaxScaling`) differs between the two builds as well and
//! has its own switch that must agree with this one.

/// The one switch between TFLM's two builds: `false` mirrors the default build (double
/// rounding), `true` mirrors a build with `TFLITE_SINGLE_ROUNDING=1`.
pub const SINGLE_ROUNDING: bool = false;

/// gemmlowp's `SaturatingRoundingDoublingHighMul` (ARM `VQRDMULH`): `a * b / 2^31`, rounded to
/// nearest with ties towards +infinity (`1.5 -> 2`, `-1.5 -> -1`), saturating the one
/// overflowing case `MIN * MIN` to `MAX`.
#[must_use]
#[inline(always)]
pub const fn saturating_rounding_doubling_high_mul(a: i32, b: i32) -> i32 {
    if a == b && a == i32::MIN {
        return i32::MAX;
    }
    // gemmlowp's `(ab + nudge) / 2^31` (division truncating towards zero) with `nudge = 2^30`
    // for `ab >= 0` and `1 - 2^30` below, in one expression: for `ab < 0` the quotient
    // truncated towards zero is `floor((ab + 1 - 2^30 + 2^31 - 1) / 2^31)`, i.e. the same
    // `(ab + 2^30) >> 31` as for `ab >= 0` (a multiply, an add and a shift on any target).
    // `|ab| < 2^62` here, so the quotient fits in an `i32` (the C++ `static_cast`).
    let ab = a as i64 * b as i64;
    ((ab + (1 << 30)) >> 31) as i32
}

/// gemmlowp's `RoundingDivideByPOT`: `x / 2^exponent`, rounded to nearest, ties away from zero.
///
/// TFLM only calls it with `0 <= exponent <= 31`; other exponents are clamped into that range
/// (the C++ asserts instead).
#[must_use]
#[inline(always)]
pub const fn rounding_divide_by_pot(x: i32, exponent: i32) -> i32 {
    let exponent = if exponent < 0 {
        0
    } else if exponent > 31 {
        31
    } else {
        exponent
    };
    // `exponent <= 31`: the mask fits in 32 bits.
    let mask = (1_u32 << exponent).wrapping_sub(1) as i32;
    let remainder = x & mask;
    let threshold = (mask >> 1) + if x < 0 { 1 } else { 0 };
    (x >> exponent) + if remainder > threshold { 1 } else { 0 }
}

/// gemmlowp's `SaturatingRoundingMultiplyByPOT<exponent>`: a saturating left shift for a
/// positive `exponent`, [`rounding_divide_by_pot`] for a negative one.
#[must_use]
pub const fn saturating_rounding_multiply_by_pot(x: i32, exponent: i32) -> i32 {
    if exponent > 0 {
        if exponent >= 31 {
            // Only reachable outside gemmlowp's static range; saturate every non-zero value.
            return if x > 0 {
                i32::MAX
            } else if x < 0 {
                i32::MIN
            } else {
                0
            };
        }
        let threshold = (1_i32 << (31 - exponent)) - 1;
        if x > threshold {
            i32::MAX
        } else if x < -threshold {
            i32::MIN
        } else {
            x << exponent
        }
    } else if exponent < 0 {
        rounding_divide_by_pot(x, -exponent)
    } else {
        x
    }
}

/// gemmlowp's `RoundingHalfSum` for `int32`: `(a + b) / 2` rounded to nearest, ties away from
/// zero.
#[must_use]
pub const fn rounding_half_sum(a: i32, b: i32) -> i32 {
    let sum = a as i64 + b as i64;
    let sign = if sum >= 0 { 1 } else { -1 };
    ((sum + sign) / 2) as i32
}

/// The C++ `x * (1 << shift)` for a left shift `shift > 0`, as the x86-64 build of TFLM
/// computes it: the product wraps, and a shift of 32 or more (undefined in C++; a multiplier
/// above 2^31, which `QuantizeMultiplier` gives for real multipliers of 2^31 and more) is taken
/// modulo 32, as x86's `shl` does. Found by the conformance suite (a CONV_2D whose multiplier
/// has shift 33).
#[inline(always)]
const fn wrapping_mul_pot(x: i32, shift: i32) -> i32 {
    if shift <= 0 {
        x
    } else {
        x.wrapping_mul(1_i32.wrapping_shl(shift as u32))
    }
}

/// TFLM's double-rounding `MultiplyByQuantizedMultiplier(int32_t, int32_t, int)` (the default
/// build): `x * multiplier * 2^(shift - 31)` as
/// `RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x * (1 << left), multiplier), right)`.
#[must_use]
#[inline(always)]
pub const fn multiply_by_quantized_multiplier_double(x: i32, multiplier: i32, shift: i32) -> i32 {
    let left_shift = if shift > 0 { shift } else { 0 };
    let right_shift = if shift > 0 { 0 } else { -shift };
    rounding_divide_by_pot(
        saturating_rounding_doubling_high_mul(wrapping_mul_pot(x, left_shift), multiplier),
        right_shift,
    )
}

/// TFLM's single-rounding `MultiplyByQuantizedMultiplier(int32_t, int32_t, int)`
/// (`TFLITE_SINGLE_ROUNDING=1`): `(x * multiplier + 2^(30 - shift)) >> (31 - shift)` in 64 bits.
///
/// TFLM requires `-31 <= shift <= 30` (its single-rounding `QuantizeMultiplier` guarantees it);
/// other shifts are clamped into that range.
#[must_use]
#[inline(always)]
pub const fn multiply_by_quantized_multiplier_single(x: i32, multiplier: i32, shift: i32) -> i32 {
    let shift = if shift < -31 {
        -31
    } else if shift > 30 {
        30
    } else {
        shift
    };
    let total_shift = 31 - shift;
    let round = 1_i64 << (total_shift - 1);
    // `|x * multiplier| <= 2^62` and `round <= 2^61`: no overflow.
    let result = (x as i64 * multiplier as i64 + round) >> total_shift;
    result as i32
}

/// TFLM's `MultiplyByQuantizedMultiplier(int32_t x, int32_t quantized_multiplier, int shift)`
/// in the build [`SINGLE_ROUNDING`] selects. `shift > 0` is a left shift.
#[must_use]
#[inline(always)]
pub const fn multiply_by_quantized_multiplier(x: i32, multiplier: i32, shift: i32) -> i32 {
    if SINGLE_ROUNDING {
        multiply_by_quantized_multiplier_single(x, multiplier, shift)
    } else {
        multiply_by_quantized_multiplier_double(x, multiplier, shift)
    }
}

/// Which shorter form of [`multiply_by_quantized_multiplier`] computes it for this multiplier
/// and shift: 2 ([`multiply_by_quantized_multiplier_right2`]) for a right shift of 2 to 31
/// (`-31 <= shift <= -2`), 1 ([`multiply_by_quantized_multiplier_right1`]) for a right shift
/// of 1 to 31, 0 (neither) otherwise; both only in the double-rounding build and for a
/// non-negative multiplier. These are the shifts every requantisation to a narrower type has in
/// practice. The blocked DSP kernels take the form every channel of an op has (checked once
/// per op), the general function when there is none.
#[must_use]
#[inline(always)]
pub const fn right_form(multiplier: i32, shift: i32) -> u8 {
    if SINGLE_ROUNDING || multiplier < 0 || shift < -31 || shift > -1 {
        0
    } else if shift == -1 {
        1
    } else {
        2
    }
}

/// [`multiply_by_quantized_multiplier`]`(x, multiplier, shift)` in fewer operations, for the
/// multipliers and shifts of [`right_form`] 1 or 2; `t` is `-shift - 1` (0 to 30).
///
/// TFLM's double rounding is `z = RoundingDivideByPOT(y, s)` of `y =
/// SaturatingRoundingDoublingHighMul(x, m) = floor((x m + 2^30) / 2^31)` with `s = -shift`
/// (`m >= 0`, so `MIN * MIN`, the one saturating case, cannot occur: one 64-bit
/// multiply-accumulate). The division rounding half away from zero is
/// `z = floor((y + 2^(s-1) - [y < 0]) / 2^s)`, and `[y < 0]` may be replaced by `[x < 0]`:
/// they differ only where `y == 0` (`m >= 0` gives `y <= 0` for `x < 0` and `y >= 0` otherwise), and for `y == 0` both give
/// 0 (`s >= 1`). With `v = y - [x < 0]` (`y + (x >> 31)`), nested floors of integer quotients
/// merge (`floor((v + 2^(s-1)) / 2^s) == floor((floor(v / 2^(s-1)) + 1) / 2)`): `z = ((v >>
/// (s - 1)) + 1) >> 1`, no comparison and no mask (`|y| < 2^31 - 1`: no overflow). The tests
/// compare it with the general function exhaustively on small domains and on a large random
/// sample.
#[must_use]
#[inline(always)]
pub const fn multiply_by_quantized_multiplier_right1(x: i32, multiplier: i32, t: u32) -> i32 {
    // `|x * multiplier| <= 2^62`: no overflow.
    let y = ((x as i64 * multiplier as i64 + (1 << 30)) >> 31) as i32;
    let v = y.wrapping_add(x >> 31);
    ((v >> (t & 31)) + 1) >> 1
}

/// [`multiply_by_quantized_multiplier_right1`] with one operation fewer, for the multipliers
/// and shifts of [`right_form`] 2; `t` is `-shift - 2` (0 to 29).
///
/// As there, `z = floor((y - [x < 0] + 2^(s-1)) / 2^s)`, and merging the floor of `y` too: `z =
/// floor((x m + 2^30 - [x < 0] 2^31 + 2^(30+s)) / 2^(31+s))`. With `h = floor((x m + 2^30 -
/// [x < 0] 2^31) / 2^32)` (the high word of one 64-bit multiply-accumulate onto a constant
/// chosen by the sign of `x`) that is `floor((h + 2^(s-2)) / 2^(s-1))`, i.e.
/// `((h >> (s - 2)) + 1) >> 1` (`s >= 2`; `|h| < 2^30`, no overflow).
#[must_use]
#[inline(always)]
pub const fn multiply_by_quantized_multiplier_right2(x: i32, multiplier: i32, t: u32) -> i32 {
    // `2^30 - [x < 0] 2^31`: `x >> 31` is 0 or -1.
    let nudge = (1_i64 << 30) + (((x >> 31) as i64) << 31);
    // `|x * multiplier| <= 2^62`: no overflow.
    let h = ((x as i64 * multiplier as i64 + nudge) >> 32) as i32;
    ((h >> (t & 31)) + 1) >> 1
}

/// TFLM's `MultiplyByQuantizedMultiplierGreaterThanOne` (softmax) in the build
/// [`SINGLE_ROUNDING`] selects: double rounding is `SaturatingRoundingDoublingHighMul(x * (1 <<
/// left_shift), multiplier)` (no final rounding shift), single rounding is
/// [`multiply_by_quantized_multiplier_single`].
#[must_use]
pub const fn multiply_by_quantized_multiplier_greater_than_one(
    x: i32,
    multiplier: i32,
    left_shift: i32,
) -> i32 {
    if SINGLE_ROUNDING {
        multiply_by_quantized_multiplier_single(x, multiplier, left_shift)
    } else {
        saturating_rounding_doubling_high_mul(wrapping_mul_pot(x, left_shift), multiplier)
    }
}

/// TFLM's `MultiplyByQuantizedMultiplierSmallerThanOneExp` (ADD) in the build
/// [`SINGLE_ROUNDING`] selects: double rounding is `RoundingDivideByPOT(
/// SaturatingRoundingDoublingHighMul(x, multiplier), -left_shift)`, single rounding is
/// [`multiply_by_quantized_multiplier_single`]. `left_shift <= 0`.
#[must_use]
pub const fn multiply_by_quantized_multiplier_smaller_than_one_exp(
    x: i32,
    multiplier: i32,
    left_shift: i32,
) -> i32 {
    if SINGLE_ROUNDING {
        multiply_by_quantized_multiplier_single(x, multiplier, left_shift)
    } else {
        rounding_divide_by_pot(
            saturating_rounding_doubling_high_mul(x, multiplier),
            -left_shift,
        )
    }
}

/// The raw `FixedPoint<int32_t, 0>::One()` (just below 1.0 in Q0.31).
pub const Q0_ONE: i32 = i32::MAX;

/// gemmlowp's `exp_on_interval_between_negative_one_quarter_and_0_excl` on Q0.31 raw values.
#[must_use]
pub const fn exp_on_interval_between_negative_one_quarter_and_0_excl(a: i32) -> i32 {
    const CONSTANT_TERM: i32 = 1_895_147_668; // exp(-1/8)
    const CONSTANT_1_OVER_3: i32 = 715_827_883;
    let x = a.wrapping_add(1 << 28); // a + 1/8
    let x2 = saturating_rounding_doubling_high_mul(x, x);
    let x3 = saturating_rounding_doubling_high_mul(x2, x);
    let x4 = saturating_rounding_doubling_high_mul(x2, x2);
    let x4_over_4 = saturating_rounding_multiply_by_pot(x4, -2);
    let x4_over_24_plus_x3_over_6_plus_x2_over_2 = saturating_rounding_multiply_by_pot(
        saturating_rounding_doubling_high_mul(x4_over_4.wrapping_add(x3), CONSTANT_1_OVER_3)
            .wrapping_add(x2),
        -1,
    );
    CONSTANT_TERM.wrapping_add(saturating_rounding_doubling_high_mul(
        CONSTANT_TERM,
        x.wrapping_add(x4_over_24_plus_x3_over_6_plus_x2_over_2),
    ))
}

/// gemmlowp's `exp_on_negative_values` for an input `FixedPoint<int32_t, INTEGER_BITS>` (raw
/// `a <= 0`); the result is Q0.31 raw.
#[must_use]
pub const fn exp_on_negative_values<const INTEGER_BITS: i32>(a: i32) -> i32 {
    let fractional_bits = 31 - INTEGER_BITS;
    let one_quarter = 1_i32 << (fractional_bits - 2);
    let mask = one_quarter - 1;
    let a_mod_quarter_minus_one_quarter = (a & mask).wrapping_sub(one_quarter);
    let mut result = exp_on_interval_between_negative_one_quarter_and_0_excl(
        saturating_rounding_multiply_by_pot(a_mod_quarter_minus_one_quarter, INTEGER_BITS),
    );
    let remainder = a_mod_quarter_minus_one_quarter.wrapping_sub(a);

    // The barrel shifter: exp(-2^exponent) for each bit of the remainder.
    const BARREL: [(i32, i32); 7] = [
        (-2, 1_672_461_947),
        (-1, 1_302_514_674),
        (0, 790_015_084),
        (1, 290_630_308),
        (2, 39_332_535),
        (3, 720_401),
        (4, 242),
    ];
    let mut i = 0;
    while i < BARREL.len() {
        let (exponent, multiplier) = BARREL[i];
        if INTEGER_BITS > exponent {
            let shift = fractional_bits + exponent;
            if remainder & (1_i32 << shift) != 0 {
                result = saturating_rounding_doubling_high_mul(result, multiplier);
            }
        }
        i += 1;
    }

    if INTEGER_BITS > 5 {
        let clamp = -(1_i32 << (36 - INTEGER_BITS)); // -32.0
        if a < clamp {
            result = 0;
        }
    }
    if a == 0 {
        result = Q0_ONE;
    }
    result
}

/// gemmlowp's `one_over_one_plus_x_for_x_in_0_1` on Q0.31 raw values.
#[must_use]
pub const fn one_over_one_plus_x_for_x_in_0_1(a: i32) -> i32 {
    const CONSTANT_48_OVER_17: i32 = 1_515_870_810; // Q2.29
    const CONSTANT_NEG_32_OVER_17: i32 = -1_010_580_540; // Q2.29
    const Q2_ONE: i32 = 1 << 29;
    let half_denominator = rounding_half_sum(a, Q0_ONE);
    let mut x = CONSTANT_48_OVER_17.wrapping_add(saturating_rounding_doubling_high_mul(
        half_denominator,
        CONSTANT_NEG_32_OVER_17,
    ));
    let mut i = 0;
    while i < 3 {
        let half_denominator_times_x = saturating_rounding_doubling_high_mul(half_denominator, x);
        let one_minus_half_denominator_times_x = Q2_ONE.wrapping_sub(half_denominator_times_x);
        x = x.wrapping_add(saturating_rounding_multiply_by_pot(
            saturating_rounding_doubling_high_mul(x, one_minus_half_denominator_times_x),
            2,
        ));
        i += 1;
    }
    // ExactMulByPot<-1> (Q2 -> Q1, same raw), then Rescale<0> (Q1 -> Q0).
    saturating_rounding_multiply_by_pot(x, 1)
}

/// gemmlowp's `logistic` for an input `FixedPoint<int32_t, INTEGER_BITS>`; Q0.31 raw result.
#[must_use]
pub const fn logistic<const INTEGER_BITS: i32>(a: i32) -> i32 {
    if a == 0 {
        return 1 << 30; // one half
    }
    let positive = a > 0;
    let abs_input = if positive { a } else { a.wrapping_neg() };
    let result_if_positive = one_over_one_plus_x_for_x_in_0_1(
        exp_on_negative_values::<INTEGER_BITS>(abs_input.wrapping_neg()),
    );
    if positive {
        result_if_positive
    } else {
        Q0_ONE.wrapping_sub(result_if_positive)
    }
}

/// TFLM's `GetReciprocal`: `(1 / x, num_bits_over_unit)` for `x` a fixed-point value with
/// `x_integer_digits` integer bits; the reciprocal is Q0.31 raw, scaled by
/// `2^-num_bits_over_unit`.
#[must_use]
pub const fn get_reciprocal(x: i32, x_integer_digits: i32) -> (i32, i32) {
    let headroom_plus_one = (x as u32).leading_zeros();
    let num_bits_over_unit = x_integer_digits - headroom_plus_one as i32;
    let shifted = match (x as u32).checked_shl(headroom_plus_one) {
        Some(shifted) => shifted,
        None => 0,
    };
    let shifted_sum_minus_one = shifted.wrapping_sub(1 << 31) as i32;
    (
        one_over_one_plus_x_for_x_in_0_1(shifted_sum_minus_one),
        num_bits_over_unit,
    )
}

/// TFLM's `MultiplyByQuantizedMultiplier(int64_t x, int32_t quantized_multiplier, int shift)`
/// (`common.cc`; the int16 kernels' 64-bit accumulators): the multiplier reduced to 16 bits
/// (`(multiplier + 2^15) >> 16`, or `0x7FFF` from `0x7FFF0000` on), then `(x * reduced +
/// 2^(14 - shift)) >> (15 - shift)`, narrowed to `int32_t`. Both of TFLM's builds (double and
/// single rounding) compute exactly this.
///
/// TFLM asserts `-31 <= shift < 8` and `|x| < 2^47`; outside that it mirrors the x86-64 build:
/// the product and the sum wrap, shift counts are taken modulo 64 (`shl`/`sar`, for the
/// negative counts a shift of 15 or more gives), and the narrowing keeps the low 32 bits.
#[must_use]
pub const fn multiply_by_quantized_multiplier_i64(x: i64, multiplier: i32, shift: i32) -> i32 {
    let reduced_multiplier = if multiplier < 0x7FFF_0000 {
        // `multiplier + 2^15` cannot overflow below 0x7FFF0000.
        (multiplier.wrapping_add(1 << 15)) >> 16
    } else {
        0x7FFF
    };
    let total_shift = 15_i32.wrapping_sub(shift);
    let round = 1_i64.wrapping_shl(total_shift.wrapping_sub(1) as u32);
    let x = x
        .wrapping_mul(reduced_multiplier as i64)
        .wrapping_add(round);
    x.wrapping_shr(total_shift as u32) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gemmlowp's own formulation: the nudge by sign, then a division truncating towards zero.
    fn gemmlowp_high_mul(a: i32, b: i32) -> i32 {
        if a == b && a == i32::MIN {
            return i32::MAX;
        }
        let ab = i64::from(a) * i64::from(b);
        let nudge: i64 = if ab >= 0 { 1 << 30 } else { 1 - (1 << 30) };
        ((ab + nudge) / (1_i64 << 31)) as i32
    }

    /// gemmlowp's `RoundingDivideByPOT` with its 64-bit mask.
    fn gemmlowp_divide_by_pot(x: i32, exponent: i32) -> i32 {
        let mask = ((1_i64 << exponent) - 1) as i32;
        let remainder = x & mask;
        let threshold = (mask >> 1) + i32::from(x < 0);
        (x >> exponent) + i32::from(remainder > threshold)
    }

    #[test]
    fn right_forms_equal_the_general_function() {
        let check = |x: i32, m: i32, shift: i32| {
            let form = right_form(m, shift);
            assert!(form >= 1);
            let general = multiply_by_quantized_multiplier(x, m, shift);
            assert_eq!(
                multiply_by_quantized_multiplier_right1(x, m, (-shift - 1) as u32),
                general,
                "{x} {m} {shift}"
            );
            if shift <= -2 {
                assert_eq!(form, 2);
                assert_eq!(
                    multiply_by_quantized_multiplier_right2(x, m, (-shift - 2) as u32),
                    general,
                    "{x} {m} {shift}"
                );
            }
        };
        // Exhaustive on small domains: every x of a window around 0 and around both ends, the
        // multipliers' extremes and small ones (ties are frequent there), every shift.
        let span = if cfg!(miri) { 3 } else { 600 };
        let xs = (-span..=span)
            .chain(i32::MIN..=i32::MIN + span)
            .chain(i32::MAX - span..=i32::MAX);
        let ms = [
            0,
            1,
            2,
            3,
            1 << 29,
            1 << 30,
            (1 << 30) + 1,
            i32::MAX,
            i32::MAX - 1,
            0x5a5a_5a5a,
        ];
        for x in xs {
            for m in ms {
                for shift in -31..=-1 {
                    check(x, m, shift);
                }
            }
        }
        // Every x of -2^12..2^12 with every multiplier 2^30 + k (k < 2^8) at two shifts.
        if !cfg!(miri) {
            for x in -(1 << 12)..(1 << 12) {
                for k in 0..256 {
                    check(x, (1 << 30) + k * 4_194_301, -1);
                    check(x, (1 << 30) + k * 4_194_301, -2);
                    check(x, (1 << 30) + k, -9);
                }
            }
        }
        // A large random sample of every argument.
        let mut r = 0x2545_f491_u32;
        let mut next = move || {
            r ^= r << 13;
            r ^= r >> 17;
            r ^= r << 5;
            r
        };
        for _ in 0..if cfg!(miri) { 100 } else { 2_000_000 } {
            let x = next() as i32;
            // Sums of int8 products are small: shrink x by a random amount too.
            let x = x >> (next() % 32);
            let m = (next() >> 1) as i32;
            let shift = -1 - (next() % 31) as i32;
            check(x, m, shift);
        }
        // Outside the form: a left shift, a shift of 0 or past 31, a negative multiplier.
        for (m, shift) in [(1 << 30, 0), (1 << 30, 1), (1 << 30, -32), (-1, -5)] {
            assert_eq!(right_form(m, shift), 0);
        }
    }

    #[test]
    fn shift_forms_equal_gemmlowps() {
        let edges = [
            0,
            1,
            -1,
            2,
            -2,
            i32::MAX,
            i32::MIN,
            i32::MIN + 1,
            1 << 30,
            -(1 << 30),
            (1 << 30) + 1,
            0x4000_0001,
            -0x3fff_ffff,
        ];
        let mut x = 0x9e37_79b9_u32;
        let n = if cfg!(miri) { 200 } else { 200_000 };
        let random = (0..n).map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as i32
        });
        let values: [i32; 13] = edges;
        let mut prev = 1;
        for a in values.into_iter().chain(random) {
            for b in values.into_iter().chain([prev, prev >> 7, a ^ 0x5555]) {
                assert_eq!(
                    saturating_rounding_doubling_high_mul(a, b),
                    gemmlowp_high_mul(a, b),
                    "{a} {b}"
                );
            }
            for e in [0, 1, 7, 15, 30, 31, prev.rem_euclid(32)] {
                assert_eq!(
                    rounding_divide_by_pot(a, e),
                    gemmlowp_divide_by_pot(a, e),
                    "{a} {e}"
                );
            }
            prev = a;
        }
    }
}
