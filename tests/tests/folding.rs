//! Constant folding (`stowplan_planner::fold`): ops whose inputs are all constants are
//! evaluated when the crate compiles, their outputs constants in flash outside the arena, under
//! a cap on the bytes folding makes. The golden files `fold_f16_conv` and `fold_densify` (with
//! `invoke`) run here against references computed from the models' own numbers.

include!("../expected/fold_f16_conv.rs");
include!("../expected/fold_densify.rs");

use stowplan_planner::fold::DEFAULT_CAP;
use stowplan_planner::graph::Placement;
use stowplan_planner::tflite::builder::{IndexWidth, ModelBuilder};
use stowplan_planner::tflite::{
    BuiltinOp, DType, DimensionFormat, DimensionMetadata, Sparsity, TensorId,
};
use stowplan_planner::{ModelPlan, Options, emit, plan_model};
use stowplan_tests::{FOLD_DENSE_WEIGHTS, fold_densify, fold_f16_conv, fold_f16_weights};

fn with_invoke(bytes: &[u8]) -> ModelPlan {
    plan_model(bytes, &Options::default().with_invoke(true)).unwrap()
}

/// A binary16 value from its fields, in f64 (exact), as f32 (exact too).
fn half(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let mant = f64::from(h & 0x3ff);
    let v = if exp == 0 {
        sign * mant * 2f64.powi(-24)
    } else {
        sign * (1.0 + mant / 1024.0) * 2f64.powi(exp - 15)
    };
    v as f32
}

#[test]
fn float16_weights_fold_to_their_exact_float32_values() {
    let want: Vec<f32> = fold_f16_weights().iter().map(|&h| half(h)).collect();
    let got = fold_f16_conv::W;
    assert_eq!(got.len(), 54);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "weight {i}");
    }
    // -0 stays negative, the smallest subnormal is 2^-24.
    assert_eq!(got[1].to_bits(), 0x8000_0000);
    assert_eq!(got[2], 2f32.powi(-24));
}

#[test]
fn folded_weights_take_no_arena_and_the_report_says_so() {
    let bytes = fold_f16_conv();
    let plan = with_invoke(&bytes);
    // Tensor 2 is the float32 weights DEQUANTIZE made: a constant now, not planned.
    let w = TensorId(2);
    assert_eq!(plan.model.tensors[2].name, "w");
    assert!(!plan.buffer_tensors.contains(&w));
    assert_eq!(plan.tensors[2].placement, Placement::None);
    // x (200 -> 208) and y (300 -> 304) only; the CONV_2D writes y over x, which starts 160
    // bytes above it (its kernel's least displacement, 39 elements of 4 bytes, rounded up to
    // 16): 160 + 208.
    assert_eq!(plan.tensor_bound_bytes(), 512);
    assert_eq!(plan.arena_bytes(), 368);
    assert_eq!(fold_f16_conv::ARENA_BYTES, 368);
    let f = &plan.folding;
    assert_eq!(f.cap, DEFAULT_CAP);
    assert_eq!(f.folded.len(), 1);
    assert_eq!(f.folded[0].op.opcode, "DEQUANTIZE");
    assert_eq!((f.flash_bytes(), f.freed_bytes()), (216, 108));
    assert!(f.not_folded.is_empty());
    // Without invoke (TFLite Micro's mode) nothing is folded and the weights are planned.
    let tflm = plan_model(&bytes, &Options::default()).unwrap();
    assert!(tflm.folding.folded.is_empty());
    assert!(tflm.buffer_tensors.contains(&w));
    assert!(tflm.arena_bytes() > plan.arena_bytes());

    let text = emit::model_text(&plan, "fold_f16_conv.tflite");
    assert!(
        text.contains(
            "folded                 216 B  in flash: 1 op evaluated when built, 108 B of constants no longer read (cap 262,144 B)"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "  folded op 0 (DEQUANTIZE) of subgraph 0: 216 B in flash, 108 B of its inputs no longer read"
        ),
        "{text}"
    );
    let json = emit::model_json(&plan, "fold_f16_conv.tflite");
    assert_eq!(json["folding"]["flash_bytes"], 216);
    assert_eq!(json["folding"]["folded"][0]["opcode"], "DEQUANTIZE");
    assert_eq!(json["folding"]["folded"][0]["outputs"][0], 2);
    assert!(
        emit::model_json(&tflm, "m").get("folding").is_none(),
        "no folding section when folding is off"
    );
}

