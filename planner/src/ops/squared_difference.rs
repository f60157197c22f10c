//! SQUARED_DIFFERENCE: TFLM's `squared_difference.cc` (`SquaredDifferencePrepare`,
//! `PrepareQuantized`), for the kernels `stowplan::kernels::squared_difference_f32`, `_i32`,
//! `_s8` and `_s16`; shapes broadcast as ADD's.

use quote::quote;

use super::add::binary_shape;
use super::{Call, Lower, OpKind, Refusal, i32_lit, invalid, kernel, requant, unsupported};
use crate::quant;
use crate::tflite::DType;

/// SQUARED_DIFFERENCE.
pub const SQUARED_DIFFERENCE: OpKind = kernel("squared_difference", lower);

/// The multipliers of TFLM's `PrepareQuantized` (squared_difference.cc:52-83):
/// `twice_max_input_scale = 2.0 * (double)max(s1, s2)`, the input multipliers `(double)s_i /
/// twice_max_input_scale` through `QuantizeMultiplierSmallerThanOneExp`, the output one
/// `twice² / (double)((1 << 2 left_shift) * so)` (that product in float) through
/// `QuantizeMultiplier`; `None` where TFLM aborts.
fn multipliers(left_shift: i32, s1: f32, s2: f32, so: f32) -> Option<[(i32, i32); 3]> {
    let twice_max_input_scale = 2.0 * f64::from(s1.max(s2));
    let real_input1_multiplier = f64::from(s1) / twice_max_input_scale;
    let real_input2_multiplier = f64::from(s2) / twice_max_input_scale;
    let denominator = (1_i32 << (left_shift * 2)) as f32 * so;
    let real_output_multiplier =
        (twice_max_input_scale * twice_max_input_scale) / f64::from(denominator);
    Some([
        quant::quantize_multiplier_smaller_than_one_exp(real_input1_multiplier)?,
        quant::quantize_multiplier_smaller_than_one_exp(real_input2_multiplier)?,
        quant::quantize_multiplier(real_output_multiplier),
    ])
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (a, b, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    // squared_difference.cc:96 (input types equal); :97 sets the output's type to theirs.
    cx.same_type(a, b)?;
    cx.same_type(a, out)?;
    let shape = binary_shape(cx, a, b, out)?;
    let (left_shift, range, f) = match out.dtype {
        DType::Float32 | DType::Int32 => {
            let f = if out.dtype == DType::Float32 {
                quote!(squared_difference_f32)
            } else {
                quote!(squared_difference_i32)
            };
            return Ok(Call {
                params: Some(quote!(pub const #pname: #k::BinaryShape = #shape;)),
                body: quote!(#k::proven::#f(&params::#pname, i0, i1, o0);),
                reads: vec![0, 1],
                check: Some({
                    let check_f = quote::format_ident!("check_{}", f.to_string());
                    quote!(#k::#check_f(&#pname, i0, i1, o0))
                }),
            });
        }
        DType::Int8 => (
            7,
            (i32::from(i8::MIN), i32::from(i8::MAX)),
            quote!(squared_difference_s8),
        ),
        DType::Int16 => (
            0,
            (i32::from(i16::MIN), i32::from(i16::MAX)),
            quote!(squared_difference_s16),
        ),
        other => {
            return unsupported(format!(
                "the runtime has no SQUARED_DIFFERENCE kernel for {other} (nor has TFLM's)"
            ));
        }
    };
    let (s1, z1) = cx.quant(a)?;
    let (s2, z2) = cx.quant(b)?;
    let (so, zo) = cx.quant(out)?;
    if out.dtype == DType::Int16 && (z1 != 0 || z2 != 0 || zo != 0) {
        // squared_difference.cc:126-128
        return invalid(format!(
            "int16 SQUARED_DIFFERENCE needs zero points 0 (TFLM's Prepare); they are {z1}, {z2} and {zo}"
        ));
    }
    let [m1, m2, mo] = multipliers(left_shift, s1, s2, so).ok_or_else(|| {
        Refusal::Invalid(format!(
            "input scales {s1} and {s2} give a multiplier TFLM's QuantizeMultiplierSmallerThanOneExp refuses"
        ))
    })?;
    let (m1, m2, mo) = (requant(cx.rt, m1), requant(cx.rt, m2), requant(cx.rt, mo));
    let (o1, o2, oo) = (
        i32_lit(z1.wrapping_neg()),
        i32_lit(z2.wrapping_neg()),
        i32_lit(zo),
    );
    let (ls, lo, hi) = (i32_lit(left_shift), i32_lit(range.0), i32_lit(range.1));
    Ok(Call {
        params: Some(
            quote!(pub const #pname: #k::SquaredDifferenceQuant = #k::SquaredDifferenceQuant {
                shape: #shape, left_shift: #ls,
                input1_offset: #o1, input1: #m1, input2_offset: #o2, input2: #m2,
                output_offset: #oo, output: #mo, act_min: #lo, act_max: #hi,
            };),
        ),
        body: quote!(#k::proven::#f(&params::#pname, i0, i1, o0);),
        reads: vec![0, 1],
        check: Some({
            let check_f = quote::format_ident!("check_{}", f.to_string());
            quote!(#k::#check_f(&#pname, i0, i1, o0))
        }),
    })
}
