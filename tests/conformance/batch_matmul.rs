//! BATCH_MATMUL: float32, int8 and int16, with every combination of `adj_x` and `adj_y` in
//! each variant (one per model), over three shape classes: plain matrices (rank 2), equal batches (rank 3 to 5) and broadcast
//! batches (ranks that differ, batch dimensions of 1 on either side; the right-hand side's
//! batch of 1 is where TFLM flattens the left-hand side's batches into its columns). The
//! right-hand side is a constant in one model in three (TFLM transposes a constant once).
//!
//! int8 operands take any scales and zero points; int16 ones zero points 0 (TFLM's Prepare
//! requires them).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{BuiltinOp, DType, OpOptions};

use crate::suite::{
    self, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements, f32_bytes, int_bytes,
};

/// The adjoint combinations with their names.
const ADJOINTS: [(&str, bool, bool); 4] = [
    ("no adjoint", false, false),
    ("adj_x", true, false),
    ("adj_y", false, true),
    ("adj_x adj_y", true, true),
];

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    // Every combination of adjoints in each variant, one per model.
    let target = Target {
        models: target.models.max(ADJOINTS.len()),
        ..target
    };
    for types in ["float32", "int8", "int16"] {
        for (si, shape) in ["matrices", "batches", "broadcast"].into_iter().enumerate() {
            let spec = Spec {
                op: "batch_matmul",
                builtin: "BATCH_MATMUL",
                types: types.to_owned(),
                options: "every adjoint".to_owned(),
                shape,
            };
            out.push(suite::fill(seed, spec, target, |rng, index| {
                let (_, adj_x, adj_y) = ADJOINTS[(index + si) % ADJOINTS.len()];
                draw(rng, index, types, adj_x, adj_y, shape)
            }));
        }
    }
    out
}

/// Batch dimensions of the two operands for shape class `shape`: none, the same, or
/// broadcasting ones (each of the operands' ranks 2 to 5).
fn batches(rng: &mut Rng, index: usize, shape: &str) -> (Vec<usize>, Vec<usize>) {
    match shape {
        "matrices" => (Vec::new(), Vec::new()),
        "batches" => {
            let n = rng.size(1, 3);
            let b: Vec<usize> = (0..n).map(|_| rng.size(1, 3)).collect();
            (b.clone(), b)
        }
        _ => {
            let n = rng.size(1, 3);
            let full: Vec<usize> = (0..n).map(|_| rng.size(2, 3)).collect();
            // Each dimension of 1 on one side or the other; ranks may differ.
            let mut l = full.clone();
            let mut r = full;
            for d in 0..n {
                match rng.below(3) {
                    0 => l[d] = 1,
                    1 => r[d] = 1,
                    _ => {}
                }
            }
            // Model 0: the right-hand side's last batch dimension 1 (TFLM's flattening).
            if index == 0
                && let Some(last) = r.last_mut()
            {
                *last = 1;
            }
            // Drop leading dimensions of one side now and then (a lower rank).
            match rng.below(3) {
                0 => {
                    let k = rng.size(0, l.len());
                    l.drain(..k);
                }
                1 => {
                    let k = rng.size(0, r.len());
                    r.drain(..k);
                }
                _ => {}
            }
            (l, r)
        }
    }
}

fn dims(v: &[usize]) -> Vec<i32> {
    v.iter()
        .map(|&d| i32::try_from(d).unwrap_or(i32::MAX))
        .collect()
}

