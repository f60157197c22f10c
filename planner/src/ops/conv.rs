//! CONV_2D: TFLM's `conv.cc` / `conv_common.cc` (`ConvPrepare`, `CalculateOpDataConv`) and
//! `PopulateConvolutionQuantizationParams` in `kernel_util.cc`, for the kernels
//! `stowplan::kernels::conv2d_s8` (int8 activations, int8 filter, per-channel or per-tensor) and
//! `conv2d_f32`.

use proc_macro2::TokenStream;
use quote::quote;

use super::{
    Call, Lower, OpKind, Refusal, act_range_f32, act_range_s8, f32_lit, i32_lit, invalid, kernel,
    padding_hw, positive, requant, unsupported, usize_lits,
};
use crate::quant;
use crate::tflite::{DType, OpOptions, Padding, Tensor};

/// CONV_2D.
pub const CONV_2D: OpKind = kernel("conv", lower);

/// The options CONV_2D and DEPTHWISE_CONV_2D share.
pub(super) struct ConvOptions {
    pub padding: Padding,
    pub stride: (usize, usize),
    pub dilation: (usize, usize),
}

impl ConvOptions {
    /// From the op's options table, each stride and dilation checked positive.
    pub fn new(
        padding: Padding,
        (stride_h, stride_w): (i32, i32),
        (dilation_h, dilation_w): (i32, i32),
    ) -> Result<Self, Refusal> {
        Ok(Self {
            padding,
            stride: (
                positive(stride_h, "stride_h")?,
                positive(stride_w, "stride_w")?,
            ),
            dilation: (
                positive(dilation_h, "dilation_h_factor")?,
                positive(dilation_w, "dilation_w_factor")?,
            ),
        })
    }
}

/// A convolution's geometry tokens and its input, filter and output shapes (NHWC).
pub(super) type Geometry = (TokenStream, [usize; 4], [usize; 4], [usize; 4]);

/// The `ConvGeometry` tokens of a convolution: NHWC input and output, the filter as the model
/// has it, TFLM's padding (`ComputePaddingHeightWidth`) from the input and filter sizes.
pub(super) fn geometry(
    cx: &Lower<'_>,
    o: &ConvOptions,
    input: &Tensor,
    filter: &Tensor,
    output: &Tensor,
    depth_multiplier: usize,
) -> Result<Geometry, Refusal> {
    let k = cx.k();
    let i = cx.shape_n::<4>(input)?;
    let f = cx.shape_n::<4>(filter)?;
    let out = cx.shape_n::<4>(output)?;
    for (t, rank) in [(input, 4), (filter, 4), (output, 4)] {
        if t.shape.len() != rank {
            return invalid(format!(
                "{} has rank {}, {} needs {rank}",
                t.desc(),
                t.shape.len(),
                cx.name()
            ));
        }
    }
    if i[0] != out[0] {
        return invalid(format!(
            "{} has {} batches, {} has {}",
            input.desc(),
            i[0],
            output.desc(),
            out[0]
        ));
    }
    let (pad_h, pad_w) = padding_hw(o.padding, o.stride, o.dilation, (i[1], i[2]), (f[1], f[2]))?;
    let (sh, sw) = o.stride;
    let (dh, dw) = o.dilation;
    let (il, fl, ol) = (usize_lits(&i), usize_lits(&f), usize_lits(&out));
    Ok((
        quote!(#k::ConvGeometry {
            input: #il, filter: #fl, output: #ol,
            stride_h: #sh, stride_w: #sw, dilation_h: #dh, dilation_w: #dw,
            pad_h: #pad_h, pad_w: #pad_w, depth_multiplier: #depth_multiplier,
        }),
        i,
        f,
        out,
    ))
}

