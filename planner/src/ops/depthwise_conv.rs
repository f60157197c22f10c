//! DEPTHWISE_CONV_2D: TFLM's `depthwise_conv.cc` / `depthwise_conv_common.cc`
//! (`DepthwiseConvPrepare`, `CalculateOpDataDepthwiseConv`), for the kernels
//! `stowplan::kernels::depthwise_conv2d_s8`, `depthwise_conv2d_s8_i4` (packed int4 filter),
//! `depthwise_conv2d_s16` (int16 activations, int8 filter) and `depthwise_conv2d_f32`. The
//! geometry and the per-channel multipliers are CONV_2D's ([`super::conv`]), with the filter's
//! channels in its last dimension.

use quote::{format_ident, quote};

use super::conv::{
    ConvOptions, act_range_q, check_bias, geometry, int4_filter_scratch, kernel_choice,
    kernel_constant, kernel_doc, multiplier_values, window_pairing,
};
use super::overwrite::{Overwrite, WriteOrder};
use super::{
    Call, KernelChoice, Lower, OpKind, Refusal, act_range_f32, act_range_s8, f32_lit, i32_lit,
    invalid, requant, unsupported,
};
use crate::tflite::{DType, OpOptions};

/// DEPTHWISE_CONV_2D.
pub const DEPTHWISE_CONV_2D: OpKind = OpKind {
    module: "depthwise_conv",
    in_place: false,
    tflm_scratch: int4_filter_scratch,
    scratch: super::no_scratch,
    lower: Some(lower),
    fold: None,
    state: None,
    overwrite: Some(Overwrite {
        input: 0,
        order: WriteOrder::Window,
        fits: "fits",
        entries: &[
            "depthwise_conv2d_s8",
            "depthwise_conv2d_s8_i4",
            "depthwise_conv2d_s16",
            "depthwise_conv2d_f32",
        ],
        // CONV_2D's: the same driver, the same geometry.
        pairing: window_pairing,
    }),
};

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let input = cx.input(0)?;
    let filter = cx.input(1)?;
    let out = cx.output(0)?;
    let OpOptions::DepthwiseConv2D {
        padding,
        stride_w,
        stride_h,
        depth_multiplier,
        dilation_w,
        dilation_h,
        activation,
    } = cx.op.options
    else {
        return invalid("its DepthwiseConv2DOptions are missing");
    };
    let o = ConvOptions::new(padding, (stride_h, stride_w), (dilation_h, dilation_w))?;
    cx.same_type(input, out)?;
    let ishape = cx.shape_n::<4>(input)?;
    let oshape = cx.shape_n::<4>(out)?;
    // TFLM's kernels take the multiplier from the options: it must be the channels' ratio.
    let dm = usize::try_from(depth_multiplier).unwrap_or(0);
    if dm == 0 || ishape[3].checked_mul(dm) != Some(oshape[3]) {
        return invalid(format!(
            "depth_multiplier is {depth_multiplier}, but {} has {} channels and {} has {}",
            input.desc(),
            ishape[3],
            out.desc(),
            oshape[3]
        ));
    }
    let (geometry, _, fshape, _, value) = geometry(cx, &o, input, filter, out, dm)?;
    let channels = fshape[3];
    if fshape[0] != 1 || channels != oshape[3] {
        return invalid(format!(
            "{} has shape {:?}; DEPTHWISE_CONV_2D needs [1, h, w, {}]",
            filter.desc(),
            fshape,
            oshape[3]
        ));
    }
    cx.backed(filter)?;
    if let Some(bias) = cx.optional_input(2) {
        if input.dtype == DType::Int16 && bias.dtype != DType::Int64 {
            // depthwise_conv.cc reads an int16 convolution's bias as int64 whatever its type.
            return unsupported(format!(
                "{} is {}: TFLM's int16 DEPTHWISE_CONV_2D reads its bias as int64",
                bias.desc(),
                bias.dtype
            ));
        }
        check_bias(cx, bias, input.dtype, channels)?;
    }
    let (params, f) = match (input.dtype, filter.dtype) {
        (DType::Int8 | DType::Int16, DType::Int8 | DType::Int4) => {
            if input.dtype == DType::Int16 && filter.dtype == DType::Int4 {
                return invalid(format!(
                    "{} is int4; TFLM's DEPTHWISE_CONV_2D on int16 takes int8 filters (its Prepare fails)",
                    filter.desc()
                ));
            }
            let q = filter.quantization.as_ref();
            let (scales, zps) = q.map_or((0, 0), |q| (q.scale.len(), q.zero_point.len()));
            if input.dtype == DType::Int8 && scales != zps {
                return invalid(format!(
                    "{} has {scales} scales and {zps} zero points (TFLM needs as many)",
                    filter.desc()
                ));
            }
            let values = multiplier_values(cx, input, filter, out, channels, 3)?;
            let per_channel: Vec<_> = values.iter().map(|&m| requant(cx.rt, m)).collect();
            let (out_scale, out_zp) = cx.quant(out)?;
            if input.dtype == DType::Int16 {
                let (lo, hi) = act_range_q(activation, DType::Int16, out_scale, out_zp)?;
                let (lo, hi) = (i32_lit(lo), i32_lit(hi));
                (
                    quote!(pub const #pname: #k::ConvS16 = #k::ConvS16 {
                        geometry: #geometry, requant: &[#(#per_channel),*], act_min: #lo, act_max: #hi,
                    };),
                    quote!(depthwise_conv2d_s16),
                )
            } else {
                let act = act_range_s8(activation, out_scale, out_zp)?;
                let offset = cx.offset(input)?;
                let (io, oo) = (i32_lit(offset), i32_lit(out_zp));
                let (lo, hi) = (i32_lit(act.0), i32_lit(act.1));
                let params = quote!(pub const #pname: #k::ConvS8 = #k::ConvS8 {
                    geometry: #geometry, input_offset: #io, output_offset: #oo,
                    requant: &[#(#per_channel),*], act_min: #lo, act_max: #hi,
                };);
                if filter.dtype == DType::Int4 {
                    (params, quote!(depthwise_conv2d_s8_i4))
                } else {
                    // The kernel and its epilogue form, chosen now by the runtime's own rule.
                    use crate::kernels::depthwise_kernel as rule;
                    let choice = kernel_choice(&values, |r| {
                        rule::depthwise_conv2d_s8_kernel_for(&value, r, act.0, act.1)
                    });
                    let kname = format_ident!("{pname}_KERNEL");
                    let constant = kernel_constant(
                        &quote!(#k::depthwise_kernel),
                        choice,
                        rule::name,
                        rule::epilogue,
                    );
                    let doc = kernel_doc(pname, rule::name(choice), rule::epilogue(choice));
                    cx.chose(KernelChoice {
                        kernel: rule::name(choice),
                        epilogue: rule::epilogue(choice),
                    });
                    return cx.conv_call_with(
                        &quote!(depthwise_conv2d_s8),
                        quote!(
                            #params
                            #[doc = #doc]
                            pub const #kname: u8 = #constant;
                        ),
                        Some(&kname),
                        false,
                    );
                }
            }
        }
        (DType::Float32, DType::Float32) => {
            let (lo, hi) = act_range_f32(activation)?;
            let (lo, hi) = (f32_lit(lo)?, f32_lit(hi)?);
            (
                quote!(pub const #pname: #k::ConvF32 = #k::ConvF32 {
                    geometry: #geometry, act_min: #lo, act_max: #hi,
                };),
                quote!(depthwise_conv2d_f32),
            )
        }
        (i, f) => {
            // depthwise_conv_common.cc: "Hybrid models are not supported on TFLite Micro."
            return invalid(format!(
                "{} is {i} and {} is {f}; TFLM's DEPTHWISE_CONV_2D takes float32 with float32, int8 with int8 or int4, int16 with int8 (its Prepare fails)",
                input.desc(),
                filter.desc(),
            ));
        }
    };
    cx.conv_call(&f, params)
}
