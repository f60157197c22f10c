//! TFLite Micro's micro_speech (int8: a 49x40 spectrogram, DEPTHWISE_CONV_2D, FULLY_CONNECTED,
//! SOFTMAX) end to end on a Cortex-M4 under QEMU, run by the generated `invoke` in its arena in
//! `.bss`, the weights read in place from the model file in flash. The output is checked against
//! the one TFLite Micro computes for the same input (`firmware_tflm.py`). `icount.sh` counts
//! the instructions of its `invoke`. Prints through semihosting and exits 0; a mismatch, a panic
//! or a HardFault exits 1.
//!
//! The model is read in place from `../shared/models` (outside this repository), so this binary
//! needs feature `micro-speech`:
//!
//! ```text
//! cd examples/cortex-m && cargo run --release --features micro-speech --bin micro_speech
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

stowplan::include_model!(
    "../../../shared/models/tflm_micro_speech_int8.tflite",
    name = micro_speech,
    invoke = true
);

use micro_speech::{inputs::INPUT_0 as INPUT, outputs::OUTPUT_0 as OUTPUT};

const _: () = assert!(INPUT.len() == 49 * 40 && OUTPUT.len() == 4);

/// `EXPECTED`: what TFLite Micro outputs for [`fill_input`]'s input (`src/input.rs`), from
/// `tflm-outputs.txt` (see build.rs). `run.sh` recomputes it with the pinned wheel
/// (`firmware_tflm.py`) and requires it unchanged, and judges the printed output by the
/// recomputed one.
mod tflm {
    include!(concat!(env!("OUT_DIR"), "/micro_speech_tflm.rs"));
}
use tflm::EXPECTED;

/// The arena in `.bss`, claimed once by `take`.
static ARENA: micro_speech::StaticArena = micro_speech::StaticArena::new();

#[entry]
fn main() -> ! {
    let Some(arena) = ARENA.take() else {
        fail("the arena was taken twice")
    };
    hprintln!("model        {}", micro_speech::MODEL_PATH);
    hprintln!("arena        {} B", micro_speech::ARENA_BYTES);
    fill_input(arena.view_mut(INPUT));
    icount::icount_start();
    micro_speech::invoke(arena);
    icount::icount_end();
    let output = arena.view(OUTPUT);
    hprintln!(
        "micro_speech output [{}, {}, {}, {}]",
        output[0],
        output[1],
        output[2],
        output[3]
    );
    if output != EXPECTED {
        fail("the output differs from TFLite Micro's");
    }
    hprintln!("match        bit-exact");
    exit::pass()
}
