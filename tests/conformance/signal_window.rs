//! `SignalWindow` (custom op of TFLM's signal library): int16 frames times an int16 window,
//! shifted (0 to 31, the edges drawn often) and saturated; one frame or several, the window a
//! constant or a model input.

use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::flexbuffer::{WriteValue, write_map};

use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for weights in ["constant window", "window input"] {
        for shape in ["one frame", "frames"] {
            let spec = Spec {
                op: "signal_window",
                builtin: "SignalWindow",
                types: "int16".to_owned(),
                options: weights.to_owned(),
                shape,
            };
            out.push(suite::fill(seed, spec, target, |rng, _| {
                draw(rng, weights == "window input", shape == "frames")
            }));
        }
    }
    out
}

fn draw(rng: &mut Rng, window_input: bool, frames: bool) -> Option<Draft> {
    let w = rng.size(1, 600);
    let shape: Vec<usize> = if frames {
        vec![rng.size(2, 5), w]
    } else {
        vec![w]
    };
    let n = suite::elements(&shape);
    let shift = match rng.below(5) {
        0 => 0,
        1 => 31,
        2 => 12,
        _ => rng.range(0, 31),
    };
    let options = write_map(
        &[("shift", WriteValue::Int(shift))],
        rng.pick(&[1, 2, 4, 8]),
    );
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::activation(&mut b, sg, "input", DType::Int16, &shape, None);
    let (weights, inputs) = if window_input {
        let t = suite::activation(&mut b, sg, "window", DType::Int16, &[w], None);
        (t, vec![x, t])
    } else {
        let values: Vec<i64> = (0..w).map(|_| rng.range(-32768, 32767)).collect();
        let t = b.constant(
            sg,
            "window",
            DType::Int16,
            &suite::dims(&[w]),
            &suite::int_bytes(DType::Int16, &values),
        );
        (t, vec![x])
    };
    let y = suite::activation(&mut b, sg, "output", DType::Int16, &shape, None);
    b.custom_with_options(sg, "SignalWindow", &[x, weights], &[y], &options);
    b.io(sg, &inputs, &[y]);
    let mut specs = vec![InputSpec::int(DType::Int16, n, 0)];
    if window_input {
        specs.push(InputSpec::int(DType::Int16, w, 0));
    }
    Some(Draft::new(&b, specs, n, format!("{shape:?} shift {shift}")))
}
