//! Truncated and corrupted models give an error, never a panic, a hang or a huge allocation.
//! Runs on the project's own models always, and on the shared real models when present.

use std::time::{Duration, Instant};

use stowplan_planner::{ModelPlan, Options, PlanArenaError, plan_model};
use stowplan_tests::SYNTHETIC;

/// The longest one plan of a cut or corrupted model may take (a debug build, a busy machine):
/// "never a hang" as an assertion.
const MAX_TIME: Duration = Duration::from_secs(20);

/// `plan_model`, checked to end within [`MAX_TIME`].
fn timed_plan(bytes: &[u8], what: &str) -> Result<ModelPlan, PlanArenaError> {
    let start = Instant::now();
    let result = plan_model(bytes, &Options::default());
    let took = start.elapsed();
    assert!(took < MAX_TIME, "{what} took {took:?}");
    result
}

/// Cuts at every byte for small files, at `cuts` evenly spread points for large ones. A cut
/// must give an error, unless it only removed trailing bytes nothing points into (padding), in
/// which case the plan must be the full model's.
fn truncations(bytes: &[u8], cuts: usize) {
    let full = plan_model(bytes, &Options::default()).ok().map(|p| p.plan);
    let step = (bytes.len() / cuts).max(1);
    for cut in (0..bytes.len()).step_by(step) {
        if let Ok(p) = timed_plan(&bytes[..cut], &format!("a cut at {cut}")) {
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

/// Flips random bytes (a fixed xorshift seed per round): whatever happens, no panic and no hang.
/// Returns how many of the corrupted models were refused.
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
        if timed_plan(&corrupt, &format!("flip round {seed}")).is_err() {
            errors += 1;
        }
    }
    errors
}

#[test]
fn own_models_never_panic() {
    let rounds = if cfg!(miri) { 4 } else { 300 };
    for s in SYNTHETIC {
        let bytes = (s.build)();
        truncations(&bytes, 2_000);
        let errors = flips(&bytes, rounds);
        println!("{}: {errors} of {rounds} corrupted copies refused", s.name);
        // Random flips must hit something the reader rejects, or the test checks nothing; and
        // some must plan, or only the first check is reached.
        assert!(errors > 0, "{}: no corrupted copy was refused", s.name);
        // (dynamic_dim needs a shape override: it and its copies are all refused.)
        if plan_model(&bytes, &Options::default()).is_ok() {
            assert!(
                errors < rounds as usize,
                "{}: every corrupted copy was refused",
                s.name
            );
        }
    }
}

#[test]
fn shared_models_never_panic() {
    let Some(files) =
        stowplan_tests::shared_models("truncation and corruption of the shared models")
    else {
        return;
    };
    assert_eq!(files.len(), 13);
    let mut refused = 0;
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        // Large models cost a parse per cut: fewer cuts for them.
        let cuts = if bytes.len() > 1 << 20 { 40 } else { 400 };
        truncations(&bytes, cuts);
        let rounds = if bytes.len() > 1 << 20 { 20 } else { 100 };
        let errors = flips(&bytes, rounds);
        println!(
            "{}: {errors} of {rounds} corrupted copies refused",
            path.display()
        );
        refused += errors;
    }
    assert!(
        refused > 0,
        "no corrupted copy of any shared model was refused"
    );
}
