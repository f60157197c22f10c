//! PACK: float32, int8, int16, int32 and int64; 1 to 5 inputs of rank 0 to 3, packed along the
//! first axis, the last, or one between (negative now and then).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant, elements};

/// The types TFLM's PACK takes (pack.cc:78-104).
const TYPES: [(&str, DType); 5] = [
    ("float32", DType::Float32),
    ("int8", DType::Int8),
    ("int16", DType::Int16),
    ("int32", DType::Int32),
    ("int64", DType::Int64),
];

/// Where the new axis goes.
const AXES: [&str; 2] = ["first or last axis", "inner axis"];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(4),
    };
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for axes in AXES {
            let spec = Spec {
                op: "pack",
                builtin: "PACK",
                types: tname.to_owned(),
                options: String::new(),
                shape: axes,
            };
            out.push(suite::fill(seed, spec, target, |rng, index| {
                draw(rng, index, dtype, axes)
            }));
        }
    }
    out
}

fn draw(rng: &mut Rng, index: usize, dtype: DType, axes: &str) -> Option<Draft> {
    let rank = match axes {
        "inner axis" => 1 + index % 3,
        _ => index % 4,
    };
    let n = rng.size(1, 5);
    let ishape = {
        let wide = rng.chance(0.2);
        suite::shape_within(rng, rank, 2000 / n, wide)
    };
    let out_rank = rank + 1;
    let axis = match axes {
        "first or last axis" if index.is_multiple_of(2) => 0,
        "first or last axis" => rank,
        _ => rng.size(1, rank),
    };
    let mut oshape = ishape.clone();
    oshape.insert(axis, n);
    let a = if rng.chance(0.3) {
        axis as i32 - out_rank as i32
    } else {
        axis as i32
    };
    let op = BuiltinOp::from_name("PACK")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let xs: Vec<i32> = (0..n)
        .map(|i| suite::data_tensor(&mut b, sg, &format!("input{i}"), dtype, &ishape, q.as_ref()))
        .collect();
    let y = suite::data_tensor(&mut b, sg, "output", dtype, &oshape, q.as_ref());
    b.op_with_options(
        sg,
        op,
        &xs,
        &[y],
        OpOptions::Pack {
            values_count: n as i32,
            axis: a,
        },
    );
    b.io(sg, &xs, &[y]);
    let note = format!("{n} of {ishape:?} along axis {a} -> {oshape:?}");
    let inputs: Vec<InputSpec> = (0..n)
        .map(|_| suite::data_input(dtype, elements(&ishape), q.as_ref()))
        .collect();
    Some(Draft::new(&b, inputs, elements(&oshape), note))
}
