//! LEAKY_RELU: TFLM's `leaky_relu.cc` / `leaky_relu_common.cc` (`CalculateOpDataLeakyRelu`),
//! for the kernels `stowplan::kernels::{leaky_relu_s8, leaky_relu_s16, leaky_relu_f32}`.

use quote::quote;

use super::overwrite::{self, Overwrite, Pairing, WriteOrder};
use super::unary::{one_input_one_output, same_size, with_params_elementwise};
use super::{Call, Lower, OpKind, Refusal, f32_lit, i32_lit, kernel, requant, unsupported};
use crate::graph::TensorInfo;
use crate::quant;
use crate::tflite::{DType, Model, Op, OpOptions};

/// LEAKY_RELU.
pub const LEAKY_RELU: OpKind = OpKind {
    overwrite: Some(OVERWRITE),
    ..kernel("leaky_relu", lower)
};

/// LEAKY_RELU on one buffer, element by element.
const OVERWRITE: Overwrite = Overwrite {
    input: 0,
    order: WriteOrder::Elementwise,
    fits: "elementwise_fits",
    entries: &["leaky_relu_s8", "leaky_relu_s16", "leaky_relu_f32"],
    pairing,
};

/// The int8, int16 and float32 LEAKY_RELU.
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
    let (input, out) = same_size(cx)?;
    cx.same_type(input, out)?;
    // ParseLeakyRelu: without LeakyReluOptions, alpha stays 0.
    let alpha = match cx.op.options {
        OpOptions::LeakyRelu { alpha } => alpha,
        _ => 0.0,
    };
    match input.dtype {
        DType::Int8 | DType::Int16 => {
            let (si, zi) = cx.quant(input)?;
            let (so, zo) = cx.quant(out)?;
            // leaky_relu_common.cc, as the pinned wheel computes it: the products and
            // quotients in double ((double)input_scale * (double)alpha / (double)output_scale).
            let alpha_m =
                quant::quantize_multiplier(f64::from(si) * f64::from(alpha) / f64::from(so));
            let identity_m = quant::rescale_multiplier(si, so);
            let (am, idm) = (requant(cx.rt, alpha_m), requant(cx.rt, identity_m));
            let (iz, oz) = (i32_lit(zi), i32_lit(zo));
            let f = if input.dtype == DType::Int8 {
                quote!(leaky_relu_s8)
            } else {
                quote!(leaky_relu_s16)
            };
            Ok(with_params_elementwise(
                cx,
                quote!(LeakyReluQuantized),
                quote!(input_zero_point: #iz, output_zero_point: #oz, alpha: #am, identity: #idm),
                f,
            )?)
        }
        DType::Float32 => {
            // TFLM runs any alpha, infinities and NaN included: those as their bits.
            let a = if alpha.is_finite() {
                f32_lit(alpha)?
            } else {
                let bits = alpha.to_bits();
                quote!(f32::from_bits(#bits))
            };
            Ok(with_params_elementwise(
                cx,
                quote!(LeakyReluF32),
                quote!(alpha: #a),
                quote!(leaky_relu_f32),
            )?)
        }
        other => unsupported(format!("the runtime has no LEAKY_RELU kernel for {other}")),
    }
}
