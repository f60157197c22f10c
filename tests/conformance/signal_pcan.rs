//! `SignalPCAN` (custom op of TFLM's signal library): per-channel gain from a noise estimate
//! through an int16 gain table (125 entries, random, or micro_speech-like), snr shifts 0 to
//! 63; noise estimates over the whole uint32 range and near powers of two.

use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::flexbuffer::{WriteValue, write_map};

use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    ["random table", "smooth table"]
        .into_iter()
        .map(|options| {
            let spec = Spec {
                op: "signal_pcan",
                builtin: "SignalPCAN",
                types: "uint32, uint32, int16 -> uint32".to_owned(),
                options: options.to_owned(),
                shape: "channels",
            };
            suite::fill_with_sets(seed, spec, target, |rng, _| {
                draw(rng, options == "random table")
            })
        })
        .collect()
}

fn draw(rng: &mut Rng, random: bool) -> Option<(Draft, Vec<Vec<u8>>)> {
    let n = rng.size(1, 300);
    let lut_len = if rng.chance(0.8) {
        125
    } else {
        rng.size(125, 140)
    };
    let lut: Vec<i64> = (0..lut_len)
        .map(|i| {
            if random {
                rng.range(-32768, 32767)
            } else {
                // Gains that fall with the noise, as a PCAN table does.
                (20_000 - 150 * i as i64) + rng.range(-50, 50)
            }
        })
        .collect();
    let snr_shift = match rng.below(4) {
        0 => 6,
        1 => 63,
        _ => rng.range(0, 63),
    };
    let options = write_map(
        &[("snr_shift", WriteValue::Int(snr_shift))],
        rng.pick(&[1, 2, 4, 8]),
    );
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "input", DType::Uint32, &suite::dims(&[n]));
    let noise = b.tensor(sg, "noise", DType::Uint32, &suite::dims(&[n]));
    let l = b.constant(
        sg,
        "gain_lut",
        DType::Int16,
        &suite::dims(&[lut_len]),
        &suite::int_bytes(DType::Int16, &lut),
    );
    let y = b.tensor(sg, "output", DType::Uint32, &suite::dims(&[n]));
    b.custom_with_options(sg, "SignalPCAN", &[x, noise, l], &[y], &options);
    b.io(sg, &[x, noise], &[y]);
    let mut sets = Vec::new();
    for _ in 0..8 {
        let small = |rng: &mut Rng| -> i64 {
            let p = 1i64 << rng.range(0, 31);
            (p + rng.range(-2, 2)).clamp(0, i64::from(u32::MAX))
        };
        let xs: Vec<i64> = (0..n).map(|_| rng.range(0, 1 << 20)).collect();
        let ns: Vec<i64> = (0..n).map(|_| small(rng)).collect();
        let mut set = suite::int_bytes(DType::Uint32, &xs);
        set.extend(suite::int_bytes(DType::Uint32, &ns));
        sets.push(set);
    }
    let draft = Draft::new(
        &b,
        vec![
            InputSpec::int(DType::Uint32, n, 0),
            InputSpec::int(DType::Uint32, n, 0),
        ],
        n,
        format!("{n} channels, table {lut_len}, snr_shift {snr_shift}"),
    );
    Some((draft, sets))
}
