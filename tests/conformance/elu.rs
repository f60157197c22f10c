//! ELU (TFLM's `elu.cc`): float32 with the suite's magnitudes and negative values down to
//! where expm1 is -1; int8 (the table TFLM's Prepare fills) with scales over the suite's range,
//! zero points over the type's, and every int8 value.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::elementwise::{float_unary, specials};
use crate::quantize::{SHAPES, shape, special_sets};
use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut elu_specials = specials("ELU");
    elu_specials.extend([
        -18.714_973,
        -18.714_975,
        -0.346_573_6,
        -0.346_574,
        -1.039_720_8,
        -88.0,
        -1e-8,
    ]);
    let mut out = float_unary(seed, target, "elu", "ELU", &elu_specials);
    let target = Target {
        values: target.values,
        models: target.models.max(8),
    };
    for class in SHAPES {
        let spec = Spec {
            op: "elu",
            builtin: "ELU",
            types: "int8".to_owned(),
            options: "any scales".to_owned(),
            shape: class,
        };
        out.push(suite::fill_with_sets(seed, spec, target, |rng, index| {
            draw(rng, index, class)
        }));
    }
    out
}

fn draw(rng: &mut Rng, index: usize, class: &str) -> Option<(Draft, Vec<Vec<u8>>)> {
    let shape = shape(rng, index, class);
    let n = elements(&shape);
    let op = BuiltinOp::from_name("ELU")?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
    // Mostly an output scale near the input's (outputs over many steps), sometimes any.
    let qo = if rng.chance(0.6) {
        Quant::tensor(
            qi.s() * rng.log_uniform(0.3, 3.0),
            suite::zero_point(rng, DType::Int8),
        )
    } else {
        Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8))
    };
    let x = suite::activation(&mut b, sg, "input", DType::Int8, &shape, Some(&qi));
    let y = suite::activation(&mut b, sg, "output", DType::Int8, &shape, Some(&qo));
    b.op(sg, op, &[x], &[y]);
    b.io(sg, &[x], &[y]);
    let note = format!(
        "shape {shape:?} in q {:?} out q {:?}",
        (qi.s(), qi.z()),
        (qo.s(), qo.z())
    );
    Some((
        Draft::new(&b, vec![InputSpec::int(DType::Int8, n, qi.z())], n, note),
        special_sets(n, &[]),
    ))
}
