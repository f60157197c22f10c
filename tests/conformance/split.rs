//! SPLIT: float32, int8, int16 and int32, ranks 1 to 4, 1 to 5 outputs along an axis at random
//! (negative now and then; the axis a constant int32, as TFLM's Prepare requires).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::suite::{self, Draft, Rng, Spec, Target, Variant, elements};

/// The types TFLM's SPLIT and SPLIT_V take (split.cc:92-109, split_v.cc:94-111).
pub const TYPES: [(&str, DType); 4] = [
    ("float32", DType::Float32),
    ("int8", DType::Int8),
    ("int16", DType::Int16),
    ("int32", DType::Int32),
];

/// Output counts.
const COUNTS: [(&str, usize, usize); 2] = [("one to three", 1, 3), ("four or five", 4, 5)];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(4),
    };
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for (shape, lo, hi) in COUNTS {
            let spec = Spec {
                op: "split",
                builtin: "SPLIT",
                types: tname.to_owned(),
                options: String::new(),
                shape,
            };
            out.push(suite::fill(seed, spec, target, |rng, index| {
                draw(rng, index, dtype, lo, hi)
            }));
        }
    }
    out
}

/// An axis value of rank `rank` pointing at `axis`: negative now and then.
pub fn axis_value(rng: &mut Rng, axis: usize, rank: usize) -> i64 {
    if rng.chance(0.3) {
        axis as i64 - rank as i64
    } else {
        axis as i64
    }
}

fn draw(rng: &mut Rng, index: usize, dtype: DType, lo: usize, hi: usize) -> Option<Draft> {
    let rank = 1 + index % 4;
    let n = rng.size(lo, hi);
    let mut oshape = {
        let wide = rng.chance(0.2);
        suite::shape_within(rng, rank, 3000 / n, wide)
    };
    let axis = rng.size(0, rank - 1);
    let mut ishape = oshape.clone();
    ishape[axis] *= n;
    if elements(&ishape) > 6000 {
        oshape[axis] = 1;
        ishape[axis] = n;
    }
    let op = BuiltinOp::from_name("SPLIT")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let a = axis_value(rng, axis, rank);
    let at = b.constant(
        sg,
        "axis",
        DType::Int32,
        &[],
        &suite::int_bytes(DType::Int32, &[a]),
    );
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &ishape, q.as_ref());
    let ys: Vec<i32> = (0..n)
        .map(|i| {
            suite::data_tensor(
                &mut b,
                sg,
                &format!("output{i}"),
                dtype,
                &oshape,
                q.as_ref(),
            )
        })
        .collect();
    b.op_with_options(
        sg,
        op,
        &[at, x],
        &ys,
        OpOptions::Split {
            num_splits: n as i32,
        },
    );
    b.io(sg, &[x], &ys);
    let note = format!("in {ishape:?} axis {a} into {n} of {oshape:?}");
    let input = suite::data_input(dtype, elements(&ishape), q.as_ref());
    Some(Draft::new(&b, vec![input], elements(&ishape), note))
}