/// TFLite Micro's float `reference_ops::Conv`, term for term: SAME padding of 1, stride 1.
#[allow(clippy::needless_range_loop)] // TFLM's loops, index for index
fn conv_reference(x: &[f32], w: &[f32], bias: &[f32]) -> Vec<f32> {
    let (h, wd, ic, oc) = (5_i32, 5_i32, 2_usize, 3_usize);
    let mut out = Vec::new();
    for oy in 0..h {
        for ox in 0..wd {
            for o in 0..oc {
                let mut total = 0.0_f32;
                for fy in 0..3 {
                    for fx in 0..3 {
                        let (iy, ix) = (oy - 1 + fy, ox - 1 + fx);
                        if !(0..h).contains(&iy) || !(0..wd).contains(&ix) {
                            continue;
                        }
                        for c in 0..ic {
                            let xi = (iy as usize * 5 + ix as usize) * ic + c;
                            let wi = ((o * 3 + fy as usize) * 3 + fx as usize) * ic + c;
                            total += x[xi] * w[wi];
                        }
                    }
                }
                out.push((total + bias[o]).clamp(f32::MIN, f32::MAX));
            }
        }
    }
    out
}

#[test]
fn invoke_with_folded_float16_weights_matches_the_reference_conv() {
    let x: Vec<f32> = (0..50)
        .map(|i| ((i * 37) % 29) as f32 / 4.0 - 3.5)
        .collect();
    let mut arena = fold_f16_conv::Arena::new();
    arena.view_mut(fold_f16_conv::X).copy_from_slice(&x);
    fold_f16_conv::invoke(&mut arena);
    let weights: Vec<f32> = fold_f16_weights().iter().map(|&h| half(h)).collect();
    let want = conv_reference(&x, &weights, &[0.5, -1.25, 3.0]);
    let got = arena.view(fold_f16_conv::Y);
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "output {i}: {g} vs {w}");
    }
}

#[test]
fn sparse_weights_fold_dense_and_invoke_matches_the_reference() {
    assert_eq!(fold_densify::W, &FOLD_DENSE_WEIGHTS[..]);
    let plan = with_invoke(&fold_densify());
    assert_eq!(plan.folding.folded.len(), 1);
    assert_eq!(plan.folding.folded[0].op.opcode, "DENSIFY");
    // 32 dense values in flash for the 16 the file stores.
    assert_eq!(
        (plan.folding.flash_bytes(), plan.folding.freed_bytes()),
        (128, 64)
    );
    let x = [1.0_f32, -1.0, 2.0, 0.5, -0.25, 3.0, 1.5, -2.0];
    let mut arena = fold_densify::Arena::new();
    arena.view_mut(fold_densify::X).copy_from_slice(&x);
    fold_densify::invoke(&mut arena);
    let bias = [0.0_f32, 1.0, -1.0, 0.5];
    // TFLM's float FullyConnected: the dot product in order, then the bias.
    let want: Vec<f32> = (0..4)
        .map(|o| {
            let mut total = 0.0_f32;
            for d in 0..8 {
                total += x[d] * FOLD_DENSE_WEIGHTS[o * 8 + d];
            }
            total + bias[o]
        })
        .collect();
    assert_eq!(arena.view(fold_densify::Y), &want[..]);
}

