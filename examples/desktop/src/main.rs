//! The desktop example: a small int8 CNN (`tests/models/cnn_int8`, made by the project's fixture
//! script) planned by `build.rs` at build time. The program does no planning: it prints the
//! figures and the layout the generated module carries, and claims its arena.
//!
//! ```text
//! cargo run -p stowplan-example-desktop
//! ```
#![forbid(unsafe_code)]

// The generated module `cnn`: slots, constants, tables and compile-time proofs.
include!(concat!(env!("OUT_DIR"), "/cnn.rs"));

fn main() {
    println!(
        "model {} (sha256 {}…)",
        cnn::MODEL_PATH,
        &cnn::MODEL_SHA256[..12]
    );
    println!("planner      {}", cnn::PLANNER);
    println!("arena        {:>6} B", cnn::ARENA_BYTES);
    println!("lower bound  {:>6} B", cnn::LOWER_BOUND_BYTES);
    println!(
        "naive        {:>6} B  (saving {} B, {:.1} %)",
        cnn::NAIVE_BYTES,
        cnn::NAIVE_BYTES - cnn::ARENA_BYTES as u64,
        (cnn::NAIVE_BYTES - cnn::ARENA_BYTES as u64) as f64 * 100.0 / cnn::NAIVE_BYTES as f64
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
    let mut arena = cnn::Arena::new();
    let input = cnn::TENSORS[cnn::INPUTS[0] as usize];
    if let stowplan::Location::Arena { offset, bytes } = input.location {
        arena.as_bytes_mut()[offset..offset + bytes].fill(1);
        println!(
            "\nthe input {:?} fills bytes {offset}..{} of a {} B arena",
            input.name,
            offset + bytes,
            arena.as_bytes().len()
        );
    }
}
