//! BROADCAST_ARGS: TFLM's `broadcast_args.cc` (`BroadcastArgsPrepare`, `BroadcastArgsEval`) for
//! the kernel `stowplan::kernels::broadcast_args` (int32 and int64). The output's length is the
//! model's; its values are computed when the op runs, from the shapes' values (constants or
//! not), as TFLM does.

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, invalid, kernel};
use crate::tflite::DType;

/// BROADCAST_ARGS.
pub const BROADCAST_ARGS: OpKind = kernel("broadcast_args", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    if cx.op.inputs.len() != 2 || cx.op.outputs.len() != 1 {
        return invalid("BROADCAST_ARGS takes 2 inputs and 1 output (TFLM's Prepare)");
    }
    let (s1, s2, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    if !matches!(s1.dtype, DType::Int32 | DType::Int64) {
        return invalid(format!(
            "{} is {}; TFLM's BROADCAST_ARGS takes int32 or int64 shapes",
            s1.desc(),
            s1.dtype
        ));
    }
    cx.same_type(s1, s2)?;
    cx.same_type(s1, out)?;
    for t in [s1, s2, out] {
        if cx.shape(t)?.len() != 1 {
            return invalid(format!(
                "{} is not one-dimensional (TFLM's Prepare)",
                t.desc()
            ));
        }
    }
    let (n1, n2, n) = (cx.elements(s1)?, cx.elements(s2)?, cx.elements(out)?);
    if n < n1.max(n2) {
        return invalid(format!(
            "{} holds {n} values for shapes of {n1} and {n2} (TFLM's kernel reads past the output)",
            out.desc()
        ));
    }
    Ok(Call {
        params: None,
        body: quote!(#k::proven::broadcast_args(i0, i1, o0);),
        reads: vec![0, 1],
        check: Some(quote!(#k::check_broadcast_args(i0, i1, o0))),
    })
}
