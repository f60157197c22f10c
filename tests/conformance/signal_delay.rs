//! `SignalDelay` (custom op of TFLM's signal library): each row of the input delayed by
//! `delay_length` samples; the delay lines are state kept across invocations (every model runs
//! its input sets in a row, in one interpreter and one persistent region). Delays of 0, shorter
//! than a row, a row exactly and several rows; inputs of rank 1 to 3.

use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::flexbuffer::{WriteValue, write_map};

use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for delay in ["none", "within a row", "one row", "several rows"] {
        let spec = Spec {
            op: "signal_delay",
            builtin: "SignalDelay",
            types: "int16".to_owned(),
            options: format!("delay {delay}"),
            shape: "rank 1 to 3",
        };
        out.push(suite::fill_with_sets(seed, spec, target, |rng, index| {
            draw(rng, index, delay)
        }));
    }
    out
}

fn draw(rng: &mut Rng, index: usize, delay: &str) -> Option<(Draft, Vec<Vec<u8>>)> {
    let frame = rng.size(1, 64);
    let shape: Vec<usize> = match index % 3 {
        0 => vec![frame],
        1 => vec![rng.size(1, 4), frame],
        _ => vec![rng.size(1, 3), rng.size(1, 3), frame],
    };
    let delay_length = match delay {
        "none" => 0,
        "within a row" => rng.size(1, frame.max(2) - 1).min(frame),
        "one row" => frame,
        _ => frame * rng.size(2, 4) + rng.size(0, frame - 1),
    };
    let options = write_map(
        &[("delay_length", WriteValue::Int(delay_length as i64))],
        rng.pick(&[1, 2, 4, 8]),
    );
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "input", DType::Int16, &suite::dims(&shape));
    let y = b.tensor(sg, "output", DType::Int16, &suite::dims(&shape));
    b.custom_with_options(sg, "SignalDelay", &[x], &[y], &options);
    b.io(sg, &[x], &[y]);
    // Sets in a row, so that every sample comes out of the delay line some invocations later.
    let n: usize = shape.iter().product();
    let sets: Vec<Vec<u8>> = (0..12)
        .map(|_| {
            let v: Vec<i64> = (0..n).map(|_| rng.range(-32768, 32767)).collect();
            suite::int_bytes(DType::Int16, &v)
        })
        .collect();
    let draft = Draft::new(
        &b,
        vec![InputSpec::int(DType::Int16, n, 0)],
        n,
        format!("in {shape:?} delay_length {delay_length}"),
    );
    Some((draft, sets))
}
