//! REVERSE_V2: int32, float32, uint8, int8, int16, int64 and bool, ranks 1 to 5; one axis
//! (negative now and then) or several contiguous ones (all of them in some models), in any
//! order.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Draft, Rng, Spec, Target, Variant, elements};

/// The types TFLM's REVERSE_V2 takes (reverse.cc:63-70).
const TYPES: [(&str, DType); 7] = [
    ("int32", DType::Int32),
    ("float32", DType::Float32),
    ("uint8", DType::Uint8),
    ("int8", DType::Int8),
    ("int16", DType::Int16),
    ("int64", DType::Int64),
    ("bool", DType::Bool),
];

/// The classes.
const CLASSES: [&str; 1] = ["one or contiguous axes"];

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
                op: "reverse",
                builtin: "REVERSE_V2",
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
    let rank = 1 + index % 5;
    let wide = rng.chance(0.2);
    let shape = suite::shape_within(rng, rank, 3000, wide);
    let _ = class;
    let (lo, hi) = if index.is_multiple_of(2) {
        let a = rng.size(0, rank - 1);
        (a, a)
    } else if index % 4 == 3 {
        (0, rank - 1)
    } else {
        let lo = rng.size(0, rank - 1);
        (lo, rng.size(lo, rank - 1))
    };
    let mut axes: Vec<i64> = (lo..=hi)
        .map(|a| {
            if rng.chance(0.3) {
                a as i64 - rank as i64
            } else {
                a as i64
            }
        })
        .collect();
    // Any order: TFLM sorts them.
    if axes.len() > 1 && rng.chance(0.5) {
        axes.reverse();
    }
    let op = BuiltinOp::from_name("REVERSE_V2")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &shape, q.as_ref());
    let a = b.constant(
        sg,
        "axis",
        DType::Int32,
        &[axes.len() as i32],
        &suite::int_bytes(DType::Int32, &axes),
    );
    let y = suite::data_tensor(&mut b, sg, "output", dtype, &shape, q.as_ref());
    b.op(sg, op, &[x, a], &[y]);
    b.io(sg, &[x], &[y]);
    let note = format!("{shape:?} axes {axes:?}");
    let input = suite::data_input(dtype, elements(&shape), q.as_ref());
    Some(Draft::new(&b, vec![input], elements(&shape), note))
}
