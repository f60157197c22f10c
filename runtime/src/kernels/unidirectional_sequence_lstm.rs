//! UNIDIRECTIONAL_SEQUENCE_LSTM: TFLM's `EvalLstm` (`tensorflow/lite/micro/kernels/lstm_eval.h`,
//! `lstm_eval.cc`) as `unidirectional_sequence_lstm.cc` runs it: int8 activations with int8
//! weights, int32 biases and an int16 cell state ("8x8->16"), int16 activations with int8
//! weights, int64 biases and an int16 cell state ("16x8->16"), and float32.
//!
//! TFLM's kernel is the standard LSTM: all four gates (no CIFG), no peephole, projection or
//! layer normalisation (its `Prepare` refuses them). Each step, for each cell:
//!
//! ```text
//! forget = sigmoid(FC(x, W_f, b_f) + FC(h, R_f))
//! input  = sigmoid(FC(x, W_i, b_i) + FC(h, R_i))
//! gate   = tanh(FC(x, W_c, b_c) + FC(h, R_c))      (the options' activation; see below)
//! cell   = clip(forget * cell + input * gate)       (clipped when cell_clip > 0)
//! output = sigmoid(FC(x, W_o, b_o) + FC(h, R_o))
//! h      = tanh(cell) * output
//! ```
//!
//! the new `h` being the step's output row. The cell gate's activation is the options'
//! `fused_activation_function`: TANH applies tanh; TFLM's `CalculateLstmGate` handles only
//! sigmoid and tanh and otherwise reaches `TFLITE_ASSERT_FALSE`, a no-op in its release build
//! (`NDEBUG`), so any other activation applies none, as here.
//!
//! The hidden and cell states are variable tensors the op updates in place. See
//! [`lstm_eval`](super::lstm_eval) for why no scratch is needed.

use super::lstm_eval::{
    LstmFc, LstmMul, LstmSize, add_f32, add_s16, clamp_f32, clip_f32, clip_s16, drive, fc_f32,
    fc_s8, fc_s16, mul_f32, mul_s16, sigmoid_f32, sigmoid_s16, tanh_f32, tanh_s16,
};
use super::shared::check::{KernelError, check, elements, length};

/// The two fully connected products of one gate (TFLM's `GateParameters`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LstmGate {
    /// The input's product (`input_fc_params`), with the gate's bias.
    pub input_fc: LstmFc,
    /// The hidden state's product (`recurrent_fc_params`), without bias.
    pub recurrent_fc: LstmFc,
}

/// The quantised cell state (TFLM's `CellStateInfo`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LstmCellState {
    /// The options' `cell_clip`: the cell is clipped when it is above 0.
    pub cell_clip: f32,
    /// `cell_clip / cell_scale`, clamped to int16 and truncated.
    pub quantized_cell_clip: i16,
    /// The rounded `log2` of the cell scale (`CheckedLog2`): the tanh of the cell reads it
    /// as `Q(15 + power).(-power)`.
    pub cell_state_scale_power: i32,
}

/// Parameters of an integer LSTM (TFLM's `OpDataLSTM` from `PrepareGateParametersInteger`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LstmQuantized {
    /// The sizes.
    pub size: LstmSize,
    /// The cell state.
    pub cell_state: LstmCellState,
    /// The cell gate's activation is tanh (else none).
    pub cell_gate_tanh: bool,
    /// The forget gate.
    pub forget_gate: LstmGate,
    /// The input gate.
    pub input_gate: LstmGate,
    /// The cell gate.
    pub cell_gate: LstmGate,
    /// The output gate.
    pub output_gate: LstmGate,
    /// forget gate (Q0.15) × cell -> cell.
    pub forget_cell_mul: LstmMul,
    /// input gate (Q0.15) × cell gate (Q0.15) -> cell.
    pub input_mul: LstmMul,
    /// tanh(cell) (Q0.15) × output gate (Q0.15) -> hidden state.
    pub output_mul: LstmMul,
}

/// Parameters of a float LSTM (TFLM's `OpDataLSTM` from `PrepareGateParametersFloat`: every
/// product and multiplication clamped to `[lowest, max]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LstmF32 {
    /// The sizes.
    pub size: LstmSize,
    /// The options' `cell_clip`: the cell is clipped to `[-cell_clip, cell_clip]` when it is
    /// above 0.
    pub cell_clip: f32,
    /// The cell gate's activation is tanh (else none).
    pub cell_gate_tanh: bool,
}

