//! ADD: TFLM's `add.cc` / `add_common.cc` (`AddPrepare`, `CalculateOpDataAdd`), for the
//! kernels `stowplan::kernels::add_s8` and `add_f32`; the broadcast shape shared with MUL.

use proc_macro2::TokenStream;
use quote::quote;

use super::{
    Call, Lower, OpKind, Refusal, act_range_f32, f32_lit, fused, i32_lit, invalid, kernel, requant,
    unsupported, usize_lits,
};
use crate::quant;
use crate::tflite::{Activation, DType, OpOptions, Tensor};

/// ADD.
pub const ADD: OpKind = kernel("add", lower);

/// The `BinaryShape` tokens of a broadcasting binary op: each shape right-aligned into six
/// dimensions, every input dimension 1 or the output's.
pub(super) fn binary_shape(
    cx: &Lower<'_>,
    a: &Tensor,
    b: &Tensor,
    out: &Tensor,
) -> Result<TokenStream, Refusal> {
    let k = cx.k();
    let (sa, sb, so) = (
        cx.shape_n::<6>(a)?,
        cx.shape_n::<6>(b)?,
        cx.shape_n::<6>(out)?,
    );
    for (t, s) in [(a, &sa), (b, &sb)] {
        if s.iter().zip(&so).any(|(&d, &o)| d != 1 && d != o) {
            return invalid(format!(
                "{} of shape {:?} does not broadcast to {} of shape {:?}",
                t.desc(),
                t.shape,
                out.desc(),
                out.shape
            ));
        }
    }
    if sa
        .iter()
        .zip(&sb)
        .zip(&so)
        .any(|((&x, &y), &o)| o != x.max(y) && x * y != 0)
    {
        return invalid(format!(
            "{} has shape {:?}, not the broadcast of its inputs' shapes",
            out.desc(),
            out.shape
        ));
    }
    let (la, lb, lo) = (usize_lits(&sa), usize_lits(&sb), usize_lits(&so));
    Ok(quote!(#k::BinaryShape { input1: #la, input2: #lb, output: #lo }))
}

/// The fused activation of ADD or MUL.
pub(super) fn activation(cx: &Lower<'_>) -> Result<Activation, Refusal> {
    match cx.op.options {
        OpOptions::Add { activation, .. } | OpOptions::Mul { activation } => Ok(activation),
        OpOptions::None => Ok(Activation::None),
        _ => invalid("its options are not AddOptions or MulOptions"),
    }
}

/// The float kernel call of ADD or MUL.
pub(super) fn float_call(
    cx: &Lower<'_>,
    shape: TokenStream,
    act: Activation,
    f: TokenStream,
) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (lo, hi) = act_range_f32(act)?;
    let (lo, hi) = (f32_lit(lo)?, f32_lit(hi)?);
    Ok(Call {
        params: Some(quote!(pub const #pname: #k::BinaryF32 = #k::BinaryF32 {
            shape: #shape, act_min: #lo, act_max: #hi,
        };)),
        body: quote!(#k::#f(&params::#pname, i0, i1, o0);),
        reads: vec![0, 1],
    })
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (a, b, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    cx.same_type(a, out)?;
    cx.same_type(b, out)?;
    let act = activation(cx)?;
    let shape = binary_shape(cx, a, b, out)?;
    match out.dtype {
        DType::Int8 => {
            let (s1, z1) = cx.quant(a)?;
            let (s2, z2) = cx.quant(b)?;
            let (so, zo) = cx.quant(out)?;
            let p = quant::add_params((s1, z1), (s2, z2), (so, zo), fused(act)?).ok_or_else(|| {
                Refusal::Invalid(format!(
                    "scales {s1} and {s2} into {so} give a multiplier TFLM's QuantizeMultiplierSmallerThanOneExp refuses (its Prepare aborts), or the {act:?} range overflows"
                ))
            })?;
            let (m1, m2, mo) = (
                requant(cx.rt, p.input1),
                requant(cx.rt, p.input2),
                requant(cx.rt, p.output),
            );
            let (o1, o2, oo) = (
                i32_lit(p.input1_offset),
                i32_lit(p.input2_offset),
                i32_lit(p.output_offset),
            );
            let (lo, hi, ls) = (
                i32_lit(p.act_min),
                i32_lit(p.act_max),
                i32_lit(p.left_shift),
            );
            Ok(Call {
                params: Some(quote!(pub const #pname: #k::AddS8 = #k::AddS8 {
                    shape: #shape, left_shift: #ls,
                    input1_offset: #o1, input1: #m1, input2_offset: #o2, input2: #m2,
                    output_offset: #oo, output: #mo, act_min: #lo, act_max: #hi,
                };)),
                body: quote!(#k::add_s8(&params::#pname, i0, i1, o0);),
                reads: vec![0, 1],
            })
        }
        DType::Float32 => float_call(cx, shape, act, quote!(add_f32)),
        other => unsupported(format!("the runtime has no ADD kernel for {other}")),
    }
}
