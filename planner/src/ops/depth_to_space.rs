//! DEPTH_TO_SPACE: TFLM's `depth_to_space.cc` (`CalculateOpData`) for the kernel
//! `stowplan::kernels::depth_to_space` (float32 and int8).

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, invalid, kernel, usize_lits};
use crate::tflite::{DType, OpOptions};

/// DEPTH_TO_SPACE.
pub const DEPTH_TO_SPACE: OpKind = kernel("depth_to_space", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    if cx.op.inputs.len() != 1 || cx.op.outputs.len() != 1 {
        return invalid("DEPTH_TO_SPACE takes 1 input and 1 output (TFLM's Prepare)");
    }
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    let ishape = cx.shape(input)?;
    let [b, h, w, c] = <[usize; 4]>::try_from(ishape.as_slice()).map_err(|_| {
        Refusal::Invalid(format!(
            "{} has rank {}; TFLM's DEPTH_TO_SPACE takes 4",
            input.desc(),
            ishape.len()
        ))
    })?;
    cx.one_of(out, &[DType::Float32, DType::Int8])?;
    cx.same_type(input, out)?;
    let block = match cx.op.options {
        OpOptions::DepthToSpace { block_size } => block_size,
        OpOptions::None => 0,
        _ => return invalid("its options are not DepthToSpaceOptions"),
    };
    let bs = usize::try_from(block)
        .ok()
        .filter(|&b| b > 0)
        .ok_or_else(|| {
            Refusal::Invalid(format!("block_size {block} (TFLM's Prepare: positive)"))
        })?;
    let sq = bs.checked_mul(bs).filter(|sq| c % sq == 0).ok_or_else(|| {
        Refusal::Invalid(format!(
            "{c} channels do not divide into blocks of {bs} x {bs} (TFLM's Prepare)"
        ))
    })?;
    let oshape = [
        b,
        h.checked_mul(bs)
            .ok_or_else(|| Refusal::Invalid("the output height overflows".to_owned()))?,
        w.checked_mul(bs)
            .ok_or_else(|| Refusal::Invalid("the output width overflows".to_owned()))?,
        c / sq,
    ];
    cx.expect_shape(out, &oshape)?;
    let (i, o) = (usize_lits(&ishape), usize_lits(&oshape));
    Ok(Call {
        params: Some(
            quote!(pub const #pname: #k::DepthToSpace = #k::DepthToSpace {
            input: #i, output: #o, block: #bs,
        };),
        ),
        body: quote!(#k::proven::depth_to_space(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_depth_to_space(&#pname, i0, o0))),
    })
}
