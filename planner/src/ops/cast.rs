//! CAST: TFLM's `cast.cc` (`CastPrepare`: one input, one output; its Eval converts from int8,
//! int16, int32, uint32, float32 and bool to int8, int16, int32, uint32 and float32), for the
//! kernel `stowplan::kernels::cast` (the conversions as x86-64 computes them).

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, invalid, kernel, unsupported};
use crate::tflite::DType;

/// CAST.
pub const CAST: OpKind = kernel("cast", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    // cast.cc:30-31
    if cx.op.inputs.len() != 1 || cx.op.outputs.len() != 1 {
        return invalid(format!(
            "CAST has {} inputs and {} outputs; TFLM's Prepare needs 1 and 1",
            cx.op.inputs.len(),
            cx.op.outputs.len()
        ));
    }
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    let from = matches!(
        input.dtype,
        DType::Int8 | DType::Int16 | DType::Int32 | DType::Uint32 | DType::Float32 | DType::Bool
    );
    let to = matches!(
        out.dtype,
        DType::Int8 | DType::Int16 | DType::Int32 | DType::Uint32 | DType::Float32
    );
    if !(from && to) {
        return unsupported(format!(
            "the runtime has no CAST from {} to {} (nor has TFLM's)",
            input.dtype, out.dtype
        ));
    }
    if cx.elements(input)? != cx.elements(out)? {
        return invalid(format!(
            "{} and {} differ in size",
            input.desc(),
            out.desc()
        ));
    }
    Ok(Call {
        params: None,
        body: quote!(#k::proven::cast(i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_cast(i0, o0))),
    })
}
