//! FULLY_CONNECTED: int8 (per-tensor and per-channel filters, with and without bias, inputs
//! of rank 2 to 4, `keep_num_dims`), int8 with packed int4 filters (per tensor), int16 with
//! int8 filters (per tensor and per channel; int64, int32 and no bias) and float32, over every
//! fused activation (the int4 and int16 variants take every one, one per model) and three
//! shape classes (int8 weights and activations four: rows of whole words too, the interleaved
//! kernels' layers).

use stowplan_planner::tflite::builder::{ModelBuilder, ops};
use stowplan_planner::tflite::{DType, OpOptions};

use crate::conv::{
    activation_of, activations, folded_target, int4_weights, int16_bias, int16_output_scale,
    int16_zero_point, pack_int4,
};
use crate::suite::{
    self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, f32_bytes, int_bytes,
};

fn s(v: usize) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for types in [
        "int8 per-tensor",
        "int8 per-channel",
        "float32",
        "int8 int4-filter",
        "int16 per-tensor",
        "int16 per-channel",
    ] {
        // The int4 and int16 variants draw the activation per model.
        let folded = types.starts_with("int16") || types.ends_with("int4-filter");
        for &(aname, activation) in activations(folded) {
            // int8 weights and activations also take rows of whole words: the interleaved
            // kernels' layers (the filter re-laid and the input offset folded into the bias).
            let classes: &[&str] = if types == "int8 per-tensor" || types == "int8 per-channel" {
                &["ones", "odd", "wide", "words"]
            } else {
                &["ones", "odd", "wide"]
            };
            for (si, &shape) in classes.iter().enumerate() {
                let spec = Spec {
                    op: "fully_connected",
                    builtin: "FULLY_CONNECTED",
                    types: types.to_owned(),
                    options: aname.to_owned(),
                    shape,
                };
                out.push(suite::fill(
                    seed,
                    spec,
                    folded_target(target, folded),
                    |rng, index| {
                        let activation = activation_of(folded, activation, index + si);
                        draw(rng, index, types, shape, activation)
                    },
                ));
            }
        }
    }
    out
}

