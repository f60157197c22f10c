//! UNIDIRECTIONAL_SEQUENCE_LSTM: int8 activations with int8 weights, int32 biases and an int16
//! cell ("int8"), int16 activations with int64 biases ("int16"), and float32; time-major and
//! batch-major; with and without cell clipping (0, negative and NaN clips mean none; tiny,
//! huge and infinite clips); the cell gate's activation TANH and others (TFLM's release build
//! applies none); three shape classes. Every model runs its input sets in a row on one state
//! (at least 50 invocations, a smooth sequence among them). One variant draws the LSTMs TFLM's
//! kernel refuses (peephole, projection, layer normalisation, CIFG, a state that is not a
//! variable): both must refuse them.

use stowplan_planner::tflite::builder::{ModelBuilder, TensorSpec};
use stowplan_planner::tflite::{Activation, BuiltinOp, DType, OpOptions};

use crate::suite::{
    self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, dims, f32_bytes, int_bytes,
};
use crate::svdf::{extra_sets, smooth_sets, special_sets};

/// The options classes.
const OPTIONS: [&str; 5] = [
    "batch_major no clip",
    "batch_major cell clip",
    "time_major no clip",
    "time_major cell clip",
    "cell activation not tanh",
];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for types in ["int8", "int16", "float32"] {
        for options in OPTIONS {
            for shape in ["ones", "seq", "wide"] {
                let spec = Spec {
                    op: "unidirectional_sequence_lstm",
                    builtin: "UNIDIRECTIONAL_SEQUENCE_LSTM",
                    types: types.to_owned(),
                    options: options.to_owned(),
                    shape,
                };
                out.push(suite::fill_with_sets(seed, spec, target, |rng, index| {
                    draw(rng, index, target, types, options, shape, None)
                }));
            }
        }
    }
    for types in ["int8", "float32"] {
        let spec = Spec {
            op: "unidirectional_sequence_lstm",
            builtin: "UNIDIRECTIONAL_SEQUENCE_LSTM",
            types: types.to_owned(),
            options: "refused by TFLM's Prepare".to_owned(),
            shape: "seq",
        };
        out.push(suite::fill_with_sets(
            seed,
            spec,
            Target {
                values: 100,
                models: 6,
            },
            |rng, index| {
                draw(
                    rng,
                    index,
                    target,
                    types,
                    "batch_major no clip",
                    "seq",
                    Some(index),
                )
            },
        ));
    }
    out
}

/// Which variant of the LSTM TFLM's kernel refuses model `index` of the refused variant is.
const REFUSED: [&str; 6] = [
    "peephole",
    "projection",
    "layer norm",
    "CIFG",
    "state not variable",
    "peephole",
];

/// The quantisation of one LSTM's tensors (unused for float32).
struct Quants {
    input: Quant,
    hidden: Quant,
    output: Quant,
    cell: Quant,
    input_weights: [Quant; 4],
    recurrent_weights: [Quant; 4],
}

/// A scale mostly near `typical` (a tenth to ten times), now and then anywhere in the suite's
/// range.
fn scale_near(rng: &mut Rng, typical: f64) -> f32 {
    if rng.chance(0.15) {
        suite::scale(rng)
    } else {
        (typical * f64::from(rng.log_uniform(0.1, 10.0))) as f32
    }
}

