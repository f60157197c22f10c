//! TRANSPOSE_CONV: TFLM's `transpose_conv.cc` (`TransposeConvPrepare`, `CalculateOpData`) and
//! `PopulateConvolutionQuantizationParams` in `kernel_util.cc`, for the kernels
//! `stowplan::kernels::transpose_conv_s8`, `transpose_conv_s16` (int16 input, int8 filter,
//! int64 bias or none), `transpose_conv_s16_bias16` (an int16 bias) and `transpose_conv_f32`.
//!
//! Inputs: 0 the output shape (an int32 tensor TFLM's kernel never reads: the output tensor's
//! own shape rules), 1 the filter `[O, FH, FW, C]`, 2 the input, 3 an optional bias. The padding
//! is `ComputePaddingHeightWidth` of the output's size (dilations 1). TFLM's quantised kernels
//! scatter into a scratch buffer of the output's size that its `Prepare` requests (int32
//! accumulators for int8, int64 for int16, and for an int16 bias a buffer that widens it to
//! int64): the runtime's kernels gather per output and need none.

use quote::quote;

use super::conv::{act_range_q, multipliers};
use super::{
    Call, Lower, OpKind, Refusal, act_range_f32, dims, f32_lit, i32_lit, input as op_input,
    invalid, output as op_output, padding_hw, positive, unsupported, usize_lits,
};
use crate::tflite::{DType, Model, Op, OpOptions};

/// TRANSPOSE_CONV.
pub const TRANSPOSE_CONV: OpKind = OpKind {
    module: "transpose_conv",
    in_place: false,
    tflm_scratch: scratch,
    scratch: super::no_scratch,
    lower: Some(lower),
    fold: None,
    state: None,
    overwrite: None,
};

