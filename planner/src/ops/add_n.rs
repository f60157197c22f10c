//! ADD_N: TFLM's `add_n.cc` (`CalculateOpData`), for the kernels `stowplan::kernels::add_n_f32`
//! and `add_n_s8`. TFLM's Prepare requests a scratch buffer of one pointer per input (8 bytes
//! each on the 64-bit host, where TFLM's Python interpreter runs; 4 on a 32-bit target).

use quote::{format_ident, quote};

use super::{Call, Lower, OpKind, Refusal, i32_lit, input, invalid, output, requant};
use crate::quant;
use crate::tflite::{DType, Model, Op};

/// ADD_N.
pub const ADD_N: OpKind = OpKind {
    module: "add_n",
    in_place: false,
    tflm_scratch: scratch,
    scratch: super::no_scratch,
    lower: Some(lower),
    fold: None,
    state: None,
    overwrite: None,
};

/// The size of a pointer on the host TFLM runs on (`sizeof(float*)`).
const POINTER_BYTES: u64 = 8;

/// add_n.cc:67-82: `sizeof(T*) * num_inputs` for float32 and int8 outputs.
fn scratch(model: &Model, op: &Op) -> Option<Vec<u64>> {
    let out = output(model, op, 0)?;
    input(model, op, 0)?;
    if !matches!(out.dtype, DType::Float32 | DType::Int8) || op.inputs.len() < 2 {
        return None;
    }
    Some(vec![POINTER_BYTES.checked_mul(op.inputs.len() as u64)?])
}

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let n = cx.op.inputs.len();
    // add_n.cc:40-41
    if n < 2 || cx.op.outputs.len() != 1 {
        return invalid(format!(
            "ADD_N has {n} inputs and {} outputs; TFLM's Prepare needs at least 2 and 1",
            cx.op.outputs.len()
        ));
    }
    let first = cx.input(0)?;
    let out = cx.output(0)?;
    // add_n.cc:51-64: the output's type is the first input's; every input has its shape and
    // type, and for int8 its scale and zero point.
    cx.same_type(out, first)?;
    let shape = cx.shape(first)?;
    for i in 1..n {
        let t = cx.input(i)?;
        if cx.shape(t)? != shape {
            return invalid(format!(
                "{} has shape {:?}, {} {:?}; TFLM's ADD_N needs them equal",
                t.desc(),
                t.shape,
                first.desc(),
                first.shape
            ));
        }
        cx.same_type(first, t)?;
        if first.dtype == DType::Int8 && cx.quant(t)? != cx.quant(first)? {
            return invalid(format!(
                "{} and {} differ in scale or zero point; TFLM's int8 ADD_N needs them equal",
                t.desc(),
                first.desc()
            ));
        }
    }
    if cx.elements(out)? != cx.elements(first)? {
        return invalid(format!(
            "{} and {} differ in size",
            out.desc(),
            first.desc()
        ));
    }
    let views = (0..n).map(|i| format_ident!("i{i}"));
    let inputs = quote!(&[#(#views),*]);
    match out.dtype {
        DType::Float32 => Ok(Call {
            params: None,
            body: quote!(#k::proven::add_n_f32(#inputs, o0);),
            reads: (0..n).collect(),
            check: Some(quote!(#k::check_add_n_f32(#inputs, o0))),
        }),
        DType::Int8 => {
            let (s, z) = cx.quant(first)?;
            let (so, zo) = cx.quant(out)?;
            // add_n.cc:86-99
            let twice_max_input_scale = 2.0 * f64::from(s);
            let real_input_multiplier = f64::from(s) / twice_max_input_scale;
            let real_output_multiplier =
                twice_max_input_scale / (f64::from(1_i32 << 20) * f64::from(so));
            let refused = |real: f64| {
                Refusal::Invalid(format!(
                    "a multiplier of {real} for ADD_N, which TFLM's QuantizeMultiplierSmallerThanOneExp refuses (its Prepare aborts)"
                ))
            };
            let mi = quant::quantize_multiplier_smaller_than_one_exp(real_input_multiplier)
                .ok_or_else(|| refused(real_input_multiplier))?;
            let mo = quant::quantize_multiplier_smaller_than_one_exp(real_output_multiplier)
                .ok_or_else(|| refused(real_output_multiplier))?;
            let (mi, mo) = (requant(cx.rt, mi), requant(cx.rt, mo));
            let (io, oo) = (i32_lit(z.wrapping_neg()), i32_lit(zo));
            // add_n.cc:100-102: no activation, the int8 range.
            Ok(Call {
                params: Some(quote!(pub const #pname: #k::AddNS8 = #k::AddNS8 {
                    left_shift: 20, input_offset: #io, input: #mi,
                    output_offset: #oo, output: #mo, act_min: -128, act_max: 127,
                };)),
                body: quote!(#k::proven::add_n_s8(&params::#pname, #inputs, o0);),
                reads: (0..n).collect(),
                check: Some(quote!(#k::check_add_n_s8(&#pname, #inputs, o0))),
            })
        }
        other => invalid(format!(
            "ADD_N of {other}; TFLM's Prepare takes float32 and int8 only"
        )),
    }
}
