//! CONV_2D: int8 (per-channel and per-tensor filters, with and without bias, grouped), int8
//! with packed int4 filters, int16 with int8 filters (int64, int32 and no bias) and float32,
//! over both paddings, every fused activation and three shape classes (the int4 and int16
//! variants take every activation, one per model); strides 1 to 3 and dilations 1 and 2 drawn
//! per model. Device sweeps add the class `blocked` to the int8 variants ([`blocked_kind`]).

use stowplan_planner::tflite::builder::{ModelBuilder, ops};
use stowplan_planner::tflite::{DType, OpOptions, Padding};

use crate::suite::{
    self, ACTIVATIONS, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, f32_bytes, int_bytes,
};

/// The paddings with their names.
pub const PADDINGS: [(&str, Padding); 2] = [("SAME", Padding::Same), ("VALID", Padding::Valid)];

/// TFLM's `ComputeOutSize`.
pub fn out_size(
    padding: Padding,
    size: usize,
    filter: usize,
    stride: usize,
    dilation: usize,
) -> usize {
    let effective = (filter - 1) * dilation + 1;
    match padding {
        Padding::Valid => (size + stride).saturating_sub(effective) / stride,
        _ => size.div_ceil(stride),
    }
}

/// One convolution window geometry.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    /// Batches.
    pub n: usize,
    /// Input height, width and channels.
    pub h: usize,
    /// Input width.
    pub w: usize,
    /// Filter height.
    pub kh: usize,
    /// Filter width.
    pub kw: usize,
    /// Strides (h, w).
    pub stride: (usize, usize),
    /// Dilations (h, w).
    pub dilation: (usize, usize),
    /// Output height.
    pub oh: usize,
    /// Output width.
    pub ow: usize,
}

/// The block a model of shape class `blocked` (device sweeps) draws, by the DSP kernels it
/// runs: 0 the 1 x 1 matrix product (model 0), 1 a 3 x 3 filter with stride 1, 2 a 3 x 3
/// filter with stride 2, 3 a first layer (1 to 3 input channels, mostly stride 2, a 3 x 3 or a
/// keyword spotter's 10 x 4 filter: windows gathered), 4 a 5 x 5 filter, 5 a dilated 3 x 3
/// filter, 6 the 1 x 1 layers' shapes (8 to 256 input channels, a power of two, and an even
/// number of outputs: the matrix product's loops per channel count), 7 a one-pixel-wide image
/// (a 1-D convolution, run as a row: a filter of 2 to 5 taps, any stride and dilation); model 1 one of 1
/// to 5, models 2 and 4 kind 6 (model 2 planned on two buffers, the widened pixel pairs; model
/// 4 over its input: the widened kernels' walk of one buffer, and with a fused activation 256
/// input channels, past the widened kernels: the loop per channel count), model 3 kind
/// 7 (a blocked variant has five models or more), the others any. Their channel counts make filter rows
/// of whole words and rows with tails.
pub fn blocked_kind(rng: &mut Rng, index: usize) -> usize {
    match index {
        0 => 0,
        1 => rng.size(1, 5),
        2 | 4 => 6,
        3 => 7,
        _ => rng.size(0, 7),
    }
}

