//! CAST: every pair TFLM's `cast.cc` converts (from int8, int16, int32, uint32, float32 and
//! bool to int8, int16, int32, uint32 and float32), ranks 0 to 5; float inputs at every
//! magnitude (the conversions to integers out of range, NaN and infinities included) and at
//! the special values, integer inputs over their whole range.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant, elements};

/// The input types.
const FROM: [(&str, DType); 6] = [
    ("int8", DType::Int8),
    ("int16", DType::Int16),
    ("int32", DType::Int32),
    ("uint32", DType::Uint32),
    ("float32", DType::Float32),
    ("bool", DType::Bool),
];

/// The output types.
const TO: [(&str, DType); 5] = [
    ("int8", DType::Int8),
    ("int16", DType::Int16),
    ("int32", DType::Int32),
    ("uint32", DType::Uint32),
    ("float32", DType::Float32),
];

/// Floats at the edges of the integer types, past them, and the specials.
fn float_edges() -> Vec<f32> {
    let mut v = suite::F32_SPECIALS.to_vec();
    v.extend([
        127.5,
        128.0,
        -128.5,
        -129.0,
        255.9,
        256.0,
        32767.9,
        32768.0,
        -32768.9,
        -32769.0,
        65536.5,
        2_147_483_520.0,
        2_147_483_648.0,
        -2_147_483_648.0,
        -2_147_483_904.0,
        4_294_967_040.0,
        4_294_967_296.0,
        1e10,
        -1e10,
        9.2e18,
        9.3e18,
        -9.3e18,
        1e30,
        -3.7,
    ]);
    v
}

fn draw(rng: &mut Rng, index: usize, from: DType, to: DType) -> Option<(Draft, Vec<Vec<u8>>)> {
    let wide = rng.chance(0.2);
    let shape = suite::shape_within(rng, index % 6, 3000, wide);
    let op = BuiltinOp::from_name("CAST")?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::activation(&mut b, sg, "input", from, &shape, None);
    let y = suite::activation(&mut b, sg, "output", to, &shape, None);
    b.op_with_options(
        sg,
        op,
        &[x],
        &[y],
        stowplan_planner::tflite::OpOptions::Cast {
            in_data_type: from,
            out_data_type: to,
        },
    );
    b.io(sg, &[x], &[y]);
    let n = elements(&shape);
    let magnitude = [1.0, 1e2, 1e4, 1e9, 1e20, 1e36][index % 6];
    let spec = if from == DType::Float32 {
        InputSpec::float(n, magnitude)
    } else {
        InputSpec::int(from, n, 0)
    };
    let sets = if from == DType::Float32 {
        let edges = float_edges();
        (0..4).map(|o| suite::cycle_f32(n, &edges, o * 7)).collect()
    } else {
        Vec::new()
    };
    let note = format!("{shape:?} magnitude {magnitude:e}");
    Some((Draft::new(&b, vec![spec], n, note), sets))
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(6),
    };
    let mut out = Vec::new();
    for (fname, from) in FROM {
        for (tname, to) in TO {
            let spec = Spec {
                op: "cast",
                builtin: "CAST",
                types: format!("{fname}->{tname}"),
                options: String::new(),
                shape: "any",
            };
            out.push(suite::fill_with_sets(seed, spec, target, |rng, index| {
                draw(rng, index, from, to)
            }));
        }
    }
    out
}
