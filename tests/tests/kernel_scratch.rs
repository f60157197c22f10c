//! Kernel scratch planned in the arena (`arena::KernelScratch::Stowplan`, on with `invoke`): an
//! int8 CONV_2D whose kernel is one of the widened 1 x 1 kernels gets its pixel pair's widened
//! rows (4 bytes per input channel) as scratch beside its tensors, one whose kernel is the
//! window kernel with windows of more than 144 values its pixel pair's whole windows (16 bytes
//! per group of four values, and a part group); the generated code hands it to the kernel's
//! scratch entry, and the reports list it. Every other convolution gets none.

use stowplan_planner::arena::KernelScratch;
use stowplan_planner::codegen::{Codegen, ModelFile, generate};
use stowplan_planner::tflite::builder::{Callees, ModelBuilder, ops};
use stowplan_planner::tflite::{Activation, DType, OpOptions, Padding};
use stowplan_planner::{ModelPlan, Options, emit, plan_model};

/// One int8 CONV_2D on a 3 x 5 image: `c` input channels, `o` output channels, a `k` x `k`
/// filter (same padding), per-channel filter scales, with or without a bias.
fn conv(c: i32, o: i32, k: i32, bias: bool) -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.quantized(sg, "x", DType::Int8, &[1, 3, 5, c], (&[0.05], &[-3], 0));
    let scales: Vec<f32> = (0..o).map(|i| 0.004 + 0.0005 * i as f32).collect();
    let zeros = vec![0_i64; scales.len()];
    let weights: Vec<u8> = (0..o * k * k * c).map(|i| (i * 37 % 251) as u8).collect();
    let w = b.quantized_constant(
        sg,
        "w",
        DType::Int8,
        &[o, k, k, c],
        (&scales, &zeros, 0),
        &weights,
    );
    let mut inputs = vec![x, w];
    if bias {
        let bscales: Vec<f32> = scales.iter().map(|s| s * 0.05).collect();
        let values: Vec<u8> = (0..o).flat_map(|i| (i * 101 - 700).to_le_bytes()).collect();
        inputs.push(b.quantized_constant(
            sg,
            "b",
            DType::Int32,
            &[o],
            (&bscales, &zeros, 0),
            &values,
        ));
    }
    let y = b.quantized(sg, "y", DType::Int8, &[1, 3, 5, o], (&[0.1], &[5], 0));
    let options = OpOptions::Conv2D {
        padding: Padding::Same,
        stride_w: 1,
        stride_h: 1,
        dilation_w: 1,
        dilation_h: 1,
        activation: Activation::None,
    };
    b.op_with_options(sg, ops::CONV_2D, &inputs, &[y], options);
    b.io(sg, &[x], &[y]);
    b.finish()
}

/// The module generated with `invoke`.
fn code(plan: &ModelPlan, bytes: &[u8]) -> String {
    let cg = Codegen {
        module: "m".into(),
        runtime: syn::parse_quote!(::stowplan),
        model_path: "m.tflite".into(),
        model_file: ModelFile::ManifestRelative("m.tflite".into()),
        budget: None,
        invoke: true,
        fallback: None,
        op_marks: None,
    };
    generate(plan, bytes, &cg).unwrap().to_string()
}

