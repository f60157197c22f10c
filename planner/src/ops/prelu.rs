//! PRELU: TFLM's `prelu.cc` / `prelu_common.cc` (`PreluPrepare`, `CalculatePreluParams`), for
//! the kernels `stowplan::kernels::prelu_f32`, `prelu_s8` and `prelu_s16` (int8 alphas); the
//! alphas broadcast to the input as ADD's second input.

use quote::quote;

use super::add::binary_shape;
use super::{Call, Lower, OpKind, Refusal, i32_lit, invalid, kernel, requant, unsupported};
use crate::quant;
use crate::tflite::DType;

/// PRELU.
pub const PRELU: OpKind = kernel("prelu", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (input, alpha, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    cx.same_type(input, out)?;
    let shape = binary_shape(cx, input, alpha, out)?;
    match input.dtype {
        DType::Float32 => {
            cx.expect_type(alpha, DType::Float32, "alpha")?;
            // prelu_common.cc:48-50: BroadcastPrelu4DSlowFloat takes ranks up to 4.
            for t in [input, alpha, out] {
                if t.shape.len() > 4 {
                    return unsupported(format!(
                        "{} has rank {}; float PRELU takes at most 4 (TFLM's 4D kernel)",
                        t.desc(),
                        t.shape.len()
                    ));
                }
            }
            Ok(Call {
                params: Some(quote!(pub const #pname: #k::BinaryShape = #shape;)),
                body: quote!(#k::proven::prelu_f32(&params::#pname, i0, i1, o0);),
                reads: vec![0, 1],
                check: Some(quote!(#k::check_prelu_f32(&#pname, i0, i1, o0))),
            })
        }
        DType::Int8 | DType::Int16 => {
            // prelu_common.cc:105-108: int16 takes int8 alphas; prelu.cc's Eval reads int8
            // alphas for both.
            if alpha.dtype != DType::Int8 {
                return if input.dtype == DType::Int16 {
                    invalid(format!(
                        "{} is {}; TFLM's int16 PRELU needs int8 alphas (its Prepare fails)",
                        alpha.desc(),
                        alpha.dtype
                    ))
                } else {
                    unsupported(format!(
                        "{} is {}; the int8 PRELU kernel takes int8 alphas",
                        alpha.desc(),
                        alpha.dtype
                    ))
                };
            }
            let (si, _) = cx.quant(input)?;
            let (sa, _) = cx.quant(alpha)?;
            let (so, zo) = cx.quant(out)?;
            // prelu_common.cc:26-41: both multipliers in double.
            let m1 = quant::quantize_multiplier(f64::from(si) / f64::from(so));
            let m2 = quant::quantize_multiplier(f64::from(si) * f64::from(sa) / f64::from(so));
            let (m1, m2) = (requant(cx.rt, m1), requant(cx.rt, m2));
            let (io, ao, oo) = (
                i32_lit(cx.offset(input)?),
                i32_lit(cx.offset(alpha)?),
                i32_lit(zo),
            );
            let f = if input.dtype == DType::Int8 {
                quote!(prelu_s8)
            } else {
                quote!(prelu_s16)
            };
            Ok(Call {
                params: Some(quote!(pub const #pname: #k::PreluQuant = #k::PreluQuant {
                    shape: #shape, input_offset: #io, alpha_offset: #ao,
                    output_offset: #oo, output1: #m1, output2: #m2,
                };)),
                body: quote!(#k::proven::#f(&params::#pname, i0, i1, o0);),
                reads: vec![0, 1],
                check: Some({
                    let check_f = quote::format_ident!("check_{}", f.to_string());
                    quote!(#k::#check_f(&#pname, i0, i1, o0))
                }),
            })
        }
        other => unsupported(format!(
            "the runtime has no PRELU kernel for {other} (nor has TFLM's)"
        )),
    }
}
