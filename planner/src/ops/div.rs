//! DIV: TFLM's `div.cc` (`DivPrepare`, `CalculateOpDataDiv`), for the kernels
//! `stowplan::kernels::div_f32`, `div_i32` and `div_s8`; shapes broadcast as ADD's.

use quote::quote;

use super::add::{act_range_i32, activation, binary_shape, float_call, int32_call, unquantized};
use super::sub::proven_binary;
use super::{Call, Lower, OpKind, Refusal, act_range_s8, i32_lit, kernel, requant, unsupported};
use crate::quant;
use crate::tflite::DType;

/// DIV.
pub const DIV: OpKind = kernel("div", lower);

/// TFLM's int8 DIV multiplier (div.cc:57-60): `QuantizeMultiplier((double)(s1 / (s2 * so)))`,
/// the product and the quotient in float.
fn div_multiplier(s1: f32, s2: f32, so: f32) -> (i32, i32) {
    quant::quantize_multiplier(f64::from(s1 / (s2 * so)))
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (a, b, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    // div.cc:50-51
    cx.same_type(a, b)?;
    cx.same_type(a, out)?;
    let act = activation(cx)?;
    let shape = binary_shape(cx, a, b, out)?;
    match out.dtype {
        DType::Int8 => {
            let (s1, _) = cx.quant(a)?;
            let (s2, _) = cx.quant(b)?;
            let (so, zo) = cx.quant(out)?;
            // div.cc:53-55, then :57-60.
            let (lo, hi) = act_range_s8(act, so, zo)?;
            let (lo, hi) = (i32_lit(lo), i32_lit(hi));
            let (o1, o2, oo) = (i32_lit(cx.offset(a)?), i32_lit(cx.offset(b)?), i32_lit(zo));
            let mo = requant(cx.rt, div_multiplier(s1, s2, so));
            Ok(Call {
                params: Some(quote!(pub const #pname: #k::DivS8 = #k::DivS8 {
                    shape: #shape, input1_offset: #o1, input2_offset: #o2,
                    output_offset: #oo, output: #mo, act_min: #lo, act_max: #hi,
                };)),
                body: quote!(#k::proven::div_s8(&params::#pname, i0, i1, o0);),
                reads: vec![0, 1],
                check: Some(quote!(#k::check_div_s8(&#pname, i0, i1, o0))),
            })
        }
        DType::Int32 => {
            // div.cc:89-94: int32 only unquantised; :118 CalculateActivationRange<int32_t>.
            unquantized(a, "DIV")?;
            unquantized(b, "DIV")?;
            int32_call(cx, shape, act_range_i32(act)?, quote!(div_i32))
                .map(|c| proven_binary(cx, c, "div_i32"))
        }
        DType::Float32 => {
            float_call(cx, shape, act, quote!(div_f32)).map(|c| proven_binary(cx, c, "div_f32"))
        }
        other => unsupported(format!(
            "the runtime has no DIV kernel for {other} (nor has TFLM's)"
        )),
    }
}
