//! Planning time against tensor count, per model family (docs/planning.md):
//! `cargo run --release -p stowplan-tests --bin bench-scale [MAX_TENSORS]`
//! (MAX_TENSORS defaults to 1,000,000).
//!
//! For each family of `stowplan_tests::scale` and each size from 1,000 tensors up, in powers of
//! ten: the time `plan_model` takes with the default options (read, lifetimes, the `auto`
//! planner, verification), the time of the greedy planner and of the verifier alone on the same
//! problem, and the plan's figures; then a second table, each phase of `stowplan plan` timed on
//! its own (reading, tensors, lifetimes, the problem, the bound, each heuristic, `auto`, the
//! verifier, the live profile, the persistent state, the text report). Then the thousand-ADD
//! random DAG with the default options.
//! Times are wall-clock, the best of a few runs (one for the largest), on whatever machine runs it.
#![forbid(unsafe_code)]

use std::time::{Duration, Instant};

use stowplan_planner::emit::{self, thousands};
use stowplan_planner::plan::{self, Planner};
use stowplan_planner::{Options, arena, graph, lifetime, plan_model, state, tflite, verify};
use stowplan_tests::scale::{Family, build, thousand_adds};

fn timed<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let r = f();
        best = best.min(start.elapsed());
        out = Some(r);
    }
    match out {
        Some(r) => (best, r),
        None => unreachable!("runs >= 1"),
    }
}

fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 10_000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

/// The phases of `stowplan plan` (what `plan_model` does, then the text report), each timed on
/// its own: the best of `runs` runs per phase. `auto` is timed whole (it includes `bound`, the
/// heuristics it tries and the search); each heuristic is timed alone too, greedy then the others
/// while none reaches the lower bound (`auto` may stop sooner: `plan::AUTO_HEURISTIC_WORK`).
fn phases(bytes: &[u8], runs: usize) -> Vec<(&'static str, Duration)> {
    let options = Options::default();
    let mut out = Vec::new();
    let (t, model) = timed(runs, || tflite::read_model(bytes));
    out.push(("read", t));
    let Ok(model) = model else {
        return out;
    };
    let (t, tensors) = timed(runs, || graph::tensor_infos(&model, &[], true, false));
    out.push(("tensors", t));
    let Ok(tensors) = tensors else {
        return out;
    };
    let (t, lifetimes) = timed(runs, || lifetime::lifetimes(&model));
    out.push(("lifetimes", t));
    let Ok(lifetimes) = lifetimes else {
        return out;
    };
    let rules = arena::Rules {
        alignment: options.alignment,
        kernel_scratch: options.kernel_scratch,
        alias_reshapes: options.alias_reshapes,
    };
    let (t, problem) = timed(runs, || {
        arena::problem(&model, &tensors, &lifetimes, &rules)
    });
    out.push(("problem", t));
    let Ok(problem) = problem else {
        return out;
    };
    let problem = &problem.problem;
    let (t, bound) = timed(runs, || plan::proven_bound(problem));
    out.push(("bound", t));
    for planner in Planner::HEURISTICS {
        let (t, p) = timed(runs, || plan::run(problem, planner));
        out.push((planner.name(), t));
        if p.arena_bytes() <= bound {
            break;
        }
    }
    let (t, auto) = timed(runs, || plan::run(problem, Planner::Auto));
    out.push(("auto", t));
    let (t, _) = timed(runs, || verify::verify(problem, &auto, true));
    out.push(("verify", t));
    let (t, _) = timed(runs, || plan::lower_bound(problem));
    out.push(("profile", t));
    let (t, _) = timed(runs, || {
        state::plan_state(&model, bytes, &tensors, options.alignment)
    });
    out.push(("state", t));
    if let Ok(whole) = plan_model(bytes, &options) {
        let (t, _) = timed(runs, || emit::model_text(&whole, "model.tflite"));
        out.push(("report", t));
    }
    out
}

fn main() {
    let max: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.replace('_', "").parse().ok())
        .unwrap_or(1_000_000);
    println!(
        "| family | tensors | file | plan_model (auto) | greedy alone | verify alone | arena | lower bound | planner |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|--:|---|");
    let mut phase_rows = Vec::new();
    for family in Family::ALL {
        let mut n = 1_000;
        while n <= max {
            let bytes = build(family, n, 7);
            let runs = if n >= 1_000_000 { 1 } else { 3 };
            let (time, result) = timed(runs, || plan_model(&bytes, &Options::default()));
            let plan = match result {
                Ok(p) => p,
                Err(e) => {
                    println!(
                        "| {} | {} | | error: {e} | | | | | |",
                        family.name(),
                        thousands(n as u64)
                    );
                    n *= 10;
                    continue;
                }
            };
            let (greedy_time, greedy) = timed(runs, || plan::run(&plan.problem, Planner::Greedy));
            let (verify_time, verified) =
                timed(runs, || verify::verify(&plan.problem, &greedy, false));
            assert!(verified.is_ok(), "greedy's plan fails verification");
            println!(
                "| {} | {} | {} KB | {} | {} | {} | {} | {} | {} |",
                family.name(),
                thousands(n as u64),
                thousands(bytes.len() as u64 / 1024),
                ms(time),
                ms(greedy_time),
                ms(verify_time),
                thousands(plan.arena_bytes()),
                thousands(plan.lower_bound_bytes()),
                plan.plan.winner(),
            );
            let cells: Vec<String> = phases(&bytes, runs)
                .into_iter()
                .map(|(name, t)| format!("{name} {}", ms(t)))
                .collect();
            phase_rows.push(format!(
                "| {} | {} | {} |",
                family.name(),
                thousands(n as u64),
                cells.join(", ")
            ));
            n *= 10;
        }
    }
    println!();
    println!("| family | tensors | phases of `stowplan plan`, each timed alone |");
    println!("|---|--:|---|");
    for row in phase_rows {
        println!("{row}");
    }
    println!();
    let bytes = thousand_adds(1);
    let (time, plan) = timed(1, || plan_model(&bytes, &Options::default()));
    match plan {
        Ok(p) => println!(
            "thousand ADDs ({} KB): {} with the defaults: arena {}, lower bound {}, best bound {}, {} ({} search steps)",
            thousands(bytes.len() as u64 / 1024),
            ms(time),
            thousands(p.arena_bytes()),
            thousands(p.lower_bound_bytes()),
            thousands(p.plan.best_bound()),
            p.plan.winner(),
            thousands(p.plan.search_steps()),
        ),
        Err(e) => println!("thousand ADDs: error: {e}"),
    }
}
