//! L2_NORMALIZATION (TFLM's `l2norm.cc`): float32 and int8 over ranks 1 to 4 with rows of 1 to
//! a few hundred; int8 input scales over the suite's range and zero points over the type's,
//! the output (1/128, 0) the converter writes or any (TFLM's kernel does not read it); rows of
//! zeros (TFLM's inverse square root of 0), of the zero point and at the extremes.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{Activation, BuiltinOp, DType, OpOptions};

use crate::log_softmax::row_shape;
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
        ("float32", "fused RELU (refused)"),
    ] {
        for class in CLASSES {
            let spec = Spec {
                op: "l2norm",
                builtin: "L2_NORMALIZATION",
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

fn draw(
    rng: &mut Rng,
    index: usize,
    types: &str,
    options: &str,
    class: &str,
) -> Option<(Draft, Vec<Vec<u8>>)> {
    let shape = row_shape(rng, index, class);
    let n = elements(&shape);
    let op = BuiltinOp::from_name("L2_NORMALIZATION")?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let (x, y, input, note, sets) = if types == "int8" {
        let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
        let qo = if rng.chance(0.6) {
            Quant::tensor(1.0 / 128.0, 0)
        } else {
            Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8))
        };
        let x = suite::activation(&mut b, sg, "input", DType::Int8, &shape, Some(&qi));
        let y = suite::activation(&mut b, sg, "output", DType::Int8, &shape, Some(&qo));
        let note = format!(
            "shape {shape:?} in q {:?} out q {:?}",
            (qi.s(), qi.z()),
            (qo.s(), qo.z())
        );
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
            3 => 1e-25,
            _ => rng.pick(&[1.0, 3.0, 1e-8, 1e3, 1e18]),
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
    b.op_with_options(
        sg,
        op,
        &[x],
        &[y],
        OpOptions::L2Norm {
            activation: if options.is_empty() {
                Activation::None
            } else {
                Activation::Relu
            },
        },
    );
    b.io(sg, &[x], &[y]);
    Some((Draft::new(&b, vec![input], n, note), sets))
}
