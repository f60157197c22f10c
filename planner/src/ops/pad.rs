//! PAD and PADV2: TFLM's `pad.cc` / `pad_common.cc` (`PadPrepare`, `PadEval`; TFLM registers
//! the same kernel for both), for the kernel `stowplan::kernels::pad` (float32, int8, int16 and
//! int32, as `PadEval`). Without a third input the padding value is the output zero point for
//! int8 and 0 otherwise, as TFLM's; with one, its value (TFLM reads it when the op runs: a
//! constant becomes a literal, another tensor is read then too). With the output over the input
//! it consumes, `kernels::overlap::pad` on one view of both.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::overwrite::{self, Overwrite, Pairing, WriteOrder};
use super::{Call, Lower, OpKind, Refusal, invalid, kernel, unsupported, usize_lits};
use crate::graph::TensorInfo;
use crate::tflite::{DType, Model, Op};

/// PAD.
pub const PAD: OpKind = OpKind {
    overwrite: Some(OVERWRITE),
    ..kernel("pad", lower)
};

/// PADV2 (`Register_PADV2` is PAD's kernel).
pub const PADV2: OpKind = PAD;

/// PAD and PADV2 with constant paddings on one buffer (`kernels::overlap::pad`): the output
/// in order, each element written after the input element it covers is read.
const OVERWRITE: Overwrite = Overwrite {
    input: 0,
    order: WriteOrder::Pad,
    fits: "pad_fits",
    entries: &["pad"],
    pairing,
};

/// A PAD or PADV2 the runtime's `kernels::pad` runs (float32, int8, int16, int32) with
/// constant int32 paddings: from the padding written before the input's last element
/// (`kernels::overlap::pad_min_displacement`); `None` for paddings the shapes do not match.
fn pairing(model: &Model, file: &[u8], tensors: &[TensorInfo], op: &Op) -> Option<Pairing> {
    if !matches!(op.inputs.len(), 2 | 3) {
        return None;
    }
    let input = overwrite::operand(model, op, 0)?;
    let paddings = overwrite::operand(model, op, 1)?;
    let output = overwrite::only_output(model, op)?;
    if input.dtype != output.dtype
        || !matches!(
            input.dtype,
            DType::Float32 | DType::Int8 | DType::Int16 | DType::Int32
        )
    {
        return None;
    }
    let pads = overwrite::constant_i32s(model, file, paddings)?;
    let (i, o) = (
        overwrite::shape(tensors, input)?,
        overwrite::shape(tensors, output)?,
    );
    let r = i.len();
    if r > MAX_RANK || o.len() != r || pads.len() != 2 * r {
        return None;
    }
    let mut p = crate::kernels::Pad {
        input: [1; MAX_RANK],
        output: [1; MAX_RANK],
        before: [0; MAX_RANK],
    };
    for d in 0..r {
        let (b, a) = (
            usize::try_from(*pads.get(2 * d)?).ok()?,
            usize::try_from(*pads.get(2 * d + 1)?).ok()?,
        );
        let (in_d, out_d) = (*i.get(d)?, *o.get(d)?);
        if in_d.checked_add(b)?.checked_add(a)? != out_d {
            return None;
        }
        let at = MAX_RANK - r + d;
        *p.input.get_mut(at)? = in_d;
        *p.output.get_mut(at)? = out_d;
        *p.before.get_mut(at)? = b;
    }
    let d = crate::kernels::overlap::pad_min_displacement(&p)?;
    Some(Pairing {
        least: overwrite::bytes(d, input.dtype.element_bytes()?)?,
        preferred: 0,
        pixel: 0,
    })
}

