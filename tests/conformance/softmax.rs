//! SOFTMAX: int8 -> int8 (TFLM requires the output's scale to be exactly 1/256 and its zero
//! point -128), int8 -> int16 (1/65536 and -32768), int16 -> int16 (zero points 0, output
//! scale 1/32768; TFLM's lookup tables) and float32, with beta 1 and betas at random in `[0.1, 10)`, over three shape
//! classes of rows x depth (inputs of rank 1 to 4): depth 1, odd depths, large depths.
//!
//! Large depths stay below 512: TFLM's int8 kernel aborts (`TFLITE_CHECK(0 <= exponent &&
//! exponent <= 31)` in `reference_ops::Softmax`) on a row whose sum of exponentials reaches
//! 512, which a row of 512 equal values does.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant};

/// `SOFTMAX`.
const SOFTMAX: BuiltinOp = BuiltinOp(25);

fn s(v: usize) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

/// The variants: at least 8 models each, since the parameters depend on the input scale and
/// beta, drawn per model.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        models: target.models.max(8),
        ..target
    };
    let mut out = Vec::new();
    for types in ["int8", "float32", "int8->int16", "int16"] {
        for betas in ["beta 1", "beta random"] {
            for shape in ["depth1", "odd", "large"] {
                let spec = Spec {
                    op: "softmax",
                    builtin: "SOFTMAX",
                    types: types.to_owned(),
                    options: betas.to_owned(),
                    shape,
                };
                out.push(suite::fill(seed, spec, target, |rng, index| {
                    draw(rng, index, types, betas == "beta 1", shape)
                }));
            }
        }
    }
    out
}

/// An input shape of `rows` x `depth`, of rank 1 to 4 (rank 1 only for one row).
fn shape_of(rng: &mut Rng, rows: usize, depth: usize) -> Vec<i32> {
    let rank = if rows == 1 {
        rng.size(1, 4)
    } else {
        rng.size(2, 4)
    };
    let mut dims = vec![1; rank];
    dims[rank - 1] = s(depth);
    if rank > 1 {
        // All the rows in one leading dimension, the others 1.
        let at = rng.size(0, rank - 2);
        dims[at] = s(rows);
    }
    dims
}

fn draw(rng: &mut Rng, index: usize, types: &str, beta_one: bool, shape: &str) -> Option<Draft> {
    let (rows, depth) = match shape {
        "depth1" => (rng.size(1, 64), 1),
        "odd" => (2 * rng.size(0, 4) + 1, 2 * rng.size(1, 15) + 1),
        _ => (rng.size(1, 3), rng.size(100, 511)),
    };
    let beta = if beta_one {
        1.0
    } else {
        match index {
            0 => 0.1,
            1 => 10.0,
            _ => rng.log_uniform(0.1, 10.0),
        }
    };
    let ishape = shape_of(rng, rows, depth);
    let options = OpOptions::Softmax { beta };
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let mut note = format!("in {ishape:?} beta {beta}");
    let input = if types == "int16" {
        // Input scales around the ones TFLM's converter gives (10 / 65535 maps the int16 range
        // onto the exp table's [-10, 0]) and over the whole range.
        let scale = match index % 3 {
            0 => (10.0 / 32768.0 * f64::from(rng.log_uniform(0.1, 10.0))) as f32,
            _ => suite::scale(rng),
        };
        let qi = Quant::tensor(scale, 0);
        // The output scale may be off 1/32768 by up to 0.1 % (TF_LITE_ENSURE_NEAR).
        let off = if index == 4 { 1.0009 } else { 1.0 };
        let qo = Quant::tensor((off / 32768.0) as f32, 0);
        let x = b.quantized(sg, "input", DType::Int16, &ishape, qi.spec());
        let y = b.quantized(sg, "output", DType::Int16, &ishape, qo.spec());
        b.op_with_options(sg, SOFTMAX, &[x], &[y], options);
        b.io(sg, &[x], &[y]);
        note += &format!(" in q {:?} out q {:?}", (qi.s(), qi.z()), (qo.s(), qo.z()));
        InputSpec::int(DType::Int16, rows * depth, 0)
    } else if types.starts_with("int8") {
        let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
        let (out_type, qo) = if types == "int8->int16" {
            let off = if index == 4 { 0.9991 } else { 1.0 };
            (DType::Int16, Quant::tensor((off / 65536.0) as f32, -32768))
        } else {
            (DType::Int8, Quant::tensor(1.0 / 256.0, -128))
        };
        let x = b.quantized(sg, "input", DType::Int8, &ishape, qi.spec());
        let y = b.quantized(sg, "output", out_type, &ishape, qo.spec());
        b.op_with_options(sg, SOFTMAX, &[x], &[y], options);
        b.io(sg, &[x], &[y]);
        note += &format!(" in q {:?}", (qi.s(), qi.z()));
        InputSpec::int(DType::Int8, rows * depth, qi.z())
    } else {
        let x = b.tensor(sg, "input", DType::Float32, &ishape);
        let y = b.tensor(sg, "output", DType::Float32, &ishape);
        b.op_with_options(sg, SOFTMAX, &[x], &[y], options);
        b.io(sg, &[x], &[y]);
        InputSpec::float(rows * depth, 1.0)
    };
    Some(Draft::new(&b, vec![input], rows * depth, note))
}
