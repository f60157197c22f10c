//! MUL: TFLM's `mul.cc` / `mul_common.cc` (`MulPrepare`, `CalculateOpDataMul`), for the
//! kernels `stowplan::kernels::mul_s8` and `mul_f32`; shapes broadcast as ADD's.

use quote::quote;

use super::add::{activation, binary_shape, float_call};
use super::{Call, Lower, OpKind, Refusal, act_range_s8, i32_lit, kernel, requant, unsupported};
use crate::quant;
use crate::tflite::DType;

/// MUL.
pub const MUL: OpKind = kernel("mul", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (a, b, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    cx.same_type(a, out)?;
    cx.same_type(b, out)?;
    let act = activation(cx)?;
    let shape = binary_shape(cx, a, b, out)?;
    match out.dtype {
        DType::Int8 => {
            let (s1, _) = cx.quant(a)?;
            let (s2, _) = cx.quant(b)?;
            let (so, zo) = cx.quant(out)?;
            let (lo, hi) = act_range_s8(act, so, zo)?;
            let (lo, hi) = (i32_lit(lo), i32_lit(hi));
            let (o1, o2, oo) = (i32_lit(cx.offset(a)?), i32_lit(cx.offset(b)?), i32_lit(zo));
            let mo = requant(cx.rt, quant::mul_multiplier(s1, s2, so));
            Ok(Call {
                params: Some(quote!(pub const #pname: #k::MulS8 = #k::MulS8 {
                    shape: #shape, input1_offset: #o1, input2_offset: #o2,
                    output_offset: #oo, output: #mo, act_min: #lo, act_max: #hi,
                };)),
                body: quote!(#k::mul_s8(&params::#pname, i0, i1, o0);),
                reads: vec![0, 1],
            })
        }
        DType::Float32 => float_call(cx, shape, act, quote!(mul_f32)),
        other => unsupported(format!("the runtime has no MUL kernel for {other}")),
    }
}
