//! MAXIMUM and MINIMUM: TFLM's `maximum_minimum.cc` (no Prepare; its Eval takes float32,
//! int8, int16, int32 and int64 by the output's type), for the kernels
//! `stowplan::kernels::maximum` and `minimum`; shapes broadcast as ADD's.

use quote::quote;

use super::add::binary_shape;
use super::{Call, Lower, OpKind, Refusal, kernel, unsupported};
use crate::tflite::DType;

/// MAXIMUM.
pub const MAXIMUM: OpKind = kernel("maximum_minimum", lower_maximum);

/// MINIMUM.
pub const MINIMUM: OpKind = kernel("maximum_minimum", lower_minimum);

fn lower(cx: &Lower<'_>, f: proc_macro2::TokenStream) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (a, b, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    // TFLM checks nothing and reads both inputs as the output's type.
    cx.same_type(a, out)?;
    cx.same_type(b, out)?;
    let shape = binary_shape(cx, a, b, out)?;
    if !matches!(
        out.dtype,
        DType::Float32 | DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64
    ) {
        return unsupported(format!(
            "the runtime has no {} kernel for {} (nor has TFLM's)",
            cx.name(),
            out.dtype
        ));
    }
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

fn lower_maximum(cx: &Lower<'_>) -> Result<Call, Refusal> {
    lower(cx, quote!(maximum))
}

fn lower_minimum(cx: &Lower<'_>) -> Result<Call, Refusal> {
    lower(cx, quote!(minimum))
}