/// Draws a window for shape class `shape` (`kind`: the block of class `blocked`, see
/// [`blocked_kind`]); model 0 has strides and dilations 1, model 1 strides above 1, model 2
/// dilation 2, the others any.
pub fn window(
    rng: &mut Rng,
    shape: &str,
    padding: Padding,
    index: usize,
    kind: usize,
) -> Option<Window> {
    let (n, h, w, kh, kw) = match shape {
        "ones" => {
            let (h, w) = if rng.chance(0.5) {
                (1, rng.size(1, 9))
            } else {
                (rng.size(1, 9), 1)
            };
            let kh = if h == 1 { 1 } else { rng.size(1, 3) };
            let kw = if w == 1 { 1 } else { rng.size(1, 3) };
            (1, h, w, kh, kw)
        }
        "odd" => (
            rng.pick(&[1, 1, 3]),
            2 * rng.size(1, 7) + 1,
            2 * rng.size(1, 7) + 1,
            rng.pick(&[1, 3, 5, 2]),
            rng.pick(&[1, 3, 5, 4]),
        ),
        // The DSP kernels' blocks (device sweeps): the matrix product (1 x 1, stride 1, odd
        // and even pixel counts), and windows of 3 x 3 and 5 x 5 over odd and even widths.
        "blocked" => match kind {
            0 => (rng.pick(&[1, 2]), rng.size(1, 8), rng.size(1, 8), 1, 1),
            6 => {
                let (n, h, w) = (rng.pick(&[1, 2]), rng.size(1, 6), rng.size(1, 6));
                // Model 2 (the widened pixel pairs): one batch of an odd number of rows, so
                // that half of them end on a lone pixel (odd widths).
                if index == 2 {
                    (1, h | 1, w, 1, 1)
                } else {
                    (n, h, w, 1, 1)
                }
            }
            1 | 2 => (rng.pick(&[1, 2]), rng.size(3, 10), rng.size(3, 11), 3, 3),
            3 => {
                let (kh, kw) = rng.pick(&[(3, 3), (3, 3), (10, 4), (4, 10)]);
                (
                    1,
                    rng.size(kh + 2, kh + 14),
                    rng.size(kw + 2, kw + 14),
                    kh,
                    kw,
                )
            }
            7 => (rng.pick(&[1, 2]), rng.size(2, 40), 1, rng.size(2, 5), 1),
            4 => (1, rng.size(5, 10), rng.size(5, 11), 5, 5),
            _ => (1, rng.size(5, 10), rng.size(5, 11), 3, 3),
        },
        _ => (
            rng.pick(&[1, 2]),
            rng.size(2, 6),
            rng.size(2, 6),
            rng.size(1, 3),
            rng.size(1, 3),
        ),
    };
    let (stride, dilation) = match index {
        _ if shape == "blocked" => match kind {
            0 | 1 | 6 => ((1, 1), (1, 1)),
            2 => ((2, 2), (1, 1)),
            3 => (rng.pick(&[(2, 2), (2, 2), (1, 1)]), (1, 1)),
            4 => (rng.pick(&[(1, 1), (2, 2), (1, 2)]), (1, 1)),
            7 => ((rng.size(1, 3), 1), (rng.pick(&[1, 1, 2, 4]), 1)),
            _ => ((1, 1), rng.pick(&[(2, 2), (1, 2), (2, 1)])),
        },
        0 => ((1, 1), (1, 1)),
        1 => ((rng.size(2, 3), rng.size(1, 3)), (1, 1)),
        2 => ((1, 1), (2, rng.size(1, 2))),
        _ => (
            (rng.size(1, 3), rng.size(1, 3)),
            (rng.size(1, 2), rng.size(1, 2)),
        ),
    };
    let oh = out_size(padding, h, kh, stride.0, dilation.0);
    let ow = out_size(padding, w, kw, stride.1, dilation.1);
    (oh > 0 && ow > 0).then_some(Window {
        n,
        h,
        w,
        kh,
        kw,
        stride,
        dilation,
        oh,
        ow,
    })
}

/// Input and output channels for shape class `shape` (`kind`: the block of class `blocked`).
pub fn channels(rng: &mut Rng, shape: &str, kind: usize) -> (usize, usize) {
    match shape {
        "ones" => (rng.size(1, 2), rng.size(1, 3)),
        "odd" => (2 * rng.size(0, 4) + 1, 2 * rng.size(0, 4) + 1),
        "blocked" => match kind {
            0 => (rng.size(1, 64), rng.size(1, 40)),
            1 | 2 => (rng.pick(&[4, 5, 8, 12, 16, 17, 24, 32]), rng.size(1, 32)),
            3 => (rng.size(1, 3), rng.pick(&[8, 16, 24, 5, 3])),
            4 => (rng.size(1, 8), rng.size(1, 16)),
            6 => (rng.pick(&[8, 16, 32, 64, 128, 256]), 2 * rng.size(1, 24)),
            7 => (rng.pick(&[3, 8, 13, 40, 48]), rng.size(1, 48)),
            _ => (rng.size(1, 16), rng.size(1, 16)),
        },
        _ => (rng.size(16, 96), rng.size(32, 160)),
    }
}

