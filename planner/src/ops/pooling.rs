//! AVERAGE_POOL_2D and MAX_POOL_2D: TFLM's `pooling.cc` / `pooling_common.cc`
//! (`PoolingPrepare`, `CalculateOpDataPooling`), for the kernels
//! `stowplan::kernels::{average_pool_s8, max_pool_s8, average_pool_s16, max_pool_s16,
//! average_pool_f32, max_pool_f32}`, or with the output over the input it consumes their
//! entries in `kernels::overlap`.

use quote::{format_ident, quote};

use super::conv::act_range_q;
use super::overwrite::{self, Overwrite, Pairing, WriteOrder};
use super::{
    Call, Lower, OpKind, Refusal, act_range_f32, f32_lit, i32_lit, invalid, kernel, padding_hw,
    positive, usize_lits,
};
use crate::graph::TensorInfo;
use crate::kernels::ConvGeometry;
use crate::tflite::{DType, Model, Op, OpOptions};

/// AVERAGE_POOL_2D.
pub const AVERAGE_POOL_2D: OpKind = OpKind {
    overwrite: Some(Overwrite {
        entries: &["average_pool_s8", "average_pool_s16", "average_pool_f32"],
        ..ON_ONE_BUFFER
    }),
    ..kernel("pooling", average)
};
/// MAX_POOL_2D.
pub const MAX_POOL_2D: OpKind = OpKind {
    overwrite: Some(Overwrite {
        entries: &["max_pool_s8", "max_pool_s16", "max_pool_f32"],
        ..ON_ONE_BUFFER
    }),
    ..kernel("pooling", max)
};

/// The pools on one buffer: the runtime's overlapped driver walks them as the depthwise
/// convolution of their window (`kernels::overlap::pool_walk`), from its least displacement.
const ON_ONE_BUFFER: Overwrite = Overwrite {
    input: 0,
    order: WriteOrder::Window,
    fits: "pool_fits",
    entries: &[],
    pairing,
};

/// The pairing of a pool the runtime's kernels take (int8, int16, float32; as many output
/// channels as input ones): its window as a depthwise convolution of multiplier 1, without
/// dilation.
fn pairing(model: &Model, _: &[u8], tensors: &[TensorInfo], op: &Op) -> Option<Pairing> {
    let input = overwrite::operand(model, op, 0)?;
    let output = model.tensor(op.subgraph, *op.outputs.first()?)?;
    let &OpOptions::Pool2D {
        padding,
        stride_w,
        stride_h,
        filter_w,
        filter_h,
        ..
    } = &op.options
    else {
        return None;
    };
    if input.dtype != output.dtype
        || !matches!(input.dtype, DType::Int8 | DType::Int16 | DType::Float32)
    {
        return None;
    }
    let shape4 = |t| <[usize; 4]>::try_from(overwrite::shape(tensors, t)?).ok();
    let (i, o) = (shape4(input)?, shape4(output)?);
    if i[3] != o[3] {
        return None;
    }
    let positive = |v: i32| usize::try_from(v).ok().filter(|&v| v > 0);
    let stride = (positive(stride_h)?, positive(stride_w)?);
    let window = (positive(filter_h)?, positive(filter_w)?);
    let (pad_h, pad_w) = padding_hw(padding, stride, (1, 1), (i[1], i[2]), window).ok()?;
    let g = ConvGeometry {
        input: i,
        filter: [1, window.0, window.1, i[3]],
        output: o,
        stride_h: stride.0,
        stride_w: stride.1,
        dilation_h: 1,
        dilation_w: 1,
        pad_h,
        pad_w,
        depth_multiplier: 1,
    };
    overwrite::window(&g, input.dtype.element_bytes()?, false)
}

fn average(cx: &Lower<'_>) -> Result<Call, Refusal> {
    lower(cx, true)
}

fn max(cx: &Lower<'_>) -> Result<Call, Refusal> {
    lower(cx, false)
}

