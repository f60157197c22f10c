//! MEAN: TFLM's `reduce.cc` / `reduce_common.cc` (`PrepareMeanOrSum`,
//! `PrepareMeanOrSumHelper`), for the kernels `stowplan::kernels::mean_s8`, `mean_s16` and
//! `mean_f32`.

use quote::quote;

use super::{
    Call, Lower, OpKind, Refusal, axis, f32_lit, i32_lit, invalid, kernel, requant, unsupported,
    usize_lits,
};
use crate::quant;
use crate::tflite::DType;

/// MEAN.
pub const MEAN: OpKind = kernel("reduce", mean);

/// The ranks the kernels take.
const MAX_RANK: usize = 4;

fn mean(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    cx.same_type(input, out)?;
    let axes_t = cx.input(1)?;
    cx.expect_type(axes_t, DType::Int32, "axes")?;
    let axes = cx.const_ints(axes_t)?;
    let ishape = cx.shape(input)?;
    let r = ishape.len();
    if r > MAX_RANK {
        return unsupported(format!(
            "MEAN of {} of rank {r} (the kernels take up to {MAX_RANK})",
            input.desc()
        ));
    }
    let mut reduce = [false; MAX_RANK];
    for &a in &axes {
        if let Some(slot) = reduce.get_mut(MAX_RANK - r + axis(a, r)?) {
            *slot = true;
        }
    }
    let kept: usize = ishape
        .iter()
        .zip(reduce.iter().skip(MAX_RANK - r))
        .filter(|(_, reduced)| !**reduced)
        .map(|(&n, _)| n)
        .product();
    if cx.elements(out)? != kept {
        return invalid(format!(
            "{} holds {} values; MEAN over axes {axes:?} of {:?} makes {kept}",
            out.desc(),
            cx.elements(out)?,
            ishape
        ));
    }
    let i = usize_lits(&cx.shape_n::<MAX_RANK>(input)?);
    let ax = reduce.iter().map(|b| quote!(#b));
    match input.dtype {
        DType::Int8 | DType::Int16 => {
            let (si, zi) = cx.quant(input)?;
            let (so, zo) = cx.quant(out)?;
            let m = requant(cx.rt, quant::rescale_multiplier(si, so));
            let (zi, zo, si, so) = (i32_lit(zi), i32_lit(zo), f32_lit(si)?, f32_lit(so)?);
            let (ty, f) = if input.dtype == DType::Int8 {
                (quote!(MeanS8), quote!(mean_s8))
            } else {
                (quote!(MeanS16), quote!(mean_s16))
            };
            Ok(Call {
                params: Some(quote!(pub const #pname: #k::#ty = #k::#ty {
                    input: #i, axes: [#(#ax),*], input_zero_point: #zi, output_zero_point: #zo,
                    input_scale: #si, output_scale: #so, requant: #m,
                };)),
                body: quote!(#k::#f(&params::#pname, i0, o0);),
                reads: vec![0],
            })
        }
        DType::Float32 => Ok(Call {
            params: Some(
                quote!(pub const #pname: #k::MeanF32 = #k::MeanF32 { input: #i, axes: [#(#ax),*] };),
            ),
            body: quote!(#k::mean_f32(&params::#pname, i0, o0);),
            reads: vec![0],
        }),
        other => unsupported(format!("the runtime has no MEAN kernel for {other}")),
    }
}
