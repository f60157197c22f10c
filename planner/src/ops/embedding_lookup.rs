//! EMBEDDING_LOOKUP: TFLM's `embedding_lookup.cc` (`EmbeddingLookUpPrepare`,
//! `CalculateOpData`, `EmbeddingLookUpEval`) for the kernels
//! `stowplan::kernels::embedding_lookup` (float32 and int8 rows copied) and
//! `embedding_lookup_s8_f32` (TFLM's hybrid: int8 rows dequantised to float32). The ids are
//! read when the op runs.

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, f32_lit, invalid, kernel, product};
use crate::tflite::DType;

/// EMBEDDING_LOOKUP.
pub const EMBEDDING_LOOKUP: OpKind = kernel("embedding_lookup", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    if cx.op.inputs.len() != 2 || cx.op.outputs.len() != 1 {
        return invalid("EMBEDDING_LOOKUP takes 2 inputs and 1 output (TFLM's Prepare)");
    }
    let (ids, value, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    let (ishape, vshape) = (cx.shape(ids)?, cx.shape(value)?);
    // embedding_lookup.cc:76-96.
    if ishape.len() != 1 || ids.dtype != DType::Int32 {
        return invalid(format!(
            "{} must be one-dimensional int32 (TFLM's Prepare)",
            ids.desc()
        ));
    }
    if vshape.len() < 2 {
        return invalid(format!(
            "{} must have two dimensions at least (TFLM's Prepare)",
            value.desc()
        ));
    }
    cx.one_of(value, &[DType::Float32, DType::Int8])?;
    let hybrid = match (value.dtype, out.dtype) {
        (DType::Float32, DType::Float32) | (DType::Int8, DType::Int8) => false,
        (DType::Int8, DType::Float32) => true,
        _ => {
            return invalid(format!(
                "{} is {} and {} is {} (TFLM's Prepare)",
                value.desc(),
                value.dtype,
                out.desc(),
                out.dtype
            ));
        }
    };
    // embedding_lookup.cc:107-112: [lookups, the value's other dimensions].
    let Some((&rows, rest)) = vshape.split_first() else {
        return invalid("the value has no dimensions");
    };
    let mut oshape = ishape.clone();
    oshape.extend_from_slice(rest);
    cx.expect_shape(out, &oshape)?;
    let columns = product(rest)
        .ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", value.desc())))?;
    let shape = quote!(#k::EmbeddingLookup { rows: #rows, columns: #columns });
    if hybrid {
        // embedding_lookup.cc:57-61: zero point 0, the scale kept.
        let (scale, zp) = cx.quant(value)?;
        if zp != 0 {
            return invalid(format!(
                "{} has zero point {zp}; TFLM's hybrid EMBEDDING_LOOKUP needs 0",
                value.desc()
            ));
        }
        let s = f32_lit(scale)?;
        return Ok(Call {
            params: Some(
                quote!(pub const #pname: #k::EmbeddingLookupHybrid = #k::EmbeddingLookupHybrid {
                shape: #shape, scale: #s,
            };),
            ),
            body: quote!(#k::proven::embedding_lookup_s8_f32(&params::#pname, i0, i1, o0);),
            reads: vec![0, 1],
            check: Some(quote!(#k::check_embedding_lookup_s8_f32(&#pname, i0, i1, o0))),
        });
    }
    Ok(Call {
        params: Some(quote!(pub const #pname: #k::EmbeddingLookup = #shape;)),
        body: quote!(#k::proven::embedding_lookup(&params::#pname, i0, i1, o0);),
        reads: vec![0, 1],
        check: Some(quote!(#k::check_embedding_lookup(&#pname, i0, i1, o0))),
    })
}
