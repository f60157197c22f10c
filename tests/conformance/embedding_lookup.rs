//! EMBEDDING_LOOKUP: float32 rows, int8 rows, and int8 rows dequantised to float32 (TFLM's
//! hybrid, zero point 0); values of rank 2 to 4, constants (weights) or model inputs; ids
//! model inputs within the rows.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Bounds, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

/// The type pairs TFLM's EMBEDDING_LOOKUP takes.
const TYPES: [(&str, DType, DType); 3] = [
    ("float32", DType::Float32, DType::Float32),
    ("int8", DType::Int8, DType::Int8),
    ("int8->float32", DType::Int8, DType::Float32),
];

/// Where the rows come from.
const CLASSES: [&str; 2] = ["constant value", "value input"];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(4),
    };
    let mut out = Vec::new();
    for (tname, vt, ot) in TYPES {
        for class in CLASSES {
            let spec = Spec {
                op: "embedding_lookup",
                builtin: "EMBEDDING_LOOKUP",
                types: tname.to_owned(),
                options: String::new(),
                shape: class,
            };
            out.push(suite::fill_bounded(seed, spec, target, |rng, index| {
                draw(rng, index, vt, ot, class == "constant value")
            }));
        }
    }
    out
}

fn draw(
    rng: &mut Rng,
    index: usize,
    vt: DType,
    ot: DType,
    constant: bool,
) -> Option<(Draft, Vec<Bounds>)> {
    let rank = 2 + index % 3;
    let mut vshape: Vec<usize> = vec![rng.size(1, 40)];
    vshape.extend((1..rank).map(|_| rng.size(1, 12)));
    let lookups = rng.size(1, 30);
    let mut oshape = vec![lookups];
    oshape.extend_from_slice(&vshape[1..]);
    if elements(&oshape) > 8000 || elements(&vshape) > 8000 {
        return None;
    }
    let hybrid = vt != ot;
    let q = match vt {
        DType::Int8 if hybrid => Some(Quant::tensor(suite::scale(rng), 0)),
        DType::Int8 => suite::data_quant(rng, DType::Int8),
        _ => None,
    };
    let op = BuiltinOp::from_name("EMBEDDING_LOOKUP")?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let ids = b.tensor(sg, "ids", DType::Int32, &[lookups as i32]);
    let nv = elements(&vshape);
    let value = if constant {
        let bytes = if vt == DType::Float32 {
            suite::f32_bytes(&suite::weights_f32(rng, nv, 1.0))
        } else {
            suite::int_bytes(DType::Int8, &suite::weights_for(rng, nv, index))
        };
        match &q {
            Some(q) => {
                b.quantized_constant(sg, "value", vt, &suite::dims(&vshape), q.spec(), &bytes)
            }
            None => b.constant(sg, "value", vt, &suite::dims(&vshape), &bytes),
        }
    } else {
        suite::activation(&mut b, sg, "value", vt, &vshape, q.as_ref())
    };
    let y = if hybrid {
        b.tensor(sg, "output", ot, &suite::dims(&oshape))
    } else {
        suite::activation(&mut b, sg, "output", ot, &oshape, q.as_ref())
    };
    b.op(sg, op, &[ids, value], &[y]);
    let rows = vshape[0] as i64;
    let mut inputs = vec![InputSpec::int(DType::Int32, lookups, 0)];
    let mut bounds = vec![vec![(0, rows - 1)]];
    if constant {
        b.io(sg, &[ids], &[y]);
    } else {
        b.io(sg, &[ids, value], &[y]);
        inputs.push(suite::data_input(vt, nv, q.as_ref()));
        bounds.push(Vec::new());
    }
    let note = format!(
        "{lookups} ids into {vshape:?} -> {oshape:?} q {:?}",
        q.as_ref().map(|q| (q.s(), q.z()))
    );
    Some((Draft::new(&b, inputs, elements(&oshape), note), bounds))
}
