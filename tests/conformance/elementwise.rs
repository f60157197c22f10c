//! ABS, SIN, COS, LOG, SQRT, RSQRT and SQUARE (TFLM's `elementwise.cc`): float32 over ranks 1
//! to 6 with the suite's magnitudes and each function's special values (range-reduction edges
//! of sine and cosine, the ends of LOG's and SQRT's domains, subnormals, NaN, infinities); ABS
//! int8 with equal scales (no requantisation) and any, int16 quantised (zero points 0) and
//! without quantisation; RSQRT int8 (inputs at or above the zero point: TFLM's Eval fails
//! below it), and RSQRT int16, which TFLM's Prepare refuses.
//!
//! The helpers here ([`float_unary`], [`float_draw`]) serve the other float elementwise ops'
//! variants (NEG, CEIL, FLOOR, ROUND, EXP, ...).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::quantize::{SHAPES, shape, special_sets};
use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for builtin in ["ABS", "SIN", "COS", "LOG", "SQRT", "RSQRT", "SQUARE"] {
        out.extend(float_unary(
            seed,
            target,
            "elementwise",
            builtin,
            &specials(builtin),
        ));
    }
    let target = Target {
        values: target.values,
        models: target.models.max(6),
    };
    for (builtin, types, options) in [
        ("ABS", "int8", "same scale"),
        ("ABS", "int8", "rescaled"),
        ("ABS", "int16", "quantised"),
        ("ABS", "int16", "no quantisation"),
        ("RSQRT", "int8", "at or above the zero point"),
        ("RSQRT", "int16", "refused"),
        ("ABS", "int16", "nonzero zero point (refused)"),
    ] {
        for class in SHAPES {
            let spec = Spec {
                op: "elementwise",
                builtin,
                types: types.to_owned(),
                options: options.to_owned(),
                shape: class,
            };
            let mut floors = Vec::new();
            let mut v = suite::fill_with_sets(seed, spec, target, |rng, index| {
                let (draft, sets, floor) = draw_int(rng, index, builtin, types, options, class)?;
                floors.push(floor);
                Some((draft, sets))
            });
            // RSQRT: every input at or above the zero point (TFLM's Eval fails below it).
            for (case, floor) in v.cases.iter_mut().zip(floors) {
                if let Some(z) = floor {
                    for set in &mut case.inputs {
                        for b in set.iter_mut() {
                            *b = (*b as i8).max(z) as u8;
                        }
                    }
                }
            }
            out.push(v);
        }
    }
    out
}

/// Float specials for `builtin`: the suite's, and the edges of the function.
pub fn specials(builtin: &str) -> Vec<f32> {
    let mut v = suite::F32_SPECIALS.to_vec();
    let pi = std::f64::consts::PI;
    let extra: Vec<f64> = match builtin {
        "SIN" | "COS" => {
            let mut e: Vec<f64> = (-16..=16).map(|k| f64::from(k) * pi / 4.0).collect();
            e.extend([
                // pi/4 as f32 (the end of the polynomial range) and the float below.
                f64::from(f32::from_bits(0x3f49_0fdb)),
                f64::from(f32::from_bits(0x3f49_0fda)),
                119.999_99,
                120.0,
                120.000_01,
                2.441_406_3e-4,
                2.441_406e-4,
                1e4,
                1e6,
                1e10,
                1e20,
                1e30,
                3.4e38,
                -1e30,
                102_940.55,
            ]);
            e
        }
        "LOG" => vec![
            0.999_999_94,
            1.000_000_1,
            1e-45,
            1e-40,
            1.2e-38,
            0.7,
            1.4,
            -1e-45,
            std::f64::consts::E,
            1e30,
        ],
        "EXP" => vec![
            88.722_83,
            88.722_84,
            88.7,
            -87.336_54,
            -103.972_08,
            -103.972_09,
            -100.0,
            -150.0,
            1e-10,
            -1e-10,
            20.0,
        ],
        "SQRT" | "RSQRT" => vec![4.0, 2.0, 1e-45, 1e-40, 1e38, -4.0, 0.25],
        _ => vec![
            0.25,
            0.75,
            2.5,
            -3.5,
            4_194_304.5,
            8_388_608.0,
            16_777_215.0,
        ],
    };
    v.extend(extra.iter().map(|&x| x as f32));
    v.extend(extra.iter().map(|&x| -x as f32));
    // NaNs of both signs, signalling and with payloads: what comes back is the x86-64 bits.
    v.extend(
        [
            0x7f80_0001,
            0xff80_0001,
            0xffc0_0000,
            0x7fc1_2345,
            0xffbf_ffff,
        ]
        .map(f32::from_bits),
    );
    v
}

/// One float32 variant per shape class for `builtin` (module `op`), each model on the suite's
/// random and edge sets and on `specials`.
pub fn float_unary(
    seed: u64,
    target: Target,
    op: &'static str,
    builtin: &'static str,
    specials: &[f32],
) -> Vec<Variant> {
    float_unary_with(seed, target, op, builtin, specials, "", |_| OpOptions::None)
}

