//! SLICE: float32, int32, int8, int16 and bool, ranks 1 to 5; windows at random and slices to
//! the end (`size` -1) in alternate models, whole dimensions mixed with single elements, and
//! windows whose begin is a model input (within the input); begin and size int32 or int64.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Draft, Rng, Spec, Target, Variant, elements};

/// The types TFLM's SLICE takes (slice.cc:104-146).
const TYPES: [(&str, DType); 5] = [
    ("float32", DType::Float32),
    ("int32", DType::Int32),
    ("int8", DType::Int8),
    ("int16", DType::Int16),
    ("bool", DType::Bool),
];

/// The classes of slices.
const CLASSES: [&str; 2] = ["window or to end", "whole or one"];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(5),
    };
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for class in CLASSES {
            let spec = Spec {
                op: "slice",
                builtin: "SLICE",
                types: tname.to_owned(),
                options: String::new(),
                shape: class,
            };
            out.push(suite::fill(seed, spec, target, |rng, index| {
                draw(rng, index, dtype, class)
            }));
        }
        let spec = Spec {
            op: "slice",
            builtin: "SLICE",
            types: tname.to_owned(),
            options: String::new(),
            shape: "begin input",
        };
        out.push(suite::fill_bounded(seed, spec, target, |rng, index| {
            draw_dynamic(rng, index, dtype)
        }));
    }
    out
}

/// A model whose begin is a model input (int32 or int64), kept inside the input by its bounds.
fn draw_dynamic(rng: &mut Rng, index: usize, dtype: DType) -> Option<(Draft, Vec<suite::Bounds>)> {
    let rank = 1 + index % 5;
    let wide = rng.chance(0.2);
    let ishape = suite::shape_within(rng, rank, 2000, wide);
    let oshape: Vec<usize> = ishape.iter().map(|&d| rng.size(1, d)).collect();
    let idx = if index.is_multiple_of(2) {
        DType::Int32
    } else {
        DType::Int64
    };
    let op = BuiltinOp::from_name("SLICE")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &ishape, q.as_ref());
    let bt = b.tensor(sg, "begin", idx, &[rank as i32]);
    let size: Vec<i64> = oshape.iter().map(|&s| s as i64).collect();
    let st = b.constant(
        sg,
        "size",
        idx,
        &[rank as i32],
        &suite::int_bytes(idx, &size),
    );
    let y = suite::data_tensor(&mut b, sg, "output", dtype, &oshape, q.as_ref());
    b.op(sg, op, &[x, bt, st], &[y]);
    b.io(sg, &[x, bt], &[y]);
    let bounds = vec![
        Vec::new(),
        ishape
            .iter()
            .zip(&oshape)
            .map(|(&d, &s)| (0, (d - s) as i64))
            .collect(),
    ];
    let inputs = vec![
        suite::data_input(dtype, elements(&ishape), q.as_ref()),
        suite::InputSpec::int(idx, rank, 0),
    ];
    let note = format!("in {ishape:?} begin (input, {idx}) size {size:?}");
    Some((Draft::new(&b, inputs, elements(&oshape), note), bounds))
}

fn draw(rng: &mut Rng, index: usize, dtype: DType, class: &str) -> Option<Draft> {
    let rank = 1 + index % 5;
    let ishape = {
        let wide = rng.chance(0.2);
        suite::shape_within(rng, rank, 2000, wide)
    };
    let mut begin = Vec::new();
    let mut size = Vec::new();
    let mut oshape = Vec::new();
    for &d in &ishape {
        let (b, s) = match class {
            "window or to end" if index.is_multiple_of(2) => {
                let b = rng.size(0, d - 1);
                (b, rng.size(1, d - b) as i64)
            }
            "window or to end" => {
                let b = rng.size(0, d - 1);
                if rng.chance(0.6) {
                    (b, -1)
                } else {
                    (b, rng.size(1, d - b) as i64)
                }
            }
            _ => {
                if rng.chance(0.5) {
                    (0, d as i64)
                } else {
                    (rng.size(0, d - 1), 1)
                }
            }
        };
        begin.push(b as i64);
        size.push(s);
        oshape.push(if s == -1 { d - b } else { s as usize });
    }
    if elements(&oshape) < 12 && rng.chance(0.8) {
        // Mostly outputs of some size: a tiny one needs many runs of a large input.
        return None;
    }
    let idx = if rng.chance(0.5) {
        DType::Int32
    } else {
        DType::Int64
    };
    let op = BuiltinOp::from_name("SLICE")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &ishape, q.as_ref());
    let y = suite::data_tensor(&mut b, sg, "output", dtype, &oshape, q.as_ref());
    let bt = b.constant(
        sg,
        "begin",
        idx,
        &[rank as i32],
        &suite::int_bytes(idx, &begin),
    );
    let st = b.constant(
        sg,
        "size",
        idx,
        &[rank as i32],
        &suite::int_bytes(idx, &size),
    );
    b.op(sg, op, &[x, bt, st], &[y]);
    b.io(sg, &[x], &[y]);
    let note = format!("in {ishape:?} begin {begin:?} size {size:?} ({idx}) out {oshape:?}");
    let input = suite::data_input(dtype, elements(&ishape), q.as_ref());
    Some(Draft::new(&b, vec![input], elements(&oshape), note))
}
