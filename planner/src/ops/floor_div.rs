//! FLOOR_DIV: TFLM's `floor_div.cc` (`CalculateOpData`: the three types equal; its Eval takes
//! float32 only), for the kernel `stowplan::kernels::floor_div_f32`; shapes broadcast as
//! ADD's.

use quote::quote;

use super::add::binary_shape;
use super::{Call, Lower, OpKind, Refusal, kernel, unsupported};
use crate::tflite::DType;

/// FLOOR_DIV.
pub const FLOOR_DIV: OpKind = kernel("floor_div", lower);

/// The shape-only call of a float binary function (FLOOR_DIV, FLOOR_MOD): the three types
/// equal (TFLM's `CalculateOpData`), float32 only (its Eval).
pub(super) fn float_binary(cx: &Lower<'_>, f: proc_macro2::TokenStream) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (a, b, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    cx.same_type(a, b)?;
    cx.same_type(a, out)?;
    let shape = binary_shape(cx, a, b, out)?;
    if a.dtype != DType::Float32 {
        return unsupported(format!(
            "the runtime has no {} kernel for {} (nor has TFLM's)",
            cx.name(),
            a.dtype
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

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    float_binary(cx, quote!(floor_div_f32))
}
