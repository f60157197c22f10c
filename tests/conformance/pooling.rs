//! AVERAGE_POOL_2D and MAX_POOL_2D: int8, int16 and float32, over both paddings, every fused
//! activation (the int16 variants take every one, one per model) and three shape classes; windows of 1 to 4 and strides of 1 to 3 drawn per
//! model, SAME windows hanging over the padding (and windows larger than the input).
//!
//! A device sweep (`gen --device`, [`crate::device::shapes`]) gives the int8 variants a fourth
//! class, `blocked`, for the DSP kernels' blocks: channel counts that are multiples of four
//! (blocks of 16 and 8 channels, single words) or a few past one (the partial word), windows
//! up to 256 elements (the average's halfword sums at their limit) and past them (the portable
//! fallback), with few input sets each (the firmware's flash holds them all).
//!
//! TFLM's int8 and int16 Prepare requires the output's zero point to be the input's and the scales to
//! differ by at most 1e-6 (`pooling_common.cc`): most models share the quantisation, some
//! take an output scale up to 0.9e-6 away (which moves the activation range, computed from
//! the output's quantisation, while the values are not requantised).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{Activation, BuiltinOp, DType, OpOptions, Padding};

use crate::conv::{PADDINGS, activation_of, activations, folded_target, out_size};
use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant};

/// The builtins with their codes.
const BUILTINS: [(&str, BuiltinOp); 2] = [
    ("AVERAGE_POOL_2D", BuiltinOp(1)),
    ("MAX_POOL_2D", BuiltinOp(17)),
];

fn s(v: usize) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for (builtin, code) in BUILTINS {
        for types in ["int8", "float32", "int16"] {
            // The int16 variants draw the activation per model.
            let folded = types == "int16";
            for (pname, padding) in PADDINGS {
                for &(aname, activation) in activations(folded) {
                    for (si, shape) in crate::device::shapes(["ones", "odd", "wide"], types)
                        .into_iter()
                        .enumerate()
                    {
                        let spec = Spec {
                            op: "pooling",
                            builtin,
                            types: types.to_owned(),
                            options: format!("{builtin} {pname} {aname}"),
                            shape,
                        };
                        let t = folded_target(target, folded);
                        out.push(suite::fill(seed, spec, t, |rng, index| {
                            let activation = activation_of(folded, activation, index + si);
                            draw(rng, index, code, types, shape, padding, activation)
                        }));
                    }
                }
            }
        }
    }
    out
}

/// Window and strides of model `index`: model 0 a window of 2 to 4 at stride 1 (SAME: over
/// the padding on both sides), model 1 strides 2 and 3, model 2 a 4x4 window at stride 3, the
/// others at random.
pub fn window(rng: &mut Rng, index: usize) -> ((usize, usize), (usize, usize)) {
    match index {
        0 => ((rng.size(2, 4), rng.size(2, 4)), (1, 1)),
        1 => ((rng.size(1, 4), rng.size(1, 4)), (2, 3)),
        2 => ((4, 4), (3, rng.size(1, 3))),
        _ => (
            (rng.size(1, 4), rng.size(1, 4)),
            (rng.size(1, 3), rng.size(1, 3)),
        ),
    }
}

/// The shapes and options of one pooling model: the window and strides of [`window`], the
/// input of shape class `shape`, and the output they give with `padding`.
pub struct Geometry {
    /// Input shape (NHWC).
    pub ishape: [i32; 4],
    /// Output shape.
    pub oshape: [i32; 4],
    /// The op's options.
    pub options: OpOptions,
    /// Input elements.
    pub inputs: usize,
    /// Output elements.
    pub outputs: usize,
    /// Shapes, window, strides and activation, for the model's note.
    pub note: String,
}

/// A model of the device sweeps' class `blocked`: input (height, width), window, strides and
/// channels.
struct Blocked {
    input: (usize, usize),
    window: (usize, usize),
    stride: (usize, usize),
    channels: usize,
}

impl Blocked {
    fn new(
        input: (usize, usize),
        window: (usize, usize),
        stride: (usize, usize),
        channels: usize,
    ) -> Self {
        Self {
            input,
            window,
            stride,
            channels,
        }
    }
}

/// The input (height, width), window, strides and channels of model `index` of the device
/// sweeps' class `blocked`: with SAME padding, model 0 a window as large as its input of 192 to
/// 256 elements (the average's halfword sums at their limit in the middle of a 16 x 16 input)
/// and model 1 one of 272 or 289 (the portable fallback), at stride 1 (as many outputs as
/// inputs: few input sets); with VALID, models 0 and 1 windows of 16 to 49 elements with a few
/// outputs; model 2 a 3 x 3 or 2 x 2 window at stride 2 (16 to 32 channels); the others at
/// random, their channels now and then one to three past a multiple of four.
fn blocked_window(rng: &mut Rng, index: usize, padding: Padding) -> Blocked {
    let same = padding == Padding::Same;
    match index {
        0 if same => {
            let (h, w) = rng.pick(&[(16, 16), (16, 16), (16, 12), (12, 16), (15, 13)]);
            Blocked::new((h, w), (h, w), (1, 1), rng.pick(&[4, 8]))
        }
        1 if same => {
            let (h, w) = rng.pick(&[(17, 16), (16, 17), (17, 17)]);
            Blocked::new((h, w), (h, w), (1, 1), rng.pick(&[4, 5]))
        }
        0 | 1 => {
            let (fh, fw) = (rng.size(4, 7), rng.size(4, 7));
            Blocked::new((fh + 2, fw + 2), (fh, fw), (1, 1), rng.pick(&[4, 8, 12]))
        }
        2 => {
            let f = rng.size(2, 3);
            Blocked::new(
                (rng.size(4, 7), rng.size(4, 7)),
                (f, f),
                (2, 2),
                rng.pick(&[16, 24, 32]),
            )
        }
        _ => Blocked::new(
            (rng.size(2, 7), rng.size(2, 7)),
            (rng.size(1, 4), rng.size(1, 4)),
            (rng.size(1, 3), rng.size(1, 3)),
            if rng.chance(0.6) {
                rng.pick(&[4, 8, 16, 20, 32, 40])
            } else {
                rng.pick(&[5, 6, 7, 13, 18, 35])
            },
        ),
    }
}

