//! A 6 GiB arena: compiles for a 64-bit target; for a 16- or 32-bit target the generated
//! module's target-width assertion fails with the numbers.
#![no_std]

stowplan::include_model!("../models/malformed/huge_arena.tflite");

/// The arena size, as the target sees it.
pub const ARENA: usize = huge_arena::ARENA_BYTES;
