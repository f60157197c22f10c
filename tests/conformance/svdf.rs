//! SVDF: int8 input with an int8 state and time weights, with an int16 state and time weights,
//! and float32; ranks 1 to 3; every fused activation (the integer kernel ignores it; the float
//! one applies all six of TFLM's); three shape classes. Every model runs its input sets in a
//! row on one state (at least 50 invocations, a smooth sequence among them), so a state that
//! diverges shows. One variant draws models TFLM's Prepare refuses (a bias scale away from
//! state scale × time scale, a rank that does not divide the filters): both must refuse them.

use stowplan_planner::tflite::builder::{ModelBuilder, TensorSpec, ops};
use stowplan_planner::tflite::{Activation, DType, OpOptions};

use crate::suite::{
    self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, dims, f32_bytes, int_bytes,
};

/// The fused activations with the format's codes, as TFLM's SVDF reads them.
const ACTIVATIONS: [(&str, Activation); 6] = [
    ("NONE", Activation::None),
    ("RELU", Activation::Relu),
    ("RELU_N1_TO_1", Activation::ReluN1To1),
    ("RELU6", Activation::Relu6),
    ("TANH", Activation::Tanh),
    ("SIGN_BIT", Activation::SignBit),
];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for types in ["int8 state int8", "int8 state int16"] {
        for rank in 1..=3 {
            for shape in ["ones", "odd", "wide"] {
                let spec = Spec {
                    op: "svdf",
                    builtin: "SVDF",
                    types: types.to_owned(),
                    options: format!("rank {rank}"),
                    shape,
                };
                out.push(suite::fill_with_sets(seed, spec, target, |rng, index| {
                    draw(rng, index, target, types, shape, rank, None, false)
                }));
            }
        }
    }
    for (aname, activation) in ACTIVATIONS {
        for rank in 1..=3 {
            let shape = ["ones", "odd", "wide"][rank - 1];
            let spec = Spec {
                op: "svdf",
                builtin: "SVDF",
                types: "float32".to_owned(),
                options: format!("rank {rank} {aname}"),
                shape,
            };
            out.push(suite::fill_with_sets(seed, spec, target, |rng, index| {
                draw(
                    rng,
                    index,
                    target,
                    "float32",
                    shape,
                    rank,
                    Some(activation),
                    false,
                )
            }));
        }
    }
    let spec = Spec {
        op: "svdf",
        builtin: "SVDF",
        types: "int8 state int8".to_owned(),
        options: "refused by TFLM's Prepare".to_owned(),
        shape: "odd",
    };
    out.push(suite::fill_with_sets(
        seed,
        spec,
        Target {
            values: 100,
            models: 4,
        },
        |rng, index| draw(rng, index, target, "int8 state int8", "odd", 2, None, true),
    ));
    out
}

fn s(v: usize) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

/// How many sets [`suite::fill`] gives a model of `per_run` output values (edges and random),
/// and the extra sets that bring it to 50 invocations and more, a smooth sequence last.
pub fn extra_sets(target: Target, per_run: usize) -> usize {
    let share = (target.values / target.models.max(1)).max(1);
    let from_fill = suite::EDGES.len()
        + share
            .div_ceil(per_run.max(1))
            .saturating_sub(suite::EDGES.len())
            .clamp(1, 2000);
    50usize.saturating_sub(from_fill) + 24
}

/// `n` input sets that change smoothly from one to the next (a random walk), as a signal
/// does, for the model's one input.
pub fn smooth_sets(rng: &mut Rng, spec: &InputSpec, n: usize) -> Vec<Vec<u8>> {
    if spec.dtype == DType::Float32 {
        let mut v: Vec<f64> = (0..spec.len).map(|_| rng.normal(spec.magnitude)).collect();
        return (0..n)
            .map(|_| {
                for x in &mut v {
                    *x = 0.9 * *x + rng.normal(spec.magnitude * 0.3);
                }
                f32_bytes(&v.iter().map(|&x| x as f32).collect::<Vec<_>>())
            })
            .collect();
    }
    let (lo, hi) = suite::int_range(spec.dtype);
    let step = ((hi - lo) as f64) / 24.0;
    let mut v: Vec<f64> = (0..spec.len).map(|_| rng.range(lo, hi) as f64).collect();
    (0..n)
        .map(|_| {
            let values: Vec<i64> = v
                .iter_mut()
                .map(|x| {
                    *x = (*x + rng.normal(step)).clamp(lo as f64, hi as f64);
                    *x as i64
                })
                .collect();
            int_bytes(spec.dtype, &values)
        })
        .collect()
}

