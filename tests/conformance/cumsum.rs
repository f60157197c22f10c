//! CUMSUM: float32 and int8 (any quantisation whose output multiplier TFLM can make), ranks 1
//! to 4, along an axis at random (negative now and then), inclusive and exclusive, forward and
//! reverse.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::suite::{self, Draft, Quant, Rng, Spec, Target, Variant, elements};

/// The types TFLM's CUMSUM takes.
const TYPES: [(&str, DType); 2] = [("float32", DType::Float32), ("int8", DType::Int8)];

/// The options.
const OPTIONS: [(&str, bool, bool); 4] = [
    ("", false, false),
    ("exclusive", true, false),
    ("reverse", false, true),
    ("exclusive reverse", true, true),
];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(4),
    };
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for (options, exclusive, reverse) in OPTIONS {
            let spec = Spec {
                op: "cumsum",
                builtin: "CUMSUM",
                types: tname.to_owned(),
                options: options.to_owned(),
                shape: "ranks 1 to 4",
            };
            out.push(suite::fill(seed, spec, target, |rng, index| {
                draw(rng, index, dtype, exclusive, reverse)
            }));
        }
    }
    out
}

fn draw(
    rng: &mut Rng,
    index: usize,
    dtype: DType,
    exclusive: bool,
    reverse: bool,
) -> Option<Draft> {
    let rank = 1 + index % 4;
    let wide = rng.chance(0.2);
    let shape = suite::shape_within(rng, rank, 3000, wide);
    let axis = rng.size(0, rank - 1);
    let a = if rng.chance(0.3) {
        axis as i64 - rank as i64
    } else {
        axis as i64
    };
    let op = BuiltinOp::from_name("CUMSUM")?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let (qi, qo) = if dtype == DType::Int8 {
        let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
        // The output multiplier 2 si / (2^20 so) must be below 1: so > si / 2^19.
        let depth = shape[axis] as f64;
        let so = match rng.below(3) {
            0 => f64::from(qi.s()) * depth.sqrt() * f64::from(rng.log_uniform(0.3, 3.0)),
            1 => f64::from(qi.s()) * f64::from(rng.log_uniform(1e-5, 1e3)),
            _ => f64::from(suite::scale(rng)).max(f64::from(qi.s()) * 4e-6),
        };
        (
            Some(qi),
            Some(Quant::tensor(
                so as f32,
                suite::zero_point(rng, DType::Int8),
            )),
        )
    } else {
        (None, None)
    };
    let x = suite::activation(&mut b, sg, "input", dtype, &shape, qi.as_ref());
    let ax = b.constant(
        sg,
        "axis",
        DType::Int32,
        &[],
        &suite::int_bytes(DType::Int32, &[a]),
    );
    let y = suite::activation(&mut b, sg, "output", dtype, &shape, qo.as_ref());
    b.op_with_options(
        sg,
        op,
        &[x, ax],
        &[y],
        OpOptions::Cumsum { exclusive, reverse },
    );
    b.io(sg, &[x], &[y]);
    let note = format!(
        "{shape:?} axis {a} q {:?} -> {:?}",
        qi.as_ref().map(|q| (q.s(), q.z())),
        qo.as_ref().map(|q| (q.s(), q.z()))
    );
    let input = suite::data_input(dtype, elements(&shape), qi.as_ref());
    Some(Draft::new(&b, vec![input], elements(&shape), note))
}
