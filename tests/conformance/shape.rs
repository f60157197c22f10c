//! SHAPE: float32, int8 and bool inputs of rank 1 to 5, into int32 (the only output type TFLM's
//! SHAPE takes). (A scalar's shape has no elements: generated `invoke` gives such an output no
//! view, so it is not drawn.)

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::suite::{self, Draft, Rng, Spec, Target, Variant, elements};

/// Input types.
const TYPES: [(&str, DType); 3] = [
    ("float32->int32", DType::Float32),
    ("int8->int32", DType::Int8),
    ("bool->int32", DType::Bool),
];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(6),
    };
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        let spec = Spec {
            op: "shape",
            builtin: "SHAPE",
            types: tname.to_owned(),
            options: String::new(),
            shape: "ranks 1 to 5",
        };
        out.push(suite::fill(seed, spec, target, |rng, index| {
            draw(rng, index, dtype, DType::Int32)
        }));
    }
    // int64 output: TFLM's ShapeEval refuses it (shape.cc:47-52), and so does stowplan.
    let spec = Spec {
        op: "shape",
        builtin: "SHAPE",
        types: "float32->int64".to_owned(),
        options: String::new(),
        shape: "refused",
    };
    out.push(suite::fill(
        seed,
        spec,
        Target {
            values: 0,
            models: 3,
        },
        |rng, index| draw(rng, index, DType::Float32, DType::Int64),
    ));
    out
}

fn draw(rng: &mut Rng, index: usize, dtype: DType, out_type: DType) -> Option<Draft> {
    let rank = 1 + index % 5;
    let ishape: Vec<usize> = (0..rank).map(|_| rng.size(1, 4)).collect();
    let op = BuiltinOp::from_name("SHAPE")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &ishape, q.as_ref());
    let y = b.tensor(sg, "output", out_type, &[rank as i32]);
    b.op_with_options(sg, op, &[x], &[y], OpOptions::Shape { out_type });
    b.io(sg, &[x], &[y]);
    let input = suite::data_input(dtype, elements(&ishape), q.as_ref());
    Some(Draft::new(
        &b,
        vec![input],
        rank,
        format!("shape of {ishape:?}"),
    ))
}
