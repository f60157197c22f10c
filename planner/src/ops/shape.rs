//! SHAPE: TFLM's `shape.cc` (`ShapePrepare`, `ShapeEval`) for the kernel
//! `stowplan::kernels::shape`: the input's dimensions, known when stowplan builds, written as
//! int32 (the only output type `ShapeEval` takes).

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, i32_lits, invalid, kernel, unsupported};
use crate::tflite::DType;

/// SHAPE.
pub const SHAPE: OpKind = kernel("shape", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    if cx.op.inputs.len() != 1 || cx.op.outputs.len() != 1 {
        return invalid("SHAPE takes 1 input and 1 output (TFLM's Prepare)");
    }
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    if out.dtype != DType::Int32 {
        return unsupported(format!(
            "SHAPE into {} ({}): TFLM's ShapeEval writes int32 only",
            out.dtype,
            out.desc()
        ));
    }
    let dims: Vec<i32> = cx
        .shape(input)?
        .iter()
        .map(|&d| i32::try_from(d))
        .collect::<Result<_, _>>()
        .map_err(|_| Refusal::Invalid(format!("{} has a dimension above int32", input.desc())))?;
    cx.expect_shape(out, &[dims.len()])?;
    let d = i32_lits(&dims);
    Ok(Call {
        params: None,
        body: quote!(#k::proven::shape(&#d, o0);),
        reads: vec![],
        check: Some({
            let n = proc_macro2::Literal::usize_unsuffixed(dims.len());
            quote!(#k::check_shape(#n, o0))
        }),
    })
}
