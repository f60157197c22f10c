//! SPACE_TO_BATCH_ND: TFLM's `space_to_batch_nd.cc` (`SpaceToBatchNDPrepare`,
//! `reference_ops::SpaceToBatchND`) for the kernel `stowplan::kernels::space_to_batch_nd`
//! (float32 and int8). TFLM reads the block shape and the paddings (as int32) when the op runs;
//! stowplan resolves them when it builds, so they must be constants. The padding is zero bytes
//! whatever the output's zero point (see the kernel).

use quote::quote;

use super::batch_to_space_nd::{block_and_pads, extend};
use super::{Call, Lower, OpKind, Refusal, invalid, kernel, usize_lits};
use crate::tflite::DType;

/// SPACE_TO_BATCH_ND.
pub const SPACE_TO_BATCH_ND: OpKind = kernel("space_to_batch_nd", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    if cx.op.inputs.len() != 3 || cx.op.outputs.len() != 1 {
        return invalid("SPACE_TO_BATCH_ND takes 3 inputs and 1 output (TFLM's Prepare)");
    }
    let (input, block_t, pads_t, out) = (cx.input(0)?, cx.input(1)?, cx.input(2)?, cx.output(0)?);
    let (ishape, oshape) = (cx.shape(input)?, cx.shape(out)?);
    if !(3..=4).contains(&ishape.len()) || !(3..=4).contains(&oshape.len()) {
        return invalid(format!(
            "{} has rank {} and {} rank {}; TFLM's SPACE_TO_BATCH_ND takes 3 or 4",
            input.desc(),
            ishape.len(),
            out.desc(),
            oshape.len()
        ));
    }
    cx.same_type(input, out)?;
    cx.one_of(input, &[DType::Float32, DType::Int8])?;
    if ishape.len() != oshape.len() {
        return invalid("the input and output ranks differ (TFLM's kernel takes them equal)");
    }
    let (Some(i4), Some(o4)) = (extend(&ishape), extend(&oshape)) else {
        return invalid("ranks 3 and 4 only");
    };
    let ([bh, bw], [top, left]) = block_and_pads(cx, block_t, pads_t, ishape.len(), "paddings")?;
    if i4[0] == 0 || i4[3] != o4[3] {
        return invalid(format!(
            "{} {ishape:?} and {} {oshape:?}: TFLM copies whole pixels of the input's depth",
            input.desc(),
            out.desc()
        ));
    }
    let (i, o) = (usize_lits(&i4), usize_lits(&o4));
    Ok(Call {
        params: Some(
            quote!(pub const #pname: #k::SpaceToBatch = #k::SpaceToBatch {
            input: #i, output: #o, block: [#bh, #bw], pad: [#top, #left],
        };),
        ),
        body: quote!(#k::proven::space_to_batch_nd(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_space_to_batch_nd(&#pname, i0, o0))),
    })
}
