//! DYNAMIC_UPDATE_SLICE: float32, int8, int16 and int32, ranks 1 to 5, updates from a single
//! element to the operand's whole shape; start indices (int32 or int64, alternate models) model
//! inputs over their whole range (TFLM clamps them) or constants.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant, elements};

/// The types TFLM's DYNAMIC_UPDATE_SLICE takes.
const TYPES: [(&str, DType); 4] = [
    ("float32", DType::Float32),
    ("int8", DType::Int8),
    ("int16", DType::Int16),
    ("int32", DType::Int32),
];

/// Index types.
const INDICES: [(&str, DType); 2] = [
    ("int32 indices", DType::Int32),
    ("int64 indices", DType::Int64),
];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(10),
    };
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        let spec = Spec {
            op: "dynamic_update_slice",
            builtin: "DYNAMIC_UPDATE_SLICE",
            types: tname.to_owned(),
            options: "int32 or int64 indices".to_owned(),
            shape: "ranks 1 to 5",
        };
        out.push(suite::fill(seed, spec, target, |rng, index| {
            let (_, it) = INDICES[index % 2];
            draw(rng, index, dtype, it)
        }));
    }
    out
}

fn draw(rng: &mut Rng, index: usize, dtype: DType, it: DType) -> Option<Draft> {
    let rank = 1 + index % 5;
    let wide = rng.chance(0.2);
    let oshape = suite::shape_within(rng, rank, 3000, wide);
    let ushape: Vec<usize> = oshape
        .iter()
        .map(|&d| if index == 4 { d } else { rng.size(1, d) })
        .collect();
    let op = BuiltinOp::from_name("DYNAMIC_UPDATE_SLICE")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "operand", dtype, &oshape, q.as_ref());
    let u = suite::data_tensor(&mut b, sg, "update", dtype, &ushape, q.as_ref());
    let constant = index % 3 == 1;
    let i = if constant {
        let v: Vec<i64> = oshape
            .iter()
            .map(|&d| rng.range(-2, d as i64 + 2))
            .collect();
        b.constant(sg, "indices", it, &[rank as i32], &suite::int_bytes(it, &v))
    } else {
        b.tensor(sg, "indices", it, &[rank as i32])
    };
    let y = suite::data_tensor(&mut b, sg, "output", dtype, &oshape, q.as_ref());
    b.op(sg, op, &[x, u, i], &[y]);
    let mut inputs = vec![
        suite::data_input(dtype, elements(&oshape), q.as_ref()),
        suite::data_input(dtype, elements(&ushape), q.as_ref()),
    ];
    if constant {
        b.io(sg, &[x, u], &[y]);
    } else {
        b.io(sg, &[x, u, i], &[y]);
        inputs.push(InputSpec::int(it, rank, 0));
    }
    let note = format!(
        "operand {oshape:?} update {ushape:?}{}",
        if constant { " constant indices" } else { "" }
    );
    Some(Draft::new(&b, inputs, elements(&oshape), note))
}
