//! Greedy heuristics other than TFLite Micro's: an order of the buffers and a placement rule.
//!
//! Every heuristic places the buffers with a fixed offset first (they never move), then the
//! others one at a time in its order, each next to the buffers already placed whose lifetimes
//! overlap its own:
//!
//! - **first fit** (as TFLite Micro's greedy): the lowest offset where the buffer fits;
//! - **best fit** (as TFLite's `SimpleMemoryArena`): the smallest gap between placed buffers
//!   that holds it, else on top of the highest of them.
//!
//! The orders (ties always broken by buffer index, so plans are deterministic):
//!
//! - `best-fit`: TFLite's `ArenaPlanner` order: buffers live over the whole timeline first, by
//!   index; then by size, largest first; equal sizes, the earlier first time first;
//! - `conflicts` (TVM's `greedy_by_conflicts`): most buffers overlapping in time first, then
//!   larger size first;
//! - `lifetime`: longest lifetime first, then larger size first;
//! - `urgency` (Vela's order): highest peak of live bytes during the buffer's lifetime first,
//!   then longest lifetime, then larger size.
//!
//! With overlaps (module `overlap`), a buffer whose partners are placed takes, whatever the fit,
//! the lowest offset where it fits that they allow.
//!
//! Guarantees: the plan is valid (the verifier checks it); no promise on its size beyond the
//! trivial bounds (at least the lower bound, at most the fixed buffers' end plus the sum of the
//! other aligned sizes). Cost: O(n log n) for the orders, O(n log² n) for the placement (with
//! [`super::space`]; best fit compares at most [`super::space::MAX_BEST_FIT_GAPS`] gaps per
//! buffer, lowest first).

use super::{Problem, Time, overlap};

/// How a heuristic places each buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fit {
    First,
    Best,
}

/// Places the buffers: fixed ones at their offsets, then `order` (indices of buffers without a
/// fixed offset) one at a time with `fit`; and the work it did: the placement's units (see
/// `space`) plus one per buffer.
pub(super) fn place(problem: &Problem, order: &[usize], fit: Fit) -> (Vec<u64>, u64) {
    let buffers = problem.buffers();
    let mut placement = overlap::Placement::new(problem);
    for (i, b) in buffers.iter().enumerate() {
        if let Some(offset) = b.fixed_offset {
            placement.put(i, offset, problem.aligned_size(b.size));
        }
    }
    for &i in order {
        let Some(b) = buffers.get(i) else { continue };
        if b.fixed_offset.is_some() {
            continue;
        }
        let size = problem.aligned_size(b.size);
        let offset = placement.fit(i, size, fit == Fit::Best);
        placement.put(i, offset, size);
    }
    placement.finish()
}

/// Indices of the buffers without a fixed offset.
fn online(problem: &Problem) -> Vec<usize> {
    problem
        .buffers()
        .iter()
        .enumerate()
        .filter(|(_, b)| b.fixed_offset.is_none())
        .map(|(i, _)| i)
        .collect()
}

fn length(problem: &Problem, i: usize) -> u64 {
    problem.buffers().get(i).map_or(0, |b| {
        u64::from(b.lifetime.last) - u64::from(b.lifetime.first) + 1
    })
}

fn size(problem: &Problem, i: usize) -> u64 {
    problem
        .buffers()
        .get(i)
        .map_or(0, |b| problem.aligned_size(b.size))
}

/// TFLite's `ArenaPlanner` order (see the module docs).
pub(super) fn best_fit_order(problem: &Problem) -> Vec<usize> {
    let buffers = problem.buffers();
    let start = buffers.iter().map(|b| b.lifetime.first).min().unwrap_or(0);
    let end = buffers.iter().map(|b| b.lifetime.last).max().unwrap_or(0);
    let whole = |i: usize| {
        buffers
            .get(i)
            .is_some_and(|b| b.lifetime.first == start && b.lifetime.last == end)
    };
    let first = |i: usize| buffers.get(i).map_or(0, |b| b.lifetime.first);
    let mut order = online(problem);
    order.sort_by(|&a, &b| {
        whole(b)
            .cmp(&whole(a))
            .then_with(|| {
                if whole(a) && whole(b) {
                    std::cmp::Ordering::Equal
                } else {
                    size(problem, b)
                        .cmp(&size(problem, a))
                        .then(first(a).cmp(&first(b)))
                }
            })
            .then(a.cmp(&b))
    });
    order
}

