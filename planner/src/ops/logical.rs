//! LOGICAL_AND and LOGICAL_OR (TFLM's `logical.cc` / `logical_common.cc`: no Prepare, bool
//! only) and LOGICAL_NOT (`elementwise.cc`: `GenericPrepare<IsLogicalSupportedType>`), for the
//! kernels `stowplan::kernels::logical_and`, `logical_or` and `logical_not`; shapes broadcast
//! as ADD's.

use quote::quote;

use super::add::binary_shape;
use super::{Call, Lower, OpKind, Refusal, kernel, unsupported};
use crate::tflite::DType;

/// LOGICAL_AND.
pub const LOGICAL_AND: OpKind = kernel("logical", lower_and);
/// LOGICAL_OR.
pub const LOGICAL_OR: OpKind = kernel("logical", lower_or);
/// LOGICAL_NOT.
pub const LOGICAL_NOT: OpKind = kernel("logical", lower_not);

fn binary(cx: &Lower<'_>, f: proc_macro2::TokenStream) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (a, b, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    for t in [a, b, out] {
        if t.dtype != DType::Bool {
            return unsupported(format!(
                "{} is {}; {} takes bool only",
                t.desc(),
                t.dtype,
                cx.name()
            ));
        }
    }
    let shape = binary_shape(cx, a, b, out)?;
    Ok(Call {
        params: Some(quote!(pub const #pname: #k::BinaryShape = #shape;)),
        body: quote!(#k::proven::#f(&params::#pname, i0, i1, o0);),
        reads: vec![0, 1],
        check: Some({
            let check_f = quote::format_ident!("check_{}", f.to_string());
            quote!(#k::#check_f(&#pname, i0, i1, o0))
        }),
    })
}

fn lower_and(cx: &Lower<'_>) -> Result<Call, Refusal> {
    binary(cx, quote!(logical_and))
}

fn lower_or(cx: &Lower<'_>) -> Result<Call, Refusal> {
    binary(cx, quote!(logical_or))
}

fn lower_not(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    // elementwise.cc:81-94: one input, one output, the same type, bool.
    if cx.op.inputs.len() != 1 {
        return super::invalid(format!(
            "LOGICAL_NOT has {} inputs; TFLM's Prepare needs 1",
            cx.op.inputs.len()
        ));
    }
    cx.same_type(input, out)?;
    if input.dtype != DType::Bool {
        return super::invalid(format!(
            "{} is {}; TFLM's LOGICAL_NOT takes bool only (its Prepare fails)",
            input.desc(),
            input.dtype
        ));
    }
    if cx.elements(input)? != cx.elements(out)? {
        return super::invalid(format!(
            "{} and {} differ in size",
            input.desc(),
            out.desc()
        ));
    }
    Ok(Call {
        params: None,
        body: quote!(#k::proven::logical_not(i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_logical_not(i0, o0))),
    })
}
