//! Planning and verification stay near-linear in the tensor count, for every model family of
//! `stowplan_tests::scale` (the seeded slice of the benchmark `bench-scale`, which sweeps 1,000 to
//! 1,000,000 tensors in a release build; see docs/planning.md).
//!
//! Times are wall-clock, so the check is a ratio measured in one run, on the same machine at the
//! same moment: four times the tensors may take at most [`MAX_RATIO`] times as long (linear is 4,
//! the quadratic walks this replaced were 16).

use std::time::{Duration, Instant};

use stowplan_planner::plan::{self, Planner};
use stowplan_planner::{Options, plan_model, verify};
use stowplan_tests::scale::{Family, build};
use stowplan_tests::within;

/// The tests of this file run one at a time: a timing must not share the machine with another.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn alone() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The most the time may grow when the tensors grow four times.
const MAX_RATIO: f64 = 10.0;

/// The best of three runs of planning and verifying `bytes` (the whole pipeline, then greedy and
/// the verifier on their own, which the pipeline's `auto` includes).
fn best_time(bytes: &[u8]) -> Duration {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            let plan = plan_model(bytes, &Options::default()).unwrap();
            let greedy = plan::run(&plan.problem, Planner::Greedy);
            verify::verify(&plan.problem, &greedy, false).unwrap();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

#[test]
fn four_times_the_tensors_take_at_most_ten_times_as_long() {
    let _alone = alone();
    let small = 4_000;
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for family in Family::ALL {
        let a = build(family, small, 7);
        let b = build(family, 4 * small, 7);
        // Alternate, so that a burst of load elsewhere hits both sizes alike.
        let (mut ta, mut tb) = (Duration::MAX, Duration::MAX);
        for _ in 0..2 {
            ta = ta.min(best_time(&a));
            tb = tb.min(best_time(&b));
        }
        let ratio = tb.as_secs_f64() / ta.as_secs_f64().max(1e-6);
        report.push(format!(
            "{}: {small} tensors {ta:?}, {} tensors {tb:?}, ratio {ratio:.1}",
            family.name(),
            4 * small
        ));
        if ratio > MAX_RATIO {
            failures.push(family.name());
        }
    }
    println!("{}", report.join("\n"));
    assert!(
        failures.is_empty(),
        "time grows faster than near-linear for {failures:?}:\n{}",
        report.join("\n")
    );
}

#[test]
fn a_flat_chain_of_220000_ops_is_not_refused_for_control_flow() {
    let _alone = alone();
    // 220,000 RELUs in a row walk 1.1 M steps: once refused as if control flow had expanded
    // the timeline beyond its limit.
    let bytes = build(Family::Chain, 220_001, 3);
    let plan = within(
        Duration::from_secs(300),
        "planning a chain of 220,000 ops",
        {
            move || {
                plan_model(&bytes, &Options::default())
                    .map(|p| (p.arena_bytes(), p.lower_bound_bytes(), p.tensors.len()))
            }
        },
    );
    let (arena, bound, tensors) = plan.unwrap();
    assert_eq!(tensors, 220_001);
    // Two tensors of at most 1,024 bytes live at a time: the bound is at most 2,048, and the
    // heuristics leave at most a few holes.
    assert!(
        bound <= 2 * 1_024 && bound <= arena && arena <= 4 * 1_024,
        "{arena}, {bound}"
    );
}

#[test]
fn hundred_thousand_untouched_tensors_plan_and_verify_within_a_minute() {
    let _alone = alone();
    // All share TFLite Micro's -1 lifetime: once 27 s in a release build (every pair compared).
    let bytes = build(Family::Untouched, 100_000, 5);
    let (arena, sum) = within(
        Duration::from_secs(60),
        "100,000 untouched tensors",
        move || {
            let plan = plan_model(&bytes, &Options::default()).unwrap();
            let sum: u64 = plan
                .problem
                .buffers()
                .iter()
                .map(|b| plan.problem.aligned_size(b.size))
                .sum();
            (plan.arena_bytes(), sum)
        },
    );
    // All live together: the arena is the sum of their aligned sizes.
    assert_eq!(arena, sum);
}
