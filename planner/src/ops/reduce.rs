//! MEAN, SUM, REDUCE_MAX, REDUCE_MIN and REDUCE_ALL: TFLM's `reduce.cc` / `reduce_common.cc`
//! (`PrepareMeanOrSum`, `PrepareMeanOrSumHelper`, `PrepareMinMaxHelper`), for the kernels
//! `stowplan::kernels::mean_s8`, `mean_s16` and `mean_f32`, `sum_f32`, `sum_s8` and `sum_s16`,
//! `reduce_max_*` and `reduce_min_*`. TFLM reads the axes when the op runs; stowplan resolves
//! them when it builds, so they must be a constant.

use quote::quote;

use super::{
    Call, Lower, OpKind, Refusal, axis, dims, f32_lit, i32_lit, input, invalid, output, pad_front,
    requant, resolve_axis, unsupported, usize_lits,
};
use crate::quant;
use crate::tflite::{DType, Model, Op};

/// MEAN. Its Prepare is SUM's (`PrepareMeanOrSumHelper`), so are its scratch requests.
pub const MEAN: OpKind = OpKind {
    module: "reduce",
    in_place: false,
    tflm_scratch: sum_scratch,
    scratch: super::no_scratch,
    lower: Some(mean),
    fold: None,
    state: None,
    overwrite: None,
};

/// The ranks the kernels take.
const MAX_RANK: usize = 4;

