//! `stowplan-invoke MODEL [--invocations N] < INPUT > OUTPUT`: runs inferences of a model through
//! its generated `invoke` (the runtime's kernels on the planned arena) and writes the output
//! bytes.
//!
//! The input is the raw bytes of the model's inputs, in order; the output the raw bytes of its
//! outputs, in order. With `--invocations N` the input holds N such sets, one after another, and
//! the model runs N times in a row on the same arena (carrying whatever state it keeps, as TFLM's
//! interpreter does between `Invoke` calls); the output holds the N outputs in order. `stowplan-invoke --list` prints the models this build holds (TFLite
//! Micro's own only where `../shared/models` existed at build time). `tests/tflm/check_invoke.py`
//! drives it and compares every output byte with the real TFLite Micro interpreter's.
//!
//! `stowplan-invoke --bench N MODEL < INPUT` runs N inferences and prints the mean time of one
//! (each with a fresh arena and its input copied in, as a caller would), for
//! `tests/tflm/bench_invoke.py`.
#![forbid(unsafe_code)]

use std::io::{Read, Write};
use std::process::ExitCode;

use stowplan::{Location, TensorInfo};

/// Copies `input` into the arena slots of the model's inputs, in order.
fn feed(
    arena: &mut [u8],
    tensors: &[TensorInfo],
    inputs: &[u32],
    input: &[u8],
) -> Result<(), String> {
    let mut at = 0;
    for &t in inputs {
        let Some(TensorInfo {
            location: Location::Arena { offset, bytes },
            ..
        }) = tensors.get(t as usize)
        else {
            return Err(format!("input tensor {t} is not in the arena"));
        };
        let src = input
            .get(at..at + bytes)
            .ok_or_else(|| format!("the input has {} bytes, the model needs more", input.len()))?;
        arena[*offset..*offset + *bytes].copy_from_slice(src);
        at += bytes;
    }
    if at != input.len() {
        return Err(format!(
            "the input has {} bytes, the model takes {at}",
            input.len()
        ));
    }
    Ok(())
}

/// The bytes of the model's outputs, in order.
fn collect(arena: &[u8], tensors: &[TensorInfo], outputs: &[u32]) -> Vec<u8> {
    let mut out = Vec::new();
    for &t in outputs {
        if let Some(TensorInfo {
            location: Location::Arena { offset, bytes },
            ..
        }) = tensors.get(t as usize)
        {
            out.extend_from_slice(&arena[*offset..*offset + *bytes]);
        }
    }
    out
}

/// Inferences in a row on one arena: each one's input bytes in, their outputs' bytes out.
type Run = fn(&[&[u8]]) -> Result<Vec<u8>, String>;

include!(concat!(env!("OUT_DIR"), "/models.rs"));

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag] if flag == "--list" => {
            for (name, _) in MODELS {
                println!("{name}");
            }
            ExitCode::SUCCESS
        }
        [flag, n, name] if flag == "--bench" => {
            let Some(&(_, run)) = MODELS.iter().find(|(m, _)| m == name) else {
                eprintln!("error: no model {name:?} in this build; see --list");
                return ExitCode::from(2);
            };
            let Ok(n) = n.parse::<u32>() else {
                eprintln!("error: --bench takes a number of inferences, not {n:?}");
                return ExitCode::from(2);
            };
            let mut input = Vec::new();
            if let Err(e) = std::io::stdin().read_to_end(&mut input) {
                eprintln!("error: cannot read the input: {e}");
                return ExitCode::FAILURE;
            }
            let start = std::time::Instant::now();
            for _ in 0..n {
                if let Err(e) = run(std::hint::black_box(&[&input[..]])).map(std::hint::black_box) {
                    eprintln!("error: {name}: {e}");
                    return ExitCode::FAILURE;
                }
            }
            let per = start.elapsed().as_nanos() / u128::from(n.max(1));
            println!("{per}");
            ExitCode::SUCCESS
        }
        [name] | [name, _, _] => {
            let invocations = match args.get(1..) {
                Some([flag, n]) if flag == "--invocations" => match n.parse::<usize>() {
                    Ok(n) if n > 0 => n,
                    _ => {
                        eprintln!("error: --invocations takes a positive number, not {n:?}");
                        return ExitCode::from(2);
                    }
                },
                Some([]) => 1,
                _ => {
                    eprintln!("error: expected MODEL [--invocations N]");
                    return ExitCode::from(2);
                }
            };
            let Some(&(_, run)) = MODELS.iter().find(|(n, _)| n == name) else {
                eprintln!("error: no model {name:?} in this build; see --list");
                return ExitCode::from(2);
            };
            let mut input = Vec::new();
            if let Err(e) = std::io::stdin().read_to_end(&mut input) {
                eprintln!("error: cannot read the input: {e}");
                return ExitCode::FAILURE;
            }
            if !input.len().is_multiple_of(invocations) {
                eprintln!(
                    "error: {} input bytes do not split into {invocations} invocations",
                    input.len()
                );
                return ExitCode::FAILURE;
            }
            let sets: Vec<&[u8]> = if input.is_empty() {
                vec![&[][..]; invocations]
            } else {
                input.chunks(input.len() / invocations).collect()
            };
            // Large arenas (mobilenet_v2) live on the heap; the kernels need little stack.
            match run(&sets) {
                Ok(out) => {
                    if std::io::stdout().write_all(&out).is_err() {
                        return ExitCode::FAILURE;
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {name}: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => {
            eprintln!(
                "usage: stowplan-invoke MODEL [--invocations N] < INPUT > OUTPUT | stowplan-invoke --list | stowplan-invoke --bench N MODEL < INPUT"
            );
            ExitCode::from(2)
        }
    }
}
