//! BATCH_TO_SPACE_ND: TFLM's `batch_to_space_nd.cc` (`BatchToSpaceNDPrepare`,
//! `reference_ops::BatchToSpaceND`) for the kernel `stowplan::kernels::batch_to_space_nd`
//! (float32 and int8). TFLM reads the block shape and the crops (as int32) when the op runs;
//! stowplan resolves them when it builds, so they must be constants.

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, invalid, kernel, raw_i32s, usize_lits};
use crate::tflite::{DType, Tensor};

/// BATCH_TO_SPACE_ND.
pub const BATCH_TO_SPACE_ND: OpKind = kernel("batch_to_space_nd", lower);

/// TFLM's `ExtendShapeBatchToSpace` / `ExtendShapeSpaceToBatch`: a 3-D `[b, h, d]` as `[b, h,
/// 1, d]`.
pub(super) fn extend(shape: &[usize]) -> Option<[usize; 4]> {
    match *shape {
        [b, h, w, d] => Some([b, h, w, d]),
        [b, h, d] => Some([b, h, 1, d]),
        _ => None,
    }
}

/// The block shape and the (top, left) crops or paddings TFLM reads: `block[0]`, `block[1]`
/// (rank 4; else 1), `pads[0]`, `pads[2]` (rank 4; else 0), each a positive block and a
/// non-negative pad.
pub(super) fn block_and_pads(
    cx: &Lower<'_>,
    block_t: &Tensor,
    pads_t: &Tensor,
    rank: usize,
    what: &str,
) -> Result<([usize; 2], [usize; 2]), Refusal> {
    let block = cx.build_constant(block_t, "block shape")?;
    let pads = cx.build_constant(pads_t, what)?;
    let four = rank == 4;
    let bad = |t: &Tensor| {
        Refusal::Invalid(format!(
            "{} holds fewer int32 values than TFLM reads",
            t.desc()
        ))
    };
    let b = raw_i32s(block, if four { 2 } else { 1 }).ok_or_else(|| bad(block_t))?;
    let p = raw_i32s(pads, if four { 3 } else { 1 }).ok_or_else(|| bad(pads_t))?;
    let (bh, bw) = (
        b.first().copied().unwrap_or(0),
        if four {
            b.get(1).copied().unwrap_or(0)
        } else {
            1
        },
    );
    let (top, left) = (
        p.first().copied().unwrap_or(0),
        if four {
            p.get(2).copied().unwrap_or(0)
        } else {
            0
        },
    );
    let positive = |v: i32| usize::try_from(v).ok().filter(|&v| v > 0);
    let (Some(bh), Some(bw)) = (positive(bh), positive(bw)) else {
        return invalid(format!(
            "block shape {bh} x {bw}: TFLM divides by it (it must be positive)"
        ));
    };
    let (Ok(top), Ok(left)) = (usize::try_from(top), usize::try_from(left)) else {
        return invalid(format!("negative {what} ({top}, {left})"));
    };
    Ok(([bh, bw], [top, left]))
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    if cx.op.inputs.len() != 3 || cx.op.outputs.len() != 1 {
        return invalid("BATCH_TO_SPACE_ND takes 3 inputs and 1 output (TFLM's Prepare)");
    }
    let (input, block_t, crops_t, out) = (cx.input(0)?, cx.input(1)?, cx.input(2)?, cx.output(0)?);
    let (ishape, oshape) = (cx.shape(input)?, cx.shape(out)?);
    if !(3..=4).contains(&ishape.len()) || !(3..=4).contains(&oshape.len()) {
        return invalid(format!(
            "{} has rank {} and {} rank {}; TFLM's BATCH_TO_SPACE_ND takes 3 or 4",
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
    let ([bh, bw], [top, left]) = block_and_pads(cx, block_t, crops_t, ishape.len(), "crops")?;
    // Every output element is written once: the input batches hold whole blocks of output
    // batches, and the cropped spatial extent lies inside the blocks.
    let [ib, ih, iw, id] = i4;
    let [ob, oh, ow, od] = o4;
    let fits = ob.checked_mul(bh).and_then(|v| v.checked_mul(bw)) == Some(ib)
        && od == id
        && oh.checked_add(top) <= ih.checked_mul(bh)
        && ow.checked_add(left) <= iw.checked_mul(bw);
    if !fits || ob == 0 {
        return invalid(format!(
            "{} {oshape:?} is not {} {ishape:?} in blocks of {bh} x {bw} cropped by ({top}, {left}) (TFLM would leave output elements unwritten)",
            out.desc(),
            input.desc()
        ));
    }
    let (i, o) = (usize_lits(&i4), usize_lits(&o4));
    Ok(Call {
        params: Some(
            quote!(pub const #pname: #k::BatchToSpace = #k::BatchToSpace {
            input: #i, output: #o, block: [#bh, #bw], crop: [#top, #left],
        };),
        ),
        body: quote!(#k::proven::batch_to_space_nd(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_batch_to_space_nd(&#pname, i0, o0))),
    })
}
