//! SPACE_TO_DEPTH: float32 and int8, blocks of 1 to 4.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::depth_to_space::{BLOCKS, TYPES};
use crate::suite::{self, Draft, Rng, Spec, Target, Variant, elements};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for (shape, lo, hi) in BLOCKS {
            let spec = Spec {
                op: "space_to_depth",
                builtin: "SPACE_TO_DEPTH",
                types: tname.to_owned(),
                options: String::new(),
                shape,
            };
            out.push(suite::fill(seed, spec, target, |rng, _| {
                let bs = if lo == hi { lo } else { rng.pick(&[lo, hi]) };
                draw(rng, dtype, bs)
            }));
        }
    }
    out
}

fn draw(rng: &mut Rng, dtype: DType, bs: usize) -> Option<Draft> {
    let (n, h, w, c) = (
        rng.size(1, 2),
        rng.size(1, 6),
        rng.size(1, 6),
        rng.size(1, 8),
    );
    let ishape = [n, h * bs, w * bs, c];
    let oshape = [n, h, w, c * bs * bs];
    if elements(&ishape) > 6000 {
        return None;
    }
    let op = BuiltinOp::from_name("SPACE_TO_DEPTH")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &ishape, q.as_ref());
    let y = suite::data_tensor(&mut b, sg, "output", dtype, &oshape, q.as_ref());
    b.op_with_options(
        sg,
        op,
        &[x],
        &[y],
        OpOptions::SpaceToDepth {
            block_size: bs as i32,
        },
    );
    b.io(sg, &[x], &[y]);
    let note = format!("in {ishape:?} block {bs} out {oshape:?}");
    let input = suite::data_input(dtype, elements(&ishape), q.as_ref());
    Some(Draft::new(&b, vec![input], elements(&oshape), note))
}
