//! MIRROR_PAD: TFLM's `mirror_pad.cc` (`MirrorPadPrepare`, `MirrorPadEval`, `GetFlatIndex`)
//! for the kernel `stowplan::kernels::mirror_pad` (float32 and int8). TFLM reads the paddings
//! (int32 or int64) when the op runs; stowplan resolves them when it builds, so they must be
//! constants. Its Prepare requests two scratch buffers of `rank × 4` bytes.

use quote::quote;

use super::{
    Call, Lower, OpKind, Refusal, dims, input, invalid, pad_front, unsupported, usize_lits,
};
use crate::tflite::{DType, Model, Op, OpOptions};

/// MIRROR_PAD.
pub const MIRROR_PAD: OpKind = OpKind {
    module: "mirror_pad",
    in_place: false,
    tflm_scratch: scratch,
    scratch: super::no_scratch,
    lower: Some(lower),
    fold: None,
    state: None,
    overwrite: None,
};

/// The ranks the kernel takes.
const MAX_RANK: usize = 6;

/// `MirrorPadPrepare`'s requests: `output_dims_num_elements` then `input_dims_num_elements`,
/// each `input_dims * sizeof(int)`.
fn scratch(model: &Model, op: &Op) -> Option<Vec<u64>> {
    let rank = u64::try_from(dims(input(model, op, 0)?)?.len()).ok()?;
    let bytes = rank.checked_mul(4)?;
    Some(vec![bytes, bytes])
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (input, paddings, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    let ishape = cx.shape(input)?;
    let pshape = cx.shape(paddings)?;
    let r = ishape.len();
    if pshape.len() != 2 || pshape.first() != Some(&r) {
        return invalid(format!(
            "{} has shape {pshape:?}; TFLM's Prepare needs [{r}, 2]",
            paddings.desc()
        ));
    }
    // Without options TFLM's parser leaves the mode unknown, which its Prepare takes as not
    // REFLECT (offset 0, as SYMMETRIC).
    let offset = match cx.op.options {
        OpOptions::MirrorPad { symmetric } => usize::from(!symmetric),
        OpOptions::None => 0,
        _ => return invalid("its options are not MirrorPadOptions"),
    };
    cx.one_of(out, &[DType::Float32, DType::Int8])?;
    cx.same_type(input, out)?;
    if !matches!(paddings.dtype, DType::Int32 | DType::Int64) {
        return unsupported(format!(
            "{} paddings (TFLM's GetPadding reads int32 or int64, and 0 for others)",
            paddings.dtype
        ));
    }
    cx.build_constant(paddings, "paddings")?;
    let pads = cx.const_ints(paddings)?;
    let oshape = cx.shape(out)?;
    let mut before = Vec::with_capacity(r);
    for (d, &n) in ishape.iter().enumerate() {
        let (b, a) = (
            pads.get(2 * d).copied().unwrap_or(-1),
            pads.get(2 * d + 1).copied().unwrap_or(-1),
        );
        let limit = i64::try_from(n).unwrap_or(i64::MAX) - i64::try_from(offset).unwrap_or(1);
        if b < 0 || a < 0 || b > limit || a > limit {
            return invalid(format!(
                "paddings ({b}, {a}) of dimension {d} ({n}): {} allows 0 to {limit} (TFLM reads outside the input)",
                if offset == 1 { "REFLECT" } else { "SYMMETRIC" }
            ));
        }
        let (b, a) = (
            usize::try_from(b).unwrap_or(0),
            usize::try_from(a).unwrap_or(0),
        );
        if n.checked_add(b).and_then(|v| v.checked_add(a)) != oshape.get(d).copied() {
            return invalid(format!(
                "{} has {:?} in dimension {d}, not {n} + {b} + {a}",
                out.desc(),
                oshape.get(d)
            ));
        }
        before.push(b);
    }
    if oshape.len() != r {
        return invalid(format!("{} has rank {}, not {r}", out.desc(), oshape.len()));
    }
    let pad6 = |v: &[usize], fill| {
        pad_front::<MAX_RANK, usize>(v, fill).ok_or_else(|| {
            Refusal::Unsupported(format!(
                "MIRROR_PAD of rank {r} (the kernel takes up to {MAX_RANK})"
            ))
        })
    };
    let (i, o, b) = (
        usize_lits(&pad6(&ishape, 1)?),
        usize_lits(&pad6(&oshape, 1)?),
        usize_lits(&pad6(&before, 0)?),
    );
    Ok(Call {
        params: Some(quote!(pub const #pname: #k::MirrorPad = #k::MirrorPad {
            input: #i, output: #o, before: #b, offset: #offset,
        };)),
        body: quote!(#k::proven::mirror_pad(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_mirror_pad(&#pname, i0, o0))),
    })
}
