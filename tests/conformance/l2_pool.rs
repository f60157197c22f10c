//! L2_POOL_2D: float32 (the only type TFLM's `l2_pool_2d.cc` takes), over both paddings,
//! every fused activation and three shape classes; windows of 1 to 4 and strides of 1 to 3
//! drawn per model, SAME windows hanging over the padding (and windows larger than the input),
//! magnitudes from tiny to so large that the squares overflow to infinity.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{Activation, BuiltinOp, DType, OpOptions, Padding};

use crate::conv::{PADDINGS, activations, out_size};
use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant};

fn s(v: usize) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for (pname, padding) in PADDINGS {
        for &(aname, activation) in activations(false) {
            for shape in ["ones", "odd", "wide"] {
                let spec = Spec {
                    op: "l2_pool",
                    builtin: "L2_POOL_2D",
                    types: "float32".to_owned(),
                    options: format!("L2_POOL_2D {pname} {aname}"),
                    shape,
                };
                out.push(suite::fill(seed, spec, target, |rng, index| {
                    draw(rng, index, shape, padding, activation)
                }));
            }
        }
    }
    out
}

/// Window and strides of model `index`: model 0 a window of 2 to 4 at stride 1 (SAME: over
/// the padding on both sides), model 1 strides 2 and 3, model 2 a 4x4 window at stride 3, the
/// others at random.
fn window(rng: &mut Rng, index: usize) -> ((usize, usize), (usize, usize)) {
    match index {
        0 => ((rng.size(2, 4), rng.size(2, 4)), (1, 1)),
        1 => ((rng.size(1, 4), rng.size(1, 4)), (2, 3)),
        2 => ((4, 4), (3, rng.size(1, 3))),
        _ => (
            (rng.size(1, 4), rng.size(1, 4)),
            (rng.size(1, 3), rng.size(1, 3)),
        ),
    }
}

fn draw(
    rng: &mut Rng,
    index: usize,
    shape: &str,
    padding: Padding,
    activation: Activation,
) -> Option<Draft> {
    let ((fh, fw), (sh, sw)) = window(rng, index);
    let (n, h, w, c) = match shape {
        "ones" => {
            let (h, w) = if rng.chance(0.5) {
                (1, rng.size(1, 9))
            } else {
                (rng.size(1, 9), 1)
            };
            (1, h, w, rng.size(1, 2))
        }
        "odd" => (
            rng.pick(&[1, 1, 3]),
            2 * rng.size(0, 6) + 1,
            2 * rng.size(0, 6) + 1,
            2 * rng.size(0, 4) + 1,
        ),
        // Many channels, past the kernel's block of 16 and not a multiple of it.
        _ => (
            rng.pick(&[1, 2]),
            rng.size(2, 8),
            rng.size(2, 8),
            rng.pick(&[17, 33, 64, 100, 255, 300]),
        ),
    };
    let oh = out_size(padding, h, fh, sh, 1);
    let ow = out_size(padding, w, fw, sw, 1);
    if oh == 0 || ow == 0 {
        return None;
    }
    let ishape = [s(n), s(h), s(w), s(c)];
    let oshape = [s(n), s(oh), s(ow), s(c)];
    let options = OpOptions::Pool2D {
        padding,
        stride_w: s(sw),
        stride_h: s(sh),
        filter_w: s(fw),
        filter_h: s(fh),
        activation,
    };
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "input", DType::Float32, &ishape);
    let y = b.tensor(sg, "output", DType::Float32, &oshape);
    b.op_with_options(sg, BuiltinOp::L2_POOL_2D, &[x], &[y], options);
    b.io(sg, &[x], &[y]);
    let magnitude = suite::float_magnitude(rng, index);
    let note = format!(
        "in {ishape:?} out {oshape:?} filter {:?} stride {:?} act {activation:?} magnitude {magnitude}",
        (fh, fw),
        (sh, sw)
    );
    Some(Draft::new(
        &b,
        vec![InputSpec::float(n * h * w * c, magnitude)],
        n * oh * ow * c,
        note,
    ))
}
