//! REVERSE_V2: TFLM's `reverse.cc` (`ReverseV2Prepare`, `ReverseV2Eval`) for the kernel
//! `stowplan::kernels::reverse` (any element type). TFLM reads the axes when the op runs;
//! stowplan resolves them when it builds, so they must be a constant.

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, invalid, kernel, product, resolve_axis};
use crate::tflite::DType;

/// REVERSE_V2.
pub const REVERSE_V2: OpKind = kernel("reverse", lower);

/// TFLM's `kMaxDimensions` (`RuntimeShape::kMaxSmallSize`).
const MAX_RANK: usize = 6;

/// The types `ReverseV2Prepare` takes.
const TYPES: &[DType] = &[
    DType::Int32,
    DType::Float32,
    DType::Uint8,
    DType::Int8,
    DType::Int16,
    DType::Int64,
    DType::Bool,
];

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    if cx.op.inputs.len() != 2 || cx.op.outputs.len() != 1 {
        return invalid("REVERSE_V2 takes 2 inputs and 1 output (TFLM's Prepare)");
    }
    let (input, axis_t, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    let ishape = cx.shape(input)?;
    let ashape = cx.shape(axis_t)?;
    let r = ishape.len();
    let n_axes = cx.elements(axis_t)?;
    if ashape.len() != 1 || r > MAX_RANK || n_axes > r {
        return invalid(format!(
            "{} of shape {ashape:?} for {} of rank {r} (TFLM's Prepare: one dimension, at most the rank, rank up to {MAX_RANK})",
            axis_t.desc(),
            input.desc()
        ));
    }
    cx.one_of(input, TYPES)?;
    cx.one_of(axis_t, &[DType::Int32])?;
    cx.same_type(input, out)?;
    cx.build_constant(axis_t, "axes")?;
    let mut axes = Vec::with_capacity(n_axes);
    for &a in &cx.const_ints(axis_t)? {
        axes.push(resolve_axis(a, r).ok_or_else(|| {
            Refusal::Invalid(format!("axis {a} of a rank-{r} input (TFLM's Eval fails)"))
        })?);
    }
    axes.sort_unstable();
    let (Some(&lo), Some(&hi)) = (axes.first(), axes.last()) else {
        return invalid("no axes (TFLM's Reverse reads axes[-1])");
    };
    if axes
        .windows(2)
        .any(|w| w.first().map(|a| a + 1) != w.get(1).copied())
    {
        return invalid(format!(
            "axes {axes:?} are not contiguous (TFLM's Eval: \"Non-contiguous `axes` not supported\")"
        ));
    }
    cx.expect_shape(out, &ishape)?;
    let size = |v: &[usize]| {
        product(v).ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", input.desc())))
    };
    let (upper, middle, lower) = (
        size(ishape.get(..lo).unwrap_or(&[]))?,
        size(ishape.get(lo..=hi).unwrap_or(&[]))?,
        size(ishape.get(hi + 1..).unwrap_or(&[]))?,
    );
    Ok(Call {
        params: Some(quote!(pub const #pname: #k::Reverse = #k::Reverse {
            upper: #upper, middle: #middle, lower: #lower,
        };)),
        body: quote!(#k::proven::reverse(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_reverse(&#pname, i0, o0))),
    })
}
