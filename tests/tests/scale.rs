//! Planning stays near-linear in the tensor count, for every model family of
//! `stowplan_tests::scale` (the seeded slice of the benchmark `bench-scale`, which times 1,000 to
//! 1,000,000 tensors in a release build; see docs/planning.md).
//!
//! The growth check counts work, not time: every heuristic's placement on a model's problem
//! reports its exact units of work (`plan::placement_work`, the count `auto` budgets), the same on
//! every machine, and four times the tensors may cost at most [`MAX_RATIO`] times as much (linear
//! is 4; the quadratic walks this replaced were 16). The other two tests are hang guards with
//! generous limits, not measurements.

use std::time::Duration;

use stowplan_planner::plan::{self, Planner};
use stowplan_planner::{Options, emit, plan_model};
use stowplan_tests::scale::{Family, build};
use stowplan_tests::within;

/// The tests of this file run one at a time: the hang guards must not share the machine.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn alone() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The most the placement work may grow when the tensors grow four times.
const MAX_RATIO: f64 = 6.0;

#[test]
fn four_times_the_tensors_cost_at_most_six_times_the_work() {
    let small = 4_000;
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for family in Family::ALL {
        let a = plan_model(&build(family, small, 7), &Options::default()).unwrap();
        let b = plan_model(&build(family, 4 * small, 7), &Options::default()).unwrap();
        for planner in Planner::HEURISTICS {
            let wa = plan::placement_work(&a.problem, planner).unwrap();
            let wb = plan::placement_work(&b.problem, planner).unwrap();
            let ratio = wb as f64 / wa.max(1) as f64;
            report.push(format!(
                "{} {planner}: {small} tensors {wa} units, {} tensors {wb} units, ratio {ratio:.2}",
                family.name(),
                4 * small
            ));
            if ratio > MAX_RATIO {
                failures.push(format!("{} {planner}", family.name()));
            }
        }
    }
    println!("{}", report.join("\n"));
    assert!(
        failures.is_empty(),
        "placement work grows faster than near-linear for {failures:?}:\n{}",
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

#[test]
fn a_chain_of_100000_ops_reports_every_tensor_and_op_in_json() {
    let _alone = alone();
    // The report `stowplan plan --json` streams (a chain of 1,000,000 ops: tests/scale/chain.sh).
    let bytes = build(Family::Chain, 100_001, 7);
    let json = within(
        Duration::from_secs(300),
        "the JSON report of a chain of 100,000 ops",
        move || {
            let plan = plan_model(&bytes, &Options::default()).unwrap();
            let mut out = Vec::new();
            emit::write_model_json(&plan, "chain.tflite", &mut out).unwrap();
            out
        },
    );
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v["planned_tensors"], 100_001);
    let arena = v["arena_bytes"].as_u64().unwrap();
    let tensors = v["tensors"].as_array().unwrap();
    assert_eq!(tensors.len(), 100_001);
    let span = |t: &serde_json::Value| {
        let at = t["offset"].as_u64().unwrap();
        (at, at + t["bytes"].as_u64().unwrap())
    };
    for (k, t) in tensors.iter().enumerate() {
        assert_eq!(t["id"], k, "tensor {k}");
        let (start, end) = span(t);
        assert!(end <= arena, "tensor {k} at {start}..{end}, arena {arena}");
        // Op k reads tensor k and writes tensor k + 1: their bytes are apart.
        if let Some(next) = tensors.get(k + 1) {
            let (a, b) = span(next);
            assert!(b <= start || end <= a, "tensors {k} and {} overlap", k + 1);
        }
    }
    let ops = v["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 100_000);
    for (k, op) in ops.iter().enumerate() {
        assert_eq!(op["inputs"], serde_json::json!([k]), "op {k}");
        assert_eq!(op["outputs"], serde_json::json!([k + 1]), "op {k}");
    }
}