fn quants(rng: &mut Rng, activation: DType, input_size: usize, cells: usize) -> Quants {
    let act_hi = if activation == DType::Int8 {
        128.0
    } else {
        32768.0
    };
    let zp = |rng: &mut Rng| {
        if activation == DType::Int16 && rng.chance(0.8) {
            0
        } else {
            suite::zero_point(rng, activation)
        }
    };
    let input = Quant::tensor(scale_near(rng, 1.0 / act_hi), zp(rng));
    let hidden = Quant::tensor(scale_near(rng, 1.0 / act_hi), zp(rng));
    let output = if rng.chance(0.8) {
        hidden.clone()
    } else {
        Quant::tensor(suite::scale(rng), zp(rng))
    };
    // The cell: a power of two (Q3.12 and around it) mostly, else any scale.
    let cell_scale = match rng.below(10) {
        0 | 1 => suite::scale(rng),
        2 => rng.log_uniform(1e-5, 1e-2),
        _ => 2f32.powi(-(rng.range(9, 15) as i32)),
    };
    let cell = Quant::tensor(cell_scale, 0);
    // The weights: gate inputs of a few units in Q3.12 (`in × w / 2^-12` times a sum of
    // `n` products of magnitude about `64 × act_hi`).
    let weights = |rng: &mut Rng, x: &Quant, n: usize| {
        let typical = 2.0 / ((n as f64).sqrt() * 64.0 * act_hi * f64::from(x.s()));
        let zp = if rng.chance(0.1) { rng.range(-3, 3) } else { 0 };
        Quant::tensor(scale_near(rng, typical), zp)
    };
    let input_weights = [(); 4].map(|()| weights(rng, &input, input_size));
    let recurrent_weights = [(); 4].map(|()| weights(rng, &hidden, cells));
    Quants {
        input,
        hidden,
        output,
        cell,
        input_weights,
        recurrent_weights,
    }
}

fn variable(
    b: &mut ModelBuilder,
    sg: usize,
    name: &str,
    dtype: DType,
    shape: &[usize],
    q: Option<&Quant>,
    is_variable: bool,
) -> i32 {
    b.tensor_spec(
        sg,
        TensorSpec {
            name: name.to_owned(),
            type_code: dtype.code(),
            shape: Some(dims(shape)),
            is_variable,
            quantization: q.map(|q| (q.scale.clone(), q.zero_point.clone(), q.dim)),
            ..TensorSpec::default()
        },
    )
}

/// The options' cell clip for an options class.
fn cell_clip(rng: &mut Rng, options: &str) -> f32 {
    if options.ends_with("no clip") {
        return match rng.below(6) {
            0 => -rng.log_uniform(0.1, 10.0),
            1 => f32::NAN,
            _ => 0.0,
        };
    }
    if !options.contains("clip") {
        return if rng.chance(0.5) {
            0.0
        } else {
            rng.log_uniform(0.1, 10.0)
        };
    }
    match rng.below(10) {
        0 => 1e-4,
        1 => 1e30,
        2 => f32::INFINITY,
        _ => rng.log_uniform(0.05, 20.0),
    }
}

