//! BATCH_TO_SPACE_ND: float32 and int8, 3-D and 4-D, without crops and with them (the block
//! shape and crops constant int32).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Draft, Rng, Spec, Target, Variant, elements};

/// The types TFLM's BATCH_TO_SPACE_ND and SPACE_TO_BATCH_ND take.
pub const TYPES: [(&str, DType); 2] = [("float32", DType::Float32), ("int8", DType::Int8)];

/// Shape classes: rank, with crops or paddings.
pub const CLASSES: [(&str, usize, bool); 4] = [
    ("rank 4", 4, false),
    ("rank 4 cropped", 4, true),
    ("rank 3", 3, false),
    ("rank 3 cropped", 3, true),
];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for (shape, rank, cropped) in CLASSES {
            let spec = Spec {
                op: "batch_to_space_nd",
                builtin: "BATCH_TO_SPACE_ND",
                types: tname.to_owned(),
                options: String::new(),
                shape,
            };
            out.push(suite::fill(seed, spec, target, |rng, _| {
                draw(rng, dtype, rank, cropped)
            }));
        }
    }
    out
}

fn draw(rng: &mut Rng, dtype: DType, rank: usize, cropped: bool) -> Option<Draft> {
    let (bh, bw) = (rng.size(1, 3), if rank == 4 { rng.size(1, 3) } else { 1 });
    let (ob, ih, iw, d) = (
        rng.size(1, 2),
        rng.size(1, 5),
        if rank == 4 { rng.size(1, 5) } else { 1 },
        rng.size(1, 6),
    );
    let crop = |rng: &mut Rng, total: usize| -> (usize, usize) {
        if !cropped || total <= 1 {
            return (0, 0);
        }
        let t = rng.size(0, (total - 1).min(3));
        (t, rng.size(0, (total - 1 - t).min(3)))
    };
    let (top, bottom) = crop(rng, ih * bh);
    let (left, right) = if rank == 4 {
        crop(rng, iw * bw)
    } else {
        (0, 0)
    };
    let ishape: Vec<usize> = if rank == 4 {
        vec![ob * bh * bw, ih, iw, d]
    } else {
        vec![ob * bh, ih, d]
    };
    let (oh, ow) = (ih * bh - top - bottom, iw * bw - left - right);
    let oshape: Vec<usize> = if rank == 4 {
        vec![ob, oh, ow, d]
    } else {
        vec![ob, oh, d]
    };
    if elements(&ishape) > 6000 {
        return None;
    }
    let op = BuiltinOp::from_name("BATCH_TO_SPACE_ND")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &ishape, q.as_ref());
    let (block, crops): (Vec<i64>, Vec<i64>) = if rank == 4 {
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
    let ct = b.constant(
        sg,
        "crops",
        DType::Int32,
        &[s, 2],
        &suite::int_bytes(DType::Int32, &crops),
    );
    let y = suite::data_tensor(&mut b, sg, "output", dtype, &oshape, q.as_ref());
    b.op(sg, op, &[x, bt, ct], &[y]);
    b.io(sg, &[x], &[y]);
    let note = format!("in {ishape:?} block {block:?} crops {crops:?} out {oshape:?}");
    let input = suite::data_input(dtype, elements(&ishape), q.as_ref());
    Some(Draft::new(&b, vec![input], elements(&oshape), note))
}
