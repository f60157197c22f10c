//! Errors that are not about a malformed model (the malformed-model suite,
//! `tests/src/malformed.rs` run by `tests/tests/malformed.rs`, covers those), and an offline
//! plan's deliberate aliases, which are reported, not refused.

use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::{ModelBuilder, ops};
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
