//! TRANSPOSE: int8, int16 and float32, ranks 1 to 5, permutations at random (the identity and
//! the reversal in every variant).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

/// The types TFLM's TRANSPOSE takes (transpose.cc:49-72).
const TYPES: [(&str, DType); 3] = [
    ("int8", DType::Int8),
    ("int16", DType::Int16),
    ("float32", DType::Float32),
];

/// The ranks (TFLM's Prepare refuses more than 5 dimensions, transpose_common.cc:33-34).
const RANKS: [(&str, usize); 5] = [
    ("rank 1", 1),
    ("rank 2", 2),
    ("rank 3", 3),
    ("rank 4", 4),
    ("rank 5", 5),
];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(4),
    };
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for (shape, rank) in RANKS {
            let spec = Spec {
                op: "transpose",
                builtin: "TRANSPOSE",
                types: tname.to_owned(),
                options: String::new(),
                shape,
            };
            out.push(suite::fill(seed, spec, target, |rng, index| {
                draw(rng, index, dtype, rank)
            }));
        }
    }
    out
}

/// A permutation of `0..rank`: the identity for model 0, the reversal for model 1, else at
/// random.
fn permutation(rng: &mut Rng, index: usize, rank: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..rank).collect();
    match index {
        0 => {}
        1 => p.reverse(),
        _ => {
            for i in (1..rank).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                p.swap(i, j);
            }
        }
    }
    p
}

fn draw(rng: &mut Rng, index: usize, dtype: DType, rank: usize) -> Option<Draft> {
    let wide = rng.chance(0.2);
    let ishape = suite::shape_within(rng, rank, 3000, wide);
    let perm = permutation(rng, index, rank);
    let oshape: Vec<usize> = perm.iter().map(|&p| ishape[p]).collect();
    let op = BuiltinOp::from_name("TRANSPOSE")?;
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
    let x = suite::activation(&mut b, sg, "input", dtype, &ishape, q.as_ref());
    let y = suite::activation(&mut b, sg, "output", dtype, &oshape, q.as_ref());
    let pdata: Vec<i64> = perm
        .iter()
        .map(|&p| i64::try_from(p).unwrap_or(0))
        .collect();
    let p = b.constant(
        sg,
        "perm",
        DType::Int32,
        &suite::dims(&[rank]),
        &suite::int_bytes(DType::Int32, &pdata),
    );
    b.op(sg, op, &[x, p], &[y]);
    b.io(sg, &[x], &[y]);
    let n = elements(&ishape);
    let input = if dtype == DType::Float32 {
        InputSpec::float(n, 1.0)
    } else {
        InputSpec::int(dtype, n, q.as_ref().map_or(0, Quant::z))
    };
    let note = format!("in {ishape:?} perm {perm:?} out {oshape:?}");
    Some(Draft::new(&b, vec![input], n, note))
}
