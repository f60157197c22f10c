//! Writes one model of `stowplan_tests::scale` to a file, for timing the CLI on it
//! (docs/planning.md, "Scaling with the tensor count"; `tests/scale/chain.sh`):
//! `cargo run --release -p stowplan-tests --bin scale-model -- FAMILY TENSORS OUT.tflite [SEED]`
//! with FAMILY one of `chain`, `fan-out`, `untouched`, `random-dag` and SEED 7 unless given (the
//! seed `bench-scale` uses).
#![forbid(unsafe_code)]

use std::process::ExitCode;

use stowplan_tests::scale::{Family, build};

const USAGE: &str =
    "usage: scale-model chain|fan-out|untouched|random-dag TENSORS OUT.tflite [SEED]";

fn family(name: &str) -> Option<Family> {
    match name {
        "chain" => Some(Family::Chain),
        "fan-out" => Some(Family::FanOut),
        "untouched" => Some(Family::Untouched),
        "random-dag" => Some(Family::RandomDag),
        _ => None,
    }
}

fn number(text: &str) -> Option<u64> {
    text.replace('_', "").parse().ok()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(fam), Some(tensors), Some(out)) = (
        args.first().and_then(|a| family(a)),
        args.get(1)
            .and_then(|a| number(a))
            .and_then(|n| usize::try_from(n).ok()),
        args.get(2),
    ) else {
        eprintln!("error: {USAGE}");
        return ExitCode::from(2);
    };
    let seed = match args.get(3).map(|a| number(a)) {
        None => 7,
        Some(Some(seed)) => seed,
        Some(None) => {
            eprintln!("error: {USAGE}");
            return ExitCode::from(2);
        }
    };
    let bytes = build(fam, tensors, seed);
    if let Err(e) = std::fs::write(out, &bytes) {
        eprintln!("error: cannot write {out}: {e}");
        return ExitCode::from(1);
    }
    println!(
        "wrote {out}: {} {tensors} tensors, {} bytes",
        fam.name(),
        bytes.len()
    );
    ExitCode::SUCCESS
}
