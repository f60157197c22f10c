//! Problems with pairs of buffers that may overlap ([`Overlap`]): the rules a problem must keep,
//! the overlap-aware bound against brute force, every planner's plan against a pairwise check
//! written here, and the verifier refusing a pair one alignment unit closer than allowed.

use proptest::prelude::*;
use stowplan_planner::plan::{
    Buffer, Overlap, Plan, Planner, Problem, ProblemError, Settings, lower_bound, proven_bound,
    run, run_with,
};
use stowplan_planner::verify::{VerifyPlanError, solve_with, verify};

const CASES: u32 = if cfg!(miri) { 8 } else { 256 };

fn ceil_to(d: i64, a: u64) -> i64 {
    let a = a as i64;
    (d + a - 1).div_euclid(a) * a
}

/// A pairwise check written apart from the verifier: buffers live together share no byte unless
/// they are a declared pair whose input is at least its (aligned) minimum above its output.
fn pairwise_ok(problem: &Problem, plan: &Plan) -> bool {
    let bufs = problem.buffers();
    let a = problem.alignment();
    let size = |i: usize| problem.aligned_size(bufs[i].size);
    for i in 0..bufs.len() {
        let (oi, si) = (plan.offsets()[i], size(i));
        if oi % a != 0 || oi + si > plan.arena_bytes() {
            return false;
        }
        for j in 0..bufs.len() {
            if i == j {
                continue;
            }
            let (oj, sj) = (plan.offsets()[j], size(j));
            let together = bufs[i].lifetime.overlaps(&bufs[j].lifetime);
            let share = si > 0 && sj > 0 && oi < oj + sj && oj < oi + si;
            if !(together && share) {
                continue;
            }
            // i as the output, j as the input (the other order is checked when i and j swap).
            let declared = problem
                .overlaps()
                .iter()
                .find(|o| (o.output, o.input) == (i, j) || (o.output, o.input) == (j, i));
            match declared {
                Some(o) if o.output == i => {
                    let d = plan.offsets()[j] as i64 - plan.offsets()[i] as i64;
                    if d < ceil_to(o.min_displacement, a) {
                        return false;
                    }
                }
                Some(_) => {}
                None => return false,
            }
        }
    }
    true
}

/// Random problems shaped like models: ops at times 0.., each writing one or two buffers and
/// reading earlier ones; at some ops the output may overlap every input dying there (or one
/// input each of the op's outputs), with a random minimum displacement.
fn problem(
    max_ops: usize,
    max_size: u64,
    aligns: &'static [u64],
) -> impl Strategy<Value = Problem> {
    (1..=max_ops, proptest::sample::select(aligns), any::<u64>()).prop_filter_map(
        "valid",
        move |(ops, align, seed)| {
            let mut x = seed | 1;
            let mut next = move |n: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % n.max(1)
            };
            // buffers: (size, first, last)
            let mut bufs: Vec<(u64, u32, u32)> = vec![(next(max_size) + 1, 0, 0)];
            let mut ops_io: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
            for t in 1..=ops as u32 {
                let inputs: Vec<usize> = {
                    let k = 1 + next(2) as usize;
                    let mut v: Vec<usize> =
                        (0..k).map(|_| next(bufs.len() as u64) as usize).collect();
                    v.sort_unstable();
                    v.dedup();
                    v
                };
                for &i in &inputs {
                    bufs[i].2 = bufs[i].2.max(t);
                }
                let outs = 1 + usize::from(next(5) == 0);
                let outputs: Vec<usize> = (0..outs)
                    .map(|_| {
                        let size = if next(4) == 0 { 0 } else { next(max_size) + 1 };
                        bufs.push((size, t, t));
                        bufs.len() - 1
                    })
                    .collect();
                ops_io.push((inputs, outputs));
            }
            // Outputs read later live until their last reader.
            for (t, (inputs, _)) in ops_io.iter().enumerate() {
                for &i in inputs {
                    bufs[i].2 = bufs[i].2.max(t as u32 + 1);
                }
            }
            let mut overlaps = Vec::new();
            for (t, (inputs, outputs)) in ops_io.iter().enumerate() {
                let t = t as u32 + 1;
                let dying: Vec<usize> =
                    inputs.iter().copied().filter(|&i| bufs[i].2 == t).collect();
                if dying.is_empty() || next(3) == 0 {
                    continue;
                }
                let mut d = || next(3 * max_size) as i64 - max_size as i64;
                if outputs.len() == 1 {
                    for &i in &dying {
                        overlaps.push(Overlap::new(outputs[0], i, d()));
                    }
                } else {
                    for &o in outputs {
                        overlaps.push(Overlap::new(o, dying[0], d()));
                    }
                }
            }
            let buffers = bufs.iter().map(|&(s, f, l)| Buffer::new(s, f, l)).collect();
            Problem::with_overlaps(buffers, align, overlaps).ok()
        },
    )
}