/// The widened layers (1 x 1, input channels a multiple of 4 up to 336, an even number of
/// output channels, a bias) get `4 c` bytes of scratch for their op, the window kernel's
/// layers with windows of more than 144 values `16 (ceil(window / 4) + 1)`, apart from the
/// tensors live beside it, and the generated call takes it; the others none, and the plain
/// call.
#[test]
fn kernels_plan_their_working_memory_in_the_arena() {
    // (input channels, output channels, filter side, bias, scratch bytes)
    let cases = [
        (32, 16, 1, true, 128),
        (8, 2, 1, true, 32),
        (144, 4, 1, true, 576),
        (256, 6, 1, true, 1024),
        (336, 2, 1, true, 1344),
        // Past the widened buffers: the window kernel, its 340 values whole.
        (340, 2, 1, true, 1376),
        (30, 16, 1, true, 0),
        (32, 15, 1, true, 0),
        (32, 16, 1, false, 0),
        // 3 x 3 windows: 288 values (72 groups and a part group), 144 (one slab, on the
        // stack), 27 x 3 x 3 = 243 (61 groups, the last a part one, and one more).
        (32, 16, 3, true, 1168),
        (32, 15, 3, false, 1168),
        (16, 16, 3, true, 0),
        (27, 8, 3, true, 992),
    ];
    for (c, o, k, bias, want) in cases {
        let bytes = conv(c, o, k, bias);
        let case = format!("{c} -> {o}, {k} x {k}, bias {bias}");
        let plan = plan_model(&bytes, &Options::default().with_invoke(true)).unwrap();
        let scratch: Vec<(usize, u64, Option<u64>)> = plan
            .scratch_offsets()
            .map(|(s, offset)| (s.op, s.bytes, offset))
            .collect();
        let generated = code(&plan, &bytes);
        if want == 0 {
            assert!(scratch.is_empty(), "{case}: {scratch:?}");
            assert!(!generated.contains("conv2d_s8_with_scratch"), "{case}");
            assert!(generated.contains("conv2d_s8_with"), "{case}");
            continue;
        }
        let [(0, bytes_planned, Some(offset))] = scratch[..] else {
            panic!("{case}: {scratch:?}");
        };
        assert_eq!(bytes_planned, want, "{case}");
        // Apart from the input and the output, which are live while the op runs.
        for (name, len) in [("x", 15 * c), ("y", 15 * o)] {
            let t = plan.model.tensors.iter().find(|t| t.name == name).unwrap();
            let at = plan.offset(t.id).unwrap();
            let len = u64::try_from(len).unwrap();
            assert!(
                offset + want <= at || at + len <= offset,
                "{case}: scratch {offset}+{want} over a tensor at {at}+{len}"
            );
        }
        assert!(offset + want <= plan.arena_bytes(), "{case}");
        // The generated call hands the scratch slot to the kernel's entry with scratch, whose
        // check is asserted when the crate compiles.
        assert!(generated.contains("SCRATCH_OP_0_0"), "{case}");
        assert!(generated.contains("conv2d_s8_with_scratch"), "{case}");
        assert!(generated.contains("check_conv2d_s8_with_scratch"), "{case}");
        // Both reports list it.
        let text = emit::model_text(&plan, "m");
        let shown = if want >= 1000 {
            format!("{},{:03}", want / 1000, want % 1000)
        } else {
            want.to_string()
        };
        let line = format!("scratch of op 0 (CONV_2D) of subgraph 0: {shown} B at offset");
        assert!(text.contains(&line), "{case}: {text}");
        let json = emit::model_json(&plan, "m");
        assert_eq!(json["scratch"][0]["bytes"], want, "{case}");
        assert_eq!(json["scratch"][0]["opcode"], "CONV_2D", "{case}");
        // With offsets aligned to less than a word the pixel pair stays on the stack.
        for alignment in [1, 2] {
            let options = Options {
                alignment,
                ..Options::default()
            }
            .with_invoke(true);
            let bytewise = plan_model(&bytes, &options).unwrap();
            assert!(bytewise.scratch.is_empty(), "{case}");
            let generated = code(&bytewise, &bytes);
            assert!(!generated.contains("conv2d_s8_with_scratch"), "{case}");
            assert!(generated.contains("conv2d_s8_with"), "{case}");
        }
        // Without `invoke` no kernel runs: no scratch.
        let plain = plan_model(&bytes, &Options::default()).unwrap();
        assert!(plain.scratch.is_empty(), "{case}");
        // The CLI's `--scratch stowplan` plans the same.
        let options = Options {
            kernel_scratch: KernelScratch::Stowplan,
            ..Options::default()
        };
        let cli = plan_model(&bytes, &options).unwrap();
        assert_eq!(cli.scratch, plan.scratch, "{case}");
    }
}