fn mean(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    cx.same_type(input, out)?;
    let axes_t = cx.input(1)?;
    cx.expect_type(axes_t, DType::Int32, "axes")?;
    let axes = cx.const_ints(axes_t)?;
    let ishape = cx.shape(input)?;
    let r = ishape.len();
    if r > MAX_RANK {
        return unsupported(format!(
            "MEAN of {} of rank {r} (the kernels take up to {MAX_RANK})",
            input.desc()
        ));
    }
    let mut reduce = [false; MAX_RANK];
    for &a in &axes {
        if let Some(slot) = reduce.get_mut(MAX_RANK - r + axis(a, r)?) {
            *slot = true;
        }
    }
    let kept: usize = ishape
        .iter()
        .zip(reduce.iter().skip(MAX_RANK - r))
        .filter(|(_, reduced)| !**reduced)
        .map(|(&n, _)| n)
        .product();
    if cx.elements(out)? != kept {
        return invalid(format!(
            "{} holds {} values; MEAN over axes {axes:?} of {:?} makes {kept}",
            out.desc(),
            cx.elements(out)?,
            ishape
        ));
    }
    let i = usize_lits(&cx.shape_n::<MAX_RANK>(input)?);
    let ax = reduce.iter().map(|b| quote!(#b));
    match input.dtype {
        DType::Int8 | DType::Int16 => {
            let (si, zi) = cx.quant(input)?;
            let (so, zo) = cx.quant(out)?;
            let m = requant(cx.rt, quant::rescale_multiplier(si, so));
            let (zi, zo, si, so) = (i32_lit(zi), i32_lit(zo), f32_lit(si)?, f32_lit(so)?);
            let (ty, f) = if input.dtype == DType::Int8 {
                (quote!(MeanS8), quote!(mean_s8))
            } else {
                (quote!(MeanS16), quote!(mean_s16))
            };
            Ok(Call {
                params: Some(quote!(pub const #pname: #k::#ty = #k::#ty {
                    input: #i, axes: [#(#ax),*], input_zero_point: #zi, output_zero_point: #zo,
                    input_scale: #si, output_scale: #so, requant: #m,
                };)),
                body: quote!(#k::proven::#f(&params::#pname, i0, o0);),
                reads: vec![0],
                check: Some({
                    let check = super::unary::check_of(&f);
                    quote!(#k::#check(&#pname, i0, o0))
                }),
            })
        }
        DType::Float32 => Ok(Call {
            params: Some(
                quote!(pub const #pname: #k::MeanF32 = #k::MeanF32 { input: #i, axes: [#(#ax),*] };),
            ),
            body: quote!(#k::proven::mean_f32(&params::#pname, i0, o0);),
            reads: vec![0],
            check: Some(quote!(#k::check_mean_f32(&#pname, i0, o0))),
        }),
        other => unsupported(format!("the runtime has no MEAN kernel for {other}")),
    }
}

/// REDUCE_MAX: TFLM's `PrepareMinMaxHelper` / `EvalMaxHelper` (float32, and int8 quantised as
/// the output), for `stowplan::kernels::reduce_max_f32` and `reduce_max_s8`.
pub const REDUCE_MAX: OpKind = OpKind {
    module: "reduce",
    in_place: false,
    tflm_scratch: min_max_scratch,
    scratch: super::no_scratch,
    lower: Some(reduce_max),
    fold: None,
    state: None,
    overwrite: None,
};

/// REDUCE_MIN: as REDUCE_MAX, for `reduce_min_f32` and `reduce_min_s8`.
pub const REDUCE_MIN: OpKind = OpKind {
    module: "reduce",
    in_place: false,
    tflm_scratch: min_max_scratch,
    scratch: super::no_scratch,
    lower: Some(reduce_min),
    fold: None,
    state: None,
    overwrite: None,
};

/// SUM: TFLM's `PrepareMeanOrSumHelper` / `EvalSumHelper` (float32, int8 and int16 with TFLM's
/// rescaling), for `sum_f32`, `sum_s8` and `sum_s16`.
pub const SUM: OpKind = OpKind {
    module: "reduce",
    in_place: false,
    tflm_scratch: sum_scratch,
    scratch: super::no_scratch,
    lower: Some(sum),
    fold: None,
    state: None,
    overwrite: None,
};

/// REDUCE_ALL: TFLM's `PrepareAllHelper` / `EvalAllHelper` (bool only), for
/// `stowplan::kernels::reduce_all`.
pub const REDUCE_ALL: OpKind = OpKind {
    module: "reduce",
    in_place: false,
    tflm_scratch: min_max_scratch,
    scratch: super::no_scratch,
    lower: Some(reduce_all),
    fold: None,
    state: None,
    overwrite: None,
};

/// The ranks the kernels of REDUCE_MAX, REDUCE_MIN, REDUCE_ALL and SUM take.
const MAX_RANK6: usize = 6;

/// `PrepareMinMaxHelper`'s requests: `input_iter` (`rank × 4`), then `resolved_axis` (`axis
/// elements × 4`).
fn min_max_scratch(model: &Model, op: &Op) -> Option<Vec<u64>> {
    let rank = u64::try_from(dims(input(model, op, 0)?)?.len()).ok()?;
    let axes = dims(input(model, op, 1)?)?
        .iter()
        .try_fold(1_u64, |n, &d| n.checked_mul(d))?;
    Some(vec![rank.checked_mul(4)?, axes.checked_mul(4)?])
}

/// `PrepareMeanOrSumHelper`'s requests (MEAN's and SUM's): for int8 and int16 the accumulator (`output elements
/// × 4`) first; then `input_iter` and `resolved_axis`.
fn sum_scratch(model: &Model, op: &Op) -> Option<Vec<u64>> {
    let x = input(model, op, 0)?;
    let mut out = Vec::new();
    if matches!(x.dtype, DType::Int8 | DType::Int16) {
        let n = dims(output(model, op, 0)?)?
            .iter()
            .try_fold(1_u64, |n, &d| n.checked_mul(d))?;
        out.push(n.checked_mul(4)?);
    }
    out.extend(min_max_scratch(model, op)?);
    Some(out)
}

/// The input shape and reduced dimensions of a REDUCE_MAX, REDUCE_MIN or SUM, right-aligned
/// into 6 dimensions, after TFLM's checks: two inputs and one output, an int32 axis tensor
/// (`PrepareSimple`), axes inside the rank (`ResolveAxis`, else Eval fails), and the output
/// holding one value per kept position.
fn reduced(cx: &Lower<'_>) -> Result<([usize; MAX_RANK6], [bool; MAX_RANK6]), Refusal> {
    if cx.op.inputs.len() != 2 || cx.op.outputs.len() != 1 {
        return invalid(format!(
            "{} takes 2 inputs and 1 output (TFLM's Prepare)",
            cx.name()
        ));
    }
    let (input, axes_t, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    cx.expect_type(axes_t, DType::Int32, "axes")?;
    cx.build_constant(axes_t, "axes")?;
    let axes = cx.const_ints(axes_t)?;
    let ishape = cx.shape(input)?;
    let r = ishape.len();
    let shape = pad_front::<MAX_RANK6, usize>(&ishape, 1).ok_or_else(|| {
        Refusal::Unsupported(format!(
            "{} of {} of rank {r} (the kernels take up to {MAX_RANK6})",
            cx.name(),
            input.desc()
        ))
    })?;
    let mut reduce = [false; MAX_RANK6];
    for &a in &axes {
        let d = resolve_axis(a, r).ok_or_else(|| {
            Refusal::Invalid(format!(
                "axis {a} of a rank-{r} input (TFLM's ResolveAxis fails)"
            ))
        })?;
        if let Some(slot) = reduce.get_mut(MAX_RANK6 - r + d) {
            *slot = true;
        }
    }
    let kept = shape
        .iter()
        .zip(&reduce)
        .filter(|(_, r)| !**r)
        .try_fold(1_usize, |n, (&d, _)| n.checked_mul(d));
    if kept != Some(cx.elements(out)?) {
        return invalid(format!(
            "{} holds {} values; {} over axes {axes:?} of {ishape:?} makes {kept:?}",
            out.desc(),
            cx.elements(out)?,
            cx.name()
        ));
    }
    Ok((shape, reduce))
}

fn reduce_max(cx: &Lower<'_>) -> Result<Call, Refusal> {
    min_max(cx, true)
}

fn reduce_min(cx: &Lower<'_>) -> Result<Call, Refusal> {
    min_max(cx, false)
}

fn min_max(cx: &Lower<'_>, max: bool) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (shape, axes) = reduced(cx)?;
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    cx.same_type(input, out)?;
    cx.one_of(input, &[DType::Float32, DType::Int8])?;
    if input.dtype == DType::Int8 {
        // EvalMinMaxHelper: the input and output quantised alike (scales compared as double).
        let (si, zi) = cx.quant(input)?;
        let (so, zo) = cx.quant(out)?;
        if f64::from(si) != f64::from(so) || zi != zo {
            return invalid(format!(
                "{} is quantised ({si}, {zi}) and {} ({so}, {zo}); TFLM's int8 {} needs them equal",
                input.desc(),
                out.desc(),
                cx.name()
            ));
        }
    }
    let f = match (max, input.dtype) {
        (true, DType::Int8) => quote!(reduce_max_s8),
        (true, _) => quote!(reduce_max_f32),
        (false, DType::Int8) => quote!(reduce_min_s8),
        (false, _) => quote!(reduce_min_f32),
    };
    let (i, a) = (usize_lits(&shape), bool_lits(&axes));
    Ok(Call {
        params: Some(quote!(pub const #pname: #k::Reduce = #k::Reduce { input: #i, axes: #a };)),
        body: quote!(#k::proven::#f(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some({
            let check = super::unary::check_of(&f);
            quote!(#k::#check(&#pname, i0, o0))
        }),
    })
}

fn reduce_all(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (shape, axes) = reduced(cx)?;
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    // PrepareAllHelper: a bool input; EvalAllHelper: the output of the input's type.
    cx.expect_type(input, DType::Bool, "input")?;
    cx.same_type(input, out)?;
    let (i, a) = (usize_lits(&shape), bool_lits(&axes));
    Ok(Call {
        params: Some(quote!(pub const #pname: #k::Reduce = #k::Reduce { input: #i, axes: #a };)),
        body: quote!(#k::proven::reduce_all(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_reduce_all(&#pname, i0, o0))),
    })
}

fn sum(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (shape, axes) = reduced(cx)?;
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    cx.same_type(input, out)?;
    cx.one_of(input, &[DType::Float32, DType::Int8, DType::Int16])?;
    let (i, a) = (usize_lits(&shape), bool_lits(&axes));
    if input.dtype == DType::Float32 {
        return Ok(Call {
            params: Some(
                quote!(pub const #pname: #k::Reduce = #k::Reduce { input: #i, axes: #a };),
            ),
            body: quote!(#k::proven::sum_f32(&params::#pname, i0, o0);),
            reads: vec![0],
            check: Some(quote!(#k::check_sum_f32(&#pname, i0, o0))),
        });
    }
    // PrepareMeanOrSumHelper: QuantizeMultiplier((double)input scale / (double)output scale),
    // the zero points and scales kept.
    let (si, zi) = cx.quant(input)?;
    let (so, zo) = cx.quant(out)?;
    let m = requant(cx.rt, quant::rescale_multiplier(si, so));
    let (zi, zo, si, so) = (i32_lit(zi), i32_lit(zo), f32_lit(si)?, f32_lit(so)?);
    let f = if input.dtype == DType::Int8 {
        quote!(sum_s8)
    } else {
        quote!(sum_s16)
    };
    Ok(Call {
        params: Some(
            quote!(pub const #pname: #k::SumQuantized = #k::SumQuantized {
            input: #i, axes: #a, input_zero_point: #zi, output_zero_point: #zo,
            input_scale: #si, output_scale: #so, requant: #m,
        };),
        ),
        body: quote!(#k::proven::#f(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some({
            let check = super::unary::check_of(&f);
            quote!(#k::#check(&#pname, i0, o0))
        }),
    })
}

fn bool_lits(v: &[bool]) -> proc_macro2::TokenStream {
    quote!([#(#v),*])
}
