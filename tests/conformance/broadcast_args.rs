//! BROADCAST_ARGS: int32 and int64 shapes, both model inputs (each dimension 1 in one of them,
//! or equal), or one a constant; outputs longer than both now and then (leading 1s).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Bounds, Draft, InputSpec, Rng, Spec, Target, Variant};

/// The types TFLM's BROADCAST_ARGS takes.
const TYPES: [(&str, DType); 2] = [("int32", DType::Int32), ("int64", DType::Int64)];

/// The classes.
const CLASSES: [&str; 2] = ["two inputs", "one constant"];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(4),
    };
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for class in CLASSES {
            let spec = Spec {
                op: "broadcast_args",
                builtin: "BROADCAST_ARGS",
                types: tname.to_owned(),
                options: String::new(),
                shape: class,
            };
            out.push(suite::fill_bounded(seed, spec, target, |rng, _| {
                draw(rng, dtype, class)
            }));
        }
    }
    out
}

fn draw(rng: &mut Rng, dtype: DType, class: &str) -> Option<(Draft, Vec<Bounds>)> {
    let (n1, n2) = (rng.size(1, 6), rng.size(1, 6));
    let n = n1.max(n2) + if rng.chance(0.3) { rng.size(1, 2) } else { 0 };
    // Each aligned dimension: one shape fixed at 1 and the other anywhere from 1 up, or both
    // the same value.
    let big = if dtype == DType::Int64 {
        i64::MAX
    } else {
        i64::from(i32::MAX)
    };
    let mut b1: Bounds = vec![(1, 1); n1];
    let mut b2: Bounds = vec![(1, 1); n2];
    for i in 0..n1.min(n2) {
        let (j1, j2) = (n1 - 1 - i, n2 - 1 - i);
        match rng.below(3) {
            0 => b2[j2] = (1, big),
            1 => b1[j1] = (1, big),
            _ => {
                let v = rng.range(1, 1000);
                b1[j1] = (v, v);
                b2[j2] = (v, v);
            }
        }
    }
    for i in n1.min(n2)..n1 {
        b1[n1 - 1 - i] = (1, big);
    }
    for i in n1.min(n2)..n2 {
        b2[n2 - 1 - i] = (1, big);
    }
    let op = BuiltinOp::from_name("BROADCAST_ARGS")?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let constant = class == "one constant";
    let s1 = b.tensor(sg, "shape1", dtype, &[n1 as i32]);
    let s2 = if constant {
        let v: Vec<i64> = b2
            .iter()
            .map(|&(lo, hi)| {
                if lo == hi {
                    lo
                } else {
                    rng.range(lo, hi.min(99))
                }
            })
            .collect();
        b.constant(
            sg,
            "shape2",
            dtype,
            &[n2 as i32],
            &suite::int_bytes(dtype, &v),
        )
    } else {
        b.tensor(sg, "shape2", dtype, &[n2 as i32])
    };
    let y = b.tensor(sg, "output", dtype, &[n as i32]);
    b.op(sg, op, &[s1, s2], &[y]);
    let mut inputs = vec![InputSpec::int(dtype, n1, 1)];
    let mut bounds = vec![b1.clone()];
    if constant {
        b.io(sg, &[s1], &[y]);
    } else {
        b.io(sg, &[s1, s2], &[y]);
        inputs.push(InputSpec::int(dtype, n2, 1));
        bounds.push(b2.clone());
    }
    let note = format!("shapes of {n1} {b1:?} and {n2} {b2:?} -> {n}");
    Some((Draft::new(&b, inputs, n, note), bounds))
}
