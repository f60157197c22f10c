//! TRANSPOSE: TFLM's `transpose.cc` / `transpose_common.cc` (`TransposePrepare`), for the
//! kernel `stowplan::kernels::transpose` (any element type), with the permutation padded to
//! six dimensions.

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, invalid, kernel, unsupported, usize_lits};
use crate::tflite::DType;

/// TRANSPOSE.
pub const TRANSPOSE: OpKind = kernel("transpose", lower);

/// TFLM's limit: "Transpose op only supports 1D-5D input arrays."
const MAX_RANK: usize = 5;

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let input = cx.input(0)?;
    let out = cx.output(0)?;
    cx.same_type(input, out)?;
    if !matches!(input.dtype, DType::Float32 | DType::Int8 | DType::Int16) {
        return unsupported(format!(
            "TRANSPOSE of {} (TFLM's takes float32, int8 and int16)",
            input.dtype
        ));
    }
    let perm_t = cx.input(1)?;
    cx.expect_type(perm_t, DType::Int32, "permutation")?;
    let perm = cx.const_ints(perm_t)?;
    let ishape = cx.shape(input)?;
    let oshape = cx.shape(out)?;
    let r = ishape.len();
    if r > MAX_RANK || perm.len() != r {
        return invalid(format!(
            "a permutation of {} for {} of rank {r} (TFLM's TRANSPOSE takes ranks 1 to {MAX_RANK})",
            perm.len(),
            input.desc()
        ));
    }
    let mut seen = [false; MAX_RANK];
    let mut p6 = [0usize, 1, 2, 3, 4, 5];
    let offset = 6 - r;
    for (j, &v) in perm.iter().enumerate() {
        let v = usize::try_from(v)
            .ok()
            .filter(|&v| v < r && seen.get(v) == Some(&false))
            .ok_or_else(|| {
                Refusal::Invalid(format!("{} is not a permutation: {perm:?}", perm_t.desc()))
            })?;
        if let Some(s) = seen.get_mut(v) {
            *s = true;
        }
        if oshape.get(j) != ishape.get(v) {
            return invalid(format!(
                "{} has shape {oshape:?}, not {}'s {ishape:?} permuted by {perm:?}",
                out.desc(),
                input.desc()
            ));
        }
        if let Some(slot) = p6.get_mut(offset + j) {
            *slot = offset + v;
        }
    }
    let (i, pm) = (usize_lits(&cx.shape_n::<6>(input)?), usize_lits(&p6));
    Ok(Call {
        params: Some(
            quote!(pub const #pname: #k::Transpose = #k::Transpose { input: #i, perm: #pm };),
        ),
        body: quote!(#k::proven::transpose(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_transpose(&#pname, i0, o0))),
    })
}
