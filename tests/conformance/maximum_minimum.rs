//! MAXIMUM and MINIMUM: float32, int8, int16, int32 and int64 (every type TFLM's Eval takes),
//! the shape classes of ADD; NaN and signed zeros among the float specials.

use stowplan_planner::tflite::{DType, OpOptions};

use crate::sub::{Types, binary_variant, no_quants};
use crate::suite::{Target, Variant};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for builtin in ["MAXIMUM", "MINIMUM"] {
        for (label, dtype) in [
            ("float32", DType::Float32),
            ("int8", DType::Int8),
            ("int16", DType::Int16),
            ("int32", DType::Int32),
            ("int64", DType::Int64),
        ] {
            out.push(binary_variant(
                seed,
                target,
                ("maximum_minimum", builtin),
                Types::same(label, dtype),
                ("", OpOptions::None),
                &no_quants,
                None,
            ));
        }
    }
    out
}
