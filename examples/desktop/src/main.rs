//! The desktop example: two of the project's test models, planned while the crate compiles.
//!
//! - A small int8 CNN (`tests/models/cnn_int8`), planned by `build.rs`: the program prints the
//!   figures and the layout the generated module carries, then runs it with the generated
//!   `invoke` (the runtime's reference kernels) and checks the output against TFLite's.
//! - A float32 MLP (`tests/models/mlp_float`), planned by `include_model!`: the program runs it
//!   in its arena with the kernels shared with the Cortex-M example
//!   (`examples/shared/`) and checks the output against the one TFLite computed.
//!
//! No planning happens at run time.
//!
//! ```text
//! cargo run -p stowplan-example-desktop
//! ```
#![forbid(unsafe_code)]

use std::process::ExitCode;

// The generated module `cnn`: slots, constants, tables and compile-time proofs.
include!(concat!(env!("OUT_DIR"), "/cnn.rs"));
// `INPUT` and `EXPECTED` from tests/models/mlp_float/io.json.
include!(concat!(env!("OUT_DIR"), "/io.rs"));

stowplan::include_model!(
    "../../tests/models/mlp_float/mlp_float.tflite",
    budget = 1024
);

#[path = "../../shared/kernels.rs"]
mod kernels;
#[path = "../../shared/mlp_float.rs"]
mod mlp;

fn figures(path: &str, planner: &str, arena: usize, lower_bound: u64, naive: u64) {
    let arena64 = arena as u64;
    println!("model        {path}");
    println!("planner      {planner}");
    println!("arena        {arena:>6} B");
    println!("lower bound  {lower_bound:>6} B");
    println!(
        "naive        {naive:>6} B  (saving {} B, {:.1} %)",
        naive - arena64,
        (naive - arena64) as f64 * 100.0 / naive as f64
    );
}

fn main() -> ExitCode {
    figures(
        cnn::MODEL_PATH,
        cnn::PLANNER,
        cnn::ARENA_BYTES,
        cnn::LOWER_BOUND_BYTES,
        cnn::NAIVE_BYTES,
    );
    println!();
    println!(
        "{:<4} {:<17} {:<46} {:<8} {:>9} {:>7}",
        "id", "op", "tensor", "dtype", "offset", "bytes"
    );
    for op in cnn::OPS {
        for (k, id) in op.outputs.iter().enumerate() {
            let t = &cnn::TENSORS[*id as usize];
            if let stowplan::Location::Arena { offset, bytes } = t.location {
                let opcode = if k == 0 { op.opcode } else { "" };
                let name: String = t.name.chars().take(46).collect();
                println!(
                    "{id:<4} {opcode:<17} {name:<46} {:<8} {offset:>9} {bytes:>7}",
                    t.dtype
                );
            }
        }
    }

    // The whole CNN through `invoke`, on the io.json input.
    let mut arena = cnn::Arena::new();
    let at = |ids: &[u32]| match cnn::TENSORS[ids[0] as usize].location {
        stowplan::Location::Arena { offset, bytes } => offset..offset + bytes,
        _ => 0..0,
    };
    for (b, x) in arena.as_bytes_mut()[at(cnn::INPUTS)]
        .iter_mut()
        .zip(CNN_INPUT)
    {
        *b = x as u8;
    }
    cnn::invoke(&mut arena);
    let output: Vec<i8> = arena.as_bytes()[at(cnn::OUTPUTS)]
        .iter()
        .map(|&b| b as i8)
        .collect();
    println!();
    println!("invoke       {} int8 in -> {output:?}", CNN_INPUT.len());
    println!(
        "TFLite       {} int8 in -> {CNN_EXPECTED:?}",
        CNN_INPUT.len()
    );
    if output != CNN_EXPECTED {
        println!("MISMATCH");
        return ExitCode::FAILURE;
    }
    println!("match        bit-exact");

    println!();
    figures(
        mlp_float::MODEL_PATH,
        mlp_float::PLANNER,
        mlp_float::ARENA_BYTES,
        mlp_float::LOWER_BOUND_BYTES,
        mlp_float::NAIVE_BYTES,
    );
    let mut arena = mlp_float::Arena::new();
    let output = mlp::infer(&mut arena, &INPUT);
    println!("inference    {INPUT:?} -> {output:?}");
    println!("TFLite       {INPUT:?} -> {EXPECTED:?}");
    if mlp::matches(output, &EXPECTED) {
        let exact = output
            .iter()
            .zip(&EXPECTED)
            .all(|(a, b)| a.to_bits() == b.to_bits());
        println!(
            "match        within {:e}{}",
            mlp::TOLERANCE,
            if exact { " (bit-exact)" } else { "" }
        );
        ExitCode::SUCCESS
    } else {
        println!("MISMATCH     tolerance {:e}", mlp::TOLERANCE);
        ExitCode::FAILURE
    }
}
