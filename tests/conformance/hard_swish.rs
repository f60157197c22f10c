//! HARD_SWISH (TFLM's `hard_swish.cc`): float32 with the suite's magnitudes and the corners
//! at -3 and 3; int8 with input scales over the suite's range, zero points over the type's,
//! and output scales that keep TFLM's output multiplier at most 1 (its Prepare fails above).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::elementwise::{float_unary, specials};
use crate::quantize::{SHAPES, shape, special_sets};
use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut hs = specials("HARD_SWISH");
    hs.extend([
        -3.0,
        3.0,
        -3.000_000_2,
        -2.999_999_8,
        2.999_999_8,
        3.000_000_2,
        -1.5,
    ]);
    let mut out = float_unary(seed, target, "hard_swish", "HARD_SWISH", &hs);
    let target = Target {
        values: target.values,
        models: target.models.max(8),
    };
    for (options, lo, hi) in [
        ("typical scales", 50.0, 400.0),
        ("any scales", 1.01, 1e6),
        ("output multiplier above 1 (refused)", 1e-3, 0.9),
    ] {
        for class in SHAPES {
            let spec = Spec {
                op: "hard_swish",
                builtin: "HARD_SWISH",
                types: "int8".to_owned(),
                options: options.to_owned(),
                shape: class,
            };
            out.push(suite::fill_with_sets(seed, spec, target, |rng, index| {
                draw(rng, index, class, lo, hi)
            }));
        }
    }
    out
}

fn draw(
    rng: &mut Rng,
    index: usize,
    class: &str,
    lo: f64,
    hi: f64,
) -> Option<(Draft, Vec<Vec<u8>>)> {
    let shape = shape(rng, index, class);
    let n = elements(&shape);
    let op = BuiltinOp::from_name("HARD_SWISH")?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
    // output_scale >= input_scale / 128 (TFLM's output multiplier at most 1).
    let so = (f64::from(qi.s()) / 128.0 * f64::from(rng.log_uniform(lo, hi))) as f32;
    let qo = Quant::tensor(so, suite::zero_point(rng, DType::Int8));
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
