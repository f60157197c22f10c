//! STRIDED_SLICE: float32, int8, int16, int32 and bool, ranks 1 to 4: positive strides without
//! masks, begin and end masks with indices anywhere (negative, past the ends), negative
//! strides, shrunk axes, and the options TFLM's micro kernel ignores (`ellipsis_mask`,
//! `new_axis_mask`, `offset`) set at random on models whose output shape is the one TFLM
//! computes without them.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::suite::{self, Draft, Rng, Spec, Target, Variant, elements};

/// The types TFLM's STRIDED_SLICE takes (strided_slice.cc:39-79).
const TYPES: [(&str, DType); 5] = [
    ("float32", DType::Float32),
    ("int8", DType::Int8),
    ("int16", DType::Int16),
    ("int32", DType::Int32),
    ("bool", DType::Bool),
];

/// The classes.
const CLASSES: [&str; 3] = [
    "plain or ignored options",
    "masks or negative strides",
    "shrink",
];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let target = Target {
        values: target.values,
        models: target.models.max(5),
    };
    let mut out = Vec::new();
    for (tname, dtype) in TYPES {
        for class in CLASSES {
            let spec = Spec {
                op: "strided_slice",
                builtin: "STRIDED_SLICE",
                types: tname.to_owned(),
                options: String::new(),
                shape: class,
            };
            out.push(suite::fill(seed, spec, target, |rng, index| {
                let class = match (class, index % 2) {
                    ("plain or ignored options", 0) => "plain",
                    ("plain or ignored options", _) => "ignored options",
                    ("masks or negative strides", 0) => "masks",
                    ("masks or negative strides", _) => "negative strides",
                    _ => "shrink",
                };
                draw(rng, index, dtype, class)
            }));
        }
    }
    // new_axis_mask with the output shape TFLite gives it (an added dimension of 1): TFLM's
    // micro kernel ignores the mask, so its Prepare refuses the shape, and so does stowplan.
    let spec = Spec {
        op: "strided_slice",
        builtin: "STRIDED_SLICE",
        types: "float32".to_owned(),
        options: "new_axis_mask".to_owned(),
        shape: "refused",
    };
    out.push(suite::fill(
        seed,
        spec,
        Target {
            values: 0,
            models: 3,
        },
        |rng, _| {
            let n = rng.size(2, 6);
            let op = BuiltinOp::from_name("STRIDED_SLICE")?;
            let mut b = ModelBuilder::new();
            let sg = b.subgraph("main");
            let x = b.tensor(sg, "input", DType::Float32, &[n as i32]);
            let i32s = |v: &[i64]| suite::int_bytes(DType::Int32, v);
            let bt = b.constant(sg, "begin", DType::Int32, &[1], &i32s(&[0]));
            let et = b.constant(sg, "end", DType::Int32, &[1], &i32s(&[n as i64]));
            let st = b.constant(sg, "strides", DType::Int32, &[1], &i32s(&[1]));
            let y = b.tensor(sg, "output", DType::Float32, &[1, n as i32]);
            let options = OpOptions::StridedSlice {
                begin_mask: 0,
                end_mask: 0,
                ellipsis_mask: 0,
                new_axis_mask: 1,
                shrink_axis_mask: 0,
                offset: false,
            };
            b.op_with_options(sg, op, &[x, bt, et, st], &[y], options);
            b.io(sg, &[x], &[y]);
            let input = suite::InputSpec::float(n, 1.0);
            Some(Draft::new(
                &b,
                vec![input],
                n,
                format!("[{n}] to [1, {n}] by new_axis_mask"),
            ))
        },
    ));
    out
}

fn clamp(v: i64, lo: i64, hi: i64) -> i64 {
    v.max(lo).min(hi)
}

/// TFLM's `CheckOutputSize` (strided_slice_common.cc:90-125) with `StartForAxis` and
/// `StopForAxis` (strided_slice_logic.h): the output shape TFLM's Prepare demands.
fn output_shape(
    ishape: &[usize],
    (begin, end, strides): (&[i64], &[i64], &[i64]),
    (begin_mask, end_mask, shrink): (i32, i32, i32),
) -> Vec<usize> {
    let mut out = Vec::new();
    for (d, &n) in ishape.iter().enumerate() {
        let n = n as i64;
        let s = strides[d];
        let mut b = if begin_mask & (1 << d) != 0 {
            if s > 0 {
                i64::from(i32::MIN)
            } else {
                i64::from(i32::MAX)
            }
        } else {
            begin[d]
        };
        if b < 0 {
            b += n;
        }
        b = if s > 0 {
            clamp(b, 0, n)
        } else {
            clamp(b, -1, n - 1)
        };
        let shrunk = shrink & (1 << d) != 0;
        let e = if shrunk {
            b + 1
        } else {
            let mut e = if end_mask & (1 << d) != 0 {
                if s > 0 {
                    i64::from(i32::MAX)
                } else {
                    i64::from(i32::MIN)
                }
            } else {
                end[d]
            };
            if e < 0 {
                e += n;
            }
            if s > 0 {
                clamp(e, 0, n)
            } else {
                clamp(e, -1, n - 1)
            }
        };
        let dim = ((e - b) as f32 / s as f32).ceil() as i64;
        if !shrunk {
            out.push(dim.max(0) as usize);
        }
    }
    out
}

