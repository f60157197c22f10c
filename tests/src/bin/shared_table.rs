//! Prints the README's table of results on the shared real models:
//! `cargo run --release -p stowplan-tests --bin shared-table [DIR]` (DIR defaults to ../shared/models).
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use stowplan_planner::emit::thousands;
use stowplan_planner::plan::Planner;
use stowplan_planner::{OfflinePolicy, Options, plan_model};

fn main() -> ExitCode {
    let dir = std::env::args().nth(1).map_or_else(
        || stowplan_tests::repo_root().join("../shared/models"),
        PathBuf::from,
    );
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!(
            "error: cannot read {}: give the folder of .tflite models",
            dir.display()
        );
        return ExitCode::FAILURE;
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .collect();
    files.sort();
    println!(
        "| model | ops | tensors | planned | lower bound | greedy | gap | naive (linear) | saving | persistent | plan time |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let start = Instant::now();
        let result = plan_model(
            &bytes,
            &Options {
                planner: Planner::Greedy,
                ..Options::default()
            },
        );
        let elapsed = start.elapsed();
        match result {
            Ok(p) => {
                let note = if p.model.offline_plan.is_some() && p.offline == OfflinePolicy::Honour {
                    " (offline plan)"
                } else {
                    ""
                };
                println!(
                    "| `{name}` | {} | {} | {} | {} | {}{note} | {:.1} % | {} | {:.1} % | {} | {:.2} ms |",
                    p.model.ops.len(),
                    p.model.tensors.len(),
                    p.buffer_tensors.len(),
                    thousands(p.lower_bound_bytes()),
                    thousands(p.arena_bytes()),
                    p.gap_percent(),
                    thousands(p.naive_bytes()),
                    (p.naive_bytes().saturating_sub(p.arena_bytes())) as f64 * 100.0
                        / p.naive_bytes().max(1) as f64,
                    thousands(p.persistent_bytes),
                    elapsed.as_secs_f64() * 1000.0
                );
            }
            Err(e) => println!("| `{name}` | error: {e} |||||||||"),
        }
    }
    ExitCode::SUCCESS
}
