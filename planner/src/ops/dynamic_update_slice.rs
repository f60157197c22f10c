//! DYNAMIC_UPDATE_SLICE: TFLM's `dynamic_update_slice.cc` (`Prepare`, `Eval`, `EvalImpl`) for
//! the kernel `stowplan::kernels::dynamic_update_slice` (float32, int8, int16 and int32; int32
//! or int64 start indices, read and clamped when the op runs, as TFLM does).

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, invalid, kernel, pad_front, usize_lits};
use crate::tflite::DType;

/// DYNAMIC_UPDATE_SLICE.
pub const DYNAMIC_UPDATE_SLICE: OpKind = kernel("dynamic_update_slice", lower);

/// TFLM's `kMaxDimensions`.
const MAX_RANK: usize = 6;

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    if cx.op.inputs.len() != 3 || cx.op.outputs.len() != 1 {
        return invalid("DYNAMIC_UPDATE_SLICE takes 3 inputs and 1 output (TFLM's Prepare)");
    }
    let (operand, update, indices, out) = (cx.input(0)?, cx.input(1)?, cx.input(2)?, cx.output(0)?);
    cx.same_type(operand, update)?;
    if !matches!(indices.dtype, DType::Int32 | DType::Int64) {
        return invalid(format!(
            "{} is {}; TFLM takes int32 or int64 start indices",
            indices.desc(),
            indices.dtype
        ));
    }
    let (oshape, ushape, ishape) = (cx.shape(operand)?, cx.shape(update)?, cx.shape(indices)?);
    if ishape.len() != 1 || ishape.first() != Some(&oshape.len()) || ushape.len() != oshape.len() {
        return invalid(format!(
            "{} {ishape:?} and {} {ushape:?} for {} {oshape:?} (TFLM's Prepare: one index per dimension, the same rank)",
            indices.desc(),
            update.desc(),
            operand.desc()
        ));
    }
    if ushape.iter().zip(&oshape).any(|(u, o)| u > o) {
        return invalid(format!(
            "{} {ushape:?} is larger than {} {oshape:?} (TFLM's Prepare)",
            update.desc(),
            operand.desc()
        ));
    }
    cx.one_of(
        operand,
        &[DType::Float32, DType::Int8, DType::Int16, DType::Int32],
    )?;
    cx.same_type(operand, out)?;
    cx.expect_shape(out, &oshape)?;
    let pad = |v: &[usize]| {
        pad_front::<MAX_RANK, usize>(v, 1).ok_or_else(|| {
            Refusal::Invalid(format!("rank {} above TFLM's {MAX_RANK}", oshape.len()))
        })
    };
    let (o, u) = (usize_lits(&pad(&oshape)?), usize_lits(&pad(&ushape)?));
    Ok(Call {
        params: Some(
            quote!(pub const #pname: #k::DynamicUpdateSlice = #k::DynamicUpdateSlice {
            operand: #o, update: #u,
        };),
        ),
        body: quote!(#k::proven::dynamic_update_slice(&params::#pname, i0, i1, i2, o0);),
        reads: vec![0, 1, 2],
        check: Some(quote!(#k::check_dynamic_update_slice(&#pname, i0, i1, i2, o0))),
    })
}
