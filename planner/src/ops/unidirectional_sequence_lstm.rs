//! UNIDIRECTIONAL_SEQUENCE_LSTM: TFLM's `unidirectional_sequence_lstm.cc`. No kernel in the
//! runtime yet; the build knows the scratch TFLM's reference kernel requests: four buffers of
//! the cell state's bytes (input 19, `[batch, cells]` of the cell type).

use super::{OpKind, dims, input, no_scratch};
use crate::tflite::{Model, Op};

/// UNIDIRECTIONAL_SEQUENCE_LSTM.
pub const UNIDIRECTIONAL_SEQUENCE_LSTM: OpKind = OpKind {
    module: "unidirectional_sequence_lstm",
    in_place: false,
    tflm_scratch: scratch,
    scratch: no_scratch,
    lower: None,
};

fn scratch(model: &Model, op: &Op) -> Option<Vec<u64>> {
    let cell_state = input(model, op, 19)?;
    let elements = dims(cell_state)?
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))?;
    let bytes = elements.checked_mul(cell_state.dtype.element_bytes()?)?;
    Some(vec![bytes; 4])
}
