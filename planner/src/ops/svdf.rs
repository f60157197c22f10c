//! SVDF: TFLM's `svdf.cc` / `svdf_common.cc` (`PrepareSvdf`, `EvalSvdf`), for the kernels
//! `stowplan::kernels::svdf_s8` (int8 input, int8 state and time weights), `svdf_s8_s16`
//! (int16 state and time weights) and `svdf_f32`.
//!
//! The activation state (input 4) is a variable tensor in the persistent region, handed to the
//! kernel as `m4`. TFLM's reference kernel requests scratch in `PrepareSvdf` (int8 input:
//! `batch × filters × 4` then `batch × units × 4` bytes, the int32 time products and output;
//! float input: `batch × filters × 4`); stowplan's kernel sums each unit directly and needs
//! none.

use quote::quote;

use super::{
    Call, Lower, OpKind, Refusal, dims, i32_lit, input, invalid, no_scratch, output, requant,
    unsupported,
};
use crate::quant;
use crate::tflite::{Activation, DType, Model, Op, OpOptions, Tensor};

/// SVDF.
pub const SVDF: OpKind = OpKind {
    module: "svdf",
    in_place: false,
    tflm_scratch: scratch,
    scratch: no_scratch,
    lower: Some(lower),
    fold: None,
    state: None,
    overwrite: None,
};

fn scratch(model: &Model, op: &Op) -> Option<Vec<u64>> {
    let batch = *dims(input(model, op, 0)?)?.first()?;
    let filters = *dims(input(model, op, 1)?)?.first()?;
    let int32 = 4u64;
    let first = batch.checked_mul(filters)?.checked_mul(int32)?;
    if input(model, op, 0)?.dtype == DType::Float32 {
        return Some(vec![first]);
    }
    let units = *dims(output(model, op, 0)?)?.get(1)?;
    Some(vec![first, batch.checked_mul(units)?.checked_mul(int32)?])
}

/// A rank-2 tensor's dimensions, or TFLM's `NumDimensions(t) == 2` failing.
fn rank2(cx: &Lower<'_>, t: &Tensor, role: &str) -> Result<[usize; 2], Refusal> {
    match cx.shape(t)?.as_slice() {
        &[a, b] => Ok([a, b]),
        s => invalid(format!(
            "{} ({role}) has shape {s:?}; SVDF needs rank 2 (TFLM's PrepareSvdf fails)",
            t.desc()
        )),
    }
}

/// A dimension TFLM checks with `TF_LITE_ENSURE_EQ`.
fn expect_dim(t: &Tensor, what: &str, got: usize, want: usize) -> Result<(), Refusal> {
    if got == want {
        Ok(())
    } else {
        invalid(format!(
            "{} has {what} {got}; SVDF needs {want} (TFLM's PrepareSvdf fails)",
            t.desc()
        ))
    }
}

