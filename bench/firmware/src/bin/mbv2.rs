//! MobileNetV2 0.35 (96x96x3, inverted residuals, ReLU6, ADDs), bench/models/mbv2.
//! One `invoke` on the benchmark's input, counted by `bench/run.sh`.
#![no_std]
#![no_main]

#[cfg(feature = "op-marks")]
use stowplan_bench_firmware::marks;

#[cfg(not(feature = "op-marks"))]
stowplan::include_model!("../models/mbv2/mbv2.tflite", name = model, invoke = true);
#[cfg(feature = "op-marks")]
stowplan::include_model!(
    "../models/mbv2/mbv2.tflite",
    name = model,
    invoke = true,
    op_marks = crate::marks
);

stowplan_bench_firmware::bench_main!(model);
