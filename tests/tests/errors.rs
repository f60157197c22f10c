//! Errors that are not about a malformed model (the malformed-model suite,
//! `tests/src/malformed.rs` run by `tests/tests/malformed.rs`, covers those), and an offline
//! plan's deliberate aliases, which are reported, not refused.

use stowplan_planner::arena::KernelScratch;
use stowplan_planner::tflite::builder::{ModelBuilder, TensorSpec, ops};
use stowplan_planner::tflite::{Activation, BuiltinOp, DType, OpOptions};
use stowplan_planner::{Options, plan_model};

#[test]
fn offline_aliases_are_declared_not_refused() {
    // Two fixed tensors live together at the same offset: declared by the model.
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int8, &[16]);
    let y = b.tensor(sg, "y", DType::Int8, &[16]);
    b.op(sg, ops::RELU, &[x], &[y]);
    b.io(sg, &[x], &[y]);
    b.offline_plan(&[0, 0]);
    let p = plan_model(&b.finish(), &Options::default()).unwrap();
    assert_eq!(p.declared_aliases.len(), 1);
    assert_eq!(p.arena_bytes(), 16);
}

#[test]
fn bad_alignment_is_an_options_error() {
    let e = plan_model(
        &stowplan_tests::chain(),
        &Options {
            alignment: 12,
            ..Options::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "alignment must be a power of two, found 12");
}

#[test]
fn kernel_scratch_beyond_4_gib_names_the_op() {
    let model = {
        // TFLM's int8 SVDF asks for batch × filters int32 of scratch: 2^15 × 2^15 × 4 bytes,
        // beyond what a 32-bit target addresses, while every tensor stays within it.
        let (batch, filters) = (1 << 15, 1 << 15);
        let mut b = ModelBuilder::new();
        let sg = b.subgraph("main");
        let q = (&[0.5_f32][..], &[0_i64][..], 0);
        let x = b.quantized(sg, "x", DType::Int8, &[batch, 1], q);
        let feature = b.quantized(sg, "feature", DType::Int8, &[filters, 1], q);
        let time = b.quantized(sg, "time", DType::Int16, &[filters, 1], q);
        let state = b.tensor_spec(
            sg,
            TensorSpec {
                name: "state".into(),
                type_code: DType::Int16.code(),
                shape: Some(vec![batch, filters]),
                quantization: Some((vec![0.5], vec![0], 0)),
                is_variable: true,
                ..TensorSpec::default()
            },
        );
        let y = b.quantized(sg, "y", DType::Int8, &[batch, filters], q);
        b.op_with_options(
            sg,
            BuiltinOp(27),
            &[x, feature, time, -1, state],
            &[y],
            OpOptions::Svdf {
                rank: 1,
                activation: Activation::None,
                asymmetric_quantize_inputs: false,
            },
        );
        b.io(sg, &[x, feature, time], &[y]);
        b.finish()
    };
    let options = Options {
        kernel_scratch: KernelScratch::Tflm,
        ..Options::default()
    };
    let e = plan_model(&model, &options).unwrap_err();
    assert_eq!(
        e.to_string(),
        "op 0 (SVDF) of subgraph 0 asks for 4294967296 bytes of kernel scratch, more than the limit of 4294967295"
    );
}

/// `invoke`'s error for a one-op model, or `None` when it generates.
fn invoke_error(bytes: &[u8]) -> Option<String> {
    use stowplan_planner::codegen::generate;
    let plan = plan_model(bytes, &Options::default().with_invoke(true)).unwrap();
    let cg = stowplan_tests::test_codegen("m", true);
    generate(&plan, bytes, &cg).err().map(|e| e.to_string())
}

#[test]
fn signal_delay_refuses_what_tflm_would_crash_on() {
    use stowplan_planner::tflite::flexbuffer::{WriteValue, write_map};
    let model = |shape: &[i32], out: &[i32], delay: i64| {
        let mut b = ModelBuilder::new();
        let sg = b.subgraph("main");
        let x = b.tensor(sg, "x", DType::Int16, shape);
        let y = b.tensor(sg, "y", DType::Int16, out);
        let options = write_map(&[("delay_length", WriteValue::Int(delay))], 4);
        b.custom_with_options(sg, "SignalDelay", &[x], &[y], &options);
        b.io(sg, &[x], &[y]);
        b.finish()
    };
    assert_eq!(invoke_error(&model(&[2, 8], &[2, 8], 3)), None);
    let cases = [
        (model(&[2, 8], &[2, 8], -1), "delay_length is -1"),
        (
            model(&[2, 8], &[8], 3),
            "holds 8 values and tensor 0 \"x\" of subgraph 0 16",
        ),
        (
            model(&[2, 0], &[2, 0], 3),
            "divides by its innermost dimension",
        ),
    ];
    for (bytes, part) in cases {
        let e = invoke_error(&bytes).expect("refused");
        assert!(e.contains(part), "{e}");
    }
}
