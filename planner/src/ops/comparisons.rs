//! EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS and LESS_EQUAL: TFLM's `comparisons.cc`
//! (`ComparisonsPrepare`; each op's Eval and the types it takes), for the kernels
//! `stowplan::kernels::compare` and `compare_s8` (int8, rescaled); shapes broadcast as ADD's,
//! the output bool.

use quote::{format_ident, quote};

use super::add::binary_shape;
use super::{Call, Lower, OpKind, Refusal, i32_lit, invalid, kernel, requant, unsupported};
use crate::quant;
use crate::tflite::DType;

/// EQUAL.
pub const EQUAL: OpKind = kernel("comparisons", equal);
/// NOT_EQUAL.
pub const NOT_EQUAL: OpKind = kernel("comparisons", not_equal);
/// GREATER.
pub const GREATER: OpKind = kernel("comparisons", greater);
/// GREATER_EQUAL.
pub const GREATER_EQUAL: OpKind = kernel("comparisons", greater_equal);
/// LESS.
pub const LESS: OpKind = kernel("comparisons", less);
/// LESS_EQUAL.
pub const LESS_EQUAL: OpKind = kernel("comparisons", less_equal);

/// The types of the inputs each op's Eval takes (comparisons.cc): EQUAL and NOT_EQUAL bool,
/// float32, int32, int64 and int8; the others float32, int32, int64 and int8. (GREATER's Eval
/// also takes int16, "with scaling", by parameters its Prepare never sets: comparisons.cc:289
/// reads the `ComparisonParams` that only int8 fills in, so its result is whatever the
/// persistent buffer held; with the wheel's zeroed arena every element is false. The runtime
/// has no kernel for that.)
fn takes(op: &str, dtype: DType) -> bool {
    match dtype {
        DType::Float32 | DType::Int32 | DType::Int64 | DType::Int8 => true,
        DType::Bool => matches!(op, "Equal" | "NotEqual"),
        _ => false,
    }
}

fn lower(cx: &Lower<'_>, op: &str) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (a, b, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    // TFLM reads the second input as the first's type and writes bools.
    cx.same_type(a, b)?;
    cx.expect_type(out, DType::Bool, "output")?;
    let shape = binary_shape(cx, a, b, out)?;
    if !takes(op, a.dtype) {
        return unsupported(format!(
            "the runtime has no {} kernel for {} (nor has TFLM's)",
            cx.name(),
            a.dtype
        ));
    }
    let which = format_ident!("{op}");
    let which = quote!(#k::Comparison::#which);
    if a.dtype != DType::Int8 {
        return Ok(Call {
            params: Some(quote!(pub const #pname: #k::BinaryShape = #shape;)),
            body: quote!(#k::proven::compare(&params::#pname, #which, i0, i1, o0);),
            reads: vec![0, 1],
            check: Some(quote!(#k::check_compare(&#pname, i0, i1, o0))),
        });
    }
    // comparisons.cc:730-751: each scale through QuantizeMultiplierSmallerThanOneExp (which
    // aborts unless it is below 1), left shift 8.
    let mut multipliers = Vec::with_capacity(2);
    for t in [a, b] {
        let (s, _) = cx.quant(t)?;
        let m = quant::quantize_multiplier_smaller_than_one_exp(f64::from(s)).ok_or_else(|| {
            Refusal::Invalid(format!(
                "{} has scale {s}; TFLM's int8 {} needs scales below 1 (QuantizeMultiplierSmallerThanOneExp aborts)",
                t.desc(),
                cx.name()
            ))
        })?;
        multipliers.push(requant(cx.rt, m));
    }
    let (m1, m2) = match multipliers.as_slice() {
        [m1, m2] => (m1.clone(), m2.clone()),
        _ => return invalid("two inputs"),
    };
    let (o1, o2) = (i32_lit(cx.offset(a)?), i32_lit(cx.offset(b)?));
    Ok(Call {
        params: Some(
            quote!(pub const #pname: #k::ComparisonS8 = #k::ComparisonS8 {
            shape: #shape, left_shift: 8,
            input1_offset: #o1, input1: #m1, input2_offset: #o2, input2: #m2,
        };),
        ),
        body: quote!(#k::proven::compare_s8(&params::#pname, #which, i0, i1, o0);),
        reads: vec![0, 1],
        check: Some(quote!(#k::check_compare_s8(&#pname, i0, i1, o0))),
    })
}

fn equal(cx: &Lower<'_>) -> Result<Call, Refusal> {
    lower(cx, "Equal")
}

fn not_equal(cx: &Lower<'_>) -> Result<Call, Refusal> {
    lower(cx, "NotEqual")
}

fn greater(cx: &Lower<'_>) -> Result<Call, Refusal> {
    lower(cx, "Greater")
}

fn greater_equal(cx: &Lower<'_>) -> Result<Call, Refusal> {
    lower(cx, "GreaterEqual")
}

fn less(cx: &Lower<'_>) -> Result<Call, Refusal> {
    lower(cx, "Less")
}

fn less_equal(cx: &Lower<'_>) -> Result<Call, Refusal> {
    lower(cx, "LessEqual")
}
