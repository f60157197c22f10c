//! L2_POOL_2D: TFLM's `l2_pool_2d.cc` (`L2Prepare`: one input and one output of rank 4 and
//! the same type, float32 only; the output's dims set from `ComputePaddingHeightWidth`), for the
//! kernel `stowplan::kernels::l2_pool_f32`.

use quote::quote;

use super::{
    Call, Lower, OpKind, Refusal, act_range_f32, f32_lit, invalid, kernel, padding_hw, positive,
    usize_lits,
};
use crate::quant;
use crate::tflite::{DType, OpOptions, Padding, Tensor};

/// L2_POOL_2D.
pub const L2_POOL_2D: OpKind = kernel("l2_pool", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    // l2_pool_2d.cc:41-42.
    if cx.op.inputs.len() != 1 || cx.op.outputs.len() != 1 {
        return invalid(format!(
            "L2_POOL_2D has {} inputs and {} outputs; TFLM's takes 1 and 1",
            cx.op.inputs.len(),
            cx.op.outputs.len()
        ));
    }
    let (input, out) = (cx.input(0)?, cx.output(0)?);
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
    // l2_pool_2d.cc:49-51: rank 4 both, one type.
    let rank4 = |t: &Tensor| -> Result<[usize; 4], Refusal> {
        let s = cx.shape(t)?;
        <[usize; 4]>::try_from(s.as_slice()).map_err(|_| {
            Refusal::Invalid(format!(
                "{} has rank {}; TFLM's L2_POOL_2D needs rank 4",
                t.desc(),
                s.len()
            ))
        })
    };
    let (ishape, oshape) = (rank4(input)?, rank4(out)?);
    cx.same_type(input, out)?;
    // l2_pool_2d.cc:67: float32 only ("no quantized implementation").
    if input.dtype != DType::Float32 {
        return invalid(format!(
            "{} is {}; TFLM's L2_POOL_2D takes float32 only (its Prepare fails)",
            input.desc(),
            input.dtype
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
    // l2_pool_2d.cc:61-64: ComputePaddingHeightWidth, dilation 1; the output's dims are set to
    // its output size (80-83), which the model's shape must be.
    let (pad_h, pad_w) = padding_hw(padding, (sh, sw), (1, 1), (ishape[1], ishape[2]), (fh, fw))?;
    let kind = match padding {
        Padding::Same => quant::PaddingKind::Same,
        _ => quant::PaddingKind::Valid,
    };
    let size = |image: usize, filter: usize, stride: usize| {
        let i = |v: usize| i32::try_from(v).ok();
        quant::compute_out_size(kind, i(image)?, i(filter)?, i(stride)?, 1)
            .and_then(|o| usize::try_from(o).ok())
    };
    let want = [
        Some(ishape[0]),
        size(ishape[1], fh, sh),
        size(ishape[2], fw, sw),
        Some(ishape[3]),
    ];
    if want.iter().zip(&oshape).any(|(w, &o)| *w != Some(o)) {
        return invalid(format!(
            "{} has shape {oshape:?}; TFLM's L2_POOL_2D makes {want:?} from {} {ishape:?}",
            out.desc(),
            input.desc()
        ));
    }
    let (lo, hi) = act_range_f32(activation)?;
    let (lo, hi) = (f32_lit(lo)?, f32_lit(hi)?);
    let (i, o) = (usize_lits(&ishape), usize_lits(&oshape));
    Ok(Call {
        params: Some(quote! {
            pub const #pname: #k::PoolF32 = #k::PoolF32 {
                geometry: #k::PoolGeometry {
                    input: #i, output: #o, filter_h: #fh, filter_w: #fw,
                    stride_h: #sh, stride_w: #sw, pad_h: #pad_h, pad_w: #pad_w,
                },
                act_min: #lo,
                act_max: #hi,
            };
        }),
        body: quote!(#k::proven::l2_pool_f32(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some(quote!(#k::check_l2_pool_f32(&#pname, i0, o0))),
    })
}
