//! SQUARED_DIFFERENCE: float32, int32, int8 (left shift 7) and int16 (zero points 0, left
//! shift 0), the shape classes of ADD, quantisation over the suite's whole range.

use stowplan_planner::tflite::{DType, OpOptions};

use crate::sub::{Types, binary_variant, no_quants};
use crate::suite::{self, Quant, Rng, Target, Variant};

/// Quantisations: input scales over the suite's range; the output's mostly one that spreads
/// the squares over the output, now and then anywhere.
fn quants(rng: &mut Rng, dtype: DType) -> [Option<Quant>; 3] {
    let (s1, s2) = (suite::scale(rng), suite::scale(rng));
    let smax = f64::from(s1.max(s2));
    let span = if dtype == DType::Int16 {
        65535.0
    } else {
        255.0
    };
    let so = if rng.chance(0.3) {
        f64::from(suite::scale(rng))
    } else {
        smax * smax * span * span / 400.0 * f64::from(rng.log_uniform(0.01, 10.0))
    };
    let z = |rng: &mut Rng| {
        if dtype == DType::Int16 {
            0
        } else {
            suite::zero_point(rng, dtype)
        }
    };
    [
        Some(Quant::tensor(s1, z(rng))),
        Some(Quant::tensor(s2, z(rng))),
        Some(Quant::tensor(so.clamp(1e-6, 1e2) as f32, z(rng))),
    ]
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for (label, dtype) in [
        ("float32", DType::Float32),
        ("int32", DType::Int32),
        ("int8", DType::Int8),
        ("int16", DType::Int16),
    ] {
        let q = move |rng: &mut Rng, index: usize| {
            if matches!(dtype, DType::Int8 | DType::Int16) {
                quants(rng, dtype)
            } else {
                no_quants(rng, index)
            }
        };
        out.push(binary_variant(
            seed,
            target,
            ("squared_difference", "SQUARED_DIFFERENCE"),
            Types::same(label, dtype),
            ("", OpOptions::None),
            &q,
            None,
        ));
    }
    out
}
