//! MLPerf Tiny visual wake words (MobileNetV1 0.25, 96x96x3), bench/models/vww.
//! One `invoke` on the benchmark's input, counted by `bench/run.sh`.
#![no_std]
#![no_main]

#[cfg(feature = "op-marks")]
use stowplan_bench_firmware::marks;

#[cfg(not(feature = "op-marks"))]
stowplan::include_model!("../models/vww/vww.tflite", name = model, invoke = true);
#[cfg(feature = "op-marks")]
stowplan::include_model!(
    "../models/vww/vww.tflite",
    name = model,
    invoke = true,
    op_marks = crate::marks
);

stowplan_bench_firmware::bench_main!(model);
