//! `SignalFilterBank` (custom op of TFLM's signal library): triangular filters over a uint32
//! spectrum into uint64 channels, the channel tables constants (mel-like bands, each channel's
//! weights and unweights), the weights a constant or a model input; energies over the whole
//! range (the uint64 sums wrap) and small.

use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::flexbuffer::{WriteValue, write_map};

use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    ["constant weights", "weights input"]
        .into_iter()
        .map(|options| {
            let spec = Spec {
                op: "signal_filter_bank",
                builtin: "SignalFilterBank",
                types: "uint32, int16 -> uint64".to_owned(),
                options: options.to_owned(),
                shape: "channels",
            };
            suite::fill_with_sets(seed, spec, target, |rng, _| {
                draw(rng, options == "weights input")
            })
        })
        .collect()
}

fn draw(rng: &mut Rng, weights_input: bool) -> Option<(Draft, Vec<Vec<u8>>)> {
    let nc = rng.size(1, 48);
    let bins = rng.size(nc + 2, 300);
    // Channel i spans freq_starts[i] .. + widths[i]; weights laid out one channel after another.
    let mut freq = Vec::new();
    let mut wstart = Vec::new();
    let mut widths = Vec::new();
    let mut total = 0i64;
    for _ in 0..=nc {
        let width = rng.range(0, 12).min(bins as i64);
        let start = rng.range(0, bins as i64 - width);
        freq.push(start);
        wstart.push(total);
        widths.push(width);
        total += width;
    }
    let wlen = (total as usize).max(1);
    let weights: Vec<i64> = (0..wlen).map(|_| rng.range(0, 4096)).collect();
    let unweights: Vec<i64> = weights.iter().map(|w| 4096 - w).collect();
    let options = write_map(
        &[("num_channels", WriteValue::Int(nc as i64))],
        rng.pick(&[1, 2, 4, 8]),
    );
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "input", DType::Uint32, &suite::dims(&[bins]));
    let table = |b: &mut ModelBuilder, name: &str, v: &[i64]| {
        b.constant(
            sg,
            name,
            DType::Int16,
            &suite::dims(&[v.len()]),
            &suite::int_bytes(DType::Int16, v),
        )
    };
    let (w, u, mut ins) = if weights_input {
        let w = b.tensor(sg, "weights", DType::Int16, &suite::dims(&[wlen]));
        let u = b.tensor(sg, "unweights", DType::Int16, &suite::dims(&[wlen]));
        (w, u, vec![x, w, u])
    } else {
        (
            table(&mut b, "weights", &weights),
            table(&mut b, "unweights", &unweights),
            vec![x],
        )
    };
    let f = table(&mut b, "channel_frequency_starts", &freq);
    let s = table(&mut b, "channel_weight_starts", &wstart);
    let c = table(&mut b, "channel_widths", &widths);
    let y = b.tensor(sg, "output", DType::Uint64, &suite::dims(&[nc]));
    b.custom_with_options(sg, "SignalFilterBank", &[x, w, u, f, s, c], &[y], &options);
    b.io(sg, &ins, &[y]);
    ins.clear();
    let mut sets = Vec::new();
    for k in 0..16 {
        let hi = if k % 2 == 0 {
            i64::from(u32::MAX)
        } else {
            1 << 16
        };
        let mut set = suite::int_bytes(
            DType::Uint32,
            &(0..bins).map(|_| rng.range(0, hi)).collect::<Vec<_>>(),
        );
        if weights_input {
            let r = |rng: &mut Rng| -> Vec<i64> {
                (0..wlen).map(|_| rng.range(-32768, 32767)).collect()
            };
            set.extend(suite::int_bytes(DType::Int16, &r(rng)));
            set.extend(suite::int_bytes(DType::Int16, &r(rng)));
        }
        sets.push(set);
    }
    let mut specs = vec![InputSpec::int(DType::Uint32, bins, 0)];
    if weights_input {
        specs.push(InputSpec::int(DType::Int16, wlen, 0));
        specs.push(InputSpec::int(DType::Int16, wlen, 0));
    }
    let draft = Draft::new(
        &b,
        specs,
        nc,
        format!("{nc} channels over {bins} bins, {wlen} weights"),
    );
    Some((draft, sets))
}
