//! DEPTHWISE_CONV_2D: int8 (per-channel and per-tensor filters, with and without bias), int8
//! with packed int4 filters, int16 with int8 filters (int64 bias or none) and float32, over
//! both paddings, every fused activation and three shape classes (the int4 and int16 variants
//! take every activation, one per model); depth multipliers 1 and above (past the kernel's channel block of 16 too), strides 1 to 3 and
//! dilations 1 and 2 drawn per model, each of them in the first three models of every variant.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{Activation, BuiltinOp, DType, OpOptions, Padding};

use crate::conv::{
    PADDINGS, activation_of, activations, folded_target, int4_weights, int16_bias_values,
    int16_output_scale, int16_zero_point, out_size, pack_int4,
};
use crate::suite::{
    self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, f32_bytes, int_bytes,
};

/// `DEPTHWISE_CONV_2D`.
const DEPTHWISE_CONV_2D: BuiltinOp = BuiltinOp(4);

fn s(v: usize) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for types in [
        "int8 per-channel",
        "int8 per-tensor",
        "float32",
        "int8 int4-filter",
        "int16",
    ] {
        let folded = types == "int16" || types.ends_with("int4-filter");
        for (pname, padding) in PADDINGS {
            for &(aname, activation) in activations(folded) {
                for (si, shape) in crate::device::shapes(["ones", "odd", "wide"], types)
                    .into_iter()
                    .enumerate()
                {
                    let spec = Spec {
                        op: "depthwise_conv",
                        builtin: "DEPTHWISE_CONV_2D",
                        types: types.to_owned(),
                        options: format!("{pname} {aname}"),
                        shape,
                    };
                    out.push(suite::fill(
                        seed,
                        spec,
                        folded_target(target, folded),
                        |rng, index| {
                            let activation = activation_of(folded, activation, index + si);
                            draw(rng, index, types, shape, padding, activation)
                        },
                    ));
                }
            }
        }
    }
    out
}

/// Strides, dilations and depth multiplier of model `index`: model 0 all 1; model 1 strides 2
/// and 3 with a depth multiplier above 1; model 2 strides 3 and 2 with dilation 2; the others
/// at random.
fn steps(rng: &mut Rng, index: usize) -> ((usize, usize), (usize, usize), usize) {
    let multiplier = |rng: &mut Rng| rng.pick(&[2, 3, 4, 5, 7, 16, 17, 24]);
    match index {
        0 => ((1, 1), (1, 1), 1),
        1 => ((2, 3), (1, 1), multiplier(rng)),
        2 => (
            (3, 2),
            (2, 2),
            if rng.chance(0.5) { 1 } else { multiplier(rng) },
        ),
        _ => (
            (rng.size(1, 3), rng.size(1, 3)),
            (rng.size(1, 2), rng.size(1, 2)),
            if rng.chance(0.5) { 1 } else { multiplier(rng) },
        ),
    }
}