/// TFLM's requests (`TransposeConvPrepare`, then `CalculateOpData`): int8 input the output's
/// element count × 4 (int32 accumulators); int16 × 8 (int64), then for an int16 bias its
/// element count × 8.
fn scratch(model: &Model, op: &Op) -> Option<Vec<u64>> {
    let input = op_input(model, op, 2)?;
    let elements = |t| {
        dims(t)?
            .iter()
            .try_fold(1u64, |n: u64, &d| n.checked_mul(d))
    };
    let out = elements(op_output(model, op, 0)?)?;
    match input.dtype {
        DType::Int8 => Some(vec![out.checked_mul(4)?]),
        DType::Int16 => {
            let mut v = vec![out.checked_mul(8)?];
            if let Some(bias) = op_input(model, op, 3).filter(|b| b.dtype == DType::Int16) {
                v.push(elements(bias)?.checked_mul(8)?);
            }
            Some(v)
        }
        _ => None,
    }
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    // transpose_conv.cc:80-83: 3 or 4 inputs, one output.
    if !(3..=4).contains(&cx.op.inputs.len()) || cx.op.outputs.len() != 1 {
        return invalid(format!(
            "TRANSPOSE_CONV has {} inputs and {} outputs; TFLM's needs 3 or 4 and 1",
            cx.op.inputs.len(),
            cx.op.outputs.len()
        ));
    }
    let filter = cx.input(1)?;
    let input = cx.input(2)?;
    let out = cx.output(0)?;
    let OpOptions::TransposeConv {
        padding,
        stride_w,
        stride_h,
        activation,
        ..
    } = cx.op.options
    else {
        return invalid("its TransposeConvOptions are missing");
    };
    let (sh, sw) = (
        positive(stride_h, "stride_h")?,
        positive(stride_w, "stride_w")?,
    );
    // transpose_conv.cc:166-170: no hybrid models; Eval: input and output alike.
    let types_ok =
        input.dtype == filter.dtype || (input.dtype == DType::Int16 && filter.dtype == DType::Int8);
    if !types_ok {
        return invalid(format!(
            "{} is {} and {} is {}: hybrid models are not supported on TFLite Micro",
            input.desc(),
            input.dtype,
            filter.desc(),
            filter.dtype
        ));
    }
    cx.same_type(input, out)?;
    for t in [input, filter, out] {
        if t.shape.len() != 4 {
            return invalid(format!(
                "{} has rank {}; TRANSPOSE_CONV needs 4",
                t.desc(),
                t.shape.len()
            ));
        }
    }
    let i = cx.shape_n::<4>(input)?;
    let f = cx.shape_n::<4>(filter)?;
    let o = cx.shape_n::<4>(out)?;
    if i[0] != o[0] || i[3] != f[3] || f[0] != o[3] {
        return invalid(format!(
            "{} {i:?}, {} {f:?} and {} {o:?} do not fit together: TRANSPOSE_CONV needs input [N, H, W, C], filter [O, FH, FW, C] and output [N, OH, OW, O]",
            input.desc(),
            filter.desc(),
            out.desc()
        ));
    }
    cx.backed(filter)?;
    let channels = f[0];
    let bias = cx.optional_input(3);
    if let Some(b) = bias {
        cx.backed(b)?;
        let ok: &[DType] = match input.dtype {
            DType::Int8 => &[DType::Int32],
            DType::Int16 => &[DType::Int64, DType::Int16],
            other => &[other],
        };
        if input.dtype == DType::Int16 && b.dtype == DType::Int32 {
            // transpose_conv.cc reads an int16 convolution's bias as int64 unless it is int16.
            return unsupported(format!(
                "{} is int32: TFLM's int16 TRANSPOSE_CONV reads it as int64",
                b.desc()
            ));
        }
        if !ok.contains(&b.dtype) {
            cx.expect_type(b, ok.first().copied().unwrap_or(input.dtype), "bias")?;
        }
        if cx.elements(b)? != channels {
            return invalid(format!("{} does not hold {channels} values", b.desc()));
        }
    }
    // transpose_conv.cc:88-92: the padding from the output's size, dilations 1.
    let (pad_h, pad_w) = padding_hw(padding, (sh, sw), (1, 1), (o[1], o[2]), (f[1], f[2]))?;
    let (il, fl, ol) = (usize_lits(&i), usize_lits(&f), usize_lits(&o));
    let geometry = quote!(#k::TransposeConvGeometry {
        input: #il, filter: #fl, output: #ol,
        stride_h: #sh, stride_w: #sw, pad_h: #pad_h, pad_w: #pad_w,
    });
    let (params, f) = match input.dtype {
        DType::Float32 => {
            let (lo, hi) = act_range_f32(activation)?;
            let (lo, hi) = (f32_lit(lo)?, f32_lit(hi)?);
            (
                quote!(pub const #pname: #k::TransposeConvF32 = #k::TransposeConvF32 {
                    geometry: #geometry, act_min: #lo, act_max: #hi,
                };),
                quote!(transpose_conv_f32),
            )
        }
        DType::Int8 | DType::Int16 => {
            // transpose_conv.cc:197-215: an affine filter quantisation, one scale or one per
            // output channel, as many zero points as scales.
            let q = filter.quantization.as_ref();
            let (scales, zps) = q.map_or((0, 0), |q| (q.scale.len(), q.zero_point.len()));
            if scales != zps {
                return invalid(format!(
                    "{} has {scales} scales and {zps} zero points (TFLM needs as many)",
                    filter.desc()
                ));
            }
            let per_channel = multipliers(cx, input, filter, out, channels, 0)?;
            let (out_scale, out_zp) = cx.quant(out)?;
            let (lo, hi) = act_range_q(activation, out.dtype, out_scale, out_zp)?;
            let (lo, hi) = (i32_lit(lo), i32_lit(hi));
            if input.dtype == DType::Int8 {
                let (io, oo) = (i32_lit(cx.offset(input)?), i32_lit(out_zp));
                (
                    quote!(pub const #pname: #k::TransposeConvS8 = #k::TransposeConvS8 {
                        geometry: #geometry, input_offset: #io, output_offset: #oo,
                        requant: &[#(#per_channel),*], act_min: #lo, act_max: #hi,
                    };),
                    quote!(transpose_conv_s8),
                )
            } else {
                (
                    quote!(pub const #pname: #k::TransposeConvS16 = #k::TransposeConvS16 {
                        geometry: #geometry, requant: &[#(#per_channel),*], act_min: #lo, act_max: #hi,
                    };),
                    if bias.is_some_and(|b| b.dtype == DType::Int16) {
                        quote!(transpose_conv_s16_bias16)
                    } else {
                        quote!(transpose_conv_s16)
                    },
                )
            }
        }
        other => {
            return invalid(format!(
                "{} is {other}; TFLM's TRANSPOSE_CONV takes float32, int8 and int16 (its Eval fails)",
                input.desc()
            ));
        }
    };
    let bias_view = cx.optional_view(3);
    let bias_len = if bias.is_some() {
        quote!(::core::option::Option::Some(i3))
    } else {
        quote!(::core::option::Option::None)
    };
    let check = quote::format_ident!("check_{}", f.to_string());
    Ok(Call {
        params: Some(params),
        body: quote!(#k::proven::#f(&params::#pname, i2, i1, #bias_view, o0);),
        reads: if bias.is_some() {
            vec![1, 2, 3]
        } else {
            vec![1, 2]
        },
        check: Some(quote!(#k::#check(&#pname, i2, i1, #bias_len, o0))),
    })
}
