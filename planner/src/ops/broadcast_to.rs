//! BROADCAST_TO: TFLM's `broadcast_to.cc` (`BroadcastToPrepare`, `ValidateOutputTensor`) for the
//! kernel `stowplan::kernels::broadcast_to` (TFLM copies bytes: any type of a fixed size).

use quote::quote;

use super::{
    Call, Lower, OpKind, Refusal, invalid, kernel, le_bytes, pad_front, unsupported, usize_lits,
    with_element,
};
use crate::kernels;
use crate::tflite::DType;

/// BROADCAST_TO.
pub const BROADCAST_TO: OpKind = OpKind {
    fold: Some(fold),
    ..kernel("broadcast_to", lower)
};

/// TFLM's `kMaxDims`.
const MAX_RANK: usize = 5;

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    if cx.op.inputs.len() != 2 || cx.op.outputs.len() != 1 {
        return invalid("BROADCAST_TO takes 2 inputs and 1 output (TFLM's Prepare)");
    }
    let (input, shape_t, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    let ishape = cx.shape(input)?;
    if ishape.len() > MAX_RANK {
        return invalid(format!(
            "{} has rank {}; TFLM's BROADCAST_TO takes up to {MAX_RANK}",
            input.desc(),
            ishape.len()
        ));
    }
    if !matches!(shape_t.dtype, DType::Int32 | DType::Int64) {
        return invalid(format!(
            "{} is {}; TFLM's BROADCAST_TO takes an int32 or int64 shape",
            shape_t.desc(),
            shape_t.dtype
        ));
    }
    cx.same_type(input, out)?;
    // The kernel copies elements of the view's type, which has TFLM's element size for these.
    if !matches!(
        input.dtype,
        DType::Float32
            | DType::Float16
            | DType::Float64
            | DType::Bfloat16
            | DType::Int8
            | DType::Uint8
            | DType::Int16
            | DType::Uint16
            | DType::Int32
            | DType::Uint32
            | DType::Int64
            | DType::Uint64
            | DType::Bool
    ) {
        return unsupported(format!("BROADCAST_TO of {}", input.dtype));
    }
    cx.tflm_constant(shape_t, "shape")?;
    let shape = cx.const_ints(shape_t)?;
    let oshape = cx.shape(out)?;
    // ValidateOutputTensor (broadcast_to.cc:34-74).
    if cx.shape(shape_t)?.len() != 1
        || oshape.len() != shape.len()
        || ishape.len() > oshape.len()
        || oshape.len() > MAX_RANK
    {
        return invalid(format!(
            "shape {shape:?} for {} {ishape:?} and {} {oshape:?} (TFLM's Prepare)",
            input.desc(),
            out.desc()
        ));
    }
    let extending = oshape.len() - ishape.len();
    for (d, &n) in ishape.iter().enumerate() {
        let want = shape.get(extending + d).copied().unwrap_or(-1);
        if n != 1 && i64::try_from(n).ok() != Some(want as i32 as i64) {
            return invalid(format!(
                "{} {ishape:?} does not broadcast to {shape:?} (TFLM's Prepare)",
                input.desc()
            ));
        }
    }
    for (&o, &s) in oshape.iter().zip(&shape) {
        if i64::try_from(o).ok() != Some(s as i32 as i64) {
            return invalid(format!(
                "{} has shape {oshape:?}, not {shape:?} (TFLM's Prepare)",
                out.desc()
            ));
        }
    }
    let pad = |v: &[usize]| {
        pad_front::<MAX_RANK, usize>(v, 1)
            .ok_or_else(|| Refusal::Invalid(format!("rank above {MAX_RANK}")))
    };
    let (i, o) = (usize_lits(&pad(&ishape)?), usize_lits(&pad(&oshape)?));
    Ok(Call {
        params: Some(
            quote!(pub const #pname: #k::BroadcastTo = #k::BroadcastTo { input: #i, output: #o };),
        ),
        body: quote!(#k::proven::broadcast_to(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_broadcast_to(&#pname, i0, o0))),
    })
}

/// The broadcast, on the host ([`super::Folding`]): the runtime's kernel.
pub(super) fn fold(cx: &Lower<'_>) -> Result<Vec<Vec<u8>>, Refusal> {
    lower(cx)?;
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    let pad = |v: &[usize]| {
        pad_front::<MAX_RANK, usize>(v, 1)
            .ok_or_else(|| Refusal::Invalid(format!("rank above {MAX_RANK}")))
    };
    let p = kernels::BroadcastTo {
        input: pad(&cx.shape(input)?)?,
        output: pad(&cx.shape(out)?)?,
    };
    let dtype = out.dtype;
    with_element!(
        dtype,
        T => {
            let values = cx.const_values::<T>(0)?;
            let mut o = cx.output_values::<T>(0)?;
            kernels::broadcast_to(&p, &values, &mut o).map_err(|e| {
                Refusal::Invalid(format!("folding BROADCAST_TO: the kernel refuses its arguments: {e}"))
            })?;
            Ok(vec![le_bytes(&o)])
        },
        unsupported(format!("folding BROADCAST_TO of {dtype}"))
    )
}