#[allow(clippy::too_many_lines)]
fn draw(
    rng: &mut Rng,
    index: usize,
    target: Target,
    types: &str,
    options: &str,
    shape: &str,
    refused: Option<usize>,
) -> Option<(Draft, Vec<Vec<u8>>)> {
    let (batch, time, input_size, cells) = match shape {
        "ones" => (1, 1, rng.size(1, 3), rng.size(1, 3)),
        "seq" => (
            rng.size(1, 3),
            rng.size(2, 6),
            rng.size(2, 9),
            rng.size(2, 9),
        ),
        _ => (
            rng.size(1, 2),
            rng.size(1, 4),
            rng.size(16, 48),
            rng.size(16, 32),
        ),
    };
    let time_major = if options.starts_with("time_major") {
        true
    } else if options.starts_with("batch_major") {
        false
    } else {
        rng.chance(0.5)
    };
    let activation = if options == "cell activation not tanh" {
        rng.pick(&[
            Activation::None,
            Activation::Relu,
            Activation::ReluN1To1,
            Activation::Relu6,
            Activation::SignBit,
        ])
    } else {
        Activation::Tanh
    };
    let clip = cell_clip(rng, options);
    let proj_clip = rng.pick(&[0.0, 0.0, 3.0, -1.0]);
    let act_type = match types {
        "int8" => DType::Int8,
        "int16" => DType::Int16,
        _ => DType::Float32,
    };
    let float = act_type == DType::Float32;
    let in_shape = if time_major {
        [time, batch, input_size]
    } else {
        [batch, time, input_size]
    };
    let out_shape = [in_shape[0], in_shape[1], cells];
    let q = (!float).then(|| quants(rng, act_type, input_size, cells));
    let kind = refused.and_then(|i| REFUSED.get(i).copied()).unwrap_or("");

    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = variable(
        &mut b,
        sg,
        "input",
        act_type,
        &in_shape,
        q.as_ref().map(|q| &q.input),
        false,
    );
    let mut inputs = vec![x];
    let (weight_type, bias_type) = match act_type {
        DType::Int8 => (DType::Int8, DType::Int32),
        DType::Int16 => (DType::Int8, DType::Int64),
        _ => (DType::Float32, DType::Float32),
    };
    // Weights 1 to 8: input-to-gate [cells, input], recurrent [cells, cells].
    for i in 1..9 {
        let (cols, gate) = if i < 5 {
            (input_size, i - 1)
        } else {
            (cells, i - 5)
        };
        if kind == "CIFG" && (i == 1 || i == 5) {
            inputs.push(-1);
            continue;
        }
        let n = cells * cols;
        let name = format!("weights{i}");
        let t = if float {
            let data = suite::weights_f32(rng, n, 1.0 / (cols as f64).sqrt());
            b.constant(
                sg,
                &name,
                DType::Float32,
                &dims(&[cells, cols]),
                &f32_bytes(&data),
            )
        } else {
            let q = q.as_ref()?;
            let wq = if i < 5 {
                &q.input_weights[gate]
            } else {
                &q.recurrent_weights[gate]
            };
            let data = suite::weights_for(rng, n, index);
            b.quantized_constant(
                sg,
                &name,
                weight_type,
                &dims(&[cells, cols]),
                wq.spec(),
                &int_bytes(weight_type, &data),
            )
        };
        inputs.push(t);
    }
    // Peephole weights 9 to 11.
    for i in 9..12 {
        if kind == "peephole" && i == 9 + index % 3 {
            let t = if float {
                b.constant(
                    sg,
                    "peephole",
                    DType::Float32,
                    &[cells as i32],
                    &f32_bytes(&vec![0.1; cells]),
                )
            } else {
                b.quantized_constant(
                    sg,
                    "peephole",
                    DType::Int16,
                    &[cells as i32],
                    Quant::tensor(1e-3, 0).spec(),
                    &int_bytes(DType::Int16, &vec![100; cells]),
                )
            };
            inputs.push(t);
        } else {
            inputs.push(-1);
        }
    }
    // Biases 12 to 15: about two units of the gate inputs.
    for i in 12..16 {
        if kind == "CIFG" && i == 12 {
            inputs.push(-1);
            continue;
        }
        let name = format!("bias{i}");
        let t = if float {
            let data = suite::weights_f32(rng, cells, 1.0);
            b.constant(
                sg,
                &name,
                DType::Float32,
                &[cells as i32],
                &f32_bytes(&data),
            )
        } else {
            let q = q.as_ref()?;
            let product = f64::from(q.input.s()) * f64::from(q.input_weights[i - 12].s());
            let data: Vec<i64> = (0..cells)
                .map(|_| {
                    if index == 3 {
                        rng.pick(&[i64::from(i32::MIN), i64::from(i32::MAX)])
                    } else {
                        (rng.normal(1.0) / product.max(1e-30)).clamp(-2e9, 2e9) as i64
                    }
                })
                .collect();
            b.quantized_constant(
                sg,
                &name,
                bias_type,
                &[cells as i32],
                Quant::tensor(product as f32, 0).spec(),
                &int_bytes(bias_type, &data),
            )
        };
        inputs.push(t);
    }
    // Projection 16 and 17.
    if kind == "projection" {
        let p = if float {
            b.constant(
                sg,
                "projection",
                DType::Float32,
                &dims(&[cells, cells]),
                &f32_bytes(&vec![0.1; cells * cells]),
            )
        } else {
            b.quantized_constant(
                sg,
                "projection",
                DType::Int8,
                &dims(&[cells, cells]),
                Quant::tensor(1e-2, 0).spec(),
                &int_bytes(DType::Int8, &vec![3; cells * cells]),
            )
        };
        inputs.extend([p, -1]);
    } else {
        inputs.extend([-1, -1]);
    }
    // The states 18 and 19.
    let stateful = kind != "state not variable";
    let hidden = variable(
        &mut b,
        sg,
        "output_state",
        act_type,
        &[batch, cells],
        q.as_ref().map(|q| &q.hidden),
        stateful,
    );
    let cell_type = if float { DType::Float32 } else { DType::Int16 };
    let cell = variable(
        &mut b,
        sg,
        "cell_state",
        cell_type,
        &[batch, cells],
        q.as_ref().map(|q| &q.cell),
        true,
    );
    inputs.extend([hidden, cell]);
    // Layer normalisation 20 to 23.
    for i in 20..24 {
        if kind == "layer norm" && i == 20 + index % 4 {
            let t = if float {
                b.constant(
                    sg,
                    "layer_norm",
                    DType::Float32,
                    &[cells as i32],
                    &f32_bytes(&vec![1.0; cells]),
                )
            } else {
                b.quantized_constant(
                    sg,
                    "layer_norm",
                    DType::Int16,
                    &[cells as i32],
                    Quant::tensor(1e-3, 0).spec(),
                    &int_bytes(DType::Int16, &vec![1000; cells]),
                )
            };
            inputs.push(t);
        } else {
            inputs.push(-1);
        }
    }
    let y = variable(
        &mut b,
        sg,
        "output",
        act_type,
        &out_shape,
        q.as_ref().map(|q| &q.output),
        false,
    );
    b.op_with_options(
        sg,
        BuiltinOp::UNIDIRECTIONAL_SEQUENCE_LSTM,
        &inputs,
        &[y],
        OpOptions::UnidirectionalSequenceLstm {
            activation,
            cell_clip: clip,
            proj_clip,
            time_major,
            asymmetric_quantize_inputs: false,
            diagonal_recurrent_tensors: false,
        },
    );
    b.io(sg, &[x], &[y]);
    let quant_note = q.as_ref().map_or_else(String::new, |q| {
        format!(
            " in q {:?} hidden q {:?} cell scale {:e} weight scales {:?}",
            (q.input.s(), q.input.z()),
            (q.hidden.s(), q.hidden.z()),
            q.cell.s(),
            q.input_weights
                .iter()
                .chain(&q.recurrent_weights)
                .map(|w| w.s())
                .collect::<Vec<_>>()
        )
    });
    let magnitude = suite::float_magnitude(rng, index);
    let note = format!(
        "batch {batch} time {time} input {input_size} cells {cells} time_major {time_major} clip {clip:e} activation {activation:?}{}{quant_note}{}",
        if kind.is_empty() {
            String::new()
        } else {
            format!(" {kind}")
        },
        if float {
            format!(" magnitude {magnitude:e}")
        } else {
            String::new()
        }
    );
    let spec = if float {
        InputSpec::float(batch * time * input_size, magnitude)
    } else {
        InputSpec::int(
            act_type,
            batch * time * input_size,
            q.as_ref().map_or(0, |q| q.input.z()),
        )
    };
    let per_run = batch * time * cells;
    let n = extra_sets(target, per_run);
    let mut sets = smooth_sets(rng, &spec, n);
    sets.extend(special_sets(&spec));
    // Then a calm sequence again: the state must recover (or not) as TFLM's does.
    sets.extend(smooth_sets(rng, &spec, 8));
    Some((Draft::new(&b, vec![spec], per_run, note), sets))
}
