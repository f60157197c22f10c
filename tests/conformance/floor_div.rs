//! FLOOR_DIV: float32 (TFLM's only type), the shape classes of ADD. TFLM's Eval fails on any
//! divisor of 0, so zeros (either sign) in the divisor are rewritten to 1.

use stowplan_planner::tflite::DType;

use crate::sub::{Types, binary_variant, no_quants};
use crate::suite::{Target, Variant};

/// No divisor of `0.0` or `-0.0`.
fn fix(input: usize, dtype: DType, bytes: &mut [u8]) {
    if input != 1 || dtype != DType::Float32 {
        return;
    }
    for c in bytes.chunks_exact_mut(4) {
        if f32::from_le_bytes([c[0], c[1], c[2], c[3]]) == 0.0 {
            c.copy_from_slice(&1.0_f32.to_le_bytes());
        }
    }
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    vec![binary_variant(
        seed,
        target,
        ("floor_div", "FLOOR_DIV"),
        Types::same("float32", DType::Float32),
        ("", stowplan_planner::tflite::OpOptions::None),
        &no_quants,
        Some(fix),
    )]
}
