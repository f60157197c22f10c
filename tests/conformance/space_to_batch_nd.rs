//! SPACE_TO_BATCH_ND: float32 and int8 (int8 outputs with any zero point: TFLM pads with zero
//! bytes), 3-D and 4-D, without paddings and with them (the block shape and paddings constant
//! int32).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::batch_to_space_nd::{CLASSES, TYPES};
use crate::suite::{self, Draft, Rng, Spec, Target, Variant, elements};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for (shape, rank, padded) in CLASSES {
            let spec = Spec {
                op: "space_to_batch_nd",
                builtin: "SPACE_TO_BATCH_ND",
                types: tname.to_owned(),
                options: String::new(),
                shape: if padded {
                    if rank == 4 {
                        "rank 4 padded"
                    } else {
                        "rank 3 padded"
                    }
                } else {
                    shape
                },
            };
            out.push(suite::fill(seed, spec, target, |rng, _| {
                draw(rng, dtype, rank, padded)
            }));
        }
    }
    out
}

fn draw(rng: &mut Rng, dtype: DType, rank: usize, padded: bool) -> Option<Draft> {
    let (bh, bw) = (rng.size(1, 3), if rank == 4 { rng.size(1, 3) } else { 1 });
    let (ib, d) = (rng.size(1, 2), rng.size(1, 6));
    let (oh, ow) = (rng.size(1, 5), if rank == 4 { rng.size(1, 5) } else { 1 });
    // The padded extent is a whole number of blocks; the input is what the paddings leave.
    let split = |rng: &mut Rng, total: usize| -> (usize, usize) {
        if !padded || total <= 1 {
            return (0, 0);
        }
        let t = rng.size(0, (total - 1).min(3));
        (t, rng.size(0, (total - 1 - t).min(3)))
    };
    let (top, bottom) = split(rng, oh * bh);
    let (left, right) = if rank == 4 {
        split(rng, ow * bw)
    } else {
        (0, 0)
    };
    let (ih, iw) = (oh * bh - top - bottom, ow * bw - left - right);
    let ishape: Vec<usize> = if rank == 4 {
        vec![ib, ih, iw, d]
    } else {
        vec![ib, ih, d]
    };
    let oshape: Vec<usize> = if rank == 4 {
        vec![ib * bh * bw, oh, ow, d]
    } else {
        vec![ib * bh, oh, d]
    };
    if elements(&oshape) > 6000 {
        return None;
    }
    let op = BuiltinOp::from_name("SPACE_TO_BATCH_ND")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &ishape, q.as_ref());
    let (block, pads): (Vec<i64>, Vec<i64>) = if rank == 4 {
        (
            vec![bh as i64, bw as i64],
            vec![top as i64, bottom as i64, left as i64, right as i64],
        )
    } else {
        (vec![bh as i64], vec![top as i64, bottom as i64])
    };
    let s = rank as i32 - 2;
    let bt = b.constant(
        sg,
        "block_shape",
        DType::Int32,
        &[s],
        &suite::int_bytes(DType::Int32, &block),
    );
    let pt = b.constant(
        sg,
        "paddings",
        DType::Int32,
        &[s, 2],
        &suite::int_bytes(DType::Int32, &pads),
    );
    let y = suite::data_tensor(&mut b, sg, "output", dtype, &oshape, q.as_ref());
    b.op(sg, op, &[x, bt, pt], &[y]);
    b.io(sg, &[x], &[y]);
    let note = format!("in {ishape:?} block {block:?} paddings {pads:?} out {oshape:?}");
    let input = suite::data_input(dtype, elements(&ishape), q.as_ref());
    Some(Draft::new(&b, vec![input], elements(&oshape), note))
}
