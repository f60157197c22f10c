//! DEPTH_TO_SPACE and its inverse's shapes: float32 and int8, blocks of 1 to 4.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::suite::{self, Draft, Rng, Spec, Target, Variant, elements};

/// The types TFLM's DEPTH_TO_SPACE and SPACE_TO_DEPTH take.
pub const TYPES: [(&str, DType); 2] = [("float32", DType::Float32), ("int8", DType::Int8)];

/// Block sizes.
pub const BLOCKS: [(&str, usize, usize); 3] =
    [("block 2", 2, 2), ("block 3", 3, 3), ("block 1 or 4", 1, 4)];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for (shape, lo, hi) in BLOCKS {
            let spec = Spec {
                op: "depth_to_space",
                builtin: "DEPTH_TO_SPACE",
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
    let (n, h, w) = (rng.size(1, 2), rng.size(1, 6), rng.size(1, 6));
    let c = bs * bs * rng.size(1, 8);
    let ishape = [n, h, w, c];
    let oshape = [n, h * bs, w * bs, c / (bs * bs)];
    if elements(&ishape) > 6000 {
        return None;
    }
    let op = BuiltinOp::from_name("DEPTH_TO_SPACE")?;
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
        OpOptions::DepthToSpace {
            block_size: bs as i32,
        },
    );
    b.io(sg, &[x], &[y]);
    let note = format!("in {ishape:?} block {bs} out {oshape:?}");
    let input = suite::data_input(dtype, elements(&ishape), q.as_ref());
    Some(Draft::new(&b, vec![input], elements(&oshape), note))
}