/// For a float input, sets cycling through the suite's special values (NaN, infinities,
/// signed zeros, extremes), which the state then carries.
pub fn special_sets(spec: &InputSpec) -> Vec<Vec<u8>> {
    if spec.dtype != DType::Float32 {
        return Vec::new();
    }
    (0..6)
        .map(|k| suite::cycle_f32(spec.len, &suite::F32_SPECIALS, 5 * k))
        .collect()
}

/// A variable tensor (the state), quantised if `q` is given.
fn variable(
    b: &mut ModelBuilder,
    sg: usize,
    dtype: DType,
    shape: &[usize],
    q: Option<&Quant>,
) -> i32 {
    b.tensor_spec(
        sg,
        TensorSpec {
            name: "activation_state".to_owned(),
            type_code: dtype.code(),
            shape: Some(dims(shape)),
            is_variable: true,
            quantization: q.map(|q| (q.scale.clone(), q.zero_point.clone(), q.dim)),
            ..TensorSpec::default()
        },
    )
}

#[allow(clippy::too_many_arguments)]
fn draw(
    rng: &mut Rng,
    index: usize,
    target: Target,
    types: &str,
    shape: &str,
    rank: usize,
    activation: Option<Activation>,
    refused: bool,
) -> Option<(Draft, Vec<Vec<u8>>)> {
    let (batches, input_size, units, memory) = match shape {
        "ones" => (1, rng.size(1, 3), rng.size(1, 3), rng.size(1, 3)),
        "odd" => (
            rng.pick(&[1, 3]),
            2 * rng.size(1, 7) + 1,
            rng.size(2, 6),
            rng.size(2, 9),
        ),
        _ => (
            rng.size(1, 2),
            rng.size(32, 128),
            rng.size(8, 32),
            rng.size(8, 32),
        ),
    };
    let filters = units * rank;
    // The integer kernel ignores the activation: draw any.
    let activation = activation.unwrap_or_else(|| rng.pick(&ACTIVATIONS).1);
    let mut rank_option = i32::try_from(rank).unwrap_or(1);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let state_shape = [batches, filters * memory];
    let note;
    let spec = if types == "float32" {
        let magnitude = suite::float_magnitude(rng, index);
        let x = b.tensor(sg, "input", DType::Float32, &dims(&[batches, input_size]));
        let wf = b.constant(
            sg,
            "weights_feature",
            DType::Float32,
            &dims(&[filters, input_size]),
            &f32_bytes(&suite::weights_f32(
                rng,
                filters * input_size,
                1.0 / (input_size as f64).sqrt(),
            )),
        );
        let wt = b.constant(
            sg,
            "weights_time",
            DType::Float32,
            &dims(&[filters, memory]),
            &f32_bytes(&suite::weights_f32(
                rng,
                filters * memory,
                1.0 / (memory as f64).sqrt(),
            )),
        );
        // TFLM's PrepareSvdf crashes without a bias (it releases the missing tensor).
        let bias = b.constant(
            sg,
            "bias",
            DType::Float32,
            &[s(units)],
            &f32_bytes(&suite::weights_f32(rng, units, 0.5)),
        );
        let st = variable(&mut b, sg, DType::Float32, &state_shape, None);
        let y = b.tensor(sg, "output", DType::Float32, &dims(&[batches, units]));
        b.op_with_options(
            sg,
            ops::SVDF,
            &[x, wf, wt, bias, st],
            &[y],
            OpOptions::Svdf {
                rank: rank_option,
                activation,
                asymmetric_quantize_inputs: false,
            },
        );
        b.io(sg, &[x], &[y]);
        note = format!(
            "batch {batches} input {input_size} units {units} rank {rank} memory {memory} magnitude {magnitude:e}"
        );
        InputSpec::float(batches * input_size, magnitude)
    } else {
        let state_type = if types.ends_with("int16") {
            DType::Int16
        } else {
            DType::Int8
        };
        let (_, state_hi) = suite::int_range(state_type);
        let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
        let feature_scale = suite::scale(rng);
        // The state's scale: the feature products spread over the state's range, or (one
        // model in five) anywhere.
        let feature_typical = f64::from(qi.s())
            * f64::from(feature_scale)
            * 127.0
            * 128.0
            * (input_size as f64).sqrt();
        let state_scale = if rng.chance(0.2) {
            suite::scale(rng)
        } else {
            (feature_typical / (state_hi as f64 / 4.0) * f64::from(rng.log_uniform(0.1, 10.0)))
                as f32
        };
        let state_zp = if state_type == DType::Int16 && rng.chance(0.7) {
            0
        } else {
            suite::zero_point(rng, state_type)
        };
        let qs = Quant::tensor(state_scale, state_zp);
        let time_scale = suite::scale(rng);
        let time_typical = f64::from(state_scale)
            * f64::from(time_scale)
            * (state_hi as f64 / 4.0)
            * (state_hi as f64 / 2.0)
            * ((memory * rank) as f64).sqrt();
        let out_scale = if rng.chance(0.2) {
            suite::scale(rng)
        } else {
            (time_typical / 40.0 * f64::from(rng.log_uniform(0.1, 10.0))) as f32
        };
        let qo = Quant::tensor(out_scale, suite::zero_point(rng, DType::Int8));
        // The bias scale TFLM's converter writes: state scale × time scale; now and then one
        // off by a little less than TFLM's 1e-5.
        let mut bias_scale = (f64::from(state_scale) * f64::from(time_scale)) as f32;
        if index % 3 == 2 && bias_scale < 1e-4 {
            bias_scale += 9e-6;
        }
        if refused {
            if index.is_multiple_of(2) {
                bias_scale = bias_scale * 2.0 + 1e-4;
            } else {
                rank_option = i32::try_from(filters + 1).unwrap_or(1);
            }
        }
        let x = b.quantized(
            sg,
            "input",
            DType::Int8,
            &dims(&[batches, input_size]),
            qi.spec(),
        );
        let wf = b.quantized_constant(
            sg,
            "weights_feature",
            DType::Int8,
            &dims(&[filters, input_size]),
            Quant::tensor(feature_scale, 0).spec(),
            &int_bytes(
                DType::Int8,
                &suite::weights_for(rng, filters * input_size, index),
            ),
        );
        let time_values: Vec<i64> = if state_type == DType::Int16 {
            (0..filters * memory)
                .map(|_| match index {
                    1 => rng.pick(&[-32768, 32767]),
                    _ => rng.range(-32768, 32767),
                })
                .collect()
        } else {
            suite::weights_for(rng, filters * memory, index)
        };
        let wt = b.quantized_constant(
            sg,
            "weights_time",
            state_type,
            &dims(&[filters, memory]),
            Quant::tensor(time_scale, 0).spec(),
            &int_bytes(state_type, &time_values),
        );
        let bias_values: Vec<i64> = (0..units)
            .map(|_| {
                if index == 3 {
                    rng.pick(&[i64::from(i32::MAX), i64::from(i32::MIN)])
                } else {
                    rng.normal(time_typical / f64::from(state_scale * time_scale).max(1e-30) / 4.0)
                        as i64
                }
            })
            .map(|v| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)))
            .collect();
        let bias = b.quantized_constant(
            sg,
            "bias",
            DType::Int32,
            &[s(units)],
            Quant::tensor(bias_scale, 0).spec(),
            &int_bytes(DType::Int32, &bias_values),
        );
        let st = variable(&mut b, sg, state_type, &state_shape, Some(&qs));
        let y = b.quantized(
            sg,
            "output",
            DType::Int8,
            &dims(&[batches, units]),
            qo.spec(),
        );
        b.op_with_options(
            sg,
            ops::SVDF,
            &[x, wf, wt, bias, st],
            &[y],
            OpOptions::Svdf {
                rank: rank_option,
                activation,
                asymmetric_quantize_inputs: false,
            },
        );
        b.io(sg, &[x], &[y]);
        note = format!(
            "batch {batches} input {input_size} units {units} rank {rank_option} memory {memory} in q {:?} feature {feature_scale:e} state q {:?} time {time_scale:e} out q {:?} bias scale {bias_scale:e}",
            (qi.s(), qi.z()),
            (qs.s(), qs.z()),
            (qo.s(), qo.z())
        );
        InputSpec::int(DType::Int8, batches * input_size, qi.z())
    };
    let per_run = batches * units;
    let n = extra_sets(target, per_run);
    let mut sets = smooth_sets(rng, &spec, n);
    sets.extend(special_sets(&spec));
    Some((Draft::new(&b, vec![spec], per_run, note), sets))
}
