//! RESIZE_NEAREST_NEIGHBOR: TFLM's `resize_nearest_neighbor.cc`
//! (`ResizeNearestNeighborPrepare`, `ResizeNearestNeighborEval`) for the kernel
//! `stowplan::kernels::resize_nearest_neighbor` (float32, int8 and int16; any element type).

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, invalid, kernel, usize_lits};
use crate::tflite::{DType, OpOptions, Tensor};

/// RESIZE_NEAREST_NEIGHBOR.
pub const RESIZE_NEAREST_NEIGHBOR: OpKind = kernel("resize_nearest_neighbor", lower);

/// The checks of both resizes' Prepare and the output shape their Eval writes: a 4-D input,
/// a constant 1-D int32 size of two values (the output height and width, which TFLM's kernels
/// take from it), the output `[batch, height, width, channels]`.
pub(super) fn resize_shapes(
    cx: &Lower<'_>,
    input: &Tensor,
    size: &Tensor,
    out: &Tensor,
) -> Result<([usize; 4], [usize; 4]), Refusal> {
    if cx.op.inputs.len() != 2 || cx.op.outputs.len() != 1 {
        return invalid(format!(
            "{} takes 2 inputs and 1 output (TFLM's Prepare)",
            cx.name()
        ));
    }
    let ishape = cx.shape(input)?;
    let i4 = <[usize; 4]>::try_from(ishape.as_slice()).map_err(|_| {
        Refusal::Invalid(format!(
            "{} has rank {}; TFLM's {} takes 4",
            input.desc(),
            ishape.len(),
            cx.name()
        ))
    })?;
    if cx.shape(size)?.len() != 1 || size.dtype != DType::Int32 {
        return invalid(format!(
            "{} must be one-dimensional int32 (TFLM's Prepare)",
            size.desc()
        ));
    }
    cx.tflm_constant(size, "size")?;
    let hw = cx.const_ints(size)?;
    let [h, w] = <[i64; 2]>::try_from(hw.as_slice()).map_err(|_| {
        Refusal::Invalid(format!(
            "{} holds {hw:?}, not a height and a width",
            size.desc()
        ))
    })?;
    let (Ok(h), Ok(w)) = (usize::try_from(h), usize::try_from(w)) else {
        return invalid(format!("{} holds {hw:?}", size.desc()));
    };
    let [b, _, _, c] = i4;
    let o4 = [b, h, w, c];
    cx.expect_shape(out, &o4)?;
    cx.same_type(input, out)?;
    Ok((i4, o4))
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (input, size, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    let (i4, o4) = resize_shapes(cx, input, size, out)?;
    cx.one_of(out, &[DType::Float32, DType::Int8, DType::Int16])?;
    let (align, half) = match cx.op.options {
        OpOptions::ResizeNearestNeighbor {
            align_corners,
            half_pixel_centers,
        } => (align_corners, half_pixel_centers),
        OpOptions::None => (false, false),
        _ => return invalid("its options are not ResizeNearestNeighborOptions"),
    };
    let (i, o) = (usize_lits(&i4), usize_lits(&o4));
    Ok(Call {
        params: Some(
            quote!(pub const #pname: #k::ResizeNearestNeighbor = #k::ResizeNearestNeighbor {
            input: #i, output: #o, align_corners: #align, half_pixel_centers: #half,
        };),
        ),
        body: quote!(#k::proven::resize_nearest_neighbor(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_resize_nearest_neighbor(&#pname, i0, o0))),
    })
}