/// For each buffer, how many other buffers overlap it in time.
pub(super) fn conflict_counts(problem: &Problem) -> Vec<u64> {
    let buffers = problem.buffers();
    let mut firsts: Vec<Time> = buffers.iter().map(|b| b.lifetime.first).collect();
    let mut lasts: Vec<Time> = buffers.iter().map(|b| b.lifetime.last).collect();
    firsts.sort_unstable();
    lasts.sort_unstable();
    let n = buffers.len() as u64;
    buffers
        .iter()
        .map(|b| {
            // Buffers starting after b ends, or ending before b starts, do not overlap it.
            let after = n - firsts.partition_point(|&f| f <= b.lifetime.last) as u64;
            let before = lasts.partition_point(|&l| l < b.lifetime.first) as u64;
            n.saturating_sub(after + before + 1)
        })
        .collect()
}

/// TVM's `greedy_by_conflicts` order.
pub(super) fn conflicts_order(problem: &Problem) -> Vec<usize> {
    let counts = conflict_counts(problem);
    let count = |i: usize| counts.get(i).copied().unwrap_or(0);
    let mut order = online(problem);
    order.sort_by(|&a, &b| {
        count(b)
            .cmp(&count(a))
            .then(size(problem, b).cmp(&size(problem, a)))
            .then(a.cmp(&b))
    });
    order
}

/// Longest lifetime first.
pub(super) fn lifetime_order(problem: &Problem) -> Vec<usize> {
    let mut order = online(problem);
    order.sort_by(|&a, &b| {
        length(problem, b)
            .cmp(&length(problem, a))
            .then(size(problem, b).cmp(&size(problem, a)))
            .then(a.cmp(&b))
    });
    order
}

/// For each buffer, the most aligned bytes live at one time during its lifetime (all buffers
/// counted, fixed ones included). O(n log n): live bytes at each distinct first time, then a
/// segment tree for range maxima.
pub(super) fn urgencies(problem: &Problem) -> Vec<u64> {
    let buffers = problem.buffers();
    let mut starts: Vec<Time> = buffers.iter().map(|b| b.lifetime.first).collect();
    starts.sort_unstable();
    starts.dedup();
    // Live bytes at each start time: sweep starts and ends.
    let mut events: Vec<(u64, u64, bool)> = Vec::with_capacity(buffers.len() * 2);
    for b in buffers {
        let s = problem.aligned_size(b.size);
        events.push((u64::from(b.lifetime.first), s, true));
        events.push((u64::from(b.lifetime.last) + 1, s, false));
    }
    // Ends before starts at the same time (an end at t means last = t - 1).
    events.sort_unstable_by_key(|&(t, s, start)| (t, start, s));
    let mut live = vec![0u64; starts.len()];
    let mut current: u64 = 0;
    let mut e = 0;
    for (k, &t) in starts.iter().enumerate() {
        while let Some(&(time, s, start)) = events.get(e) {
            if time > u64::from(t) {
                break;
            }
            current = if start {
                current.saturating_add(s)
            } else {
                current.saturating_sub(s)
            };
            e += 1;
        }
        if let Some(slot) = live.get_mut(k) {
            *slot = current;
        }
    }
    // Range maxima over the start times: a segment tree (O(n) memory).
    let leaves = live.len().max(1).next_power_of_two();
    let mut tree = vec![0u64; 2 * leaves];
    for (k, &v) in live.iter().enumerate() {
        if let Some(slot) = tree.get_mut(leaves + k) {
            *slot = v;
        }
    }
    for node in (1..leaves).rev() {
        let m = tree
            .get(2 * node)
            .copied()
            .unwrap_or(0)
            .max(tree.get(2 * node + 1).copied().unwrap_or(0));
        if let Some(slot) = tree.get_mut(node) {
            *slot = m;
        }
    }
    let range_max = |lo: usize, hi: usize| -> u64 {
        // Leaves lo..hi.
        let (mut a, mut b) = (lo + leaves, hi + leaves);
        let mut m = 0;
        while a < b {
            if a & 1 == 1 {
                m = m.max(tree.get(a).copied().unwrap_or(0));
                a += 1;
            }
            if b & 1 == 1 {
                b -= 1;
                m = m.max(tree.get(b).copied().unwrap_or(0));
            }
            a >>= 1;
            b >>= 1;
        }
        m
    };
    buffers
        .iter()
        .map(|b| {
            let lo = starts.partition_point(|&s| s < b.lifetime.first);
            let hi = starts.partition_point(|&s| s <= b.lifetime.last);
            if hi > lo { range_max(lo, hi) } else { 0 }
        })
        .collect()
}

