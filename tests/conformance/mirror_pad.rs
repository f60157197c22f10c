//! MIRROR_PAD: float32 and int8, REFLECT and SYMMETRIC, ranks 1 to 4, paddings from 0 to the
//! most each mode allows (int32 or int64, drawn per model).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::suite::{self, Draft, Rng, Spec, Target, Variant, elements};

/// The types TFLM's MIRROR_PAD takes (mirror_pad.cc:135-156).
const TYPES: [(&str, DType); 2] = [("float32", DType::Float32), ("int8", DType::Int8)];

/// The modes.
const MODES: [(&str, bool); 2] = [("REFLECT", false), ("SYMMETRIC", true)];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(4),
    };
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for (mode, symmetric) in MODES {
            let spec = Spec {
                op: "mirror_pad",
                builtin: "MIRROR_PAD",
                types: tname.to_owned(),
                options: mode.to_owned(),
                shape: "ranks 1 to 4",
            };
            out.push(suite::fill(seed, spec, target, |rng, index| {
                draw(rng, index, dtype, symmetric)
            }));
        }
    }
    out
}

fn draw(rng: &mut Rng, index: usize, dtype: DType, symmetric: bool) -> Option<Draft> {
    let rank = 1 + index % 4;
    let wide = rng.chance(0.2);
    let ishape = suite::shape_within(rng, rank, 1500, wide);
    let limit = |d: usize| if symmetric { d } else { d - 1 };
    let pads: Vec<[usize; 2]> = ishape
        .iter()
        .map(|&d| {
            let m = limit(d);
            let mut p = || if rng.chance(0.3) { m } else { rng.size(0, m) };
            [p(), p()]
        })
        .collect();
    let oshape: Vec<usize> = ishape
        .iter()
        .zip(&pads)
        .map(|(&d, p)| d + p[0] + p[1])
        .collect();
    if elements(&oshape) > 8000 {
        return None;
    }
    let pt = if rng.chance(0.5) {
        DType::Int32
    } else {
        DType::Int64
    };
    let op = BuiltinOp::from_name("MIRROR_PAD")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &ishape, q.as_ref());
    let flat: Vec<i64> = pads.iter().flatten().map(|&p| p as i64).collect();
    let p = b.constant(
        sg,
        "paddings",
        pt,
        &[rank as i32, 2],
        &suite::int_bytes(pt, &flat),
    );
    let y = suite::data_tensor(&mut b, sg, "output", dtype, &oshape, q.as_ref());
    b.op_with_options(sg, op, &[x, p], &[y], OpOptions::MirrorPad { symmetric });
    b.io(sg, &[x], &[y]);
    let note = format!("in {ishape:?} paddings {pads:?} ({pt}) out {oshape:?}");
    let input = suite::data_input(dtype, elements(&ishape), q.as_ref());
    Some(Draft::new(&b, vec![input], elements(&oshape), note))
}
