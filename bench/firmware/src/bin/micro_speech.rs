//! TFLite Micro's micro_speech, read in place from ../shared/models (feature `shared-models`).
//! One `invoke` on the benchmark's input, counted by `bench/run.sh`.
#![no_std]
#![no_main]

#[cfg(feature = "op-marks")]
use stowplan_bench_firmware::marks;

#[cfg(not(feature = "op-marks"))]
stowplan::include_model!(
    "../../../shared/models/tflm_micro_speech_int8.tflite",
    name = model,
    invoke = true
);
#[cfg(feature = "op-marks")]
stowplan::include_model!(
    "../../../shared/models/tflm_micro_speech_int8.tflite",
    name = model,
    invoke = true,
    op_marks = crate::marks
);

stowplan_bench_firmware::bench_main!(model);
