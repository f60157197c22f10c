//! LOGISTIC: int8 and float32 over three shape classes; int8 input scales over the suite's
//! whole range and zero points over the type's, at least 12 models (12 input quantisations)
//! a variant.
//!
//! TFLM's int8 Prepare requires the output's zero point to be -128 and nothing of its scale
//! (`logistic_common.cc`; the kernel writes in steps of 1/256 whatever the scale says): one
//! int8 option set has the scale 1/256 the converter writes, the other any scale.
//!
//! int16: the input scale classes of TFLM's int16 Prepare (2^-12, which it takes directly;
//! 2^-11 and other powers of two, and any scale, which go through the doubling loop), the
//! output 2^-15 and zero points 0 it requires (drawn by `tanh.rs`).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant};

/// `LOGISTIC`.
const LOGISTIC: BuiltinOp = BuiltinOp(14);

fn s(v: usize) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        models: target.models.max(12),
        ..target
    };
    let mut out = Vec::new();
    for (types, options) in [
        ("int8", "out scale 1/256"),
        ("int8", "out scale any"),
        ("float32", "-"),
    ] {
        for shape in ["ones", "odd", "wide"] {
            let spec = Spec {
                op: "logistic",
                builtin: "LOGISTIC",
                types: types.to_owned(),
                options: options.to_owned(),
                shape,
            };
            out.push(suite::fill(seed, spec, target, |rng, _| {
                draw(rng, types == "int8", options == "out scale any", shape)
            }));
        }
    }
    out.extend(crate::tanh::int_variants(
        seed, target, "logistic", "LOGISTIC",
    ));
    out
}

fn draw(rng: &mut Rng, int8: bool, any_scale: bool, shape: &str) -> Option<Draft> {
    let dims: Vec<usize> = match shape {
        "ones" => vec![1; rng.size(1, 4)],
        "odd" => (0..rng.size(1, 4))
            .map(|_| 2 * rng.size(0, 4) + 1)
            .collect(),
        _ => {
            let mut d = vec![1, rng.size(2, 8), rng.size(2, 8), rng.size(100, 300)];
            d.drain(..rng.size(0, 2));
            d
        }
    };
    let len: usize = dims.iter().product();
    let shape_i: Vec<i32> = dims.iter().map(|&d| s(d)).collect();
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let mut note = format!("shape {shape_i:?}");
    let input = if int8 {
        let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
        let qo = Quant::tensor(
            if any_scale {
                suite::scale(rng)
            } else {
                1.0 / 256.0
            },
            -128,
        );
        let x = b.quantized(sg, "input", DType::Int8, &shape_i, qi.spec());
        let y = b.quantized(sg, "output", DType::Int8, &shape_i, qo.spec());
        b.op(sg, LOGISTIC, &[x], &[y]);
        b.io(sg, &[x], &[y]);
        note += &format!(" in q {:?} out q {:?}", (qi.s(), qi.z()), (qo.s(), qo.z()));
        InputSpec::int(DType::Int8, len, qi.z())
    } else {
        let x = b.tensor(sg, "input", DType::Float32, &shape_i);
        let y = b.tensor(sg, "output", DType::Float32, &shape_i);
        b.op(sg, LOGISTIC, &[x], &[y]);
        b.io(sg, &[x], &[y]);
        // Typical magnitude 4: the random sets spread from 0.04 to 400, across the kernel's
        // cut-offs at -9 and 16.6.
        InputSpec::float(len, 4.0)
    };
    Some(Draft::new(&b, vec![input], len, note))
}
