//! LOGISTIC: TFLM's `logistic.cc` / `logistic_common.cc`
//! (`CalculateArithmeticOpDataLogistic`), for the kernels `stowplan::kernels::logistic_s8`,
//! `logistic_s16` and `logistic_f32`.

use quote::quote;

use super::overwrite::{self, Overwrite, Pairing, WriteOrder};
use super::{Call, Lower, OpKind, Refusal, i32_lit, invalid, kernel, unsupported};
use crate::graph::TensorInfo;
use crate::quant;
use crate::tflite::{DType, Model, Op};

/// LOGISTIC.
pub const LOGISTIC: OpKind = OpKind {
    overwrite: Some(OVERWRITE),
    ..kernel("logistic", lower)
};

/// LOGISTIC on one buffer, element by element.
const OVERWRITE: Overwrite = Overwrite {
    input: 0,
    order: WriteOrder::Elementwise,
    fits: "elementwise_fits",
    entries: &["logistic_s8", "logistic_s16", "logistic_f32"],
    pairing,
};

/// The int8, int16 and float32 LOGISTIC.
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

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (input, out) = (cx.input(0)?, cx.output(0)?);
    cx.same_type(input, out)?;
    if cx.elements(input)? != cx.elements(out)? {
        return invalid(format!(
            "{} and {} differ in size",
            input.desc(),
            out.desc()
        ));
    }
    match input.dtype {
        DType::Int8 => {
            // logistic_common.cc: the int8 output's zero point is -128.
            let (_, out_zp) = cx.quant(out)?;
            if out_zp != -128 {
                return invalid(format!(
                    "{} has zero point {out_zp}; an int8 LOGISTIC output needs -128",
                    out.desc()
                ));
            }
            let (si, zi) = cx.quant(input)?;
            let l = quant::logistic_params(si, zi);
            let (z, r, m, s) = (
                i32_lit(l.input_zero_point),
                i32_lit(l.input_range_radius),
                i32_lit(l.input_multiplier),
                i32_lit(l.input_left_shift),
            );
            let params = quote!(pub const #pname: #k::LogisticS8 = #k::LogisticS8 {
                input_zero_point: #z, input_range_radius: #r, input_multiplier: #m, input_left_shift: #s,
            };);
            // It may run with the output over the input (`kernel_order::elementwise`).
            cx.elementwise_call(&quote!(logistic_s8), params, cx.elements(out)?, 1)
        }
        DType::Int16 => {
            // logistic_common.cc: zero points 0, the output scale 2^-15, a power-of-two input
            // scale only with shift 0 (scale 2^-12).
            let (m, s) = super::tanh::s16_scaling(cx, input, out, |shift| shift == 0)?;
            let (m, s) = (i32_lit(m), i32_lit(s));
            let params = quote!(pub const #pname: #k::LogisticS16 = #k::LogisticS16 {
                input_multiplier: #m, input_left_shift: #s,
            };);
            cx.elementwise_call(&quote!(logistic_s16), params, cx.elements(out)?, 1)
        }
        DType::Float32 => cx.plain_elementwise_call(&quote!(logistic_f32), cx.elements(out)?),
        other => unsupported(format!("the runtime has no LOGISTIC kernel for {other}")),
    }
}
