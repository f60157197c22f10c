//! `SignalFilterBankLog` (custom op of TFLM's signal library): a fixed-point natural log of
//! uint32 values, scaled and saturated to int16; correction shifts 0 to 31 and output scales
//! from 1 to beyond 2^16 (wrapping products), inputs over the whole range and near powers of
//! two.

use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::flexbuffer::{WriteValue, write_map};

use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    ["micro_speech scale", "any scale"]
        .into_iter()
        .map(|options| {
            let spec = Spec {
                op: "signal_filter_bank_log",
                builtin: "SignalFilterBankLog",
                types: "uint32 -> int16".to_owned(),
                options: options.to_owned(),
                shape: "channels",
            };
            suite::fill_with_sets(seed, spec, target, |rng, _| {
                draw(rng, options == "any scale")
            })
        })
        .collect()
}

fn draw(rng: &mut Rng, any: bool) -> Option<(Draft, Vec<Vec<u8>>)> {
    let n = rng.size(1, 400);
    let (bits, scale) = if any {
        (
            rng.range(0, 31),
            rng.pick(&[1, 7, 64, 1000, 65_535, 70_000, i64::from(i32::MAX), -5]),
        )
    } else {
        (rng.range(0, 4), 64)
    };
    let options = write_map(
        &[
            ("input_correction_bits", WriteValue::Int(bits)),
            ("output_scale", WriteValue::Int(scale)),
        ],
        rng.pick(&[1, 2, 4, 8]),
    );
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "input", DType::Uint32, &suite::dims(&[n]));
    let y = b.tensor(sg, "output", DType::Int16, &suite::dims(&[n]));
    b.custom_with_options(sg, "SignalFilterBankLog", &[x], &[y], &options);
    b.io(sg, &[x], &[y]);
    // Powers of two and their neighbours, and small values.
    let mut sets = Vec::new();
    for _ in 0..6 {
        let v: Vec<i64> = (0..n)
            .map(|_| {
                let p = 1i64 << rng.range(0, 31);
                (p + rng.range(-2, 2)).clamp(0, i64::from(u32::MAX))
            })
            .collect();
        sets.push(suite::int_bytes(DType::Uint32, &v));
        let v: Vec<i64> = (0..n).map(|_| rng.range(0, 300)).collect();
        sets.push(suite::int_bytes(DType::Uint32, &v));
    }
    let draft = Draft::new(
        &b,
        vec![InputSpec::int(DType::Uint32, n, 0)],
        n,
        format!("{n} channels, correction {bits}, scale {scale}"),
    );
    Some((draft, sets))
}
