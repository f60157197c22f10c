//! Truncated and corrupted models give an error, never a panic, a hang or a huge allocation.
//! Runs on the project's own models always, and on the shared real models when present.

use stowplan_planner::{Options, plan_model};
use stowplan_tests::SYNTHETIC;

/// Cuts at every byte for small files, at `cuts` evenly spread points for large ones. A cut
/// must give an error, unless it only removed trailing bytes nothing points into (padding), in
/// which case the plan must be the full model's.
fn truncations(bytes: &[u8], cuts: usize) {
    let full = plan_model(bytes, &Options::default()).ok().map(|p| p.plan);
    let step = (bytes.len() / cuts).max(1);
    for cut in (0..bytes.len()).step_by(step) {
        if let Ok(p) = plan_model(&bytes[..cut], &Options::default()) {
            assert!(
                bytes.len() - cut < 16,
                "a model cut at {cut} of {} bytes planned",
                bytes.len()
            );
            assert_eq!(
                Some(p.plan),
                full,
                "a model cut at {cut} of {} bytes planned differently",
                bytes.len()
            );
        }
    }
}

/// Flips random bytes (a fixed xorshift seed per round): whatever happens, no panic.
fn flips(bytes: &[u8], rounds: u64) -> usize {
    let mut errors = 0;
    for seed in 1..=rounds {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut corrupt = bytes.to_vec();
        for _ in 0..1 + next() % 8 {
            let at = (next() % corrupt.len() as u64) as usize;
            corrupt[at] ^= 1 << (next() % 8);
        }
        if plan_model(&corrupt, &Options::default()).is_err() {
            errors += 1;
        }
    }
    errors
}

#[test]
fn own_models_never_panic() {
    let rounds = if cfg!(miri) { 4 } else { 300 };
    let mut errors = 0;
    for s in SYNTHETIC {
        let bytes = (s.build)();
        truncations(&bytes, 2_000);
        errors += flips(&bytes, rounds);
    }
    // Random flips must hit something the reader rejects, or the test checks nothing.
    assert!(errors > 0);
}

#[cfg_attr(
    not(shared_models),
    ignore = "needs the shared models (../shared beside the repository, or STOWPLAN_SHARED)"
)]
#[test]
fn shared_models_never_panic() {
    let files = stowplan_tests::shared_models("truncation and corruption of the shared models");
    assert_eq!(files.len(), 13);
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        // Large models cost a parse per cut: fewer cuts for them.
        let cuts = if bytes.len() > 1 << 20 { 40 } else { 400 };
        truncations(&bytes, cuts);
        flips(&bytes, if bytes.len() > 1 << 20 { 20 } else { 100 });
    }
}
