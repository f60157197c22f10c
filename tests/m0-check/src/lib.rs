//! `StaticArena::take` on a target without compare-and-swap (`thumbv6m-none-eabi`): with the
//! runtime's feature `critical-section` it compiles (the firmware links a critical-section
//! implementation); without it, the compile error says what to do. With `defmt`, the runtime's
//! types format with defmt.
#![no_std]

stowplan::include_model!("../models/synthetic/residual.tflite");

static ARENA: residual::StaticArena = residual::StaticArena::new();

/// The arena, once.
pub fn arena() -> Option<&'static mut residual::Arena> {
    ARENA.take()
}

/// The arena and a slot, logged with defmt.
#[cfg(feature = "defmt")]
pub fn log() {
    defmt::info!("{} {}", ARENA, residual::X);
    defmt::info!("{}", residual::TENSORS[0]);
}
