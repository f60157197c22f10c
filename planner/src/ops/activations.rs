//! RELU and RELU6: TFLM's `activations.cc` / `activations_common.cc` (`ReluPrepare`,
//! `Relu6Prepare`), for the kernels `stowplan::kernels::{relu_s8, relu6_s8, relu_s16,
//! relu6_s16, relu_f32, relu6_f32}`.

use proc_macro2::Literal;
use quote::quote;

use super::overwrite::{self, Overwrite, Pairing, WriteOrder};
use super::{Call, Lower, OpKind, Refusal, i32_lit, invalid, kernel, requant, unsupported};
use crate::graph::TensorInfo;
use crate::quant;
use crate::tflite::{DType, Model, Op};

/// RELU.
pub const RELU: OpKind = OpKind {
    overwrite: Some(RELU_ON_ONE_BUFFER),
    ..kernel("activations", relu)
};
/// RELU6.
pub const RELU6: OpKind = OpKind {
    overwrite: Some(RELU6_ON_ONE_BUFFER),
    ..kernel("activations", relu6)
};

/// RELU on one buffer, element by element.
const RELU_ON_ONE_BUFFER: Overwrite = Overwrite {
    input: 0,
    order: WriteOrder::Elementwise,
    fits: "elementwise_fits",
    entries: &["relu_s8", "relu_s16", "relu_f32"],
    pairing,
};

/// RELU6 on one buffer, element by element.
const RELU6_ON_ONE_BUFFER: Overwrite = Overwrite {
    input: 0,
    order: WriteOrder::Elementwise,
    fits: "elementwise_fits",
    entries: &["relu6_s8", "relu6_s16", "relu6_f32"],
    pairing,
};

/// The int8, int16 and float32 RELU and RELU6.
fn pairing(model: &Model, _: &[u8], tensors: &[TensorInfo], op: &Op) -> Option<Pairing> {
    overwrite::elementwise(
        model,
        tensors,
        op,
        &[
            (DType::Int8, DType::Int8),
            (DType::Int16, DType::Int16),
            (DType::Float32, DType::Float32),
        ],
        false,
    )
}

fn same_size(cx: &Lower<'_>) -> Result<(), Refusal> {
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    cx.same_type(input, out)?;
    if cx.elements(input)? != cx.elements(out)? {
        return invalid(format!(
            "{} and {} differ in size",
            input.desc(),
            out.desc()
        ));
    }
    Ok(())
}

fn relu(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    same_size(cx)?;
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    match input.dtype {
        DType::Int8 => {
            let r = quant::relu_params(cx.quant(input)?, cx.quant(out)?);
            let (io, oo, lo, hi) = (
                i32_lit(r.input_offset),
                i32_lit(r.output_offset),
                i32_lit(r.act_min),
                i32_lit(r.act_max),
            );
            let m = requant(cx.rt, r.requant);
            let params = quote!(pub const #pname: #k::ReluS8 = #k::ReluS8 {
                input_offset: #io, output_offset: #oo, requant: #m, act_min: #lo, act_max: #hi,
            };);
            // It may run with the output over the input (`kernel_order::elementwise`).
            cx.elementwise_call(&quote!(relu_s8), params, cx.elements(out)?, 1)
        }
        DType::Int16 => {
            // activations_common.cc: int16 needs both zero points 0.
            let (qi, qo) = (cx.quant(input)?, cx.quant(out)?);
            if qi.1 != 0 || qo.1 != 0 {
                return invalid(format!(
                    "{} and {} have zero points {} and {}; TFLM's int16 RELU needs 0",
                    input.desc(),
                    out.desc(),
                    qi.1,
                    qo.1
                ));
            }
            let r = quant::relu_params_s16(qi, qo);
            let (io, oo, lo, hi) = (
                i32_lit(r.input_offset),
                i32_lit(r.output_offset),
                i32_lit(r.act_min),
                i32_lit(r.act_max),
            );
            let m = requant(cx.rt, r.requant);
            let params = quote!(pub const #pname: #k::ReluS16 = #k::ReluS16 {
                input_offset: #io, output_offset: #oo, requant: #m, act_min: #lo, act_max: #hi,
            };);
            cx.elementwise_call(&quote!(relu_s16), params, cx.elements(out)?, 1)
        }
        DType::Float32 => cx.plain_elementwise_call(&quote!(relu_f32), cx.elements(out)?),
        other => unsupported(format!("the runtime has no RELU kernel for {other}")),
    }
}

fn relu6(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    same_size(cx)?;
    let input = cx.input(0)?;
    match input.dtype {
        DType::Int8 => {
            // TFLM's int8 RELU6 clamps in the input's quantisation and does not requantise.
            let (si, zi) = cx.quant(input)?;
            let (zero, six) = quant::relu6_params(si, zi);
            let to_i8 = |v: i32| {
                i8::try_from(v).map_err(|_| Refusal::Invalid(format!("{v} is outside int8")))
            };
            let (zero, six) = (
                Literal::i8_unsuffixed(to_i8(zero)?),
                Literal::i8_unsuffixed(to_i8(six)?),
            );
            let params =
                quote!(pub const #pname: #k::Relu6S8 = #k::Relu6S8 { zero: #zero, six: #six };);
            // It may run with the output over the input (`kernel_order::elementwise`).
            cx.elementwise_call(&quote!(relu6_s8), params, cx.elements(cx.output(0)?)?, 1)
        }
        DType::Int16 => {
            // activations_common.cc: no zero point check for RELU6; the bounds converted to
            // int16 as Relu6Quantized<int16_t> takes them.
            let (si, zi) = cx.quant(input)?;
            let (zero, six) = quant::relu6_params_s16(si, zi);
            let (zero, six) = (
                Literal::i16_unsuffixed(zero as i16),
                Literal::i16_unsuffixed(six as i16),
            );
            let params =
                quote!(pub const #pname: #k::Relu6S16 = #k::Relu6S16 { zero: #zero, six: #six };);
            cx.elementwise_call(&quote!(relu6_s16), params, cx.elements(cx.output(0)?)?, 1)
        }
        DType::Float32 => {
            cx.plain_elementwise_call(&quote!(relu6_f32), cx.elements(cx.output(0)?)?)
        }
        other => unsupported(format!("the runtime has no RELU6 kernel for {other}")),
    }
}
