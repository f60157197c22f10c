//! DEQUANTIZE: TFLM's `dequantize.cc` / `dequantize_common.cc`, for the kernel
//! `stowplan::kernels::dequantize_s8_f32` (int8 to float32).

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, f32_lit, i32_lit, invalid, kernel, unsupported};
use crate::tflite::DType;

/// DEQUANTIZE.
pub const DEQUANTIZE: OpKind = kernel("dequantize", lower);

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
    match (input.dtype, out.dtype) {
        (DType::Int8, DType::Float32) => {
            let (scale, zp) = cx.quant(input)?;
            let (scale, zp) = (f32_lit(scale)?, i32_lit(zp));
            Ok(Call {
                params: Some(
                    quote!(pub const #pname: #k::DequantizeS8F32 = #k::DequantizeS8F32 { scale: #scale, zero_point: #zp };),
                ),
                body: quote!(#k::dequantize_s8_f32(&params::#pname, i0, o0);),
                reads: vec![0],
            })
        }
        (i, o) => unsupported(format!(
            "the runtime has no DEQUANTIZE kernel for {i} to {o}"
        )),
    }
}
