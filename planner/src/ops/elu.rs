//! ELU: TFLM's `elu.cc` (`CalculateOpData`, `PopulateLookupTable`), for the kernels
//! `stowplan::kernels::{elu_s8, elu_f32}`.

use proc_macro2::Literal;
use quote::quote;

use super::overwrite::{self, Overwrite, Pairing, WriteOrder};
use super::unary::{one_input_one_output, plain_elementwise, with_params_elementwise};
use super::{Call, Lower, OpKind, Refusal, invalid, kernel, unsupported};
use crate::graph::TensorInfo;
use crate::quant;
use crate::tflite::{DType, Model, Op};

/// ELU.
pub const ELU: OpKind = OpKind {
    overwrite: Some(OVERWRITE),
    ..kernel("elu", lower)
};

/// ELU on one buffer, element by element.
const OVERWRITE: Overwrite = Overwrite {
    input: 0,
    order: WriteOrder::Elementwise,
    fits: "elementwise_fits",
    entries: &["elu_s8", "elu_f32"],
    pairing,
};

/// The int8 and float32 ELU.
fn pairing(model: &Model, _: &[u8], tensors: &[TensorInfo], op: &Op) -> Option<Pairing> {
    overwrite::elementwise(
        model,
        tensors,
        op,
        &[(DType::Int8, DType::Int8), (DType::Float32, DType::Float32)],
        false,
    )
}

/// TFLM's `PopulateLookupTable<int8_t>` with ELU's transform (`x < 0 ? exp(x) - 1 : x`), as
/// the pinned wheel computes it: `1.0f / output_scale` once; per value `input_scale * (v -
/// zero_point)` in float, the transform (glibc's `expf`), `roundf(transformed *
/// inverse_scale)`, plus the output zero point in float, converted as x86-64 does, clamped to
/// int8; stored at the value's bits.
#[must_use]
pub fn elu_table(input: (f32, i32), output: (f32, i32)) -> [i8; 256] {
    let inverse_scale = 1.0_f32 / output.0;
    let mut table = [0_i8; 256];
    for val in i32::from(i8::MIN)..=i32::from(i8::MAX) {
        let dequantized = input.0 * val.wrapping_sub(input.1) as f32;
        let transformed = if dequantized < 0.0 {
            stowplan_math::expf(dequantized) - 1.0
        } else {
            dequantized
        };
        let rescaled = stowplan_math::roundf(transformed * inverse_scale);
        let quantized = quant::f32_to_i32_like_x86(rescaled + output.1 as f32);
        let q = quantized.clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8;
        if let Some(slot) = table.get_mut(usize::from(val as i8 as u8)) {
            *slot = q;
        }
    }
    table
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
            let table = elu_table(cx.quant(input)?, cx.quant(out)?);
            let items = table.iter().map(|&v| Literal::i8_unsuffixed(v));
            Ok(with_params_elementwise(
                cx,
                quote!(EluS8),
                quote!(table: &[#(#items),*]),
                quote!(elu_s8),
            )?)
        }
        DType::Float32 => plain_elementwise(cx, quote!(elu_f32)),
        other => unsupported(format!("the runtime has no ELU kernel for {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_of_the_identity_and_of_exp() {
        // Scale 1, zero points 0: non-negative values map to themselves, -1 to
        // round(e^-1 - 1) = -1, -128 to -1.
        let t = elu_table((1.0, 0), (1.0, 0));
        assert_eq!(t[5], 5);
        assert_eq!(t[127], 127);
        assert_eq!(t[usize::from((-1_i8) as u8)], -1);
        assert_eq!(t[usize::from((-128_i8) as u8)], -1);
        // An output scale of 1/64: e^-1 - 1 = -0.632 is -40.4 steps.
        let t = elu_table((1.0, 0), (1.0 / 64.0, 0));
        assert_eq!(t[usize::from((-1_i8) as u8)], -40);
        assert_eq!(t[2], 127);
    }
}
