//! CONV_2D: int8 (per-channel and per-tensor filters, with and without bias, grouped) and
//! float32, over both paddings, every fused activation and three shape classes; strides 1 to
//! 3 and dilations 1 and 2 drawn per model.

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

/// Draws a window for shape class `shape`; model 0 has strides and dilations 1, model 1
/// strides above 1, model 2 dilation 2, the others any.
pub fn window(rng: &mut Rng, shape: &str, padding: Padding, index: usize) -> Option<Window> {
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
        _ => (
            rng.pick(&[1, 2]),
            rng.size(2, 6),
            rng.size(2, 6),
            rng.size(1, 3),
            rng.size(1, 3),
        ),
    };
    let (stride, dilation) = match index {
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

/// Input and output channels for shape class `shape`.
pub fn channels(rng: &mut Rng, shape: &str) -> (usize, usize) {
    match shape {
        "ones" => (rng.size(1, 2), rng.size(1, 3)),
        "odd" => (2 * rng.size(0, 4) + 1, 2 * rng.size(0, 4) + 1),
        _ => (rng.size(16, 96), rng.size(32, 160)),
    }
}

fn s(v: usize) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for types in ["int8", "float32"] {
        for (pname, padding) in PADDINGS {
            for (aname, activation) in ACTIVATIONS {
                for shape in ["ones", "odd", "wide"] {
                    let spec = Spec {
                        op: "conv",
                        builtin: "CONV_2D",
                        types: types.to_owned(),
                        options: format!("{pname} {aname}"),
                        shape,
                    };
                    out.push(suite::fill(seed, spec, target, |rng, index| {
                        draw(rng, index, types == "int8", shape, padding, activation)
                    }));
                }
            }
        }
    }
    out
}

fn draw(
    rng: &mut Rng,
    index: usize,
    int8: bool,
    shape: &str,
    padding: Padding,
    activation: stowplan_planner::tflite::Activation,
) -> Option<Draft> {
    let win = window(rng, shape, padding, index)?;
    let (cin, cout) = channels(rng, shape);
    // Grouped convolution now and then: the filter covers a divisor of the input channels.
    let groups = if cin % 2 == 0 && cout % 2 == 0 && rng.chance(0.25) {
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
    let (x, inputs) = if int8 {
        let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
        let per_channel = index.is_multiple_of(2) || rng.chance(0.5);
        let fscales: Vec<f32> = if per_channel {
            let base = f64::from(suite::scale(rng));
            (0..cout)
                .map(|_| (base * f64::from(rng.log_uniform(1e-2, 1e2))) as f32)
                .collect()
        } else {
            vec![suite::scale(rng)]
        };
        let qf = Quant::channels(fscales.clone(), 0);
        let product = f64::from(qi.s()) * f64::from(fscales[0]);
        let qo = Quant::tensor(
            suite::output_scale_for(rng, product, win.kh * win.kw * fin),
            suite::zero_point(rng, DType::Int8),
        );
        let x = b.quantized(sg, "input", DType::Int8, &ishape, qi.spec());
        let wdata = suite::weights_for(rng, fcount, index);
        let w = b.quantized_constant(
            sg,
            "filter",
            DType::Int8,
            &fshape,
            qf.spec(),
            &int_bytes(DType::Int8, &wdata),
        );
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
            "in {ishape:?} filter {fshape:?} out {oshape:?} stride {:?} dilation {:?} groups {groups} bias {with_bias} in q {:?} out q {:?} filter scales {} ({})",
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
    Some(Draft::new(&b, inputs, win.n * win.oh * win.ow * cout, note))
}