/// x `float32[rows,1024]` + BROADCAST_TO(0.5, [rows,1024]) -> y; FILL([4], 2.0) -> f -> y2 by
/// ADD with itself (a tiny fold beside the big one).
fn broadcast_model(rows: i32) -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Float32, &[rows, 1024]);
    let c = b.constant(sg, "c", DType::Float32, &[1], &0.5f32.to_le_bytes());
    let shape: Vec<u8> = [rows, 1024].iter().flat_map(|v| v.to_le_bytes()).collect();
    let shape = b.constant(sg, "shape", DType::Int32, &[2], &shape);
    let big = b.tensor(sg, "big", DType::Float32, &[rows, 1024]);
    let y = b.tensor(sg, "y", DType::Float32, &[rows, 1024]);
    let dims = b.constant(sg, "dims", DType::Int32, &[1], &4i32.to_le_bytes());
    let v = b.constant(sg, "v", DType::Float32, &[], &2.0f32.to_le_bytes());
    let f = b.tensor(sg, "f", DType::Float32, &[4]);
    let y2 = b.tensor(sg, "y2", DType::Float32, &[4]);
    b.op(sg, BuiltinOp::BROADCAST_TO, &[c, shape], &[big]);
    b.op(sg, BuiltinOp::ADD, &[x, big], &[y]);
    b.op(sg, BuiltinOp::FILL, &[dims, v], &[f]);
    b.op(sg, BuiltinOp::ADD, &[f, f], &[y2]);
    b.io(sg, &[x], &[y, y2]);
    b.finish()
}

#[test]
fn broadcast_above_the_cap_runs_on_the_device_and_the_report_says_why() {
    // 65 x 1024 float32 = 266,240 B: above the default cap of 262,144.
    let plan = with_invoke(&broadcast_model(65));
    let f = &plan.folding;
    assert_eq!(f.folded.len(), 1, "{f:?}");
    assert_eq!(f.folded[0].op.opcode, "FILL");
    assert_eq!(f.flash_bytes(), 16);
    assert_eq!(f.not_folded.len(), 2);
    assert_eq!(f.not_folded[0].op.opcode, "BROADCAST_TO");
    // The ADD of FILL's folded output has only constant inputs too, but writes a model output.
    assert_eq!(f.not_folded[1].op.to_string(), "op 3 (ADD) of subgraph 0");
    assert!(
        f.not_folded[1]
            .reason
            .contains("is an input or output of its subgraph"),
        "{:?}",
        f.not_folded[1]
    );
    assert_eq!(
        f.not_folded[0].reason,
        "its outputs take 266240 bytes; folding them would make 266240 bytes in all, above the cap of 262144"
    );
    // Its output is planned in the arena, FILL's is not.
    let ids: Vec<usize> = plan.buffer_tensors.iter().map(|t| t.get()).collect();
    assert!(ids.contains(&3), "big is planned: {ids:?}");
    assert!(!ids.contains(&7), "f is folded: {ids:?}");
    let text = emit::model_text(&plan, "m");
    assert!(
        text.contains(
            "  not folded op 0 (BROADCAST_TO) of subgraph 0: its outputs take 266240 bytes"
        ),
        "{text}"
    );
    assert_eq!(
        emit::model_json(&plan, "m")["folding"]["not_folded"][0]["opcode"],
        "BROADCAST_TO"
    );
    // The generated invoke runs it.
    let cg = stowplan_planner::codegen::Codegen {
        module: "m".into(),
        runtime: syn::parse_quote!(::stowplan),
        model_path: "m.tflite".into(),
        model_file: stowplan_planner::codegen::ModelFile::ManifestRelative("m.tflite".into()),
        budget: None,
        invoke: true,
        fallback: None,
        op_marks: None,
    };
    let code = stowplan_planner::codegen::generate(&plan, &broadcast_model(65), &cg)
        .unwrap()
        .to_string();
    assert!(
        code.contains("broadcast_to"),
        "BROADCAST_TO runs on the device"
    );
    assert!(code.contains("Not folded: op 0 (BROADCAST_TO)"));

    // Under a larger cap it folds. Unfolded, the arena holds x and big at the first ADD (y over
    // x, its first input); folded, big is a constant and the arena holds y beside y2 (16 B).
    let bytes = broadcast_model(65);
    let options = Options {
        fold_cap: Some(1 << 20),
        ..Options::default()
    }
    .with_invoke(true);
    let big_cap = plan_model(&bytes, &options).unwrap();
    assert_eq!(big_cap.folding.folded.len(), 2);
    assert_eq!(big_cap.folding.not_folded.len(), 1);
    assert_eq!(plan.arena_bytes(), 2 * 266_240);
    assert_eq!(big_cap.arena_bytes(), 266_240 + 16);
    // Its values are the broadcast scalar's.
    let data = &big_cap.folding.data[&TensorId(3)];
    assert!(data.chunks_exact(4).all(|c| c == 0.5f32.to_le_bytes()));
    // A cap of 0 folds nothing.
    let none = Options {
        fold_cap: Some(0),
        ..Options::default()
    }
    .with_invoke(true);
    let none = plan_model(&bytes, &none).unwrap();
    assert!(none.folding.folded.is_empty());
    assert_eq!(none.folding.not_folded.len(), 2);
}