/// TFLM's `PadKernelMaxDimensionCount()`.
const MAX_RANK: usize = 5;

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    if !matches!(cx.op.inputs.len(), 2 | 3) || cx.op.outputs.len() != 1 {
        return invalid(format!(
            "{} takes 2 or 3 inputs and 1 output (TFLM's Prepare)",
            cx.name()
        ));
    }
    let input = cx.input(0)?;
    let out = cx.output(0)?;
    cx.same_type(input, out)?;
    let paddings = cx.input(1)?;
    cx.expect_type(paddings, DType::Int32, "paddings")?;
    let pads = cx.const_ints(paddings)?;
    let ishape = cx.shape(input)?;
    let oshape = cx.shape(out)?;
    let r = ishape.len();
    if r > MAX_RANK || oshape.len() != r || pads.len() != 2 * r {
        return invalid(format!(
            "{} paddings for {} of rank {r} (TFLM's PAD takes ranks up to {MAX_RANK}, two paddings per dimension)",
            pads.len(),
            input.desc()
        ));
    }
    let mut before = [0usize; MAX_RANK];
    for (d, ((pair, &in_d), &out_d)) in pads.chunks_exact(2).zip(&ishape).zip(&oshape).enumerate() {
        let (b, a) = (
            pair.first().copied().unwrap_or(0),
            pair.get(1).copied().unwrap_or(0),
        );
        let (Ok(bu), Ok(au)) = (usize::try_from(b), usize::try_from(a)) else {
            return invalid(format!(
                "{} has a negative padding ({b}, {a})",
                paddings.desc()
            ));
        };
        if in_d.checked_add(bu).and_then(|v| v.checked_add(au)) != Some(out_d) {
            return invalid(format!(
                "{} has {out_d} in dimension {d}, not {in_d} + {b} + {a}",
                out.desc(),
            ));
        }
        if let Some(slot) = before.get_mut(MAX_RANK - r + d) {
            *slot = bu;
        }
    }
    let (value, reads) = pad_value(cx, out.dtype)?;
    let (i, o, b) = (
        usize_lits(&cx.shape_n::<MAX_RANK>(input)?),
        usize_lits(&cx.shape_n::<MAX_RANK>(out)?),
        usize_lits(&before),
    );
    let params = quote!(pub const #pname: #k::Pad = #k::Pad { input: #i, output: #o, before: #b };);
    if cx.overlap.is_some() {
        // The output over the input (`kernel_order::pad_of`): one view `o0` of both, the
        // one-buffer PAD, and a compile-time proof that the offsets suit it.
        return cx.checked_overlapped_call(
            &quote!(pad),
            params,
            |ia, oa| quote!(&#pname, #ia, #oa),
            &value,
            &quote!(),
            reads.into_iter().filter(|&r| r != 0).collect(),
            "at least the padding before its last element above",
        );
    }
    Ok(Call {
        params: Some(params),
        body: quote!(#k::proven::pad(&params::#pname, i0, #value, o0);),
        reads,
        check: Some(quote!(#k::check_pad(&#pname, i0, o0))),
    })
}

/// The padding value and the inputs the call reads: the third input (a literal when it is a
/// constant, else read from its view when the op runs), or TFLM's default.
fn pad_value(cx: &Lower<'_>, dtype: DType) -> Result<(TokenStream, Vec<usize>), Refusal> {
    let out = cx.output(0)?;
    let given = match cx.optional_input(2) {
        Some(t) => {
            // pad_common.cc:58-63: the input's type, one element.
            cx.same_type(t, out)?;
            if cx.elements(t)? != 1 {
                return invalid(format!("{} must hold one value", t.desc()));
            }
            // pad_common.cc:108-115: int8 values quantised as the output.
            if dtype == DType::Int8 {
                let (sv, zv) = cx.quant(t)?;
                let (so, zo) = cx.quant(out)?;
                if zv != zo || f64::from(sv) != f64::from(so) {
                    return invalid(format!(
                        "{} is quantised ({sv}, {zv}) and {} ({so}, {zo}); TFLM's PAD needs them equal",
                        t.desc(),
                        out.desc()
                    ));
                }
            }
            match cx.backed(t)? {
                Some(data) => Some(data),
                // Read when the op runs, as TFLM does.
                None => {
                    return Ok((
                        quote!(match i2.first() {
                            ::core::option::Option::Some(&v) => v,
                            ::core::option::Option::None => ::core::default::Default::default(),
                        }),
                        vec![0, 2],
                    ));
                }
            }
        }
        None => None,
    };
    let le = |n: usize| -> [u8; 4] {
        let mut b = [0u8; 4];
        if let Some(d) = given {
            for (x, y) in b.iter_mut().zip(d.iter().take(n)) {
                *x = *y;
            }
        }
        b
    };
    let value = match dtype {
        DType::Float32 => {
            let v = f32::from_le_bytes(le(4));
            if v.is_finite() {
                let l = Literal::f32_suffixed(v);
                quote!(#l)
            } else {
                let bits = Literal::u32_suffixed(v.to_bits());
                quote!(f32::from_bits(#bits))
            }
        }
        DType::Int8 => {
            let v = if given.is_some() {
                i8::from_le_bytes([le(1)[0]])
            } else {
                // TFLM: `static_cast<uint8_t>(output_zero_point)` stored into an int8 (0 without
                // quantisation); the zero point is an int8 value (checked when read).
                let zp = out
                    .quantization
                    .as_ref()
                    .and_then(|q| q.zero_point.first().copied())
                    .unwrap_or(0);
                i8::try_from(zp).unwrap_or(0)
            };
            let l = Literal::i8_suffixed(v);
            quote!(#l)
        }
        DType::Int16 => {
            let b = le(2);
            let l = Literal::i16_suffixed(i16::from_le_bytes([b[0], b[1]]));
            quote!(#l)
        }
        DType::Int32 => {
            let l = Literal::i32_suffixed(i32::from_le_bytes(le(4)));
            quote!(#l)
        }
        other => {
            return unsupported(format!(
                "the runtime has no {} kernel for {other} (TFLM's takes float32, int8, int16 and int32)",
                cx.name()
            ));
        }
    };
    Ok((value, vec![0]))
}