/// The kernel's float activation for the options' code (TFLM's `ConvertActivation`: an
/// unknown code is none).
fn float_activation(cx: &Lower<'_>, activation: Activation) -> proc_macro2::TokenStream {
    let k = cx.k();
    match activation {
        Activation::Relu => quote!(#k::SvdfActivation::Relu),
        Activation::ReluN1To1 => quote!(#k::SvdfActivation::ReluN1To1),
        Activation::Relu6 => quote!(#k::SvdfActivation::Relu6),
        Activation::Tanh => quote!(#k::SvdfActivation::Tanh),
        Activation::SignBit => quote!(#k::SvdfActivation::SignBit),
        Activation::None | Activation::Unknown(_) => quote!(#k::SvdfActivation::None),
    }
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let OpOptions::Svdf {
        rank, activation, ..
    } = cx.op.options
    else {
        return invalid("its SVDFOptions are missing (TFLM's parser leaves the rank undefined)");
    };
    if cx.op.inputs.len() != 5 {
        return invalid(format!(
            "SVDF has {} inputs; TFLM's PrepareSvdf needs 5",
            cx.op.inputs.len()
        ));
    }
    if cx.op.outputs.len() != 1 {
        return invalid(format!(
            "SVDF has {} outputs; TFLM's PrepareSvdf needs 1",
            cx.op.outputs.len()
        ));
    }
    let input = cx.input(0)?;
    let feature = cx.input(1)?;
    let time = cx.input(2)?;
    // TFLM's PrepareSvdf reads and releases the bias tensor without a check (TODO #1751): a
    // missing bias crashes it, for every type.
    let Some(bias) = cx.optional_input(3) else {
        return invalid(
            "SVDF without a bias: TFLM's PrepareSvdf dereferences the missing bias (it crashes)",
        );
    };
    let state = cx.input(4)?;
    let out = cx.output(0)?;
    for (t, role) in [
        (input, "input"),
        (feature, "weights_feature"),
        (time, "weights_time"),
        (bias, "bias"),
    ] {
        if t.is_variable {
            return unsupported(format!(
                "{} ({role} of SVDF) is a variable tensor; the kernel reads it as a plain input",
                t.desc()
            ));
        }
    }
    // PrepareSvdf: `num_filters % rank` (a zero rank divides by zero), units from it.
    let rank = usize::try_from(rank)
        .ok()
        .filter(|&r| r > 0)
        .ok_or_else(|| {
            Refusal::Invalid(format!(
                "SVDF rank {rank}; it must be positive (TFLM's PrepareSvdf divides by it)"
            ))
        })?;
    if !matches!(input.dtype, DType::Float32 | DType::Int8) {
        return invalid(format!(
            "{} is {}; TFLM's SVDF takes float32 or int8 input",
            input.desc(),
            input.dtype
        ));
    }
    let [batches, input_size] = rank2(cx, input, "input")?;
    let [filters, feature_depth] = rank2(cx, feature, "weights_feature")?;
    if filters % rank != 0 {
        return invalid(format!(
            "{} has {filters} filters, not a multiple of the rank {rank} (TFLM's PrepareSvdf fails)",
            feature.desc()
        ));
    }
    let units = filters / rank;
    let [batch_out, units_out] = rank2(cx, out, "output")?;
    expect_dim(out, "batch", batch_out, batches)?;
    expect_dim(out, "units", units_out, units)?;
    expect_dim(feature, "input size", feature_depth, input_size)?;
    let [time_filters, memory] = rank2(cx, time, "weights_time")?;
    expect_dim(time, "filters", time_filters, filters)?;
    let first = cx.shape(bias)?.first().copied().ok_or_else(|| {
        Refusal::Invalid(format!(
            "{} is a scalar; TFLM's PrepareSvdf reads its first dimension",
            bias.desc()
        ))
    })?;
    expect_dim(bias, "first dimension", first, units)?;
    cx.backed(bias)?;
    let [state_batch, state_size] = rank2(cx, state, "activation_state")?;
    expect_dim(state, "batch", state_batch, batches)?;
    let state_width = memory.checked_mul(filters).ok_or_else(|| {
        Refusal::Invalid(format!("{} × {} overflows", time.desc(), feature.desc()))
    })?;
    expect_dim(state, "size", state_size, state_width)?;
    if !state.is_variable {
        return invalid(format!(
            "{} (activation_state of SVDF) is not a variable tensor (TFLM's PrepareSvdf fails)",
            state.desc()
        ));
    }
    if memory == 0 {
        return unsupported(format!(
            "{} has memory size 0: TFLM's kernel writes before the state's first element",
            time.desc()
        ));
    }
    cx.backed(feature)?;
    cx.backed(time)?;
    let shape = quote!(#k::SvdfShape {
        batches: #batches, input_size: #input_size, filters: #filters, rank: #rank,
        memory: #memory,
    });
    let reads = vec![0, 1, 2, 3];
    if input.dtype == DType::Float32 {
        for (t, role) in [
            (feature, "weights_feature"),
            (time, "weights_time"),
            (state, "activation_state"),
            (bias, "bias"),
        ] {
            cx.expect_type(t, DType::Float32, role)?;
        }
        cx.expect_type(out, DType::Float32, "output")?;
        let act = float_activation(cx, activation);
        return Ok(Call {
            params: Some(quote!(pub const #pname: #k::SvdfF32 = #k::SvdfF32 {
                shape: #shape, activation: #act,
            };)),
            body: quote!(#k::proven::svdf_f32(&params::#pname, i0, i1, i2, ::core::option::Option::Some(i3), m4, o0);),
            reads,
            check: Some(
                quote!(#k::check_svdf_f32(&#pname, i0, i1, i2, ::core::option::Option::Some(i3), m4, o0)),
            ),
        });
    }
    // int8 input.
    cx.expect_type(feature, DType::Int8, "weights_feature")?;
    if !matches!(time.dtype, DType::Int8 | DType::Int16) {
        return invalid(format!(
            "{} (weights_time) is {}; TFLM's int8 SVDF needs int8 or int16",
            time.desc(),
            time.dtype
        ));
    }
    if !matches!(state.dtype, DType::Int8 | DType::Int16) {
        return invalid(format!(
            "{} (activation_state) is {}; TFLM's int8 SVDF needs int8 or int16",
            state.desc(),
            state.dtype
        ));
    }
    cx.expect_type(bias, DType::Int32, "bias")?;
    cx.expect_type(out, DType::Int8, "output")?;
    if time.dtype != state.dtype {
        return unsupported(format!(
            "{} is {} but {} is {}: TFLM's kernel reads the state as the time weights' type, past its end",
            time.desc(),
            time.dtype,
            state.desc(),
            state.dtype
        ));
    }
    let (in_scale, in_zp) = cx.quant(input)?;
    let (feature_scale, _) = cx.quant(feature)?;
    let (time_scale, _) = cx.quant(time)?;
    let (state_scale, state_zp) = cx.quant(state)?;
    let (out_scale, out_zp) = cx.quant(out)?;
    // PrepareSvdf: the scales' products and quotients in double (the wheel's build; the
    // source at 90b983c2 multiplies in float first), and the bias scale within 1e-5 of state
    // scale × time scale.
    let effective_scale_1 = f64::from(in_scale) * f64::from(feature_scale) / f64::from(state_scale);
    let state_time = f64::from(state_scale) * f64::from(time_scale);
    let effective_scale_2 = state_time / f64::from(out_scale);
    let bias_scale = bias
        .quantization
        .as_ref()
        .and_then(|q| q.scale.first().copied())
        .unwrap_or(0.0);
    let diff = (f64::from(bias_scale) - state_time).abs();
    if diff.is_nan() || diff >= 1e-5 {
        return invalid(format!(
            "{} has scale {bias_scale}, but state scale × time scale is {state_time}: TFLM's PrepareSvdf needs them within 1e-5",
            bias.desc()
        ));
    }
    let feature_requant = requant(cx.rt, quant::quantize_multiplier(effective_scale_1));
    let time_requant = requant(cx.rt, quant::quantize_multiplier(effective_scale_2));
    let (izp, szp, ozp) = (i32_lit(in_zp), i32_lit(state_zp), i32_lit(out_zp));
    let f = if state.dtype == DType::Int16 {
        quote!(svdf_s8_s16)
    } else {
        quote!(svdf_s8)
    };
    Ok(Call {
        params: Some(quote!(pub const #pname: #k::SvdfS8 = #k::SvdfS8 {
            shape: #shape, input_zero_point: #izp, state_zero_point: #szp,
            output_zero_point: #ozp, feature: #feature_requant, time: #time_requant,
        };)),
        body: quote!(#k::proven::#f(&params::#pname, i0, i1, i2, ::core::option::Option::Some(i3), m4, o0);),
        reads,
        check: Some({
            let check_f = quote::format_ident!("check_{}", f.to_string());
            quote!(#k::#check_f(&#pname, i0, i1, i2, ::core::option::Option::Some(i3), m4, o0))
        }),
    })
}
