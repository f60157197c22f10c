//! GATHER_ND: TFLM's `gather_nd.cc` (`GatherNdPrepare`, `GatherNd`) for the kernel
//! `stowplan::kernels::gather_nd` (float32 and int8 params, int32 indices read when the op
//! runs).

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, i32_lit, i32_lits, invalid, kernel, product};
use crate::tflite::DType;

/// GATHER_ND.
pub const GATHER_ND: OpKind = kernel("gather_nd", lower);

/// TFLM's `MAX_INDICES_ND`.
const MAX_INDICES_ND: usize = 5;

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    if cx.op.inputs.len() != 2 || cx.op.outputs.len() != 1 {
        return invalid("GATHER_ND takes 2 inputs and 1 output (TFLM's Prepare)");
    }
    let (params, indices, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    cx.one_of(params, &[DType::Float32, DType::Int8])?;
    cx.one_of(indices, &[DType::Int32])?;
    cx.same_type(params, out)?;
    let pshape = cx.shape(params)?;
    let ishape = cx.shape(indices)?;
    let Some((&nd, batch)) = ishape.split_last() else {
        return invalid("indices must be at least a vector (TFLM's Prepare)");
    };
    if pshape.is_empty() {
        return invalid("params must be at least a vector (TFLM's Prepare)");
    }
    if nd > pshape.len() || nd > MAX_INDICES_ND || nd == 0 {
        return invalid(format!(
            "an index depth of {nd} for params of rank {} (TFLM's Prepare: at most the rank and {MAX_INDICES_ND})",
            pshape.len()
        ));
    }
    let mut oshape = batch.to_vec();
    oshape.extend_from_slice(pshape.get(nd..).unwrap_or(&[]));
    cx.expect_shape(out, &oshape)?;
    let i32_of = |v: usize| {
        i32::try_from(v)
            .map_err(|_| Refusal::Invalid(format!("{}'s size exceeds int32", params.desc())))
    };
    let flat = product(&pshape)
        .ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", params.desc())))?;
    let slices = product(batch)
        .ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", indices.desc())))?;
    let slice_size = product(pshape.get(nd..).unwrap_or(&[]))
        .ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", params.desc())))?;
    // TFLM's dims_to_count: the remaining flat size divided by each indexed dimension.
    let mut strides = [0_i32; MAX_INDICES_ND];
    let mut remain = flat;
    for (s, &d) in strides.iter_mut().zip(pshape.iter().take(nd)) {
        remain = remain.checked_div(d).unwrap_or(0);
        *s = i32_of(remain)?;
    }
    let (size, total, st) = (
        i32_lit(i32_of(slice_size)?),
        i32_lit(i32_of(flat)?),
        i32_lits(&strides),
    );
    Ok(Call {
        params: Some(quote!(pub const #pname: #k::GatherNd = #k::GatherNd {
            slices: #slices, index_depth: #nd, slice_size: #size, strides: #st, params_size: #total,
        };)),
        body: quote!(#k::proven::gather_nd(&params::#pname, i0, i1, o0);),
        reads: vec![0, 1],
        check: Some(quote!(#k::check_gather_nd(&#pname, i0, i1, o0))),
    })
}
