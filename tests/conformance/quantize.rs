//! QUANTIZE: float32 to int8 (inputs of typical magnitude, and ones so large that they
//! saturate, overflow int32 in the conversion or are infinite) and int8 to int8
//! (requantisation, with the same scale or any), over ranks 1 to 6, scales and zero points
//! over the whole range.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

/// The shape classes: a few elements, or up to a few thousand (with large channel counts).
pub const SHAPES: [&str; 2] = ["small", "large"];

/// An elementwise op's shape for class `class`, model `index`: ranks 1 to 6 in turn.
pub fn shape(rng: &mut Rng, index: usize, class: &str) -> Vec<usize> {
    let rank = 1 + index % 6;
    if class == "small" {
        suite::shape_within(rng, rank, 30, false)
    } else {
        let wide = rng.chance(0.3);
        suite::shape_within(rng, rank, 3000, wide)
    }
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(6),
    };
    let mut out = Vec::new();
    for (types, options) in [
        ("float32->int8", "typical"),
        ("float32->int8", "saturating"),
        ("int8->int8", "same scale"),
        ("int8->int8", "any scales"),
    ] {
        for class in SHAPES {
            let spec = Spec {
                op: "quantize",
                builtin: "QUANTIZE",
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
    let shape = shape(rng, index, class);
    let n = elements(&shape);
    let op = BuiltinOp::from_name("QUANTIZE")?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let qo = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
    let y = suite::activation(&mut b, sg, "output", DType::Int8, &shape, Some(&qo));
    let (x, input, note) = if types.starts_with("float32") {
        let s = f64::from(qo.s());
        // Typical: values over tens to hundreds of steps (the edge sets, 1000 times the
        // magnitude, saturate). Saturating: far beyond the int8 range, beyond the int32 range
        // after the division (x86 converts those to INT32_MIN), or infinite.
        let magnitude = if options == "typical" {
            s * f64::from(rng.log_uniform(5.0, 200.0))
        } else {
            match index {
                1 => 1e36,
                2 => s * 1e7,
                _ => s * f64::from(rng.log_uniform(1e3, 1e9)),
            }
        };
        let x = suite::activation(&mut b, sg, "input", DType::Float32, &shape, None);
        let note = format!(
            "shape {shape:?} out q {:?} input magnitude {magnitude:e}",
            (qo.s(), qo.z())
        );
        (x, InputSpec::float(n, magnitude), note)
    } else {
        let qi = if options == "same scale" {
            Quant::tensor(qo.s(), suite::zero_point(rng, DType::Int8))
        } else {
            Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8))
        };
        let x = suite::activation(&mut b, sg, "input", DType::Int8, &shape, Some(&qi));
        let note = format!(
            "shape {shape:?} in q {:?} out q {:?}",
            (qi.s(), qi.z()),
            (qo.s(), qo.z())
        );
        (x, InputSpec::int(DType::Int8, n, qi.z()), note)
    };
    b.op(sg, op, &[x], &[y]);
    b.io(sg, &[x], &[y]);
    let values = if types.starts_with("float32") {
        float_specials(qo.s())
    } else {
        Vec::new()
    };
    let sets = special_sets(n, &values);
    Some((Draft::new(&b, vec![input], n, note), sets))
}

/// Floats for a QUANTIZE of scale `s`: [`suite::F32_SPECIALS`], then every step `k s` and tie
/// `(k + 1/2) s` around the int8 range, and quotients next to 2^23 (where `round` stops
/// mattering) and 2^31 (where the conversion to int32 overflows).
pub fn float_specials(s: f32) -> Vec<f32> {
    let mut v = suite::F32_SPECIALS.to_vec();
    let s = f64::from(s);
    for k in -300..300 {
        v.push((f64::from(k) * s) as f32);
        v.push(((f64::from(k) + 0.5) * s) as f32);
    }
    for q in [
        8_388_607.5,
        8_388_608.0,
        2_147_483_520.0,
        2_147_483_648.0,
        3e9,
        1e30,
    ] {
        v.push((q * s) as f32);
        v.push((-q * s) as f32);
    }
    v
}

/// Sets of `n` elements: floats cycling through `values` until each came once, or (no
/// values) int8 cycling through every value.
pub fn special_sets(n: usize, values: &[f32]) -> Vec<Vec<u8>> {
    if values.is_empty() {
        (0..256_usize.div_ceil(n))
            .map(|t| suite::cycle_i8(n, t * n, 1))
            .collect()
    } else {
        (0..values.len().div_ceil(n).min(64))
            .map(|t| suite::cycle_f32(n, values, t * n))
            .collect()
    }
}
