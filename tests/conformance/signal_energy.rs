//! `SignalEnergy` (custom op of TFLM's signal library): squared magnitudes of complex int16
//! values, over the whole spectrum or a band of it (`start_index..end_index`). TFLM never
//! writes the values before the band's start (they hold what its arena held), so a band model
//! takes the band out with CAST (uint32 to int32) and SLICE, as TFLM's audio front end does
//! with STRIDED_SLICE; its parameters are op 0's.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::flexbuffer::{WriteValue, write_map};
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    ["whole spectrum", "band"]
        .into_iter()
        .map(|shape| {
            let spec = Spec {
                op: "signal_energy",
                builtin: "SignalEnergy",
                types: "int16 -> uint32".to_owned(),
                options: String::new(),
                shape,
            };
            suite::fill(seed, spec, target, |rng, _| draw(rng, shape == "band"))
        })
        .collect()
}

fn draw(rng: &mut Rng, band: bool) -> Option<Draft> {
    let complex = rng.size(1, 600);
    let (start, end) = if band {
        let e = rng.size(1, complex);
        (rng.size(0, e - 1), e)
    } else {
        (0, complex)
    };
    let options = write_map(
        &[
            ("end_index", WriteValue::Int(end as i64)),
            ("start_index", WriteValue::Int(start as i64)),
        ],
        rng.pick(&[1, 2, 4, 8]),
    );
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::activation(&mut b, sg, "input", DType::Int16, &[2 * complex], None);
    let y = b.tensor(sg, "energy", DType::Uint32, &suite::dims(&[end]));
    b.custom_with_options(sg, "SignalEnergy", &[x], &[y], &options);
    let outputs = if band {
        let c = b.tensor(sg, "energy_i32", DType::Int32, &suite::dims(&[end]));
        b.op(sg, BuiltinOp::from_name("CAST")?, &[y], &[c]);
        let begin = b.constant(
            sg,
            "begin",
            DType::Int32,
            &[1],
            &(start as i32).to_le_bytes(),
        );
        let size = b.constant(
            sg,
            "size",
            DType::Int32,
            &[1],
            &((end - start) as i32).to_le_bytes(),
        );
        let o = b.tensor(sg, "band", DType::Int32, &suite::dims(&[end - start]));
        b.op(sg, BuiltinOp::from_name("SLICE")?, &[c, begin, size], &[o]);
        o
    } else {
        y
    };
    b.io(sg, &[x], &[outputs]);
    Some(Draft::new(
        &b,
        vec![InputSpec::int(DType::Int16, 2 * complex, 0)],
        if band { end - start } else { end },
        format!("{complex} complex values, band {start}..{end}"),
    ))
}
