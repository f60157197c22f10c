//! SOFTMAX: TFLM's `softmax.cc` / `softmax_common.cc` (`SoftmaxPrepare`,
//! `CalculateSoftmaxParams`), for the kernels `stowplan::kernels::softmax_s8` (int8 in and
//! out) and `softmax_f32`.

use quote::quote;

use super::{Call, Lower, OpKind, Refusal, f32_lit, i32_lit, invalid, kernel, unsupported};
use crate::quant;
use crate::tflite::{DType, OpOptions};

/// SOFTMAX.
pub const SOFTMAX: OpKind = kernel("softmax", lower);

/// TFLM's `kScaledDiffIntegerBits`.
const SCALED_DIFF_INTEGER_BITS: i32 = 5;

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let input = cx.input(0)?;
    let out = cx.output(0)?;
    let OpOptions::Softmax { beta } = cx.op.options else {
        return invalid("its SoftmaxOptions are missing");
    };
    let shape = cx.shape(input)?;
    let Some(&depth) = shape.last() else {
        return invalid(format!(
            "{} is a scalar; SOFTMAX needs a dimension",
            input.desc()
        ));
    };
    if cx.elements(out)? != cx.elements(input)? {
        return invalid(format!(
            "{} and {} differ in size",
            input.desc(),
            out.desc()
        ));
    }
    let rows = cx.elements(input)?.checked_div(depth).unwrap_or(0);
    match (input.dtype, out.dtype) {
        (DType::Int8, DType::Int8) => {
            // softmax_common.cc: the int8 output is 1/256 with zero point -128.
            let (out_scale, out_zp) = cx.quant(out)?;
            if out_zp != -128 || out_scale != 1.0 / 256.0 {
                return invalid(format!(
                    "{} is quantised ({out_scale}, {out_zp}); an int8 SOFTMAX output must be (1/256, -128)",
                    out.desc()
                ));
            }
            let (in_scale, _) = cx.quant(input)?;
            let real =
                f64::from(beta) * f64::from(in_scale) * 2_f64.powi(31 - SCALED_DIFF_INTEGER_BITS);
            if real.is_nan() || real <= 1.0 {
                return invalid(format!(
                    "beta {beta} × input scale {in_scale} is too small: TFLM's PreprocessSoftmaxScaling aborts"
                ));
            }
            let (multiplier, left_shift) = quant::preprocess_softmax_scaling(
                f64::from(beta),
                f64::from(in_scale),
                SCALED_DIFF_INTEGER_BITS,
            );
            let diff_min = -quant::calculate_input_radius(SCALED_DIFF_INTEGER_BITS, left_shift, 31);
            let (m, s, d) = (i32_lit(multiplier), i32_lit(left_shift), i32_lit(diff_min));
            Ok(Call {
                params: Some(quote!(pub const #pname: #k::SoftmaxS8 = #k::SoftmaxS8 {
                    rows: #rows, depth: #depth, input_multiplier: #m, input_left_shift: #s, diff_min: #d,
                };)),
                body: quote!(#k::softmax_s8(&params::#pname, i0, o0);),
                reads: vec![0],
            })
        }
        (DType::Float32, DType::Float32) => {
            let beta = f32_lit(beta)?;
            Ok(Call {
                params: Some(
                    quote!(pub const #pname: #k::SoftmaxF32 = #k::SoftmaxF32 { rows: #rows, depth: #depth, beta: #beta };),
                ),
                body: quote!(#k::softmax_f32(&params::#pname, i0, o0);),
                reads: vec![0],
            })
        }
        (i, o) => unsupported(format!("the runtime has no SOFTMAX kernel for {i} to {o}")),
    }
}
