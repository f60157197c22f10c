//! ARG_MAX and ARG_MIN: TFLM's `arg_min_max.cc` (`Eval`; no Prepare) for the kernels
//! `stowplan::kernels::arg_max` and `arg_min` (float32 and int8 input, int32 output and axis,
//! as `Eval` takes). TFLM reads the axis when the op runs; stowplan resolves it when it builds,
//! so it must be a constant.

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, kernel, product, resolve_axis};
use crate::tflite::DType;

/// ARG_MAX.
pub const ARG_MAX: OpKind = kernel("arg_min_max", arg_max);

/// ARG_MIN.
pub const ARG_MIN: OpKind = kernel("arg_min_max", arg_min);

fn arg_max(cx: &Lower<'_>) -> Result<Call, Refusal> {
    lower(cx, true)
}

fn arg_min(cx: &Lower<'_>) -> Result<Call, Refusal> {
    lower(cx, false)
}

fn lower(cx: &Lower<'_>, max: bool) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (input, axis_t, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    // arg_min_max.cc:69-98: int32 axis, int32 output, float32 or int8 input.
    cx.one_of(axis_t, &[DType::Int32])?;
    cx.one_of(out, &[DType::Int32])?;
    cx.one_of(input, &[DType::Float32, DType::Int8])?;
    let shape = cx.shape(input)?;
    cx.build_constant(axis_t, "axis")?;
    let a = cx
        .const_ints(axis_t)?
        .first()
        .copied()
        .ok_or_else(|| Refusal::Invalid(format!("{} holds no axis", axis_t.desc())))?;
    let axis = resolve_axis(a, shape.len()).ok_or_else(|| {
        Refusal::Invalid(format!(
            "axis {a} of a rank-{} input (TFLM reads outside the shape)",
            shape.len()
        ))
    })?;
    let mut oshape = shape.clone();
    oshape.remove(axis);
    cx.expect_shape(out, &oshape)?;
    let size = |v: &[usize]| {
        product(v).ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", input.desc())))
    };
    let (outer, along, inner) = (
        size(shape.get(..axis).unwrap_or(&[]))?,
        shape.get(axis).copied().unwrap_or(1),
        size(shape.get(axis + 1..).unwrap_or(&[]))?,
    );
    let f = if max {
        quote!(arg_max)
    } else {
        quote!(arg_min)
    };
    Ok(Call {
        params: Some(quote!(pub const #pname: #k::ArgMinMax = #k::ArgMinMax {
            outer: #outer, axis: #along, inner: #inner,
        };)),
        body: quote!(#k::proven::#f(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some({
            let check = super::unary::check_of(&f);
            quote!(#k::#check(&#pname, i0, o0))
        }),
    })
}
