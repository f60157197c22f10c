//! CONV_2D: TFLM's `conv.cc` / `conv_common.cc` (`ConvPrepare`, `CalculateOpDataConv`) and
//! `PopulateConvolutionQuantizationParams` in `kernel_util.cc`, for the kernels
//! `stowplan::kernels::conv2d_s8` (int8 activations, int8 filter, per-channel or per-tensor),
//! `conv2d_s8_i4` (int8 activations, packed int4 filter), `conv2d_s16` / `conv2d_s16_acc32`
//! (int16 activations, int8 filter; 64-bit or, with an int32 bias, 32-bit accumulators) and
//! `conv2d_f32`.
//!
//! TFLM picks the int16 accumulator from the bias: int64 (or no bias) 64 bits, int32 32 bits;
//! without a bias it reads `Conv2DOptions.quantized_bias_type`, a field stowplan's schema does
//! not have, so a bias-less int16 convolution always accumulates in 64 bits (TFLM's default,
//! and what the converter writes).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::overwrite::{self, Overwrite, Pairing, WriteOrder};
use super::{
    Call, KernelChoice, Lower, OpKind, Refusal, act_range_f32, act_range_s8, dims, f32_lit, fused,
    i32_lit, input as op_input, invalid, padding_hw, positive, requant, usize_lits,
};
use crate::graph::TensorInfo;
use crate::kernels::ConvGeometry;
use crate::quant;
use crate::tflite::{Activation, BuiltinOp, DType, Model, Op, OpOptions, Opcode, Padding, Tensor};

/// CONV_2D.
pub const CONV_2D: OpKind = OpKind {
    module: "conv",
    in_place: false,
    tflm_scratch: int4_filter_scratch,
    scratch: kernel_scratch,
    lower: Some(lower),
    fold: None,
    state: None,
    overwrite: Some(OVERWRITE),
};

/// CONV_2D on one buffer: the runtime's overlapped driver (`kernels::overlap`) feeds each
/// kernel chunks of output pixels in order, each on two slices split below what it reads, from
/// the driver's least displacement on ([`window_geometry`]).
const OVERWRITE: Overwrite = Overwrite {
    input: 0,
    order: WriteOrder::Window,
    fits: "fits",
    entries: &[
        "conv2d_s8",
        "conv2d_s8_i4",
        "conv2d_s16",
        "conv2d_s16_acc32",
        "conv2d_f32",
    ],
    pairing: window_pairing,
};

/// The pairing of a CONV_2D or DEPTHWISE_CONV_2D the runtime's kernels run on one buffer:
/// its driver's least displacement, preferring whole output rows; an int8 op's with its output
/// pixel: the DSP kernels take a chunk of two pixels or more in pixel pairs (CONV_2D), and a
/// call's set-up is shared by more pixels (measured on the benchmark: DS-CNN's depthwise
/// layers 14 % fewer instructions). The int16 and float32 kernels, and the pools, are left at
/// the least displacement.
pub(super) fn window_pairing(
    model: &Model,
    _: &[u8],
    tensors: &[TensorInfo],
    op: &Op,
) -> Option<Pairing> {
    let (g, element) = window_geometry(model, tensors, op)?;
    let paired = element == 1;
    overwrite::window(&g, element, paired)
}

/// The geometry the generated code passes a CONV_2D's or DEPTHWISE_CONV_2D's kernel (as its
/// lowering computes it from the planned shapes and the options), with the element size in
/// bytes; `None` for other ops, for the types the runtime's kernels do not take (int8 with int8
/// or int4 weights, int16 with int8, float32 with float32: others go to a fallback, which keeps
/// whole tensors), or malformed shapes.
fn window_geometry(model: &Model, tensors: &[TensorInfo], op: &Op) -> Option<(ConvGeometry, u64)> {
    let (input, filter) = (op_input(model, op, 0)?, op_input(model, op, 1)?);
    let output = model.tensor(op.subgraph, *op.outputs.first()?)?;
    if input.dtype != output.dtype {
        return None;
    }
    match (input.dtype, filter.dtype) {
        (DType::Int8, DType::Int8 | DType::Int4)
        | (DType::Int16, DType::Int8)
        | (DType::Float32, DType::Float32) => {}
        _ => return None,
    }
    let shape4 = |t: &Tensor| <[usize; 4]>::try_from(overwrite::shape(tensors, t)?).ok();
    let (i, o, f) = (shape4(input)?, shape4(output)?, shape4(filter)?);
    Some((conv_geometry(op, i, f, o)?, input.dtype.element_bytes()?))
}

