//! `SignalFftAutoScale` (custom op of TFLM's signal library): int16 scaled by the power of two
//! its largest magnitude leaves, and that power as an int32 scalar; the output as long as the
//! input or shorter. The edge sets (-32768 everywhere, 32767, 0, alternating) and random ones
//! over the whole range and over small ranges (large powers), with -32768 first or amid.

use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::ModelBuilder;

use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    ["same length", "shorter output"]
        .into_iter()
        .map(|shape| {
            let spec = Spec {
                op: "signal_fft_auto_scale",
                builtin: "SignalFftAutoScale",
                types: "int16 -> int16, int32".to_owned(),
                options: String::new(),
                shape,
            };
            suite::fill_with_sets(seed, spec, target, |rng, _| {
                draw(rng, shape != "same length")
            })
        })
        .collect()
}

fn draw(rng: &mut Rng, shorter: bool) -> Option<(Draft, Vec<Vec<u8>>)> {
    let n = rng.size(1, 1200);
    let m = if shorter { rng.size(1, n) } else { n };
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::activation(&mut b, sg, "input", DType::Int16, &[n], None);
    let y = suite::activation(&mut b, sg, "output", DType::Int16, &[m], None);
    let s = b.tensor(sg, "scale_bits", DType::Int32, &[]);
    b.custom_with_options(sg, "SignalFftAutoScale", &[x], &[y, s], &[]);
    b.io(sg, &[x], &[y, s]);
    // Small magnitudes (every power up to 14) and -32768 placed at random.
    let mut sets = Vec::new();
    for bits in 0..16 {
        let hi = (1i64 << bits) - 1;
        let mut v: Vec<i64> = (0..n).map(|_| rng.range(-hi, hi)).collect();
        if bits == 15
            && let Some(e) = v.get_mut(rng.size(0, n - 1))
        {
            *e = -32768;
        }
        sets.push(suite::int_bytes(DType::Int16, &v));
    }
    let draft = Draft::new(
        &b,
        vec![InputSpec::int(DType::Int16, n, 0)],
        m + 1,
        format!("input {n} output {m}"),
    );
    Some((draft, sets))
}
