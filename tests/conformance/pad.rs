//! PAD (two inputs; the pad value is 0, or the output's zero point for int8): int8 and
//! float32, ranks 1 to 5, paddings of zero (all of them, in a model of each variant), small
//! and large ones; int8 outputs quantised as the input or not (TFLM copies the input's values
//! and pads with the output's zero point).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

/// The padding classes.
const CLASSES: [&str; 3] = ["zeros", "small", "large"];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(5),
    };
    let mut out = Vec::new();
    for types in ["int8", "float32"] {
        for class in CLASSES {
            let spec = Spec {
                op: "pad",
                builtin: "PAD",
                types: types.to_owned(),
                options: String::new(),
                shape: class,
            };
            out.push(suite::fill(seed, spec, target, |rng, index| {
                draw(rng, index, types == "int8", class)
            }));
        }
    }
    out
}

fn draw(rng: &mut Rng, index: usize, int8: bool, class: &str) -> Option<Draft> {
    let rank = 1 + index % 5;
    let wide = rng.chance(0.2);
    let ishape = suite::shape_within(rng, rank, 400, wide);
    // One dimension takes the large paddings.
    let big = rng.below(rank as u64) as usize;
    let paddings: Vec<[usize; 2]> = (0..rank)
        .map(|d| {
            let mut p = || match class {
                _ if index == 0 && class == "zeros" => 0,
                "zeros" => rng.pick(&[0, 0, 0, 1]),
                "small" => rng.size(0, 3),
                _ if d == big => rng.pick(&[0, 17, 31, 40]),
                _ => rng.size(0, 2),
            };
            [p(), p()]
        })
        .collect();
    let oshape: Vec<usize> = ishape
        .iter()
        .zip(&paddings)
        .map(|(&i, p)| i + p[0] + p[1])
        .collect();
    if elements(&oshape) > 12_000 {
        return None;
    }
    let op = BuiltinOp::from_name("PAD")?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let pdata: Vec<i64> = paddings
        .iter()
        .flatten()
        .map(|&p| i64::try_from(p).unwrap_or(0))
        .collect();
    let (n, no) = (elements(&ishape), elements(&oshape));
    let (x, y, input, quant) = if int8 {
        let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
        let qo = if rng.chance(0.7) {
            qi.clone()
        } else {
            Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8))
        };
        let x = suite::activation(&mut b, sg, "input", DType::Int8, &ishape, Some(&qi));
        let y = suite::activation(&mut b, sg, "output", DType::Int8, &oshape, Some(&qo));
        let quant = format!(" in q {:?} out q {:?}", (qi.s(), qi.z()), (qo.s(), qo.z()));
        (x, y, InputSpec::int(DType::Int8, n, qi.z()), quant)
    } else {
        let x = suite::activation(&mut b, sg, "input", DType::Float32, &ishape, None);
        let y = suite::activation(&mut b, sg, "output", DType::Float32, &oshape, None);
        (x, y, InputSpec::float(n, 1.0), String::new())
    };
    let p = b.constant(
        sg,
        "paddings",
        DType::Int32,
        &suite::dims(&[rank, 2]),
        &suite::int_bytes(DType::Int32, &pdata),
    );
    b.op(sg, op, &[x, p], &[y]);
    b.io(sg, &[x], &[y]);
    let note = format!("in {ishape:?} paddings {paddings:?} out {oshape:?}{quant}");
    Some(Draft::new(&b, vec![input], no, note))
}

/// PAD of int16 and int32 (padding with 0), and PADV2 of every type TFLM's PAD takes with the
/// padding value a constant (of the output's quantisation for int8) or a model input.
pub fn more_variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(5),
    };
    let mut out = Vec::new();
    let cases: [(&str, &str, DType); 6] = [
        ("PAD", "int16", DType::Int16),
        ("PAD", "int32", DType::Int32),
        ("PADV2", "float32", DType::Float32),
        ("PADV2", "int8", DType::Int8),
        ("PADV2", "int16", DType::Int16),
        ("PADV2", "int32", DType::Int32),
    ];
    for (builtin, types, dtype) in cases {
        for class in ["small", "large"] {
            let spec = Spec {
                op: "pad",
                builtin,
                types: types.to_owned(),
                options: if builtin == "PADV2" {
                    "PADV2".to_owned()
                } else {
                    String::new()
                },
                shape: class,
            };
            out.push(suite::fill(seed, spec, target, |rng, index| {
                draw_more(rng, index, builtin, dtype, class)
            }));
        }
    }
    out
}

fn draw_more(
    rng: &mut Rng,
    index: usize,
    builtin: &str,
    dtype: DType,
    class: &str,
) -> Option<Draft> {
    let rank = 1 + index % 5;
    let wide = rng.chance(0.2);
    let ishape = suite::shape_within(rng, rank, 400, wide);
    let big = rng.below(rank as u64) as usize;
    let paddings: Vec<[usize; 2]> = (0..rank)
        .map(|d| {
            let mut p = || match class {
                _ if index == 0 && class == "zeros" => 0,
                "zeros" => rng.pick(&[0, 0, 0, 1]),
                "small" => rng.size(0, 3),
                _ if d == big => rng.pick(&[0, 17, 31, 40]),
                _ => rng.size(0, 2),
            };
            [p(), p()]
        })
        .collect();
    let oshape: Vec<usize> = ishape
        .iter()
        .zip(&paddings)
        .map(|(&i, p)| i + p[0] + p[1])
        .collect();
    if elements(&oshape) > 12_000 {
        return None;
    }
    let op = BuiltinOp::from_name(builtin)?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &ishape, q.as_ref());
    let y = suite::data_tensor(&mut b, sg, "output", dtype, &oshape, q.as_ref());
    let pdata: Vec<i64> = paddings.iter().flatten().map(|&p| p as i64).collect();
    let p = b.constant(
        sg,
        "paddings",
        DType::Int32,
        &suite::dims(&[rank, 2]),
        &suite::int_bytes(DType::Int32, &pdata),
    );
    let mut inputs = vec![suite::data_input(dtype, elements(&ishape), q.as_ref())];
    let mut note = format!("in {ishape:?} paddings {paddings:?} out {oshape:?}");
    if builtin == "PAD" {
        b.op(sg, op, &[x, p], &[y]);
        b.io(sg, &[x], &[y]);
    } else {
        let runtime = index % 3 == 2;
        let v = if runtime {
            note += " value (input)";
            match &q {
                Some(q) => b.quantized(sg, "value", dtype, &[], q.spec()),
                None => b.tensor(sg, "value", dtype, &[]),
            }
        } else {
            let bytes = if dtype == DType::Float32 {
                let v = rng.pick(&[0.0_f32, -1.5, 3.25e7, f32::NAN, f32::NEG_INFINITY, -0.0]);
                note += &format!(" value {v}");
                suite::f32_bytes(&[v])
            } else {
                let (lo, hi) = suite::int_range(dtype);
                let v = rng.range(lo, hi);
                note += &format!(" value {v}");
                suite::int_bytes(dtype, &[v])
            };
            match &q {
                Some(q) => b.quantized_constant(sg, "value", dtype, &[], q.spec(), &bytes),
                None => b.constant(sg, "value", dtype, &[], &bytes),
            }
        };
        b.op(sg, op, &[x, p, v], &[y]);
        if runtime {
            b.io(sg, &[x, v], &[y]);
            inputs.push(suite::data_input(dtype, 1, q.as_ref()));
        } else {
            b.io(sg, &[x], &[y]);
        }
    }
    Some(Draft::new(&b, inputs, elements(&oshape), note))
}