/// A DENSIFY of `float32[2,3]` whose CSR level is `segments`/`indices` over `values`.
fn densify_model(segments: Vec<u32>, indices: Vec<u32>, values: &[f32]) -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Float32, &[2, 3]);
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let ws = b.constant(sg, "ws", DType::Float32, &[2, 3], &data);
    b.sparsity(
        sg,
        ws,
        &Sparsity {
            traversal_order: vec![0, 1],
            block_map: vec![],
            dim_metadata: vec![
                DimensionMetadata {
                    format: DimensionFormat::Dense,
                    dense_size: 2,
                    segments: vec![],
                    indices: vec![],
                },
                DimensionMetadata {
                    format: DimensionFormat::SparseCsr,
                    dense_size: 0,
                    segments,
                    indices,
                },
            ],
        },
        IndexWidth::Int32,
    );
    let w = b.tensor(sg, "w", DType::Float32, &[2, 3]);
    let y = b.tensor(sg, "y", DType::Float32, &[2, 3]);
    b.op(sg, BuiltinOp::DENSIFY, &[ws], &[w]);
    b.op(sg, BuiltinOp::ADD, &[x, w], &[y]);
    b.io(sg, &[x], &[y]);
    b.finish()
}

#[test]
fn densify_writes_zeros_where_the_encoding_has_no_value() {
    let plan = with_invoke(&densify_model(
        vec![0, 1, 3],
        vec![2, 0, 1],
        &[1.0, 2.0, 3.0],
    ));
    let data = &plan.folding.data[&TensorId(2)];
    let got: Vec<f32> = data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(got, [0.0, 0.0, 1.0, 2.0, 3.0, 0.0]);
}

#[test]
fn a_malformed_sparse_encoding_is_not_folded_and_cannot_run() {
    let cases = [
        // An index past the row.
        (vec![0, 1, 3], vec![3, 0, 1], "does not fit shape [2, 3]"),
        // A segment past the indices.
        (vec![0, 1, 4], vec![2, 0, 1], "does not fit shape [2, 3]"),
        // Decreasing segments.
        (
            vec![0, 2, 1],
            vec![2, 0, 1],
            "the segments of level 1 decrease",
        ),
    ];
    for (segments, indices, why) in cases {
        let bytes = densify_model(segments, indices, &[1.0, 2.0, 3.0]);
        let plan = with_invoke(&bytes);
        assert!(plan.folding.folded.is_empty());
        let reason = &plan.folding.not_folded[0].reason;
        assert!(reason.contains(why), "{reason}");
        // Not folded, DENSIFY has no kernel on the device: invoke cannot be generated.
        let cg = stowplan_planner::codegen::Codegen {
            module: "m".into(),
            runtime: syn::parse_quote!(::stowplan),
            model_path: "m.tflite".into(),
            model_file: stowplan_planner::codegen::ModelFile::ManifestRelative("m.tflite".into()),
            budget: None,
            invoke: true,
            fallback: None,
            op_marks: None,
        };
        let err = stowplan_planner::codegen::generate(&plan, &bytes, &cg)
            .unwrap_err()
            .to_string();
        assert!(err.contains("op 0 (DENSIFY)"), "{err}");
    }
}