/// A widened layer's scratch lives only while its op runs: in a chain of two, the second op's
/// scratch may take the first op's input bytes, and the arena holds at most the live tensors
/// and one op's scratch.
#[test]
fn scratch_lives_while_its_op_runs() {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.quantized(sg, "x", DType::Int8, &[1, 4, 4, 64], (&[0.05], &[-3], 0));
    let mut prev = x;
    for (i, (c, o)) in [(64, 16), (16, 64)].into_iter().enumerate() {
        let scales = vec![0.004_f32; o];
        let zeros = vec![0_i64; o];
        let weights: Vec<u8> = (0..o * c).map(|v| (v * 13 % 251) as u8).collect();
        let shape = [o as i32, 1, 1, c as i32];
        let w = b.quantized_constant(sg, "w", DType::Int8, &shape, (&scales, &zeros, 0), &weights);
        let bscales: Vec<f32> = scales.iter().map(|s| s * 0.05).collect();
        let values: Vec<u8> = (0..o).flat_map(|v| (v as i32 - 9).to_le_bytes()).collect();
        let bias = b.quantized_constant(
            sg,
            "b",
            DType::Int32,
            &[o as i32],
            (&bscales, &zeros, 0),
            &values,
        );
        let name = format!("y{i}");
        let y = b.quantized(
            sg,
            &name,
            DType::Int8,
            &[1, 4, 4, o as i32],
            (&[0.1], &[5], 0),
        );
        let options = OpOptions::Conv2D {
            padding: Padding::Valid,
            stride_w: 1,
            stride_h: 1,
            dilation_w: 1,
            dilation_h: 1,
            activation: Activation::None,
        };
        b.op_with_options(sg, ops::CONV_2D, &[prev, w, bias], &[y], options);
        prev = y;
    }
    b.io(sg, &[x], &[prev]);
    let bytes = b.finish();
    let plan = plan_model(&bytes, &Options::default().with_invoke(true)).unwrap();
    let scratch: Vec<(usize, u64)> = plan.scratch.iter().map(|s| (s.op, s.bytes)).collect();
    assert_eq!(scratch, [(0, 256), (1, 64)]);
    // Live at op 0: x (1,024), y0 (256) and its scratch (256); at op 1: y0, y1 (1,024) and
    // its scratch (64). The arena needs no more than the larger, aligned.
    assert!(plan.arena_bytes() <= 1_536, "{}", plan.arena_bytes());
    assert!(plan.arena_bytes() >= plan.lower_bound_bytes());
}

/// An op of a subgraph called from two places (IF with both branches the same subgraph) runs at
/// two times: its scratch is live over both, as the subgraph's tensors are (one interval).
#[test]
fn scratch_of_a_subgraph_called_twice_spans_both_calls() {
    let mut b = ModelBuilder::new();
    let main = b.subgraph("main");
    let callee = b.subgraph("callee");
    let quant = (&[0.05_f32][..], &[-3_i64][..], 0);
    let x = b.quantized(main, "x", DType::Int8, &[1, 2, 3, 32], quant);
    let cond = b.tensor(main, "cond", DType::Bool, &[1]);
    let y = b.quantized(main, "y", DType::Int8, &[1, 2, 3, 16], (&[0.1], &[5], 0));
    let branches = Callees::If {
        then: 1,
        otherwise: 1,
    };
    b.control_flow(main, branches, &[cond, x], &[y]);
    b.io(main, &[cond, x], &[y]);
    let cx = b.quantized(callee, "cx", DType::Int8, &[1, 2, 3, 32], quant);
    let scales = vec![0.004_f32; 16];
    let zeros = vec![0_i64; 16];
    let weights: Vec<u8> = (0..16 * 32).map(|v| (v * 7 % 251) as u8).collect();
    let w = b.quantized_constant(
        callee,
        "w",
        DType::Int8,
        &[16, 1, 1, 32],
        (&scales, &zeros, 0),
        &weights,
    );
    let bscales: Vec<f32> = scales.iter().map(|s| s * 0.05).collect();
    let values: Vec<u8> = (0..16).flat_map(|v: i32| (v - 8).to_le_bytes()).collect();
    let bias = b.quantized_constant(
        callee,
        "b",
        DType::Int32,
        &[16],
        (&bscales, &zeros, 0),
        &values,
    );
    let cy = b.quantized(callee, "cy", DType::Int8, &[1, 2, 3, 16], (&[0.1], &[5], 0));
    let options = OpOptions::Conv2D {
        padding: Padding::Valid,
        stride_w: 1,
        stride_h: 1,
        dilation_w: 1,
        dilation_h: 1,
        activation: Activation::None,
    };
    b.op_with_options(callee, ops::CONV_2D, &[cx, w, bias], &[cy], options);
    b.io(callee, &[cx], &[cy]);
    let bytes = b.finish();
    let plan = plan_model(&bytes, &Options::default().with_invoke(true)).unwrap();
    let [s] = plan.scratch[..] else {
        panic!("{:?}", plan.scratch);
    };
    assert_eq!(s.bytes, 128);
    let times = &plan.lifetimes.op_times[s.op];
    assert_eq!(times.len(), 2, "{times:?}");
    // The problem's timeline is TFLM's scopes + 1.
    let buffer = &plan.problem.buffers()[plan.buffer_tensors.len()];
    let (first, last) = (times[0] + 1, times[1] + 1);
    assert_eq!((buffer.lifetime.first, buffer.lifetime.last), (first, last));
}
