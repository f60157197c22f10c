//! RESHAPE (the shape as a constant input, with or without a -1, or no shape input at all),
//! SQUEEZE (without options: every dimension of 1 goes) and EXPAND_DIMS (every axis, negative
//! ones included, as a scalar or a one-element constant): int8, float32, int16 and (not
//! EXPAND_DIMS) int32. stowplan copies or aliases the bytes; TFLM copies them.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType};

use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements};

/// The variants: (builtin, options).
const KINDS: [(&str, &str); 6] = [
    ("RESHAPE", "shape constant"),
    ("RESHAPE", "shape constant with -1"),
    ("RESHAPE", "no shape input"),
    ("SQUEEZE", "no options"),
    ("EXPAND_DIMS", "axis [1]"),
    ("EXPAND_DIMS", "axis scalar"),
];

/// The types: stowplan copies any; TFLM's RESHAPE and SQUEEZE copy any too.
const TYPES: [(&str, DType); 4] = [
    ("int8", DType::Int8),
    ("float32", DType::Float32),
    ("int16", DType::Int16),
    ("int32", DType::Int32),
];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for (types, dtype) in TYPES {
        for (builtin, options) in KINDS {
            // TFLM's EXPAND_DIMS copies float32, int16 and int8 only (expand_dims.cc:127-140).
            if builtin == "EXPAND_DIMS" && dtype == DType::Int32 {
                continue;
            }
            // Every rank; EXPAND_DIMS each twice, for more of its axes.
            let target = Target {
                values: target.values,
                models: target
                    .models
                    .max(if builtin == "EXPAND_DIMS" { 12 } else { 6 }),
            };
            let spec = Spec {
                op: "reshape",
                builtin,
                types: types.to_owned(),
                options: options.to_owned(),
                shape: "any",
            };
            out.push(suite::fill(seed, spec, target, |rng, index| {
                draw(rng, index, dtype, builtin, options)
            }));
        }
    }
    out
}

/// `n` factored into `rank` dimensions at random (1s included).
fn factor(rng: &mut Rng, n: usize, rank: usize) -> Vec<usize> {
    let mut dims = vec![1; rank];
    if rank == 0 {
        return dims;
    }
    let mut rest = n;
    let mut p = 2;
    while rest > 1 {
        if rest.is_multiple_of(p) {
            let d = rng.below(rank as u64) as usize;
            dims[d] *= p;
            rest /= p;
        } else {
            p += 1;
        }
    }
    dims
}

/// Input shape, output shape, and the second input (shape, values) if any.
type Shapes = (Vec<usize>, Vec<usize>, Option<(Vec<usize>, Vec<i64>)>);

fn draw(rng: &mut Rng, index: usize, dtype: DType, builtin: &str, options: &str) -> Option<Draft> {
    let wide = rng.chance(0.2);
    let (ishape, oshape, second): Shapes = match builtin {
        "RESHAPE" => {
            // Model 3 reshapes one element to a scalar (with a shape input, that constant
            // is `[0]`-shaped and empty, as the converter writes `tf.reshape(x, [])`).
            let scalar = index == 3 && !options.ends_with("-1");
            let ishape = if scalar {
                vec![1; 4]
            } else {
                suite::shape_within(rng, 1 + index % 6, 2000, wide)
            };
            let n = elements(&ishape);
            let orank = if scalar { 0 } else { rng.size(1, 6) };
            let oshape = factor(rng, n, orank);
            let mut values: Vec<i64> = oshape
                .iter()
                .map(|&d| i64::try_from(d).unwrap_or(0))
                .collect();
            if options.ends_with("-1") && orank > 0 {
                let k = rng.below(orank as u64) as usize;
                values[k] = -1;
            }
            let second = (options != "no shape input").then(|| (vec![orank], values));
            (ishape, oshape, second)
        }
        "SQUEEZE" => {
            // Dimensions of at least 2, with 1s put in between.
            let base: Vec<usize> = suite::shape_within(rng, index % 5, 2000, wide)
                .into_iter()
                .map(|d| d.max(2))
                .collect();
            let mut ishape = base.clone();
            for _ in 0..rng.size(1, 3) {
                let at = rng.size(0, ishape.len());
                ishape.insert(at, 1);
            }
            (ishape, base, None)
        }
        _ => {
            let rank = index % 6;
            let ishape = suite::shape_within(rng, rank, 2000, wide);
            // Any axis of -(rank + 1)..=rank.
            let r = i64::try_from(rank).unwrap_or(0);
            let axis = rng.range(-(r + 1), r);
            let at = usize::try_from(if axis < 0 { axis + r + 1 } else { axis }).ok()?;
            let mut oshape = ishape.clone();
            oshape.insert(at, 1);
            let shape = if options == "axis scalar" {
                vec![]
            } else {
                vec![1]
            };
            (ishape, oshape, Some((shape, vec![axis])))
        }
    };
    let op = BuiltinOp::from_name(builtin)?;
    let (qi, qo) = if dtype == DType::Int8 {
        let qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8));
        let qo = if rng.chance(0.8) {
            qi.clone()
        } else {
            Quant::tensor(suite::scale(rng), suite::zero_point(rng, DType::Int8))
        };
        (Some(qi), Some(qo))
    } else {
        (None, None)
    };
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::activation(&mut b, sg, "input", dtype, &ishape, qi.as_ref());
    let y = suite::activation(&mut b, sg, "output", dtype, &oshape, qo.as_ref());
    let mut inputs = vec![x];
    let mut second_note = String::new();
    if let Some((shape, values)) = &second {
        let t = b.constant(
            sg,
            "shape",
            DType::Int32,
            &suite::dims(shape),
            &suite::int_bytes(DType::Int32, values),
        );
        inputs.push(t);
        second_note = format!(" second input {shape:?} = {values:?}");
    }
    b.op(sg, op, &inputs, &[y]);
    b.io(sg, &[x], &[y]);
    let n = elements(&ishape);
    let input = if dtype == DType::Float32 {
        InputSpec::float(n, 1.0)
    } else {
        InputSpec::int(dtype, n, qi.as_ref().map_or(0, Quant::z))
    };
    let note = format!("in {ishape:?} out {oshape:?}{second_note}");
    Some(Draft::new(&b, vec![input], n, note))
}