fn draw(
    rng: &mut Rng,
    index: usize,
    types: &str,
    shape: &str,
    padding: Padding,
    activation: Activation,
) -> Option<Draft> {
    let (mut stride, mut dilation, mut dm) = steps(rng, index);
    if shape == "blocked" {
        // The DSP kernels' blocks (device sweeps), no dilation: model 0 depth multiplier 1 with
        // a channel count of the models' layers (8 to 256), model 1 one input channel to eight
        // (SAME; rows of 4 or 8 taps) or a multiplier of 4 (VALID: the block loop's other
        // form), model 2 depth multiplier 1 with an odd number of blocks of four channels, the
        // others any of these (3 x 3 filters mostly: whole windows and their edges). Models 0
        // and 1 have weights that differ from channel to channel (model 2's are all 127,
        // `suite::weights_for`). Stride 2 for models 1 and 2 (a row's run of whole windows
        // then steps two pixels).
        stride = if index.is_multiple_of(3) {
            (1, 1)
        } else {
            (2, 2)
        };
        dilation = (1, 1);
        dm = match index {
            0 | 2 => 1,
            1 if padding == Padding::Same => 8,
            1 => 4,
            _ => rng.pick(&[1, 1, 4, 8]),
        };
    }
    let (n, h, w, kh, kw, cin) = match shape {
        "ones" => {
            let (h, w) = if rng.chance(0.5) {
                (1, rng.size(1, 9))
            } else {
                (rng.size(1, 9), 1)
            };
            let kh = if h == 1 { 1 } else { rng.size(1, 3) };
            let kw = if w == 1 { 1 } else { rng.size(1, 3) };
            (1, h, w, kh, kw, rng.size(1, 2))
        }
        "odd" => (
            rng.pick(&[1, 1, 3]),
            2 * rng.size(1, 7) + 1,
            2 * rng.size(1, 7) + 1,
            rng.pick(&[1, 3, 5, 2]),
            rng.pick(&[1, 3, 5, 4]),
            2 * rng.size(0, 4) + 1,
        ),
        // Model 1's one channel to eight: a window of rows of four or eight taps, as the
        // audio models' (micro_speech: 10 x 8), over inputs wider than it.
        "blocked" if (dm, index) == (8, 1) => (
            rng.pick(&[1, 2]),
            rng.size(3, 14),
            rng.size(8, 16),
            rng.size(1, 10),
            rng.pick(&[4, 8]),
            1,
        ),
        "blocked" => (
            rng.pick(&[1, 2]),
            rng.size(3, 8),
            rng.size(3, 8),
            if rng.chance(0.7) { 3 } else { rng.size(1, 5) },
            if rng.chance(0.7) { 3 } else { rng.size(1, 5) },
            {
                let other = 4 * rng.size(1, 20);
                let odd_blocks = 4 * (2 * rng.size(0, 9) + 1);
                match (dm, index) {
                    (1, 0) => rng.pick(&[8, 16, 32, 64, 128, 256]),
                    (1, 2) => odd_blocks,
                    (1, _) => other,
                    (8, 1) => 1,
                    (_, 1) => other.min(16),
                    _ => rng.pick(&[1, 1, other.min(16)]),
                }
            },
        ),
        _ => (
            rng.pick(&[1, 2]),
            rng.size(2, 7),
            rng.size(2, 7),
            rng.size(1, 3),
            rng.size(1, 3),
            // Many channels, fewer with a large depth multiplier.
            rng.size(16, 96).min(512 / dm).max(16),
        ),
    };
    let oh = out_size(padding, h, kh, stride.0, dilation.0);
    let ow = out_size(padding, w, kw, stride.1, dilation.1);
    if oh == 0 || ow == 0 {
        return None;
    }
    let cout = cin * dm;
    let with_bias = !rng.chance(0.2);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let ishape = [s(n), s(h), s(w), s(cin)];
    let fshape = [1, s(kh), s(kw), s(cout)];
    let oshape = [s(n), s(oh), s(ow), s(cout)];
    let fcount = kh * kw * cout;
    let options = OpOptions::DepthwiseConv2D {
        padding,
        stride_w: s(stride.1),
        stride_h: s(stride.0),
        depth_multiplier: s(dm),
        dilation_w: s(dilation.1),
        dilation_h: s(dilation.0),
        activation,
    };
    let geometry = format!(
        "in {ishape:?} filter {fshape:?} out {oshape:?} stride {stride:?} dilation {dilation:?} depth multiplier {dm} bias {with_bias} act {activation:?}"
    );
    let note;
    let input = if types == "float32" {
        let x = b.tensor(sg, "input", DType::Float32, &ishape);
        let sd = 1.0 / ((kh * kw) as f64).sqrt();
        let f = b.constant(
            sg,
            "filter",
            DType::Float32,
            &fshape,
            &f32_bytes(&suite::weights_f32(rng, fcount, sd)),
        );
        let mut inputs = vec![x, f];
        if with_bias {
            inputs.push(b.constant(
                sg,
                "bias",
                DType::Float32,
                &[s(cout)],
                &f32_bytes(&suite::weights_f32(rng, cout, 1.0)),
            ));
        }
        let y = b.tensor(sg, "output", DType::Float32, &oshape);
        b.op_with_options(sg, DEPTHWISE_CONV_2D, &inputs, &[y], options);
        b.io(sg, &[x], &[y]);
        note = geometry;
        InputSpec::float(n * h * w * cin, 1.0)
    } else if types == "int16" {
        let per_channel = index.is_multiple_of(2) || rng.chance(0.5);
        let qi = Quant::tensor(suite::scale(rng), int16_zero_point(rng));
        let fscales: Vec<f32> = if per_channel {
            let base = f64::from(suite::scale(rng));
            (0..cout)
                .map(|_| (base * f64::from(rng.log_uniform(1e-2, 1e2))) as f32)
                .collect()
        } else {
            vec![suite::scale(rng)]
        };
        let product = f64::from(qi.s()) * f64::from(fscales[0]);
        let qo = Quant::tensor(
            int16_output_scale(rng, product, kh * kw),
            int16_zero_point(rng),
        );
        let x = b.quantized(sg, "input", DType::Int16, &ishape, qi.spec());
        let f = b.quantized_constant(
            sg,
            "filter",
            DType::Int8,
            &fshape,
            Quant::channels(fscales.clone(), 3).spec(),
            &int_bytes(DType::Int8, &suite::weights_for(rng, fcount, index)),
        );
        let mut inputs = vec![x, f];
        // TFLM's int16 kernel reads any bias as int64: int64 biases or none.
        if index != 2 && with_bias {
            let bscales: Vec<f32> = (0..cout)
                .map(|c| {
                    (f64::from(qi.s()) * f64::from(fscales[if per_channel { c } else { 0 }])) as f32
                })
                .collect();
            let bdata = int16_bias_values(rng, DType::Int64, cout, index);
            inputs.push(b.quantized_constant(
                sg,
                "bias",
                DType::Int64,
                &[s(cout)],
                Quant::channels(bscales, 0).spec(),
                &int_bytes(DType::Int64, &bdata),
            ));
        }
        let y = b.quantized(sg, "output", DType::Int16, &oshape, qo.spec());
        b.op_with_options(sg, DEPTHWISE_CONV_2D, &inputs, &[y], options);
        b.io(sg, &[x], &[y]);
        note = format!(
            "{geometry} in q {:?} out q {:?} filter scales {} int64 bias {}",
            (qi.s(), qi.z()),
            (qo.s(), qo.z()),
            fscales.len(),
            inputs.len() == 3,
        );
        InputSpec::int(DType::Int16, n * h * w * cin, qi.z())
    } else {
        let int4 = types.ends_with("int4-filter");
        let per_channel = types.ends_with("per-channel") || (int4 && index != 1);
        let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
        // Per-channel scales spread over four orders of magnitude around a base.
        let fscales: Vec<f32> = if per_channel {
            let base = f64::from(suite::scale(rng));
            (0..cout)
                .map(|_| (base * f64::from(rng.log_uniform(1e-2, 1e2))) as f32)
                .collect()
        } else {
            vec![suite::scale(rng)]
        };
        // Int4 weights reach 8, not 127: the output scale follows.
        let weight_scale = if int4 { 8.0 / 127.0 } else { 1.0 };
        let product = f64::from(qi.s()) * f64::from(fscales[0]) * weight_scale;
        let qo = Quant::tensor(
            suite::output_scale_for(rng, product, kh * kw),
            suite::zero_point(rng, DType::Int8),
        );
        let x = b.quantized(sg, "input", DType::Int8, &ishape, qi.spec());
        let f = if int4 {
            b.quantized_constant(
                sg,
                "filter",
                DType::Int4,
                &fshape,
                Quant::channels(fscales.clone(), 3).spec(),
                &pack_int4(&int4_weights(rng, fcount, index)),
            )
        } else {
            b.quantized_constant(
                sg,
                "filter",
                DType::Int8,
                &fshape,
                Quant::channels(fscales.clone(), 3).spec(),
                &int_bytes(DType::Int8, &suite::weights_for(rng, fcount, index)),
            )
        };
        let mut inputs = vec![x, f];
        if with_bias {
            let bscales: Vec<f32> = (0..cout)
                .map(|c| {
                    (f64::from(qi.s()) * f64::from(fscales[if per_channel { c } else { 0 }])) as f32
                })
                .collect();
            let extreme = index == 3;
            let bdata: Vec<i64> = (0..cout)
                .map(|_| {
                    if extreme {
                        rng.pick(&[i64::from(i32::MAX), i64::from(i32::MIN)])
                    } else {
                        rng.normal(f64::from(1 << 14)) as i64
                    }
                })
                .collect();
            inputs.push(b.quantized_constant(
                sg,
                "bias",
                DType::Int32,
                &[s(cout)],
                Quant::channels(bscales, 0).spec(),
                &int_bytes(DType::Int32, &bdata),
            ));
        }
        let y = b.quantized(sg, "output", DType::Int8, &oshape, qo.spec());
        b.op_with_options(sg, DEPTHWISE_CONV_2D, &inputs, &[y], options);
        b.io(sg, &[x], &[y]);
        note = format!(
            "{geometry} in q {:?} out q {:?} filter scales {}",
            (qi.s(), qi.z()),
            (qo.s(), qo.z()),
            fscales.len(),
        );
        InputSpec::int(DType::Int8, n * h * w * cin, qi.z())
    };
    Some(Draft::new(&b, vec![input], n * oh * ow * cout, note))
}
