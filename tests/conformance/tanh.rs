//! TANH (TFLM's `tanh.cc`): float32 with the suite's magnitudes and tanhf's edges (2^-55, 1,
//! 22); int8 with input scales over the suite's range and zero points over the type's (the
//! output's quantisation is not read by TFLM); int16 with the power-of-two input scales TFLM
//! takes directly (2^-12, 2^-11), other powers of two and any scale, the output 2^-15 and
//! zero points 0 as TFLM's Prepare requires.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::elementwise::{float_unary, specials};
use crate::quantize::{SHAPES, shape, special_sets};
use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut tanh_specials = specials("TANH");
    for x in [
        2.7755576e-17_f32,
        2.7755572e-17,
        1.0,
        0.999_999_94,
        22.0,
        21.999_998,
        9.0,
        0.55,
    ] {
        tanh_specials.push(x);
        tanh_specials.push(-x);
    }
    let mut out = float_unary(seed, target, "tanh", "TANH", &tanh_specials);
    out.extend(int_variants(seed, target, "tanh", "TANH"));
    out
}

/// int8 and int16 variants of TANH or LOGISTIC (`builtin`; module `op`): int8 (for TANH; the
/// LOGISTIC module has its own) and int16 with the input scale classes of TFLM's int16
/// Prepare.
pub fn int_variants(
    seed: u64,
    target: Target,
    op: &'static str,
    builtin: &'static str,
) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(8),
    };
    let mut out = Vec::new();
    let mut kinds = vec![
        ("int16", "scale 2^-12"),
        ("int16", "scale 2^-11"),
        ("int16", "other powers of two"),
        ("int16", "any scale"),
        ("int16", "output scale 2^-14 (refused)"),
        ("int16", "nonzero zero point (refused)"),
    ];
    if builtin == "TANH" {
        kinds.insert(0, ("int8", "any scales"));
    }
    for (types, options) in kinds {
        for class in SHAPES {
            let spec = Spec {
                op,
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
    let (dtype, qi, qo) = if types == "int8" {
        let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
        let qo = if rng.chance(0.5) {
            Quant::tensor(1.0 / 128.0, 0)
        } else {
            Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8))
        };
        (DType::Int8, qi, qo)
    } else {
        let si = match options {
            "scale 2^-12" => 2f32.powi(-12),
            "scale 2^-11" => 2f32.powi(-11),
            "other powers of two" => 2f32.powi(rng.pick(&[-20, -15, -13, -10, -9, -4, 0, 3])),
            _ => match index {
                0 => 1.0 / 3276.8,
                1 => 2f32.powi(-12) * 1.000_1,
                _ => suite::scale(rng),
            },
        };
        let (zi, so) = match options {
            "output scale 2^-14 (refused)" => (0, 2f32.powi(-14)),
            "nonzero zero point (refused)" => (rng.range(-2000, -1), 2f32.powi(-15)),
            _ => (0, 2f32.powi(-15)),
        };
        (DType::Int16, Quant::tensor(si, zi), Quant::tensor(so, 0))
    };
    let x = suite::activation(&mut b, sg, "input", dtype, &shape, Some(&qi));
    let y = suite::activation(&mut b, sg, "output", dtype, &shape, Some(&qo));
    b.op(sg, op, &[x], &[y]);
    b.io(sg, &[x], &[y]);
    let note = format!(
        "shape {shape:?} in q {:?} out q {:?}",
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

/// int16 sets: a sweep over the whole range in steps of 61 (every table segment, both signs),
/// and the values around 0 and the extremes.
pub fn int16_sets(n: usize) -> Vec<Vec<u8>> {
    let mut values: Vec<i64> = (-32768_i64..=32767).step_by(61).collect();
    values.extend(-300..=300);
    values.extend([-32768, -32767, 32766, 32767]);
    (0..values.len().div_ceil(n).min(64))
        .map(|t| {
            let v: Vec<i64> = (0..n).map(|i| values[(t * n + i) % values.len()]).collect();
            suite::int_bytes(DType::Int16, &v)
        })
        .collect()
}