/// The smallest arena of every plan, by trying every offset (multiples of the alignment up to
/// the naive sum) for every buffer.
fn brute_force_optimum(problem: &Problem) -> u64 {
    let n = problem.buffers().len();
    let a = problem.alignment();
    let top = problem.naive_bytes();
    let mut offsets = vec![0u64; n];
    let mut best = u64::MAX;
    loop {
        let plan = Plan::from_offsets(problem, offsets.clone(), Planner::Linear).unwrap();
        if plan.arena_bytes() < best && pairwise_ok(problem, &plan) {
            best = plan.arena_bytes();
        }
        let mut k = 0;
        loop {
            if k == n {
                return best;
            }
            offsets[k] += a;
            if offsets[k] <= top {
                break;
            }
            offsets[k] = 0;
            k += 1;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, ..ProptestConfig::default() })]

    #[test]
    fn every_plan_keeps_every_pair_and_the_bound(problem in problem(12, 200, &[1, 4, 16])) {
        let bound = proven_bound(&problem);
        let whole = lower_bound(&problem).aligned_bytes;
        prop_assert!(bound <= whole, "overlap-aware bound {bound} above the tensor-level {whole}");
        let greedy_whole = run(&problem.without_overlaps(), Planner::Greedy).arena_bytes();
        for planner in Planner::ALL {
            let settings = Settings { search_steps: 300, ..Settings::new(planner) };
            let plan = solve_with(&problem, &settings).unwrap();
            prop_assert!(pairwise_ok(&problem, &plan), "{planner}");
            prop_assert!(plan.arena_bytes() >= bound, "{planner}: {} < {bound}", plan.arena_bytes());
            // The search may prove more than the bound (smaller capacities infeasible), never
            // more than its arena.
            prop_assert!(plan.best_bound() >= bound, "{planner}: bound {} below {bound}", plan.best_bound());
            prop_assert!(plan.best_bound() <= plan.arena_bytes(), "{planner}: bound above its arena");
            prop_assert_eq!(plan.proven_optimal(), plan.arena_bytes() == plan.best_bound());
            if planner == Planner::Auto {
                prop_assert!(plan.arena_bytes() <= greedy_whole, "auto worse than whole buffers");
            }
        }
    }

    #[test]
    fn the_bound_is_at_most_the_optimum(problem in problem(2, 40, &[16]), steps in 1u64..3_000) {
        prop_assume!(problem.buffers().len() <= 4);
        let optimum = brute_force_optimum(&problem);
        prop_assert!(proven_bound(&problem) <= optimum, "bound {} above the optimum {optimum}", proven_bound(&problem));
        for planner in Planner::ALL {
            let plan = run_with(&problem, &Settings { search_steps: steps, ..Settings::new(planner) });
            prop_assert!(pairwise_ok(&problem, &plan), "{planner}");
            prop_assert!(plan.arena_bytes() >= optimum, "{planner} below the optimum");
            prop_assert!(plan.best_bound() <= optimum, "{planner}: bound {} above the optimum {optimum}", plan.best_bound());
            if plan.proven_optimal() {
                prop_assert_eq!(plan.arena_bytes(), optimum, "{} proven optimal", planner);
            }
        }
        // With every pair at least one unit apart the search is exact: given the budget, it
        // finds the optimum and proves it.
        let exact = problem.overlaps().iter().all(|o| o.min_displacement >= 16);
        if exact {
            let plan = run_with(&problem, &Settings { search_steps: 10_000_000, ..Settings::new(Planner::Search) });
            prop_assert_eq!(plan.arena_bytes(), optimum, "search");
            prop_assert!(plan.proven_optimal());
        }
    }

    #[test]
    fn the_verifier_agrees_with_the_pairwise_check(problem in problem(10, 100, &[1, 4, 16]), seed in any::<u64>()) {
        let n = problem.buffers().len();
        let mut x = seed | 1;
        let a = problem.alignment();
        let offsets: Vec<u64> = (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 24) * a * 4
            })
            .collect();
        let plan = Plan::from_offsets(&problem, offsets, Planner::Linear).unwrap();
        prop_assert_eq!(verify(&problem, &plan, false).is_ok(), pairwise_ok(&problem, &plan));
    }
}

