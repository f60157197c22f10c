//! MEAN: int8, int16 and float32; one axis, several (with now and then a duplicate), all of them, and
//! negative ones, with and without `keep_dims`, inputs of rank 2 to 4 drawn per model, over
//! three shape classes. The float 4-D mean over axes 1 and 2 with `keep_dims` (TFLM's special
//! case, the global average pool) is the first two models of every float "several" variant
//! with `keep_dims`.
//!
//! int8 and int16 outputs are quantised like the input, at a scale near the input's, at any scale, or
//! at scales that make the input / output ratio tiny (1e-8 to 1e-6: the kernel clamps its
//! 1 / count shift) or huge (1e6 to 1e8), with any zero point.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::suite::{self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, int_bytes};

/// `MEAN`.
const MEAN: BuiltinOp = BuiltinOp(40);

fn s(v: usize) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for types in ["int8", "float32", "int16"] {
        for axes in ["single", "several", "all", "negative"] {
            for keep_dims in [true, false] {
                for shape in ["ones", "odd", "wide"] {
                    let spec = Spec {
                        op: "reduce",
                        builtin: "MEAN",
                        types: types.to_owned(),
                        options: format!(
                            "{axes} axes{}",
                            if keep_dims { " keep_dims" } else { "" }
                        ),
                        shape,
                    };
                    out.push(suite::fill(seed, spec, target, |rng, index| {
                        draw(rng, target, index, types, axes, keep_dims, shape)
                    }));
                }
            }
        }
    }
    out
}

/// Shuffles `v` in place (Fisher-Yates).
fn shuffle<T>(rng: &mut Rng, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
}

/// The input shape of rank `rank` for shape class `shape`, at most about 30,000 elements.
fn input_shape(rng: &mut Rng, rank: usize, shape: &str) -> Vec<usize> {
    match shape {
        // Dimensions of 1 among small ones.
        "ones" => (0..rank).map(|_| rng.pick(&[1, 1, 2, 3])).collect(),
        "odd" => (0..rank).map(|_| 2 * rng.size(1, 4) + 1).collect(),
        // One large dimension (channels), the others middling.
        _ => {
            let mut dims: Vec<usize> = (0..rank).map(|_| rng.size(2, 9)).collect();
            let at = if rng.chance(0.6) {
                rank - 1
            } else {
                rng.size(0, rank - 1)
            };
            let rest: usize = dims
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != at)
                .map(|(_, &d)| d)
                .product();
            dims[at] = rng.size(100, 400).min(30_000 / rest.max(1)).max(2);
            dims
        }
    }
}

/// The axis tensor's values for kind `axes` at rank `rank` (model `index`).
fn axis_values(rng: &mut Rng, index: usize, axes: &str, rank: usize) -> Vec<i64> {
    let r = rank as i64;
    match axes {
        "single" => vec![rng.range(0, r - 1)],
        "several" => {
            let mut all: Vec<i64> = (0..r).collect();
            shuffle(rng, &mut all);
            let k = rng.size(2, rank - 1);
            let mut v: Vec<i64> = all[..k].to_vec();
            if v.len() < 4 && rng.chance(0.25) {
                // A duplicate: TFLM's ResolveAxis drops it.
                let d = v[0];
                v.push(d);
            }
            if index < 2 && rank == 4 {
                v = if index == 0 { vec![1, 2] } else { vec![2, 1] };
            }
            v
        }
        "all" => {
            let mut all: Vec<i64> = (0..r).collect();
            if index > 0 {
                shuffle(rng, &mut all);
            }
            all
        }
        _ => {
            // Negative axes, now and then with a non-negative one.
            let mut all: Vec<i64> = (-r..0).collect();
            shuffle(rng, &mut all);
            let k = if index == 0 { 1 } else { rng.size(1, rank) };
            let mut v: Vec<i64> = all[..k].to_vec();
            if k > 1 && rng.chance(0.3) {
                v[0] += r;
            }
            v
        }
    }
}

/// Input elements over all the input sets of one model, at most.
const INPUT_BUDGET: usize = 1_500_000;

/// The input sets `suite::fill` gives a model of `out_len` output values: the edge sets and
/// the random ones that make up its share of the target.
fn runs(target: Target, out_len: usize) -> usize {
    let share = (target.values / target.models.max(1)).max(1);
    share
        .div_ceil(out_len.max(1))
        .saturating_sub(suite::EDGES.len())
        .clamp(1, 2000)
        + suite::EDGES.len()
}

