//! SUB: TFLM's `sub.cc` / `sub_common.cc` (`SubPrepare`, `CalculateOpDataSub`), for the
//! kernels `stowplan::kernels::sub_s8`, `sub_s16`, `sub_i32` and `sub_f32`; shapes broadcast as
//! ADD's.

use quote::quote;

use super::add::{
    act_range_i32, act_range_s16, activation, add_params_tokens, binary_shape, float_call,
    int32_call, unquantized,
};
use super::{Call, Lower, OpKind, Refusal, act_range_s8, kernel, unsupported};
use crate::quant;
use crate::tflite::DType;

/// SUB.
pub const SUB: OpKind = kernel("sub", lower);

/// TFLM's `CalculateOpDataSub` (sub_common.cc:38-66) for int8 (`left_shift` 20) and int16
/// (15): unlike ADD's, its scales stay in `float`: `twice_max_input_scale = 2 * max(s1, s2)`,
/// the input multipliers `(double)(s_i / twice_max_input_scale)` and the output one
/// `(double)(twice_max_input_scale / ((1 << left_shift) * output_scale))`, each divided in
/// float, through `QuantizeMultiplierSmallerThanOneExp`; `None` where that aborts.
fn sub_multipliers(left_shift: i32, s1: f32, s2: f32, so: f32) -> Option<[(i32, i32); 3]> {
    let twice_max_input_scale = 2.0 * s1.max(s2);
    let real_input1_multiplier = f64::from(s1 / twice_max_input_scale);
    let real_input2_multiplier = f64::from(s2 / twice_max_input_scale);
    // `(1 << left_shift) * output_scale`: an int times a float, in float.
    let denominator = (1_i32 << left_shift) as f32 * so;
    let real_output_multiplier = f64::from(twice_max_input_scale / denominator);
    Some([
        quant::quantize_multiplier_smaller_than_one_exp(real_input1_multiplier)?,
        quant::quantize_multiplier_smaller_than_one_exp(real_input2_multiplier)?,
        quant::quantize_multiplier_smaller_than_one_exp(real_output_multiplier)?,
    ])
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (a, b, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    cx.same_type(a, out)?;
    cx.same_type(b, out)?;
    let act = activation(cx)?;
    let shape = binary_shape(cx, a, b, out)?;
    let (left_shift, f) = match out.dtype {
        DType::Int8 => (20, quote!(sub_s8)),
        DType::Int16 => (15, quote!(sub_s16)),
        DType::Int32 => {
            // sub_common.cc:96-103: int32 only unquantised; sub.cc:60 clamps to
            // CalculateActivationRange<int32_t>.
            unquantized(a, "SUB")?;
            unquantized(b, "SUB")?;
            unquantized(out, "SUB")?;
            return Ok(int32_call(cx, shape, act_range_i32(act)?, quote!(sub_i32)));
        }
        DType::Float32 => return float_call(cx, shape, act, quote!(sub_f32)),
        other => return unsupported(format!("the runtime has no SUB kernel for {other}")),
    };
    let (s1, z1) = cx.quant(a)?;
    let (s2, z2) = cx.quant(b)?;
    let (so, zo) = cx.quant(out)?;
    let [m1, m2, mo] = sub_multipliers(left_shift, s1, s2, so).ok_or_else(|| {
        Refusal::Invalid(format!(
            "scales {s1} and {s2} into {so} give a multiplier TFLM's QuantizeMultiplierSmallerThanOneExp refuses (its Prepare aborts)"
        ))
    })?;
    let (act_min, act_max) = if out.dtype == DType::Int8 {
        act_range_s8(act, so, zo)?
    } else {
        act_range_s16(act, so, zo)?
    };
    let p = quant::AddParams {
        left_shift,
        input1_offset: z1.wrapping_neg(),
        input1: m1,
        input2_offset: z2.wrapping_neg(),
        input2: m2,
        output_offset: zo,
        output: mo,
        act_min,
        act_max,
    };
    Ok(Call {
        params: Some(add_params_tokens(cx, quote!(SubQuant), &shape, &p)),
        body: quote!(#k::#f(&params::#pname, i0, i1, o0);),
        reads: vec![0, 1],
    })
}
