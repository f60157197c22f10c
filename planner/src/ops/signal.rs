//! TFLM's signal library (custom ops, `signal/micro/kernels/`). No kernels in the runtime yet;
//! the build knows the scratch `SignalRfft` requests: `fft_length × element size` bytes, with
//! `fft_length` the output's last dimension − 2 (the output holds `fft_length / 2 + 1` complex
//! values).

use super::{OpKind, dims, input, no_scratch, output};
use crate::tflite::{Model, Op};

/// `SignalRfft`.
pub const RFFT: OpKind = OpKind {
    module: "signal",
    in_place: false,
    tflm_scratch: rfft_scratch,
    scratch: no_scratch,
    lower: None,
};

fn rfft_scratch(model: &Model, op: &Op) -> Option<Vec<u64>> {
    let element = input(model, op, 0)?.dtype.element_bytes()?;
    let last = *dims(output(model, op, 0)?)?.last()?;
    let fft_length = last.checked_sub(2)?;
    Some(vec![fft_length.checked_mul(element)?])
}