fn draw(
    rng: &mut Rng,
    index: usize,
    types: &str,
    adj_x: bool,
    adj_y: bool,
    shape: &str,
) -> Option<Draft> {
    let (lb, rb) = batches(rng, index, shape);
    let (rows, depth, columns) = match shape {
        "matrices" => (rng.size(1, 40), rng.size(1, 64), rng.size(1, 40)),
        _ => (rng.size(1, 9), rng.size(1, 24), rng.size(1, 9)),
    };
    let lhs_m = if adj_x { [depth, rows] } else { [rows, depth] };
    let rhs_m = if adj_y {
        [columns, depth]
    } else {
        [depth, columns]
    };
    let lshape: Vec<usize> = lb.iter().copied().chain(lhs_m).collect();
    let rshape: Vec<usize> = rb.iter().copied().chain(rhs_m).collect();
    // The output: broadcast batches (right-aligned), then [rows, columns].
    let n = lb.len().max(rb.len());
    let pad = |b: &[usize]| -> Vec<usize> {
        let mut v = vec![1; n - b.len()];
        v.extend_from_slice(b);
        v
    };
    let (lp, rp) = (pad(&lb), pad(&rb));
    let mut oshape: Vec<usize> = lp
        .iter()
        .zip(&rp)
        .map(|(&x, &y)| if x == 1 { y } else { x })
        .collect();
    oshape.extend([rows, columns]);
    let out_len = elements(&oshape);
    let constant_rhs = index % 3 == 2;
    let options = OpOptions::BatchMatMul {
        adj_x,
        adj_y,
        asymmetric_quantize_inputs: false,
    };
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let op = BuiltinOp::from_name("BATCH_MATMUL")?;
    let (ln, rn) = (elements(&lshape), elements(&rshape));
    let note_base =
        format!("lhs {lshape:?} rhs {rshape:?} out {oshape:?} constant rhs {constant_rhs}");
    let (inputs, specs, note) = if types == "float32" {
        let x = b.tensor(sg, "lhs", DType::Float32, &dims(&lshape));
        let y = if constant_rhs {
            b.constant(
                sg,
                "rhs",
                DType::Float32,
                &dims(&rshape),
                &f32_bytes(&suite::weights_f32(rng, rn, 1.0)),
            )
        } else {
            b.tensor(sg, "rhs", DType::Float32, &dims(&rshape))
        };
        let o = b.tensor(sg, "output", DType::Float32, &dims(&oshape));
        b.op_with_options(sg, op, &[x, y], &[o], options);
        let magnitude = suite::float_magnitude(rng, index);
        let mut specs = vec![InputSpec::float(ln, magnitude)];
        let mut ins = vec![x];
        if !constant_rhs {
            specs.push(InputSpec::float(rn, 1.0));
            ins.push(y);
        }
        b.io(sg, &ins, &[o]);
        (ins, specs, format!("{note_base} magnitude {magnitude:e}"))
    } else {
        let dtype = if types == "int16" {
            DType::Int16
        } else {
            DType::Int8
        };
        let zp = |rng: &mut Rng| {
            if dtype == DType::Int16 || rng.chance(0.4) {
                0
            } else {
                suite::zero_point(rng, dtype)
            }
        };
        let ql = Quant::tensor(suite::scale(rng), zp(rng));
        let qr = Quant::tensor(suite::scale(rng), zp(rng));
        let product = f64::from(ql.s()) * f64::from(qr.s());
        let out_scale = if dtype == DType::Int16 {
            if rng.chance(0.2) {
                suite::scale(rng)
            } else {
                let typical = product * 32767.0 * 32767.0 * (depth as f64).sqrt() / 60000.0;
                (typical * f64::from(rng.log_uniform(0.1, 10.0))) as f32
            }
        } else {
            // Zero points away from the middle make the operands' magnitudes larger.
            let spread = |z: i64| 1.0 + z.unsigned_abs() as f64 / 128.0;
            suite::output_scale_for(rng, product * spread(ql.z()) * spread(qr.z()), depth)
        };
        let qo = Quant::tensor(out_scale, zp(rng));
        let x = b.quantized(sg, "lhs", dtype, &dims(&lshape), ql.spec());
        let y = if constant_rhs {
            let (lo, hi) = suite::int_range(dtype);
            let values: Vec<i64> = (0..rn).map(|_| rng.range(lo, hi)).collect();
            b.quantized_constant(
                sg,
                "rhs",
                dtype,
                &dims(&rshape),
                qr.spec(),
                &int_bytes(dtype, &values),
            )
        } else {
            b.quantized(sg, "rhs", dtype, &dims(&rshape), qr.spec())
        };
        let o = b.quantized(sg, "output", dtype, &dims(&oshape), qo.spec());
        b.op_with_options(sg, op, &[x, y], &[o], options);
        let mut specs = vec![InputSpec::int(dtype, ln, ql.z())];
        let mut ins = vec![x];
        if !constant_rhs {
            specs.push(InputSpec::int(dtype, rn, qr.z()));
            ins.push(y);
        }
        b.io(sg, &ins, &[o]);
        (
            ins,
            specs,
            format!(
                "{note_base} lhs q {:?} rhs q {:?} out q {:?}",
                (ql.s(), ql.z()),
                (qr.s(), qr.z()),
                (qo.s(), qo.z())
            ),
        )
    };
    let _ = inputs;
    Some(Draft::new(&b, specs, out_len, note))
}
