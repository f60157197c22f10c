//! Lifetimes on TFLite Micro's timeline, checked tensor by tensor against the rules
//! (`MarkAllocationLifetimes`) worked out by hand.

use stowplan_planner::lifetime::{TensorLifetime, TimePoint, lifetimes};
use stowplan_planner::tflite::builder::{Callees, ModelBuilder, ops};
use stowplan_planner::tflite::{DType, SubgraphIndex, read_model};
use stowplan_planner::{Options, plan_model};

/// (first, last) in TFLM scopes, -1 for unset.
fn scopes(bytes: &[u8]) -> Vec<(i64, i64)> {
    let model = read_model(bytes).unwrap();
    let l = lifetimes(&model).unwrap();
    let s = |v: Option<u32>| v.map_or(-1, i64::from);
    l.tensors
        .iter()
        .map(|t: &TensorLifetime| (s(t.first), s(t.last)))
        .collect()
}

#[test]
fn single_subgraph_as_in_tflm_allocation_info_test() {
    // TFLM's micro_allocation_info_test: t0 input [0,2], t1 weight [-1,2], t2 [1,2], t3 output [2,2].
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let t0 = b.tensor(sg, "t0", DType::Float32, &[4]);
    let t1 = b.constant(sg, "t1", DType::Float32, &[4], &[0; 16]);
    let t2 = b.tensor(sg, "t2", DType::Float32, &[4]);
    let t3 = b.tensor(sg, "t3", DType::Float32, &[4]);
    b.op(sg, ops::ADD, &[t0, t1], &[t2]);
    b.custom(sg, "Sum3", &[t0, t1, t2], &[t3]);
    b.io(sg, &[t0], &[t3]);
    assert_eq!(scopes(&b.finish()), [(0, 2), (-1, 2), (1, 2), (2, 2)]);
}

#[test]
fn if_else_callees_get_their_own_scope_blocks() {
    // Subgraph 0: cond, x at 0; IF at 1; then-block entry 2, its ops 3 and 4; else-block entry 5,
    // its op 6; the IF's inputs and outputs live to 6; RELU at 7.
    assert_eq!(
        scopes(&stowplan_tests::if_else()),
        [
            (0, 6),
            (0, 6),
            (1, 7),
            (7, 7),
            (2, 3),
            (3, 4),
            (4, 4),
            (5, 6),
            (6, 6)
        ]
    );
    let model = read_model(&stowplan_tests::if_else()).unwrap();
    let l = lifetimes(&model).unwrap();
    assert_eq!(l.timeline.len(), 8);
    assert_eq!(l.timeline[2], TimePoint::Entry(SubgraphIndex(1)));
    assert_eq!(l.timeline[5], TimePoint::Entry(SubgraphIndex(2)));
    assert_eq!(l.op_times, [vec![1], vec![7], vec![3], vec![4], vec![6]]);
}

#[test]
fn while_keeps_its_inputs_through_cond_and_body() {
    assert_eq!(
        scopes(&stowplan_tests::while_loop()),
        [
            (0, 6),
            (0, 6),
            (1, 6),
            (1, 6),
            (2, 3),
            (2, 2),
            (-1, 3),
            (3, 3),
            (4, 5),
            (4, 6),
            (-1, 5),
            (5, 6),
            (6, 6)
        ]
    );
}

#[test]
fn call_once_runs_init_in_its_own_block() {
    assert_eq!(
        scopes(&stowplan_tests::call_once()),
        [(0, 7), (5, 8), (6, 7), (7, 8), (3, 4), (-1, 4)]
    );
}

#[test]
fn a_subgraph_called_twice_gets_one_merged_interval() {
    let mut b = ModelBuilder::new();
    let main = b.subgraph("main");
    let callee = b.subgraph("callee");
    let x = b.tensor(main, "x", DType::Int8, &[16]);
    let y = b.tensor(main, "y", DType::Int8, &[16]);
    let z = b.tensor(main, "z", DType::Int8, &[16]);
    b.control_flow(
        main,
        Callees::If {
            then: 1,
            otherwise: 1,
        },
        &[x],
        &[y],
    );
    b.io(main, &[x], &[y]);
    let _ = z;
    let cx = b.tensor(callee, "cx", DType::Int8, &[16]);
    let cy = b.tensor(callee, "cy", DType::Int8, &[16]);
    b.op(callee, ops::RELU, &[cx], &[cy]);
    b.io(callee, &[cx], &[cy]);
    // IF at 1; first visit: entry 2, RELU 3; second visit: entry 4, RELU 5. z is never used.
    assert_eq!(
        scopes(&b.finish()),
        [(0, 5), (1, 5), (-1, -1), (2, 5), (3, 5)]
    );
}

#[test]
fn omitted_inputs_and_intermediates_get_no_lifetime() {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int8, &[16]);
    let scratch = b.tensor(sg, "intermediate", DType::Int8, &[16]);
    let y = b.tensor(sg, "y", DType::Int8, &[16]);
    b.op_with_intermediates(sg, ops::FULLY_CONNECTED, &[x, -1, -1], &[y], &[scratch]);
    b.io(sg, &[x], &[y]);
    let bytes = b.finish();
    assert_eq!(scopes(&bytes), [(0, 1), (-1, -1), (1, 1)]);
    // TFLM still plans the unreached tensor, "before the first op", where only such tensors live.
    let p = plan_model(&bytes, &Options::default()).unwrap();
    assert_eq!(p.buffer_tensors.len(), 3);
    assert_eq!(p.arena_bytes(), 32);
}

// Recursion, exponential call trees and too-deep nesting are errors: see the malformed-model
// suite (`tests/src/malformed.rs`).
