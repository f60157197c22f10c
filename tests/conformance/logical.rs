//! LOGICAL_AND and LOGICAL_OR (bool, the shape classes of ADD) and LOGICAL_NOT (bool, ranks 0
//! to 5).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::sub::{Types, binary_variant, no_quants};
use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant, elements};

fn draw_not(rng: &mut Rng, index: usize) -> Option<Draft> {
    let rank = index % 6;
    let wide = rng.chance(0.2);
    let shape = suite::shape_within(rng, rank, 3000, wide);
    let op = BuiltinOp::from_name("LOGICAL_NOT")?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::activation(&mut b, sg, "input", DType::Bool, &shape, None);
    let y = suite::activation(&mut b, sg, "output", DType::Bool, &shape, None);
    b.op(sg, op, &[x], &[y]);
    b.io(sg, &[x], &[y]);
    let n = elements(&shape);
    Some(Draft::new(
        &b,
        vec![InputSpec::int(DType::Bool, n, 0)],
        n,
        format!("shape {shape:?}"),
    ))
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for builtin in ["LOGICAL_AND", "LOGICAL_OR"] {
        out.push(binary_variant(
            seed,
            target,
            ("logical", builtin),
            Types::same("bool", DType::Bool),
            ("", OpOptions::None),
            &no_quants,
            None,
        ));
    }
    let spec = Spec {
        op: "logical",
        builtin: "LOGICAL_NOT",
        types: "bool".to_owned(),
        options: String::new(),
        shape: "any",
    };
    let target = Target {
        values: target.values,
        models: target.models.max(6),
    };
    out.push(suite::fill(seed, spec, target, draw_not));
    out
}
