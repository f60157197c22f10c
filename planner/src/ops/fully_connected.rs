//! FULLY_CONNECTED: TFLM's `fully_connected.cc` / `fully_connected_common.cc`
//! (`FullyConnectedPrepare`, `CalculateOpDataFullyConnected`) and
//! `GetQuantizedConvolutionMultipler` in `kernel_util.cc`, for the kernels
//! `stowplan::kernels::fully_connected_s8` (int8, per-tensor or per-channel filter),
//! `fully_connected_s8_i4` (int8 with a packed int4 filter, per-tensor), `fully_connected_s16`
//! / `fully_connected_s16_acc32` (int16 with int8 weights; 64-bit or, with an int32 bias,
//! 32-bit accumulators) and `fully_connected_f32`.
//!
//! As for CONV_2D ([`super::conv`]), a bias-less int16 FULLY_CONNECTED accumulates in 64 bits:
//! `FullyConnectedOptions.quantized_bias_type` is not in stowplan's schema.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::conv::{
    act_range_q, epilogue_phrase, int4_filter_scratch, kernel_choice, kernel_constant, kernel_doc,
};
use super::overwrite::{self, Overwrite, Pairing, WriteOrder};
use super::{
    Call, KernelChoice, Lower, OpKind, Refusal, act_range_f32, f32_lit, i32_lit, invalid, requant,
    unsupported,
};
use crate::graph::TensorInfo;
use crate::quant;
use crate::tflite::{Activation, DType, Model, Op, OpOptions};

/// FULLY_CONNECTED.
pub const FULLY_CONNECTED: OpKind = OpKind {
    module: "fully_connected",
    in_place: false,
    tflm_scratch: int4_filter_scratch,
    scratch: super::no_scratch,
    lower: Some(lower),
    fold: None,
    state: None,
    overwrite: Some(OVERWRITE),
};

/// FULLY_CONNECTED of several batch rows on one buffer (`kernels::overlap::fully_connected_s8`,
/// ...): the kernel on chunks of rows, each row's output below its own input row.
const OVERWRITE: Overwrite = Overwrite {
    input: 0,
    order: WriteOrder::Rows,
    fits: "fully_connected_fits",
    entries: &[
        "fully_connected_s8",
        "fully_connected_s8_i4",
        "fully_connected_s16",
        "fully_connected_s16_acc32",
        "fully_connected_f32",
    ],
    pairing,
};

/// A FULLY_CONNECTED of several batch rows the runtime's kernels take (int8 with int8 or int4
/// weights, int16 with int8, float32 with float32; not shuffled): from its rows' least
/// displacement (`kernels::overlap::fully_connected_min_displacement`); `None` for one row,
/// whose output cannot share a byte with its input (every output reads every input).
fn pairing(model: &Model, _: &[u8], tensors: &[TensorInfo], op: &Op) -> Option<Pairing> {
    let (input, out) = (
        overwrite::operand(model, op, 0)?,
        overwrite::only_output(model, op)?,
    );
    let filter = overwrite::operand(model, op, 1)?;
    let plain = match op.options {
        OpOptions::FullyConnected {
            shuffled_weights, ..
        } => !shuffled_weights,
        OpOptions::None => true,
        _ => false,
    };
    let kernel = matches!(
        (input.dtype, filter.dtype, out.dtype),
        (DType::Int8, DType::Int8 | DType::Int4, DType::Int8)
            | (DType::Int16, DType::Int8, DType::Int16)
            | (DType::Float32, DType::Float32, DType::Float32)
    );
    if !plain || !kernel {
        return None;
    }
    let units = u64::try_from(*tensors.get(out.id.get())?.shape.last()?).ok()?;
    let depth = u64::try_from(*tensors.get(filter.id.get())?.shape.last()?).ok()?;
    let (i, o) = (
        overwrite::elements(tensors, input)?,
        overwrite::elements(tensors, out)?,
    );
    let batches = o.checked_div(units)?;
    if batches < 2 || batches.checked_mul(units) != Some(o) || batches.checked_mul(depth) != Some(i)
    {
        return None;
    }
    let size = |v: u64| usize::try_from(v).ok();
    let d = crate::kernels::overlap::fully_connected_min_displacement(
        size(batches)?,
        size(depth)?,
        size(units)?,
    )?;
    Some(Pairing {
        least: overwrite::bytes(d, input.dtype.element_bytes()?)?,
        preferred: 0,
        pixel: 0,
    })
}

