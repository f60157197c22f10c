//! MLPerf Tiny keyword spotting (DS-CNN small, 49x10x1), bench/models/kws.
//! One `invoke` on the benchmark's input, counted by `bench/run.sh`.
#![no_std]
#![no_main]

#[cfg(feature = "op-marks")]
use stowplan_bench_firmware::marks;

#[cfg(not(feature = "op-marks"))]
stowplan::include_model!("../models/kws/kws.tflite", name = model, invoke = true);
#[cfg(feature = "op-marks")]
stowplan::include_model!(
    "../models/kws/kws.tflite",
    name = model,
    invoke = true,
    op_marks = crate::marks
);

stowplan_bench_firmware::bench_main!(model);
