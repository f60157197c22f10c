//! `invoke` with `fallback`: ops without a kernel (here: int8 ops of a model without
//! quantisation, which the reference kernels need) run the user's `op_N` on their planned views,
//! in order.

stowplan::include_model!(
    "models/synthetic/branches.tflite",
    name = branches,
    invoke = true,
    fallback = crate::branch_ops
);

/// The user's implementations, one per op without a kernel, with the views of `ops::op_N`.
mod branch_ops {
    /// Views of an op with one int8 output.
    type Writes<'a> = (&'a mut [i8],);
    /// Two int8 inputs (the FULLY_CONNECTED's bias is omitted: `()`).
    type Pair<'a> = (&'a [i8], &'a [i8]);

    /// FULLY_CONNECTED x [1,48] -> left [1,16] (no bias): here, each output is the sum of its
    /// weight row's products, saturated.
    pub fn op_0(((x, w, ()), (left,)): ((&[i8], &[i8], ()), Writes<'_>)) {
        for (o, row) in left.iter_mut().zip(w.chunks_exact(x.len())) {
            let acc: i32 = row
                .iter()
                .zip(x)
                .map(|(&a, &b)| i32::from(a) * i32::from(b))
                .sum();
            *o = acc.clamp(-128, 127) as i8;
        }
    }

    /// RELU x -> right.
    pub fn op_1(((x,), (right,)): ((&[i8],), Writes<'_>)) {
        for (r, &v) in right.iter_mut().zip(x) {
            *r = v.max(0);
        }
    }

    /// CONCATENATION left, right -> out.
    pub fn op_2(((left, right), (out,)): (Pair<'_>, Writes<'_>)) {
        let (a, b) = out.split_at_mut(left.len());
        a.copy_from_slice(left);
        b.copy_from_slice(right);
    }
}

#[test]
fn ops_without_a_kernel_run_the_fallback_in_order() {
    let mut arena = branches::Arena::new();
    let x: Vec<i8> = (0..48).map(|i| (i as i8) - 24).collect();
    arena.view_mut(branches::X).copy_from_slice(&x);
    branches::invoke(&mut arena);
    let out = arena.view(branches::OUT);
    let w = branches::TENSORS
        .iter()
        .find_map(|t| match t.location {
            stowplan::Location::Constant(data) => Some(data),
            _ => None,
        })
        .unwrap();
    for (i, &o) in out[..16].iter().enumerate() {
        let acc: i32 = w[i * 48..(i + 1) * 48]
            .iter()
            .zip(&x)
            .map(|(&a, &b)| i32::from(a as i8) * i32::from(b))
            .sum();
        assert_eq!(o, acc.clamp(-128, 127) as i8, "left[{i}]");
    }
    let relu: Vec<i8> = x.iter().map(|v| (*v).max(0)).collect();
    assert_eq!(&out[16..], &relu[..]);
}

/// Without a fallback, one error lists every op without a kernel, grouped by reason, over every
/// subgraph, and points at `fallback`.
#[test]
fn ops_without_a_kernel_are_listed_together_grouped_by_reason() {
    use stowplan_planner::codegen::{GenerateError, generate};
    use stowplan_planner::tflite::DType;
    use stowplan_planner::tflite::builder::{Callees, ModelBuilder, ops};
    use stowplan_planner::{Options, plan_model};

    let f32 = DType::Float32;
    let mut b = ModelBuilder::new();
    let main = b.subgraph("main");
    let then = b.subgraph("then");
    let otherwise = b.subgraph("else");
    let cond = b.tensor(main, "cond", DType::Bool, &[]);
    let x = b.tensor(main, "x", f32, &[1, 8]);
    let y = b.tensor(main, "y", f32, &[1, 8]);
    let z = b.tensor(main, "z", f32, &[1, 8]);
    let out = b.tensor(main, "out", f32, &[1, 8]);
    b.control_flow(
        main,
        Callees::If {
            then: 1,
            otherwise: 2,
        },
        &[cond, x],
        &[y],
    );
    b.custom(main, "Blur", &[y], &[z]);
    b.custom(main, "Sharpen", &[z], &[out]);
    b.io(main, &[cond, x], &[out]);
    for sg in [then, otherwise] {
        let bx = b.tensor(sg, "bx", f32, &[1, 8]);
        let bh = b.tensor(sg, "bh", f32, &[1, 8]);
        let by = b.tensor(sg, "by", f32, &[1, 8]);
        b.custom(sg, "Blur", &[bx], &[bh]);
        b.op(sg, ops::RELU, &[bh], &[by]);
        b.io(sg, &[bx], &[by]);
    }
    let bytes = b.finish();
    let plan = plan_model(&bytes, &Options::default().with_invoke(true)).unwrap();
    let cg = stowplan_tests::test_codegen("m", true);
    let Err(GenerateError::NoKernel { message }) = generate(&plan, &bytes, &cg) else {
        panic!("custom ops have no kernel");
    };
    let lines: Vec<&str> = message.lines().map(str::trim).collect();
    assert_eq!(
        lines,
        [
            "cannot generate `invoke` for m.tflite: 4 ops have no kernel:",
            "op 1 (Blur), op 0 (Blur) of subgraph 1, op 0 (Blur) of subgraph 2: the runtime has no kernel for Blur (float32 -> float32)",
            "op 2 (Sharpen): the runtime has no kernel for Sharpen (float32 -> float32)",
            "to run them with your own code, give `fallback = path::to::module`, whose `op_N` functions then run them on their views",
        ],
        "{message}"
    );
}

/// A CONV_2D whose shapes claim a million output channels in a file of a few hundred bytes: the
/// per-channel multipliers would be made (and allocated) for every one. Refused, naming the
/// output, before any is made.
#[test]
fn channels_beyond_what_the_file_backs_are_refused() {
    use stowplan_planner::codegen::{GenerateError, generate};
    use stowplan_planner::tflite::builder::ModelBuilder;
    use stowplan_planner::tflite::{Activation, DType, OpOptions, Padding};
    use stowplan_planner::{Options, plan_model};
    let channels = 1_000_000;
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.quantized(sg, "x", DType::Int8, &[1, 1, 1, 1], (&[0.5], &[0], 0));
    let w = b.quantized(
        sg,
        "w",
        DType::Int8,
        &[channels, 1, 1, 1],
        (&[0.5], &[0], 0),
    );
    let y = b.quantized(
        sg,
        "y",
        DType::Int8,
        &[1, 1, 1, channels],
        (&[0.5], &[0], 0),
    );
    b.op_with_options(
        sg,
        stowplan_planner::tflite::builder::ops::CONV_2D,
        &[x, w],
        &[y],
        OpOptions::Conv2D {
            padding: Padding::Valid,
            stride_w: 1,
            stride_h: 1,
            dilation_w: 1,
            dilation_h: 1,
            activation: Activation::None,
        },
    );
    b.io(sg, &[x, w], &[y]);
    let bytes = b.finish();
    let plan = plan_model(&bytes, &Options::default().with_invoke(true)).unwrap();
    let cg = stowplan_tests::test_codegen("m", true);
    let start = std::time::Instant::now();
    let result = generate(&plan, &bytes, &cg);
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
    let Err(GenerateError::NoKernel { message }) = result else {
        panic!("a million channels in {} bytes were lowered", bytes.len());
    };
    assert!(
        message.contains(&format!(
            "has 1000000 output channels, more than the model file's {} bytes can back (one multiplier each)",
            bytes.len()
        )),
        "{message}"
    );
}
