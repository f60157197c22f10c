//! CUMSUM: TFLM's `cumsum.cc` (`CalculateOpData`, `CumSumEval`) for the kernels
//! `stowplan::kernels::cumsum_f32` and `cumsum_s8`. TFLM reads the axis when the op runs;
//! stowplan resolves it when it builds, so it must be a constant.

use quote::quote;

use super::{
    Call, Lower, OpKind, Refusal, i32_lit, invalid, kernel, product, requant, resolve_axis,
};
use crate::quant;
use crate::tflite::{DType, OpOptions};

/// CUMSUM.
pub const CUMSUM: OpKind = kernel("cumsum", lower);

/// TFLM's `kCumSumIntegerShift`.
const LEFT_SHIFT: i32 = 20;

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    if cx.op.inputs.len() != 2 || cx.op.outputs.len() != 1 {
        return invalid("CUMSUM takes 2 inputs and 1 output (TFLM's Prepare)");
    }
    let (input, axis_t, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    // cumsum.cc:56-70.
    cx.one_of(input, &[DType::Float32, DType::Int8])?;
    if axis_t.dtype != DType::Int32 || cx.elements(axis_t)? != 1 {
        return invalid(format!(
            "{} must hold one int32 (TFLM's Prepare)",
            axis_t.desc()
        ));
    }
    let shape = cx.shape(input)?;
    if shape.is_empty() {
        return invalid(format!("{} is a scalar (TFLM's Prepare)", input.desc()));
    }
    cx.same_type(input, out)?;
    cx.expect_shape(out, &shape)?;
    cx.build_constant(axis_t, "axis")?;
    let a = cx.const_ints(axis_t)?.first().copied().unwrap_or(0);
    let axis = resolve_axis(a, shape.len()).ok_or_else(|| {
        Refusal::Invalid(format!(
            "axis {a} of a rank-{} input (TFLM's Eval fails)",
            shape.len()
        ))
    })?;
    let (exclusive, reverse) = match cx.op.options {
        OpOptions::Cumsum { exclusive, reverse } => (exclusive, reverse),
        OpOptions::None => (false, false),
        _ => return invalid("its options are not CumsumOptions"),
    };
    let size = |v: &[usize]| {
        product(v).ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", input.desc())))
    };
    let (inner, depth, outer) = (
        size(shape.get(..axis).unwrap_or(&[]))?,
        shape.get(axis).copied().unwrap_or(1),
        size(shape.get(axis + 1..).unwrap_or(&[]))?,
    );
    let geometry = quote!(#k::Cumsum {
        inner: #inner, depth: #depth, outer: #outer, exclusive: #exclusive, reverse: #reverse,
    });
    if input.dtype == DType::Float32 {
        return Ok(Call {
            params: Some(quote!(pub const #pname: #k::Cumsum = #geometry;)),
            body: quote!(#k::proven::cumsum_f32(&params::#pname, i0, o0);),
            reads: vec![0],
            check: Some(quote!(#k::check_cumsum_f32(&#pname, i0, o0))),
        });
    }
    // cumsum.cc:74-98: the 8-bit rescaling (in double), activation range of kTfLiteActNone.
    let (si, zi) = cx.quant(input)?;
    let (so, zo) = cx.quant(out)?;
    let twice_max_input_scale = 2.0 * f64::from(si);
    let real_input = f64::from(si) / twice_max_input_scale;
    let real_output = twice_max_input_scale / (f64::from(1_i32 << LEFT_SHIFT) * f64::from(so));
    let smaller = |real: f64, what: &str| {
        quant::quantize_multiplier_smaller_than_one_exp(real).ok_or_else(|| {
            Refusal::Invalid(format!(
                "the {what} multiplier {real} is not in (0, 1) (TFLM's QuantizeMultiplierSmallerThanOneExp aborts)"
            ))
        })
    };
    let (mi, mo) = (
        requant(cx.rt, smaller(real_input, "input")?),
        requant(cx.rt, smaller(real_output, "output")?),
    );
    let (lo, hi) = super::act_range_s8(crate::tflite::Activation::None, so, zo)?;
    let offset = zi.checked_neg().ok_or_else(|| {
        Refusal::Invalid(format!(
            "{}'s zero point {zi} cannot be negated",
            input.desc()
        ))
    })?;
    let (io, oo, ls, lo, hi) = (
        i32_lit(offset),
        i32_lit(zo),
        i32_lit(LEFT_SHIFT),
        i32_lit(lo),
        i32_lit(hi),
    );
    Ok(Call {
        params: Some(quote!(pub const #pname: #k::CumsumS8 = #k::CumsumS8 {
            shape: #geometry, input_offset: #io, output_offset: #oo, left_shift: #ls,
            input_requant: #mi, output_requant: #mo, act_min: #lo, act_max: #hi,
        };)),
        body: quote!(#k::proven::cumsum_s8(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_cumsum_s8(&#pname, i0, o0))),
    })
}
