//! QUANTIZE: float32 to int8 and int16 (inputs of typical magnitude, and ones so large that
//! they saturate, overflow int32 in the conversion or are infinite) and every integer pairing
//! TFLM's kernel takes (requantisation: int8 to int8, uint8, int16, int32; uint8 to int8;
//! int16 to int8, int16, int32; int32 to int8, int16; with the same scale, scales apart and,
//! for int8 and uint8, zero points 128 apart), over ranks 1 to 6, scales and zero points over
//! the whole range.

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

/// The pairings and the options each is drawn with.
const PAIRINGS: [(&str, &str); 18] = [
    ("float32->int8", "typical"),
    ("float32->int8", "saturating"),
    ("int8->int8", "same scale"),
    ("int8->int8", "any scales"),
    ("float32->int16", "typical"),
    ("float32->int16", "saturating"),
    ("int8->uint8", "shift 128"),
    ("int8->uint8", "any scales"),
    ("uint8->int8", "shift 128"),
    ("uint8->int8", "any scales"),
    ("int8->int16", "any scales"),
    ("int8->int32", "any scales"),
    ("int16->int8", "any scales"),
    ("int16->int16", "same scale"),
    ("int16->int16", "any scales"),
    ("int16->int32", "any scales"),
    ("int32->int8", "any scales"),
    ("int32->int16", "any scales"),
];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(6),
    };
    let mut out = Vec::new();
    for (types, options) in PAIRINGS {
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
    // Pairings TFLM's Prepare accepts and its Eval has no kernel for: both must refuse.
    for types in [
        "float32->uint8",
        "float32->int32",
        "uint8->uint8",
        "int32->int32",
    ] {
        let spec = Spec {
            op: "quantize",
            builtin: "QUANTIZE",
            types: types.to_owned(),
            options: "no kernel in TFLM".to_owned(),
            shape: "small",
        };
        let target = Target {
            values: 1,
            models: 3,
        };
        out.push(suite::fill_with_sets(seed, spec, target, |rng, index| {
            draw(rng, index, types, "any scales", "small")
        }));
    }
    out
}

/// A type's name in a variant's types.
pub fn dtype_of(name: &str) -> Option<DType> {
    Some(match name {
        "float32" => DType::Float32,
        "int8" => DType::Int8,
        "uint8" => DType::Uint8,
        "int16" => DType::Int16,
        "int32" => DType::Int32,
        _ => return None,
    })
}

/// A zero point of `dtype` for QUANTIZE's tensors: over the whole range, but never int32's
/// minimum for an input (whose negation, TFLM's input offset, overflows).
fn quantize_zero_point(rng: &mut Rng, dtype: DType) -> i64 {
    if dtype == DType::Int32 {
        match rng.below(4) {
            0 | 1 => 0,
            2 => rng.range(-(1 << 20), 1 << 20),
            _ => rng.range(-i64::from(i32::MAX), i64::from(i32::MAX)),
        }
    } else {
        suite::zero_point(rng, dtype)
    }
}

fn draw(
    rng: &mut Rng,
    index: usize,
    types: &str,
    options: &str,
    class: &str,
) -> Option<(Draft, Vec<Vec<u8>>)> {
    let (from, to) = types.split_once("->")?;
    let (from, to) = (dtype_of(from)?, dtype_of(to)?);
    let shape = shape(rng, index, class);
    let n = elements(&shape);
    let op = BuiltinOp::from_name("QUANTIZE")?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let qo = Quant::tensor(suite::scale(rng), quantize_zero_point(rng, to));
    let y = suite::activation(&mut b, sg, "output", to, &shape, Some(&qo));
    let (x, input, note) = if from == DType::Float32 {
        let s = f64::from(qo.s());
        // Typical: values over tens to hundreds of steps (the edge sets, 1000 times the
        // magnitude, saturate). Saturating: far beyond the output's range, beyond the int32
        // range after the division (x86 converts those to INT32_MIN), or infinite.
        let steps = if to == DType::Int16 { 256.0 } else { 1.0 };
        let magnitude = if options == "typical" {
            s * steps * f64::from(rng.log_uniform(5.0, 200.0))
        } else {
            match index {
                1 => 1e36,
                2 => s * 1e7,
                _ => s * steps * f64::from(rng.log_uniform(1e3, 1e9)),
            }
        };
        let x = suite::activation(&mut b, sg, "input", DType::Float32, &shape, None);
        let note = format!(
            "shape {shape:?} out q {:?} input magnitude {magnitude:e}",
            (qo.s(), qo.z())
        );
        (x, InputSpec::float(n, magnitude), note)
    } else {
        let qi = match options {
            "same scale" => Quant::tensor(qo.s(), quantize_zero_point(rng, from)),
            // TFLM's fast path: int8 <-> uint8 at the same scale, zero points 128 apart.
            "shift 128" => Quant::tensor(
                qo.s(),
                qo.z() + if from == DType::Int8 { -128 } else { 128 },
            ),
            _ => Quant::tensor(suite::scale(rng), quantize_zero_point(rng, from)),
        };
        let (lo, hi) = suite::int_range(from);
        if qi.z() < lo || qi.z() > hi {
            return None;
        }
        let x = suite::activation(&mut b, sg, "input", from, &shape, Some(&qi));
        let note = format!(
            "shape {shape:?} in q {:?} out q {:?}",
            (qi.s(), qi.z()),
            (qo.s(), qo.z())
        );
        (x, InputSpec::int(from, n, qi.z()), note)
    };
    b.op(sg, op, &[x], &[y]);
    b.io(sg, &[x], &[y]);
    let sets = if from == DType::Float32 {
        let mut values = float_specials(qo.s());
        if to == DType::Int16 {
            let s = f64::from(qo.s());
            for k in [
                -32769.0, -32768.5, -32768.0, -32767.5, 32766.5, 32767.0, 32767.5, 32768.0,
            ] {
                values.push((k * s) as f32);
            }
        }
        special_sets(n, &values)
    } else {
        integer_sets(from, n)
    };
    Some((Draft::new(&b, vec![input], n, note), sets))
}

/// Sets of `n` integers of `dtype` that together hold: for int8 and uint8 every value; for
/// int16 values 257 apart over the whole range and both ends; for int32 its ends, 0 and small
/// values, and values around 2^24 and 2^31.
pub fn integer_sets(dtype: DType, n: usize) -> Vec<Vec<u8>> {
    let values: Vec<i64> = match dtype {
        DType::Int8 => return special_sets(n, &[]),
        DType::Uint8 => (0..256).collect(),
        DType::Int16 => (0..256)
            .map(|i| i * 257 - 32768)
            .chain([-32768, -32767, -1, 0, 1, 32766, 32767])
            .collect(),
        _ => [
            i64::from(i32::MIN),
            i64::from(i32::MIN) + 1,
            -(1 << 24) - 1,
            -1,
            0,
            1,
            127,
            128,
            (1 << 24) + 1,
            i64::from(i32::MAX) - 1,
            i64::from(i32::MAX),
        ]
        .to_vec(),
    };
    (0..values.len().div_ceil(n).min(64))
        .map(|t| {
            let set: Vec<i64> = (0..n).map(|i| values[(i + t * n) % values.len()]).collect();
            suite::int_bytes(dtype, &set)
        })
        .collect()
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
