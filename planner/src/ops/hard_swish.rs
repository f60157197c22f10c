//! HARD_SWISH: TFLM's `hard_swish.cc` / `hard_swish_common.cc` (`HardSwishPrepare`), for the
//! kernels `stowplan::kernels::{hard_swish_s8, hard_swish_f32}`.

use proc_macro2::Literal;
use quote::quote;

use super::overwrite::{self, Overwrite, Pairing, WriteOrder};
use super::unary::{one_input_one_output, plain_elementwise, same_size, with_params_elementwise};
use super::{Call, Lower, OpKind, Refusal, i32_lit, invalid, kernel, unsupported};
use crate::graph::TensorInfo;
use crate::quant;
use crate::tflite::{DType, Model, Op};

/// HARD_SWISH.
pub const HARD_SWISH: OpKind = OpKind {
    overwrite: Some(OVERWRITE),
    ..kernel("hard_swish", lower)
};

/// HARD_SWISH on one buffer, element by element.
const OVERWRITE: Overwrite = Overwrite {
    input: 0,
    order: WriteOrder::Elementwise,
    fits: "elementwise_fits",
    entries: &["hard_swish_s8", "hard_swish_f32"],
    pairing,
};

/// The int8 and float32 HARD_SWISH.
fn pairing(model: &Model, _: &[u8], tensors: &[TensorInfo], op: &Op) -> Option<Pairing> {
    overwrite::elementwise(
        model,
        tensors,
        op,
        &[(DType::Int8, DType::Int8), (DType::Float32, DType::Float32)],
        false,
    )
}

/// TFLM's int8 `HardSwishParams`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HardSwishParams {
    /// The input zero point (TFLM keeps it as `int16_t`).
    pub input_zero_point: i16,
    /// The output zero point.
    pub output_zero_point: i16,
    /// The reluish multiplier, down-scaled to 16 bits.
    pub reluish_multiplier_fixedpoint_int16: i16,
    /// Its exponent.
    pub reluish_multiplier_exponent: i32,
    /// The output multiplier, down-scaled to 16 bits.
    pub output_multiplier_fixedpoint_int16: i16,
    /// Its exponent.
    pub output_multiplier_exponent: i32,
}

/// TFLM's `HardSwishPrepare` for int8 as the pinned wheel computes it: `hires_input_scale =
/// (1/128) * input_scale` in float; the output multiplier `(double)hires / (double)
/// output_scale` and the reluish multiplier `(double)hires / (double)(3 / 32768)` (the wheel
/// divides in double; TFLM's source at 90b983c2 divides in float and widens), each through
/// `QuantizeMultiplier` and `DownScaleInt32ToInt16Multiplier`. `None` where `Prepare` fails
/// (an output exponent above 0).
#[must_use]
pub fn hard_swish_params(input: (f32, i32), output: (f32, i32)) -> Option<HardSwishParams> {
    let hires_input_scale = (1.0_f32 / 128.0) * input.0;
    let reluish_scale = 3.0_f32 / 32768.0;
    let (om, oe) = quant::quantize_multiplier(f64::from(hires_input_scale) / f64::from(output.0));
    if oe > 0 {
        return None;
    }
    let (rm, re) =
        quant::quantize_multiplier(f64::from(hires_input_scale) / f64::from(reluish_scale));
    Some(HardSwishParams {
        input_zero_point: input.1 as i16,
        output_zero_point: output.1 as i16,
        reluish_multiplier_fixedpoint_int16: quant::down_scale_int32_to_int16_multiplier(rm),
        reluish_multiplier_exponent: re,
        output_multiplier_fixedpoint_int16: quant::down_scale_int32_to_int16_multiplier(om),
        output_multiplier_exponent: oe,
    })
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    one_input_one_output(cx)?;
    let (input, out) = same_size(cx)?;
    // HardSwishPrepare does not compare the types; HardSwishEval writes the input's type.
    cx.same_type(input, out)?;
    match input.dtype {
        DType::Int8 => {
            let (qi, qo) = (cx.quant(input)?, cx.quant(out)?);
            let Some(p) = hard_swish_params(qi, qo) else {
                return invalid(format!(
                    "{} scale {} over {} scale {} gives an output multiplier above 1 \
                     (TFLM's HardSwishPrepare fails)",
                    input.desc(),
                    qi.0,
                    out.desc(),
                    qo.0
                ));
            };
            let l16 = Literal::i16_unsuffixed;
            let (iz, oz, rm, om) = (
                l16(p.input_zero_point),
                l16(p.output_zero_point),
                l16(p.reluish_multiplier_fixedpoint_int16),
                l16(p.output_multiplier_fixedpoint_int16),
            );
            let (re, oe) = (
                i32_lit(p.reluish_multiplier_exponent),
                i32_lit(p.output_multiplier_exponent),
            );
            Ok(with_params_elementwise(
                cx,
                quote!(HardSwishS8),
                quote!(
                    input_zero_point: #iz, output_zero_point: #oz,
                    reluish_multiplier_fixedpoint_int16: #rm, reluish_multiplier_exponent: #re,
                    output_multiplier_fixedpoint_int16: #om, output_multiplier_exponent: #oe,
                ),
                quote!(hard_swish_s8),
            )?)
        }
        DType::Float32 => plain_elementwise(cx, quote!(hard_swish_f32)),
        other => unsupported(format!("the runtime has no HARD_SWISH kernel for {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_and_refusal() {
        // Input and output scale 0.1: hires 0.1/128, the output multiplier 1/128.
        let p = hard_swish_params((0.1, -3), (0.1, 5)).unwrap_or_else(|| unreachable!());
        assert_eq!(p.output_multiplier_exponent, -6);
        assert_eq!(p.output_multiplier_fixedpoint_int16, 16384);
        assert_eq!((p.input_zero_point, p.output_zero_point), (-3, 5));
        // An output scale below input_scale / 128: TFLM's Prepare fails.
        assert!(hard_swish_params((1.0, 0), (1e-3, 0)).is_none());
        assert_eq!(
            quant::down_scale_int32_to_int16_multiplier(i32::MAX),
            i16::MAX
        );
        assert_eq!(quant::down_scale_int32_to_int16_multiplier(1 << 30), 16384);
        assert_eq!(
            quant::down_scale_int32_to_int16_multiplier(0x7fff_7fff),
            i16::MAX
        );
    }
}
