//! CONCATENATION: TFLM's `concatenation.cc` (`Prepare`), for the kernel
//! `stowplan::kernels::concatenation` (a copy of each input's rows, any element type).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::overwrite::{self, Overwrite, Pairing, WriteOrder};
use super::{
    Call, Lower, OpKind, Refusal, axis, invalid, kernel, product, unsupported, usize_lits,
};
use crate::graph::TensorInfo;
use crate::tflite::{Activation, DType, Model, Op, OpOptions};

/// CONCATENATION.
pub const CONCATENATION: OpKind = OpKind {
    overwrite: Some(OVERWRITE),
    ..kernel("concatenation", lower)
};

/// CONCATENATION on one buffer (`kernels::overlap::concatenation`): the first input's chunks
/// moved into their slots in the kernel's order, the other inputs from views of their own.
const OVERWRITE: Overwrite = Overwrite {
    input: 0,
    order: WriteOrder::Concatenation,
    fits: "concatenation_fits",
    entries: &["concatenation"],
    pairing,
};

/// A CONCATENATION (of int8, int16, int32, int64, float32 or bool, no fused activation) with
/// its first input over the output: from the concatenation's least displacement
/// (`kernels::overlap::concatenation_min_displacement`); `None` for shapes that do not
/// concatenate.
fn pairing(model: &Model, _: &[u8], tensors: &[TensorInfo], op: &Op) -> Option<Pairing> {
    let out = overwrite::only_output(model, op)?;
    let axis = match op.options {
        OpOptions::Concatenation {
            axis,
            activation: Activation::None,
        } => axis,
        OpOptions::None => 0,
        _ => return None,
    };
    let kinds = [
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::Float32,
        DType::Bool,
    ];
    if !kinds.contains(&out.dtype) {
        return None;
    }
    let oshape = &tensors.get(out.id.get())?.shape;
    let rank = i64::try_from(oshape.len()).ok()?;
    let axis = i64::from(axis);
    let ax = usize::try_from(if axis < 0 {
        axis.checked_add(rank)?
    } else {
        axis
    })
    .ok()?;
    if ax >= oshape.len() {
        return None;
    }
    let product = |dims: &[i32]| {
        dims.iter()
            .try_fold(1_usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))
    };
    let outer = product(oshape.get(..ax)?)?;
    let mut inners = Vec::with_capacity(op.inputs.len());
    let mut along = 0_usize;
    for i in 0..op.inputs.len() {
        let t = overwrite::operand(model, op, i)?;
        let shape = &tensors.get(t.id.get())?.shape;
        let same_elsewhere = t.dtype == out.dtype
            && shape.len() == oshape.len()
            && shape
                .iter()
                .zip(oshape)
                .enumerate()
                .all(|(d, (a, b))| d == ax || a == b);
        if !same_elsewhere {
            return None;
        }
        along = along.checked_add(usize::try_from(*shape.get(ax)?).ok()?)?;
        inners.push(product(shape.get(ax..)?)?);
    }
    if inners.is_empty() || usize::try_from(*oshape.get(ax)?).ok()? != along {
        return None;
    }
    let d = crate::kernels::overlap::concatenation_min_displacement(outer, &inners)?;
    Some(Pairing {
        least: overwrite::bytes(d, out.dtype.element_bytes()?)?,
        preferred: 0,
        pixel: 0,
    })
}

/// TFLM's `kMaxInputNum`.
const MAX_INPUTS: usize = 10;

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let out = cx.output(0)?;
    // Without options TFLM's parser keeps its defaults: axis 0, no activation.
    let (ax, activation) = match cx.op.options {
        OpOptions::Concatenation { axis, activation } => (axis, activation),
        OpOptions::None => (0, Activation::None),
        _ => return invalid("its options are not ConcatenationOptions"),
    };
    if activation != Activation::None {
        return invalid(format!(
            "a fused activation ({activation:?}) on CONCATENATION, which TFLM's Prepare refuses"
        ));
    }
    if !matches!(
        out.dtype,
        DType::Float32 | DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 | DType::Bool
    ) {
        return unsupported(format!("CONCATENATION of {}", out.dtype));
    }
    let n = cx.op.inputs.len();
    if n == 0 || n > MAX_INPUTS {
        return invalid(format!(
            "{n} inputs; TFLM's CONCATENATION takes 1 to {MAX_INPUTS}"
        ));
    }
    let oshape = cx.shape(out)?;
    let ax = axis(i64::from(ax), oshape.len())?;
    let outer = product(oshape.get(..ax).unwrap_or(&[]))
        .ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", out.desc())))?;
    let mut inners = Vec::with_capacity(n);
    let mut along = 0usize;
    for i in 0..n {
        let t = cx.input(i)?;
        cx.same_type(t, out)?;
        let shape = cx.shape(t)?;
        let same_elsewhere = shape.len() == oshape.len()
            && shape
                .iter()
                .zip(&oshape)
                .enumerate()
                .all(|(d, (a, b))| d == ax || a == b);
        if !same_elsewhere {
            return invalid(format!(
                "{} has shape {shape:?}, which differs from {}'s {oshape:?} outside axis {ax}",
                t.desc(),
                out.desc()
            ));
        }
        along = along.saturating_add(shape.get(ax).copied().unwrap_or(0));
        match t.dtype {
            DType::Int8 => {
                let (si, zi) = cx.quant(t)?;
                let (so, zo) = cx.quant(out)?;
                if si != so || zi != zo {
                    return invalid(format!(
                        "{} is quantised ({si}, {zi}) and {} ({so}, {zo}); TFLM's int8 CONCATENATION needs them equal",
                        t.desc(),
                        out.desc()
                    ));
                }
            }
            DType::Int16 if cx.quant(t)?.1 != 0 || cx.quant(out)?.1 != 0 => {
                return invalid("int16 CONCATENATION needs zero points 0 (TFLM's Prepare)");
            }
            _ => {}
        }
        inners.push(
            product(shape.get(ax..).unwrap_or(&[]))
                .ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", t.desc())))?,
        );
    }
    let out_along = oshape.get(ax).copied().unwrap_or(0);
    if along != out_along {
        return invalid(format!(
            "the inputs hold {along} along axis {ax}, {} has {out_along}",
            out.desc(),
        ));
    }
    let inners = usize_lits(&inners);
    if cx.overlap.is_some() {
        // The first input over the output (`kernel_order::concatenation`): one view of both,
        // the other inputs in theirs.
        let rest = (1..n).map(|i| format_ident!("i{i}"));
        let rest: Vec<_> = rest.collect();
        // The check takes the other inputs' lengths where the entry takes their views (the
        // views' names stand for their lengths in it).
        return cx.checked_overlapped_call(
            &quote!(concatenation),
            TokenStream::new(),
            |ia, oa| quote!(#outer, &#inners, #ia, #oa),
            &quote!(#outer, &#inners, &[#(#rest),*]),
            &quote!(#outer, &#inners, &[#(#rest),*]),
            (1..n).collect(),
            "at least the concatenation's least displacement above",
        );
    }
    let views: Vec<_> = (0..n).map(|i| format_ident!("i{i}")).collect();
    Ok(Call {
        params: None,
        body: quote!(#k::proven::concatenation(#outer, &#inners, &[#(#views),*], o0);),
        reads: (0..n).collect(),
        check: Some(quote!(#k::check_concatenation(#outer, &#inners, &[#(#views),*], o0))),
    })
}
