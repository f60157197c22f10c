//! LEAKY_RELU (TFLM's `leaky_relu.cc`): float32, int8 and int16 with alphas the converter
//! writes (0.2, 0.01), zero, one, above one and negative (TFLM's kernel keeps the sign of a
//! negative alpha), scales over the suite's range and zero points over the type's.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::elementwise::{float_unary_with, specials};
use crate::quantize::{SHAPES, shape, special_sets};
use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};
use crate::tanh::int16_sets;

/// An alpha: the common ones, and any in [-3, 3].
fn alpha(rng: &mut Rng) -> f32 {
    match rng.below(8) {
        0 => 0.2,
        1 => 0.01,
        2 => 0.0,
        3 => 1.0,
        4 => -0.5,
        _ => rng.uniform(-3.0, 3.0) as f32,
    }
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = float_unary_with(
        seed,
        target,
        "leaky_relu",
        "LEAKY_RELU",
        &specials("LEAKY_RELU"),
        "alpha any",
        |rng| OpOptions::LeakyRelu { alpha: alpha(rng) },
    );
    let target = Target {
        values: target.values,
        models: target.models.max(8),
    };
    for types in ["int8", "int16"] {
        for class in SHAPES {
            let spec = Spec {
                op: "leaky_relu",
                builtin: "LEAKY_RELU",
                types: types.to_owned(),
                options: "alpha any".to_owned(),
                shape: class,
            };
            out.push(suite::fill_with_sets(seed, spec, target, |rng, index| {
                draw(rng, index, types, class)
            }));
        }
    }
    out
}

fn draw(rng: &mut Rng, index: usize, types: &str, class: &str) -> Option<(Draft, Vec<Vec<u8>>)> {
    let shape = shape(rng, index, class);
    let n = elements(&shape);
    let op = BuiltinOp::from_name("LEAKY_RELU")?;
    let dtype = if types == "int8" {
        DType::Int8
    } else {
        DType::Int16
    };
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, dtype));
    let qo = if rng.chance(0.5) {
        Quant::tensor(
            qi.s() * rng.log_uniform(0.3, 3.0),
            suite::zero_point(rng, dtype),
        )
    } else {
        Quant::tensor(suite::scale(rng), suite::zero_point(rng, dtype))
    };
    let a = alpha(rng);
    let x = suite::activation(&mut b, sg, "input", dtype, &shape, Some(&qi));
    let y = suite::activation(&mut b, sg, "output", dtype, &shape, Some(&qo));
    b.op_with_options(sg, op, &[x], &[y], OpOptions::LeakyRelu { alpha: a });
    b.io(sg, &[x], &[y]);
    let note = format!(
        "shape {shape:?} alpha {a} in q {:?} out q {:?}",
        (qi.s(), qi.z()),
        (qo.s(), qo.z())
    );
    let sets = if dtype == DType::Int8 {
        special_sets(n, &[])
    } else {
        int16_sets(n)
    };
    Some((
        Draft::new(&b, vec![InputSpec::int(dtype, n, qi.z())], n, note),
        sets,
    ))
}
