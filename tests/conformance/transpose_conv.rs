//! TRANSPOSE_CONV: int8 (per-channel and per-tensor filters, with and without bias), int16
//! with int8 filters (int64, int16 and no bias) and float32, over both paddings and two shape
//! classes, every fused activation in each variant (one per model); strides 1 to 3 and filters 1 to 4 drawn per model, output
//! sizes the converter's (`in * stride` for SAME, `(in - 1) * stride + filter` for VALID) and,
//! now and then, a few rows or columns fewer (TFLM takes the output tensor's shape as it is).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{Activation, BuiltinOp, DType, OpOptions, Padding};

use crate::conv::{
    PADDINGS, activation_of, activations, folded_target, int16_output_scale, int16_zero_point,
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
    // The activation is drawn per model (every one in each variant).
    for types in ["int8", "int16", "float32"] {
        for (pname, padding) in PADDINGS {
            for &(aname, activation) in activations(true) {
                for (si, shape) in ["small", "wide"].into_iter().enumerate() {
                    let spec = Spec {
                        op: "transpose_conv",
                        builtin: "TRANSPOSE_CONV",
                        types: types.to_owned(),
                        options: format!("{pname} {aname}"),
                        shape,
                    };
                    out.push(suite::fill(
                        seed,
                        spec,
                        folded_target(target, true),
                        |rng, index| {
                            let activation = activation_of(true, activation, index + si);
                            draw(rng, index, types, shape, padding, activation)
                        },
                    ));
                }
            }
        }
    }
    out
}

