//! FILL: float32, int32 and int8 values (TFLM's types), the value a model input (a scalar)
//! or a constant, the dims a constant of int32, int64, int16 or int8 (in turn by model),
//! ranks 1 to 5.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Case, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

/// The dims types, one per model in turn.
const DIMS: [DType; 4] = [DType::Int32, DType::Int64, DType::Int16, DType::Int8];

fn build(
    rng: &mut Rng,
    index: usize,
    dtype: DType,
    constant: bool,
) -> (ModelBuilder, usize, String) {
    let rank = 1 + index % 5;
    let shape = suite::shape_within(rng, rank, if constant { 4000 } else { 2000 }, false);
    let op = BuiltinOp::from_name("FILL").expect("FILL");
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let dims_type = DIMS[index % DIMS.len()];
    let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let d = b.constant(
        sg,
        "dims",
        dims_type,
        &[rank as i32],
        &suite::int_bytes(dims_type, &dims),
    );
    let q = (dtype == DType::Int8)
        .then(|| Quant::tensor(suite::scale(rng), suite::zero_point(rng, dtype)));
    let value_note;
    let v = if constant {
        let bytes = if dtype == DType::Float32 {
            let v = suite::F32_SPECIALS[index % suite::F32_SPECIALS.len()];
            value_note = format!("{v:?}");
            suite::f32_bytes(&[v])
        } else {
            let (lo, hi) = suite::int_range(dtype);
            let v = match index % 3 {
                0 => lo,
                1 => hi,
                _ => rng.range(lo, hi),
            };
            value_note = format!("{v}");
            suite::int_bytes(dtype, &[v])
        };
        b.constant(sg, "value", dtype, &[], &bytes)
    } else {
        value_note = "input".to_owned();
        suite::activation(&mut b, sg, "value", dtype, &[], q.as_ref())
    };
    let y = suite::activation(&mut b, sg, "output", dtype, &shape, q.as_ref());
    b.op(sg, op, &[d, v], &[y]);
    if constant {
        b.io(sg, &[], &[y]);
    } else {
        b.io(sg, &[v], &[y]);
    }
    (
        b,
        elements(&shape),
        format!("{shape:?} dims {dims_type} value {value_note}"),
    )
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for (label, dtype) in [
        ("float32", DType::Float32),
        ("int32", DType::Int32),
        ("int8", DType::Int8),
    ] {
        let spec = Spec {
            op: "fill",
            builtin: "FILL",
            types: label.to_owned(),
            options: "value input".to_owned(),
            shape: "any",
        };
        let target = Target {
            values: target.values,
            models: target.models.max(5),
        };
        out.push(suite::fill(seed, spec, target, |rng, index| {
            let (b, n, note) = build(rng, index, dtype, false);
            let input = if dtype == DType::Float32 {
                InputSpec::float(1, 1.0)
            } else {
                InputSpec::int(dtype, 1, 0)
            };
            Some(Draft::new(&b, vec![input], n, note))
        }));
        // A constant value: a model without inputs runs once.
        let key = suite::key("fill", label, "value constant", "any");
        let mut rng = Rng::for_key(seed, &key);
        let mut cases = Vec::new();
        let mut values = 0;
        let mut index = 0;
        while values < target.values || cases.len() < target.models.max(8) {
            let (b, n, note) = build(&mut rng, index, dtype, true);
            cases.push(Case {
                model: b.finish(),
                inputs: vec![Vec::new()],
                output_values: n,
                note,
                overlap: None,
            });
            values += n;
            index += 1;
        }
        out.push(Variant {
            op: "fill",
            builtin: "FILL",
            types: label.to_owned(),
            options: "value constant".to_owned(),
            shape: "any",
            cases,
        });
    }
    out
}
