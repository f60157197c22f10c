//! SELECT_V2 (this file is `select_v2`, not `select` as the kernel module: a `select.py` would
//! shadow Python's own `select` module for run.py): float32, int8 and int16 (TFLM's types), a bool condition; three shape classes:
//! all shapes equal, every tensor of one element in ranks that differ (TFLM's "mixed scalar"
//! path), and three-way broadcasts (each input's dimensions the output's or 1, leading 1s
//! dropped now and then) over ranks 1 to 6.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

/// The shape classes.
const CLASSES: [&str; 3] = ["same", "scalars", "broadcast"];

fn shapes(rng: &mut Rng, index: usize, class: &str) -> [Vec<usize>; 4] {
    match class {
        "same" => {
            let wide = rng.chance(0.2);
            let s = suite::shape_within(rng, 1 + index % 6, 3000, wide);
            [s.clone(), s.clone(), s.clone(), s]
        }
        "scalars" => {
            let mut ones = || vec![1; rng.size(0, 3)];
            let (c, x, y) = (ones(), ones(), ones());
            let o = vec![1; c.len().max(x.len()).max(y.len())];
            [c, x, y, o]
        }
        _ => {
            let rank = 1 + index % 6;
            let mut o: Vec<usize> = (0..rank)
                .map(|_| match rng.below(6) {
                    0 => 1,
                    _ => rng.size(2, 7),
                })
                .collect();
            while elements(&o) > 3000 {
                if let Some(d) = o.iter_mut().max() {
                    *d = (*d / 2).max(1);
                }
            }
            let mut input = || {
                let mut s: Vec<usize> = o
                    .iter()
                    .map(|&d| if rng.chance(0.4) { 1 } else { d })
                    .collect();
                if rng.chance(0.3) {
                    let lead = s.iter().take_while(|&&d| d == 1).count();
                    let drop = rng.size(0, lead);
                    s.drain(..drop);
                }
                s
            };
            let (c, x, y) = (input(), input(), input());
            [c, x, y, o]
        }
    }
}

fn draw(rng: &mut Rng, index: usize, dtype: DType, class: &str) -> Option<Draft> {
    let [sc, sx, sy, so] = shapes(rng, index, class);
    let op = BuiltinOp::from_name("SELECT_V2")?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let q = (dtype != DType::Float32).then(|| {
        Quant::tensor(
            suite::scale(rng),
            if dtype == DType::Int8 {
                suite::zero_point(rng, dtype)
            } else {
                0
            },
        )
    });
    let c = suite::activation(&mut b, sg, "condition", DType::Bool, &sc, None);
    let x = suite::activation(&mut b, sg, "x", dtype, &sx, q.as_ref());
    let y = suite::activation(&mut b, sg, "y", dtype, &sy, q.as_ref());
    let z = suite::activation(&mut b, sg, "output", dtype, &so, q.as_ref());
    b.op(sg, op, &[c, x, y], &[z]);
    b.io(sg, &[c, x, y], &[z]);
    let mut spec = |n: usize| {
        if dtype == DType::Float32 {
            InputSpec::float(n, suite::float_magnitude(rng, index))
        } else {
            InputSpec::int(dtype, n, 0)
        }
    };
    let inputs = vec![
        InputSpec::int(DType::Bool, elements(&sc), 0),
        spec(elements(&sx)),
        spec(elements(&sy)),
    ];
    let note = format!("condition {sc:?} x {sx:?} y {sy:?} out {so:?}");
    Some(Draft::new(&b, inputs, elements(&so), note))
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(6),
    };
    let mut out = Vec::new();
    for (label, dtype) in [
        ("float32", DType::Float32),
        ("int8", DType::Int8),
        ("int16", DType::Int16),
    ] {
        for class in CLASSES {
            let spec = Spec {
                op: "select_v2",
                builtin: "SELECT_V2",
                types: label.to_owned(),
                options: String::new(),
                shape: class,
            };
            out.push(suite::fill(seed, spec, target, |rng, index| {
                draw(rng, index, dtype, class)
            }));
        }
    }
    out
}
