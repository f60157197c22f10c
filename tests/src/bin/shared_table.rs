//! Prints docs/planning.md's table of results on the shared real models, greedy beside the default
//! planner `auto`:
//! `cargo run --release -p stowplan-tests --bin shared-table [DIR]` (DIR defaults to ../shared/models).
#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::time::Instant;

use stowplan_planner::emit::thousands;
use stowplan_planner::plan::Planner;
use stowplan_planner::{OfflinePolicy, Options, plan_model};

fn main() -> ExitCode {
    let files = match stowplan_tests::table_models() {
        Ok(files) => files,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "| model | ops | tensors | planned | lower bound | greedy | gap | auto | winner | proven optimal | naive (linear) | saving | persistent | greedy time | auto time |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|--:|---|---|--:|--:|--:|--:|--:|");
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        // Whole pipeline (parse, validate, lifetimes, plan, verify), best of 5 runs.
        let timed = |planner: Planner| {
            let options = Options {
                planner,
                ..Options::default()
            };
            let mut best = f64::MAX;
            let mut result = plan_model(&bytes, &options);
            for _ in 0..5 {
                let start = Instant::now();
                result = plan_model(&bytes, &options);
                best = best.min(start.elapsed().as_secs_f64() * 1000.0);
            }
            (result, best)
        };
        let (greedy, greedy_ms) = timed(Planner::Greedy);
        let (auto, auto_ms) = timed(Planner::Auto);
        match (greedy, auto) {
            (Ok(g), Ok(a)) => {
                let note = if a.model.offline_plan.is_some() && a.offline == OfflinePolicy::Honour {
                    " (offline plan)"
                } else {
                    ""
                };
                println!(
                    "| `{name}` | {} | {} | {} | {} | {}{note} | {:.1} % | {}{note} | {} | {} | {} | {:.1} % | {} | {:.2} ms | {:.2} ms |",
                    a.model.ops.len(),
                    a.model.tensors.len(),
                    a.buffer_tensors.len(),
                    thousands(a.lower_bound_bytes()),
                    thousands(g.arena_bytes()),
                    g.gap_percent(),
                    thousands(a.arena_bytes()),
                    a.plan.winner(),
                    if a.plan.proven_optimal() { "yes" } else { "no" },
                    thousands(a.naive_bytes()),
                    (a.naive_bytes().saturating_sub(a.arena_bytes())) as f64 * 100.0
                        / a.naive_bytes().max(1) as f64,
                    thousands(a.persistent_bytes),
                    greedy_ms,
                    auto_ms
                );
            }
            (Err(e), _) | (_, Err(e)) => println!("| `{name}` | error: {e} ||||||||||||||"),
        }
    }
    ExitCode::SUCCESS
}
