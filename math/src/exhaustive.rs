//! Every `f32` input against the host's C library (glibc on x86-64 Linux, with its FMA builds
//! on processors that have FMA), bit for bit, NaNs included. Minutes each in release mode, so
//! ignored by default:
//!
//! ```text
//! cargo test -p stowplan-math --release -- --ignored exhaustive
//! ```
//!
//! Run on the development host (glibc 2.36, x86-64 with FMA): no input differs, NaN bits
//! included, for any of `expf`, `logf`, `sinf`, `cosf`, `expm1f`, `tanhf` and `sqrtf` (an
//! entirely unfused `expf` differed for 2 inputs; the fused-only evaluation of the first four
//! agreed as well before the plain-first evaluation replaced it).

use std::sync::atomic::{AtomicU64, Ordering};

/// The number of inputs where `ours` and `host` give different bits, over all 2^32, on two
/// threads; the first few are printed.
fn mismatches(name: &str, ours: fn(f32) -> f32, host: fn(f32) -> f32) -> u64 {
    let bad = AtomicU64::new(0);
    std::thread::scope(|s| {
        for t in 0..2_u64 {
            let bad = &bad;
            s.spawn(move || {
                let mut i = t;
                while i < 1 << 32 {
                    let x = f32::from_bits(i as u32);
                    let (a, b) = (ours(x), host(x));
                    if a.to_bits() != b.to_bits() && bad.fetch_add(1, Ordering::Relaxed) < 8 {
                        std::println!(
                            "{name}({x:e} = {:#x}): {:#x} vs {:#x}",
                            i,
                            a.to_bits(),
                            b.to_bits()
                        );
                    }
                    i += 2;
                }
            });
        }
    });
    bad.load(Ordering::Relaxed)
}

#[test]
#[ignore = "every f32; minutes in release mode"]
fn exhaustive_expf() {
    assert_eq!(mismatches("expf", crate::expf, f32::exp), 0);
}

#[test]
#[ignore = "every f32; minutes in release mode"]
fn exhaustive_logf() {
    assert_eq!(mismatches("logf", crate::logf, f32::ln), 0);
}

#[test]
#[ignore = "every f32; minutes in release mode"]
fn exhaustive_sinf() {
    assert_eq!(mismatches("sinf", crate::sinf, f32::sin), 0);
}

#[test]
#[ignore = "every f32; minutes in release mode"]
fn exhaustive_cosf() {
    assert_eq!(mismatches("cosf", crate::cosf, f32::cos), 0);
}

#[test]
#[ignore = "every f32; minutes in release mode"]
fn exhaustive_expm1f() {
    assert_eq!(mismatches("expm1f", crate::expm1f, f32::exp_m1), 0);
}

#[test]
#[ignore = "every f32; minutes in release mode"]
fn exhaustive_tanhf() {
    assert_eq!(mismatches("tanhf", crate::tanhf, f32::tanh), 0);
}

#[test]
#[ignore = "every f32; minutes in release mode"]
fn exhaustive_sqrtf() {
    assert_eq!(mismatches("sqrtf", crate::sqrtf, f32::sqrt), 0);
}