/// The per-channel multipliers of an int8 convolution (TFLM's
/// `PopulateConvolutionQuantizationParams`), for the `channels` output channels the filter's
/// dimension `quantized_dimension` holds: the filter's scales checked against them (one, or
/// one per channel along that dimension) before any multiplier is made.
pub(super) fn multipliers<'a>(
    cx: &Lower<'a>,
    input: &Tensor,
    filter: &'a Tensor,
    output: &Tensor,
    channels: usize,
    quantized_dimension: i32,
) -> Result<Vec<TokenStream>, Refusal> {
    let (in_scale, _) = cx.quant(input)?;
    let (out_scale, _) = cx.quant(output)?;
    let fscales = cx.scales(filter)?;
    if fscales.len() != 1 && fscales.len() != channels {
        return invalid(format!(
            "{} has {} scales for {channels} output channels (TFLM needs 1 or {channels})",
            filter.desc(),
            fscales.len()
        ));
    }
    let dim = filter
        .quantization
        .as_ref()
        .map_or(0, |q| q.quantized_dimension);
    if fscales.len() > 1 && dim != quantized_dimension {
        return invalid(format!(
            "{} is quantised per channel along dimension {dim}; {} needs dimension {quantized_dimension}",
            filter.desc(),
            cx.name()
        ));
    }
    Ok(
        quant::conv_multipliers(in_scale, fscales, out_scale, channels)
            .unwrap_or_default()
            .into_iter()
            .map(|m| requant(cx.rt, m))
            .collect(),
    )
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let input = cx.input(0)?;
    let filter = cx.input(1)?;
    let out = cx.output(0)?;
    let OpOptions::Conv2D {
        padding,
        stride_w,
        stride_h,
        dilation_w,
        dilation_h,
        activation,
    } = cx.op.options
    else {
        return invalid("its Conv2DOptions are missing");
    };
    let o = ConvOptions::new(padding, (stride_h, stride_w), (dilation_h, dilation_w))?;
    cx.same_type(input, out)?;
    let (geometry, ishape, fshape, oshape) = geometry(cx, &o, input, filter, out, 1)?;
    // The filter's quantized dimension (0) holds the output channels; the input's channels are
    // a whole number of the filter's (grouped convolution).
    let channels = fshape[0];
    if oshape[3] != channels {
        return invalid(format!(
            "{} has {} channels but {} holds {channels} filters",
            out.desc(),
            oshape[3],
            filter.desc()
        ));
    }
    if fshape[3] == 0
        || ishape[3] % fshape[3] != 0
        || channels % (ishape[3] / fshape[3]).max(1) != 0
    {
        return invalid(format!(
            "{} has {} channels, not a whole number of groups of {}'s {}",
            input.desc(),
            ishape[3],
            filter.desc(),
            fshape[3]
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
            let per_channel = multipliers(cx, input, filter, out, channels, 0)?;
            let (out_scale, out_zp) = cx.quant(out)?;
            let (lo, hi) = act_range_s8(activation, out_scale, out_zp)?;
            let (io, oo) = (i32_lit(cx.offset(input)?), i32_lit(out_zp));
            let (lo, hi) = (i32_lit(lo), i32_lit(hi));
            (
                quote!(pub const #pname: #k::ConvS8 = #k::ConvS8 {
                    geometry: #geometry, input_offset: #io, output_offset: #oo,
                    requant: &[#(#per_channel),*], act_min: #lo, act_max: #hi,
                };),
                quote!(conv2d_s8),
            )
        }
        (DType::Float32, DType::Float32) => {
            let (lo, hi) = act_range_f32(activation)?;
            let (lo, hi) = (f32_lit(lo)?, f32_lit(hi)?);
            (
                quote!(pub const #pname: #k::ConvF32 = #k::ConvF32 {
                    geometry: #geometry, act_min: #lo, act_max: #hi,
                };),
                quote!(conv2d_f32),
            )
        }
        (i, f) => {
            return unsupported(format!(
                "the runtime has no CONV_2D kernel for {i} input with {f} filter"
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