fn s(v: usize) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for types in ["int8", "float32", "int8 int4-filter", "int16"] {
        // The int4 and int16 variants draw the activation per model (every one of them in
        // each variant), to keep the sweep short.
        let folded = types == "int16" || types.ends_with("int4-filter");
        for (pname, padding) in PADDINGS {
            for &(aname, activation) in activations(folded) {
                for (si, shape) in crate::device::shapes(["ones", "odd", "wide"], types)
                    .into_iter()
                    .enumerate()
                {
                    let spec = Spec {
                        op: "conv",
                        builtin: "CONV_2D",
                        types: types.to_owned(),
                        options: format!("{pname} {aname}"),
                        shape,
                    };
                    // The blocked class draws each of its kinds: five models or more.
                    let mut target = folded_target(target, folded);
                    if shape == "blocked" {
                        target.models = target.models.max(5);
                    }
                    out.push(suite::fill(seed, spec, target, |rng, index| {
                        let activation = activation_of(folded, activation, index + si);
                        draw(rng, index, types, shape, padding, activation)
                    }));
                }
            }
        }
    }
    out
}

/// The activations a variant loop runs over: each on its own, or one entry for all (drawn per
/// model with [`activation_of`]).
pub fn activations(
    folded: bool,
) -> &'static [(&'static str, stowplan_planner::tflite::Activation)] {
    const EVERY: [(&str, stowplan_planner::tflite::Activation); 1] = [(
        "every activation",
        stowplan_planner::tflite::Activation::None,
    )];
    if folded { &EVERY } else { &ACTIVATIONS }
}

/// Model `index`'s activation: the variant's, or (folded) each in turn.
pub fn activation_of(
    folded: bool,
    activation: stowplan_planner::tflite::Activation,
    index: usize,
) -> stowplan_planner::tflite::Activation {
    if folded {
        ACTIVATIONS[index % ACTIVATIONS.len()].1
    } else {
        activation
    }
}

/// A folded variant's target: at least a model per activation.
pub fn folded_target(target: Target, folded: bool) -> Target {
    if folded {
        Target {
            models: target.models.max(ACTIVATIONS.len()),
            ..target
        }
    } else {
        target
    }
}

/// The bias of an int16 model: model 0 int64, model 1 int32, model 2 none, the others at
/// random.
pub fn int16_bias(rng: &mut Rng, index: usize) -> Option<DType> {
    match index {
        0 => Some(DType::Int64),
        1 => Some(DType::Int32),
        2 => None,
        _ => rng.pick(&[Some(DType::Int64), Some(DType::Int32), None]),
    }
}

/// An int16 activation's zero point: mostly 0 (int16 is quantised symmetrically), now and then
/// any (TFLM's int16 kernels ignore it).
pub fn int16_zero_point(rng: &mut Rng) -> i64 {
    if rng.chance(0.8) {
        0
    } else {
        suite::zero_point(rng, DType::Int16)
    }
}

/// An output scale for an int16 sum of `terms` products of magnitude `product_scale` each
/// (int16 inputs times int8 weights), so that outputs spread over the int16 range; one in five
/// models at random over the whole range.
pub fn int16_output_scale(rng: &mut Rng, product_scale: f64, terms: usize) -> f32 {
    if rng.chance(0.2) {
        return suite::scale(rng);
    }
    let typical = product_scale * 32767.0 * 127.0 * (terms.max(1) as f64).sqrt() / 8000.0;
    (typical * f64::from(rng.log_uniform(0.1, 10.0))) as f32
}