fn draw(
    rng: &mut Rng,
    index: usize,
    types: &str,
    shape: &str,
    activation: stowplan_planner::tflite::Activation,
) -> Option<Draft> {
    let (batches, accum, units) = match shape {
        "ones" => (1, rng.size(1, 3), rng.size(1, 3)),
        "odd" => (
            2 * rng.size(0, 3) + 1,
            2 * rng.size(0, 12) + 1,
            2 * rng.size(0, 8) + 1,
        ),
        // Whole words, 4 to 70 output channels: blocks of four and every count of last rows;
        // mostly one row (two rows' output may go over their input, another kernel's path).
        "words" => (
            if rng.chance(0.2) { 2 } else { 1 },
            4 * rng.size(1, 96),
            rng.size(4, 70),
        ),
        _ => (rng.size(1, 2), rng.size(64, 512), rng.size(32, 256)),
    };
    // The input: [batches, accum], or a higher rank that flattens to it.
    let keep_num_dims = rng.chance(0.25);
    let ishape: Vec<i32> = match (batches, rng.below(3)) {
        (_, 0) => vec![s(batches), s(accum)],
        (b, 1) => vec![1, s(b), s(accum)],
        (b, _) => vec![1, 1, s(b), s(accum)],
    };
    let oshape: Vec<i32> = if keep_num_dims {
        let mut o = ishape.clone();
        if let Some(last) = o.last_mut() {
            *last = s(units);
        }
        o
    } else {
        vec![s(batches), s(units)]
    };
    let with_bias = !rng.chance(0.25);
    let options = OpOptions::FullyConnected {
        activation,
        keep_num_dims,
        shuffled_weights: false,
    };
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let fshape = [s(units), s(accum)];
    let note;
    let input = if types == "float32" {
        let x = b.tensor(sg, "input", DType::Float32, &ishape);
        let w = b.constant(
            sg,
            "filter",
            DType::Float32,
            &fshape,
            &f32_bytes(&suite::weights_f32(
                rng,
                units * accum,
                1.0 / (accum as f64).sqrt(),
            )),
        );
        let bias = if with_bias {
            b.constant(
                sg,
                "bias",
                DType::Float32,
                &[s(units)],
                &f32_bytes(&suite::weights_f32(rng, units, 1.0)),
            )
        } else {
            -1
        };
        let y = b.tensor(sg, "output", DType::Float32, &oshape);
        b.op_with_options(sg, ops::FULLY_CONNECTED, &[x, w, bias], &[y], options);
        b.io(sg, &[x], &[y]);
        note = format!("in {ishape:?} filter {fshape:?} out {oshape:?} bias {with_bias}");
        InputSpec::float(batches * accum, 1.0)
    } else if types.starts_with("int16") {
        let per_channel = types.ends_with("per-channel");
        let qi = Quant::tensor(suite::scale(rng), int16_zero_point(rng));
        let fscales: Vec<f32> = if per_channel {
            let base = f64::from(suite::scale(rng));
            (0..units)
                .map(|_| (base * f64::from(rng.log_uniform(1e-2, 1e2))) as f32)
                .collect()
        } else {
            vec![suite::scale(rng)]
        };
        let product = f64::from(qi.s() * fscales[0]);
        let bias_type = if with_bias || index < 3 {
            int16_bias(rng, index)
        } else {
            None
        };
        let mut qo = Quant::tensor(
            int16_output_scale(rng, product, accum),
            int16_zero_point(rng),
        );
        let bscales: Vec<f32> = fscales.iter().map(|&f| qi.s() * f).collect();
        if bias_type.is_some() && !per_channel {
            // TFLM's Prepare requires |input × filter − bias scale| / output scale <= 0.02.
            let diff = (f64::from(qi.s()) * f64::from(fscales[0]) - f64::from(bscales[0])).abs();
            if diff / f64::from(qo.s()) > 0.02 {
                qo.scale[0] = (diff * 60.0) as f32;
            }
        }
        let x = b.quantized(sg, "input", DType::Int16, &ishape, qi.spec());
        let w = b.quantized_constant(
            sg,
            "filter",
            DType::Int8,
            &fshape,
            Quant::channels(fscales.clone(), 0).spec(),
            &int_bytes(DType::Int8, &suite::weights_for(rng, units * accum, index)),
        );
        let bias = match bias_type {
            Some(bt) => {
                let bdata = crate::conv::int16_bias_values(rng, bt, units, index);
                b.quantized_constant(
                    sg,
                    "bias",
                    bt,
                    &[s(units)],
                    Quant::channels(bscales, 0).spec(),
                    &int_bytes(bt, &bdata),
                )
            }
            None => -1,
        };
        let y = b.quantized(sg, "output", DType::Int16, &oshape, qo.spec());
        b.op_with_options(sg, ops::FULLY_CONNECTED, &[x, w, bias], &[y], options);
        b.io(sg, &[x], &[y]);
        note = format!(
            "in {ishape:?} filter {fshape:?} out {oshape:?} bias {bias_type:?} in q {:?} out q {:?} filter scales {} act {activation:?}",
            (qi.s(), qi.z()),
            (qo.s(), qo.z()),
            fscales.len()
        );
        InputSpec::int(DType::Int16, batches * accum, qi.z())
    } else {
        let int4 = types.ends_with("int4-filter");
        let per_channel = types.ends_with("per-channel");
        let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
        let fscales: Vec<f32> = if per_channel {
            let base = f64::from(suite::scale(rng));
            (0..units)
                .map(|_| (base * f64::from(rng.log_uniform(1e-2, 1e2))) as f32)
                .collect()
        } else {
            vec![suite::scale(rng)]
        };
        let product = f64::from(qi.s() * fscales[0]);
        // Int4 weights reach 8, not 127: the output scale follows.
        let weight_scale = if int4 { 8.0 / 127.0 } else { 1.0 };
        let mut qo = Quant::tensor(
            suite::output_scale_for(rng, product * weight_scale, accum),
            suite::zero_point(rng, DType::Int8),
        );
        if with_bias && !per_channel {
            // TFLM's Prepare requires |input × filter − bias scale| / output scale <= 0.02:
            // keep the output scale above 50 times the difference.
            let diff = (product - f64::from(qi.s()) * f64::from(fscales[0])).abs();
            if diff / f64::from(qo.s()) > 0.02 {
                qo.scale[0] = (diff * 60.0) as f32;
            }
        }
        let x = b.quantized(sg, "input", DType::Int8, &ishape, qi.spec());
        let w = if int4 {
            b.quantized_constant(
                sg,
                "filter",
                DType::Int4,
                &fshape,
                Quant::channels(fscales.clone(), 0).spec(),
                &pack_int4(&int4_weights(rng, units * accum, index)),
            )
        } else {
            b.quantized_constant(
                sg,
                "filter",
                DType::Int8,
                &fshape,
                Quant::channels(fscales.clone(), 0).spec(),
                &int_bytes(DType::Int8, &suite::weights_for(rng, units * accum, index)),
            )
        };
        let bias = if with_bias {
            // The bias scale TFLM's converter writes: input scale × filter scale.
            let bscales: Vec<f32> = fscales.iter().map(|&f| qi.s() * f).collect();
            let extreme = index == 3;
            let bdata: Vec<i64> = (0..units)
                .map(|_| {
                    if extreme {
                        rng.pick(&[i64::from(i32::MAX), i64::from(i32::MIN)])
                    } else {
                        rng.normal(f64::from(1 << 14)) as i64
                    }
                })
                .collect();
            b.quantized_constant(
                sg,
                "bias",
                DType::Int32,
                &[s(units)],
                Quant::channels(bscales, 0).spec(),
                &int_bytes(DType::Int32, &bdata),
            )
        } else {
            -1
        };
        let y = b.quantized(sg, "output", DType::Int8, &oshape, qo.spec());
        b.op_with_options(sg, ops::FULLY_CONNECTED, &[x, w, bias], &[y], options);
        b.io(sg, &[x], &[y]);
        note = format!(
            "in {ishape:?} filter {fshape:?} out {oshape:?} bias {with_bias} in q {:?} out q {:?} filter scales {} act {activation:?}",
            (qi.s(), qi.z()),
            (qo.s(), qo.z()),
            fscales.len()
        );
        InputSpec::int(DType::Int8, batches * accum, qi.z())
    };
    Some(Draft::new(&b, vec![input], batches * units, note))
}
