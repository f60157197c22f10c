//! ARG_MAX and ARG_MIN: float32 (with NaN, infinities and ties among the special sets) and int8
//! inputs of rank 1 to 4 along an axis at random (negative now and then), int32 output.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::suite::{self, Draft, Rng, Spec, Target, Variant, elements};

/// The input types TFLM's ARG_MAX and ARG_MIN take.
const TYPES: [(&str, DType); 2] = [
    ("float32->int32", DType::Float32),
    ("int8->int32", DType::Int8),
];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(4),
    };
    let mut out = Vec::new();
    for builtin in ["ARG_MAX", "ARG_MIN"] {
        for (tname, dtype) in TYPES {
            let spec = Spec {
                op: "arg_min_max",
                builtin,
                types: tname.to_owned(),
                options: builtin.to_owned(),
                shape: "ranks 1 to 4",
            };
            out.push(suite::fill_with_sets(seed, spec, target, |rng, index| {
                draw(rng, index, builtin, dtype, DType::Int32)
            }));
        }
        // int64 output: TFLM's Eval refuses it (arg_min_max.cc:69-89), and so does stowplan.
        let spec = Spec {
            op: "arg_min_max",
            builtin,
            types: "float32->int64".to_owned(),
            options: builtin.to_owned(),
            shape: "refused",
        };
        let few = Target {
            values: 0,
            models: 3,
        };
        out.push(suite::fill_with_sets(seed, spec, few, |rng, index| {
            draw(rng, index, builtin, DType::Float32, DType::Int64)
        }));
    }
    out
}

fn draw(
    rng: &mut Rng,
    index: usize,
    builtin: &str,
    dtype: DType,
    out_type: DType,
) -> Option<(Draft, Vec<Vec<u8>>)> {
    let rank = 1 + index % 4;
    let wide = rng.chance(0.2);
    let shape = suite::shape_within(rng, rank, 3000, wide);
    let axis = rng.size(0, rank - 1);
    let a = if rng.chance(0.3) {
        axis as i64 - rank as i64
    } else {
        axis as i64
    };
    let mut oshape = shape.clone();
    oshape.remove(axis);
    let op = BuiltinOp::from_name(builtin)?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &shape, q.as_ref());
    let ax = b.constant(
        sg,
        "axis",
        DType::Int32,
        &[1],
        &suite::int_bytes(DType::Int32, &[a]),
    );
    let y = b.tensor(sg, "output", out_type, &suite::dims(&oshape));
    let options = if builtin == "ARG_MAX" {
        OpOptions::ArgMax {
            output_type: out_type,
        }
    } else {
        OpOptions::ArgMin {
            output_type: out_type,
        }
    };
    b.op_with_options(sg, op, &[x, ax], &[y], options);
    b.io(sg, &[x], &[y]);
    let n = elements(&shape);
    // Special sets: every float special value in turn; int8 values with many ties.
    let sets: Vec<Vec<u8>> = (0..4)
        .map(|k| {
            if dtype == DType::Float32 {
                suite::cycle_f32(n, &suite::F32_SPECIALS, k * 5)
            } else {
                suite::cycle_i8(n, k * 37, 1 + 64 * k)
            }
        })
        .collect();
    let note = format!("{shape:?} axis {a}");
    let input = suite::data_input(dtype, n, q.as_ref());
    Some((
        Draft::new(&b, vec![input], elements(&oshape).max(1), note),
        sets,
    ))
}
