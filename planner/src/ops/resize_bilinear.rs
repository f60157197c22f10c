//! RESIZE_BILINEAR: TFLM's `resize_bilinear.cc` (`ResizeBilinearPrepare`,
//! `ResizeBilinearEval`) for the kernels `stowplan::kernels::resize_bilinear_f32` and
//! `resize_bilinear_s8` (float32 and int8, as `ResizeBilinearEval` takes).

use quote::quote;

use super::resize_nearest_neighbor::resize_shapes;
use super::{Call, Lower, OpKind, Refusal, invalid, kernel, usize_lits};
use crate::tflite::{DType, OpOptions};

/// RESIZE_BILINEAR.
pub const RESIZE_BILINEAR: OpKind = kernel("resize_bilinear", lower);

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (input, size, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    let (i4, o4) = resize_shapes(cx, input, size, out)?;
    let (align, half) = match cx.op.options {
        OpOptions::ResizeBilinear {
            align_corners,
            half_pixel_centers,
        } => (align_corners, half_pixel_centers),
        OpOptions::None => (false, false),
        _ => return invalid("its options are not ResizeBilinearOptions"),
    };
    if align && half {
        return invalid(
            "half_pixel_centers with align_corners (TFLM's Prepare: \"If half_pixel_centers is True, align_corners must be False.\")",
        );
    }
    cx.one_of(out, &[DType::Float32, DType::Int8])?;
    let f = if out.dtype == DType::Int8 {
        quote!(resize_bilinear_s8)
    } else {
        quote!(resize_bilinear_f32)
    };
    let (i, o) = (usize_lits(&i4), usize_lits(&o4));
    Ok(Call {
        params: Some(
            quote!(pub const #pname: #k::ResizeBilinear = #k::ResizeBilinear {
            input: #i, output: #o, align_corners: #align, half_pixel_centers: #half,
        };),
        ),
        body: quote!(#k::proven::#f(&params::#pname, i0, o0);),
        reads: vec![0],
        check: Some({
            let check_f = quote::format_ident!("check_{}", f.to_string());
            quote!(#k::#check_f(&#pname, i0, o0))
        }),
    })
}
