//! BROADCAST_TO: bool, int8, uint8, int16, int32, int64 and float32; inputs of rank 0 to 5
//! broadcast to outputs of up to 5 dimensions (the shape a constant int32 or int64).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Draft, Rng, Spec, Target, Variant, elements};

/// The types drawn (TFLM copies bytes, any type).
const TYPES: [(&str, DType); 7] = [
    ("bool", DType::Bool),
    ("int8", DType::Int8),
    ("uint8", DType::Uint8),
    ("int16", DType::Int16),
    ("int32", DType::Int32),
    ("int64", DType::Int64),
    ("float32", DType::Float32),
];

/// The classes.
const CLASSES: [&str; 1] = ["same rank or added dimensions"];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(4),
    };
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for class in CLASSES {
            let spec = Spec {
                op: "broadcast_to",
                builtin: "BROADCAST_TO",
                types: tname.to_owned(),
                options: String::new(),
                shape: class,
            };
            out.push(suite::fill(seed, spec, target, |rng, index| {
                draw(rng, index, dtype, class)
            }));
        }
    }
    out
}

fn draw(rng: &mut Rng, index: usize, dtype: DType, class: &str) -> Option<Draft> {
    let orank = 1 + (index / 2) % 5;
    let oshape: Vec<usize> = (0..orank).map(|_| rng.size(1, 7)).collect();
    if elements(&oshape) > 6000 {
        return None;
    }
    let _ = class;
    let irank = if index.is_multiple_of(2) {
        orank
    } else {
        rng.size(0, orank - 1)
    };
    let ishape: Vec<usize> = oshape[orank - irank..]
        .iter()
        .map(|&d| if rng.chance(0.5) { 1 } else { d })
        .collect();
    if elements(&oshape) < 12 && rng.chance(0.8) {
        return None;
    }
    let st = if rng.chance(0.5) {
        DType::Int32
    } else {
        DType::Int64
    };
    let op = BuiltinOp::from_name("BROADCAST_TO")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &ishape, q.as_ref());
    let sv: Vec<i64> = oshape.iter().map(|&d| d as i64).collect();
    let s = b.constant(sg, "shape", st, &[orank as i32], &suite::int_bytes(st, &sv));
    let y = suite::data_tensor(&mut b, sg, "output", dtype, &oshape, q.as_ref());
    b.op(sg, op, &[x, s], &[y]);
    b.io(sg, &[x], &[y]);
    let note = format!("{ishape:?} to {oshape:?} ({st})");
    let input = suite::data_input(dtype, elements(&ishape), q.as_ref());
    Some(Draft::new(&b, vec![input], elements(&oshape), note))
}
