//! GATHER: TFLM's `gather.cc` (`GatherPrepare`, `Gather`) for the kernel
//! `stowplan::kernels::gather` (float32 and int8 data, int32 coordinates, read when the op
//! runs; constant coordinates are checked at build time).

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, invalid, kernel, product, resolve_axis};
use crate::tflite::{DType, OpOptions};

/// GATHER.
pub const GATHER: OpKind = kernel("gather", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    if cx.op.inputs.len() != 2 || cx.op.outputs.len() != 1 {
        return invalid("GATHER takes 2 inputs and 1 output (TFLM's Prepare)");
    }
    let (input, coords, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    // gather.cc:118-140: int32 coordinates; float32 or int8 data; the output takes its type.
    cx.one_of(coords, &[DType::Int32])?;
    cx.one_of(input, &[DType::Float32, DType::Int8])?;
    cx.same_type(input, out)?;
    let (axis, batch_dims) = match cx.op.options {
        OpOptions::Gather { axis, batch_dims } => (axis, batch_dims),
        OpOptions::None => (0, 0),
        _ => return invalid("its options are not GatherOptions"),
    };
    let ishape = cx.shape(input)?;
    let cshape = cx.shape(coords)?;
    let ax = resolve_axis(i64::from(axis), ishape.len()).ok_or_else(|| {
        Refusal::Invalid(format!(
            "axis {axis} of a rank-{} input (TFLM's Prepare)",
            ishape.len()
        ))
    })?;
    // gather.cc:151-160: negative batch_dims count from the coordinates' rank.
    let bd = if batch_dims < 0 {
        i64::from(batch_dims) + i64::try_from(cshape.len()).unwrap_or(0)
    } else {
        i64::from(batch_dims)
    };
    let bd = usize::try_from(bd)
        .ok()
        .filter(|&b| b <= ax && b < ishape.len() && b <= cshape.len())
        .ok_or_else(|| {
            Refusal::Invalid(format!(
                "batch_dims {batch_dims} for axis {ax}, input rank {} and coordinates rank {} (TFLM's Prepare)",
                ishape.len(),
                cshape.len()
            ))
        })?;
    if ishape.get(..bd) != cshape.get(..bd) {
        return invalid(format!(
            "the first {bd} dimensions of {} {ishape:?} and {} {cshape:?} differ (TFLM's Prepare)",
            input.desc(),
            coords.desc()
        ));
    }
    // gather.cc:170-179: the output shape.
    let mut oshape: Vec<usize> = ishape.get(..ax).unwrap_or(&[]).to_vec();
    oshape.extend_from_slice(cshape.get(bd..).unwrap_or(&[]));
    oshape.extend_from_slice(ishape.get(ax + 1..).unwrap_or(&[]));
    cx.expect_shape(out, &oshape)?;
    let size = |v: &[usize]| {
        product(v).ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", input.desc())))
    };
    let axis_size = ishape.get(ax).copied().unwrap_or(0);
    if let Some(data) = cx.backed(coords)? {
        let bad = data
            .chunks_exact(4)
            .filter_map(|c| <[u8; 4]>::try_from(c).ok())
            .map(i32::from_le_bytes)
            .find(|&c| usize::try_from(c).map_or(true, |c| c >= axis_size));
        if let Some(c) = bad {
            return invalid(format!(
                "{} holds coordinate {c}, outside the axis of {axis_size} (TFLM reads outside the input)",
                coords.desc()
            ));
        }
    }
    let (batch, outer, coords_n, inner) = (
        size(ishape.get(..bd).unwrap_or(&[]))?,
        size(ishape.get(bd..ax).unwrap_or(&[]))?,
        size(cshape.get(bd..).unwrap_or(&[]))?,
        size(ishape.get(ax + 1..).unwrap_or(&[]))?,
    );
    Ok(Call {
        params: Some(quote!(pub const #pname: #k::Gather = #k::Gather {
            batch: #batch, outer: #outer, coords: #coords_n, axis_size: #axis_size, inner: #inner,
        };)),
        body: quote!(#k::proven::gather(&params::#pname, i0, i1, o0);),
        reads: vec![0, 1],
        check: Some(quote!(#k::check_gather(&#pname, i0, i1, o0))),
    })
}