/// The geometry of a CONV_2D or DEPTHWISE_CONV_2D `op` with input, filter and output shapes
/// `i`, `f`, `o` (as its lowering computes it), or `None` for other ops or malformed options.
fn conv_geometry(op: &Op, i: [usize; 4], f: [usize; 4], o: [usize; 4]) -> Option<ConvGeometry> {
    let (padding, stride, dilation) = match (&op.opcode, &op.options) {
        (
            Opcode::Builtin(BuiltinOp::CONV_2D),
            &OpOptions::Conv2D {
                padding,
                stride_w,
                stride_h,
                dilation_w,
                dilation_h,
                ..
            },
        )
        | (
            Opcode::Builtin(BuiltinOp::DEPTHWISE_CONV_2D),
            &OpOptions::DepthwiseConv2D {
                padding,
                stride_w,
                stride_h,
                dilation_w,
                dilation_h,
                ..
            },
        ) => (padding, (stride_h, stride_w), (dilation_h, dilation_w)),
        _ => return None,
    };
    let depthwise = op.opcode == Opcode::Builtin(BuiltinOp::DEPTHWISE_CONV_2D);
    let positive = |v: i32| usize::try_from(v).ok().filter(|&v| v > 0);
    let stride = (positive(stride.0)?, positive(stride.1)?);
    let dilation = (positive(dilation.0)?, positive(dilation.1)?);
    // CONV_2D's filter is [out, h, w, in], DEPTHWISE_CONV_2D's [1, h, w, out].
    let (pad_h, pad_w) = padding_hw(padding, stride, dilation, (i[1], i[2]), (f[1], f[2])).ok()?;
    let depth_multiplier = if depthwise {
        o[3].checked_div(i[3])?
    } else {
        1
    };
    let g = ConvGeometry {
        input: i,
        filter: f,
        output: o,
        stride_h: stride.0,
        stride_w: stride.1,
        dilation_h: dilation.0,
        dilation_w: dilation.1,
        pad_h,
        pad_w,
        depth_multiplier,
    };
    Some(g)
}

/// The most output channels [`kernel_scratch`] derives multipliers for: a layer with more
/// (none fits a microcontroller) gets no scratch, and its widened kernel's pixel pair is on
/// the stack.
const SCRATCH_CHANNELS: usize = 1 << 16;

