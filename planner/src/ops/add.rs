//! ADD: TFLM's `add.cc` / `add_common.cc` (`AddPrepare`, `CalculateOpDataAdd`), for the
//! kernels `stowplan::kernels::add_s8`, `add_s16`, `add_i32` and `add_f32`; the broadcast
//! shape and the helpers shared with the other binary elementwise ops (SUB, MUL, DIV, ...).

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::overwrite::{self, Overwrite, Pairing, WriteOrder};
use super::{
    Call, KernelChoice, Lower, OpKind, Refusal, act_range_f32, f32_lit, fused, i32_lit, invalid,
    kernel, requant, unsupported, usize_lits,
};
use crate::graph::TensorInfo;
use crate::quant;
use crate::tflite::{Activation, DType, Model, Op, OpOptions, Tensor};

/// TFLM's `CalculateActivationRangeQuantized` for an int16 output.
pub(super) fn act_range_s16(act: Activation, scale: f32, zp: i32) -> Result<(i32, i32), Refusal> {
    quant::activation_range_quantized(
        fused(act)?,
        scale,
        zp,
        i32::from(i16::MIN),
        i32::from(i16::MAX),
    )
    .ok_or_else(|| {
        Refusal::Invalid(format!(
            "the {act:?} range at output scale {scale} overflows int32 (TFLM's Prepare fails)"
        ))
    })
}

/// TFLM's `CalculateActivationRange<int32_t>`: RELU `[0, max]`, RELU6 `[0, 6]`,
/// RELU_N1_TO_1 `[-1, 1]`, none the whole int32 range.
pub(super) fn act_range_i32(act: Activation) -> Result<(i32, i32), Refusal> {
    Ok(match fused(act)? {
        quant::FusedActivation::None => (i32::MIN, i32::MAX),
        quant::FusedActivation::Relu => (0, i32::MAX),
        quant::FusedActivation::Relu6 => (0, 6),
        quant::FusedActivation::ReluN1To1 => (-1, 1),
    })
}

/// TFLM's `TF_LITE_ENSURE_EQ(quantization.type, kTfLiteNoQuantization)` of its int32
/// arithmetic: a tensor with scales is affine-quantised, which the int32 kernels refuse.
pub(super) fn unquantized(t: &Tensor, name: &str) -> Result<(), Refusal> {
    if t.quantization.as_ref().is_some_and(|q| !q.scale.is_empty()) {
        return invalid(format!(
            "{} is int32 with quantisation; TFLM's int32 {name} takes unquantised tensors only (its Prepare fails)",
            t.desc()
        ));
    }
    Ok(())
}

/// The int32 kernel call of a binary op, clamped to `act`'s range.
pub(super) fn int32_call(
    cx: &Lower<'_>,
    shape: TokenStream,
    (lo, hi): (i32, i32),
    f: TokenStream,
) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (lo, hi) = (i32_lit(lo), i32_lit(hi));
    binary_call(
        cx,
        &f,
        quote!(pub const #pname: #k::BinaryI32 = #k::BinaryI32 {
            shape: #shape, act_min: #lo, act_max: #hi,
        };),
    )
}

/// The binary kernels with a check (`kernels::check_<f>`) and proven entries
/// (`kernels::proven::f`, `kernels::proven::overlap::f`): [`binary_call`] asserts their checks
/// and calls those. The other binary ops' kernels (SUB, DIV) keep their plain calls until
/// theirs have them too.
const CHECKED: &[&str] = &[
    "add_s8", "add_s16", "add_i32", "add_f32", "mul_s8", "mul_s16", "mul_i32", "mul_f32",
];

