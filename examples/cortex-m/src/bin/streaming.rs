//! A stateful model on a Cortex-M4 under QEMU: `tests/models/streaming` (int8, microWakeWord
//! style: a ring buffer of past frames in a resource variable, initialised by CALL_ONCE), planned
//! while the crate compiles and run by the generated `invoke` 50 times in a row, its arena and
//! its persistent region (the ring buffer and the flags) both in `.bss`. Every invocation's output
//! is printed (`output K [a, b]`) and checked against TFLite Micro's for the same frames, invoked
//! in a row on one interpreter (`streaming_tflm.py`, committed as `streaming-tflm.txt`); then
//! `reset` puts the state back and the first invocation must give the first output again
//! (`reset output [a, b]`). `run.sh` recomputes TFLite Micro's outputs with the pinned wheel,
//! requires `streaming-tflm.txt` unchanged and compares every printed output with the wheel's
//! (`firmware_tflm.py`). Prints the RAM it takes (arena, state, stack peak) beside TFLite
//! Micro's arena; exits 0, or 1 on a mismatch, a panic or a HardFault.
//!
//! ```text
//! cd examples/cortex-m && cargo run --release --bin streaming
//! ```
#![no_std]
#![no_main]

#[path = "../exit.rs"]
mod exit;

use cortex_m_rt::entry;
use cortex_m_semihosting::hprintln;

use exit::fail;

stowplan::include_model!(
    "../../tests/models/streaming/streaming.tflite",
    name = streaming,
    invoke = true,
    budget = 1024
);

use streaming::{SERVING_DEFAULT_FRAME_0 as FRAME, STATEFULPARTITIONEDCALL_0 as OUTPUT};

// `EXPECTED` (TFLite Micro's output of every invocation) and `TFLM_ARENA_USED` from
// streaming-tflm.txt (see build.rs).
include!(concat!(env!("OUT_DIR"), "/streaming_tflm.rs"));

const _: () = assert!(FRAME.len() == 16 && OUTPUT.len() == 2);

/// The arena in `.bss`, claimed once by `take`.
static ARENA: streaming::StaticArena = streaming::StaticArena::new();
/// The persistent region in `.bss`: zeroed at start-up, which `invoke` takes as "never reset".
static STATE: streaming::StaticPersistentArena = streaming::StaticPersistentArena::new();

/// xorshift32 (13, 17, 5) from seed 7: one frame, the low byte of each state as one `i8`, the
/// generator carried from frame to frame (`streaming_tflm.py` makes the same).
fn next_frame(x: &mut u32, frame: &mut [i8]) {
    for v in frame {
        *x ^= *x << 13;
        *x ^= *x >> 17;
        *x ^= *x << 5;
        *v = x.to_le_bytes()[0] as i8;
    }
}

#[entry]
fn main() -> ! {
    let painted = stowplan::stack::paint();
    let (Some(arena), Some(state)) = (ARENA.take(), STATE.take()) else {
        fail("the arena or the state was taken twice")
    };
    hprintln!("model        {}", streaming::MODEL_PATH);
    hprintln!(
        "RAM          {} B: arena {} B + state {} B",
        streaming::RAM_BYTES,
        streaming::ARENA_BYTES,
        streaming::PERSISTENT_BYTES
    );
    let mut x: u32 = 7;
    let mut first = [0i8; 16];
    for (k, expected) in EXPECTED.iter().enumerate() {
        next_frame(&mut x, arena.view_mut(FRAME));
        if k == 0 {
            first.copy_from_slice(arena.view(FRAME));
        }
        streaming::invoke(arena, state);
        let out = arena.view(OUTPUT);
        hprintln!("output {} [{}, {}]", k, out[0], out[1]);
        if out != expected {
            hprintln!("TFLM   {} [{}, {}]", k, expected[0], expected[1]);
            fail("an output differs from TFLite Micro's");
        }
    }
    let last = EXPECTED[EXPECTED.len() - 1];
    hprintln!(
        "invocations  {} in a row, each bit-exact with TFLM (last [{}, {}])",
        EXPECTED.len(),
        last[0],
        last[1]
    );
    // `reset` is TFLM's ResetVariableTensors: the ring buffer back to its initial value, so the
    // first frame again gives the first output.
    streaming::reset(state);
    arena.view_mut(FRAME).copy_from_slice(&first);
    streaming::invoke(arena, state);
    let out = arena.view(OUTPUT);
    hprintln!("reset output [{}, {}]", out[0], out[1]);
    if out != EXPECTED[0] {
        fail("after reset, the first frame gives another output");
    }
    hprintln!("reset        the first frame again gives the first output");
    let stack = painted.peak_bytes();
    hprintln!(
        "stack peak   {} B; arena + state + stack {} B; TFLM's arena {} B (its own figure on a 64-bit host)",
        stack,
        streaming::RAM_BYTES + stack,
        TFLM_ARENA_USED
    );
    exit::pass()
}