/// The chain at the top of person_detect: DEPTHWISE 3x3 stride 2 (96x96x1 to 48x48x8, input at
/// least 9,312 B above the output), DEPTHWISE 3x3 stride 1 (one row and one pixel: 392 B),
/// CONV 1x1 (8 to 16 channels: input at least 18,432 B above the output).
#[test]
fn the_person_detect_head_plans_at_its_largest_tensor() {
    let problem = Problem::with_overlaps(
        vec![
            Buffer::new(9_216, 0, 1),
            Buffer::new(18_432, 1, 2),
            Buffer::new(18_432, 2, 3),
            Buffer::new(36_864, 3, 4),
        ],
        16,
        vec![
            Overlap::new(1, 0, 9_312),
            Overlap::new(2, 1, 392),
            Overlap::new(3, 2, 18_432),
        ],
    )
    .unwrap();
    assert_eq!(lower_bound(&problem).aligned_bytes, 55_296);
    assert_eq!(proven_bound(&problem), 36_864);
    let plan = solve_with(&problem, &Settings::new(Planner::Auto)).unwrap();
    assert!(pairwise_ok(&problem, &plan));
    assert_eq!(plan.arena_bytes(), 36_864);
    assert!(plan.proven_optimal());
}

/// A chain whose pairs each want the input 16 bytes above the output drifts up by 16 a step;
/// planned as whole buffers it takes two slots. Every plan stays valid, and `auto` finds and
/// proves the optimum, above the pairwise bound.
#[test]
fn a_drifting_chain_stays_valid_and_auto_never_loses() {
    let n = 12;
    let buffers = (0..n).map(|j| Buffer::new(64, j, j + 1)).collect();
    let overlaps = (0..n as usize - 1)
        .map(|j| Overlap::new(j + 1, j, 16))
        .collect();
    let problem = Problem::with_overlaps(buffers, 16, overlaps).unwrap();
    assert_eq!(proven_bound(&problem), 80);
    for planner in Planner::ALL {
        let plan = solve_with(&problem, &Settings::new(planner)).unwrap();
        assert!(pairwise_ok(&problem, &plan), "{planner}");
    }
    // Runs that drift down by 16 from at most 64, then a jump of a whole buffer: 128 B, which the
    // search proves optimal (no plan fits 112: no jump fits, and one run needs 240).
    let auto = run(&problem, Planner::Auto);
    assert_eq!(auto.arena_bytes(), 128);
    assert!(auto.proven_optimal(), "bound {}", auto.best_bound());
    assert_eq!(auto.best_bound(), 128);
}