/// f16 `[64]` -> DEQUANTIZE -> a; x + a -> y (op 1); then the DENSIFY model's ops on x2.
fn dequantize_then_densify() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Float32, &[64]);
    let h: Vec<u8> = (0..64u16)
        .flat_map(|i| (0x3c00 + i).to_le_bytes())
        .collect();
    let h = b.constant(sg, "h", DType::Float16, &[64], &h);
    let a = b.tensor(sg, "a", DType::Float32, &[64]);
    let y = b.tensor(sg, "y", DType::Float32, &[64]);
    b.op(sg, BuiltinOp::DEQUANTIZE, &[h], &[a]);
    b.op(sg, BuiltinOp::ADD, &[x, a], &[y]);
    let x2 = b.tensor(sg, "x2", DType::Float32, &[2, 3]);
    let data: Vec<u8> = [1.0f32, 2.0, 3.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let ws = b.constant(sg, "ws", DType::Float32, &[2, 3], &data);
    b.sparsity(
        sg,
        ws,
        &Sparsity {
            traversal_order: vec![0, 1],
            block_map: vec![],
            dim_metadata: vec![
                DimensionMetadata {
                    format: DimensionFormat::Dense,
                    dense_size: 2,
                    segments: vec![],
                    indices: vec![],
                },
                DimensionMetadata {
                    format: DimensionFormat::SparseCsr,
                    dense_size: 0,
                    segments: vec![0, 1, 3],
                    indices: vec![2, 0, 1],
                },
            ],
        },
        IndexWidth::Uint16,
    );
    let w = b.tensor(sg, "w", DType::Float32, &[2, 3]);
    let y2 = b.tensor(sg, "y2", DType::Float32, &[2, 3]);
    b.op(sg, BuiltinOp::DENSIFY, &[ws], &[w]);
    b.op(sg, BuiltinOp::ADD, &[x2, w], &[y2]);
    b.io(sg, &[x, x2], &[y, y2]);
    b.finish()
}

#[test]
fn ops_the_device_cannot_run_fold_first() {
    let bytes = dequantize_then_densify();
    // 260 bytes: DEQUANTIZE's 256 or DENSIFY's 24, not both. DENSIFY has no kernel on the
    // device, so it takes the cap although DEQUANTIZE comes first.
    let options = Options {
        fold_cap: Some(260),
        ..Options::default()
    }
    .with_invoke(true);
    let plan = plan_model(&bytes, &options).unwrap();
    let folded: Vec<&str> = plan
        .folding
        .folded
        .iter()
        .map(|f| f.op.opcode.as_str())
        .collect();
    assert_eq!(folded, ["DENSIFY"]);
    assert_eq!(plan.folding.not_folded[0].op.opcode, "DEQUANTIZE");
    // DEQUANTIZE from float16 then runs on the device.
    let cg = stowplan_planner::codegen::Codegen {
        module: "m".into(),
        runtime: syn::parse_quote!(::stowplan),
        model_path: "m.tflite".into(),
        model_file: stowplan_planner::codegen::ModelFile::ManifestRelative("m.tflite".into()),
        budget: None,
        invoke: true,
        fallback: None,
        op_marks: None,
    };
    let code = stowplan_planner::codegen::generate(&plan, &bytes, &cg)
        .unwrap()
        .to_string();
    assert!(
        code.contains("dequantize_f16_f32"),
        "DEQUANTIZE runs on the device"
    );

    // Under 24 bytes DENSIFY cannot fold either, and the error says why and what to change.
    let options = Options {
        fold_cap: Some(16),
        ..Options::default()
    }
    .with_invoke(true);
    let plan = plan_model(&bytes, &options).unwrap();
    assert!(plan.folding.folded.is_empty());
    let err = stowplan_planner::codegen::generate(&plan, &bytes, &cg)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("op 2 (DENSIFY): the runtime has no DENSIFY kernel")
            && err.contains("it was not folded when the crate compiled: its outputs take 24 bytes")
            && err.contains("`fold_cap` sets the cap"),
        "{err}"
    );
}
