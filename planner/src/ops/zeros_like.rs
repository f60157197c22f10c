//! ZEROS_LIKE: TFLM's `zeros_like.cc` (`ZerosLikePrepare`: the output takes the input's type;
//! its Eval takes int64, int32, int8 and float32), for the kernel
//! `stowplan::kernels::zeros_like`.

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, invalid, kernel, unsupported};
use crate::tflite::DType;

/// ZEROS_LIKE.
pub const ZEROS_LIKE: OpKind = kernel("zeros_like", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    // zeros_like.cc:28-29
    if cx.op.inputs.len() != 1 || cx.op.outputs.len() != 1 {
        return invalid(format!(
            "ZEROS_LIKE has {} inputs and {} outputs; TFLM's Prepare needs 1 and 1",
            cx.op.inputs.len(),
            cx.op.outputs.len()
        ));
    }
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    cx.same_type(input, out)?;
    if !matches!(
        input.dtype,
        DType::Int64 | DType::Int32 | DType::Int8 | DType::Float32
    ) {
        return unsupported(format!(
            "the runtime has no ZEROS_LIKE kernel for {} (nor has TFLM's)",
            input.dtype
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
        body: quote!(#k::zeros_like(o0);),
        reads: vec![],
        check: None,
    })
}
