//! SPLIT_V: float32, int8, int16 and int32, ranks 1 to 4, 1 to 5 outputs of their own extents
//! along an axis at random (the sizes input is not read; the axis a constant int32).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::split::{TYPES, axis_value};
use crate::suite::{self, Draft, Rng, Spec, Target, Variant, elements};

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
                op: "split_v",
                builtin: "SPLIT_V",
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

fn draw(rng: &mut Rng, index: usize, dtype: DType, lo: usize, hi: usize) -> Option<Draft> {
    let rank = 1 + index % 4;
    let n = rng.size(lo, hi);
    let base = {
        let wide = rng.chance(0.2);
        suite::shape_within(rng, rank, 3000 / n, wide)
    };
    let axis = rng.size(0, rank - 1);
    let sizes: Vec<usize> = (0..n).map(|_| rng.size(1, 6)).collect();
    let oshapes: Vec<Vec<usize>> = sizes
        .iter()
        .map(|&s| {
            let mut o = base.clone();
            o[axis] = s;
            o
        })
        .collect();
    let mut ishape = base.clone();
    ishape[axis] = sizes.iter().sum();
    if elements(&ishape) > 8000 {
        return None;
    }
    let op = BuiltinOp::from_name("SPLIT_V")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &ishape, q.as_ref());
    let split: Vec<i64> = sizes.iter().map(|&s| s as i64).collect();
    let st = b.constant(
        sg,
        "size_splits",
        DType::Int32,
        &[n as i32],
        &suite::int_bytes(DType::Int32, &split),
    );
    let a = axis_value(rng, axis, rank);
    let at = b.constant(
        sg,
        "axis",
        DType::Int32,
        &[],
        &suite::int_bytes(DType::Int32, &[a]),
    );
    let ys: Vec<i32> = oshapes
        .iter()
        .enumerate()
        .map(|(i, s)| suite::data_tensor(&mut b, sg, &format!("output{i}"), dtype, s, q.as_ref()))
        .collect();
    b.op_with_options(
        sg,
        op,
        &[x, st, at],
        &ys,
        OpOptions::SplitV {
            num_splits: n as i32,
        },
    );
    b.io(sg, &[x], &ys);
    let note = format!("in {ishape:?} axis {a} into sizes {sizes:?}");
    let input = suite::data_input(dtype, elements(&ishape), q.as_ref());
    Some(Draft::new(&b, vec![input], elements(&ishape), note))
}
