//! RESHAPE, SQUEEZE and EXPAND_DIMS: TFLM's `reshape.cc`, `squeeze.cc` and `expand_dims.cc`,
//! which copy their input's bytes (`stowplan::kernels::copy`), unless generated `invoke`
//! gives the output its input's buffer (they are in place: [`super::OpKind::in_place`]).

use quote::quote;

use super::{
    Call, Lower, OpKind, Refusal, invalid, le_bytes, no_scratch, unsupported, with_element,
};
use crate::kernels;

/// RESHAPE.
pub const RESHAPE: OpKind = IN_PLACE;
/// SQUEEZE.
pub const SQUEEZE: OpKind = IN_PLACE;
/// EXPAND_DIMS.
pub const EXPAND_DIMS: OpKind = IN_PLACE;

const IN_PLACE: OpKind = OpKind {
    module: "reshape",
    in_place: true,
    tflm_scratch: no_scratch,
    scratch: no_scratch,
    lower: Some(lower),
    fold: Some(fold),
    state: None,
    overwrite: None,
};

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    cx.same_type(input, out)?;
    if cx.elements(input)? != cx.elements(out)? {
        return invalid(format!(
            "{} holds {} values and {} {}: {} keeps every value",
            input.desc(),
            cx.elements(input)?,
            out.desc(),
            cx.elements(out)?,
            cx.name()
        ));
    }
    Ok(Call {
        params: None,
        body: quote!(#k::proven::copy(i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_copy(i0, o0))),
    })
}

/// The copy, on the host ([`super::Folding`]).
pub(super) fn fold(cx: &Lower<'_>) -> Result<Vec<Vec<u8>>, Refusal> {
    lower(cx)?;
    let dtype = cx.output(0)?.dtype;
    with_element!(
        dtype,
        T => {
            let input = cx.const_values::<T>(0)?;
            let mut out = cx.output_values::<T>(0)?;
            kernels::copy(&input, &mut out).map_err(|e| {
                Refusal::Invalid(format!("folding {}: the kernel refuses its arguments: {e}", cx.name()))
            })?;
            Ok(vec![le_bytes(&out)])
        },
        unsupported(format!("folding {} of {dtype}", cx.name()))
    )
}
