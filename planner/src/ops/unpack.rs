//! UNPACK: TFLM's `unpack.cc` (`UnpackEval`, `UnpackImpl`; no Prepare) for the kernel
//! `stowplan::kernels::unpack` (any element type).

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, invalid, kernel, output_views, product, resolve_axis};
use crate::tflite::{DType, OpOptions};

/// UNPACK.
pub const UNPACK: OpKind = kernel("unpack", lower);

/// The types `UnpackEval` takes.
const TYPES: &[DType] = &[DType::Float32, DType::Int32, DType::Int16, DType::Int8];

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let input = cx.input(0)?;
    let (num, axis) = match cx.op.options {
        OpOptions::Unpack { num, axis } => (num, axis),
        OpOptions::None => (0, 0),
        _ => return invalid("its options are not UnpackOptions"),
    };
    let outputs = cx.outputs_like(input)?;
    let n = outputs.len();
    if usize::try_from(num).ok() != Some(n) || n == 0 {
        return invalid(format!(
            "num {num} for {n} outputs (TFLM's UnpackImpl writes num outputs)"
        ));
    }
    cx.one_of(input, TYPES)?;
    let ishape = cx.shape(input)?;
    let ax = resolve_axis(i64::from(axis), ishape.len())
        .ok_or_else(|| Refusal::Invalid(format!("axis {axis} of a rank-{} input", ishape.len())))?;
    if ishape.get(ax) != Some(&n) {
        return invalid(format!(
            "{} has {:?} along axis {ax} for {n} outputs",
            input.desc(),
            ishape.get(ax)
        ));
    }
    let mut expected = ishape.clone();
    expected.remove(ax);
    for o in &outputs {
        cx.expect_shape(o, &expected)?;
    }
    let outer = product(ishape.get(..ax).unwrap_or(&[]))
        .ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", input.desc())))?;
    let copy = product(ishape.get(ax + 1..).unwrap_or(&[]))
        .ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", input.desc())))?;
    let views = output_views(n);
    Ok(Call {
        params: None,
        body: quote!(#k::proven::unpack(#outer, #copy, i0, &mut #views);),
        reads: vec![0],
        check: Some(quote!(#k::check_unpack(#outer, #copy, i0, &#views))),
    })
}