/// Draws model `index`'s [`Geometry`]; `None` when the window leaves no output.
pub fn geometry(
    rng: &mut Rng,
    index: usize,
    shape: &str,
    padding: Padding,
    activation: Activation,
) -> Option<Geometry> {
    let blocked = (shape == "blocked").then(|| blocked_window(rng, index, padding));
    let ((fh, fw), (sh, sw)) = match &blocked {
        Some(b) => (b.window, b.stride),
        None => window(rng, index),
    };
    let (n, h, w, c) = match shape {
        "ones" => {
            let (h, w) = if rng.chance(0.5) {
                (1, rng.size(1, 9))
            } else {
                (rng.size(1, 9), 1)
            };
            (1, h, w, rng.size(1, 2))
        }
        "odd" => (
            rng.pick(&[1, 1, 3]),
            2 * rng.size(0, 6) + 1,
            2 * rng.size(0, 6) + 1,
            2 * rng.size(0, 4) + 1,
        ),
        // The DSP kernels' blocks (device sweeps): words of four channels, with one to three
        // more now and then.
        "blocked" => {
            let Blocked {
                input: (h, w),
                channels,
                ..
            } = blocked?;
            (
                if index < 3 { 1 } else { rng.pick(&[1, 2]) },
                h,
                w,
                channels,
            )
        }
        // Many channels, past the kernel's block of 16 and not a multiple of it.
        _ => (
            rng.pick(&[1, 2]),
            rng.size(2, 8),
            rng.size(2, 8),
            rng.pick(&[17, 33, 64, 100, 255, 300]),
        ),
    };
    let oh = out_size(padding, h, fh, sh, 1);
    let ow = out_size(padding, w, fw, sw, 1);
    if oh == 0 || ow == 0 {
        return None;
    }
    let ishape = [s(n), s(h), s(w), s(c)];
    let oshape = [s(n), s(oh), s(ow), s(c)];
    let options = OpOptions::Pool2D {
        padding,
        stride_w: s(sw),
        stride_h: s(sh),
        filter_w: s(fw),
        filter_h: s(fh),
        activation,
    };
    Some(Geometry {
        ishape,
        oshape,
        options,
        inputs: n * h * w * c,
        outputs: n * oh * ow * c,
        note: format!(
            "in {ishape:?} out {oshape:?} filter {:?} stride {:?} act {activation:?}",
            (fh, fw),
            (sh, sw)
        ),
    })
}

#[allow(clippy::too_many_arguments)]
fn draw(
    rng: &mut Rng,
    index: usize,
    code: BuiltinOp,
    types: &str,
    shape: &str,
    padding: Padding,
    activation: Activation,
) -> Option<Draft> {
    let Geometry {
        ishape,
        oshape,
        options,
        inputs,
        outputs,
        mut note,
    } = geometry(rng, index, shape, padding, activation)?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let input = if types != "float32" {
        let dtype = if types == "int16" {
            DType::Int16
        } else {
            DType::Int8
        };
        let mut qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, dtype));
        let mut qo = qi.clone();
        if index == 2 || (index >= 3 && rng.chance(0.3)) {
            // TFLM accepts |input scale - output scale| <= 1e-6 (in float). With RELU6 and
            // RELU_N1_TO_1 the input scale puts the bound (6 or 1) half-way between two steps,
            // so that the output's scale decides which way it rounds; else a small scale, that
            // 1e-6 changes much.
            let half_way = |bound: f64, rng: &mut Rng| bound / (rng.range(1, 126) as f64 + 0.5);
            let base = match activation {
                Activation::Relu6 => half_way(6.0, rng),
                Activation::ReluN1To1 => half_way(1.0, rng),
                _ => f64::from(rng.log_uniform(1e-6, 1e-4)),
            };
            let delta = f64::from(rng.log_uniform(1e-9, 0.9e-6)) * rng.pick(&[-1.0, 1.0]);
            if base + delta > 0.0 {
                qi.scale[0] = base as f32;
                qo.scale[0] = (base + delta) as f32;
            }
        }
        let x = b.quantized(sg, "input", dtype, &ishape, qi.spec());
        let y = b.quantized(sg, "output", dtype, &oshape, qo.spec());
        b.op_with_options(sg, code, &[x], &[y], options);
        b.io(sg, &[x], &[y]);
        note += &format!(" in q {:?} out q {:?}", (qi.s(), qi.z()), (qo.s(), qo.z()));
        InputSpec::int(dtype, inputs, qi.z())
    } else {
        let x = b.tensor(sg, "input", DType::Float32, &ishape);
        let y = b.tensor(sg, "output", DType::Float32, &oshape);
        b.op_with_options(sg, code, &[x], &[y], options);
        b.io(sg, &[x], &[y]);
        InputSpec::float(inputs, 1.0)
    };
    Some(Draft::new(&b, vec![input], outputs, note))
}