/// The output size along one axis for an input of `size`: TF's, or (one model in four) up to
/// `stride - 1` fewer.
fn out_size(rng: &mut Rng, padding: Padding, size: usize, filter: usize, stride: usize) -> usize {
    let full = match padding {
        Padding::Valid => (size - 1) * stride + filter,
        _ => size * stride,
    };
    if stride > 1 && rng.chance(0.25) {
        (full - rng.size(1, stride - 1)).max(1)
    } else {
        full
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
    let (stride, filter) = match index {
        0 => ((1, 1), (rng.size(1, 3), rng.size(1, 3))),
        1 => ((2, 2), (rng.size(2, 4), rng.size(2, 4))),
        2 => ((3, rng.size(1, 2)), (rng.size(1, 4), 3)),
        _ => (
            (rng.size(1, 3), rng.size(1, 3)),
            (rng.size(1, 4), rng.size(1, 4)),
        ),
    };
    let (n, h, w, cin, cout) = match shape {
        "small" => (
            rng.pick(&[1, 1, 2]),
            rng.size(1, 5),
            rng.size(1, 5),
            rng.size(1, 4),
            rng.size(1, 4),
        ),
        _ => (
            1,
            rng.size(1, 4),
            rng.size(1, 4),
            rng.size(8, 40),
            rng.size(8, 40),
        ),
    };
    let oh = out_size(rng, padding, h, filter.0, stride.0);
    let ow = out_size(rng, padding, w, filter.1, stride.1);
    let ishape = [s(n), s(h), s(w), s(cin)];
    let fshape = [s(cout), s(filter.0), s(filter.1), s(cin)];
    let oshape = [s(n), s(oh), s(ow), s(cout)];
    let fcount = cout * filter.0 * filter.1 * cin;
    // The products an output sums, about.
    let terms = (filter.0 * filter.1 * cin).div_ceil(stride.0 * stride.1);
    let options = OpOptions::TransposeConv {
        padding,
        stride_w: s(stride.1),
        stride_h: s(stride.0),
        activation,
        quantized_bias_type: DType::Float32,
    };
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let op = BuiltinOp::from_name("TRANSPOSE_CONV")?;
    let out_shape = b.constant(
        sg,
        "output_shape",
        DType::Int32,
        &[4],
        &int_bytes(DType::Int32, &oshape.map(i64::from)),
    );
    let with_bias = !rng.chance(0.25);
    let geometry = format!(
        "in {ishape:?} filter {fshape:?} out {oshape:?} stride {stride:?} bias {with_bias} act {activation:?}"
    );
    let (input, note) = if types == "float32" {
        let x = b.tensor(sg, "input", DType::Float32, &ishape);
        let sd = 1.0 / (terms as f64).sqrt();
        let f = b.constant(
            sg,
            "filter",
            DType::Float32,
            &fshape,
            &f32_bytes(&suite::weights_f32(rng, fcount, sd)),
        );
        let mut inputs = vec![out_shape, f, x];
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
        b.op_with_options(sg, op, &inputs, &[y], options);
        b.io(sg, &[x], &[y]);
        let magnitude = suite::float_magnitude(rng, index);
        (
            InputSpec::float(n * h * w * cin, magnitude),
            format!("{geometry} magnitude {magnitude:e}"),
        )
    } else {
        let int16 = types == "int16";
        let dtype = if int16 { DType::Int16 } else { DType::Int8 };
        let qi = if int16 {
            Quant::tensor(suite::scale(rng), int16_zero_point(rng))
        } else {
            Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8))
        };
        let per_channel = index.is_multiple_of(2) || rng.chance(0.5);
        let fscales: Vec<f32> = if per_channel {
            let base = f64::from(suite::scale(rng));
            (0..cout)
                .map(|_| (base * f64::from(rng.log_uniform(1e-2, 1e2))) as f32)
                .collect()
        } else {
            vec![suite::scale(rng)]
        };
        let product = f64::from(qi.s()) * f64::from(fscales[0]);
        let qo = if int16 {
            Quant::tensor(
                int16_output_scale(rng, product, terms),
                int16_zero_point(rng),
            )
        } else {
            Quant::tensor(
                suite::output_scale_for(rng, product, terms),
                suite::zero_point(rng, DType::Int8),
            )
        };
        let x = b.quantized(sg, "input", dtype, &ishape, qi.spec());
        let f = b.quantized_constant(
            sg,
            "filter",
            DType::Int8,
            &fshape,
            Quant::channels(fscales.clone(), 0).spec(),
            &int_bytes(DType::Int8, &suite::weights_for(rng, fcount, index)),
        );
        let mut inputs = vec![out_shape, f, x];
        let bias_type = match (int16, with_bias || index < 3) {
            (false, _) if with_bias => Some(DType::Int32),
            (true, true) => rng.pick(&[Some(DType::Int64), Some(DType::Int16), None]),
            _ => None,
        };
        if let Some(bt) = bias_type {
            let bscales: Vec<f32> = (0..cout)
                .map(|c| {
                    (f64::from(qi.s()) * f64::from(fscales[if per_channel { c } else { 0 }])) as f32
                })
                .collect();
            let (lo, hi) = suite::int_range(bt);
            let bdata: Vec<i64> = (0..cout)
                .map(|_| {
                    if index == 3 {
                        rng.pick(&[lo, hi])
                    } else {
                        (rng.normal(f64::from(1 << 14)) as i64).clamp(lo, hi)
                    }
                })
                .collect();
            inputs.push(b.quantized_constant(
                sg,
                "bias",
                bt,
                &[s(cout)],
                Quant::channels(bscales, 0).spec(),
                &int_bytes(bt, &bdata),
            ));
        }
        let y = b.quantized(sg, "output", dtype, &oshape, qo.spec());
        b.op_with_options(sg, op, &inputs, &[y], options);
        b.io(sg, &[x], &[y]);
        (
            InputSpec::int(dtype, n * h * w * cin, qi.z()),
            format!(
                "{geometry} bias type {bias_type:?} in q {:?} out q {:?} filter scales {}",
                (qi.s(), qi.z()),
                (qo.s(), qo.z()),
                fscales.len()
            ),
        )
    };
    Some(Draft::new(&b, vec![input], n * oh * ow * cout, note))
}
