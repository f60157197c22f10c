//! CONCATENATION: int8 (every input quantised as the output, as TFLM requires), int16 (zero
//! points 0), float32, int32, int64 and bool; 2 to 5 inputs along every axis, negative ones
//! included, of ranks 1 to 4.

use stowplan_planner::tflite::builder::{ModelBuilder, ops};
use stowplan_planner::tflite::{Activation, DType, OpOptions};

use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

/// The types with their names.
pub const TYPES: [(&str, DType); 6] = [
    ("int8", DType::Int8),
    ("int16", DType::Int16),
    ("float32", DType::Float32),
    ("int32", DType::Int32),
    ("int64", DType::Int64),
    ("bool", DType::Bool),
];

/// The shape classes: the rank of the inputs.
const RANKS: [(&str, usize); 4] = [("rank 1", 1), ("rank 2", 2), ("rank 3", 3), ("rank 4", 4)];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for (shape, rank) in RANKS {
            // A model per axis at least (each of -rank..rank), and every count of inputs.
            let target = Target {
                values: target.values,
                models: target.models.max(2 * rank).max(4),
            };
            let spec = Spec {
                op: "concatenation",
                builtin: "CONCATENATION",
                types: tname.to_owned(),
                options: "2 to 5 inputs".to_owned(),
                shape,
            };
            out.push(suite::fill(seed, spec, target, |rng, index| {
                draw(rng, index, dtype, rank)
            }));
        }
    }
    out
}

fn draw(rng: &mut Rng, index: usize, dtype: DType, rank: usize) -> Option<Draft> {
    let r = i32::try_from(rank).ok()?;
    // Model i takes axis i mod 2r, shifted into -r..r: every axis, negative ones first.
    let axis = i32::try_from(index % (2 * rank)).ok()? - r;
    let d = usize::try_from(if axis < 0 { axis + r } else { axis }).ok()?;
    let count = if index < 4 { 2 + index } else { rng.size(2, 5) };
    let wide = rng.chance(0.2);
    let base = suite::shape_within(rng, rank, 600, wide && d + 1 != rank);
    let shapes: Vec<Vec<usize>> = (0..count)
        .map(|_| {
            let mut s = base.clone();
            s[d] = if wide && d + 1 == rank {
                rng.size(16, 150)
            } else {
                rng.pick(&[1, 1, 2, 3, 5, 7])
            };
            s
        })
        .collect();
    let mut oshape = base.clone();
    oshape[d] = shapes.iter().map(|s| s[d]).sum();
    let q = match dtype {
        DType::Int8 => Some(Quant::tensor(
            suite::scale(rng),
            suite::zero_point(rng, DType::Int8),
        )),
        DType::Int16 => Some(Quant::tensor(suite::scale(rng), 0)),
        _ => None,
    };
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let xs: Vec<i32> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| suite::activation(&mut b, sg, &format!("input{i}"), dtype, s, q.as_ref()))
        .collect();
    let y = suite::activation(&mut b, sg, "output", dtype, &oshape, q.as_ref());
    b.op_with_options(
        sg,
        ops::CONCATENATION,
        &xs,
        &[y],
        OpOptions::Concatenation {
            axis,
            activation: Activation::None,
        },
    );
    b.io(sg, &xs, &[y]);
    let inputs: Vec<InputSpec> = shapes
        .iter()
        .map(|s| {
            if dtype == DType::Float32 {
                InputSpec::float(elements(s), 1.0)
            } else {
                InputSpec::int(dtype, elements(s), q.as_ref().map_or(0, Quant::z))
            }
        })
        .collect();
    let note = format!(
        "inputs {shapes:?} axis {axis} out {oshape:?} q {:?}",
        q.as_ref().map(|q| (q.s(), q.z()))
    );
    Some(Draft::new(&b, inputs, elements(&oshape), note))
}
