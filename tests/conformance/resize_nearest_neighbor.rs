//! RESIZE_NEAREST_NEIGHBOR: float32, int8 and int16; up- and down-sampling (heights and widths
//! from 1 to 17, either way), with `align_corners` and `half_pixel_centers` in every
//! combination.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::suite::{self, Draft, Rng, Spec, Target, Variant, elements};

/// The types TFLM's RESIZE_NEAREST_NEIGHBOR takes.
const TYPES: [(&str, DType); 3] = [
    ("float32", DType::Float32),
    ("int8", DType::Int8),
    ("int16", DType::Int16),
];

/// The option combinations (`align_corners`, `half_pixel_centers`).
pub const OPTIONS: [(&str, bool, bool); 4] = [
    ("", false, false),
    ("align_corners", true, false),
    ("half_pixel_centers", false, true),
    ("align_corners half_pixel_centers", true, true),
];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for (options, align, half) in OPTIONS {
            let spec = Spec {
                op: "resize_nearest_neighbor",
                builtin: "RESIZE_NEAREST_NEIGHBOR",
                types: tname.to_owned(),
                options: options.to_owned(),
                shape: "up and down",
            };
            out.push(suite::fill(seed, spec, target, |rng, _| {
                draw(rng, "RESIZE_NEAREST_NEIGHBOR", dtype, align, half)
            }));
        }
    }
    out
}

/// A resize model of either op.
pub fn draw(rng: &mut Rng, builtin: &str, dtype: DType, align: bool, half: bool) -> Option<Draft> {
    let (n, c) = (rng.size(1, 2), rng.size(1, 6));
    let (ih, iw) = (rng.size(1, 12), rng.size(1, 12));
    let (oh, ow) = (rng.size(1, 17), rng.size(1, 17));
    let ishape = [n, ih, iw, c];
    let oshape = [n, oh, ow, c];
    if elements(&oshape) > 5000 {
        return None;
    }
    let op = BuiltinOp::from_name(builtin)?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &ishape, q.as_ref());
    let size = b.constant(
        sg,
        "size",
        DType::Int32,
        &[2],
        &suite::int_bytes(DType::Int32, &[oh as i64, ow as i64]),
    );
    let y = suite::data_tensor(&mut b, sg, "output", dtype, &oshape, q.as_ref());
    let options = if builtin == "RESIZE_BILINEAR" {
        OpOptions::ResizeBilinear {
            align_corners: align,
            half_pixel_centers: half,
        }
    } else {
        OpOptions::ResizeNearestNeighbor {
            align_corners: align,
            half_pixel_centers: half,
        }
    };
    b.op_with_options(sg, op, &[x, size], &[y], options);
    b.io(sg, &[x], &[y]);
    let note = format!("{ishape:?} -> {oshape:?}");
    let input = suite::data_input(dtype, elements(&ishape), q.as_ref());
    Some(Draft::new(&b, vec![input], elements(&oshape), note))
}
