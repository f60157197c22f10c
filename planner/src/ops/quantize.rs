//! QUANTIZE: TFLM's `quantize.cc` / `quantize_common.cc` (`PrepareQuantizeReference`), for the
//! kernels `stowplan::kernels::quantize_f32_s8` (float32 to int8) and `requantize_s8` (int8 to
//! int8).

use quote::quote;

use super::{
    Call, Lower, OpKind, Refusal, f32_lit, i32_lit, invalid, kernel, requant, unsupported,
};
use crate::quant;
use crate::tflite::DType;

/// QUANTIZE.
pub const QUANTIZE: OpKind = kernel("quantize", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let input = cx.input(0)?;
    let out = cx.output(0)?;
    if cx.elements(input)? != cx.elements(out)? {
        return invalid(format!(
            "{} and {} differ in size",
            input.desc(),
            out.desc()
        ));
    }
    // quantize_common.cc: the output is quantised per tensor.
    if cx.scales(out)?.len() != 1 {
        return invalid(format!(
            "{} has {} scales; TFLM's QUANTIZE needs one",
            out.desc(),
            cx.scales(out)?.len()
        ));
    }
    match (input.dtype, out.dtype) {
        (DType::Float32, DType::Int8) => {
            let (scale, zp) = cx.quant(out)?;
            let scale = f32_lit(scale)?;
            let zp = i32_lit(zp);
            Ok(Call {
                params: Some(
                    quote!(pub const #pname: #k::QuantizeF32S8 = #k::QuantizeF32S8 { scale: #scale, zero_point: #zp };),
                ),
                body: quote!(#k::quantize_f32_s8(&params::#pname, i0, o0);),
                reads: vec![0],
            })
        }
        (DType::Int8, DType::Int8) => {
            let (si, _) = cx.quant(input)?;
            let (so, zo) = cx.quant(out)?;
            let m = requant(cx.rt, quant::rescale_multiplier(si, so));
            let (io, oo) = (i32_lit(cx.offset(input)?), i32_lit(zo));
            Ok(Call {
                params: Some(
                    quote!(pub const #pname: #k::Requantize = #k::Requantize { input_offset: #io, output_offset: #oo, requant: #m };),
                ),
                body: quote!(#k::requantize_s8(&params::#pname, i0, o0);),
                reads: vec![0],
            })
        }
        (i, o) => unsupported(format!("the runtime has no QUANTIZE kernel for {i} to {o}")),
    }
}
