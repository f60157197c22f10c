//! GATHER_ND: float32 and int8 params, int32 indices (model inputs within each indexed
//! dimension), gathering single elements (index depth = params rank) or slices.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Bounds, Draft, InputSpec, Rng, Spec, Target, Variant, elements};

/// The types TFLM's GATHER_ND takes (gather_nd.cc:46-63).
const TYPES: [(&str, DType); 2] = [("float32", DType::Float32), ("int8", DType::Int8)];

/// The classes.
const CLASSES: [&str; 2] = ["elements", "slices"];

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
                op: "gather_nd",
                builtin: "GATHER_ND",
                types: tname.to_owned(),
                options: String::new(),
                shape: class,
            };
            out.push(suite::fill_bounded(seed, spec, target, |rng, index| {
                draw(rng, index, dtype, class)
            }));
        }
    }
    out
}

fn draw(rng: &mut Rng, index: usize, dtype: DType, class: &str) -> Option<(Draft, Vec<Bounds>)> {
    let rank = 1 + index % 4;
    let wide = rng.chance(0.2);
    let pshape = suite::shape_within(rng, rank, 2000, wide);
    let nd = if class == "elements" {
        rank
    } else {
        rng.size(1, rank.max(2) - 1).min(rank)
    };
    let batch: Vec<usize> = (0..rng.size(1, 2)).map(|_| rng.size(1, 12)).collect();
    let mut ishape = batch.clone();
    ishape.push(nd);
    let mut oshape = batch.clone();
    oshape.extend_from_slice(&pshape[nd..]);
    if elements(&oshape) > 8000 {
        return None;
    }
    let op = BuiltinOp::from_name("GATHER_ND")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "params", dtype, &pshape, q.as_ref());
    let i = b.tensor(sg, "indices", DType::Int32, &suite::dims(&ishape));
    let y = suite::data_tensor(&mut b, sg, "output", dtype, &oshape, q.as_ref());
    b.op(sg, op, &[x, i], &[y]);
    b.io(sg, &[x, i], &[y]);
    let inputs = vec![
        suite::data_input(dtype, elements(&pshape), q.as_ref()),
        InputSpec::int(DType::Int32, elements(&ishape), 0),
    ];
    let bounds = vec![
        Vec::new(),
        pshape[..nd].iter().map(|&d| (0, d as i64 - 1)).collect(),
    ];
    let note = format!("params {pshape:?} indices {ishape:?} out {oshape:?}");
    Some((Draft::new(&b, inputs, elements(&oshape), note), bounds))
}
