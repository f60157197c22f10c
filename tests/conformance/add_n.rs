//! ADD_N: float32 and int8 (TFLM's types), 2 to 6 inputs of one shape (ranks 0 to 5); int8
//! inputs share one quantisation (TFLM's Prepare requires it), the output's scale over the
//! range `QuantizeMultiplierSmallerThanOneExp` takes.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

fn draw(rng: &mut Rng, index: usize, dtype: DType) -> Option<Draft> {
    let n = 2 + index % 5;
    let wide = rng.chance(0.2);
    let shape = suite::shape_within(rng, index % 6, 2000, wide);
    let op = BuiltinOp::from_name("ADD_N")?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let (qi, qo) = if dtype == DType::Int8 {
        let s = suite::scale(rng);
        let lo = (2.0 * f64::from(s) / f64::from(1_u32 << 20) * 1.001).max(1e-6);
        let so = match rng.below(8) {
            0 => lo,
            1..=2 => f64::from(rng.log_uniform(lo, 1e2)),
            _ => (f64::from(s) * (n as f64).sqrt() * f64::from(rng.log_uniform(0.3, 4.0)))
                .clamp(lo, 1e2),
        } as f32;
        (
            Some(Quant::tensor(s, suite::zero_point(rng, dtype))),
            Some(Quant::tensor(so, suite::zero_point(rng, dtype))),
        )
    } else {
        (None, None)
    };
    let inputs: Vec<i32> = (0..n)
        .map(|i| suite::activation(&mut b, sg, &format!("input{i}"), dtype, &shape, qi.as_ref()))
        .collect();
    let z = suite::activation(&mut b, sg, "output", dtype, &shape, qo.as_ref());
    b.op(sg, op, &inputs, &[z]);
    b.io(sg, &inputs, &[z]);
    let len = elements(&shape);
    let m = suite::float_magnitude(rng, index);
    let specs = (0..n)
        .map(|_| {
            if dtype == DType::Float32 {
                InputSpec::float(len, m)
            } else {
                InputSpec::int(dtype, len, qi.as_ref().map_or(0, Quant::z))
            }
        })
        .collect();
    let q = |q: &Option<Quant>| q.as_ref().map(|q| (q.s(), q.z()));
    let note = format!("{n} inputs {shape:?} q {:?} out q {:?}", q(&qi), q(&qo));
    Some(Draft::new(&b, specs, len, note))
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(6),
    };
    [("float32", DType::Float32), ("int8", DType::Int8)]
        .into_iter()
        .map(|(label, dtype)| {
            let spec = Spec {
                op: "add_n",
                builtin: "ADD_N",
                types: label.to_owned(),
                options: String::new(),
                shape: "any",
            };
            suite::fill(seed, spec, target, |rng, index| draw(rng, index, dtype))
        })
        .collect()
}