fn draw(rng: &mut Rng, index: usize, dtype: DType, class: &str) -> Option<Draft> {
    let rank = 1 + index % 4;
    let ishape = {
        let wide = rng.chance(0.2);
        suite::shape_within(rng, rank, 2000, wide)
    };
    let (mut begin, mut end, mut strides) = (Vec::new(), Vec::new(), Vec::new());
    let (mut begin_mask, mut end_mask, mut shrink) = (0_i32, 0_i32, 0_i32);
    let (mut ellipsis, mut new_axis, mut offset) = (0_i32, 0_i32, false);
    for (d, &n) in ishape.iter().enumerate() {
        let n = n as i64;
        let anywhere = |rng: &mut Rng| rng.range(-n - 2, n + 2);
        let (b, e, s) = match class {
            "plain" => {
                let b = rng.range(0, n - 1);
                (b, rng.range(b + 1, n), rng.range(1, 3))
            }
            "masks" => {
                if rng.chance(0.4) {
                    begin_mask |= 1 << d;
                }
                if rng.chance(0.4) {
                    end_mask |= 1 << d;
                }
                let s = *[1, 2, 3, -1, -2].get(rng.below(5) as usize)?;
                (anywhere(rng), anywhere(rng), s)
            }
            "negative strides" => (anywhere(rng), anywhere(rng), rng.range(-3, -1)),
            "shrink" => {
                if rng.chance(0.5) {
                    shrink |= 1 << d;
                    // A shrunk axis needs an index inside the axis and a positive stride (else
                    // TFLM's kernel writes nothing for it).
                    (rng.range(-n, n - 1), anywhere(rng), rng.range(1, 2))
                } else {
                    (anywhere(rng), anywhere(rng), rng.range(1, 2))
                }
            }
            _ => {
                if rng.chance(0.5) {
                    ellipsis |= 1 << d;
                }
                if rng.chance(0.5) {
                    new_axis |= 1 << d;
                }
                offset = rng.chance(0.5);
                let b = rng.range(0, n - 1);
                (b, rng.range(b + 1, n), rng.range(1, 2))
            }
        };
        begin.push(b);
        end.push(e);
        strides.push(s);
    }
    if index < 2 && class == "masks" {
        // Every bit of both masks: the whole input (reversed along the negative strides).
        begin_mask = 0xff;
        end_mask = 0xff;
    }
    let oshape = output_shape(
        &ishape,
        (&begin, &end, &strides),
        (begin_mask, end_mask, shrink),
    );
    if oshape.contains(&0) {
        // TFLM refuses tensors without elements.
        return None;
    }
    if elements(&oshape) < 12 && rng.chance(0.8) {
        // Mostly outputs of some size: a tiny one needs many runs of a large input.
        return None;
    }
    let op = BuiltinOp::from_name("STRIDED_SLICE")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &ishape, q.as_ref());
    let y = suite::data_tensor(&mut b, sg, "output", dtype, &oshape, q.as_ref());
    let i32s = |v: &[i64]| suite::int_bytes(DType::Int32, v);
    let r = [rank as i32];
    let bt = b.constant(sg, "begin", DType::Int32, &r, &i32s(&begin));
    let et = b.constant(sg, "end", DType::Int32, &r, &i32s(&end));
    let st = b.constant(sg, "strides", DType::Int32, &r, &i32s(&strides));
    let options = OpOptions::StridedSlice {
        begin_mask,
        end_mask,
        ellipsis_mask: ellipsis,
        new_axis_mask: new_axis,
        shrink_axis_mask: shrink,
        offset,
    };
    b.op_with_options(sg, op, &[x, bt, et, st], &[y], options);
    b.io(sg, &[x], &[y]);
    let note = format!(
        "in {ishape:?} begin {begin:?} end {end:?} strides {strides:?} masks b{begin_mask:#x} e{end_mask:#x} s{shrink:#x} (ignored: ellipsis {ellipsis:#x} new {new_axis:#x} offset {offset}) out {oshape:?}"
    );
    let input = suite::data_input(dtype, elements(&ishape), q.as_ref());
    Some(Draft::new(&b, vec![input], elements(&oshape), note))
}