/// The scratch of an int8 CONV_2D whose kernel, as lowering chooses it (the runtime's rule
/// `conv2d_s8_kernel_for` on the model's shapes and quantisation), is a widened 1 x 1 kernel:
/// its pixel pair's widened rows (`conv2d_s8_scratch` words, 4 bytes each), planned in the
/// arena and counted in the budget; `None` for every other op. Lowering calls the kernel's
/// entry with scratch where the plan gave it (else the pixel pair is on the stack).
fn kernel_scratch(model: &Model, op: &Op) -> Option<Vec<u64>> {
    use crate::kernels::conv_kernel as rule;
    let (input, filter) = (op_input(model, op, 0)?, op_input(model, op, 1)?);
    let output = model.tensor(op.subgraph, *op.outputs.first()?)?;
    if [input.dtype, filter.dtype, output.dtype] != [DType::Int8; 3] {
        return None;
    }
    let &OpOptions::Conv2D { activation, .. } = &op.options else {
        return None;
    };
    let shape4 = |t: &Tensor| -> Option<[usize; 4]> {
        let d = dims(t)?;
        let d: Vec<usize> = d
            .iter()
            .map(|&v| usize::try_from(v).ok())
            .collect::<Option<_>>()?;
        <[usize; 4]>::try_from(d).ok()
    };
    let g = conv_geometry(op, shape4(input)?, shape4(filter)?, shape4(output)?)?;
    let channels = g.filter[0];
    if channels > SCRATCH_CHANNELS {
        return None;
    }
    let quant = |t: &Tensor| {
        let q = t.quantization.as_ref()?;
        Some((
            *q.scale.first()?,
            i32::try_from(*q.zero_point.first()?).ok()?,
        ))
    };
    let ((in_scale, in_zp), (out_scale, out_zp)) = (quant(input)?, quant(output)?);
    let fscales = &filter.quantization.as_ref()?.scale;
    if fscales.len() != 1 && fscales.len() != channels {
        return None;
    }
    let values = quant::conv_multipliers(in_scale, fscales, out_scale, channels)?;
    let (lo, hi) = act_range_s8(activation, out_scale, out_zp).ok()?;
    let offset = in_zp.checked_neg()?;
    let with_bias = op_input(model, op, 2).is_some();
    let choice = kernel_choice(&values, |r| {
        rule::conv2d_s8_kernel_for(&g, offset, r, lo, hi, with_bias)
    });
    let words = u64::try_from(rule::conv2d_s8_scratch(choice, &g)).ok()?;
    (words > 0).then_some(vec![words.checked_mul(4)?])
}

/// The scratch TFLM's CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED request for an int4
/// filter (input 1): one buffer of the filter's element count in bytes, which `Eval` unpacks
/// the filter into.
pub(super) fn int4_filter_scratch(model: &Model, op: &Op) -> Option<Vec<u64>> {
    let filter = op_input(model, op, 1)?;
    if filter.dtype != DType::Int4 {
        return None;
    }
    let n = dims(filter)?
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))?;
    Some(vec![n])
}

/// TFLM's `CalculateActivationRangeQuantized` for an output of type `dtype` (int8, int16 or
/// uint8: its whole range, narrowed by the activation).
pub(super) fn act_range_q(
    act: Activation,
    dtype: DType,
    scale: f32,
    zp: i32,
) -> Result<(i32, i32), Refusal> {
    let (qmin, qmax) = match dtype {
        DType::Int8 => return act_range_s8(act, scale, zp),
        DType::Int16 => (i32::from(i16::MIN), i32::from(i16::MAX)),
        DType::Uint8 => (0, i32::from(u8::MAX)),
        other => {
            return invalid(format!(
                "a quantised activation range for {other} (TFLM's Prepare fails)"
            ));
        }
    };
    quant::activation_range_quantized(fused(act)?, scale, zp, qmin, qmax).ok_or_else(|| {
        Refusal::Invalid(format!(
            "the {act:?} range at output scale {scale} overflows int32 (TFLM's Prepare fails)"
        ))
    })
}

/// The bias types TFLM's kernels take for an input of type `input` (an int16 input's bias
/// picks the accumulator: int64, or int32).
pub(super) fn check_bias(
    cx: &Lower<'_>,
    bias: &Tensor,
    input: DType,
    channels: usize,
) -> Result<(), Refusal> {
    cx.backed(bias)?;
    let ok: &[DType] = match input {
        DType::Int8 => &[DType::Int32],
        DType::Int16 => &[DType::Int64, DType::Int32],
        other => &[other],
    };
    if !ok.contains(&bias.dtype) {
        let names: Vec<&str> = ok.iter().map(|d| d.name()).collect();
        return invalid(format!(
            "{} (bias of {}) is {}; {} on {input} needs {}",
            bias.desc(),
            cx.name(),
            bias.dtype,
            cx.name(),
            names.join(" or ")
        ));
    }
    if cx.elements(bias)? != channels {
        return invalid(format!("{} does not hold {channels} values", bias.desc()));
    }
    Ok(())
}

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

