//! DEQUANTIZE: TFLM's `dequantize.cc` / `dequantize_common.cc`, for the kernels
//! `stowplan::kernels::dequantize_s8_f32`, `dequantize_s16_f32` and `dequantize_u8_f32` (int8,
//! int16 and uint8 to float32: every pairing TFLM takes), and `dequantize_f16_f32` (float16 to
//! float32, as TensorFlow Lite's reference kernel: TFLM refuses it; its weights are usually
//! constants, and the op is folded when the crate compiles, [`crate::fold`]).

use proc_macro2::Literal;
use quote::quote;

use super::overwrite::{self, Overwrite, Pairing, WriteOrder};
use super::{Call, Lower, OpKind, Refusal, f32_lit, i32_lit, invalid, kernel, le_bytes};
use crate::graph::TensorInfo;
use crate::kernels;
use crate::tflite::{DType, Model, Op};

/// DEQUANTIZE.
pub const DEQUANTIZE: OpKind = OpKind {
    fold: Some(fold),
    overwrite: Some(OVERWRITE),
    ..kernel("dequantize", lower)
};

/// DEQUANTIZE to float32 on one buffer (`kernels::overlap::dequantize_s8_f32`, ...): each
/// output element, wider than its input element, written after that is read.
const OVERWRITE: Overwrite = Overwrite {
    input: 0,
    order: WriteOrder::Widening,
    fits: "widening_fits",
    entries: &[
        "dequantize_s8_f32",
        "dequantize_s16_f32",
        "dequantize_u8_f32",
    ],
    pairing,
};

/// DEQUANTIZE from int8, uint8 or int16 to float32, as many elements out as in: from the
/// widening's least displacement (`kernels::overlap::widening_min_displacement`, in the
/// input's elements).
fn pairing(model: &Model, _: &[u8], tensors: &[TensorInfo], op: &Op) -> Option<Pairing> {
    let (input, out) = (
        overwrite::operand(model, op, 0)?,
        overwrite::only_output(model, op)?,
    );
    let in_bytes: u64 = match (input.dtype, out.dtype) {
        (DType::Int8 | DType::Uint8, DType::Float32) => 1,
        (DType::Int16, DType::Float32) => 2,
        _ => return None,
    };
    let n = overwrite::elements(tensors, input)?;
    if op.inputs.len() != 1 || overwrite::elements(tensors, out) != Some(n) {
        return None;
    }
    let d = kernels::overlap::widening_min_displacement(
        usize::try_from(n).ok()?,
        usize::try_from(4 / in_bytes).ok()?,
    )?;
    Some(Pairing {
        least: overwrite::bytes(d, in_bytes)?,
        preferred: 0,
        pixel: 0,
    })
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
    if (input.dtype, out.dtype) == (DType::Float16, DType::Float32) {
        return Ok(Call {
            params: None,
            body: quote!(#k::proven::dequantize_f16_f32(i0, o0);),
            reads: vec![0],
            check: Some(quote!(#k::check_dequantize_f16_f32(i0, o0))),
        });
    }
    let (ty, f) = match (input.dtype, out.dtype) {
        (DType::Int8, DType::Float32) => (quote!(DequantizeS8F32), quote!(dequantize_s8_f32)),
        (DType::Int16, DType::Float32) => (quote!(Dequantize), quote!(dequantize_s16_f32)),
        (DType::Uint8, DType::Float32) => (quote!(Dequantize), quote!(dequantize_u8_f32)),
        (i, o) => {
            // dequantize_common.cc:43-46.
            return invalid(format!(
                "{} is {i} and {} is {o}; TFLM's DEQUANTIZE takes int8, int16 or uint8 to float32 (its Prepare fails; stowplan also takes float16)",
                input.desc(),
                out.desc()
            ));
        }
    };
    let (scale, zp) = cx.quant(input)?;
    let (scale, zp) = (f32_lit(scale)?, i32_lit(zp));
    let params = quote!(pub const #pname: #k::#ty = #k::#ty { scale: #scale, zero_point: #zp };);
    if cx.overlap.is_none() {
        return Ok(Call {
            params: Some(params),
            body: quote!(#k::proven::#f(&params::#pname, i0, o0);),
            reads: vec![0],
            check: Some({
                let check = super::unary::check_of(&f);
                quote!(#k::#check(&#pname, i0, o0))
            }),
        });
    }
    // The float32 output over the input it widens (`kernel_order::widening`): one view of the
    // input's element, each output element `width` of them.
    let n = Literal::usize_unsuffixed(cx.elements(out)?);
    let width = Literal::usize_unsuffixed(match input.dtype {
        DType::Int16 => 2,
        _ => 4,
    });
    let mut call = cx.overlapped_call(
        &f,
        params,
        |ia, oa| quote!(#ia, #oa, #n, #width),
        &quote!(#n),
        vec![],
        "at least the widening's least displacement above",
    )?;
    // The one-buffer entry's check (the placement), asserted when the crate compiles; the body
    // calls its proven entry.
    let (ia, oa) = cx.overlap.unwrap_or_default();
    let (ia, oa) = (Literal::u64_unsuffixed(ia), Literal::u64_unsuffixed(oa));
    let check = super::unary::check_of(&f);
    call.check = Some(quote!(#k::overlap::#check(&#pname, o0, #ia, #oa, #n)));
    call.body = quote!(#k::proven::overlap::#f(&params::#pname, o0, #ia, #oa, #n););
    Ok(call)
}

/// The conversion, on the host ([`super::Folding`]): the runtime's kernels.
pub(super) fn fold(cx: &Lower<'_>) -> Result<Vec<Vec<u8>>, Refusal> {
    lower(cx)?;
    let input = cx.input(0)?;
    let mut out = cx.output_values::<f32>(0)?;
    let ran = match input.dtype {
        DType::Float16 => kernels::dequantize_f16_f32(&cx.const_values(0)?, &mut out),
        DType::Int8 => {
            let (scale, zero_point) = cx.quant(input)?;
            let p = kernels::DequantizeS8F32 { scale, zero_point };
            kernels::dequantize_s8_f32(&p, &cx.const_values(0)?, &mut out)
        }
        DType::Int16 | DType::Uint8 => {
            let (scale, zero_point) = cx.quant(input)?;
            let p = kernels::Dequantize { scale, zero_point };
            if input.dtype == DType::Int16 {
                kernels::dequantize_s16_f32(&p, &cx.const_values(0)?, &mut out)
            } else {
                kernels::dequantize_u8_f32(&p, &cx.const_values(0)?, &mut out)
            }
        }
        other => return invalid(format!("DEQUANTIZE of {other}")),
    };
    ran.map_err(|e| Refusal::Unsupported(format!("the DEQUANTIZE kernel refuses: {e}")))?;
    Ok(vec![le_bytes(&out)])
}
