//! The float functions TensorFlow Lite Micro's kernels call from the C library, in plain IEEE
//! arithmetic, so that the runtime's kernels (on the device) and the planner (at build time,
//! for tables) compute the same bits on every target, with or without a hardware FPU, and the
//! same bits as TFLM built against glibc on x86-64 (the reference the conformance suite runs).
//!
//! `core` has no float functions beyond the basic operations; these are written from the
//! algorithms glibc 2.36 uses (named in each function's docs, `sysdeps/ieee754/flt-32/`) and
//! tested against the host's C library: on hundreds of thousands of inputs in every test run,
//! and on all 2^32 inputs, bit for bit, by the ignored tests of `exhaustive.rs` (no input
//! differs). glibc's x86-64 `libm` selects FMA builds of `expf`, `logf`, `sinf` and `cosf` on
//! processors with FMA; those functions here evaluate without fusing first and, where that
//! result lies close to an `f32` rounding boundary, again with the same operations fused as
//! that build (an exact software `fma`), so that they agree with what TFLM computes there.
//! NaN results have the bits x86-64 gives: a NaN operand comes back quietened, an invalid
//! operation on numbers gives the default NaN `0xffc00000`.
//!
//! **Internal to stowplan; the API is not semver-stable.**
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod exp;
mod exp64;
mod expm1;
mod fma;
mod log;
mod rounding;
mod sincos;
mod sqrt;
pub mod sse;
mod tanh;

pub use exp::expf;
pub use exp64::exp;
pub use expm1::expm1f;
pub use log::logf;
pub use rounding::{ceilf, floorf, roundf, truncf};
pub use sincos::{cosf, sinf};
pub use sqrt::sqrtf;
pub use tanh::tanhf;

#[cfg(test)]
extern crate std;

#[cfg(test)]
mod exhaustive;

/// `a * b + c`: fused, with one rounding ([`fma::fma`]), for `FUSED`; else two roundings.
#[inline(always)]
fn madd<const FUSED: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FUSED { fma::fma(a, b, c) } else { a * b + c }
}

/// How close (in units of 2^-29 of an `f32` ulp) the unfused evaluation of a function may come
/// to an `f32` rounding boundary before the fused one is computed instead: 2^-5 of an ulp.
/// Away from the boundaries, the two evaluations (which differ by rounding errors of `f64`
/// arithmetic) round to the same `f32`; the exhaustive comparisons with the host's C library
/// (`exhaustive.rs`) check it for every input.
const MARGIN: u64 = 1 << 24;

/// Whether the `f64` value `y` rounds to `f32` close to a midpoint between two `f32`s (within
/// [`MARGIN`]), or lies outside the normal range of `f32` (where the rounding position
/// moves); then the fused evaluation decides.
#[inline(always)]
fn near_f32_midpoint(y: f64) -> bool {
    let magnitude = y.to_bits() & 0x7fff_ffff_ffff_ffff;
    // [2^-126, 2^127): normal f32 results, far from overflow.
    if !(0x3810_0000_0000_0000..0x47e0_0000_0000_0000).contains(&magnitude) {
        return true;
    }
    // The 29 bits below an f32's significand: 2^28 is the midpoint.
    let low = magnitude & ((1 << 29) - 1);
    low.abs_diff(1 << 28) <= MARGIN
}

/// x86-64's default NaN (`0.0 / 0.0`, `inf - inf`): sign bit set, quiet.
const DEFAULT_NAN: f32 = f32::from_bits(0xffc0_0000);

/// `x` with the quiet bit set if it is a NaN (what x86 arithmetic returns for a NaN operand),
/// `x` itself otherwise.
#[inline]
fn quiet(x: f32) -> f32 {
    if x.is_nan() {
        f32::from_bits(x.to_bits() | 0x0040_0000)
    } else {
        x
    }
}

/// glibc's `__math_invalidf(x)`, `(x - x) / (x - x)` on x86-64: `x` quietened if it is a NaN,
/// the default NaN otherwise.
#[inline]
fn invalid(x: f32) -> f32 {
    if x.is_nan() { quiet(x) } else { DEFAULT_NAN }
}

#[cfg(test)]
mod test_support {
    //! The inputs every function is checked on against the host's C library.

    /// The same bits, NaNs included (the host is x86-64 or another IEEE target; NaN payloads
    /// are compared too).
    pub fn same(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits()
    }

    /// Special values, the edges of each function's ranges, and `n` values spread over all
    /// bit patterns (deterministic), plus `n` values of magnitude below `limit`.
    pub fn inputs(n: usize, limit: f32, edges: &[f32]) -> std::vec::Vec<f32> {
        let mut v = std::vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            2.0,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            1.1754942e-38,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7f80_0001),
            f32::from_bits(0xff80_0001),
            f32::from_bits(0x7fc1_2345),
        ];
        for &e in edges {
            let b = e.to_bits();
            for d in 0..4 {
                v.push(f32::from_bits(b.wrapping_add(d)));
                v.push(f32::from_bits(b.wrapping_sub(d)));
                v.push(-f32::from_bits(b.wrapping_add(d)));
                v.push(-f32::from_bits(b.wrapping_sub(d)));
            }
        }
        let mut s: u32 = 0x2545_f491;
        for _ in 0..n {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            v.push(f32::from_bits(s));
            let u = f64::from(s) / f64::from(u32::MAX) * 2.0 - 1.0;
            v.push((u * f64::from(limit)) as f32);
        }
        v
    }
}

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
