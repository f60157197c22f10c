//! Prints docs/planning.md's table of what outputs over the inputs they consume save on the
//! shared real models, planned as for generated `invoke` (reshapes aliased, constants folded):
//! the pairs planned over each other and declared, the tensor-level lower bound, the
//! overlap-aware bound, the arena with whole tensors (`overlap = false`) and with overlaps (the
//! default, verified), and the time to plan it (reading the model included):
//! `cargo run --release -p stowplan-tests --bin overlap-table [DIR]` (DIR defaults to
//! ../shared/models).
#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::time::Instant;

use stowplan_planner::emit::thousands;
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
        "| model | overlapped / pairs | tensor-level bound | overlap-aware bound | arena (whole tensors) | arena (overlaps) | saving | time to plan |"
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
        let invoke = Options::default().with_invoke(true);
        let whole_tensors = Options {
            overlaps: false,
            ..invoke.clone()
        };
        let (plan, flat) = match (
            plan_model(&bytes, &invoke),
            plan_model(&bytes, &whole_tensors),
        ) {
            (Ok(plan), Ok(flat)) => (plan, flat),
            (Err(e), _) | (_, Err(e)) => {
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
        // Planning with the pairs (reading the model included), best of 3 runs.
        let mut best = f64::MAX;
        for _ in 0..3 {
            let start = Instant::now();
            let _ = plan_model(&bytes, &invoke);
            best = best.min(start.elapsed().as_secs_f64() * 1000.0);
        }
        let (before, after) = (flat.arena_bytes(), plan.arena_bytes());
        whole += before;
        paired += after;
        println!(
            "| `{name}` | {} / {} | {} | {} | {} | {} | {:.1} % | {best:.2} ms |",
            plan.overlapped().len(),
            plan.problem.overlaps().len(),
            thousands(plan.tensor_bound_bytes()),
            thousands(plan.lower_bound_bytes()),
            thousands(before),
            thousands(after),
            before.saturating_sub(after) as f64 * 100.0 / before.max(1) as f64,
        );
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
