//! Property tests on random problems: every planner's plan verifies and is at least the lower
//! bound; deliberately broken plans are rejected.

use proptest::prelude::*;
use stowplan_planner::plan::{Buffer, Plan, Planner, Problem, Settings, lower_bound, run};
use stowplan_planner::verify::{VerifyPlanError, solve, solve_with, verify};

const CASES: u32 = if cfg!(miri) { 8 } else { 256 };

fn problem() -> impl Strategy<Value = Problem> {
    let buffer = (
        0u64..300,
        0u32..40,
        0u32..12,
        proptest::option::weighted(0.1, 0u64..8),
    )
        .prop_map(|(size, first, len, fixed)| Buffer {
            size,
            lifetime: stowplan_planner::plan::Lifetime::new(first, first + len),
            fixed_offset: fixed.map(|f| f * 64),
        });
    (
        proptest::collection::vec(buffer, 0..60),
        prop_oneof![Just(1u64), Just(4), Just(16), Just(64)],
    )
        .prop_filter_map("valid", |(buffers, align)| {
            Problem::new(buffers, align).ok()
        })
}

/// Problems whose fixed buffers do not collide with each other (so a plan can be correct).
fn plannable() -> impl Strategy<Value = Problem> {
    problem().prop_map(|p| {
        let buffers: Vec<Buffer> = p
            .buffers()
            .iter()
            .map(|b| Buffer {
                fixed_offset: None,
                ..*b
            })
            .collect();
        Problem::new(buffers, p.alignment()).unwrap()
    })
}

/// The lower bound computed independently of the planner: at every time, the aligned bytes of the
/// buffers live then (fixed buffers ignored; `plannable` has none).
fn live_bytes_bound(problem: &Problem) -> u64 {
    let bufs = problem.buffers();
    let last = bufs.iter().map(|b| b.lifetime.last).max().unwrap_or(0);
    (0..=last)
        .map(|t| {
            bufs.iter()
                .filter(|b| b.size > 0 && b.lifetime.first <= t && t <= b.lifetime.last)
                .map(|b| problem.aligned_size(b.size))
                .sum::<u64>()
        })
        .max()
        .unwrap_or(0)
}

