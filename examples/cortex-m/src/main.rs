//! Real inference on a Cortex-M4 under QEMU: `tests/models/mlp_float` (float32 MLP 1→16→16→1)
//! planned while the crate compiles, run in its arena in `.bss`, checked against the output
//! TFLite computed on the host. Prints the figures and the result through semihosting and exits
//! 0; a mismatch, a panic or a HardFault exits 1.
//!
//! ```text
//! cd examples/cortex-m && cargo run --release
//! ```
#![no_std]
#![no_main]

mod exit;

use core::hint::black_box;

use cortex_m_rt::entry;
use cortex_m_semihosting::hprintln;

use exit::fail;

stowplan::include_model!(
    "../../tests/models/mlp_float/mlp_float.tflite",
    budget = 1024
);

// `INPUT` and `EXPECTED` from tests/models/mlp_float/io.json (see build.rs).
include!(concat!(env!("OUT_DIR"), "/io.rs"));

#[path = "../../shared/kernels.rs"]
mod kernels;
#[path = "../../shared/mlp_float.rs"]
mod mlp;

/// The arena: zero bytes in `.bss`, claimed once by `take`.
static ARENA: mlp_float::StaticArena = mlp_float::StaticArena::new();

/// Claims the arena: one atomic swap of a flag (no planning, no copy, no zeroing: the start-up
/// code zeroed `.bss`). Kept out of line so its code can be read in the disassembly.
#[inline(never)]
fn take_arena() -> Option<&'static mut mlp_float::Arena> {
    ARENA.take()
}

/// The views of op 1: its input, weights and bias read, its output written.
type Op1Views<'a> = (
    (&'a [f32], &'static [f32], &'static [f32]),
    (&'a mut [f32],),
);

/// Every view of op 1 (one input, weights, bias, one output): what per-op access costs. Kept out
/// of line so its code can be read in the disassembly (docs/guide.md, "Zero planning at run time").
#[inline(never)]
fn op_1_views(arena: &mut mlp_float::Arena) -> Op1Views<'_> {
    mlp_float::ops::op_1(arena)
}

#[entry]
fn main() -> ! {
    let Some(arena) = take_arena() else {
        fail("the arena was taken twice")
    };
    hprintln!("model        {}", mlp_float::MODEL_PATH);
    hprintln!("planner      {}", mlp_float::PLANNER);
    hprintln!("arena        {} B", mlp_float::ARENA_BYTES);
    hprintln!("lower bound  {} B", mlp_float::LOWER_BOUND_BYTES);
    hprintln!("naive        {} B", mlp_float::NAIVE_BYTES);
    hprintln!(
        "arena at     {:#010x} ({} B in .bss with its flag)",
        arena.as_bytes().as_ptr() as usize,
        size_of::<mlp_float::StaticArena>()
    );

    let output = mlp::infer(arena, &INPUT);
    hprintln!("inference    {:?} -> {:?}", INPUT, output);
    hprintln!("TFLite       {:?} -> {:?}", INPUT, EXPECTED);
    if !mlp::matches(output, &EXPECTED) {
        fail("the output differs from TFLite's");
    }
    let exact = output
        .iter()
        .zip(&EXPECTED)
        .all(|(a, b)| a.to_bits() == b.to_bits());
    hprintln!(
        "match        within {:e}{}",
        mlp::TOLERANCE,
        if exact { " (bit-exact)" } else { "" }
    );

    let ((x, w, b), (y,)) = black_box(op_1_views(arena));
    hprintln!(
        "op 1 views   x {} w {} b {} -> y {} elements",
        x.len(),
        w.len(),
        b.len(),
        y.len()
    );
    exit::pass()
}
