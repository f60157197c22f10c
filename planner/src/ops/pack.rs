//! PACK: TFLM's `pack.cc` (`PackEval`, `PackImpl`; no Prepare) for the kernel
//! `stowplan::kernels::pack` (any element type).

use quote::{format_ident, quote};

use super::{Call, Lower, OpKind, Refusal, invalid, kernel, product, resolve_axis};
use crate::tflite::{DType, OpOptions};

/// PACK.
pub const PACK: OpKind = kernel("pack", lower);

/// The types `PackEval` takes.
const TYPES: &[DType] = &[
    DType::Float32,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
];

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let out = cx.output(0)?;
    // Without options TFLM's parser leaves values_count and axis 0.
    let (count, axis) = match cx.op.options {
        OpOptions::Pack { values_count, axis } => (values_count, axis),
        OpOptions::None => (0, 0),
        _ => return invalid("its options are not PackOptions"),
    };
    let n = cx.op.inputs.len();
    if usize::try_from(count).ok() != Some(n) || n == 0 {
        return invalid(format!(
            "values_count {count} for {n} inputs (TFLM's PackImpl reads values_count inputs)"
        ));
    }
    cx.one_of(out, TYPES)?;
    let oshape = cx.shape(out)?;
    let ax = resolve_axis(i64::from(axis), oshape.len()).ok_or_else(|| {
        Refusal::Invalid(format!("axis {axis} of a rank-{} output", oshape.len()))
    })?;
    let mut expected = oshape.clone();
    if expected.get(ax) != Some(&n) {
        return invalid(format!(
            "{} has {:?} along axis {ax} for {n} inputs",
            out.desc(),
            expected.get(ax)
        ));
    }
    expected.remove(ax);
    for i in 0..n {
        let t = cx.input(i)?;
        cx.same_type(t, out)?;
        cx.expect_shape(t, &expected)?;
    }
    let outer = product(oshape.get(..ax).unwrap_or(&[]))
        .ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", out.desc())))?;
    let copy = product(oshape.get(ax + 1..).unwrap_or(&[]))
        .ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", out.desc())))?;
    let views: Vec<_> = (0..n).map(|i| format_ident!("i{i}")).collect();
    Ok(Call {
        params: None,
        body: quote!(#k::proven::pack(#outer, #copy, &[#(#views),*], o0);),
        reads: (0..n).collect(),
        check: Some(quote!(#k::check_pack(#outer, #copy, &[#(#views),*], o0))),
    })
}