/// The kernel call of a binary op (`f`, with inputs 0 and 1 and the output) and its parameters
/// (a constant with the `shape` field): on one view of the first input and the output through
/// `kernels::overlap::f` when the plan puts the output over it (ADD and MUL,
/// `kernel_order::binary`), the second input in its own view, with a compile-time proof that
/// the offsets suit it; for the kernels with a check ([`CHECKED`]), the check asserted and
/// the proven entry called.
pub(super) fn binary_call(
    cx: &Lower<'_>,
    f: &TokenStream,
    params: TokenStream,
) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let checked = CHECKED.contains(&f.to_string().as_str());
    let check = format_ident!("check_{}", f.to_string());
    if cx.overlap.is_none() {
        if checked {
            return Ok(Call {
                params: Some(params),
                body: quote!(#k::proven::#f(&params::#pname, i0, i1, o0);),
                reads: vec![0, 1],
                check: Some(quote!(#k::#check(&#pname, i0, i1, o0))),
            });
        }
        return Ok(Call {
            params: Some(params),
            body: quote!(#k::#f(&params::#pname, i0, i1, o0);),
            reads: vec![0, 1],
            check: None,
        });
    }
    let fits = |ia: &Literal, oa: &Literal| quote!(&#pname.shape, #ia, #oa);
    if checked {
        return cx.checked_overlapped_call(
            f,
            params,
            fits,
            &quote!(i1),
            &quote!(i1),
            vec![1],
            "at or above",
        );
    }
    cx.overlapped_call(f, params, fits, &quote!(i1), vec![1], "at or above")
}

/// The tokens of an `AddS8` (ADD's and SUB's quantised parameters).
pub(super) fn add_params_tokens(
    cx: &Lower<'_>,
    ty: TokenStream,
    shape: &TokenStream,
    p: &quant::AddParams,
) -> TokenStream {
    let k = cx.k();
    let pname = cx.params;
    let (m1, m2, mo) = (
        requant(cx.rt, p.input1),
        requant(cx.rt, p.input2),
        requant(cx.rt, p.output),
    );
    let (o1, o2, oo) = (
        i32_lit(p.input1_offset),
        i32_lit(p.input2_offset),
        i32_lit(p.output_offset),
    );
    let (lo, hi, ls) = (
        i32_lit(p.act_min),
        i32_lit(p.act_max),
        i32_lit(p.left_shift),
    );
    quote!(pub const #pname: #k::#ty = #k::#ty {
        shape: #shape, left_shift: #ls,
        input1_offset: #o1, input1: #m1, input2_offset: #o2, input2: #m2,
        output_offset: #oo, output: #mo, act_min: #lo, act_max: #hi,
    };)
}

/// ADD.
pub const ADD: OpKind = OpKind {
    overwrite: Some(Overwrite {
        entries: &["add_s8", "add_s16", "add_i32", "add_f32"],
        ..BINARY_ON_ONE_BUFFER
    }),
    ..kernel("add", lower)
};

/// ADD and MUL on one buffer: the kernels walk the output in memory order, each element after
/// the first input's element is read (`kernels::overlap::add_s8`, ...), the second input in a
/// view of its own.
pub(super) const BINARY_ON_ONE_BUFFER: Overwrite = Overwrite {
    input: 0,
    order: WriteOrder::Elementwise,
    fits: "binary_fits",
    entries: &[],
    pairing: binary_pairing,
};

/// ADD and MUL of int8, int16, int32 or float32 whose first input is not broadcast (as many
/// elements as the output) and is not the second input too.
fn binary_pairing(model: &Model, _: &[u8], tensors: &[TensorInfo], op: &Op) -> Option<Pairing> {
    let types = [DType::Int8, DType::Int16, DType::Int32, DType::Float32].map(|t| (t, t));
    overwrite::elementwise(model, tensors, op, &types, true)
}

/// The `BinaryShape` tokens of a broadcasting binary op: each shape right-aligned into six
/// dimensions, every input dimension 1 or the output's.
pub(super) fn binary_shape(
    cx: &Lower<'_>,
    a: &Tensor,
    b: &Tensor,
    out: &Tensor,
) -> Result<TokenStream, Refusal> {
    let k = cx.k();
    let (sa, sb, so) = (
        cx.shape_n::<6>(a)?,
        cx.shape_n::<6>(b)?,
        cx.shape_n::<6>(out)?,
    );
    for (t, s) in [(a, &sa), (b, &sb)] {
        if s.iter().zip(&so).any(|(&d, &o)| d != 1 && d != o) {
            return invalid(format!(
                "{} of shape {:?} does not broadcast to {} of shape {:?}",
                t.desc(),
                t.shape,
                out.desc(),
                out.shape
            ));
        }
    }
    if sa
        .iter()
        .zip(&sb)
        .zip(&so)
        .any(|((&x, &y), &o)| o != x.max(y) && x * y != 0)
    {
        return invalid(format!(
            "{} has shape {:?}, not the broadcast of its inputs' shapes",
            out.desc(),
            out.shape
        ));
    }
    let (la, lb, lo) = (usize_lits(&sa), usize_lits(&sb), usize_lits(&so));
    Ok(quote!(#k::BinaryShape { input1: #la, input2: #lb, output: #lo }))
}

/// The fused activation of ADD, SUB, MUL or DIV.
pub(super) fn activation(cx: &Lower<'_>) -> Result<Activation, Refusal> {
    match cx.op.options {
        OpOptions::Add { activation, .. }
        | OpOptions::Mul { activation }
        | OpOptions::Sub { activation, .. }
        | OpOptions::Div { activation } => Ok(activation),
        OpOptions::None => Ok(Activation::None),
        _ => invalid("its options are not AddOptions, SubOptions, MulOptions or DivOptions"),
    }
}

/// The float kernel call of ADD or MUL.
pub(super) fn float_call(
    cx: &Lower<'_>,
    shape: TokenStream,
    act: Activation,
    f: TokenStream,
) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let (lo, hi) = act_range_f32(act)?;
    let (lo, hi) = (f32_lit(lo)?, f32_lit(hi)?);
    binary_call(
        cx,
        &f,
        quote!(pub const #pname: #k::BinaryF32 = #k::BinaryF32 {
            shape: #shape, act_min: #lo, act_max: #hi,
        };),
    )
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let (a, b, out) = (cx.input(0)?, cx.input(1)?, cx.output(0)?);
    cx.same_type(a, out)?;
    cx.same_type(b, out)?;
    let act = activation(cx)?;
    let shape = binary_shape(cx, a, b, out)?;
    let (left_shift, range, ty, f) = match out.dtype {
        DType::Int8 => (
            20,
            (i32::from(i8::MIN), i32::from(i8::MAX)),
            quote!(AddS8),
            quote!(add_s8),
        ),
        // add.cc: int16 takes the general path (`AddGeneralParamScale`, `pot_scale` false),
        // with left shift 15 (add_common.cc:45).
        DType::Int16 => (
            15,
            (i32::from(i16::MIN), i32::from(i16::MAX)),
            quote!(AddS16),
            quote!(add_s16),
        ),
        DType::Int32 => {
            // add_common.cc:106-111: int32 only unquantised; add.cc:59 clamps int32 to its
            // whole range whatever the activation.
            unquantized(a, "ADD")?;
            unquantized(b, "ADD")?;
            return int32_call(cx, shape, (i32::MIN, i32::MAX), quote!(add_i32));
        }
        DType::Float32 => return float_call(cx, shape, act, quote!(add_f32)),
        other => return unsupported(format!("the runtime has no ADD kernel for {other}")),
    };
    let (s1, z1) = cx.quant(a)?;
    let (s2, z2) = cx.quant(b)?;
    let (so, zo) = cx.quant(out)?;
    let p = quant::add_params_with(left_shift, range, (s1, z1), (s2, z2), (so, zo), fused(act)?)
        .ok_or_else(|| {
            Refusal::Invalid(format!(
                "scales {s1} and {s2} into {so} give a multiplier TFLM's QuantizeMultiplierSmallerThanOneExp refuses (its Prepare aborts), or the {act:?} range overflows"
            ))
        })?;
    let params = add_params_tokens(cx, ty, &shape, &p);
    if out.dtype == DType::Int8 {
        let value = crate::kernels::AddS8 {
            shape: crate::kernels::BinaryShape {
                input1: cx.shape_n::<6>(a)?,
                input2: cx.shape_n::<6>(b)?,
                output: cx.shape_n::<6>(out)?,
            },
            left_shift: p.left_shift,
            input1_offset: p.input1_offset,
            input1: requant_value(p.input1),
            input2_offset: p.input2_offset,
            input2: requant_value(p.input2),
            output_offset: p.output_offset,
            output: requant_value(p.output),
            act_min: p.act_min,
            act_max: p.act_max,
        };
        return add_s8_call(cx, params, &value);
    }
    binary_call(cx, &f, params)
}

/// A `(multiplier, shift)` pair as the runtime's `Requant`.
fn requant_value((multiplier, shift): (i32, i32)) -> crate::kernels::Requant {
    crate::kernels::Requant { multiplier, shift }
}

/// The call of an int8 ADD with its loop chosen now by the runtime's own rule
/// (`kernels::add_kernel::add_s8_kernel`, its source compiled here) on the parameters `value`
/// (`params` their tokens): the constant `OP_N_KERNEL` beside them, named in its doc, and the
/// entries that take it (`proven::add_s8_with::<K>`, on one buffer
/// `proven::overlap::add_s8_with::<K>`), their checks asserted when the crate compiles.
fn add_s8_call(
    cx: &Lower<'_>,
    mut params: TokenStream,
    value: &crate::kernels::AddS8,
) -> Result<Call, Refusal> {
    use crate::kernels::add_kernel as rule;
    let k = cx.k();
    let pname = cx.params;
    let choice = rule::add_s8_kernel(value);
    cx.chose(KernelChoice {
        kernel: rule::name(choice),
        epilogue: None,
    });
    let kname = format_ident!("{pname}_KERNEL");
    let constant = format_ident!("{}", rule::name(choice).to_ascii_uppercase());
    let doc = if choice == rule::PORTABLE {
        format!(" The loop of {pname}: the portable walk, chosen when the crate compiled.")
    } else {
        format!(
            " The loop of {pname}: {}, on cores with the DSP extension (the portable walk \
             elsewhere), chosen when the crate compiled.",
            rule::name(choice)
        )
    };
    params.extend(quote!(
        #[doc = #doc]
        pub const #kname: u8 = #k::add_kernel::#constant;
    ));
    let Some((ia, oa)) = cx.overlap else {
        return Ok(Call {
            params: Some(params),
            body: quote!(#k::proven::add_s8_with::<{ params::#kname }>(&params::#pname, i0, i1, o0);),
            reads: vec![0, 1],
            check: Some(quote!(#k::check_add_s8_with::<#kname>(&#pname, i0, i1, o0))),
        });
    };
    let mut call = binary_call(cx, &quote!(add_s8), params)?;
    let (ia, oa) = (Literal::u64_unsuffixed(ia), Literal::u64_unsuffixed(oa));
    call.check = Some(quote!(#k::overlap::check_add_s8_with::<#kname>(&#pname, o0, #ia, #oa, i1)));
    call.body = quote!(
        #k::proven::overlap::add_s8_with::<{ params::#kname }>(&params::#pname, o0, #ia, #oa, i1);
    );
    Ok(call)
}
