//! EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS and LESS_EQUAL: every input type each op's
//! Eval takes in TFLM (bool for EQUAL and NOT_EQUAL; float32, int32, int64 and int8 for all;
//! not GREATER's int16, whose parameters TFLM never sets), a bool output, the shape classes of ADD. int8 inputs are
//! quantised with scales below 1 (TFLM's `QuantizeMultiplierSmallerThanOneExp` of each scale
//! aborts otherwise; model 5 of each variant has a scale above 1, which both refuse) and zero
//! points over the whole range, with every pair of int8 values among the input sets.

use stowplan_planner::tflite::{DType, OpOptions};

use crate::sub::{Types, binary_variant, no_quants};
use crate::suite::{self, Quant, Rng, Target, Variant};

/// The ops and the types each takes.
const OPS: [(&str, &[(&str, DType)]); 6] = [
    ("EQUAL", &[("bool", DType::Bool)]),
    ("NOT_EQUAL", &[("bool", DType::Bool)]),
    // GREATER's int16 Eval compares with parameters its Prepare never sets (comparisons.cc:289;
    // every result false on the wheel's zeroed arena); the runtime refuses it.
    ("GREATER", &[]),
    ("GREATER_EQUAL", &[]),
    ("LESS", &[]),
    ("LESS_EQUAL", &[]),
];

/// The types every comparison takes.
const COMMON: [(&str, DType); 4] = [
    ("float32", DType::Float32),
    ("int32", DType::Int32),
    ("int64", DType::Int64),
    ("int8", DType::Int8),
];

/// int8 quantisations: scales below 1 (the two inputs' equal in model 6), one above 1 in
/// model 5.
fn quants_s8(rng: &mut Rng, index: usize) -> [Option<Quant>; 3] {
    let s1 = rng.log_uniform(1e-6, 0.999);
    let s2 = match index {
        5 => rng.log_uniform(1.5, 100.0),
        6 => s1,
        _ => rng.log_uniform(1e-6, 0.999),
    };
    let z = |rng: &mut Rng| suite::zero_point(rng, DType::Int8);
    [
        Some(Quant::tensor(s1, z(rng))),
        Some(Quant::tensor(s2, z(rng))),
        None,
    ]
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for (builtin, extra) in OPS {
        for &(label, dtype) in COMMON.iter().chain(extra.iter()) {
            let types = Types {
                label,
                input1: dtype,
                input2: dtype,
                output: DType::Bool,
            };
            let q = move |rng: &mut Rng, index: usize| {
                if dtype == DType::Int8 {
                    quants_s8(rng, index)
                } else {
                    no_quants(rng, index)
                }
            };
            out.push(binary_variant(
                seed,
                target,
                ("comparisons", builtin),
                types,
                ("", OpOptions::None),
                &q,
                None,
            ));
        }
    }
    out
}
