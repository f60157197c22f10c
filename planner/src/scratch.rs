//! Kernel scratch memory: the arena bytes a kernel asks for while it runs, beside its tensors.
//!
//! TensorFlow Lite Micro's kernels request scratch buffers in their `Prepare`
//! (`RequestScratchBufferInArena`); TFLM plans them with the tensors, each live for its op's
//! scope only, appended after every tensor in request order. When TFLM honours an offline plan
//! (see [`crate::embed`]), it places those requests first-fit around the fixed offsets, so a plan
//! that leaves no room for them makes TFLM's arena grow past it. Planning them as buffers of
//! their own (lifetime of one op) reserves that room.
//!
//! [`tflm_requests`] knows the requests of the TFLM reference kernels that ask for scratch in the
//! models this project is checked on:
//!
//! | op | requests (bytes) |
//! |---|---|
//! | `SVDF`, int8 input | `batch × filters × 4`, then `batch × units × 4` |
//! | `SVDF`, float input | `batch × filters × 4` |
//! | `UNIDIRECTIONAL_SEQUENCE_LSTM` | four of `batch × cells × cell element size` (the cell state's bytes, input 19) |
//! | `SignalRfft` (custom) | `fft_length × element size`, with `fft_length` = the output's last dimension − 2 (the output holds `fft_length / 2 + 1` complex values) |
//!
//! Other ops are taken to request none (true of TFLM's reference kernels for every op in the
//! models the project checks; optimised kernel builds such as CMSIS-NN request more). The real
//! TFLM interpreter confirms these sizes: with them, stowplan's greedy plan equals TFLM's arena
//! head on every model it runs (`tests/tflm/check_heads.py`).

use crate::tflite::{DType, Model, Op, Opcode, Tensor};

/// Where kernel scratch comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum KernelScratch {
    /// No scratch is planned: stowplan's own kernels need none.
    #[default]
    None,
    /// The requests of TensorFlow Lite Micro's reference kernels ([`tflm_requests`]).
    Tflm,
}

/// One planned scratch buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScratchBuffer {
    /// The op that asks for it, by position in [`Model::ops`].
    pub op: usize,
    /// Its size in bytes.
    pub bytes: u64,
}

fn dims(t: &Tensor) -> Option<Vec<u64>> {
    t.shape.iter().map(|&d| u64::try_from(d).ok()).collect()
}

fn input<'m>(model: &'m Model, op: &Op, i: usize) -> Option<&'m Tensor> {
    model.tensor(op.subgraph, (*op.inputs.get(i)?)?)
}

fn output<'m>(model: &'m Model, op: &Op, i: usize) -> Option<&'m Tensor> {
    model.tensor(op.subgraph, *op.outputs.get(i)?)
}

/// The scratch requests of TFLM's reference kernel for `op`, in request order (empty for ops
/// that request none or whose tensors do not have the shapes the kernel requires).
#[must_use]
pub fn tflm_requests(model: &Model, op: &Op) -> Vec<u64> {
    let requests = match &op.opcode {
        Opcode::Builtin(b) if b.name() == Some("SVDF") => svdf(model, op),
        Opcode::Builtin(b) if b.name() == Some("UNIDIRECTIONAL_SEQUENCE_LSTM") => lstm(model, op),
        Opcode::Custom(code) if code == "SignalRfft" => rfft(model, op),
        _ => None,
    };
    requests.unwrap_or_default()
}

fn svdf(model: &Model, op: &Op) -> Option<Vec<u64>> {
    let batch = *dims(input(model, op, 0)?)?.first()?;
    let filters = *dims(input(model, op, 1)?)?.first()?;
    let int32 = 4u64;
    let first = batch.checked_mul(filters)?.checked_mul(int32)?;
    if input(model, op, 0)?.dtype == DType::Float32 {
        return Some(vec![first]);
    }
    let units = *dims(output(model, op, 0)?)?.get(1)?;
    Some(vec![first, batch.checked_mul(units)?.checked_mul(int32)?])
}

fn lstm(model: &Model, op: &Op) -> Option<Vec<u64>> {
    // Input 19 is the cell state, [batch, cells], of the cell type.
    let cell_state = input(model, op, 19)?;
    let elements = dims(cell_state)?
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))?;
    let bytes = elements.checked_mul(cell_state.dtype.element_bytes()?)?;
    Some(vec![bytes; 4])
}

fn rfft(model: &Model, op: &Op) -> Option<Vec<u64>> {
    let element = input(model, op, 0)?.dtype.element_bytes()?;
    let last = *dims(output(model, op, 0)?)?.last()?;
    let fft_length = last.checked_sub(2)?;
    Some(vec![fft_length.checked_mul(element)?])
}
