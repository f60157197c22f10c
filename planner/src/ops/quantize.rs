//! QUANTIZE: TFLM's `quantize.cc` / `quantize_common.cc` (`PrepareQuantizeReference`,
//! `EvalQuantizeReference`), for the kernels `stowplan::kernels::quantize_f32_s8` and
//! `quantize_f32_s16` (float32 to int8 and int16: `AffineQuantize`) and the `requantize_*`
//! kernels, one per integer pairing TFLM's `Eval` takes (int8 to int8, uint8, int16, int32;
//! uint8 to int8; int16 to int8, int16, int32; int32 to int8, int16). Other pairings of the
//! types its `Prepare` accepts (float32 to uint8 or int32, uint8 to uint8, ...) fail in its
//! `Eval`: refused as invalid.

use quote::quote;

use super::overwrite::{self, Overwrite, Pairing, WriteOrder};
use super::{Call, Lower, OpKind, Refusal, f32_lit, i32_lit, invalid, kernel, requant};
use crate::graph::TensorInfo;
use crate::quant;
use crate::tflite::{DType, Model, Op};

/// QUANTIZE.
pub const QUANTIZE: OpKind = OpKind {
    overwrite: Some(OVERWRITE),
    ..kernel("quantize", lower)
};

/// QUANTIZE on one buffer, element by element (`kernels::overlap::requantize_s8`, ...).
const OVERWRITE: Overwrite = Overwrite {
    input: 0,
    order: WriteOrder::Elementwise,
    fits: "elementwise_fits",
    entries: &["requantize_s8", "requantize_s16", "requantize_s16_s8"],
    pairing,
};

/// The requantizations the runtime runs on one buffer: int8 to int8, int16 to int16 or to int8 (an output element never wider than its input element).
fn pairing(model: &Model, _: &[u8], tensors: &[TensorInfo], op: &Op) -> Option<Pairing> {
    overwrite::elementwise(
        model,
        tensors,
        op,
        &[
            (DType::Int8, DType::Int8),
            (DType::Int16, DType::Int16),
            (DType::Int16, DType::Int8),
        ],
        false,
    )
}

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
    use DType::{Float32, Int8, Int16, Int32, Uint8};
    // quantize_common.cc:56-63: the types Prepare takes.
    if !matches!(input.dtype, Float32 | Int32 | Int16 | Int8 | Uint8)
        || !matches!(out.dtype, Int8 | Int16 | Int32 | Uint8)
    {
        return invalid(format!(
            "{} is {} and {} is {}; TFLM's QUANTIZE takes float32, int32, int16, int8 or uint8 to int8, int16, int32 or uint8 (its Prepare fails)",
            input.desc(),
            input.dtype,
            out.desc(),
            out.dtype
        ));
    }
    let requantize = match (input.dtype, out.dtype) {
        (Float32, Int8 | Int16) => None,
        (Int8, Int8) => Some(quote!(requantize_s8)),
        (Int8, Uint8) => Some(quote!(requantize_s8_u8)),
        (Int8, Int16) => Some(quote!(requantize_s8_s16)),
        (Int8, Int32) => Some(quote!(requantize_s8_s32)),
        (Uint8, Int8) => Some(quote!(requantize_u8_s8)),
        (Int16, Int8) => Some(quote!(requantize_s16_s8)),
        (Int16, Int16) => Some(quote!(requantize_s16)),
        (Int16, Int32) => Some(quote!(requantize_s16_s32)),
        (Int32, Int8) => Some(quote!(requantize_s32_s8)),
        (Int32, Int16) => Some(quote!(requantize_s32_s16)),
        (i, o) => {
            // quantize_common.cc EvalQuantizeReference: "Input %s, output %s not supported."
            return invalid(format!(
                "{} is {i} and {} is {o}: TFLM's QUANTIZE has no kernel for {i} to {o} (its Eval fails)",
                input.desc(),
                out.desc()
            ));
        }
    };
    match requantize {
        None => {
            let (scale, zp) = cx.quant(out)?;
            let scale = f32_lit(scale)?;
            let zp = i32_lit(zp);
            let (ty, f) = if out.dtype == Int8 {
                (quote!(QuantizeF32S8), quote!(quantize_f32_s8))
            } else {
                (quote!(QuantizeF32S16), quote!(quantize_f32_s16))
            };
            Ok(Call {
                params: Some(
                    quote!(pub const #pname: #k::#ty = #k::#ty { scale: #scale, zero_point: #zp };),
                ),
                body: quote!(#k::proven::#f(&params::#pname, i0, o0);),
                reads: vec![0],
                check: Some({
                    let check = super::unary::check_of(&f);
                    quote!(#k::#check(&#pname, i0, o0))
                }),
            })
        }
        Some(f) => {
            // quantize_common.cc:64-80: QuantizeMultiplier((double)si / (double)so).
            let (si, _) = cx.quant(input)?;
            let (so, zo) = cx.quant(out)?;
            let m = requant(cx.rt, quant::rescale_multiplier(si, so));
            let (io, oo) = (i32_lit(cx.offset(input)?), i32_lit(zo));
            let params = quote!(pub const #pname: #k::Requantize = #k::Requantize { input_offset: #io, output_offset: #oo, requant: #m };);
            // int8 to int8, int16 to int16 and int16 to int8 may run with the output over the
            // input (`kernel_order::elementwise`); the int16 input is then read as two bytes of
            // the int8 view.
            let width = if (input.dtype, out.dtype) == (Int16, Int8) {
                2
            } else {
                1
            };
            cx.elementwise_call(&f, params, cx.elements(out)?, width)
        }
    }
}