/// An LSTM's weights and biases, each array in the order of TFLM's tensors: the input, forget,
/// cell and output gates.
#[derive(Clone, Copy, Debug)]
pub struct LstmWeights<'a, W, B> {
    /// Input-to-gate weights, `[cells, input]` each (inputs 1 to 4).
    pub input: [&'a [W]; 4],
    /// Recurrent (hidden-to-gate) weights, `[cells, cells]` each (inputs 5 to 8).
    pub recurrent: [&'a [W]; 4],
    /// Gate biases, `[cells]` each (inputs 12 to 15).
    pub bias: [&'a [B]; 4],
}

/// The gates in TFLM's tensor order.
const INPUT: usize = 0;
const FORGET: usize = 1;
const CELL: usize = 2;
const OUTPUT: usize = 3;

/// Row `c` of a `[rows, n]` matrix (empty past its end, or where the bounds overflow).
fn row<T>(m: &[T], c: usize, n: usize) -> &[T] {
    let bounds = c
        .checked_mul(n)
        .zip(c.checked_add(1).and_then(|e| e.checked_mul(n)));
    bounds.and_then(|(a, b)| m.get(a..b)).unwrap_or(&[])
}

/// The integer LSTM for activations of type `A` and biases of type `B`.
trait Activation: Copy {
    type Bias: Copy;
    /// One gate's input product plus recurrent product, saturated (before the activation).
    #[allow(clippy::too_many_arguments)]
    fn gate(
        gate: &LstmGate,
        x: &[Self],
        h: &[Self],
        w: &[i8],
        r: &[i8],
        bias: Option<Self::Bias>,
    ) -> i16;
    /// The hidden state's value from the multiplication's widened result.
    fn narrow(v: i32) -> Self;
}

impl Activation for i8 {
    type Bias = i32;
    fn gate(g: &LstmGate, x: &[i8], h: &[i8], w: &[i8], r: &[i8], bias: Option<i32>) -> i16 {
        add_s16(
            fc_s8(&g.input_fc, x, w, bias),
            fc_s8(&g.recurrent_fc, h, r, None),
        )
    }
    fn narrow(v: i32) -> i8 {
        v as i8
    }
}

impl Activation for i16 {
    type Bias = i64;
    fn gate(g: &LstmGate, x: &[i16], h: &[i16], w: &[i8], r: &[i8], bias: Option<i64>) -> i16 {
        add_s16(
            fc_s16(&g.input_fc, x, w, bias),
            fc_s16(&g.recurrent_fc, h, r, None),
        )
    }
    fn narrow(v: i32) -> i16 {
        v as i16
    }
}

fn lstm_integer<A: Activation>(
    p: &LstmQuantized,
    input: &[A],
    w: &LstmWeights<'_, i8, A::Bias>,
    hidden: &mut [A],
    cell: &mut [i16],
    output: &mut [A],
) {
    let (n_input, n_state) = (p.size.input_dimension, p.size.state_dimension);
    let gates = [&p.input_gate, &p.forget_gate, &p.cell_gate, &p.output_gate];
    let clip = p.cell_state.cell_clip > 0.0;
    let power = p.cell_state.cell_state_scale_power;
    drive(&p.size, input, hidden, cell, output, |x, h, cells, out| {
        // Gate `g` (a constant below 4) at cell `c`.
        let gate = |g: usize, c: usize| -> i16 {
            let (Some(params), Some(wi), Some(wr), Some(b)) = (
                gates.get(g),
                w.input.get(g),
                w.recurrent.get(g),
                w.bias.get(g),
            ) else {
                return 0;
            };
            A::gate(
                params,
                x,
                h,
                row(wi, c, n_input),
                row(wr, c, n_state),
                b.get(c).copied(),
            )
        };
        for (c, (cell, out)) in cells.iter_mut().zip(out.iter_mut()).enumerate() {
            let forget = sigmoid_s16(gate(FORGET, c));
            let input_gate = sigmoid_s16(gate(INPUT, c));
            let cell_gate = gate(CELL, c);
            let cell_gate = if p.cell_gate_tanh {
                tanh_s16(-12, cell_gate)
            } else {
                cell_gate
            };
            // The multiplications' results are int16: their clamps are int16's.
            let kept = mul_s16(&p.forget_cell_mul, forget, *cell) as i16;
            let added = mul_s16(&p.input_mul, input_gate, cell_gate) as i16;
            let mut updated = add_s16(kept, added);
            if clip {
                updated = clip_s16(updated, p.cell_state.quantized_cell_clip);
            }
            *cell = updated;
            let output_gate = sigmoid_s16(gate(OUTPUT, c));
            *out = A::narrow(mul_s16(
                &p.output_mul,
                tanh_s16(power, updated),
                output_gate,
            ));
        }
    });
}

/// The lengths of an LSTM's weights and biases, in the order of its checks' `weights`.
fn weight_lengths<W, B>(w: &LstmWeights<'_, W, B>) -> [usize; 12] {
    let [i0, i1, i2, i3] = w.input.map(<[W]>::len);
    let [r0, r1, r2, r3] = w.recurrent.map(<[W]>::len);
    let [b0, b1, b2, b3] = w.bias.map(<[B]>::len);
    [i0, i1, i2, i3, r0, r1, r2, r3, b0, b1, b2, b3]
}

/// What every LSTM kernel needs of its sizes and its slices' lengths.
const fn check_lstm(
    s: &LstmSize,
    input: usize,
    weights: [usize; 12],
    hidden: usize,
    cell: usize,
    output: usize,
) -> Result<(), KernelError> {
    let (n_batch, n_time, n_input, n_state) = (
        s.batch_size,
        s.time_steps,
        s.input_dimension,
        s.state_dimension,
    );
    check!(length(
        "input",
        elements(&[n_time, n_batch, n_input]),
        input
    ));
    check!(length(
        "output",
        elements(&[n_time, n_batch, n_state]),
        output
    ));
    check!(length("hidden", elements(&[n_batch, n_state]), hidden));
    check!(length("cell", elements(&[n_batch, n_state]), cell));
    let mut g = 0;
    while g < 4 {
        check!(length(
            "input weights",
            elements(&[n_state, n_input]),
            weights[g]
        ));
        check!(length(
            "recurrent weights",
            elements(&[n_state, n_state]),
            weights[4 + g]
        ));
        check!(length("bias", Some(n_state), weights[8 + g]));
        g += 1;
    }
    Ok(())
}

/// [`unidirectional_sequence_lstm_s8`]'s preconditions, on the lengths of its slices (`weights`:
/// the four gates' input weights, then their recurrent weights, then their biases, as
/// [`LstmWeights`] orders each): what the entry checks before it runs, and what generated code
/// asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_unidirectional_sequence_lstm_s8(
    p: &LstmQuantized,
    input: usize,
    weights: [usize; 12],
    hidden: usize,
    cell: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_lstm(&p.size, input, weights, hidden, cell, output)
}

/// int8 LSTM ("8x8->16"): TFLM's `EvalLstm<int8_t, int8_t, int16_t, int32_t>`.
///
/// Each gate: `FullyConnected` of the input row (`int32` accumulator, the gate's bias) and of
/// the previous hidden row (no bias) to Q3.12 int16, their sum saturated; the int16 sigmoid
/// (the cell gate: the int16 tanh at Q3.12, or nothing); the cell `forget × cell + input ×
/// gate`, each product `MulElementwise` to the cell's scale, the sum saturated, then clipped
/// to `±quantized_cell_clip` when `cell_clip > 0`; the hidden value `tanh(cell) × output` (the
/// tanh reads the cell at its power-of-two scale) to int8, plus its zero point.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_unidirectional_sequence_lstm_s8`]) hold: `input` holds `time_steps × batch_size ×
/// input_dimension` values (time-major or batch-major as `size` says), `output` as many rows of
/// `state_dimension`, `hidden` and `cell` `batch_size × state_dimension` values; `w` holds
/// `[state, input]`, `[state, state]` and `[state]` arrays.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn unidirectional_sequence_lstm_s8(
    p: &LstmQuantized,
    input: &[i8],
    w: &LstmWeights<'_, i8, i32>,
    hidden: &mut [i8],
    cell: &mut [i16],
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_unidirectional_sequence_lstm_s8(
        p,
        input.len(),
        weight_lengths(w),
        hidden.len(),
        cell.len(),
        output.len(),
    )?;
    proven::unidirectional_sequence_lstm_s8(p, input, w, hidden, cell, output);
    Ok(())
}

