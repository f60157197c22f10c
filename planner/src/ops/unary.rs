//! What the elementwise unary ops (ABS, EXP, TANH, ELU, LEAKY_RELU, ...) share: TFLM's
//! `NumInputs`/`NumOutputs` checks, equal sizes, the affine-quantisation test of TFLM's
//! allocator, and the call of a kernel without parameters.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Call, Lower, Refusal, invalid};
use crate::tflite::Tensor;

/// TFLM's `TF_LITE_ENSURE_EQ(NumInputs(node), 1)` and `NumOutputs(node) == 1`.
pub(super) fn one_input_one_output(cx: &Lower<'_>) -> Result<(), Refusal> {
    let (ni, no) = (cx.op.inputs.len(), cx.op.outputs.len());
    if ni != 1 || no != 1 {
        return invalid(format!(
            "{} has {ni} inputs and {no} outputs; TFLM's {} takes one of each",
            cx.name(),
            cx.name()
        ));
    }
    Ok(())
}

/// Input 0 and output 0, which must hold as many elements (TFLM's kernels write the input's
/// element count).
pub(super) fn same_size<'a>(cx: &Lower<'a>) -> Result<(&'a Tensor, &'a Tensor), Refusal> {
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    if cx.elements(input)? != cx.elements(out)? {
        return invalid(format!(
            "{} and {} differ in size",
            input.desc(),
            out.desc()
        ));
    }
    Ok((input, out))
}

/// Input 0 and output 0 of the same type and the same shape (`TF_LITE_ENSURE_TYPES_EQ` and the
/// dimension checks of CEIL, ROUND and EXP, `HaveSameShapes` of LOG_SOFTMAX).
pub(super) fn same_shape<'a>(cx: &Lower<'a>) -> Result<(&'a Tensor, &'a Tensor), Refusal> {
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    cx.same_type(input, out)?;
    let (si, so) = (cx.shape(input)?, cx.shape(out)?);
    if si != so {
        return invalid(format!(
            "{} has shape {si:?} and {} has {so:?}; {} needs the same",
            input.desc(),
            out.desc(),
            cx.name()
        ));
    }
    Ok((input, out))
}

/// Whether TFLM's allocator gives the tensor `kTfLiteAffineQuantization`: scales and zero
/// points both present (`micro_allocator.cc`); otherwise its `params` are `(0.0, 0)`.
pub(super) fn affine(t: &Tensor) -> bool {
    t.quantization
        .as_ref()
        .is_some_and(|q| !q.scale.is_empty() && !q.zero_point.is_empty())
}

/// The name of kernel `f`'s check, `check_f`.
pub(super) fn check_of(f: &TokenStream) -> syn::Ident {
    format_ident!("check_{}", f.to_string())
}

/// A kernel call without parameters: `k::proven::f(i0, o0)`, its check `k::check_f(i0, o0)`
/// asserted when the crate compiles.
pub(super) fn plain(cx: &Lower<'_>, f: TokenStream) -> Call {
    let k = cx.k();
    let check = check_of(&f);
    Call {
        params: None,
        body: quote!(#k::proven::#f(i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::#check(i0, o0))),
    }
}

/// [`plain`] for an elementwise kernel that may run with its output over its input
/// (`kernel_order::elementwise`): on one view through `kernels::overlap::f` when the plan puts
/// it there.
pub(super) fn plain_elementwise(cx: &Lower<'_>, f: TokenStream) -> Result<Call, Refusal> {
    cx.plain_elementwise_call(&f, cx.elements(cx.output(0)?)?)
}

/// [`with_params`] for an elementwise kernel that may run with its output over its input
/// (`kernel_order::elementwise`): on one view through `kernels::overlap::f` when the plan puts
/// it there.
pub(super) fn with_params_elementwise(
    cx: &Lower<'_>,
    ty: TokenStream,
    fields: TokenStream,
    f: TokenStream,
) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let params = quote!(pub const #pname: #k::#ty = #k::#ty { #fields };);
    cx.elementwise_call(&f, params, cx.elements(cx.output(0)?)?, 1)
}

/// A kernel call with the parameter constant `ty { fields }`:
/// `k::proven::f(&params::OP_N, i0, o0)`, its check `k::check_f(&OP_N, i0, o0)` asserted when
/// the crate compiles.
pub(super) fn with_params(
    cx: &Lower<'_>,
    ty: TokenStream,
    fields: TokenStream,
    f: TokenStream,
) -> Call {
    let k = cx.k();
    let pname = cx.params;
    let check = check_of(&f);
    Call {
        params: Some(quote!(pub const #pname: #k::#ty = #k::#ty { #fields };)),
        body: quote!(#k::proven::#f(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::#check(&#pname, i0, o0))),
    }
}
