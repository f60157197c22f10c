//! FLOOR_MOD: float32 (TFLM's only type), the shape classes of ADD; divisors of 0 included
//! (TFLM's FLOOR_MOD takes them: NaN).

use stowplan_planner::tflite::{DType, OpOptions};

use crate::sub::{Types, binary_variant, no_quants};
use crate::suite::{Target, Variant};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    vec![binary_variant(
        seed,
        target,
        ("floor_mod", "FLOOR_MOD"),
        Types::same("float32", DType::Float32),
        ("", OpOptions::None),
        &no_quants,
        None,
    )]
}
