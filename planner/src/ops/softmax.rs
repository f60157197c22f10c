//! SOFTMAX: TFLM's `softmax.cc` / `softmax_common.cc` (`SoftmaxPrepare`,
//! `CalculateSoftmaxParams`, `InitializeLutForInt16`), for the kernels
//! `stowplan::kernels::softmax_s8` (int8 in and out), `softmax_s8_s16` (int8 in, int16 out),
//! `softmax_s16` (int16 in and out, with the two lookup tables TFLM's `Prepare` fills with
//! `std::exp`, made here with `stowplan_math::expf`) and `softmax_f32`.

use proc_macro2::TokenStream;
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
        (DType::Int8, DType::Int8 | DType::Int16) => {
            let (out_scale, out_zp) = cx.quant(out)?;
            if out.dtype == DType::Int8 {
                // softmax_common.cc: the int8 output is 1/256 with zero point -128.
                if out_zp != -128 || out_scale != 1.0 / 256.0 {
                    return invalid(format!(
                        "{} is quantised ({out_scale}, {out_zp}); an int8 SOFTMAX output must be (1/256, -128)",
                        out.desc()
                    ));
                }
            } else if out_zp != -32768 || !near(out_scale, 1.0 / 65536.0) {
                // softmax_common.cc: an int16 output of int8 is 1/65536 (within 0.1 %) with
                // zero point -32768.
                return invalid(format!(
                    "{} is quantised ({out_scale}, {out_zp}); an int16 SOFTMAX output of int8 must be (1/65536, -32768)",
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
            let f = if out.dtype == DType::Int8 {
                quote!(softmax_s8)
            } else {
                quote!(softmax_s8_s16)
            };
            Ok(Call {
                params: Some(quote!(pub const #pname: #k::SoftmaxS8 = #k::SoftmaxS8 {
                    rows: #rows, depth: #depth, input_multiplier: #m, input_left_shift: #s, diff_min: #d,
                };)),
                body: quote!(#k::proven::#f(&params::#pname, i0, o0);),
                reads: vec![0],
                check: Some({
                    let check = super::unary::check_of(&f);
                    quote!(#k::#check(&#pname, i0, o0))
                }),
            })
        }
        (DType::Int16, DType::Int16) => {
            // softmax_common.cc InitializeLutForInt16 and CalculateSoftmaxParams: zero points
            // 0, the output scale 1/32768 (within 0.1 %).
            let (in_scale, in_zp) = cx.quant(input)?;
            let (out_scale, out_zp) = cx.quant(out)?;
            if in_zp != 0 || out_zp != 0 || !near(out_scale, 1.0 / 32768.0) {
                return invalid(format!(
                    "{} has zero point {in_zp} and {} is quantised ({out_scale}, {out_zp}); an int16 SOFTMAX needs zero points 0 and an output scale of 1/32768",
                    input.desc(),
                    out.desc()
                ));
            }
            // softmax_common.cc: `(double)input_scale * (double)beta / (10.0 / 65535.0)`, which
            // maps input differences of [-65535, 0] to [-10, 0].
            let (multiplier, left_shift) = quant::quantize_multiplier(
                f64::from(in_scale) * f64::from(beta) / (10.0 / 65535.0),
            );
            let (exp_lut, one_over_lut) = int16_tables();
            let (m, s) = (i32_lit(multiplier), i32_lit(left_shift));
            Ok(Call {
                params: Some(quote!(pub const #pname: #k::SoftmaxS16 = #k::SoftmaxS16 {
                    rows: #rows, depth: #depth, input_multiplier: #m, input_left_shift: #s,
                    exp_lut: &#exp_lut, one_over_one_plus_x_lut: &#one_over_lut,
                };)),
                body: quote!(#k::proven::softmax_s16(&params::#pname, i0, o0);),
                reads: vec![0],
                check: Some(quote!(#k::check_softmax_s16(&#pname, i0, o0))),
            })
        }
        (DType::Float32, DType::Float32) => {
            let beta = f32_lit(beta)?;
            Ok(Call {
                params: Some(
                    quote!(pub const #pname: #k::SoftmaxF32 = #k::SoftmaxF32 { rows: #rows, depth: #depth, beta: #beta };),
                ),
                body: quote!(#k::proven::softmax_f32(&params::#pname, i0, o0);),
                reads: vec![0],
                check: Some(quote!(#k::check_softmax_f32(&#pname, i0, o0))),
            })
        }
        (DType::Int8 | DType::Int16, o) => invalid(format!(
            "{} is {} and {} is {o}; TFLM's SOFTMAX takes int8 to int8 or int16 and int16 to int16 (its Prepare fails)",
            input.desc(),
            input.dtype,
            out.desc()
        )),
        (i, o) => unsupported(format!("the runtime has no SOFTMAX kernel for {i} to {o}")),
    }
}

/// `TF_LITE_ENSURE_NEAR(scale, target, 0.001f * target)`, in float.
fn near(scale: f32, target: f32) -> bool {
    let delta = if scale > target {
        scale - target
    } else {
        target - scale
    };
    // The scale is finite (`Lower::quant`): no NaN to compare.
    delta <= 0.001_f32 * target
}

/// TFLM's two int16 SOFTMAX tables (`InitializeLutForInt16`), as array tokens: `exp` on
/// `[-10, 0]` (`LUTPopulate<int16_t>(10.0f / range, 32767, 2.0f / range, 0, exp)`, `range =
/// 65535`) and `1 / (1 + x)` on `[0, 1]` (`LUTPopulate<int16_t>(1.0f / range, -32768, 2.0f /
/// range, 0, ...)`).
fn int16_tables() -> (TokenStream, TokenStream) {
    let range = 65535.0_f32;
    let exp = quant::lut_populate_int16(
        10.0 / range,
        i32::from(i16::MAX),
        2.0 / range,
        0,
        stowplan_math::expf,
    );
    let one_over =
        quant::lut_populate_int16(1.0 / range, i32::from(i16::MIN), 2.0 / range, 0, |x| {
            1.0 / (1.0 + x)
        });
    let lits = |v: &[i16]| {
        let items = v.iter().map(|&x| proc_macro2::Literal::i16_unsuffixed(x));
        quote!([#(#items),*])
    };
    (lits(&exp), lits(&one_over))
}
