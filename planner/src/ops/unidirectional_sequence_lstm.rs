//! UNIDIRECTIONAL_SEQUENCE_LSTM: TFLM's `unidirectional_sequence_lstm.cc` and
//! `lstm_eval_common.cc` (`UnidirectionalSequenceLstmPrepare`, `LstmTensors::
//! ValidateTensorStatus`, `CreateLstmSizeInfo`, `ValidateTensorSize`,
//! `PrepareGateParametersInteger`, `CreateGateParams`, `CreateInterGateMulParams`,
//! `CreateLstmCellStateInfo`), for the kernels
//! `stowplan::kernels::unidirectional_sequence_lstm_s8` (int8 activations, int8 weights, int32
//! biases, int16 cell), `unidirectional_sequence_lstm_s16` (int16 activations, int8 weights,
//! int64 biases, int16 cell) and `unidirectional_sequence_lstm_f32`.
//!
//! The hidden state (input 18) and cell state (input 19) are variable tensors in the persistent
//! region, handed to the kernel as `m18` and `m19`. TFLM's reference kernel requests four
//! scratch buffers of the cell state's bytes; stowplan's kernel computes a step cell by cell and
//! needs none.

use proc_macro2::TokenStream;
use quote::quote;

use super::{
    Call, Lower, OpKind, Refusal, dims, f32_lit, i32_lit, input, invalid, no_scratch, requant,
    unsupported,
};
use crate::quant;
use crate::tflite::{Activation, DType, Model, Op, OpOptions, Tensor};

/// UNIDIRECTIONAL_SEQUENCE_LSTM.
pub const UNIDIRECTIONAL_SEQUENCE_LSTM: OpKind = OpKind {
    module: "unidirectional_sequence_lstm",
    in_place: false,
    tflm_scratch: scratch,
    scratch: no_scratch,
    lower: Some(lower),
    fold: None,
    state: None,
    overwrite: None,
};

fn scratch(model: &Model, op: &Op) -> Option<Vec<u64>> {
    let cell_state = input(model, op, 19)?;
    let elements = dims(cell_state)?
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))?;
    let bytes = elements.checked_mul(cell_state.dtype.element_bytes()?)?;
    Some(vec![bytes; 4])
}

/// The input tensors' roles, by index (`lstm_shared.h`).
const NAMES: [&str; 24] = [
    "input",
    "input_to_input_weights",
    "input_to_forget_weights",
    "input_to_cell_weights",
    "input_to_output_weights",
    "recurrent_to_input_weights",
    "recurrent_to_forget_weights",
    "recurrent_to_cell_weights",
    "recurrent_to_output_weights",
    "cell_to_input_weights",
    "cell_to_forget_weights",
    "cell_to_output_weights",
    "input_gate_bias",
    "forget_gate_bias",
    "cell_gate_bias",
    "output_gate_bias",
    "projection_weights",
    "projection_bias",
    "output_state",
    "cell_state",
    "input_layer_norm_coefficients",
    "forget_layer_norm_coefficients",
    "cell_layer_norm_coefficients",
    "output_layer_norm_coefficients",
];

/// The inputs the kernel reads (the states are handed over mutably).
const READS: [usize; 13] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 15];

/// The nonlinear input scale of TFLM's integer gates, Q3.12 (`2^-12`).
const GATE_INPUT_SCALE: f32 = 1.0 / 4096.0;
/// The nonlinear output scale, Q0.15 (`2^-15`).
const GATE_OUTPUT_SCALE: f32 = 1.0 / 32768.0;

/// A float option as tokens, infinities and NaN included.
fn f32_tokens(v: f32) -> TokenStream {
    if v.is_nan() {
        quote!(::core::f32::NAN)
    } else if v == f32::INFINITY {
        quote!(::core::f32::INFINITY)
    } else if v == f32::NEG_INFINITY {
        quote!(::core::f32::NEG_INFINITY)
    } else {
        f32_lit(v).unwrap_or_else(|_| quote!(::core::f32::NAN))
    }
}

fn name(i: usize) -> &'static str {
    NAMES.get(i).copied().unwrap_or("input")
}

/// A dimension TFLM checks with `TF_LITE_ENSURE_EQ`.
fn expect(t: &Tensor, role: &str, what: &str, got: usize, want: usize) -> Result<(), Refusal> {
    if got == want {
        Ok(())
    } else {
        invalid(format!(
            "{} ({role}) has {what} {got}; the LSTM needs {want} (TFLM's Prepare fails)",
            t.desc()
        ))
    }
}