/// Int4 weights for model `index`: model 1 at the extremes (-8 and 7), model 2 all 7, the
/// others at random over -8..=7.
pub fn int4_weights(rng: &mut Rng, n: usize, index: usize) -> Vec<i64> {
    match index {
        1 => (0..n)
            .map(|_| if rng.chance(0.5) { 7 } else { -8 })
            .collect(),
        2 => vec![7; n],
        _ => (0..n).map(|_| rng.range(-8, 7)).collect(),
    }
}

/// Int4 values packed as TFLM stores them: two per byte, the first in the low nibble.
pub fn pack_int4(values: &[i64]) -> Vec<u8> {
    values
        .chunks(2)
        .map(|c| {
            let lo = (c[0] as u8) & 0x0f;
            let hi = c.get(1).map_or(0, |&v| (v as u8) & 0x0f);
            lo | (hi << 4)
        })
        .collect()
}

/// Int16 CONV_2D / DEPTHWISE_CONV_2D bias values of `dtype`: model 3 at the type's extremes,
/// the others normal around 0 with a deviation of 2^20.
pub fn int16_bias_values(rng: &mut Rng, dtype: DType, n: usize, index: usize) -> Vec<i64> {
    (0..n)
        .map(|_| {
            if index == 3 {
                let (lo, hi) = suite::int_range(dtype);
                rng.pick(&[lo, hi])
            } else {
                rng.normal(f64::from(1 << 20)) as i64
            }
        })
        .collect()
}