#[test]
fn the_verifier_refuses_a_pair_one_unit_too_close() {
    // Output of 64 bytes over a dying input of 32 that must start 32 bytes above it.
    let problem = Problem::with_overlaps(
        vec![Buffer::new(32, 0, 1), Buffer::new(64, 1, 2)],
        16,
        vec![Overlap::new(1, 0, 20)],
    )
    .unwrap();
    let at = |input: u64, output: u64| {
        let plan = Plan::from_offsets(&problem, vec![input, output], Planner::Linear).unwrap();
        verify(&problem, &plan, false)
    };
    // 20 rounds up to 32.
    assert!(at(32, 0).is_ok());
    assert!(at(48, 0).is_ok());
    assert!(at(64, 0).is_ok());
    assert_eq!(
        at(16, 0),
        Err(VerifyPlanError::TooClose {
            output: 1,
            input: 0,
            displacement: 16,
            min: 32
        })
    );
    // Below the output, sharing bytes: refused; below it and disjoint: fine.
    assert!(matches!(at(0, 16), Err(VerifyPlanError::TooClose { .. })));
    assert!(at(0, 32).is_ok());
    // Without the pair, any shared byte is an overlap.
    let whole = problem.without_overlaps();
    let plan = Plan::from_offsets(&whole, vec![32, 0], Planner::Linear).unwrap();
    assert!(matches!(
        verify(&whole, &plan, false),
        Err(VerifyPlanError::Overlap { time: 1, .. })
    ));
}

#[test]
fn pairs_of_other_buffers_at_one_time_still_conflict() {
    // Two ops' worth of pairs at the same time would lose the conflict between the first pair's
    // input and the second's output: refused.
    let buffers = vec![
        Buffer::new(16, 0, 1),
        Buffer::new(16, 0, 1),
        Buffer::new(16, 1, 2),
        Buffer::new(16, 1, 2),
    ];
    let err = Problem::with_overlaps(
        buffers.clone(),
        16,
        vec![Overlap::new(2, 0, 0), Overlap::new(3, 1, 0)],
    )
    .unwrap_err();
    assert!(
        matches!(err, ProblemError::BadOverlap { overlap: 1, .. }),
        "{err}"
    );
    // Every input with every output is complete: accepted, and the two inputs still conflict.
    let problem = Problem::with_overlaps(
        buffers,
        16,
        vec![
            Overlap::new(2, 0, 0),
            Overlap::new(2, 1, 0),
            Overlap::new(3, 0, 0),
            Overlap::new(3, 1, 0),
        ],
    )
    .unwrap();
    let plan = Plan::from_offsets(&problem, vec![0, 0, 0, 16], Planner::Linear).unwrap();
    assert!(matches!(
        verify(&problem, &plan, false),
        Err(VerifyPlanError::Overlap {
            a: 0,
            b: 1,
            time: 0,
            ..
        })
    ));
    let plan = Plan::from_offsets(&problem, vec![0, 16, 16, 0], Planner::Linear).unwrap();
    assert!(verify(&problem, &plan, false).is_ok());
}

#[test]
fn each_rule_of_a_pair_is_checked() {
    let b = || {
        vec![
            Buffer::new(16, 0, 1),
            Buffer::new(16, 1, 2),
            Buffer::new(16, 3, 4),
        ]
    };
    let why = |overlaps: Vec<Overlap>, buffers: Vec<Buffer>| match Problem::with_overlaps(
        buffers, 16, overlaps,
    ) {
        Err(ProblemError::BadOverlap { why, .. }) => why,
        other => panic!("{other:?}"),
    };
    assert!(why(vec![Overlap::new(1, 9, 0)], b()).contains("does not have"));
    assert!(why(vec![Overlap::new(1, 1, 0)], b()).contains("itself"));
    assert!(why(vec![Overlap::new(2, 0, 0)], b()).contains("does not end where"));
    assert!(why(vec![Overlap::new(1, 0, 0), Overlap::new(1, 0, 4)], b()).contains("repeats"));
    assert!(why(vec![Overlap::new(1, 0, i64::MIN)], b()).contains("limit"));
    let mut fixed = b();
    fixed[0] = Buffer::fixed(16, 0, 1, 0);
    assert!(why(vec![Overlap::new(1, 0, 0)], fixed).contains("fixed"));
    let late = vec![Buffer::new(16, 0, 1), Buffer::new(16, 1, u32::MAX)];
    assert!(matches!(
        Problem::with_overlaps(late, 16, vec![Overlap::new(1, 0, 0)]),
        Err(ProblemError::TimeTooLate { buffer: 1, .. })
    ));
}