/// TFLM's `CreateLstmCellStateInfo` (`lstm_eval_common.cc`): the cell scale's rounded
/// `CheckedLog2` (its power-of-two test ignored) and the clip `cell_clip / cell_scale` in
/// double, clamped to int16 and truncated (a NaN converts as x86-64 does, to 0).
#[must_use]
pub fn cell_state_info(cell_state_scale: f32, cell_clip: f32) -> (i16, i32) {
    let (_, power) = quant::checked_log2(cell_state_scale);
    let q = f64::from(cell_clip) / f64::from(cell_state_scale);
    // std::max(q, -32768.0) then std::min(.., 32767.0): NaN stays NaN.
    let q = if q < -32_768.0 { -32_768.0 } else { q };
    let q = if 32_767.0 < q { 32_767.0 } else { q };
    let quantized = if q.is_nan() { 0 } else { q as i16 };
    (quantized, power)
}

/// TFLM's `CreateInterGateMulParams`: `QuantizeMultiplier((double)s1 * (double)s2 /
/// (double)output_scale)` and the output type's range.
fn mul_params(
    cx: &Lower<'_>,
    input1_scale: f32,
    input2_scale: f32,
    output_scale: f32,
    output_type: DType,
    output_zp: i32,
) -> TokenStream {
    let k = cx.k();
    let (lo, hi) = match output_type {
        DType::Int16 => (i32::from(i16::MIN), i32::from(i16::MAX)),
        DType::Int8 => (i32::from(i8::MIN), i32::from(i8::MAX)),
        _ => (0, 0),
    };
    let m = requant(
        cx.rt,
        quant::mul_multiplier(input1_scale, input2_scale, output_scale),
    );
    let (zp, lo, hi) = (i32_lit(output_zp), i32_lit(lo), i32_lit(hi));
    quote!(#k::LstmMul { output_offset: #zp, requant: #m, act_min: #lo, act_max: #hi })
}

/// TFLM's `CalculateOpDataFullyConnected` for one of a gate's products (no activation, the
/// output a symmetric int16 of scale 2^-12) and `FullyConnectedParamsQuantized`.
fn fc_params(cx: &Lower<'_>, x: &Tensor, w: &Tensor) -> Result<TokenStream, Refusal> {
    let k = cx.k();
    let scales = cx.scales(w)?;
    if scales.len() > 1 {
        return unsupported(format!(
            "{} is quantised per channel: TFLM's LSTM then leaves the gate's multiplier uninitialised",
            w.desc()
        ));
    }
    let (x_scale, _) = cx.quant(x)?;
    let (w_scale, _) = cx.quant(w)?;
    // GetQuantizedConvolutionMultipler without a bias: `input_scale × weights_scale /
    // output_scale`. The source at 90b983c2 multiplies the two scales in float first; the
    // wheel's build converts each to double (objdump of its _runtime.so: cvtss2sd, cvtss2sd,
    // mulsd, divsd), which is `mul_multiplier`'s formula.
    let m = quant::mul_multiplier(x_scale, w_scale, GATE_INPUT_SCALE);
    let (lo, hi) = quant::activation_range_quantized(
        quant::FusedActivation::None,
        GATE_INPUT_SCALE,
        0,
        i32::from(i16::MIN),
        i32::from(i16::MAX),
    )
    .unwrap_or((i32::from(i16::MIN), i32::from(i16::MAX)));
    let (io, wo) = (i32_lit(cx.offset(x)?), i32_lit(cx.offset(w)?));
    let m = requant(cx.rt, m);
    let (lo, hi) = (i32_lit(lo), i32_lit(hi));
    Ok(quote!(#k::LstmFc {
        input_offset: #io, weights_offset: #wo, output_offset: 0, requant: #m,
        act_min: #lo, act_max: #hi,
    }))
}

