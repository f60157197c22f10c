//! GATHER: float32 and int8 data, int32 coordinates (model inputs within the axis, or
//! constants), along axis 0, an inner axis (negative now and then), and with `batch_dims`.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::suite::{self, Bounds, Draft, Rng, Spec, Target, Variant, elements};

/// The types TFLM's GATHER takes (gather.cc:128-140).
const TYPES: [(&str, DType); 2] = [("float32", DType::Float32), ("int8", DType::Int8)];

/// The classes.
const CLASSES: [&str; 3] = ["axis 0", "inner axis", "batch_dims"];

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
                op: "gather",
                builtin: "GATHER",
                types: tname.to_owned(),
                options: String::new(),
                shape: class,
            };
            out.push(suite::fill_bounded(seed, spec, target, |rng, index| {
                draw(rng, index, dtype, class)
            }));
        }
    }
    // int64 coordinates: TFLM's Prepare refuses them (gather.cc:118-126), and so does stowplan.
    let spec = Spec {
        op: "gather",
        builtin: "GATHER",
        types: "float32".to_owned(),
        options: "int64 coordinates".to_owned(),
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
            let n = rng.size(2, 9);
            let op = BuiltinOp::from_name("GATHER")?;
            let mut b = ModelBuilder::new();
            let sg = b.subgraph("main");
            let x = b.tensor(sg, "input", DType::Float32, &[n as i32, 3]);
            let c = b.constant(
                sg,
                "coords",
                DType::Int64,
                &[2],
                &suite::int_bytes(DType::Int64, &[1, 0]),
            );
            let y = b.tensor(sg, "output", DType::Float32, &[2, 3]);
            b.op(sg, op, &[x, c], &[y]);
            b.io(sg, &[x], &[y]);
            let input = suite::InputSpec::float(n * 3, 1.0);
            Some(Draft::new(
                &b,
                vec![input],
                6,
                format!("[{n}, 3] by int64 coordinates"),
            ))
        },
    ));
    out
}

fn draw(rng: &mut Rng, index: usize, dtype: DType, class: &str) -> Option<(Draft, Vec<Bounds>)> {
    let rank = match class {
        "axis 0" => 1 + index % 3,
        _ => 2 + index % 3,
    };
    let wide = rng.chance(0.2);
    let ishape = suite::shape_within(rng, rank, 2000, wide);
    let (axis, batch_dims) = match class {
        "axis 0" => (0, 0),
        "inner axis" => (rng.size(1, rank - 1), 0),
        _ => {
            let bd = rng.size(1, rank - 1);
            (rng.size(bd, rank - 1), bd)
        }
    };
    let crank = batch_dims + rng.size(if batch_dims > 0 { 0 } else { 1 }, 2);
    let mut cshape: Vec<usize> = ishape[..batch_dims].to_vec();
    while cshape.len() < crank {
        cshape.push(rng.size(1, 6));
    }
    let mut oshape: Vec<usize> = ishape[..axis].to_vec();
    oshape.extend_from_slice(&cshape[batch_dims..]);
    oshape.extend_from_slice(&ishape[axis + 1..]);
    if elements(&oshape) > 8000 || elements(&oshape) == 0 {
        return None;
    }
    let axis_size = ishape[axis] as i64;
    let a = if axis > 0 && rng.chance(0.3) {
        axis as i32 - rank as i32
    } else {
        axis as i32
    };
    let bd = if batch_dims > 0 && batch_dims < crank && rng.chance(0.3) {
        batch_dims as i32 - crank as i32
    } else {
        batch_dims as i32
    };
    let constant = index % 3 == 2;
    let op = BuiltinOp::from_name("GATHER")?;
    let q = suite::data_quant(rng, dtype);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = suite::data_tensor(&mut b, sg, "input", dtype, &ishape, q.as_ref());
    let nc = elements(&cshape);
    let c = if constant {
        let v: Vec<i64> = (0..nc).map(|_| rng.range(0, axis_size - 1)).collect();
        b.constant(
            sg,
            "coords",
            DType::Int32,
            &suite::dims(&cshape),
            &suite::int_bytes(DType::Int32, &v),
        )
    } else {
        b.tensor(sg, "coords", DType::Int32, &suite::dims(&cshape))
    };
    let y = suite::data_tensor(&mut b, sg, "output", dtype, &oshape, q.as_ref());
    b.op_with_options(
        sg,
        op,
        &[x, c],
        &[y],
        OpOptions::Gather {
            axis: a,
            batch_dims: bd,
        },
    );
    let mut inputs = vec![suite::data_input(dtype, elements(&ishape), q.as_ref())];
    let mut bounds = vec![Vec::new()];
    if constant {
        b.io(sg, &[x], &[y]);
    } else {
        b.io(sg, &[x, c], &[y]);
        inputs.push(suite::InputSpec::int(DType::Int32, nc, 0));
        bounds.push(vec![(0, axis_size - 1)]);
    }
    let note = format!(
        "in {ishape:?} coords {cshape:?}{} axis {a} batch_dims {bd} out {oshape:?}",
        if constant { " (constant)" } else { "" }
    );
    Some((Draft::new(&b, inputs, elements(&oshape), note), bounds))
}