/// Vela's order: urgency, then lifetime, then size.
pub(super) fn urgency_order(problem: &Problem) -> Vec<usize> {
    let urgency = urgencies(problem);
    let u = |i: usize| urgency.get(i).copied().unwrap_or(0);
    let mut order = online(problem);
    order.sort_by(|&a, &b| {
        u(b).cmp(&u(a))
            .then(length(problem, b).cmp(&length(problem, a)))
            .then(size(problem, b).cmp(&size(problem, a)))
            .then(a.cmp(&b))
    });
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Buffer;

    fn problem(buffers: &[(u64, u32, u32)]) -> Problem {
        Problem::new(
            buffers
                .iter()
                .map(|&(s, f, l)| Buffer::new(s, f, l))
                .collect(),
            1,
        )
        .unwrap()
    }

    #[test]
    fn best_fit_takes_the_smallest_gap() {
        // 0: [0,30) and 1: [40,50) (gap 10 between 30 and 40 at times 0..=2), 2: [50,110) at 1..=2.
        // Placed at time 2: a 10-byte buffer fits the gap 30..40 exactly.
        let p = Problem::new(
            vec![
                Buffer::fixed(30, 0, 2, 0),
                Buffer::fixed(10, 0, 2, 40),
                Buffer::fixed(60, 0, 2, 100),
                Buffer::new(10, 2, 2),
            ],
            1,
        )
        .unwrap();
        let order = best_fit_order(&p);
        assert_eq!(order, [3]);
        // First fit takes 30 too; make a smaller gap higher up.
        let p2 = Problem::new(
            vec![
                Buffer::fixed(30, 0, 2, 0),
                Buffer::fixed(10, 0, 2, 50),
                Buffer::fixed(10, 0, 2, 70),
                Buffer::new(10, 2, 2),
            ],
            1,
        )
        .unwrap();
        // Gaps: 30..50 (20), 60..70 (10). Best fit takes 60, first fit 30.
        assert_eq!(place(&p2, &[3], Fit::Best).0[3], 60);
        assert_eq!(place(&p2, &[3], Fit::First).0[3], 30);
        assert_eq!(place(&p, &[3], Fit::Best).0[3], 30);
    }

    #[test]
    fn conflicts_and_urgency() {
        let p = problem(&[(10, 0, 1), (20, 1, 2), (30, 2, 3), (5, 0, 3)]);
        assert_eq!(conflict_counts(&p), [2, 3, 2, 3]);
        // Live: t0 15, t1 35, t2 55, t3 35.
        assert_eq!(urgencies(&p), [35, 55, 55, 55]);
        assert_eq!(conflicts_order(&p), [1, 3, 2, 0]);
        assert_eq!(urgency_order(&p), [3, 2, 1, 0]);
        assert_eq!(lifetime_order(&p), [3, 2, 1, 0]);
    }

    #[test]
    fn whole_run_buffers_come_first_in_best_fit_order() {
        let p = problem(&[(10, 0, 1), (5, 0, 3), (20, 1, 2), (20, 0, 2)]);
        assert_eq!(best_fit_order(&p), [1, 3, 2, 0]);
    }
}