#[allow(clippy::too_many_lines)]
fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    let k = cx.k();
    let pname = cx.params;
    let OpOptions::UnidirectionalSequenceLstm {
        activation,
        cell_clip,
        time_major,
        ..
    } = cx.op.options
    else {
        return invalid("its UnidirectionalSequenceLSTMOptions are missing");
    };
    if cx.op.outputs.len() != 1 {
        return invalid(format!(
            "the LSTM has {} outputs; TFLM's Prepare needs 1",
            cx.op.outputs.len()
        ));
    }
    if cx.op.inputs.len() != 24 {
        return invalid(format!(
            "the LSTM has {} inputs; TFLM's Prepare needs 24",
            cx.op.inputs.len()
        ));
    }
    // LstmTensors::ValidateTensorStatus.
    let x = cx.input(0)?;
    let hidden = cx.input(18)?;
    let cell = cx.input(19)?;
    let out = cx.output(0)?;
    for (t, i) in [(hidden, 18), (cell, 19)] {
        if !t.is_variable {
            return invalid(format!(
                "{} ({}) is not a variable tensor (TFLM's Prepare fails)",
                t.desc(),
                name(i)
            ));
        }
    }
    cx.same_type(hidden, x)?;
    cx.same_type(out, x)?;
    let weights: Vec<&Tensor> = (1..9)
        .map(|i| {
            cx.optional_input(i).ok_or_else(|| {
                Refusal::Invalid(format!(
                    "{} (input {i}) is omitted: TFLM's LSTM needs all four gates' weights (no CIFG)",
                    name(i)
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    let weight_type = weights.get(1).map_or(DType::Int8, |w| w.dtype);
    for (i, w) in (1..9).zip(&weights) {
        if w.dtype != weight_type {
            return invalid(format!(
                "{} ({}) is {}, the forget gate's weights {weight_type}: TFLM's Prepare needs one type",
                w.desc(),
                name(i),
                w.dtype
            ));
        }
    }
    let biases: Vec<&Tensor> = (12..16)
        .map(|i| {
            cx.optional_input(i).ok_or_else(|| {
                Refusal::Invalid(format!(
                    "{} (input {i}) is omitted: TFLM's LSTM needs all four gate biases",
                    name(i)
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    let bias_type = biases.get(1).map_or(DType::Int32, |b| b.dtype);
    for (i, b) in (12..16).zip(&biases) {
        if b.dtype != bias_type {
            return invalid(format!(
                "{} ({}) is {}, the forget gate's bias {bias_type}: TFLM's Prepare needs one type",
                b.desc(),
                name(i),
                b.dtype
            ));
        }
    }
    for (i, what) in [
        (9, "peephole"),
        (10, "peephole"),
        (11, "peephole"),
        (16, "projection"),
        (17, "projection"),
        (20, "layer normalisation"),
        (21, "layer normalisation"),
        (22, "layer normalisation"),
        (23, "layer normalisation"),
    ] {
        if let Some(t) = cx.optional_input(i) {
            return invalid(format!(
                "{} ({}) is given: TFLM's LSTM kernel has no {what} (its Prepare fails)",
                t.desc(),
                name(i)
            ));
        }
    }
    for &i in &READS {
        if let Some(t) = cx.optional_input(i)
            && t.is_variable
        {
            return unsupported(format!(
                "{} ({}) is a variable tensor; the kernel reads it as a plain input",
                t.desc(),
                name(i)
            ));
        }
    }
    // CreateLstmSizeInfo and ValidateTensorSize.
    let xs = cx.shape(x)?;
    let hs = cx.shape(hidden)?;
    let (Some(&d0), Some(&d1), Some(&input_dim)) = (xs.first(), xs.get(1), xs.get(2)) else {
        return invalid(format!(
            "{} has shape {xs:?}; the LSTM reads three dimensions",
            x.desc()
        ));
    };
    let Some(&state_dim) = hs.get(1) else {
        return invalid(format!(
            "{} (output_state) has shape {hs:?}; TFLM reads its second dimension",
            hidden.desc()
        ));
    };
    let (batch, time) = if time_major { (d1, d0) } else { (d0, d1) };
    for (i, w) in (1..9).zip(&weights) {
        let ws = cx.shape(w)?;
        let want = if i < 5 { input_dim } else { state_dim };
        if ws.len() != 2 {
            return invalid(format!(
                "{} ({}) has shape {ws:?}; the LSTM needs [{state_dim}, {want}] (TFLM's Prepare fails)",
                w.desc(),
                name(i)
            ));
        }
        expect(
            w,
            name(i),
            "rows",
            ws.first().copied().unwrap_or(0),
            state_dim,
        )?;
        expect(w, name(i), "columns", ws.get(1).copied().unwrap_or(0), want)?;
        cx.backed(w)?;
    }
    for (i, b) in (12..16).zip(&biases) {
        let bs = cx.shape(b)?;
        if bs.len() != 1 {
            return invalid(format!(
                "{} ({}) has shape {bs:?}; the LSTM needs [{state_dim}] (TFLM's Prepare fails)",
                b.desc(),
                name(i)
            ));
        }
        expect(
            b,
            name(i),
            "size",
            bs.first().copied().unwrap_or(0),
            state_dim,
        )?;
        cx.backed(b)?;
    }
    let states = batch
        .checked_mul(state_dim)
        .ok_or_else(|| Refusal::Invalid(format!("{} × {} overflows", x.desc(), hidden.desc())))?;
    expect(
        hidden,
        "output_state",
        "elements",
        cx.elements(hidden)?,
        states,
    )?;
    expect(cell, "cell_state", "elements", cx.elements(cell)?, states)?;
    let os = cx.shape(out)?;
    if os.len() != 3 {
        return invalid(format!(
            "{} has shape {os:?}; the LSTM's output needs rank 3 (TFLM's Prepare fails)",
            out.desc()
        ));
    }
    expect(
        out,
        "output",
        "first dimension",
        os.first().copied().unwrap_or(0),
        d0,
    )?;
    expect(
        out,
        "output",
        "second dimension",
        os.get(1).copied().unwrap_or(0),
        d1,
    )?;
    expect(
        out,
        "output",
        "last dimension",
        os.get(2).copied().unwrap_or(0),
        state_dim,
    )?;
    // The kernel reads `time × batch × input` values of the input and writes as many rows of
    // the output (the planned shapes hold at least that: checked above and here).
    let needed = time
        .checked_mul(batch)
        .and_then(|n| n.checked_mul(input_dim))
        .ok_or_else(|| Refusal::Invalid(format!("{}'s size overflows", x.desc())))?;
    if cx.elements(x)? < needed {
        return invalid(format!(
            "{} holds {} values, fewer than {needed}",
            x.desc(),
            cx.elements(x)?
        ));
    }

    let size = quote!(#k::LstmSize {
        time_major: #time_major, batch_size: #batch, time_steps: #time,
        input_dimension: #input_dim, state_dimension: #state_dim,
    });
    let cell_gate_tanh = activation == Activation::Tanh;
    let w = |i: usize| quote::format_ident!("i{i}");
    let (w1, w2, w3, w4, w5, w6, w7, w8) = (w(1), w(2), w(3), w(4), w(5), w(6), w(7), w(8));
    let (b12, b13, b14, b15) = (w(12), w(13), w(14), w(15));
    let weight_views = quote!(&#k::LstmWeights {
        input: [#w1, #w2, #w3, #w4],
        recurrent: [#w5, #w6, #w7, #w8],
        bias: [#b12, #b13, #b14, #b15],
    });
    let weight_lens = quote!([#w1, #w2, #w3, #w4, #w5, #w6, #w7, #w8, #b12, #b13, #b14, #b15]);
    let reads = READS.to_vec();

    // The cell state's type decides the path (Prepare), the input's the kernel (Eval).
    match (cell.dtype, x.dtype) {
        (DType::Float32, DType::Float32) => {
            if weight_type != DType::Float32 || bias_type != DType::Float32 {
                return unsupported(format!(
                    "a float LSTM with {weight_type} weights and {bias_type} biases (TFLM's kernel reads them as float)"
                ));
            }
            let clip = f32_tokens(cell_clip);
            Ok(Call {
                params: Some(quote!(pub const #pname: #k::LstmF32 = #k::LstmF32 {
                    size: #size, cell_clip: #clip, cell_gate_tanh: #cell_gate_tanh,
                };)),
                body: quote!(#k::proven::unidirectional_sequence_lstm_f32(&params::#pname, i0, #weight_views, m18, m19, o0);),
                reads,
                check: Some(
                    quote!(#k::check_unidirectional_sequence_lstm_f32(&#pname, i0, #weight_lens, m18, m19, o0)),
                ),
            })
        }
        (DType::Int16, DType::Int8 | DType::Int16) => {
            let (f, want_bias) = if x.dtype == DType::Int8 {
                (quote!(unidirectional_sequence_lstm_s8), DType::Int32)
            } else {
                (quote!(unidirectional_sequence_lstm_s16), DType::Int64)
            };
            if weight_type != DType::Int8 {
                return invalid(format!(
                    "the LSTM's weights are {weight_type}; TFLM's {} LSTM takes int8 weights (its Eval fails)",
                    x.dtype
                ));
            }
            if bias_type != want_bias {
                return unsupported(format!(
                    "an {} LSTM with {bias_type} biases (TFLM's kernel reads them as {want_bias})",
                    x.dtype
                ));
            }
            // PrepareGateParametersInteger: each gate's two products, then the products
            // between gates.
            let mut gates = Vec::new();
            for g in 0..4 {
                let wi = weights
                    .get(g)
                    .copied()
                    .ok_or_else(|| Refusal::Invalid("weights".into()))?;
                let wr = weights
                    .get(g + 4)
                    .copied()
                    .ok_or_else(|| Refusal::Invalid("weights".into()))?;
                let input_fc = fc_params(cx, x, wi)?;
                let recurrent_fc = fc_params(cx, hidden, wr)?;
                gates.push(
                    quote!(#k::LstmGate { input_fc: #input_fc, recurrent_fc: #recurrent_fc }),
                );
            }
            let (cell_scale, _) = cx.quant(cell)?;
            let (hidden_scale, hidden_zp) = cx.quant(hidden)?;
            let forget_cell_mul = mul_params(
                cx,
                GATE_OUTPUT_SCALE,
                cell_scale,
                cell_scale,
                DType::Int16,
                0,
            );
            let input_mul = mul_params(
                cx,
                GATE_OUTPUT_SCALE,
                GATE_OUTPUT_SCALE,
                cell_scale,
                DType::Int16,
                0,
            );
            let output_mul = mul_params(
                cx,
                GATE_OUTPUT_SCALE,
                GATE_OUTPUT_SCALE,
                hidden_scale,
                hidden.dtype,
                hidden_zp,
            );
            let (quantized_clip, power) = cell_state_info(cell_scale, cell_clip);
            let clip = f32_tokens(cell_clip);
            let (qc, power) = (
                proc_macro2::Literal::i16_unsuffixed(quantized_clip),
                i32_lit(power),
            );
            let [ig, fg, cg, og] = <[TokenStream; 4]>::try_from(gates)
                .map_err(|_| Refusal::Invalid("gates".into()))?;
            Ok(Call {
                params: Some(
                    quote!(pub const #pname: #k::LstmQuantized = #k::LstmQuantized {
                    size: #size,
                    cell_state: #k::LstmCellState {
                        cell_clip: #clip, quantized_cell_clip: #qc, cell_state_scale_power: #power,
                    },
                    cell_gate_tanh: #cell_gate_tanh,
                    forget_gate: #fg, input_gate: #ig, cell_gate: #cg, output_gate: #og,
                    forget_cell_mul: #forget_cell_mul, input_mul: #input_mul, output_mul: #output_mul,
                };),
                ),
                body: quote!(#k::proven::#f(&params::#pname, i0, #weight_views, m18, m19, o0);),
                reads,
                check: Some({
                    let check_f = quote::format_ident!("check_{}", f.to_string());
                    quote!(#k::#check_f(&#pname, i0, #weight_lens, m18, m19, o0))
                }),
            })
        }
        (DType::Float32 | DType::Int16, other) => {
            if matches!(other, DType::Float32 | DType::Int8 | DType::Int16) {
                unsupported(format!(
                    "an LSTM with {other} activations and a {} cell state (TFLM's kernel reads the cell state as another type)",
                    cell.dtype
                ))
            } else {
                invalid(format!(
                    "{} is {other}; TFLM's LSTM takes float32, int8 or int16 input (its Eval fails)",
                    x.desc()
                ))
            }
        }
        (other, _) => invalid(format!(
            "{} (cell_state) is {other}; TFLM's LSTM takes an int16 or float32 cell state (its Prepare fails)",
            cell.desc()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_state_info_is_tflms() {
        // 2^-11: power -11; 10 / 2^-11 = 20480.
        assert_eq!(cell_state_info(1.0 / 2048.0, 10.0), (20480, -11));
        // A clip beyond int16 saturates; 0 stays 0.
        assert_eq!(cell_state_info(1.0 / 4096.0, 100.0), (32767, -12));
        assert_eq!(cell_state_info(1.0 / 4096.0, 0.0), (0, -12));
        assert_eq!(cell_state_info(1.0 / 4096.0, -100.0), (-32768, -12));
        assert_eq!(cell_state_info(1.0, f32::NAN).0, 0);
        // Not a power of two: the nearest power (log2(0.1) = -3.32); the float 0.1 is above
        // 0.1, so 1 / 0.1 is 9.99.. and truncates to 9.
        assert_eq!(cell_state_info(0.1, 1.0), (9, -3));
    }
}