#[allow(clippy::too_many_arguments)]
fn draw(
    rng: &mut Rng,
    target: Target,
    index: usize,
    types: &str,
    axes: &str,
    keep_dims: bool,
    shape: &str,
) -> Option<Draft> {
    // "several" needs a rank of 3 at least; the special case rank 4.
    let rank = match axes {
        "several" if index < 2 => 4,
        "several" => rng.size(3, 4),
        _ => match index {
            0 => 2,
            1 => 3,
            2 => 4,
            _ => rng.size(2, 4),
        },
    };
    let mut ishape = input_shape(rng, rank, shape);
    let axis = axis_values(rng, index, axes, rank);
    let mut reduced = vec![false; rank];
    for &a in &axis {
        reduced[usize::try_from(if a < 0 { a + rank as i64 } else { a }).ok()?] = true;
    }
    let output_shape = |ishape: &[usize]| -> Vec<usize> {
        if keep_dims {
            (0..rank)
                .map(|d| if reduced[d] { 1 } else { ishape[d] })
                .collect()
        } else {
            (0..rank)
                .filter(|&d| !reduced[d])
                .map(|d| ishape[d])
                .collect()
        }
    };
    // Few outputs mean many runs: halve the largest dimension until the model's input sets
    // stay within the budget.
    let mut oshape = output_shape(&ishape);
    while ishape.iter().product::<usize>() * runs(target, oshape.iter().product()) > INPUT_BUDGET {
        let (at, &largest) = ishape.iter().enumerate().max_by_key(|&(_, &d)| d)?;
        if largest <= 1 {
            break;
        }
        ishape[at] = largest.div_ceil(2);
        oshape = output_shape(&ishape);
    }
    let ishape_i: Vec<i32> = ishape.iter().map(|&d| s(d)).collect();
    let oshape_i: Vec<i32> = oshape.iter().map(|&d| s(d)).collect();
    let in_len: usize = ishape.iter().product();
    let out_len: usize = oshape.iter().product();
    // A scalar axis tensor now and then for a single axis.
    let axis_shape: Vec<i32> = if axis.len() == 1 && rng.chance(0.25) {
        Vec::new()
    } else {
        vec![s(axis.len())]
    };
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let ax = b.constant(
        sg,
        "axis",
        DType::Int32,
        &axis_shape,
        &int_bytes(DType::Int32, &axis),
    );
    let options = OpOptions::Reducer { keep_dims };
    let mut note = format!("in {ishape:?} axis {axis:?} (shape {axis_shape:?}) out {oshape:?}");
    let input = if types != "float32" {
        let dtype = if types == "int16" {
            DType::Int16
        } else {
            DType::Int8
        };
        let mut qi = Quant::tensor(suite::scale(rng), suite::zero_point(rng, dtype));
        let zo = suite::zero_point(rng, dtype);
        let qo = match rng.below(5) {
            0 => qi.clone(),
            1 => Quant::tensor(
                (f64::from(qi.s()) * f64::from(rng.log_uniform(0.1, 10.0))) as f32,
                zo,
            ),
            2 => Quant::tensor(suite::scale(rng), zo),
            3 => {
                // A tiny input / output ratio (shift -20 and below): the kernel's 1 / count
                // shift is clamped to 31 + shift.
                qi.scale[0] = rng.log_uniform(1e-6, 1e-5);
                Quant::tensor(rng.log_uniform(10.0, 100.0), zo)
            }
            _ => {
                // A huge ratio (shift 20 and above): the sum is shifted left past 32 bits.
                qi.scale[0] = rng.log_uniform(10.0, 100.0);
                Quant::tensor(rng.log_uniform(1e-6, 1e-5), zo)
            }
        };
        let x = b.quantized(sg, "input", dtype, &ishape_i, qi.spec());
        let y = b.quantized(sg, "output", dtype, &oshape_i, qo.spec());
        b.op_with_options(sg, MEAN, &[x, ax], &[y], options);
        b.io(sg, &[x], &[y]);
        note += &format!(" in q {:?} out q {:?}", (qi.s(), qi.z()), (qo.s(), qo.z()));
        InputSpec::int(dtype, in_len, qi.z())
    } else {
        let x = b.tensor(sg, "input", DType::Float32, &ishape_i);
        let y = b.tensor(sg, "output", DType::Float32, &oshape_i);
        b.op_with_options(sg, MEAN, &[x, ax], &[y], options);
        b.io(sg, &[x], &[y]);
        InputSpec::float(in_len, 1.0)
    };
    Some(Draft::new(&b, vec![input], out_len, note))
}

/// REDUCE_ALL (bool), REDUCE_MAX, REDUCE_MIN (float32; int8 quantised as the output, as TFLM requires) and SUM
/// (float32; int8 and int16 at any output scale), ranks 1 to 5, the same axis classes as MEAN
/// (two to a variant, models alternating), `keep_dims` drawn per model; float inputs with NaN, infinities and signed zeros among the
/// special sets.
pub fn more_variants(seed: u64, target: Target) -> Vec<Variant> {
    let cases: [(&str, &str, DType); 8] = [
        ("REDUCE_ALL", "bool", DType::Bool),
        ("REDUCE_MAX", "float32", DType::Float32),
        ("REDUCE_MAX", "int8", DType::Int8),
        ("REDUCE_MIN", "float32", DType::Float32),
        ("REDUCE_MIN", "int8", DType::Int8),
        ("SUM", "float32", DType::Float32),
        ("SUM", "int8", DType::Int8),
        ("SUM", "int16", DType::Int16),
    ];
    let mut out = Vec::new();
    for (builtin, types, dtype) in cases {
        for classes in [["single", "negative"], ["several", "all"]] {
            let spec = Spec {
                op: "reduce",
                builtin,
                types: types.to_owned(),
                options: format!("{builtin} {} or {} axes", classes[0], classes[1]),
                shape: "ranks 1 to 5",
            };
            out.push(suite::fill_with_sets(seed, spec, target, |rng, index| {
                let axes = classes[index % 2];
                draw_more(rng, target, index / 2, builtin, dtype, axes)
            }));
        }
    }
    // int32 SUM: TFLM's EvalSumHelper refuses it (reduce_common.cc:413-416), and so does
    // stowplan.
    let spec = Spec {
        op: "reduce",
        builtin: "SUM",
        types: "int32".to_owned(),
        options: "SUM single axes".to_owned(),
        shape: "refused",
    };
    let few = Target {
        values: 0,
        models: 3,
    };
    out.push(suite::fill_with_sets(seed, spec, few, |rng, index| {
        draw_more(rng, few, index, "SUM", DType::Int32, "single")
    }));
    out
}

