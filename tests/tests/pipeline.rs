//! Pipelines on random pairs of models: the arena is at most the smaller of the arenas' sum and
//! the larger arena plus the bytes handed over, each model's part of the plan keeps the
//! hand-over where both read it, and each part verifies against the model's own problem.

use proptest::prelude::*;
use stowplan_planner::pipeline::{Pipe, plan_pipeline};
use stowplan_planner::plan::{Planner, Settings};
use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::{ModelBuilder, ops};
use stowplan_planner::{Options, plan_model, verify};

const CASES: u32 = if cfg!(miri) { 4 } else { 64 };

/// A model of `n` ops on float32 `[1, width]` tensors: each a RELU of one earlier tensor or an
/// ADD of two, from `choices`; the input first, the last tensor the output.
fn model(width: i32, n: usize, choices: &[u32]) -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let mut ts = vec![b.tensor(sg, "x", DType::Float32, &[1, width])];
    for k in 0..n {
        let c = choices.get(k).copied().unwrap_or(0) as usize;
        let t = b.tensor(sg, &format!("t{k}"), DType::Float32, &[1, width]);
        let a = ts[c % ts.len()];
        if c.is_multiple_of(3) && ts.len() > 1 {
            let other = ts[(c / 3) % ts.len()];
            b.op(sg, ops::ADD, &[a, other], &[t]);
        } else {
            b.op(sg, ops::RELU, &[a], &[t]);
        }
        ts.push(t);
    }
    let last = *ts.last().unwrap();
    b.io(sg, &[ts[0]], &[last]);
    b.finish()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, ..ProptestConfig::default() })]

    #[test]
    fn the_pipeline_arena_is_bounded_and_the_hand_over_stays(
        width in 1i32..40,
        n_a in 1usize..12,
        n_b in 1usize..12,
        choices in proptest::collection::vec(any::<u32>(), 24),
        planner in prop_oneof![Just(Planner::Greedy), Just(Planner::Auto), Just(Planner::Linear)],
    ) {
        let options = Options { planner, ..Options::default() };
        let a_bytes = model(width, n_a, &choices[..12]);
        let b_bytes = model(width, n_b, &choices[12..]);
        let mut plans = vec![
            plan_model(&a_bytes, &options).unwrap(),
            plan_model(&b_bytes, &options).unwrap(),
        ];
        let (sum, larger) = (
            plans[0].arena_bytes() + plans[1].arena_bytes(),
            plans[0].arena_bytes().max(plans[1].arena_bytes()),
        );
        let names = ["a".to_owned(), "b".to_owned()];
        let pipe = Pipe { from: 0, output: 0, to: 1, input: 0 };
        let joint = plan_pipeline(&mut plans, &names, &[pipe], &Settings::new(planner)).unwrap();
        let handover = (width as u64 * 4).div_ceil(16) * 16;
        prop_assert_eq!(joint.handover_bytes, handover);
        prop_assert_eq!(joint.separate_bytes, sum);
        prop_assert!(joint.arena_bytes <= sum.min(larger + handover), "{joint:?}");
        prop_assert_eq!(joint.arena_bytes, plans[0].arena_bytes().max(plans[1].arena_bytes()));
        // The hand-over: a's output where b's input is.
        let out = plans[0].model.tensors.len() - 1;
        let offset_a = plans[0].offset(plans[0].model.tensors[out].id).unwrap();
        let offset_b = plans[1].offset(plans[1].model.tensors[0].id).unwrap();
        prop_assert_eq!(offset_a, offset_b);
        for p in &plans {
            prop_assert!(verify::verify(&p.problem, &p.plan, false).is_ok());
        }
    }
}

#[test]
fn pipes_that_cannot_hold_are_refused() {
    let options = Options::default();
    let names = ["a".to_owned(), "b".to_owned()];
    let plans = || {
        vec![
            plan_model(&model(8, 2, &[1, 2]), &options).unwrap(),
            plan_model(&model(4, 2, &[1, 2]), &options).unwrap(),
        ]
    };
    let run = |pipe: Pipe| plan_pipeline(&mut plans(), &names, &[pipe], &Settings::default());
    let pipe = Pipe {
        from: 0,
        output: 0,
        to: 1,
        input: 0,
    };
    assert!(run(pipe).unwrap_err().contains("of 32 bytes but"));
    assert!(
        run(Pipe { output: 1, ..pipe })
            .unwrap_err()
            .contains("has 1 outputs")
    );
    assert!(
        run(Pipe {
            from: 1,
            to: 0,
            ..pipe
        })
        .unwrap_err()
        .contains("runs before it")
    );
    assert!(
        run(Pipe { to: 2, ..pipe })
            .unwrap_err()
            .contains("no such model")
    );
}
