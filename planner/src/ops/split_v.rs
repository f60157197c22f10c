//! SPLIT_V: TFLM's `split_v.cc` (`SplitVPrepare`, `SplitVEval`, `SplitImpl`) for the kernel
//! `stowplan::kernels::split_v` (any element type). The axis (input 2) is a constant, as TFLM's
//! Prepare requires; the sizes (input 1) are not read: each output takes its own extent along
//! the axis, as TFLM's `SplitImpl` does.

use quote::quote;

use super::split::{TYPES, copies, split_axis};
use super::{Call, Lower, OpKind, Refusal, invalid, kernel, output_views, usize_lits};

/// SPLIT_V.
pub const SPLIT_V: OpKind = kernel("split_v", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    if cx.op.inputs.len() != 3 {
        return invalid("SPLIT_V takes 3 inputs (TFLM's Prepare)");
    }
    let (input, axis_t) = (cx.input(0)?, cx.input(2)?);
    let outputs = cx.outputs_like(input)?;
    cx.one_of(input, TYPES)?;
    let rank = cx.shape(input)?.len();
    let axis = split_axis(cx, axis_t, rank)?;
    let (outer, copies) = copies(cx, input, &outputs, axis)?;
    let (c, views) = (usize_lits(&copies), output_views(outputs.len()));
    Ok(Call {
        params: None,
        body: quote!(#k::proven::split_v(#outer, &#c, i0, &mut #views);),
        reads: vec![0],
        check: Some(quote!(#k::check_split_v(#outer, &#c, i0, &#views))),
    })
}