/// The kernel call `f(params, i0, i1, bias, o0)`: on one view of the input and the output
/// through `kernels::overlap::f` when the plan puts the output over the input
/// (`kernel_order::fully_connected`), in chunks of batch rows, with a compile-time proof that
/// the offsets suit it.
fn call(
    cx: &Lower<'_>,
    f: &TokenStream,
    params: TokenStream,
    reads: Vec<usize>,
    bias_view: &TokenStream,
) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let check = format_ident!("check_{}", f.to_string());
    if cx.overlap.is_none() {
        return Ok(Call {
            params: Some(params),
            body: quote!(#k::proven::#f(&params::#pname, i0, i1, #bias_view, o0);),
            reads,
            // The views' names stand for their lengths in the check: `Some(i2)` is the bias's.
            check: Some(quote!(#k::#check(&#pname, i0, i1, #bias_view, o0))),
        });
    }
    cx.checked_overlapped_call(
        f,
        params,
        |ia, oa| {
            quote!(
                #pname.batches, #pname.accum_depth, #pname.output_depth, #ia, #oa,
            )
        },
        &quote!(i1, #bias_view),
        &quote!(i1, #bias_view),
        reads.into_iter().filter(|&i| i != 0).collect(),
        "at least the least displacement of its rows above",
    )
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let input = cx.input(0)?;
    let filter = cx.input(1)?;
    let out = cx.output(0)?;
    // Without options TFLM's parser keeps its defaults: no activation, default weights.
    let (activation, shuffled_weights) = match cx.op.options {
        OpOptions::FullyConnected {
            activation,
            shuffled_weights,
            ..
        } => (activation, shuffled_weights),
        OpOptions::None => (Activation::None, false),
        _ => return invalid("its options are not FullyConnectedOptions"),
    };
    if shuffled_weights {
        return unsupported("shuffled weights (weights_format SHUFFLED4x16INT8)");
    }
    cx.same_type(input, out)?;
    let fshape = cx.shape(filter)?;
    let oshape = cx.shape(out)?;
    let (Some(&accum_depth), Some(&output_depth)) = (fshape.last(), oshape.last()) else {
        return invalid(format!("{} or {} is a scalar", filter.desc(), out.desc()));
    };
    let units = fshape
        .iter()
        .rev()
        .skip(1)
        .try_fold(1usize, |n, &d| n.checked_mul(d));
    if units != Some(output_depth) {
        return invalid(format!(
            "{} has shape {fshape:?}; FULLY_CONNECTED needs [{output_depth}, depth] for {}",
            filter.desc(),
            out.desc()
        ));
    }
    let batches = cx.elements(out)? / output_depth.max(1);
    if batches.checked_mul(accum_depth) != Some(cx.elements(input)?) {
        return invalid(format!(
            "{} holds {} values, not {batches} batches of {accum_depth}",
            input.desc(),
            cx.elements(input)?
        ));
    }
    cx.backed(filter)?;
    let bias = cx.optional_input(2);
    if let Some(b) = bias {
        cx.backed(b)?;
        let ok: &[DType] = match input.dtype {
            DType::Int8 => &[DType::Int32],
            DType::Int16 => &[DType::Int64, DType::Int32],
            other => &[other],
        };
        if !ok.contains(&b.dtype) {
            cx.expect_type(b, ok.first().copied().unwrap_or(input.dtype), "bias")?;
        }
        if cx.elements(b)? != output_depth {
            return invalid(format!("{} does not hold {output_depth} values", b.desc()));
        }
    }
    let (b, a, d) = (batches, accum_depth, output_depth);
    let reads = if bias.is_some() {
        vec![0, 1, 2]
    } else {
        vec![0, 1]
    };
    let bias_view = cx.optional_view(2);
    match (input.dtype, filter.dtype) {
        (DType::Int8, DType::Int8 | DType::Int4) | (DType::Int16, DType::Int8) => {
            let (in_scale, _) = cx.quant(input)?;
            let (out_scale, out_zp) = cx.quant(out)?;
            let fscales = cx.scales(filter)?;
            if fscales.len() > 1 {
                if filter.dtype == DType::Int4 {
                    // fully_connected_common.cc: per-channel quantisation only for int8 filters.
                    return invalid(format!(
                        "{} is int4 and quantised per channel; TFLM's FULLY_CONNECTED takes int4 filters per tensor only (its Prepare fails)",
                        filter.desc()
                    ));
                }
                // fully_connected_common.cc: one scale per filter row (the output channel).
                let dim = filter
                    .quantization
                    .as_ref()
                    .map_or(0, |q| q.quantized_dimension);
                if dim != 0 || fscales.len() != output_depth {
                    return invalid(format!(
                        "{} has {} scales along dimension {dim}; per-channel FULLY_CONNECTED needs {output_depth} along dimension 0",
                        filter.desc(),
                        fscales.len()
                    ));
                }
            } else if let Some(b) = bias {
                // GetQuantizedConvolutionMultipler with a bias: the bias scale must be close
                // to input scale × filter scale, in double.
                let product =
                    f64::from(in_scale) * f64::from(fscales.first().copied().unwrap_or(0.0));
                let bias_scale = b
                    .quantization
                    .as_ref()
                    .and_then(|q| q.scale.first().copied())
                    .map_or(0.0, f64::from);
                let diff = (product - bias_scale).abs() / f64::from(out_scale);
                if diff.is_nan() || diff > 0.02 {
                    return invalid(format!(
                        "{} has scale {bias_scale}, but input scale × filter scale is {product}: TFLM's Prepare needs them within 2 % of the output scale {out_scale}",
                        b.desc()
                    ));
                }
            }
            let values = quant::fully_connected_multipliers(in_scale, fscales, out_scale);
            let multipliers: Vec<_> = values.iter().map(|&m| requant(cx.rt, m)).collect();
            let (lo, hi) = act_range_q(activation, out.dtype, out_scale, out_zp)?;
            // int8 with int8 weights on two buffers: the filter re-laid and the input offset
            // folded into the bias when the kernel that reads them takes the layer.
            let relaid = if input.dtype == DType::Int8
                && filter.dtype == DType::Int8
                && cx.overlap.is_none()
            {
                interleaved(
                    cx,
                    filter,
                    bias,
                    (accum_depth, output_depth),
                    fscales.len() > 1,
                )?
            } else {
                None
            };
            // int8 with int8 weights: the kernel and its epilogue form, chosen now by the
            // runtime's own rule (its source is compiled here).
            let chosen = (input.dtype == DType::Int8 && filter.dtype == DType::Int8).then(|| {
                use crate::kernels::fully_connected_kernel as rule;
                let choice = kernel_choice(&values, |r| {
                    if relaid.is_some() {
                        rule::fully_connected_s8_interleaved_for(r, output_depth, (lo, hi), out_zp)
                    } else {
                        rule::fully_connected_s8_kernel_for(r, output_depth, lo, hi)
                    }
                });
                cx.chose(KernelChoice {
                    kernel: rule::name(choice),
                    epilogue: rule::epilogue(choice),
                });
                let constant = kernel_constant(
                    &quote!(#k::fully_connected_kernel),
                    choice,
                    rule::name,
                    rule::epilogue,
                );
                let doc = if relaid.is_some() {
                    format!(
                        " The kernel of {pname}: {}{}, its filter re-laid ({pname}_FILTER) and its input offset folded into its bias ({pname}_BIAS) when the crate compiled; the DSP loop on cores with the DSP extension, a plain loop on the same layout elsewhere.",
                        rule::name(choice),
                        epilogue_phrase(rule::epilogue(choice))
                    )
                } else {
                    kernel_doc(pname, rule::name(choice), rule::epilogue(choice))
                };
                (constant, doc)
            });
            let (io, fo, oo) = (
                i32_lit(cx.offset(input)?),
                i32_lit(cx.offset(filter)?),
                i32_lit(out_zp),
            );
            let (lo, hi) = (i32_lit(lo), i32_lit(hi));
            let (ty, f) = match (input.dtype, filter.dtype, bias.map(|b| b.dtype)) {
                (DType::Int8, DType::Int4, _) => {
                    (quote!(FullyConnectedS8), quote!(fully_connected_s8_i4))
                }
                (DType::Int8, _, _) => (quote!(FullyConnectedS8), quote!(fully_connected_s8)),
                (_, _, Some(DType::Int32)) => {
                    (quote!(FullyConnectedS16), quote!(fully_connected_s16_acc32))
                }
                _ => (quote!(FullyConnectedS16), quote!(fully_connected_s16)),
            };
            let mut params = quote!(pub const #pname: #k::#ty = #k::#ty {
                batches: #b, accum_depth: #a, output_depth: #d,
                input_offset: #io, filter_offset: #fo, output_offset: #oo,
                requant: &[#(#multipliers),*], act_min: #lo, act_max: #hi,
            };);
            match chosen {
                Some((constant, doc)) if cx.overlap.is_none() => {
                    let kname = format_ident!("{pname}_KERNEL");
                    params.extend(quote!(
                        #[doc = #doc]
                        pub const #kname: u8 = #constant;
                    ));
                    if let Some(relaid) = relaid {
                        return Ok(relaid_call(cx, &kname, relaid, params));
                    }
                    Ok(Call {
                        params: Some(params),
                        body: quote!(#k::proven::fully_connected_s8_with::<{ params::#kname }>(
                            &params::#pname, i0, i1, #bias_view, o0
                        );),
                        reads,
                        check: Some(quote!(#k::check_fully_connected_s8_with::<#kname>(
                            &#pname, i0, i1, #bias_view, o0
                        ))),
                    })
                }
                _ => call(cx, &f, params, reads, &bias_view),
            }
        }
        (DType::Float32, DType::Float32) => {
            let (lo, hi) = act_range_f32(activation)?;
            let (lo, hi) = (f32_lit(lo)?, f32_lit(hi)?);
            let params = quote!(pub const #pname: #k::FullyConnectedF32 = #k::FullyConnectedF32 {
                    batches: #b, accum_depth: #a, output_depth: #d, act_min: #lo, act_max: #hi,
                };);
            call(cx, &quote!(fully_connected_f32), params, reads, &bias_view)
        }
        (DType::Int8 | DType::Int16 | DType::Float32, f) => invalid(format!(
            "{} is {} and {} is {f}; TFLM's FULLY_CONNECTED takes float32 with float32, int8 with int8 or int4, int16 with int8 (its Prepare fails)",
            input.desc(),
            input.dtype,
            filter.desc(),
        )),
        (i, f) => unsupported(format!(
            "the runtime has no FULLY_CONNECTED kernel for {i} input with {f} filter"
        )),
    }
}

/// A FULLY_CONNECTED filter re-laid for `kernels::fully_connected_kernel::INTERLEAVED` and its
/// bias with the input offset folded in, as [`interleaved`] finds them.
struct Relaid {
    /// The filter's bytes in the model file.
    filter: std::ops::Range<usize>,
    /// Its rows' length.
    depth: usize,
    /// Each output channel's bias plus `input_offset × sum(row)`, modulo 2^32.
    bias: Vec<i32>,
}

/// The re-laid filter and folded bias of an int8 FULLY_CONNECTED, when the runtime's rule
/// (`fully_connected_kernel::interleaves`) takes the layer, it has four output channels or more
/// (a block), and its filter is the model file's (not a folded constant); `None` otherwise.
fn interleaved(
    cx: &Lower<'_>,
    filter: &crate::tflite::Tensor,
    bias: Option<&crate::tflite::Tensor>,
    (depth, units): (usize, usize),
    per_channel: bool,
) -> Result<Option<Relaid>, Refusal> {
    use crate::kernels::fully_connected_kernel::{folded_bias, interleaves};
    if units < 4 || !interleaves(depth, cx.offset(filter)?, per_channel) {
        return Ok(None);
    }
    let Some(range) = cx.file_range(filter) else {
        return Ok(None);
    };
    let Some(data) = cx.backed(filter)? else {
        return Ok(None);
    };
    let biases = match bias {
        Some(b) => cx.const_ints(b)?,
        None => vec![0; units],
    };
    if biases.len() != units || depth.checked_mul(units) != Some(data.len()) {
        return Ok(None);
    }
    let input_offset = cx.offset(cx.input(0)?)?;
    let bias = data
        .chunks_exact(depth)
        .zip(&biases)
        .map(|(row, &b)| {
            let row: Vec<i8> = row.iter().map(|&v| v as i8).collect();
            // An int32 bias (checked when lowered), so `b` fits.
            folded_bias(b as i32, input_offset, &row)
        })
        .collect();
    Ok(Some(Relaid {
        filter: range,
        depth,
        bias,
    }))
}

/// The call of `fully_connected_s8_with::<K>` with the re-laid filter and the folded bias:
/// `{P}_FILTER`, the model file's bytes re-laid when the constant is evaluated
/// (`__private_v1::interleave_at`, so no weight becomes a token), and `{P}_BIAS`, beside the
/// parameters; the kernel's check on their lengths.
fn relaid_call(
    cx: &Lower<'_>,
    kname: &syn::Ident,
    relaid: Relaid,
    mut params: TokenStream,
) -> Call {
    let (k, rt, pname) = (cx.k(), cx.rt, cx.params);
    let p = quote!(#rt::__private_v1);
    let (filter, filter_bytes, bias) = (
        format_ident!("{pname}_FILTER"),
        format_ident!("{pname}_FILTER_BYTES"),
        format_ident!("{pname}_BIAS"),
    );
    let n = Literal::usize_unsuffixed(relaid.filter.len());
    let start = Literal::usize_unsuffixed(relaid.filter.start);
    let depth = Literal::usize_unsuffixed(relaid.depth);
    let biases = relaid.bias.iter().map(|&b| i32_lit(b));
    let filter_doc = format!(
        " {pname}'s filter, re-laid for its kernel (blocks of four rows, their words interleaved) when the crate compiled."
    );
    let bias_doc = format!(
        " {pname}'s bias plus its input offset times each filter row's sum (modulo 2^32), folded when the crate compiled."
    );
    params.extend(quote!(
        #[allow(long_running_const_eval)]
        const #filter_bytes: &#p::Aligned<[u8; #n]> =
            &#p::interleave_at::<#n, { super::MODEL_FILE_BYTES }>(super::MODEL_FILE, #start, #depth);
        #[doc = #filter_doc]
        pub const #filter: &[i8] = #p::typed::<i8, #n>(#filter_bytes);
        #[doc = #bias_doc]
        pub const #bias: &[i32] = &[#(#biases),*];
    ));
    Call {
        params: Some(params),
        body: quote!(#k::proven::fully_connected_s8_with::<{ params::#kname }>(
            &params::#pname, i0, params::#filter, ::core::option::Option::Some(params::#bias), o0
        );),
        reads: vec![0],
        check: Some(quote!(#k::check_fully_connected_s8_with::<#kname>(
            &#pname, i0, #filter.len(), ::core::option::Option::Some(#bias.len()), o0
        ))),
    }
}