/// A pairwise check written independently of the verifier.
fn brute_force_ok(problem: &Problem, plan: &Plan) -> bool {
    let bufs = problem.buffers();
    let size = |i: usize| problem.aligned_size(bufs[i].size);
    for i in 0..bufs.len() {
        let (oi, si) = (plan.offsets()[i], size(i));
        if oi % problem.alignment() != 0 || oi + si > plan.arena_bytes() {
            return false;
        }
        for j in i + 1..bufs.len() {
            let (oj, sj) = (plan.offsets()[j], size(j));
            let time = bufs[i].lifetime.first <= bufs[j].lifetime.last
                && bufs[j].lifetime.first <= bufs[i].lifetime.last;
            let space = si > 0
                && sj > 0
                && bufs[i].size > 0
                && bufs[j].size > 0
                && oi < oj + sj
                && oj < oi + si;
            if time && space {
                return false;
            }
        }
    }
    true
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, ..ProptestConfig::default() })]

    #[test]
    fn every_plan_verifies_and_respects_the_bound(problem in plannable()) {
        let bound = lower_bound(&problem).aligned_bytes;
        prop_assert_eq!(bound, live_bytes_bound(&problem));
        let greedy = run(&problem, Planner::Greedy).arena_bytes();
        for planner in Planner::ALL {
            // A small search budget keeps this fast; the search has its own tests.
            let settings = Settings { search_steps: 300, ..Settings::new(planner) };
            let plan = solve_with(&problem, &settings).unwrap();
            prop_assert!(brute_force_ok(&problem, &plan));
            prop_assert!(plan.arena_bytes() >= bound, "{planner}: {} < {bound}", plan.arena_bytes());
            prop_assert!(plan.arena_bytes() <= problem.naive_bytes());
            // The bound is computed apart from the plan (never clamped to it): above the arena
            // it is wrong, below the live-bytes bound it is weaker than it must be.
            let independent = live_bytes_bound(&problem);
            prop_assert!(plan.best_bound() <= plan.arena_bytes(), "{planner}: bound {} above arena {}", plan.best_bound(), plan.arena_bytes());
            prop_assert!(plan.best_bound() >= independent, "{planner}: bound {} below {independent}", plan.best_bound());
            if plan.arena_bytes() == independent {
                prop_assert!(plan.proven_optimal(), "{planner}: at the live-bytes bound, not proven");
            }
            if plan.proven_optimal() {
                prop_assert_eq!(plan.arena_bytes(), plan.best_bound());
            }
            if matches!(planner, Planner::Auto | Planner::Search) {
                prop_assert!(plan.arena_bytes() <= greedy, "{planner} worse than greedy");
            }
        }
        prop_assert_eq!(run(&problem, Planner::Linear).arena_bytes(), problem.naive_bytes());
    }

    #[test]
    fn fixed_offsets_are_kept(problem in problem()) {
        for planner in Planner::ALL {
            let settings = Settings { search_steps: 300, ..Settings::new(planner) };
            let plan = stowplan_planner::plan::run_with(&problem, &settings);
            for (b, &o) in problem.buffers().iter().zip(plan.offsets()) {
                if let Some(f) = b.fixed_offset {
                    prop_assert_eq!(f, o);
                }
            }
            // With fixed overlaps allowed, only fixed-fixed pairs may collide.
            match verify(&problem, &plan, true) {
                Ok(v) => for d in v.declared_overlaps {
                    prop_assert!(problem.buffers()[d.a].fixed_offset.is_some() && problem.buffers()[d.b].fixed_offset.is_some());
                },
                Err(e) => prop_assert!(false, "{planner}: {e}"),
            }
            prop_assert!(plan.best_bound() <= plan.arena_bytes(), "{planner}: bound above arena");
        }
    }

    #[test]
    fn the_verifier_agrees_with_brute_force(problem in plannable(), seed in any::<u64>()) {
        // Random offsets: the verifier and the pairwise check must agree.
        let n = problem.buffers().len();
        let mut x = seed | 1;
        let offsets: Vec<u64> = (0..n).map(|_| { x ^= x << 13; x ^= x >> 7; x ^= x << 17; (x % 8) * problem.alignment() * 16 }).collect();
        let plan = Plan::from_offsets(&problem, offsets, Planner::Linear).unwrap();
        prop_assert_eq!(verify(&problem, &plan, false).is_ok(), brute_force_ok(&problem, &plan));
    }

    #[test]
    fn broken_plans_are_rejected(problem in plannable(), pick in any::<prop::sample::Index>()) {
        let plan = solve(&problem, Planner::Greedy).unwrap();
        let bufs = problem.buffers();
        // Move one buffer onto another it overlaps in time.
        let pairs: Vec<(usize, usize)> = (0..bufs.len())
            .flat_map(|i| (0..bufs.len()).map(move |j| (i, j)))
            .filter(|&(i, j)| i != j && bufs[i].size > 0 && bufs[j].size > 0 && bufs[i].lifetime.overlaps(&bufs[j].lifetime))
            .collect();
        if !pairs.is_empty() {
            let (i, j) = pairs[pick.index(pairs.len())];
            let mut offsets = plan.offsets().to_vec();
            offsets[i] = offsets[j];
            let broken = Plan::from_offsets(&problem, offsets, Planner::Greedy).unwrap();
            let is_overlap = matches!(verify(&problem, &broken, false), Err(VerifyPlanError::Overlap { .. }));
            prop_assert!(is_overlap);
        }
        // Misalign one buffer.
        if problem.alignment() > 1 && !bufs.is_empty() {
            let mut offsets = plan.offsets().to_vec();
            let i = pick.index(bufs.len());
            offsets[i] += 1;
            let broken = Plan::from_offsets(&problem, offsets, Planner::Greedy).unwrap();
            let is_misaligned = matches!(verify(&problem, &broken, false), Err(VerifyPlanError::Misaligned { .. }));
            prop_assert!(is_misaligned);
        }
    }
}