fn draw(
    rng: &mut Rng,
    index: usize,
    types: &str,
    shape: &str,
    padding: Padding,
    activation: stowplan_planner::tflite::Activation,
) -> Option<Draft> {
    let kind = if shape == "blocked" {
        blocked_kind(rng, index)
    } else {
        0
    };
    let win = window(rng, shape, padding, index, kind)?;
    let (mut cin, cout) = channels(rng, shape, kind);
    // Model 2's 1 x 1 layer (kind 6, planned on two buffers below) in the widened pixel pairs'
    // shapes: 336 input channels where 256 were drawn (the widened kernels' largest buffer;
    // 256 keeps the loop of its count), at most 128 otherwise, the whole int8 range (no fused
    // activation, whatever the variant's: the others of the variant take it).
    let widened = shape == "blocked" && kind == 6 && index == 2;
    // Model 4 (kind 6, over its input): in the variants with a fused activation in the loops
    // per channel count's shapes, 256 input channels (more than the widened kernels take) and
    // the whole int8 range; in the others as drawn (the widened kernels' walk of one buffer,
    // where they take it).
    let counted = shape == "blocked"
        && kind == 6
        && index == 4
        && activation != stowplan_planner::tflite::Activation::None;
    let activation = if widened {
        cin = if cin == 256 { 336 } else { cin.min(128) };
        stowplan_planner::tflite::Activation::None
    } else if counted {
        cin = 256;
        stowplan_planner::tflite::Activation::None
    } else {
        activation
    };
    // Grouped convolution now and then (not in the 1 x 1 layers' shapes, kind 6): the filter
    // covers a divisor of the input channels.
    let groups = if kind != 6 && cin % 2 == 0 && cout % 2 == 0 && rng.chance(0.25) {
        2
    } else {
        1
    };
    let fin = cin / groups;
    let with_bias = !rng.chance(0.2);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let ishape = [s(win.n), s(win.h), s(win.w), s(cin)];
    let fshape = [s(cout), s(win.kh), s(win.kw), s(fin)];
    let oshape = [s(win.n), s(win.oh), s(win.ow), s(cout)];
    let fcount = cout * win.kh * win.kw * fin;
    let options = OpOptions::Conv2D {
        padding,
        stride_w: s(win.stride.1),
        stride_h: s(win.stride.0),
        dilation_w: s(win.dilation.1),
        dilation_h: s(win.dilation.0),
        activation,
    };
    let note;
    let (x, inputs) = if types == "int16" {
        let qi = Quant::tensor(suite::scale(rng), int16_zero_point(rng));
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
        let qo = Quant::tensor(
            int16_output_scale(rng, product, win.kh * win.kw * fin),
            int16_zero_point(rng),
        );
        let x = b.quantized(sg, "input", DType::Int16, &ishape, qi.spec());
        let wdata = suite::weights_for(rng, fcount, index);
        let w = b.quantized_constant(
            sg,
            "filter",
            DType::Int8,
            &fshape,
            Quant::channels(fscales.clone(), 0).spec(),
            &int_bytes(DType::Int8, &wdata),
        );
        let bias_type = int16_bias(rng, index);
        let mut inputs = vec![x, w];
        if let Some(bt) = bias_type {
            let bscales: Vec<f32> = (0..cout)
                .map(|c| {
                    (f64::from(qi.s()) * f64::from(fscales[if per_channel { c } else { 0 }])) as f32
                })
                .collect();
            let bdata = int16_bias_values(rng, bt, cout, index);
            inputs.push(b.quantized_constant(
                sg,
                "bias",
                bt,
                &[s(cout)],
                Quant::channels(bscales, 0).spec(),
                &int_bytes(bt, &bdata),
            ));
        }
        let y = b.quantized(sg, "output", DType::Int16, &oshape, qo.spec());
        b.op_with_options(sg, ops::CONV_2D, &inputs, &[y], options);
        b.io(sg, &[x], &[y]);
        note = format!(
            "in {ishape:?} filter {fshape:?} out {oshape:?} stride {:?} dilation {:?} groups {groups} bias {bias_type:?} in q {:?} out q {:?} filter scales {} act {activation:?}",
            win.stride,
            win.dilation,
            (qi.s(), qi.z()),
            (qo.s(), qo.z()),
            fscales.len(),
        );
        (
            x,
            vec![InputSpec::int(
                DType::Int16,
                win.n * win.h * win.w * cin,
                qi.z(),
            )],
        )
    } else if types.starts_with("int8") {
        let int4 = types.ends_with("int4-filter");
        let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
        let per_channel = index.is_multiple_of(2) || rng.chance(0.5);
        // The 1 x 1 layers' shapes (kind 6) with channels within a factor of two of each
        // other, so that few of their outputs saturate (their kernels' every sum shows).
        let spread = if shape == "blocked" && kind == 6 {
            (0.5, 2.0)
        } else {
            (1e-2, 1e2)
        };
        let fscales: Vec<f32> = if per_channel {
            let base = f64::from(suite::scale(rng));
            (0..cout)
                .map(|_| (base * f64::from(rng.log_uniform(spread.0, spread.1))) as f32)
                .collect()
        } else {
            vec![suite::scale(rng)]
        };
        let qf = Quant::channels(fscales.clone(), 0);
        // Int4 weights reach 8, not 127: the output scale follows.
        let weight_scale = if int4 { 8.0 / 127.0 } else { 1.0 };
        let product = f64::from(qi.s()) * f64::from(fscales[0]) * weight_scale;
        let terms = win.kh * win.kw * fin;
        // The 1 x 1 layers' shapes with an output scale for their sums' spread (no scale
        // drawn over the whole range), as their channels' filter scales.
        let out_scale = if shape == "blocked" && kind == 6 {
            let typical = product * 127.0 * 127.0 * (terms as f64).sqrt() / 40.0;
            (typical * f64::from(rng.log_uniform(0.5, 2.0))) as f32
        } else {
            suite::output_scale_for(rng, product, terms)
        };
        let qo = Quant::tensor(out_scale, suite::zero_point(rng, DType::Int8));
        let x = b.quantized(sg, "input", DType::Int8, &ishape, qi.spec());
        let w = if int4 {
            let wdata = int4_weights(rng, fcount, index);
            b.quantized_constant(
                sg,
                "filter",
                DType::Int4,
                &fshape,
                qf.spec(),
                &pack_int4(&wdata),
            )
        } else {
            // The widened model's weights at random (model 2's are all 127 otherwise, which
            // no order of the products shows).
            let wdata = suite::weights_for(rng, fcount, if widened { 4 } else { index });
            b.quantized_constant(
                sg,
                "filter",
                DType::Int8,
                &fshape,
                qf.spec(),
                &int_bytes(DType::Int8, &wdata),
            )
        };
        let bias = if with_bias {
            let bscales: Vec<f32> = (0..cout)
                .map(|c| {
                    (f64::from(qi.s()) * f64::from(fscales[if per_channel { c } else { 0 }])) as f32
                })
                .collect();
            let bq = Quant::channels(bscales, 0);
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
            b.quantized_constant(
                sg,
                "bias",
                DType::Int32,
                &[s(cout)],
                bq.spec(),
                &int_bytes(DType::Int32, &bdata),
            )
        } else {
            -1
        };
        let y = b.quantized(sg, "output", DType::Int8, &oshape, qo.spec());
        let inputs = if with_bias {
            vec![x, w, bias]
        } else {
            vec![x, w]
        };
        b.op_with_options(sg, ops::CONV_2D, &inputs, &[y], options);
        b.io(sg, &[x], &[y]);
        note = format!(
            "in {ishape:?} filter {fshape:?} out {oshape:?} stride {:?} dilation {:?} groups {groups} bias {with_bias} in q {:?} out q {:?} filter scales {} ({}) act {activation:?}",
            win.stride,
            win.dilation,
            (qi.s(), qi.z()),
            (qo.s(), qo.z()),
            fscales.len(),
            if per_channel {
                "per-channel"
            } else {
                "per-tensor"
            },
        );
        (
            x,
            vec![InputSpec::int(
                DType::Int8,
                win.n * win.h * win.w * cin,
                qi.z(),
            )],
        )
    } else {
        let x = b.tensor(sg, "input", DType::Float32, &ishape);
        let sd = 1.0 / ((win.kh * win.kw * fin) as f64).sqrt();
        let w = b.constant(
            sg,
            "filter",
            DType::Float32,
            &fshape,
            &f32_bytes(&suite::weights_f32(rng, fcount, sd)),
        );
        let bias = if with_bias {
            b.constant(
                sg,
                "bias",
                DType::Float32,
                &[s(cout)],
                &f32_bytes(&suite::weights_f32(rng, cout, 1.0)),
            )
        } else {
            -1
        };
        let y = b.tensor(sg, "output", DType::Float32, &oshape);
        let inputs = if with_bias {
            vec![x, w, bias]
        } else {
            vec![x, w]
        };
        b.op_with_options(sg, ops::CONV_2D, &inputs, &[y], options);
        b.io(sg, &[x], &[y]);
        note = format!(
            "in {ishape:?} filter {fshape:?} out {oshape:?} stride {:?} dilation {:?} groups {groups} bias {with_bias}",
            win.stride, win.dilation
        );
        (x, vec![InputSpec::float(win.n * win.h * win.w * cin, 1.0)])
    };
    let _ = x;
    let draft = Draft::new(&b, inputs, win.n * win.oh * win.ow * cout, note);
    // The 1 x 1 layers' shapes of model 2 planned on two buffers (the widened pixel pairs,
    // `WIDENED_64` and `WIDENED`, on two slices); model 4's over its input (their own walk of
    // one buffer, or the loops per channel count: see `blocked_kind`).
    Some(match (shape, kind, index) {
        ("blocked", 6, 2) => draft.overlap(false),
        ("blocked", 6, 4) => draft.overlap(true),
        _ => draft,
    })
}
