//! SPACE_TO_DEPTH: TFLM's `space_to_depth.cc` (`Prepare`) for the kernel
//! `stowplan::kernels::space_to_depth` (float32 and int8).

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, invalid, kernel, usize_lits};
use crate::tflite::{DType, OpOptions};

/// SPACE_TO_DEPTH.
pub const SPACE_TO_DEPTH: OpKind = kernel("space_to_depth", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    if cx.op.inputs.len() != 1 || cx.op.outputs.len() != 1 {
        return invalid("SPACE_TO_DEPTH takes 1 input and 1 output (TFLM's Prepare)");
    }
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    let ishape = cx.shape(input)?;
    let [b, h, w, c] = <[usize; 4]>::try_from(ishape.as_slice()).map_err(|_| {
        Refusal::Invalid(format!(
            "{} has rank {}; TFLM's SPACE_TO_DEPTH takes 4",
            input.desc(),
            ishape.len()
        ))
    })?;
    cx.one_of(out, &[DType::Float32, DType::Int8])?;
    cx.same_type(input, out)?;
    let block = match cx.op.options {
        OpOptions::SpaceToDepth { block_size } => block_size,
        OpOptions::None => 0,
        _ => return invalid("its options are not SpaceToDepthOptions"),
    };
    // TFLM divides by the block size without checking it (a block of 0 divides by zero).
    let bs = usize::try_from(block)
        .ok()
        .filter(|&b| b > 0)
        .ok_or_else(|| Refusal::Invalid(format!("block_size {block}: TFLM divides by it")))?;
    if h % bs != 0 || w % bs != 0 {
        return invalid(format!(
            "{h} x {w} does not divide into blocks of {bs} (TFLM's Prepare)"
        ));
    }
    let depth = bs
        .checked_mul(bs)
        .and_then(|sq| sq.checked_mul(c))
        .ok_or_else(|| Refusal::Invalid("the output depth overflows".to_owned()))?;
    let oshape = [b, h / bs, w / bs, depth];
    cx.expect_shape(out, &oshape)?;
    let (i, o) = (usize_lits(&ishape), usize_lits(&oshape));
    Ok(Call {
        params: Some(
            quote!(pub const #pname: #k::SpaceToDepth = #k::SpaceToDepth {
            input: #i, output: #o, block: #bs,
        };),
        ),
        body: quote!(#k::proven::space_to_depth(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_space_to_depth(&#pname, i0, o0))),
    })
}
