//! MUL: int8 and float32, every fused activation, the shape classes of ADD
//! ([`crate::add::SHAPES`]) over ranks 1 to 6, quantisation over the suite's whole range
//! (output multipliers from flushed-to-zero to shifts above 31); int16 (zero points 0) and
//! int32 (wrapping products, clamped to the activation's int32 range) drawn by
//! [`crate::sub::binary_variant`].

use stowplan_planner::tflite::DType;

use crate::suite::{self, ACTIVATIONS, Quant, Rng, Target, Variant};

/// Quantisations of an int16 MUL: zero points 0 (TFLM's Prepare requires them), input scales
/// over the suite's range, the output's mostly one that spreads a product over the output,
/// now and then anywhere.
fn quants_s16(rng: &mut Rng, _: usize) -> [Option<Quant>; 3] {
    let (s1, s2) = (suite::scale(rng), suite::scale(rng));
    let so = if rng.chance(0.3) {
        f64::from(suite::scale(rng))
    } else {
        f64::from(s1) * f64::from(s2) * 32767.0 * 32767.0 / 4000.0
            * f64::from(rng.log_uniform(0.1, 10.0))
    };
    [
        Some(Quant::tensor(s1, 0)),
        Some(Quant::tensor(s2, 0)),
        Some(Quant::tensor(so.clamp(1e-6, 1e2) as f32, 0)),
    ]
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = crate::add::binary(seed, target, "mul", "MUL");
    for (label, dtype) in [("int16", DType::Int16), ("int32", DType::Int32)] {
        for (aname, activation) in ACTIVATIONS {
            let quants = move |rng: &mut Rng, index: usize| {
                if dtype == DType::Int16 {
                    quants_s16(rng, index)
                } else {
                    crate::sub::no_quants(rng, index)
                }
            };
            out.push(crate::sub::binary_variant(
                seed,
                target,
                ("mul", "MUL"),
                crate::sub::Types::same(label, dtype),
                (aname, crate::sub::options("MUL", activation)),
                &quants,
                None,
            ));
        }
    }
    out
}
