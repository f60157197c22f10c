//! L2_POOL_2D: float32 (the only type TFLM's `l2_pool_2d.cc` takes), over both paddings,
//! every fused activation and three shape classes; windows of 1 to 4 and strides of 1 to 3
//! drawn per model, SAME windows hanging over the padding (and windows larger than the input),
//! magnitudes from tiny to so large that the squares overflow to infinity.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{Activation, BuiltinOp, DType, Padding};

use crate::conv::{PADDINGS, activations};
use crate::pooling::{Geometry, geometry};
use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant};

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

fn draw(
    rng: &mut Rng,
    index: usize,
    shape: &str,
    padding: Padding,
    activation: Activation,
) -> Option<Draft> {
    let Geometry {
        ishape,
        oshape,
        options,
        inputs,
        outputs,
        note,
    } = geometry(rng, index, shape, padding, activation)?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "input", DType::Float32, &ishape);
    let y = b.tensor(sg, "output", DType::Float32, &oshape);
    b.op_with_options(sg, BuiltinOp::L2_POOL_2D, &[x], &[y], options);
    b.io(sg, &[x], &[y]);
    let magnitude = suite::float_magnitude(rng, index);
    let note = format!("{note} magnitude {magnitude}");
    Some(Draft::new(
        &b,
        vec![InputSpec::float(inputs, magnitude)],
        outputs,
        note,
    ))
}
