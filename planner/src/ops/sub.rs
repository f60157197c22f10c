//! SUB: TFLM's `sub.cc` / `sub_common.cc` (`SubPrepare`, `CalculateOpDataSub`), for the
//! kernels `stowplan::kernels::sub_s8`, `sub_s16`, `sub_i32` and `sub_f32`; shapes broadcast as
//! ADD's.

use quote::{format_ident, quote};

use super::add::{
    act_range_i32, activation, add_params_tokens, binary_shape, float_call, int32_call, unquantized,
};
use super::{Call, Lower, OpKind, Refusal, fused, kernel, unsupported};
use crate::quant;
use crate::tflite::DType;

/// SUB.
pub const SUB: OpKind = kernel("sub", lower);

/// A binary op's call as ADD's helpers make it (`int32_call`, `float_call`: the plain entry `f`
/// with inputs 0 and 1 and the output, never on one buffer for SUB and DIV) made to call `f`'s
/// proven entry, its check asserted when the crate compiles.
pub(super) fn proven_binary(cx: &Lower<'_>, mut call: Call, f: &str) -> Call {
    let k = cx.k();
    let pname = cx.params;
    let (f, check) = (format_ident!("{f}"), format_ident!("check_{f}"));
    call.body = quote!(#k::proven::#f(&params::#pname, i0, i1, o0););
    call.check = Some(quote!(#k::#check(&#pname, i0, i1, o0)));
    call
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (a, b, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    cx.same_type(a, out)?;
    cx.same_type(b, out)?;
    let act = activation(cx)?;
    let shape = binary_shape(cx, a, b, out)?;
    let (left_shift, f) = match out.dtype {
        DType::Int8 => (20, quote!(sub_s8)),
        DType::Int16 => (15, quote!(sub_s16)),
        DType::Int32 => {
            // sub_common.cc:96-103: int32 only unquantised; sub.cc:60 clamps to
            // CalculateActivationRange<int32_t>.
            unquantized(a, "SUB")?;
            unquantized(b, "SUB")?;
            unquantized(out, "SUB")?;
            return int32_call(cx, shape, act_range_i32(act)?, quote!(sub_i32))
                .map(|c| proven_binary(cx, c, "sub_i32"));
        }
        DType::Float32 => {
            return float_call(cx, shape, act, quote!(sub_f32))
                .map(|c| proven_binary(cx, c, "sub_f32"));
        }
        other => return unsupported(format!("the runtime has no SUB kernel for {other}")),
    };
    let (s1, z1) = cx.quant(a)?;
    let (s2, z2) = cx.quant(b)?;
    let (so, zo) = cx.quant(out)?;
    // sub_common.cc:38-66 (CalculateOpDataSub) as the pinned wheel computes it: the source at
    // 90b983c2 keeps the scales in float, but the wheel's outputs match ADD's arithmetic in
    // double (found by the conformance suite: int16 models whose float multipliers are an
    // ulp away), so SUB's parameters are ADD's.
    let range = if out.dtype == DType::Int8 {
        (i32::from(i8::MIN), i32::from(i8::MAX))
    } else {
        (i32::from(i16::MIN), i32::from(i16::MAX))
    };
    let p = quant::add_params_with(left_shift, range, (s1, z1), (s2, z2), (so, zo), fused(act)?)
        .ok_or_else(|| {
            Refusal::Invalid(format!(
                "scales {s1} and {s2} into {so} give a multiplier TFLM's QuantizeMultiplierSmallerThanOneExp refuses (its Prepare aborts), or the {act:?} range overflows"
            ))
        })?;
    Ok(Call {
        params: Some(add_params_tokens(cx, quote!(SubQuant), &shape, &p)),
        body: quote!(#k::proven::#f(&params::#pname, i0, i1, o0);),
        reads: vec![0, 1],
        check: Some({
            let check_f = quote::format_ident!("check_{}", f.to_string());
            quote!(#k::#check_f(&#pname, i0, i1, o0))
        }),
    })
}
