//! SLICE: TFLM's `slice.cc` (`SlicePrepare`, and `SliceEval`'s `GetBeginAndSizeVectors` with
//! the 5-D front padding of `reference_ops::Slice`) for the kernels `stowplan::kernels::slice`
//! and `slice_dynamic` (any element type). TFLM reads `begin` and `size` when the op runs;
//! stowplan resolves constant ones when it builds. A `begin` that is not a constant is read
//! when the op runs (`slice_dynamic`); `size` shapes the output, so it must be a constant, and
//! without -1 ("to the end") where `begin` is not known.

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, invalid, kernel, pad_front, unsupported, usize_lits};
use crate::tflite::{DType, Tensor};

/// SLICE.
pub const SLICE: OpKind = kernel("slice", lower);

/// TFLM's `kMaxDim`.
const MAX_RANK: usize = 5;

/// The types `SliceEval` takes.
const TYPES: &[DType] = &[
    DType::Float32,
    DType::Int32,
    DType::Int8,
    DType::Int16,
    DType::Bool,
];

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    if cx.op.inputs.len() != 3 || cx.op.outputs.len() != 1 {
        return invalid("SLICE takes 3 inputs and 1 output (TFLM's Prepare)");
    }
    let (input, begin, size, out) = (cx.input(0)?, cx.input(1)?, cx.input(2)?, cx.output(0)?);
    cx.same_type(input, out)?;
    cx.one_of(input, TYPES)?;
    if !matches!(begin.dtype, DType::Int32 | DType::Int64) || size.dtype != begin.dtype {
        return invalid(format!(
            "{} is {} and {} is {}; TFLM's SLICE reads both as the begin's type, int32 or int64",
            begin.desc(),
            begin.dtype,
            size.desc(),
            size.dtype
        ));
    }
    cx.build_constant(size, "size")?;
    if cx.backed(begin)?.is_none() {
        return dynamic(cx, input, begin, size, out);
    }
    let (begins, sizes) = (cx.const_ints(begin)?, cx.const_ints(size)?);
    let ishape = cx.shape(input)?;
    let r = ishape.len();
    if r > MAX_RANK || begins.len() < r || sizes.len() < r {
        return invalid(format!(
            "{} of rank {r} with {} begins and {} sizes (TFLM's SLICE takes ranks up to {MAX_RANK}, a begin and a size per dimension)",
            input.desc(),
            begins.len(),
            sizes.len()
        ));
    }
    let mut starts = Vec::with_capacity(r);
    let mut extents = Vec::with_capacity(r);
    for (d, &dim) in ishape.iter().enumerate() {
        // SliceEval stores them into int32 arrays; `reference_ops::Slice` takes -1 for "to the
        // end", else `start + size`.
        let b = begins.get(d).copied().unwrap_or(0) as i32;
        let s = sizes.get(d).copied().unwrap_or(0) as i32;
        let dim64 = i64::try_from(dim).unwrap_or(i64::MAX);
        let stop = if s == -1 {
            dim64
        } else {
            i64::from(b) + i64::from(s)
        };
        let (Ok(start), Ok(stop)) = (usize::try_from(b), usize::try_from(stop)) else {
            return invalid(format!(
                "SLICE of dimension {d} ({dim}) from {b} to {stop}, outside the input"
            ));
        };
        if start > stop || stop > dim {
            return invalid(format!(
                "SLICE of dimension {d} ({dim}) from {start} to {stop}, outside the input"
            ));
        }
        starts.push(start);
        extents.push(stop - start);
    }
    cx.expect_shape(out, &extents)?;
    let pad = |v: &[usize], fill| {
        pad_front::<MAX_RANK, usize>(v, fill)
            .ok_or_else(|| Refusal::Invalid(format!("rank {r} above {MAX_RANK}")))
    };
    let (i, b, o) = (
        usize_lits(&pad(&ishape, 1)?),
        usize_lits(&pad(&starts, 0)?),
        usize_lits(&pad(&extents, 1)?),
    );
    Ok(Call {
        params: Some(
            quote!(pub const #pname: #k::Slice = #k::Slice { input: #i, begin: #b, output: #o };),
        ),
        body: quote!(#k::proven::slice(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_slice(&#pname, i0, o0))),
    })
}

/// SLICE with a `begin` read when the op runs.
fn dynamic(
    cx: &Lower<'_>,
    input: &Tensor,
    begin: &Tensor,
    size: &Tensor,
    out: &Tensor,
) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let sizes = cx.const_ints(size)?;
    let ishape = cx.shape(input)?;
    let r = ishape.len();
    if r > MAX_RANK || sizes.len() < r || cx.elements(begin)? < r {
        return invalid(format!(
            "{} of rank {r} with {} begins and {} sizes (TFLM's SLICE takes ranks up to {MAX_RANK}, a begin and a size per dimension)",
            input.desc(),
            cx.elements(begin)?,
            sizes.len()
        ));
    }
    let mut extents = Vec::with_capacity(r);
    for (d, (&s, &dim)) in sizes.iter().zip(&ishape).enumerate() {
        let s = s as i32;
        if s == -1 {
            return unsupported(format!(
                "{} holds -1 (to the end) for dimension {d} while {} is not a constant: the output's extent would depend on a value known only when the op runs",
                size.desc(),
                begin.desc()
            ));
        }
        let s = usize::try_from(s)
            .ok()
            .filter(|&s| s <= dim)
            .ok_or_else(|| {
                Refusal::Invalid(format!(
                    "SLICE of {s} along dimension {d} ({dim}), outside the input"
                ))
            })?;
        extents.push(s);
    }
    cx.expect_shape(out, &extents)?;
    let pad = |v: &[usize]| {
        pad_front::<MAX_RANK, usize>(v, 1)
            .ok_or_else(|| Refusal::Invalid(format!("rank {r} above {MAX_RANK}")))
    };
    let (i, o) = (usize_lits(&pad(&ishape)?), usize_lits(&pad(&extents)?));
    Ok(Call {
        params: Some(
            quote!(pub const #pname: #k::SliceDynamic = #k::SliceDynamic {
            input: #i, output: #o, rank: #r,
        };),
        ),
        body: quote!(#k::proven::slice_dynamic(&params::#pname, i0, i1, o0);),
        reads: vec![0, 1],
        check: Some(quote!(#k::check_slice_dynamic(&#pname, i0, i1, o0))),
    })
}
