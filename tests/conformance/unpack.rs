//! UNPACK: float32, int32, int16 and int8; inputs of rank 1 to 4 unpacked along the first axis,
//! the last, or one between (negative now and then), into 1 to 5 outputs.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::suite::{self, Draft, Rng, Spec, Target, Variant, elements};

/// The types TFLM's UNPACK takes (unpack.cc:79-99).
const TYPES: [(&str, DType); 4] = [
    ("float32", DType::Float32),
    ("int32", DType::Int32),
    ("int16", DType::Int16),
    ("int8", DType::Int8),
];

/// Which axis.
const AXES: [&str; 2] = ["first or last axis", "inner axis"];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(4),
    };
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for axes in AXES {
            let spec = Spec {
                op: "unpack",
                builtin: "UNPACK",
                types: tname.to_owned(),
                options: String::new(),
                shape: axes,
            };
            out.push(suite::fill(seed, spec, target, |rng, index| {
                draw(rng, index, dtype, axes)
            }));
        }
    }
    out
}

fn draw(rng: &mut Rng, index: usize, dtype: DType, axes: &str) -> Option<Draft> {
    let rank = match axes {
        "inner axis" => 3 + index % 2,
        _ => 1 + index % 4,
    };
    let n = rng.size(1, 5);
    let mut ishape = {
        let wide = rng.chance(0.2);
        suite::shape_within(rng, rank, 2000, wide)
    };
    let axis = match axes {
        "first or last axis" if index.is_multiple_of(2) => 0,
        "first or last axis" => rank - 1,
        _ => rng.size(1, rank - 2),
    };
    ishape[axis] = n;
    let mut oshape = ishape.clone();
    oshape.remove(axis);
    let a = if rng.chance(0.3) {
        axis as i32 - rank as i32
    } else {
        axis as i32
    };
    let op = BuiltinOp::from_name("UNPACK")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &ishape, q.as_ref());
    let ys: Vec<i32> = (0..n)
        .map(|i| {
            suite::data_tensor(
                &mut b,
                sg,
                &format!("output{i}"),
                dtype,
                &oshape,
                q.as_ref(),
            )
        })
        .collect();
    b.op_with_options(
        sg,
        op,
        &[x],
        &ys,
        OpOptions::Unpack {
            num: n as i32,
            axis: a,
        },
    );
    b.io(sg, &[x], &ys);
    let note = format!("{ishape:?} along axis {a} into {n} of {oshape:?}");
    let input = suite::data_input(dtype, elements(&ishape), q.as_ref());
    Some(Draft::new(&b, vec![input], elements(&ishape), note))
}
