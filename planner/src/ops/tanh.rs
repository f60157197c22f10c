//! TANH: TFLM's `tanh.cc` (`TanhPrepare`, `CalculateArithmeticOpData`), for the kernels
//! `stowplan::kernels::{tanh_s8, tanh_s16, tanh_f32}`.

use quote::quote;

use super::overwrite::{self, Overwrite, Pairing, WriteOrder};
use super::unary::{one_input_one_output, plain_elementwise, with_params_elementwise};
use super::{Call, Lower, OpKind, Refusal, i32_lit, invalid, kernel, unsupported};
use crate::graph::TensorInfo;
use crate::quant;
use crate::tflite::{DType, Model, Op, Tensor};

/// TANH.
pub const TANH: OpKind = OpKind {
    overwrite: Some(OVERWRITE),
    ..kernel("tanh", lower)
};

/// TANH on one buffer, element by element.
const OVERWRITE: Overwrite = Overwrite {
    input: 0,
    order: WriteOrder::Elementwise,
    fits: "elementwise_fits",
    entries: &["tanh_s8", "tanh_s16", "tanh_f32"],
    pairing,
};

/// The int8, int16 and float32 TANH.
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
    one_input_one_output(cx)?;
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
            // tanh.cc: the same computation as LOGISTIC's (kInputIntegerBits = 4); the output's
            // quantisation is not read (the kernel writes in steps of 1/128).
            let (si, zi) = cx.quant(input)?;
            let l = quant::logistic_params(si, zi);
            let (z, r, m, s) = (
                i32_lit(l.input_zero_point),
                i32_lit(l.input_range_radius),
                i32_lit(l.input_multiplier),
                i32_lit(l.input_left_shift),
            );
            let (k, pname) = (cx.k(), cx.params);
            let params = quote!(pub const #pname: #k::TanhS8 = #k::TanhS8 {
                input_zero_point: #z, input_range_radius: #r, input_multiplier: #m, input_left_shift: #s,
            };);
            // It may run with the output over the input (`kernel_order::elementwise`).
            cx.elementwise_call(&quote!(tanh_s8), params, cx.elements(out)?, 1)
        }
        DType::Int16 => {
            let (m, s) = s16_scaling(cx, input, out, |shift| shift == 0 || shift == 1)?;
            let (m, s) = (i32_lit(m), i32_lit(s));
            Ok(with_params_elementwise(
                cx,
                quote!(TanhS16),
                quote!(input_multiplier: #m, input_left_shift: #s),
                quote!(tanh_s16),
            )?)
        }
        DType::Float32 => plain_elementwise(cx, quote!(tanh_f32)),
        other => unsupported(format!("the runtime has no TANH kernel for {other}")),
    }
}

/// The int16 checks and input scaling shared by TANH and LOGISTIC (`kInputIntegerBits = 3`,
/// `kOutputFractionalBits = 15`): both zero points 0, the output scale 2^-15 (`CheckedLog2`),
/// and [`quant::s16_sigmoid_input_scaling`]. Returns `(input_multiplier, input_left_shift)`.
pub(super) fn s16_scaling(
    cx: &Lower<'_>,
    input: &Tensor,
    out: &Tensor,
    pot_shift_ok: fn(i32) -> bool,
) -> Result<(i32, i32), Refusal> {
    let (si, zi) = cx.quant(input)?;
    let (so, zo) = cx.quant(out)?;
    if zi != 0 || zo != 0 {
        return invalid(format!(
            "{} and {} have zero points {zi} and {zo}; TFLM's int16 {} needs 0",
            input.desc(),
            out.desc(),
            cx.name()
        ));
    }
    let scaling = quant::s16_sigmoid_input_scaling(si, pot_shift_ok);
    let (pot, log2) = quant::checked_log2(so);
    if !pot || log2 != -15 {
        return invalid(format!(
            "{} has scale {so}; TFLM's int16 {} needs 2^-15",
            out.desc(),
            cx.name()
        ));
    }
    Ok(scaling)
}

#[cfg(test)]
mod tests {
    use crate::quant;

    #[test]
    fn checked_log2_of_scales() {
        assert_eq!(quant::checked_log2(2f32.powi(-15)), (true, -15));
        assert_eq!(quant::checked_log2(2f32.powi(-12)), (true, -12));
        assert_eq!(quant::checked_log2(1.0), (true, 0));
        assert!(!quant::checked_log2(0.3).0);
        // Within 1e-3 of a power of two counts as one (TFLM's tolerance).
        assert_eq!(quant::checked_log2(2f32.powi(-12) * 1.000_1), (true, -12));
    }

    #[test]
    fn int16_input_scaling() {
        let tanh_ok = |s: i32| s == 0 || s == 1;
        let logistic_ok = |s: i32| s == 0;
        assert_eq!(
            quant::s16_sigmoid_input_scaling(2f32.powi(-12), tanh_ok),
            (0, 0)
        );
        assert_eq!(
            quant::s16_sigmoid_input_scaling(2f32.powi(-11), tanh_ok),
            (0, 1)
        );
        // LOGISTIC takes 2^-11 through the loop: 2^-11 * 12288 = 6, doubled 12 times.
        assert_eq!(
            quant::s16_sigmoid_input_scaling(2f32.powi(-11), logistic_ok),
            (24576, 12)
        );
        // A scale so small that the loop stops at 31 doublings.
        let (m, s) = quant::s16_sigmoid_input_scaling(1e-12, logistic_ok);
        assert_eq!(s, 31);
        assert!(m < 16384);
        // Large scales are not reduced.
        assert_eq!(
            quant::s16_sigmoid_input_scaling(10.0, logistic_ok),
            (122_880, 0)
        );
    }
}
