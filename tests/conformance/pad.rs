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
