//! MUL: int8 and float32, every fused activation, the shape classes of ADD
//! ([`crate::add::SHAPES`]) over ranks 1 to 6, quantisation over the suite's whole range
//! (output multipliers from flushed-to-zero to shifts above 31).

use crate::suite::{Target, Variant};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    crate::add::binary(seed, target, "mul", "MUL")
}
