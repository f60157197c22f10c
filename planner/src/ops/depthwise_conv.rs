//! DEPTHWISE_CONV_2D: TFLM's `depthwise_conv.cc` / `depthwise_conv_common.cc`
//! (`DepthwiseConvPrepare`, `CalculateOpDataDepthwiseConv`), for the kernels
//! `stowplan::kernels::depthwise_conv2d_s8` and `depthwise_conv2d_f32`. The geometry and the
//! per-channel multipliers are CONV_2D's ([`super::conv`]), with the filter's channels in its
//! last dimension.

use quote::quote;

use super::conv::{ConvOptions, geometry, multipliers};
use super::{
    Call, Lower, OpKind, Refusal, act_range_f32, act_range_s8, f32_lit, i32_lit, invalid, kernel,
    unsupported,
};
use crate::tflite::{DType, OpOptions};

/// DEPTHWISE_CONV_2D.
pub const DEPTHWISE_CONV_2D: OpKind = kernel("depthwise_conv", lower);

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
    let (geometry, _, fshape, _) = geometry(cx, &o, input, filter, out, dm)?;
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
    let bias_type = if input.dtype == DType::Int8 {
        DType::Int32
    } else {
        input.dtype
    };
    if let Some(bias) = cx.optional_input(2) {
        cx.backed(bias)?;
        cx.expect_type(bias, bias_type, "bias")?;
        if cx.elements(bias)? != channels {
            return invalid(format!("{} does not hold {channels} values", bias.desc()));
        }
    }
    let (params, f) = match (input.dtype, filter.dtype) {
        (DType::Int8, DType::Int8) => {
            let q = filter.quantization.as_ref();
            let (scales, zps) = q.map_or((0, 0), |q| (q.scale.len(), q.zero_point.len()));
            if scales != zps {
                return invalid(format!(
                    "{} has {scales} scales and {zps} zero points (TFLM needs as many)",
                    filter.desc()
                ));
            }
            let per_channel = multipliers(cx, input, filter, out, channels, 3)?;
            let (out_scale, out_zp) = cx.quant(out)?;
            let (lo, hi) = act_range_s8(activation, out_scale, out_zp)?;
            let (io, oo) = (i32_lit(cx.offset(input)?), i32_lit(out_zp));
            let (lo, hi) = (i32_lit(lo), i32_lit(hi));
            (
                quote!(pub const #pname: #k::ConvS8 = #k::ConvS8 {
                    geometry: #geometry, input_offset: #io, output_offset: #oo,
                    requant: &[#(#per_channel),*], act_min: #lo, act_max: #hi,
                };),
                quote!(depthwise_conv2d_s8),
            )
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
            return unsupported(format!(
                "the runtime has no DEPTHWISE_CONV_2D kernel for {i} input with {f} filter"
            ));
        }
    };
    let bias = cx.optional_view(2);
    Ok(Call {
        params: Some(params),
        body: quote!(#k::#f(&params::#pname, i0, i1, #bias, o0);),
        reads: if cx.optional_input(2).is_some() {
            vec![0, 1, 2]
        } else {
            vec![0, 1]
        },
    })
}
