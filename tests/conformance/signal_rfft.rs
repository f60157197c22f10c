//! `SignalRfft` (custom op of TFLM's signal library): real FFTs of int16, int32 and float32
//! frames (KISS FFT as TFLM builds it), fft lengths whose half factors into 2, 3, 4 and 5
//! (powers of two, 6, 10, 12, 30, 60, 96, ...), frames as long as the FFT or shorter
//! (zero-padded), one frame or several.

use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::flexbuffer::{WriteValue, write_map};

use crate::suite::{self, Draft, InputSpec, Rng, Spec, Target, Variant};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for (label, dtype, code) in [
        ("int16", DType::Int16, 7),
        ("int32", DType::Int32, 2),
        ("float32", DType::Float32, 0),
    ] {
        for shape in ["powers of two", "mixed radix"] {
            let spec = Spec {
                op: "signal_rfft",
                builtin: "SignalRfft",
                types: label.to_owned(),
                options: String::new(),
                shape,
            };
            out.push(suite::fill(seed, spec, target, |rng, _| {
                draw(rng, dtype, code, shape == "mixed radix")
            }));
        }
    }
    out
}

fn draw(rng: &mut Rng, dtype: DType, code: i64, mixed: bool) -> Option<Draft> {
    let half = if mixed {
        rng.pick(&[
            3, 5, 6, 10, 12, 15, 20, 30, 45, 48, 60, 75, 96, 120, 150, 240,
        ])
    } else {
        1 << rng.range(1, 9)
    };
    let fft = 2 * half;
    let frame = if rng.chance(0.5) {
        fft
    } else {
        rng.size(1, fft)
    };
    let frames = if rng.chance(0.5) { 1 } else { rng.size(2, 4) };
    let options = write_map(
        &[
            ("T", WriteValue::Int(code)),
            ("fft_length", WriteValue::Int(fft as i64)),
        ],
        rng.pick(&[1, 2, 4, 8]),
    );
    let (ishape, oshape) = if frames == 1 {
        (vec![frame], vec![fft + 2])
    } else {
        (vec![frames, frame], vec![frames, fft + 2])
    };
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::activation(&mut b, sg, "input", dtype, &ishape, None);
    let y = suite::activation(&mut b, sg, "output", dtype, &oshape, None);
    b.custom_with_options(sg, "SignalRfft", &[x], &[y], &options);
    b.io(sg, &[x], &[y]);
    let n = suite::elements(&ishape);
    let spec = if dtype == DType::Float32 {
        InputSpec::float(n, 1.0)
    } else {
        InputSpec::int(dtype, n, 0)
    };
    Some(Draft::new(
        &b,
        vec![spec],
        suite::elements(&oshape),
        format!("fft {fft}, frames {frames} of {frame}"),
    ))
}
