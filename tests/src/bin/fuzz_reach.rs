//! How far a fuzz corpus gets through the pipeline: runs every file of a directory through a
//! target's body (`stowplan_tests::fuzz`) and prints the shares of inputs that reach a parsed
//! model, a plan, and code generation with `invoke`.
//!
//! `cargo run --release -p stowplan-tests --bin fuzz-reach -- TARGET DIR` with TARGET one of
//! `model_plan`, `builder_roundtrip`, `codegen`, `model_gen` (`problem_planners` reads no
//! model).
//!
//! `fuzz-reach --models FROM TO` writes the model `model_gen` builds from each file of FROM to
//! TO (a seed corpus of valid models for the raw-bytes targets).
#![forbid(unsafe_code)]

use std::process::ExitCode;

use stowplan_tests::fuzz::{self, Reach};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [mode, from, to] = &args[..]
        && mode == "--models"
    {
        return write_models(from, to);
    }
    let [target, dir] = &args[..] else {
        eprintln!("usage: fuzz-reach TARGET DIR | fuzz-reach --models FROM TO");
        return ExitCode::FAILURE;
    };
    let body: fn(&[u8]) -> Reach = match target.as_str() {
        "model_plan" => fuzz::model_plan_reach,
        "builder_roundtrip" => fuzz::builder_roundtrip_reach,
        "codegen" => fuzz::codegen_reach,
        "model_gen" => fuzz::model_gen_reach,
        other => {
            eprintln!("fuzz-reach: no model target {other:?}");
            return ExitCode::FAILURE;
        }
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            eprintln!("fuzz-reach: {dir}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut counts = [0u64; 5];
    for entry in entries.flatten() {
        let Ok(data) = std::fs::read(entry.path()) else {
            continue;
        };
        let reach = body(&data);
        for (level, count) in counts.iter_mut().enumerate() {
            if reach as usize >= level {
                *count += 1;
            }
        }
    }
    let [total, parsed, planned, fallback, generated] = counts;
    let share = |n: u64| {
        if total == 0 {
            0.0
        } else {
            100.0 * n as f64 / total as f64
        }
    };
    println!(
        "{target}: {total} inputs; parsed {parsed} ({:.1} %), planned {planned} ({:.1} %), generated with invoke and a fallback {fallback} ({:.1} %), generated with invoke {generated} ({:.1} %)",
        share(parsed),
        share(planned),
        share(fallback),
        share(generated)
    );
    ExitCode::SUCCESS
}

fn write_models(from: &str, to: &str) -> ExitCode {
    let entries = match std::fs::read_dir(from) {
        Ok(entries) => entries,
        Err(e) => {
            eprintln!("fuzz-reach: {from}: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = std::fs::create_dir_all(to) {
        eprintln!("fuzz-reach: {to}: {e}");
        return ExitCode::FAILURE;
    }
    let mut written = 0;
    for entry in entries.flatten() {
        let Ok(data) = std::fs::read(entry.path()) else {
            continue;
        };
        let path = std::path::Path::new(to).join(entry.file_name());
        if let Err(e) = std::fs::write(&path, fuzz::generated_model(&data)) {
            eprintln!("fuzz-reach: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        written += 1;
    }
    println!("{written} models written to {to}");
    ExitCode::SUCCESS
}
