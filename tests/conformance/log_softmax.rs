//! LOG_SOFTMAX (TFLM's `log_softmax.cc`): float32 and int8 (the output (16/256, 127) TFLM
//! requires) over ranks 1 to 4 with rows of 1 to a few hundred, input scales over the
//! suite's range and zero points over the type's; rows of equal values and of one maximum.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::quantize::special_sets;
use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

/// The shape classes: short rows, long rows.
const CLASSES: [&str; 2] = ["short rows", "long rows"];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(8),
    };
    let mut out = Vec::new();
    for (types, options) in [
        ("float32", ""),
        ("int8", ""),
        ("int8", "output (1/256, -128) (refused)"),
    ] {
        for class in CLASSES {
            let spec = Spec {
                op: "log_softmax",
                builtin: "LOG_SOFTMAX",
                types: types.to_owned(),
                options: options.to_owned(),
                shape: class,
            };
            out.push(suite::fill_with_sets(seed, spec, target, |rng, index| {
                draw(rng, index, types, options, class)
            }));
        }
    }
    out
}

/// A shape of rank 1 to 4 whose last dimension is the row.
pub fn row_shape(rng: &mut Rng, index: usize, class: &str) -> Vec<usize> {
    let rank = 1 + index % 4;
    let depth = if class == "short rows" {
        rng.size(1, 12)
    } else {
        rng.size(40, 400)
    };
    let mut shape: Vec<usize> = (1..rank).map(|_| rng.size(1, 5)).collect();
    shape.push(depth);
    shape
}

fn draw(
    rng: &mut Rng,
    index: usize,
    types: &str,
    options: &str,
    class: &str,
) -> Option<(Draft, Vec<Vec<u8>>)> {
    let shape = row_shape(rng, index, class);
    let n = elements(&shape);
    let op = BuiltinOp::from_name("LOG_SOFTMAX")?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let (x, y, input, note, sets) = if types == "int8" {
        let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
        let qo = if options.is_empty() {
            Quant::tensor(16.0 / 256.0, 127)
        } else {
            Quant::tensor(1.0 / 256.0, -128)
        };
        let x = suite::activation(&mut b, sg, "input", DType::Int8, &shape, Some(&qi));
        let y = suite::activation(&mut b, sg, "output", DType::Int8, &shape, Some(&qo));
        let note = format!("shape {shape:?} in q {:?}", (qi.s(), qi.z()));
        (
            x,
            y,
            InputSpec::int(DType::Int8, n, qi.z()),
            note,
            special_sets(n, &[]),
        )
    } else {
        let magnitude = match index {
            0 => 1.0,
            1 => 1e36,
            2 => 1e-3,
            _ => rng.pick(&[1.0, 3.0, 10.0, 30.0, 1e3]),
        };
        let x = suite::activation(&mut b, sg, "input", DType::Float32, &shape, None);
        let y = suite::activation(&mut b, sg, "output", DType::Float32, &shape, None);
        let note = format!("shape {shape:?} magnitude {magnitude:e}");
        (
            x,
            y,
            InputSpec::float(n, magnitude),
            note,
            special_sets(n, &suite::F32_SPECIALS),
        )
    };
    b.op(sg, op, &[x], &[y]);
    b.io(sg, &[x], &[y]);
    Some((Draft::new(&b, vec![input], n, note), sets))
}
