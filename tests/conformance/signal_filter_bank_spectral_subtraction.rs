//! `SignalFilterBankSpectralSubtraction` (custom op of TFLM's signal library): its noise
//! estimate is state kept across invocations (every model runs its input sets in a row, in
//! one interpreter and one persistent region), with and without clamping, micro_speech's
//! coefficients and random ones, the noise output as long as the channels or shorter.

use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::flexbuffer::{WriteValue, write_map};

use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for clamping in [false, true] {
        for coefficients in ["micro_speech", "random"] {
            let spec = Spec {
                op: "signal_filter_bank_spectral_subtraction",
                builtin: "SignalFilterBankSpectralSubtraction",
                types: "uint32".to_owned(),
                options: format!("{coefficients}{}", if clamping { " clamping" } else { "" }),
                shape: "channels",
            };
            out.push(suite::fill_with_sets(seed, spec, target, |rng, _| {
                draw(rng, clamping, coefficients == "random")
            }));
        }
    }
    out
}

fn draw(rng: &mut Rng, clamping: bool, random: bool) -> Option<(Draft, Vec<Vec<u8>>)> {
    let nc = rng.size(1, 200);
    let input_len = nc + if rng.chance(0.2) { rng.size(1, 5) } else { 0 };
    let noise_len = if rng.chance(0.2) { rng.size(1, nc) } else { nc };
    let (s, a, bits, ss_bits, msr) = if random {
        let ss = rng.range(0, 20);
        let one = 1i64 << ss;
        (
            rng.range(0, one),
            rng.range(0, one),
            rng.range(0, 31),
            ss,
            rng.range(0, one),
        )
    } else {
        (409, 983, 10, 14, 819)
    };
    let one = 1i64 << ss_bits;
    let entries = [
        ("alternate_one_minus_smoothing", WriteValue::Int(one - a)),
        ("alternate_smoothing", WriteValue::Int(a)),
        ("clamping", WriteValue::Bool(clamping)),
        ("min_signal_remaining", WriteValue::Int(msr)),
        ("num_channels", WriteValue::Int(nc as i64)),
        ("one_minus_smoothing", WriteValue::Int(one - s)),
        ("smoothing", WriteValue::Int(s)),
        ("smoothing_bits", WriteValue::Int(bits)),
        ("spectral_subtraction_bits", WriteValue::Int(ss_bits)),
    ];
    let options = write_map(&entries, rng.pick(&[1, 2, 4, 8]));
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "input", DType::Uint32, &suite::dims(&[input_len]));
    let y = b.tensor(sg, "output", DType::Uint32, &suite::dims(&[nc]));
    let n = b.tensor(
        sg,
        "noise_estimate",
        DType::Uint32,
        &suite::dims(&[noise_len]),
    );
    b.custom_with_options(
        sg,
        "SignalFilterBankSpectralSubtraction",
        &[x],
        &[y, n],
        &options,
    );
    b.io(sg, &[x], &[y, n]);
    // A signal that rises and falls, so that the estimate follows it both ways.
    let mut sets = Vec::new();
    let top = (1i64 << (32 - bits)) - 1;
    for k in 0..24 {
        let level = if k % 8 < 4 { top >> 2 } else { top >> 12 };
        let v: Vec<i64> = (0..input_len).map(|_| rng.range(0, level.max(1))).collect();
        sets.push(suite::int_bytes(DType::Uint32, &v));
    }
    let draft = Draft::new(
        &b,
        vec![InputSpec::int(DType::Uint32, input_len, 0)],
        nc + noise_len,
        format!(
            "{nc} channels, input {input_len}, noise {noise_len}, smoothing {s}/{a}, bits {bits}/{ss_bits}, min {msr}"
        ),
    );
    Some((draft, sets))
}