/// A convolution's geometry tokens, its input, filter and output shapes (NHWC) and the
/// geometry itself (as the kernels' constant choice reads it).
pub(super) type Geometry = (
    TokenStream,
    [usize; 4],
    [usize; 4],
    [usize; 4],
    crate::kernels::ConvGeometry,
);

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
    let value = crate::kernels::ConvGeometry {
        input: i,
        filter: f,
        output: out,
        stride_h: sh,
        stride_w: sw,
        dilation_h: dh,
        dilation_w: dw,
        pad_h,
        pad_w,
        depth_multiplier,
    };
    Ok((
        quote!(#k::ConvGeometry {
            input: #il, filter: #fl, output: #ol,
            stride_h: #sh, stride_w: #sw, dilation_h: #dh, dilation_w: #dw,
            pad_h: #pad_h, pad_w: #pad_w, depth_multiplier: #depth_multiplier,
        }),
        i,
        f,
        out,
        value,
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
    Ok(
        multiplier_values(cx, input, filter, output, channels, quantized_dimension)?
            .into_iter()
            .map(|m| requant(cx.rt, m))
            .collect(),
    )
}

/// [`multipliers`] as numbers: each channel's `(multiplier, shift)`.
pub(super) fn multiplier_values<'a>(
    cx: &Lower<'a>,
    input: &Tensor,
    filter: &'a Tensor,
    output: &Tensor,
    channels: usize,
    quantized_dimension: i32,
) -> Result<Vec<(i32, i32)>, Refusal> {
    // One multiplier per channel: at most one per byte of the file, so that the work and the
    // allocation stay within what the file backs (a shape alone can claim 2^31 channels).
    if channels > cx.bytes.len() {
        return invalid(format!(
            "{} has {channels} output channels, more than the model file's {} bytes can back (one multiplier each)",
            output.desc(),
            cx.bytes.len()
        ));
    }
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
    Ok(quant::conv_multipliers(in_scale, fscales, out_scale, channels).unwrap_or_default())
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
    let (geometry, ishape, fshape, oshape, value) = geometry(cx, &o, input, filter, out, 1)?;
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
    if let Some(bias) = cx.optional_input(2) {
        check_bias(cx, bias, input.dtype, channels)?;
    }
    let bias_type = cx.optional_input(2).map(|b| b.dtype);
    let (params, f) = match (input.dtype, filter.dtype) {
        (DType::Int8, DType::Int8) => {
            let values = multiplier_values(cx, input, filter, out, channels, 0)?;
            let per_channel: Vec<_> = values.iter().map(|&m| requant(cx.rt, m)).collect();
            let (out_scale, out_zp) = cx.quant(out)?;
            let act = act_range_s8(activation, out_scale, out_zp)?;
            let offset = cx.offset(input)?;
            let (io, oo) = (i32_lit(offset), i32_lit(out_zp));
            let (lo, hi) = (i32_lit(act.0), i32_lit(act.1));
            // The kernel and its epilogue form, chosen now by the runtime's own rule (its
            // source is compiled here).
            use crate::kernels::conv_kernel as rule;
            let with_bias = cx.optional_input(2).is_some();
            let choice = kernel_choice(&values, |r| {
                rule::conv2d_s8_kernel_for(&value, offset, r, act.0, act.1, with_bias)
            });
            let kname = format_ident!("{pname}_KERNEL");
            let constant =
                kernel_constant(&quote!(#k::conv_kernel), choice, rule::name, rule::epilogue);
            let doc = kernel_doc(pname, rule::name(choice), rule::epilogue(choice));
            cx.chose(KernelChoice {
                kernel: rule::name(choice),
                epilogue: rule::epilogue(choice),
            });
            // A widened kernel's pixel pair in the scratch the plan gave the op ([`scratch`]),
            // where it holds it; else on the stack.
            let needs = u64::try_from(rule::conv2d_s8_scratch(choice, &value))
                .ok()
                .and_then(|w| w.checked_mul(4))
                .unwrap_or(u64::MAX);
            let in_scratch = needs > 0 && cx.scratch.first().is_some_and(|&b| b >= needs);
            let call = cx.conv_call_with(
                &quote!(conv2d_s8),
                quote!(
                    pub const #pname: #k::ConvS8 = #k::ConvS8 {
                        geometry: #geometry, input_offset: #io, output_offset: #oo,
                        requant: &[#(#per_channel),*], act_min: #lo, act_max: #hi,
                    };
                    #[doc = #doc]
                    pub const #kname: u8 = #constant;
                ),
                Some(&kname),
                in_scratch,
            );
            return call;
        }
        (DType::Int8, DType::Int4) => {
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
                quote!(conv2d_s8_i4),
            )
        }
        (DType::Int16, DType::Int8) => {
            let per_channel = multipliers(cx, input, filter, out, channels, 0)?;
            let (out_scale, out_zp) = cx.quant(out)?;
            let (lo, hi) = act_range_q(activation, DType::Int16, out_scale, out_zp)?;
            let (lo, hi) = (i32_lit(lo), i32_lit(hi));
            (
                quote!(pub const #pname: #k::ConvS16 = #k::ConvS16 {
                    geometry: #geometry, requant: &[#(#per_channel),*], act_min: #lo, act_max: #hi,
                };),
                if bias_type == Some(DType::Int32) {
                    quote!(conv2d_s16_acc32)
                } else {
                    quote!(conv2d_s16)
                },
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
            // conv.cc ConvPrepare: "Hybrid models are not supported on TFLite Micro."
            return invalid(format!(
                "{} is {i} and {} is {f}; TFLM's CONV_2D takes float32 with float32, int8 with int8 or int4, int16 with int8 (its Prepare fails)",
                input.desc(),
                filter.desc(),
            ));
        }
    };
    cx.conv_call(&f, params)
}

/// The kernel constant the runtime's rule `choose` gives an int8 convolution whose channels'
/// `(multiplier, shift)` pairs are `requant` (`choose` holds the rest of its parameters).
pub(super) fn kernel_choice(
    requant: &[(i32, i32)],
    choose: impl Fn(&[crate::kernels::Requant]) -> u8,
) -> u8 {
    let requant: Vec<_> = requant
        .iter()
        .map(|&(multiplier, shift)| crate::kernels::Requant { multiplier, shift })
        .collect();
    choose(&requant)
}

/// Kernel constant `choice` as generated code writes it, from the runtime's kernel module
/// `module`: the kernel's constant (`POINTWISE`: its report name `name` in upper case), or'd
/// with its epilogue form's (`EPILOGUE_SHIFT2`) if it names one.
pub(super) fn kernel_constant(
    module: &TokenStream,
    choice: u8,
    name: fn(u8) -> &'static str,
    epilogue: fn(u8) -> Option<&'static str>,
) -> TokenStream {
    let kernel = format_ident!("{}", name(choice).to_ascii_uppercase());
    match epilogue(choice) {
        Some(e) => {
            let e = format_ident!("EPILOGUE_{}", e.to_ascii_uppercase());
            quote!(#module::#kernel | #module::#e)
        }
        None => quote!(#module::#kernel),
    }
}

/// `, right shifts of 2 and more over the whole int8 range` for epilogue form `shift2`, and
/// so on: the words a kernel's doc line gives its epilogue form (none without one).
pub(super) fn epilogue_phrase(epilogue: Option<&str>) -> &'static str {
    match epilogue {
        Some("shift2") => ", right shifts of 2 and more over the whole int8 range",
        Some("shift1") => ", right shifts of 1 and more over the whole int8 range",
        Some(_) => ", the general requantisation",
        None => "",
    }
}

/// The doc line of the constant naming `op`'s kernel and its epilogue form: the DSP kernel runs
/// on cores with the DSP extension only, the portable loop everywhere else.
pub(super) fn kernel_doc(op: &syn::Ident, kernel: &str, epilogue: Option<&str>) -> String {
    if kernel == "portable" {
        return format!(" The kernel of {op}: the portable loop, chosen when the crate compiled.");
    }
    let epilogue = epilogue_phrase(epilogue);
    format!(
        " The kernel of {op}: {kernel}{epilogue}, on cores with the DSP extension (the portable \
         loop elsewhere), chosen when the crate compiled."
    )
}
