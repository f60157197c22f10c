//! Malformed and unplannable models: each gives its own specific error, never a panic.

use stowplan_planner::builder::{Callees, ModelBuilder, TensorSpec, ops};
use stowplan_planner::model::{BuiltinOp, DType};
use stowplan_planner::{Options, PlanArenaError, ReadModelError, plan_model};

fn err(bytes: &[u8]) -> ReadModelError {
    match plan_model(bytes, &Options::default()) {
        Err(PlanArenaError::Model(e)) => e,
        other => panic!("expected a model error, got {other:?}"),
    }
}

/// A one-op model with the given tensor spec as the op's output.
fn with_output(spec: TensorSpec) -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int8, &[4]);
    let y = b.tensor_spec(sg, spec);
    b.op(sg, ops::RELU, &[x], &[y]);
    b.io(sg, &[x], &[y]);
    b.finish()
}

#[test]
fn not_a_model() {
    assert_eq!(err(b"TFL3"), ReadModelError::TooShort { bytes: 4 });
    assert_eq!(
        err(b"hello, world!"),
        ReadModelError::WrongIdentifier { found: *b"o, w" }
    );
    let mut bytes = stowplan_tests::chain();
    bytes[4..8].copy_from_slice(b"ONNX");
    assert_eq!(
        err(&bytes).to_string(),
        "not a TFLite model: file identifier is \"ONNX\", expected \"TFL3\""
    );
}

#[test]
fn root_offset_outside_the_file() {
    let mut bytes = stowplan_tests::chain();
    bytes[0..4].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
    let e = err(&bytes);
    assert!(matches!(e, ReadModelError::Malformed { .. }), "{e}");
    assert!(
        e.to_string().starts_with("malformed TFLite flatbuffer: "),
        "{e}"
    );
}

#[test]
fn no_subgraphs() {
    assert_eq!(
        err(&ModelBuilder::new().finish()),
        ReadModelError::NoSubgraphs
    );
}

#[test]
fn indices_out_of_range() {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int8, &[4]);
    b.op(sg, ops::RELU, &[x], &[7]);
    b.io(sg, &[x], &[x]);
    assert_eq!(
        err(&b.finish()).to_string(),
        "op 0 (RELU) of subgraph 0 has output tensor 7, but the subgraph has 1 tensors"
    );

    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int8, &[4]);
    b.io(sg, &[x], &[-2]);
    assert_eq!(
        err(&b.finish()).to_string(),
        "subgraph 0 has subgraph output tensor -2, but it has 1 tensors"
    );

    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    b.tensor_spec(
        sg,
        TensorSpec {
            name: "w".into(),
            type_code: 9,
            shape: Some(vec![4]),
            buffer: 99,
            ..TensorSpec::default()
        },
    );
    assert_eq!(
        err(&b.finish()).to_string(),
        "tensor 0 \"w\" of subgraph 0 uses buffer 99, but the model has 1 buffers"
    );

    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int32, &[]);
    b.control_flow(
        sg,
        Callees::If {
            then: 1,
            otherwise: 5,
        },
        &[x],
        &[x],
    );
    assert_eq!(
        err(&b.finish()).to_string(),
        "op 0 (IF) of subgraph 0 calls subgraph 1, but the model has 1 subgraphs"
    );
}

#[test]
fn control_flow_without_options() {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int32, &[]);
    b.control_flow_without_options(sg, BuiltinOp::WHILE, &[x], &[x]);
    assert_eq!(
        err(&b.finish()).to_string(),
        "op 0 (WHILE) of subgraph 0 has no WhileOptions, so its subgraphs are unknown"
    );
}

#[test]
fn shapes_types_and_sizes() {
    let spec = |shape: Vec<i32>, type_code: i8| TensorSpec {
        name: "y".into(),
        type_code,
        shape: Some(shape),
        ..TensorSpec::default()
    };
    assert_eq!(
        err(&with_output(spec(vec![1, -3], 9))).to_string(),
        "tensor 1 \"y\" of subgraph 0 has a negative dimension in shape [1,-3]"
    );
    assert!(matches!(
        err(&with_output(spec(vec![-1, 3], 9))),
        ReadModelError::DynamicShape { .. }
    ));
    assert_eq!(
        err(&with_output(spec(vec![4], 5))).to_string(),
        "tensor 1 \"y\" of subgraph 0 has type string, which has no fixed size and cannot be planned"
    );
    assert!(matches!(
        err(&with_output(spec(vec![4], 77))),
        ReadModelError::UnsizedType { .. }
    ));
    // 2^40 bytes: far beyond any target.
    assert_eq!(
        err(&with_output(spec(vec![1 << 20, 1 << 20], 9))).to_string(),
        "tensor 1 \"y\" of subgraph 0 of shape [1048576,1048576] and type int8 needs more than 4294967295 bytes"
    );
    // A product that overflows 64 bits.
    assert!(matches!(
        err(&with_output(spec(vec![i32::MAX; 4], 11))),
        ReadModelError::TensorTooLarge { .. }
    ));
}

#[test]
fn reading_a_tensor_nothing_wrote() {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int8, &[4]);
    let ghost = b.tensor(sg, "ghost", DType::Int8, &[4]);
    let y = b.tensor(sg, "y", DType::Int8, &[4]);
    b.op(sg, ops::ADD, &[x, ghost], &[y]);
    b.io(sg, &[x], &[y]);
    assert_eq!(
        err(&b.finish()).to_string(),
        "op 0 (ADD) of subgraph 0 reads tensor 1 \"ghost\" of subgraph 0, which no earlier op writes and which is not an input, constant or variable"
    );
}

#[test]
fn bad_offline_plans() {
    let chain_with = |words: &[i32]| {
        let mut b = ModelBuilder::new();
        let sg = b.subgraph("main");
        let x = b.tensor(sg, "x", DType::Int8, &[16]);
        let y = b.tensor(sg, "y", DType::Int8, &[16]);
        b.op(sg, ops::RELU, &[x], &[y]);
        b.io(sg, &[x], &[y]);
        b.offline_plan(words);
        b.finish()
    };
    assert_eq!(
        err(&chain_with(&[0])).to_string(),
        "bad OfflineMemoryAllocation metadata: it declares 1 offsets but the model has 2 tensors"
    );
    assert_eq!(
        err(&chain_with(&[0, -5])).to_string(),
        "bad OfflineMemoryAllocation metadata: tensor id 1 has offset -5; offsets are non-negative, or -1 to plan online"
    );
    assert_eq!(
        err(&chain_with(&[8, -1])).to_string(),
        "bad OfflineMemoryAllocation metadata: tensor 0 \"x\" of subgraph 0 is at offset 8, not a multiple of the alignment 16"
    );
    // Two fixed tensors live together at the same offset are declared aliases, not an error.
    let p = plan_model(&chain_with(&[0, 0]), &Options::default()).unwrap();
    assert_eq!(p.declared_aliases.len(), 1);
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
