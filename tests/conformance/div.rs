//! DIV: float32, int32 and int8, every fused activation, the shape classes of ADD. int32
//! divisors of 0 (and `INT32_MIN / -1`) trap in TFLM's process, so those inputs are rewritten
//! (0 -> 1 in the divisor, `INT32_MIN` -> `INT32_MIN + 1` in the dividend); int8 divisors at
//! their zero point run TFLM's reciprocal of 0 as x86-64 computes it.

use stowplan_planner::tflite::DType;

use crate::sub::{Types, binary_variant, no_quants, options};
use crate::suite::{self, ACTIVATIONS, Quant, Rng, Target, Variant};

/// Quantisations of an int8 DIV: scales over the suite's range; the output's mostly one that
/// spreads the quotients over the output, now and then anywhere.
fn quants_s8(rng: &mut Rng, _: usize) -> [Option<Quant>; 3] {
    let (s1, s2) = (suite::scale(rng), suite::scale(rng));
    let so = if rng.chance(0.3) {
        f64::from(suite::scale(rng))
    } else {
        f64::from(s1) / f64::from(s2) / 20.0 * f64::from(rng.log_uniform(0.1, 10.0))
    };
    let z = |rng: &mut Rng| suite::zero_point(rng, DType::Int8);
    [
        Some(Quant::tensor(s1, z(rng))),
        Some(Quant::tensor(s2, z(rng))),
        Some(Quant::tensor(so.clamp(1e-6, 1e2) as f32, z(rng))),
    ]
}

/// int32: no divisor of 0, no `INT32_MIN` dividend (its quotient by -1 traps).
fn fix_i32(input: usize, dtype: DType, bytes: &mut [u8]) {
    if dtype != DType::Int32 {
        return;
    }
    for c in bytes.chunks_exact_mut(4) {
        let v = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        let v = match (input, v) {
            (0, i32::MIN) => i32::MIN + 1,
            (1, 0) => 1,
            _ => v,
        };
        c.copy_from_slice(&v.to_le_bytes());
    }
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for (label, dtype) in [
        ("float32", DType::Float32),
        ("int32", DType::Int32),
        ("int8", DType::Int8),
    ] {
        for (aname, activation) in ACTIVATIONS {
            let quants = move |rng: &mut Rng, index: usize| {
                if dtype == DType::Int8 {
                    quants_s8(rng, index)
                } else {
                    no_quants(rng, index)
                }
            };
            out.push(binary_variant(
                seed,
                target,
                ("div", "DIV"),
                Types::same(label, dtype),
                (aname, options("DIV", activation)),
                &quants,
                (dtype == DType::Int32).then_some(fix_i32 as crate::sub::Fix),
            ));
        }
    }
    out
}
