//! ZEROS_LIKE: int64, int32, int8 and float32 (TFLM's types), ranks 0 to 5.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant, elements};

fn draw(rng: &mut Rng, index: usize, dtype: DType) -> Option<Draft> {
    let wide = rng.chance(0.2);
    let shape = suite::shape_within(rng, index % 6, 3000, wide);
    let op = BuiltinOp::from_name("ZEROS_LIKE")?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::activation(&mut b, sg, "input", dtype, &shape, None);
    let y = suite::activation(&mut b, sg, "output", dtype, &shape, None);
    b.op(sg, op, &[x], &[y]);
    b.io(sg, &[x], &[y]);
    let n = elements(&shape);
    let spec = if dtype == DType::Float32 {
        InputSpec::float(n, 1.0)
    } else {
        InputSpec::int(dtype, n, 0)
    };
    Some(Draft::new(&b, vec![spec], n, format!("{shape:?}")))
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(6),
    };
    [
        ("int64", DType::Int64),
        ("int32", DType::Int32),
        ("int8", DType::Int8),
        ("float32", DType::Float32),
    ]
    .into_iter()
    .map(|(label, dtype)| {
        let spec = Spec {
            op: "zeros_like",
            builtin: "ZEROS_LIKE",
            types: label.to_owned(),
            options: String::new(),
            shape: "any",
        };
        suite::fill(seed, spec, target, |rng, index| draw(rng, index, dtype))
    })
    .collect()
}
