//! Two of TFLite Micro's models in one firmware, sharing one arena
//! (`stowplan::include_models!`): person_detect and micro_speech run one at a time, each by its
//! generated `invoke` in the shared arena in `.bss` (as large as the larger of their arenas), and
//! each output is checked against TFLite Micro's for the same input (`firmware_tflm.py`), on the
//! first run and again after the other model overwrote the arena. Prints the arenas, their sum
//! and the shared arena, and the stack's peak; `run.sh` keeps the ELF's sizes
//! (`group-size.txt`): RAM is `.bss` plus the stack peak. Exits 0; a mismatch, a panic or a
//! HardFault exits 1.
//!
//! Both models are read in place from `../shared/models` (outside this repository), so this
//! binary needs features `person-detect` and `micro-speech`:
//!
//! ```text
//! cd examples/cortex-m && cargo run --release --features person-detect,micro-speech --bin group
//! ```
#![no_std]
#![no_main]

#[path = "../exit.rs"]
mod exit;
#[path = "../input.rs"]
mod input;

use cortex_m_rt::entry;
use cortex_m_semihosting::hprintln;

use exit::fail;
use input::fill_input;

stowplan::include_models!(
    name = vision_audio,
    model(
        "../../../shared/models/tflm_person_detect_int8.tflite",
        name = person_detect,
        invoke = true
    ),
    model(
        "../../../shared/models/tflm_micro_speech_int8.tflite",
        name = micro_speech,
        invoke = true
    ),
);

use vision_audio::{micro_speech, person_detect};

/// TFLite Micro's outputs for [`fill_input`]'s input (`src/input.rs`), as for the binaries of
/// each model alone: `tflm-outputs.txt` (see build.rs), which `run.sh` recomputes with the pinned
/// wheel and requires unchanged; it judges the printed outputs by the recomputed ones.
mod person_tflm {
    include!(concat!(env!("OUT_DIR"), "/person_detect_tflm.rs"));
}
mod speech_tflm {
    include!(concat!(env!("OUT_DIR"), "/micro_speech_tflm.rs"));
}
use person_tflm::EXPECTED as PERSON_EXPECTED;
use speech_tflm::EXPECTED as SPEECH_EXPECTED;

/// The shared arena in `.bss`, claimed once by `take`.
static ARENA: vision_audio::StaticArena = vision_audio::StaticArena::new();

fn person(arena: &mut vision_audio::Arena) {
    let arena = vision_audio::person_detect(arena);
    fill_input(arena.view_mut(person_detect::inputs::INPUT_0));
    person_detect::invoke(arena);
    let output = arena.view(person_detect::outputs::OUTPUT_0);
    hprintln!("person_detect output [{}, {}]", output[0], output[1]);
    if output != PERSON_EXPECTED {
        fail("person_detect's output differs from TFLite Micro's");
    }
}

fn speech(arena: &mut vision_audio::Arena) {
    let arena = vision_audio::micro_speech(arena);
    fill_input(arena.view_mut(micro_speech::inputs::INPUT_0));
    micro_speech::invoke(arena);
    let o = arena.view(micro_speech::outputs::OUTPUT_0);
    hprintln!(
        "micro_speech output [{}, {}, {}, {}]",
        o[0],
        o[1],
        o[2],
        o[3]
    );
    if o != SPEECH_EXPECTED {
        fail("micro_speech's output differs from TFLite Micro's");
    }
}

#[entry]
fn main() -> ! {
    let painted = stowplan::stack::paint();
    let Some(arena) = ARENA.take() else {
        fail("the arena was taken twice")
    };
    hprintln!("person_detect arena {} B", person_detect::ARENA_BYTES);
    hprintln!("micro_speech arena  {} B", micro_speech::ARENA_BYTES);
    hprintln!(
        "separate arenas     {} B",
        vision_audio::SEPARATE_ARENA_BYTES
    );
    hprintln!(
        "shared arena        {} B (the larger)",
        vision_audio::ARENA_BYTES
    );
    person(arena);
    speech(arena);
    person(arena);
    speech(arena);
    hprintln!("match               bit-exact, both models, twice");
    hprintln!(
        "stack peak {} B (painted {} B)",
        painted.peak_bytes(),
        painted.painted_bytes()
    );
    exit::pass()
}
