//! SVDF: TFLM's `svdf.cc` / `svdf_common.cc`. No kernel in the runtime yet; the build knows
//! the scratch TFLM's reference kernel requests in `PrepareSvdf`: int8 input
//! `batch × filters × 4` then `batch × units × 4` bytes (int32 state and output), float input
//! `batch × filters × 4`.

use super::{OpKind, dims, input, no_scratch, output};
use crate::tflite::{DType, Model, Op};

/// SVDF.
pub const SVDF: OpKind = OpKind {
    module: "svdf",
    in_place: false,
    tflm_scratch: scratch,
    scratch: no_scratch,
    lower: None,
};

fn scratch(model: &Model, op: &Op) -> Option<Vec<u64>> {
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
