//! DEQUANTIZE: int8, int16 and uint8 to float32 over ranks 1 to 6, scales and zero points over the whole range
//! (and, in the `extremes` variants, only at its ends).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::quantize::{SHAPES, dtype_of, integer_sets, shape};
use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(6),
    };
    let mut out = Vec::new();
    for types in ["int8->float32", "int16->float32", "uint8->float32"] {
        for options in ["any", "extremes"] {
            for class in SHAPES {
                let spec = Spec {
                    op: "dequantize",
                    builtin: "DEQUANTIZE",
                    types: types.to_owned(),
                    options: options.to_owned(),
                    shape: class,
                };
                out.push(suite::fill_with_sets(seed, spec, target, |rng, index| {
                    draw(rng, index, types, options, class)
                }));
            }
        }
    }
    out
}

fn draw(
    rng: &mut Rng,
    index: usize,
    types: &str,
    options: &str,
    class: &str,
) -> Option<(Draft, Vec<Vec<u8>>)> {
    let from = dtype_of(types.split_once("->")?.0)?;
    let shape = shape(rng, index, class);
    let n = elements(&shape);
    let op = BuiltinOp::from_name("DEQUANTIZE")?;
    let qi = if options == "extremes" {
        let (lo, hi) = suite::int_range(from);
        Quant::tensor(rng.pick(&[1e-6, 1e2, 1e-6, 1e2, 1.0]), rng.pick(&[lo, hi]))
    } else {
        Quant::tensor(suite::scale(rng), suite::zero_point(rng, from))
    };
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::activation(&mut b, sg, "input", from, &shape, Some(&qi));
    let y = suite::activation(&mut b, sg, "output", DType::Float32, &shape, None);
    b.op(sg, op, &[x], &[y]);
    b.io(sg, &[x], &[y]);
    let note = format!("shape {shape:?} in q {:?}", (qi.s(), qi.z()));
    let draft = Draft::new(&b, vec![InputSpec::int(from, n, qi.z())], n, note);
    // Every int8 and uint8 value, int16 values over the whole range.
    Some((draft, integer_sets(from, n)))
}
