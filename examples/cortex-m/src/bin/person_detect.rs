//! TFLite Micro's person_detect (MobileNet v1 0.25, 96x96 grey, int8, 31 ops) end to end on a
//! Cortex-M4 under QEMU: planned while the crate compiles, run by the generated `invoke` (every
//! op a reference kernel of the runtime, bit-exact with TFLM's) in its arena in `.bss`, its
//! weights read in place from the model file in flash. The output is checked against the one
//! TFLite Micro computes for the same input (`firmware_tflm.py`); the stack's peak is
//! measured by painting (`stowplan::stack`). Prints through semihosting and exits 0; a mismatch,
//! a panic or a HardFault exits 1.
//!
//! The model is read in place from `../shared/models` (outside this repository), so this binary
//! needs feature `person-detect`:
//!
//! ```text
//! cd examples/cortex-m && cargo run --release --features person-detect --bin person_detect
//! ```
#![no_std]
#![no_main]

#[path = "../exit.rs"]
mod exit;
#[path = "../icount.rs"]
mod icount;
#[path = "../input.rs"]
mod input;

use cortex_m_rt::entry;
use cortex_m_semihosting::hprintln;

use exit::fail;
use input::fill_input;
use stowplan::Location;

stowplan::include_model!(
    "../../../shared/models/tflm_person_detect_int8.tflite",
    name = person_detect,
    invoke = true
);

use person_detect::{INPUT, MOBILENETV1_PREDICTIONS_RESHAPE_1 as OUTPUT};

// The named slots are the model's input and output: same place in the arena as the tensors
// `INPUTS[0]` and `OUTPUTS[0]` (checked when the crate compiles; the table stays out of flash).
const fn is_arena_slot(tensor: u32, offset: usize, bytes: usize) -> bool {
    match person_detect::TENSORS[tensor as usize].location {
        Location::Arena {
            offset: o,
            bytes: b,
        } => o == offset && b == bytes,
        _ => false,
    }
}
const _: () = assert!(person_detect::INPUTS.len() == 1 && person_detect::OUTPUTS.len() == 1);
const _: () = assert!(is_arena_slot(
    person_detect::INPUTS[0],
    INPUT.offset(),
    INPUT.bytes()
));
const _: () = assert!(is_arena_slot(
    person_detect::OUTPUTS[0],
    OUTPUT.offset(),
    OUTPUT.bytes()
));
const _: () = assert!(INPUT.len() == 96 * 96 && OUTPUT.len() == 2);

/// `EXPECTED`: what TFLite Micro outputs for [`fill_input`]'s input (`src/input.rs`), from
/// `tflm-outputs.txt` (see build.rs). `run.sh` recomputes it with the pinned wheel
/// (`firmware_tflm.py`) and requires it unchanged, and judges the printed output by the
/// recomputed one.
mod tflm {
    include!(concat!(env!("OUT_DIR"), "/person_detect_tflm.rs"));
}
use tflm::EXPECTED;

/// The arena: `ARENA_BYTES` zero bytes in `.bss` (and its take flag), claimed once by `take`.
static ARENA: person_detect::StaticArena = person_detect::StaticArena::new();

#[entry]
fn main() -> ! {
    // First, so that the peak covers everything `main` does: the prints as well as `invoke`.
    let painted = stowplan::stack::paint();
    let Some(arena) = ARENA.take() else {
        fail("the arena was taken twice")
    };
    hprintln!("model        {}", person_detect::MODEL_PATH);
    hprintln!(
        "arena        {} B (lower bound {} B)",
        person_detect::ARENA_BYTES,
        person_detect::LOWER_BOUND_BYTES
    );
    hprintln!("input        {} int8, xorshift32 seed 1", INPUT.len());

    fill_input(arena.view_mut(INPUT));
    icount::icount_start();
    person_detect::invoke(arena);
    icount::icount_end();
    let output = arena.view(OUTPUT);
    hprintln!("person_detect output [{}, {}]", output[0], output[1]);
    hprintln!("TFLM          output [{}, {}]", EXPECTED[0], EXPECTED[1]);
    if output != EXPECTED {
        fail("the output differs from TFLite Micro's");
    }
    hprintln!("match        bit-exact");
    hprintln!(
        "stack peak {} B (painted {} B)",
        painted.peak_bytes(),
        painted.painted_bytes()
    );
    exit::pass()
}