/// [`float_unary`] with options drawn for each model by `options`, named `label`.
pub fn float_unary_with(
    seed: u64,
    target: Target,
    op: &'static str,
    builtin: &'static str,
    specials: &[f32],
    label: &str,
    options: impl Fn(&mut Rng) -> OpOptions + Copy,
) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(6),
    };
    SHAPES
        .iter()
        .map(|&class| {
            let spec = Spec {
                op,
                builtin,
                types: "float32".to_owned(),
                options: label.to_owned(),
                shape: class,
            };
            suite::fill_with_sets(seed, spec, target, |rng, index| {
                let o = options(rng);
                float_draw(rng, index, builtin, class, specials, o)
            })
        })
        .collect()
}

/// A float32 model of one `builtin` op of shape class `class` with options `options`, and
/// its special sets.
pub fn float_draw(
    rng: &mut Rng,
    index: usize,
    builtin: &str,
    class: &str,
    specials: &[f32],
    options: OpOptions,
) -> Option<(Draft, Vec<Vec<u8>>)> {
    let shape = shape(rng, index, class);
    let n = elements(&shape);
    let op = BuiltinOp::from_name(builtin)?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let magnitude = match index {
        0 => 1.0,
        1 => 1e36,
        2 => 1e-3,
        _ => rng.pick(&[1.0, 3.0, 10.0, 100.0, 1e-3, 1e20]),
    };
    let x = suite::activation(&mut b, sg, "input", DType::Float32, &shape, None);
    let y = suite::activation(&mut b, sg, "output", DType::Float32, &shape, None);
    let note = format!("shape {shape:?} magnitude {magnitude:e} options {options:?}");
    b.op_with_options(sg, op, &[x], &[y], options);
    b.io(sg, &[x], &[y]);
    Some((
        Draft::new(&b, vec![InputSpec::float(n, magnitude)], n, note),
        special_sets(n, specials),
    ))
}

/// An integer model; its special sets; for RSQRT the input zero point (inputs are raised to
/// it).
#[allow(clippy::type_complexity)]
fn draw_int(
    rng: &mut Rng,
    index: usize,
    builtin: &str,
    types: &str,
    options: &str,
    class: &str,
) -> Option<(Draft, Vec<Vec<u8>>, Option<i8>)> {
    let shape = shape(rng, index, class);
    let n = elements(&shape);
    let op = BuiltinOp::from_name(builtin)?;
    let dtype = if types == "int8" {
        DType::Int8
    } else {
        DType::Int16
    };
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let (qi, qo) = match (types, options) {
        ("int16", "no quantisation") => (None, None),
        ("int16", "nonzero zero point (refused)") => (
            Some(Quant::tensor(suite::scale(rng), rng.range(1, 2000))),
            Some(Quant::tensor(suite::scale(rng), 0)),
        ),
        ("int16", _) => (
            Some(Quant::tensor(suite::scale(rng), 0)),
            Some(Quant::tensor(suite::scale(rng), 0)),
        ),
        (_, "same scale") => {
            let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, dtype));
            let qo = Quant::tensor(qi.s(), suite::zero_point(rng, dtype));
            (Some(qi), Some(qo))
        }
        _ => {
            let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, dtype));
            let qo = if index == 0 && builtin == "ABS" {
                // Scales whose quotient in float and in double give different multipliers
                // (the RELU pair of activations.rs): the pinned wheel divides in double.
                Quant::tensor(0.024_515_787, -128)
            } else {
                Quant::tensor(suite::scale(rng), suite::zero_point(rng, dtype))
            };
            let qi = if index == 0 && builtin == "ABS" {
                Quant::tensor(0.027_530_024, -128)
            } else {
                qi
            };
            (Some(qi), Some(qo))
        }
    };
    let x = suite::activation(&mut b, sg, "input", dtype, &shape, qi.as_ref());
    let y = suite::activation(&mut b, sg, "output", dtype, &shape, qo.as_ref());
    b.op(sg, op, &[x], &[y]);
    b.io(sg, &[x], &[y]);
    let q = |q: &Option<Quant>| q.as_ref().map(|q| (q.s(), q.z()));
    let note = format!("shape {shape:?} in q {:?} out q {:?}", q(&qi), q(&qo));
    let zi = qi.as_ref().map_or(0, Quant::z);
    let sets = if dtype == DType::Int8 {
        special_sets(n, &[])
    } else {
        // Every int16 value at the edges: the extremes, around zero, powers of two.
        let values: Vec<i64> = [
            -32768, -32767, -16384, -256, -2, -1, 0, 1, 2, 255, 16384, 32767,
        ]
        .into_iter()
        .collect();
        vec![suite::int_bytes(
            dtype,
            &(0..n).map(|i| values[i % values.len()]).collect::<Vec<_>>(),
        )]
    };
    let floor = (builtin == "RSQRT" && dtype == DType::Int8).then_some(zi as i8);
    Some((
        Draft::new(&b, vec![InputSpec::int(dtype, n, zi)], n, note),
        sets,
        floor,
    ))
}
