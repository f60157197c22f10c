//! A dilated temporal convolution network (100x40), bench/models/tcn.
//! One `invoke` on the benchmark's input, counted by `bench/run.sh`.
#![no_std]
#![no_main]

#[cfg(feature = "op-marks")]
use stowplan_bench_firmware::marks;

#[cfg(not(feature = "op-marks"))]
stowplan::include_model!("../models/tcn/tcn.tflite", name = model, invoke = true);
#[cfg(feature = "op-marks")]
stowplan::include_model!(
    "../models/tcn/tcn.tflite",
    name = model,
    invoke = true,
    op_marks = crate::marks
);

stowplan_bench_firmware::bench_main!(model);
