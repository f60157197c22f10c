//! `SignalFilterBankSquareRoot` (custom op of TFLM's signal library): rounded integer square
//! roots of uint64 values (below 2^32 through the 32-bit path, above through the 64-bit one),
//! shifted down by an int32 scalar input (0 to 31).

use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::ModelBuilder;

use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    ["below 2^32", "any"]
        .into_iter()
        .map(|shape| {
            let spec = Spec {
                op: "signal_filter_bank_square_root",
                builtin: "SignalFilterBankSquareRoot",
                types: "uint64, int32 -> uint32".to_owned(),
                options: String::new(),
                shape,
            };
            suite::fill_with_sets(seed, spec, target, |rng, _| draw(rng, shape == "any"))
        })
        .collect()
}

fn u64_bytes(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn draw(rng: &mut Rng, any: bool) -> Option<(Draft, Vec<Vec<u8>>)> {
    let n = rng.size(1, 300);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "input", DType::Uint64, &suite::dims(&[n]));
    let s = b.tensor(sg, "scale_bits", DType::Int32, &[]);
    let y = b.tensor(sg, "output", DType::Uint32, &suite::dims(&[n]));
    b.custom_with_options(sg, "SignalFilterBankSquareRoot", &[x, s], &[y], &[]);
    b.io(sg, &[x, s], &[y]);
    // Sets of the module's own: values of every magnitude, squares and their neighbours, and
    // a shift per set.
    let mut sets = Vec::new();
    for k in 0..60 {
        let values: Vec<u64> = (0..n)
            .map(|_| {
                let bits = if any {
                    rng.range(0, 64)
                } else {
                    rng.range(0, 32)
                };
                let top = if bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << bits).wrapping_sub(1)
                };
                match rng.below(6) {
                    0 => top,
                    1 => {
                        let r = rng.range(0, 1 << 31) as u64;
                        (r * r).wrapping_add(rng.range(-1, 1) as u64)
                    }
                    _ => rng.next_u64() & top,
                }
            })
            .collect();
        let shift = if k % 5 == 0 {
            0
        } else {
            rng.range(0, 31) as i32
        };
        let mut set = u64_bytes(&values);
        set.extend_from_slice(&shift.to_le_bytes());
        sets.push(set);
    }
    let draft = Draft::new(
        &b,
        vec![
            InputSpec::int(DType::Int64, n, 0), // uint64 bits: the edges are 2^63, 2^63 - 1, 0
            InputSpec::int(DType::Int32, 1, 0),
        ],
        n,
        format!("{n} channels"),
    );
    Some((draft, sets))
}
