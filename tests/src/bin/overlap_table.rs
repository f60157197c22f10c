//! Prints docs/planning.md's table of what outputs over the inputs they consume would save on the
//! shared real models: the tensor-level lower bound, the overlap-aware bound with each op's
//! pairs from its kernels' orders (`kernel_order::model_overlaps`), the arena `auto` reaches
//! with them (verified), and the time to plan it:
//! `cargo run --release -p stowplan-tests --bin overlap-table [DIR]` (DIR defaults to
//! ../shared/models).
#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::time::Instant;

use stowplan_planner::emit::thousands;
use stowplan_planner::kernel_order::model_overlaps;
use stowplan_planner::plan::{Planner, Problem, lower_bound, proven_bound};
use stowplan_planner::verify::solve;
use stowplan_planner::{Options, plan_model};

fn main() -> ExitCode {
    let files = match stowplan_tests::table_models() {
        Ok(files) => files,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "| model | pairs | tensor-level bound | overlap-aware bound | arena (whole tensors) | arena (with pairs) | saving | time to plan |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|--:|");
    let mut failed = false;
    let (mut whole, mut paired) = (0_u64, 0_u64);
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let plan = match plan_model(&bytes, &Options::default()) {
            Ok(plan) => plan,
            Err(e) => {
                println!("| `{name}` | error: {e} |||||||");
                failed = true;
                continue;
            }
        };
        if plan.model.offline_plan.is_some() {
            // Offsets fixed by the model: no pair (the pairs need both buffers planned online).
            println!(
                "| `{name}` | offline plan | | | {} | | | |",
                thousands(plan.arena_bytes())
            );
            continue;
        }
        let pairs = model_overlaps(&plan);
        let count = pairs.len();
        let problem = match Problem::with_overlaps(
            plan.problem.buffers().to_vec(),
            plan.problem.alignment(),
            pairs,
        ) {
            Ok(p) => p,
            Err(e) => {
                println!("| `{name}` | the pairs are refused: {e} |||||||");
                failed = true;
                continue;
            }
        };
        // The pairs and the verified `auto` plan, best of 3 runs.
        let mut best = f64::MAX;
        for _ in 0..3 {
            let start = Instant::now();
            let again = Problem::with_overlaps(
                plan.problem.buffers().to_vec(),
                plan.problem.alignment(),
                model_overlaps(&plan),
            );
            if let Ok(p) = again {
                let _ = solve(&p, Planner::Auto);
            }
            best = best.min(start.elapsed().as_secs_f64() * 1000.0);
        }
        match solve(&problem, Planner::Auto) {
            Ok(with) => {
                let (before, after) = (plan.arena_bytes(), with.arena_bytes());
                whole += before;
                paired += after;
                println!(
                    "| `{name}` | {count} | {} | {} | {} | {} | {:.1} % | {best:.2} ms |",
                    thousands(lower_bound(&plan.problem).aligned_bytes),
                    thousands(proven_bound(&problem)),
                    thousands(before),
                    thousands(after),
                    before.saturating_sub(after) as f64 * 100.0 / before.max(1) as f64,
                );
            }
            Err(e) => {
                println!("| `{name}` | {count} | the plan failed verification: {e} ||||||");
                failed = true;
            }
        }
    }
    println!(
        "| all | | | | {} | {} | {:.1} % | |",
        thousands(whole),
        thousands(paired),
        whole.saturating_sub(paired) as f64 * 100.0 / whole.max(1) as f64
    );
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
