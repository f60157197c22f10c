//! MUL: TFLM's `mul.cc` / `mul_common.cc` (`MulPrepare`, `CalculateOpDataMul`), for the
//! kernels `stowplan::kernels::mul_s8`, `mul_s16`, `mul_i32` and `mul_f32`; shapes broadcast
//! as ADD's.

use quote::quote;

use super::add::{
    BINARY_ON_ONE_BUFFER, act_range_i32, act_range_s16, activation, binary_call, binary_shape,
    float_call, int32_call,
};
use super::overwrite::Overwrite;
use super::{
    Call, Lower, OpKind, Refusal, act_range_s8, i32_lit, invalid, kernel, requant, unsupported,
};
use crate::quant;
use crate::tflite::DType;

/// MUL.
pub const MUL: OpKind = OpKind {
    overwrite: Some(Overwrite {
        entries: &["mul_s8", "mul_s16", "mul_i32", "mul_f32"],
        ..BINARY_ON_ONE_BUFFER
    }),
    ..kernel("mul", lower)
};

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
            binary_call(
                cx,
                &quote!(mul_s8),
                quote!(pub const #pname: #k::MulS8 = #k::MulS8 {
                    shape: #shape, input1_offset: #o1, input2_offset: #o2,
                    output_offset: #oo, output: #mo, act_min: #lo, act_max: #hi,
                };),
            )
        }
        DType::Int16 => {
            let (s1, z1) = cx.quant(a)?;
            let (s2, z2) = cx.quant(b)?;
            let (so, zo) = cx.quant(out)?;
            // mul_common.cc:58-60 (the range first), :69-73: int16 needs zero points 0.
            let (lo, hi) = act_range_s16(act, so, zo)?;
            if z1 != 0 || z2 != 0 || zo != 0 {
                return invalid(format!(
                    "int16 MUL needs zero points 0 (TFLM's Prepare); {} has {z1}, {} {z2}, {} {zo}",
                    a.desc(),
                    b.desc(),
                    out.desc()
                ));
            }
            let (lo, hi) = (i32_lit(lo), i32_lit(hi));
            let mo = requant(cx.rt, quant::mul_multiplier(s1, s2, so));
            binary_call(
                cx,
                &quote!(mul_s16),
                quote!(pub const #pname: #k::MulS16 = #k::MulS16 {
                    shape: #shape, input1_offset: 0, input2_offset: 0,
                    output_offset: 0, output: #mo, act_min: #lo, act_max: #hi,
                };),
            )
        }
        // mul_common.cc:75-77: CalculateActivationRange<int32_t>.
        DType::Int32 => int32_call(cx, shape, act_range_i32(act)?, quote!(mul_i32)),
        DType::Float32 => float_call(cx, shape, act, quote!(mul_f32)),
        other => unsupported(format!("the runtime has no MUL kernel for {other}")),
    }
}
