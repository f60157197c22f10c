//! PRELU: float32 (ranks 1 to 4, TFLM's 4D kernel), int8 (int8 alphas) and int16 (int8
//! alphas), the alphas a tensor of the input's shape with dimensions of 1 (per channel,
//! shared, or a scalar), quantisation over the suite's range.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

fn draw(rng: &mut Rng, index: usize, dtype: DType) -> Option<Draft> {
    let max_rank = if dtype == DType::Float32 { 4 } else { 5 };
    let rank = 1 + index % max_rank;
    let wide = rng.chance(0.3);
    let shape = suite::shape_within(rng, rank, 3000, wide);
    let mut alpha: Vec<usize> = match index % 3 {
        // Per channel.
        0 => {
            let mut a = vec![1; rank];
            a[rank - 1] = shape[rank - 1];
            a
        }
        1 => shape
            .iter()
            .map(|&d| if rng.chance(0.5) { 1 } else { d })
            .collect(),
        _ => vec![1; rank],
    };
    if rng.chance(0.3) {
        let lead = alpha.iter().take_while(|&&d| d == 1).count();
        let drop = rng.size(0, lead);
        alpha.drain(..drop);
    }
    let op = BuiltinOp::from_name("PRELU")?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let alpha_type = if dtype == DType::Float32 {
        DType::Float32
    } else {
        DType::Int8
    };
    let (qi, qa, qo) = if dtype == DType::Float32 {
        (None, None, None)
    } else {
        let z = |rng: &mut Rng| {
            if dtype == DType::Int16 && rng.chance(0.7) {
                0
            } else {
                suite::zero_point(rng, dtype)
            }
        };
        let si = suite::scale(rng);
        let so = if rng.chance(0.3) {
            suite::scale(rng)
        } else {
            (f64::from(si) * f64::from(rng.log_uniform(0.2, 5.0))).clamp(1e-6, 1e2) as f32
        };
        let qi = Quant::tensor(si, z(rng));
        let qo = Quant::tensor(so, z(rng));
        let qa = Quant::tensor(
            rng.log_uniform(1e-4, 1.0),
            suite::zero_point(rng, DType::Int8),
        );
        (Some(qi), Some(qa), Some(qo))
    };
    let x = suite::activation(&mut b, sg, "input", dtype, &shape, qi.as_ref());
    let a = suite::activation(&mut b, sg, "alpha", alpha_type, &alpha, qa.as_ref());
    let y = suite::activation(&mut b, sg, "output", dtype, &shape, qo.as_ref());
    b.op(sg, op, &[x, a], &[y]);
    b.io(sg, &[x, a], &[y]);
    let (n, na) = (elements(&shape), elements(&alpha));
    let inputs = if dtype == DType::Float32 {
        vec![
            InputSpec::float(n, suite::float_magnitude(rng, index)),
            InputSpec::float(na, 1.0),
        ]
    } else {
        vec![
            InputSpec::int(dtype, n, qi.as_ref().map_or(0, Quant::z)),
            InputSpec::int(DType::Int8, na, qa.as_ref().map_or(0, Quant::z)),
        ]
    };
    let q = |q: &Option<Quant>| q.as_ref().map(|q| (q.s(), q.z()));
    let note = format!(
        "in {shape:?} q {:?} alpha {alpha:?} q {:?} out q {:?}",
        q(&qi),
        q(&qa),
        q(&qo)
    );
    Some(Draft::new(&b, inputs, n, note))
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(6),
    };
    [
        ("float32", DType::Float32),
        ("int8", DType::Int8),
        ("int16->int16 (int8 alpha)", DType::Int16),
    ]
    .into_iter()
    .map(|(label, dtype)| {
        let spec = Spec {
            op: "prelu",
            builtin: "PRELU",
            types: label.to_owned(),
            options: String::new(),
            shape: "alpha broadcast",
        };
        suite::fill(seed, spec, target, |rng, index| draw(rng, index, dtype))
    })
    .collect()
}
