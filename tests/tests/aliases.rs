//! RESHAPE-like ops that alias their input (`Options::alias_reshapes`, on for generated
//! `invoke`): one buffer with the union of both lifetimes, verified; never in the
//! TFLite-Micro-compatible mode.

use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::{ModelBuilder, ops};
use stowplan_planner::{Options, plan_model};
use stowplan_tests::repo_root;

fn aliased(bytes: &[u8]) -> stowplan_planner::ModelPlan {
    plan_model(
        bytes,
        &Options {
            alias_reshapes: true,
            ..Options::default()
        },
    )
    .unwrap()
}

#[test]
fn a_reshape_shares_its_inputs_bytes() {
    let bytes = std::fs::read(repo_root().join("tests/models/cnn_int8/cnn_int8.tflite")).unwrap();
    let plain = plan_model(&bytes, &Options::default()).unwrap();
    assert!(plain.aliases.is_empty());
    let plan = aliased(&bytes);
    assert_eq!(plan.aliases.len(), 1);
    let (input, output) = plan.aliases[0];
    assert_eq!(plan.offset(input), plan.offset(output));
    assert!(plan.offset(input).is_some());
    assert_eq!(plan.buffer_tensors.len() + 1, plain.buffer_tensors.len());
    assert!(plan.arena_bytes() <= plain.arena_bytes());
    assert!(plan.lower_bound_bytes() <= plain.lower_bound_bytes());
}

#[test]
fn only_dead_intermediates_are_aliased() {
    // Three reshapes: of a model input, of a tensor read again later, and of a tensor that dies
    // there. Only the last one aliases.
    let mut m = ModelBuilder::new();
    let sg = m.subgraph("main");
    let x = m.tensor(sg, "x", DType::Int8, &[1, 64]);
    let a = m.tensor(sg, "a", DType::Int8, &[64]);
    let b = m.tensor(sg, "b", DType::Int8, &[64]);
    let c = m.tensor(sg, "c", DType::Int8, &[8, 8]);
    let d = m.tensor(sg, "d", DType::Int8, &[8, 8]);
    let e = m.tensor(sg, "e", DType::Int8, &[64]);
    let f = m.tensor(sg, "f", DType::Int8, &[8, 8]);
    m.op(sg, ops::RESHAPE, &[x], &[a]); // x is a model input: kept apart
    m.op(sg, ops::RELU, &[a], &[b]);
    m.op(sg, ops::RESHAPE, &[b], &[c]); // b is read again below: kept apart
    m.op(sg, ops::ADD, &[c, b], &[d]);
    m.op(sg, ops::RELU, &[d], &[e]);
    m.op(sg, ops::RESHAPE, &[e], &[f]); // e dies here: f takes its bytes
    m.io(sg, &[x], &[f]);
    let bytes = m.finish();
    let plan = aliased(&bytes);
    let id = |name: &str| {
        plan.model
            .tensors
            .iter()
            .find(|t| t.name == name)
            .unwrap()
            .id
    };
    assert_eq!(plan.aliases, [(id("e"), id("f"))]);
    assert_eq!(plan.offset(id("e")), plan.offset(id("f")));
    // The TFLM-compatible plan keeps every tensor apart.
    let plain = plan_model(&bytes, &Options::default()).unwrap();
    assert_eq!(plain.buffer_tensors.len(), plan.buffer_tensors.len() + 1);
}
