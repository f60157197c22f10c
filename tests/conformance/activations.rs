//! RELU and RELU6: int8 (RELU requantises to the output's quantisation; RELU6 clamps in the
//! input's and ignores the output's, which is drawn equal to the input's or not) and float32,
//! over ranks 1 to 6, scales and zero points over the whole range.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::quantize::{SHAPES, shape, special_sets};
use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(6),
    };
    let mut out = Vec::new();
    for (builtin, types, options) in [
        ("RELU", "int8", "same quantisation"),
        ("RELU", "int8", "requantised"),
        ("RELU", "float32", ""),
        ("RELU6", "int8", "same quantisation"),
        ("RELU6", "int8", "other output quantisation"),
        ("RELU6", "float32", ""),
        ("RELU", "int16", "same quantisation"),
        ("RELU", "int16", "requantised"),
        ("RELU6", "int16", "same quantisation"),
        ("RELU6", "int16", "other output quantisation"),
        ("RELU", "int16", "nonzero zero points (refused)"),
    ] {
        for class in SHAPES {
            let spec = Spec {
                op: "activations",
                builtin,
                types: types.to_owned(),
                options: options.to_owned(),
                shape: class,
            };
            out.push(suite::fill_with_sets(seed, spec, target, |rng, index| {
                draw(rng, index, builtin, types, options, class)
            }));
        }
    }
    out
}

fn draw(
    rng: &mut Rng,
    index: usize,
    builtin: &str,
    types: &str,
    options: &str,
    class: &str,
) -> Option<(Draft, Vec<Vec<u8>>)> {
    let shape = shape(rng, index, class);
    let n = elements(&shape);
    let op = BuiltinOp::from_name(builtin)?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let (x, y, input, note) = if types == "int16" {
        // RELU: zero points 0 (TFLM's int16 ReluPrepare requires them); RELU6: any.
        let zero = |rng: &mut Rng| {
            if builtin == "RELU" && !options.ends_with("(refused)") {
                0
            } else if builtin == "RELU" {
                rng.range(1, 30000)
            } else {
                suite::zero_point(rng, DType::Int16)
            }
        };
        let qi = Quant::tensor(suite::scale(rng), zero(rng));
        let qo = if options == "same quantisation" {
            qi.clone()
        } else {
            Quant::tensor(suite::scale(rng), zero(rng))
        };
        let x = suite::activation(&mut b, sg, "input", DType::Int16, &shape, Some(&qi));
        let y = suite::activation(&mut b, sg, "output", DType::Int16, &shape, Some(&qo));
        let note = format!(
            "shape {shape:?} in q {:?} out q {:?}",
            (qi.s(), qi.z()),
            (qo.s(), qo.z())
        );
        (x, y, InputSpec::int(DType::Int16, n, qi.z()), note)
    } else if types == "int8" {
        let mut qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
        let qo = if options == "same quantisation" {
            qi.clone()
        } else if builtin == "RELU" && index == 0 {
            // Scales whose quotient in float and in double give different multipliers
            // (1205759232 and 1205759286, shift 1) and, for input -67, outputs 18 and 19:
            // TFLM's source divides in float, the pinned wheel in double.
            qi = Quant::tensor(0.027_530_024, -128);
            Quant::tensor(0.024_515_787, -128)
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
        (x, y, InputSpec::int(DType::Int8, n, qi.z()), note)
    } else {
        // Magnitudes around the clamps (0 and 6), tiny ones, and infinite edge sets.
        let magnitude = match index {
            0 => 3.0,
            1 => 1e36,
            2 => 1e-3,
            _ => rng.pick(&[1.0, 3.0, 10.0, 1e3]),
        };
        let x = suite::activation(&mut b, sg, "input", DType::Float32, &shape, None);
        let y = suite::activation(&mut b, sg, "output", DType::Float32, &shape, None);
        let note = format!("shape {shape:?} magnitude {magnitude:e}");
        (x, y, InputSpec::float(n, magnitude), note)
    };
    b.op(sg, op, &[x], &[y]);
    b.io(sg, &[x], &[y]);
    // Every int8 value; the float specials (NaN, infinities, signed zeros, next to 0 and 6).
    let specials: &[f32] = if types == "int8" {
        &[]
    } else {
        &suite::F32_SPECIALS
    };
    let sets = if types == "int16" {
        crate::tanh::int16_sets(n)
    } else {
        special_sets(n, specials)
    };
    Some((Draft::new(&b, vec![input], n, note), sets))
}
