//! SPLIT: TFLM's `split.cc` (`SplitPrepare`, `SplitEval`, `SplitImpl`) for the kernel
//! `stowplan::kernels::split` (any element type). The axis is a constant (TFLM's Prepare
//! requires it) read as int32; every output takes output 0's extent along the axis, as TFLM's
//! `SplitImpl` does, so the outputs must be alike.

use quote::quote;

use super::{
    Call, Lower, OpKind, Refusal, invalid, kernel, output_views, product, raw_i32s, resolve_axis,
    usize_lits,
};
use crate::tflite::{DType, Tensor};

/// SPLIT.
pub const SPLIT: OpKind = kernel("split", lower);

/// The types `SplitEval` takes (also SPLIT_V's).
pub(super) const TYPES: &[DType] = &[DType::Float32, DType::Int8, DType::Int16, DType::Int32];

/// The axis of a SPLIT or SPLIT_V: a constant int32 (TFLM reads `GetTensorData<int32_t>[0]`),
/// negative counting from the end; outside the input's rank TFLM's Eval fails.
pub(super) fn split_axis(cx: &Lower<'_>, axis: &Tensor, rank: usize) -> Result<usize, Refusal> {
    let data = cx.tflm_constant(axis, "axis")?;
    let v = raw_i32s(data, 1)
        .and_then(|v| v.first().copied())
        .ok_or_else(|| Refusal::Invalid(format!("{} holds no int32 axis", axis.desc())))?;
    resolve_axis(i64::from(v), rank).ok_or_else(|| {
        Refusal::Invalid(format!(
            "axis {v} of a rank-{rank} input (TFLM's Eval fails)"
        ))
    })
}

/// The outer size and each output's copy size for a split of `input` along `axis` into
/// `outputs` with the given extents along the axis, after checking every output has the input's
/// other dimensions and the extents add up.
pub(super) fn copies(
    cx: &Lower<'_>,
    input: &Tensor,
    outputs: &[&Tensor],
    axis: usize,
) -> Result<(usize, Vec<usize>), Refusal> {
    let ishape = cx.shape(input)?;
    let outer = product(ishape.get(..axis).unwrap_or(&[]))
        .ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", input.desc())))?;
    let inner = product(ishape.get(axis + 1..).unwrap_or(&[]))
        .ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", input.desc())))?;
    let mut along = 0_usize;
    let mut copies = Vec::with_capacity(outputs.len());
    for o in outputs {
        let s = cx.shape(o)?;
        let alike = s.len() == ishape.len()
            && s.iter()
                .zip(&ishape)
                .enumerate()
                .all(|(d, (a, b))| d == axis || a == b);
        if !alike {
            return invalid(format!(
                "{} has shape {s:?}, which differs from {}'s {ishape:?} outside axis {axis}",
                o.desc(),
                input.desc()
            ));
        }
        let n = s.get(axis).copied().unwrap_or(0);
        along = along.saturating_add(n);
        copies.push(
            n.checked_mul(inner)
                .ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", o.desc())))?,
        );
    }
    if Some(&along) != ishape.get(axis) {
        return invalid(format!(
            "the outputs hold {along} along axis {axis}; {} has {:?}",
            input.desc(),
            ishape.get(axis)
        ));
    }
    Ok((outer, copies))
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let (axis_t, input) = (cx.input(0)?, cx.input(1)?);
    let outputs = cx.outputs_like(input)?;
    cx.one_of(input, TYPES)?;
    let rank = cx.shape(input)?.len();
    let axis = split_axis(cx, axis_t, rank)?;
    let first = outputs
        .first()
        .ok_or_else(|| Refusal::Invalid("SPLIT has no outputs".to_owned()))?;
    let first_shape = cx.shape(first)?;
    for o in &outputs {
        cx.expect_shape(o, &first_shape)?;
    }
    let (outer, copies) = copies(cx, input, &outputs, axis)?;
    let (c, views) = (usize_lits(&copies), output_views(outputs.len()));
    Ok(Call {
        params: None,
        body: quote!(#k::proven::split(#outer, &#c, i1, &mut #views);),
        reads: vec![1],
        check: Some(quote!(#k::check_split(#outer, &#c, i1, &#views))),
    })
}