fn lower(cx: &Lower<'_>, avg: bool) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let input = cx.input(0)?;
    let out = cx.output(0)?;
    let OpOptions::Pool2D {
        padding,
        stride_w,
        stride_h,
        filter_w,
        filter_h,
        activation,
    } = cx.op.options
    else {
        return invalid("its Pool2DOptions are missing");
    };
    cx.same_type(input, out)?;
    let ishape = cx.shape_n::<4>(input)?;
    let oshape = cx.shape_n::<4>(out)?;
    if ishape[0] != oshape[0] || ishape[3] != oshape[3] {
        return invalid(format!(
            "{} has shape {ishape:?} and {} {oshape:?}: a pool keeps batches and channels",
            input.desc(),
            out.desc()
        ));
    }
    let (fh, fw) = (
        positive(filter_h, "filter_height")?,
        positive(filter_w, "filter_width")?,
    );
    let (sh, sw) = (
        positive(stride_h, "stride_h")?,
        positive(stride_w, "stride_w")?,
    );
    let (pad_h, pad_w) = padding_hw(padding, (sh, sw), (1, 1), (ishape[1], ishape[2]), (fh, fw))?;
    let (i, o) = (usize_lits(&ishape), usize_lits(&oshape));
    let geometry = quote!(#k::PoolGeometry {
        input: #i, output: #o, filter_h: #fh, filter_w: #fw,
        stride_h: #sh, stride_w: #sw, pad_h: #pad_h, pad_w: #pad_w,
    });
    let (params, f) = match input.dtype {
        DType::Int8 | DType::Int16 => {
            // pooling_common.cc: input and output quantised alike (the kernels do not rescale).
            let (in_scale, in_zp) = cx.quant(input)?;
            let (out_scale, out_zp) = cx.quant(out)?;
            if f64::from((in_scale - out_scale).abs()) > 1.0e-6 || in_zp != out_zp {
                return invalid(format!(
                    "{} is quantised ({in_scale}, {in_zp}) and {} ({out_scale}, {out_zp}); TFLM's pools need them equal",
                    input.desc(),
                    out.desc()
                ));
            }
            let (lo, hi) = act_range_q(activation, input.dtype, out_scale, out_zp)?;
            let (lo, hi) = (i32_lit(lo), i32_lit(hi));
            let (ty, f) = match (input.dtype, avg) {
                (DType::Int8, true) => (quote!(PoolS8), quote!(average_pool_s8)),
                (DType::Int8, false) => (quote!(PoolS8), quote!(max_pool_s8)),
                (_, true) => (quote!(PoolS16), quote!(average_pool_s16)),
                (_, false) => (quote!(PoolS16), quote!(max_pool_s16)),
            };
            (
                quote!(pub const #pname: #k::#ty = #k::#ty { geometry: #geometry, act_min: #lo, act_max: #hi };),
                f,
            )
        }
        DType::Float32 => {
            let (lo, hi) = act_range_f32(activation)?;
            let (lo, hi) = (f32_lit(lo)?, f32_lit(hi)?);
            (
                quote!(pub const #pname: #k::PoolF32 = #k::PoolF32 { geometry: #geometry, act_min: #lo, act_max: #hi };),
                if avg {
                    quote!(average_pool_f32)
                } else {
                    quote!(max_pool_f32)
                },
            )
        }
        _ => return Err(cx.no_kernel_for(input)),
    };
    let check = format_ident!("check_{}", f.to_string());
    if cx.overlap.is_none() {
        return Ok(Call {
            params: Some(params),
            body: quote!(#k::proven::#f(&params::#pname, i0, o0);),
            reads: vec![0],
            check: Some(quote!(#k::#check(&#pname, i0, o0))),
        });
    }
    // The output over the input (`Lower::overlap`): one view `o0` of both, the driver's entry
    // for the kernel, and a compile-time proof that the offsets suit it.
    cx.checked_overlapped_call(
        &f,
        params,
        |ia, oa| quote!(&#pname.geometry, #ia, #oa),
        &quote!(),
        &quote!(),
        vec![],
        "at least the overlapped driver's least displacement above",
    )
}