/// [`unidirectional_sequence_lstm_s16`]'s preconditions, as [`check_unidirectional_sequence_lstm_s8`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_unidirectional_sequence_lstm_s16(
    p: &LstmQuantized,
    input: usize,
    weights: [usize; 12],
    hidden: usize,
    cell: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_lstm(&p.size, input, weights, hidden, cell, output)
}

/// int16 LSTM ("16x8->16"): TFLM's `EvalLstm<int16_t, int8_t, int16_t, int64_t>`, as
/// [`unidirectional_sequence_lstm_s8`] with `int64` accumulators and biases
/// (`MultiplyByQuantizedMultiplier` for `int64`) and an int16 hidden state.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_unidirectional_sequence_lstm_s16`]) hold: as [`unidirectional_sequence_lstm_s8`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn unidirectional_sequence_lstm_s16(
    p: &LstmQuantized,
    input: &[i16],
    w: &LstmWeights<'_, i8, i64>,
    hidden: &mut [i16],
    cell: &mut [i16],
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_unidirectional_sequence_lstm_s16(
        p,
        input.len(),
        weight_lengths(w),
        hidden.len(),
        cell.len(),
        output.len(),
    )?;
    proven::unidirectional_sequence_lstm_s16(p, input, w, hidden, cell, output);
    Ok(())
}