fn draw_more(
    rng: &mut Rng,
    target: Target,
    index: usize,
    builtin: &str,
    dtype: DType,
    axes: &str,
) -> Option<(Draft, Vec<Vec<u8>>)> {
    let rank = match axes {
        "several" => 3 + index % 3,
        _ => 1 + index % 5,
    };
    let shape_class = ["ones", "odd", "wide"][index % 3];
    let mut ishape = input_shape(rng, rank, shape_class);
    let axis = axis_values(rng, index, axes, rank);
    let keep_dims = rng.chance(0.5);
    let mut reduced = vec![false; rank];
    for &a in &axis {
        reduced[usize::try_from(if a < 0 { a + rank as i64 } else { a }).ok()?] = true;
    }
    let output_shape = |ishape: &[usize]| -> Vec<usize> {
        (0..rank)
            .filter(|&d| keep_dims || !reduced[d])
            .map(|d| if reduced[d] { 1 } else { ishape[d] })
            .collect()
    };
    let mut oshape = output_shape(&ishape);
    while ishape.iter().product::<usize>() * runs(target, oshape.iter().product()) > INPUT_BUDGET {
        let (at, &largest) = ishape.iter().enumerate().max_by_key(|&(_, &d)| d)?;
        if largest <= 1 {
            break;
        }
        ishape[at] = largest.div_ceil(2);
        oshape = output_shape(&ishape);
    }
    let in_len: usize = ishape.iter().product();
    let out_len: usize = oshape.iter().product();
    let count = in_len / out_len.max(1);
    let op = BuiltinOp::from_name(builtin)?;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let ax = b.constant(
        sg,
        "axis",
        DType::Int32,
        &[s(axis.len())],
        &int_bytes(DType::Int32, &axis),
    );
    let (qi, qo) = match dtype {
        DType::Float32 | DType::Bool => (None, None),
        _ if builtin != "SUM" => {
            let q = Quant::tensor(suite::scale(rng), suite::zero_point(rng, dtype));
            (Some(q.clone()), Some(q))
        }
        _ => {
            let zp = |rng: &mut Rng| {
                if dtype == DType::Int16 {
                    0
                } else {
                    suite::zero_point(rng, dtype)
                }
            };
            let qi = Quant::tensor(suite::scale(rng), zp(rng));
            let so = match rng.below(3) {
                0 => {
                    f64::from(qi.s()) * (count as f64).sqrt() * f64::from(rng.log_uniform(0.3, 3.0))
                }
                1 => f64::from(qi.s()) * count as f64,
                _ => f64::from(suite::scale(rng)),
            };
            let qo = Quant::tensor(so as f32, zp(rng));
            (Some(qi), Some(qo))
        }
    };
    let x = suite::activation(&mut b, sg, "input", dtype, &ishape, qi.as_ref());
    let y = suite::activation(&mut b, sg, "output", dtype, &oshape, qo.as_ref());
    b.op_with_options(sg, op, &[x, ax], &[y], OpOptions::Reducer { keep_dims });
    b.io(sg, &[x], &[y]);
    let sets: Vec<Vec<u8>> = match dtype {
        DType::Float32 => (0..3)
            .map(|k| suite::cycle_f32(in_len, &suite::F32_SPECIALS, k * 7))
            .collect(),
        // Mostly true, so that whole reductions come out true as well as false.
        DType::Bool => [0.9, 0.99, 1.0]
            .iter()
            .map(|&p| (0..in_len).map(|_| u8::from(rng.chance(p))).collect())
            .collect(),
        _ => Vec::new(),
    };
    let note = format!(
        "in {ishape:?} axis {axis:?} keep_dims {keep_dims} out {oshape:?} q {:?} -> {:?}",
        qi.as_ref().map(|q| (q.s(), q.z())),
        qo.as_ref().map(|q| (q.s(), q.z()))
    );
    let input = match &qi {
        Some(q) => InputSpec::int(dtype, in_len, q.z()),
        None if dtype == DType::Bool => InputSpec::int(dtype, in_len, 0),
        None => InputSpec::float(in_len, 1.0),
    };
    Some((Draft::new(&b, vec![input], out_len, note), sets))
}