/// [`unidirectional_sequence_lstm_f32`]'s preconditions, as [`check_unidirectional_sequence_lstm_s8`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_unidirectional_sequence_lstm_f32(
    p: &LstmF32,
    input: usize,
    weights: [usize; 12],
    hidden: usize,
    cell: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_lstm(&p.size, input, weights, hidden, cell, output)
}

/// float LSTM: TFLM's `EvalLstm<float, float, float, float>`: each gate `FullyConnected` of
/// the input row (with bias) plus that of the hidden row (plus 0), each clamped to `[lowest,
/// max]`; `reference_ops::Logistic` (the cell gate: `tanhf`, or nothing); the cell
/// `clamp(forget × cell) + clamp(input × gate)`, clipped when `cell_clip > 0`; the hidden value
/// `clamp(tanhf(cell) × output)`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_unidirectional_sequence_lstm_f32`]) hold: as [`unidirectional_sequence_lstm_s8`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn unidirectional_sequence_lstm_f32(
    p: &LstmF32,
    input: &[f32],
    w: &LstmWeights<'_, f32, f32>,
    hidden: &mut [f32],
    cell: &mut [f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_unidirectional_sequence_lstm_f32(
        p,
        input.len(),
        weight_lengths(w),
        hidden.len(),
        cell.len(),
        output.len(),
    )?;
    proven::unidirectional_sequence_lstm_f32(p, input, w, hidden, cell, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`unidirectional_sequence_lstm_s8`](super::unidirectional_sequence_lstm_s8), its [`check`](super::check_unidirectional_sequence_lstm_s8) proven.
    #[inline]
    pub fn unidirectional_sequence_lstm_s8(
        p: &LstmQuantized,
        input: &[i8],
        w: &LstmWeights<'_, i8, i32>,
        hidden: &mut [i8],
        cell: &mut [i16],
        output: &mut [i8],
    ) {
        debug_assert!(
            super::check_unidirectional_sequence_lstm_s8(
                p,
                input.len(),
                weight_lengths(w),
                hidden.len(),
                cell.len(),
                output.len()
            )
            .is_ok()
        );
        lstm_integer(p, input, w, hidden, cell, output);
    }

    /// [`unidirectional_sequence_lstm_s16`](super::unidirectional_sequence_lstm_s16), its [`check`](super::check_unidirectional_sequence_lstm_s16) proven.
    #[inline]
    pub fn unidirectional_sequence_lstm_s16(
        p: &LstmQuantized,
        input: &[i16],
        w: &LstmWeights<'_, i8, i64>,
        hidden: &mut [i16],
        cell: &mut [i16],
        output: &mut [i16],
    ) {
        debug_assert!(
            super::check_unidirectional_sequence_lstm_s16(
                p,
                input.len(),
                weight_lengths(w),
                hidden.len(),
                cell.len(),
                output.len()
            )
            .is_ok()
        );
        lstm_integer(p, input, w, hidden, cell, output);
    }

    /// [`unidirectional_sequence_lstm_f32`](super::unidirectional_sequence_lstm_f32), its [`check`](super::check_unidirectional_sequence_lstm_f32) proven.
    #[inline]
    pub fn unidirectional_sequence_lstm_f32(
        p: &LstmF32,
        input: &[f32],
        w: &LstmWeights<'_, f32, f32>,
        hidden: &mut [f32],
        cell: &mut [f32],
        output: &mut [f32],
    ) {
        debug_assert!(
            super::check_unidirectional_sequence_lstm_f32(
                p,
                input.len(),
                weight_lengths(w),
                hidden.len(),
                cell.len(),
                output.len()
            )
            .is_ok()
        );
        let (n_input, n_state) = (p.size.input_dimension, p.size.state_dimension);
        let clip = p.cell_clip > 0.0;
        drive(&p.size, input, hidden, cell, output, |x, h, cells, out| {
            // Gate `g` (a constant below 4) at cell `c`: `AddElementWise(input product, recurrent
            // product)`, the first the first source.
            let gate = |g: usize, c: usize| -> f32 {
                let (Some(wi), Some(wr), Some(b)) =
                    (w.input.get(g), w.recurrent.get(g), w.bias.get(g))
                else {
                    return 0.0;
                };
                add_f32(
                    fc_f32(x, row(wi, c, n_input), b.get(c).copied()),
                    fc_f32(h, row(wr, c, n_state), None),
                )
            };
            for (c, (cell, out)) in cells.iter_mut().zip(out.iter_mut()).enumerate() {
                let forget = sigmoid_f32(gate(FORGET, c));
                let input_gate = sigmoid_f32(gate(INPUT, c));
                let cell_gate = gate(CELL, c);
                let cell_gate = if p.cell_gate_tanh {
                    tanh_f32(cell_gate)
                } else {
                    cell_gate
                };
                // `Mul(in1, in2)` multiplies with `in2` as the first source in the wheel's build;
                // `AddElementWise(cell, product)` adds with the cell first.
                let kept = clamp_f32(mul_f32(*cell, forget));
                let added = clamp_f32(mul_f32(cell_gate, input_gate));
                let mut updated = add_f32(kept, added);
                if clip {
                    updated = clip_f32(updated, p.cell_clip);
                }
                *cell = updated;
                let output_gate = sigmoid_f32(gate(OUTPUT, c));
                *out = clamp_f32(mul_f32(output_gate, tanh_f32(updated)));
            }
        });
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use super::*;
    use crate::kernels::Requant;

    /// TFLM's `Create2x3x2X2FloatNodeContents` and `Get2X2LstmEvalCheckData`
    /// (`kernels/testdata/lstm_test_data.cc`): two batch-major sequences of three steps, cell
    /// clip 6, and TFLM's expected outputs and states (its own float tolerance).
    #[test]
    fn float_lstm_matches_tflm_test_data() {
        let p = LstmF32 {
            size: LstmSize {
                time_major: false,
                batch_size: 2,
                time_steps: 3,
                input_dimension: 2,
                state_dimension: 2,
            },
            cell_clip: 6.0,
            cell_gate_tanh: true,
        };
        let forget = [-10.0, -10.0, -20.0, -20.0];
        let input_gate = [10.0, 10.0, 20.0, 20.0];
        let ones = [1.0; 4];
        let w = LstmWeights {
            input: [&input_gate[..], &forget, &ones, &ones],
            recurrent: [&input_gate[..], &forget, &ones, &ones],
            bias: [&[-1.0, -2.0][..], &[1.0, 2.0], &[0.0, 0.0], &[0.0, 0.0]],
        };
        let input = [
            0.2, 0.3, 0.2, 0.3, 0.2, 0.3, -0.98, 0.62, 0.01, 0.99, 0.49, -0.32,
        ];
        let (mut hidden, mut cell, mut output) = ([0.0; 4], [0.0; 4], [0.0; 12]);
        unidirectional_sequence_lstm_f32(&p, &input, &w, &mut hidden, &mut cell, &mut output)
            .unwrap();
        let want: [f64; 12] = [
            0.264_558_93,
            0.268_704_55,
            0.479_358_03,
            0.479_370_14,
            0.580_132_72,
            0.580_132_78,
            -1.411_846_72e-3,
            -1.433_291_17e-5,
            0.468_871_68,
            0.468_912_81,
            0.500_540_74,
            0.500_541_48,
        ];
        for (&got, want) in output.iter().zip(want) {
            assert!((f64::from(got) - want).abs() < 1e-6, "{got} vs {want}");
        }
        assert_eq!(hidden, [output[4], output[5], output[10], output[11]]);
        let want: [f64; 4] = [0.897_405_15, 0.897_405_3, 0.803_276_07, 0.803_277_85];
        for (&got, want) in cell.iter().zip(want) {
            assert!((f64::from(got) - want).abs() < 1e-6, "{got} vs {want}");
        }
    }

    /// A transcription of TFLM's step for int8 activations with its four gate buffers (the
    /// whole gate computed before the next), to check that the cell-by-cell order computes the
    /// same values.
    fn reference_step(
        p: &LstmQuantized,
        x: &[i8],
        w: &LstmWeights<'_, i8, i32>,
        h: &mut [i8],
        cell: &mut [i16],
        out: &mut [i8],
    ) {
        let n = p.size.state_dimension;
        let ni = p.size.input_dimension;
        let gate = |g: usize, gp: &LstmGate, h: &[i8]| -> Vec<i16> {
            let a: Vec<i16> = (0..n)
                .map(|c| {
                    fc_s8(
                        &gp.input_fc,
                        x,
                        &w.input[g][c * ni..(c + 1) * ni],
                        Some(w.bias[g][c]),
                    )
                })
                .collect();
            let b: Vec<i16> = (0..n)
                .map(|c| {
                    fc_s8(
                        &gp.recurrent_fc,
                        h,
                        &w.recurrent[g][c * n..(c + 1) * n],
                        None,
                    )
                })
                .collect();
            a.iter().zip(&b).map(|(&a, &b)| add_s16(a, b)).collect()
        };
        let f: Vec<i16> = gate(FORGET, &p.forget_gate, h)
            .into_iter()
            .map(sigmoid_s16)
            .collect();
        let i: Vec<i16> = gate(INPUT, &p.input_gate, h)
            .into_iter()
            .map(sigmoid_s16)
            .collect();
        let g: Vec<i16> = gate(CELL, &p.cell_gate, h)
            .into_iter()
            .map(|v| tanh_s16(-12, v))
            .collect();
        for c in 0..n {
            cell[c] = mul_s16(&p.forget_cell_mul, f[c], cell[c]) as i16;
        }
        let buf: Vec<i16> = (0..n)
            .map(|c| mul_s16(&p.input_mul, i[c], g[c]) as i16)
            .collect();
        for c in 0..n {
            cell[c] = add_s16(cell[c], buf[c]);
            if p.cell_state.cell_clip > 0.0 {
                cell[c] = clip_s16(cell[c], p.cell_state.quantized_cell_clip);
            }
        }
        let o: Vec<i16> = gate(OUTPUT, &p.output_gate, h)
            .into_iter()
            .map(sigmoid_s16)
            .collect();
        for c in 0..n {
            let t = tanh_s16(p.cell_state.cell_state_scale_power, cell[c]);
            h[c] = mul_s16(&p.output_mul, t, o[c]) as i8;
        }
        out.copy_from_slice(h);
    }

    #[test]
    fn int8_lstm_matches_tflm_gate_by_gate_order() {
        let mut seed = 11u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as i64
        };
        let (ni, n) = (3, 4);
        let fc = |input_offset, m: i32| LstmFc {
            input_offset,
            weights_offset: 0,
            output_offset: 0,
            requant: Requant {
                multiplier: m,
                shift: 2,
            },
            act_min: -32768,
            act_max: 32767,
        };
        let gate = LstmGate {
            input_fc: fc(-5, 1_400_000_000),
            recurrent_fc: fc(3, 1_100_000_000),
        };
        let mul = |m, s, zp, lo, hi| LstmMul {
            output_offset: zp,
            requant: Requant {
                multiplier: m,
                shift: s,
            },
            act_min: lo,
            act_max: hi,
        };
        let p = LstmQuantized {
            size: LstmSize {
                time_major: true,
                batch_size: 2,
                time_steps: 5,
                input_dimension: ni,
                state_dimension: n,
            },
            cell_state: LstmCellState {
                cell_clip: 1.0,
                quantized_cell_clip: 20000,
                cell_state_scale_power: -11,
            },
            cell_gate_tanh: true,
            forget_gate: gate,
            input_gate: gate,
            cell_gate: gate,
            output_gate: gate,
            forget_cell_mul: mul(1 << 30, -14, 0, -32768, 32767),
            input_mul: mul(1 << 30, -15, 0, -32768, 32767),
            output_mul: mul(1_600_000_000, -7, -3, -128, 127),
        };
        let weights: Vec<Vec<i8>> = (0..8)
            .map(|k| {
                (0..if k < 4 { n * ni } else { n * n })
                    .map(|_| next() as i8)
                    .collect()
            })
            .collect();
        let biases: Vec<Vec<i32>> = (0..4)
            .map(|_| (0..n).map(|_| (next() % 40_000) as i32 - 20_000).collect())
            .collect();
        let w = LstmWeights {
            input: [&weights[0][..], &weights[1], &weights[2], &weights[3]],
            recurrent: [&weights[4][..], &weights[5], &weights[6], &weights[7]],
            bias: [&biases[0][..], &biases[1], &biases[2], &biases[3]],
        };
        let (mut h, mut c) = (vec![-3i8; 2 * n], vec![0i16; 2 * n]);
        let (mut rh, mut rc) = (h.clone(), c.clone());
        for _ in 0..if cfg!(miri) { 1 } else { 20 } {
            let input: Vec<i8> = (0..5 * 2 * ni).map(|_| next() as i8).collect();
            let mut out = vec![0i8; 5 * 2 * n];
            unidirectional_sequence_lstm_s8(&p, &input, &w, &mut h, &mut c, &mut out).unwrap();
            let mut rout = vec![0i8; 5 * 2 * n];
            for t in 0..5 {
                for b in 0..2 {
                    let at = t * 2 + b;
                    reference_step(
                        &p,
                        &input[at * ni..(at + 1) * ni],
                        &w,
                        &mut rh[b * n..(b + 1) * n],
                        &mut rc[b * n..(b + 1) * n],
                        &mut rout[at * n..(at + 1) * n],
                    );
                }
            }
            assert_eq!((&out, &h, &c), (&rout, &rh, &rc));
        }
        // Refused: an input one value short, nothing written (both integer kernels).
        let (hb, cb) = (h.clone(), c.clone());
        let mut out = vec![7i8; 5 * 2 * n];
        assert!(
            unidirectional_sequence_lstm_s8(&p, &[0; 1], &w, &mut h, &mut c, &mut out).is_err()
        );
        assert!(out.iter().all(|&x| x == 7) && h == hb && c == cb);
        let b64 = vec![0i64; n];
        let w16 = LstmWeights {
            input: w.input,
            recurrent: w.recurrent,
            bias: [&b64[..], &b64, &b64, &b64],
        };
        let (mut h16, mut c16, mut o16) =
            (vec![7i16; 2 * n], vec![7i16; 2 * n], vec![7i16; 5 * 2 * n]);
        assert!(
            unidirectional_sequence_lstm_s16(&p, &[0; 1], &w16, &mut h16, &mut c16, &mut o16)
                .is_err()
        );
        assert!(
            [&h16[..], &c16, &o16]
                .iter()
                .all(|s| s.iter().all(|&x| x == 7))
        );
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let size = LstmSize {
            time_major: true,
            batch_size: 2,
            time_steps: 3,
            input_dimension: 2,
            state_dimension: 2,
        };
        let p = LstmF32 {
            size,
            cell_clip: 0.0,
            cell_gate_tanh: true,
        };
        // input, the 12 weights and biases (one of each kind stands for its four), hidden,
        // cell, output.
        refuses(
            [12, 4, 4, 2, 4, 4, 12],
            [Exact; 7],
            |[x, wi, wr, b, h, c, o]| {
                let (wi, wr, b) = (vec![0.0; wi], vec![0.0; wr], vec![0.0; b]);
                let (full_i, full_r, full_b) = ([0.0; 4], [0.0; 4], [0.0; 2]);
                let w = LstmWeights {
                    input: [&wi[..], &full_i, &full_i, &full_i],
                    recurrent: [&full_r[..], &full_r, &wr, &full_r],
                    bias: [&full_b[..], &full_b, &full_b, &b],
                };
                let (mut hidden, mut cell, mut out) = (vec![7.0; h], vec![7.0; c], vec![7.0; o]);
                let r = unidirectional_sequence_lstm_f32(
                    &p,
                    &vec![0.0; x],
                    &w,
                    &mut hidden,
                    &mut cell,
                    &mut out,
                );
                (
                    r,
                    untouched(&hidden, 7.0) && untouched(&cell, 7.0) && untouched(&out, 7.0),
                )
            },
        );
    }
}
