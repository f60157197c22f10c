//! TensorFlow Lite Micro's `GreedyMemoryPlanner`, reproduced exactly.
//!
//! Order: buffers with a fixed offset first, in problem order; then the others by aligned size,
//! largest first, and among equal sizes the later buffer first (TFLM writes online buffers from
//! the tail in reverse order and then runs a stable descending sort).
//!
//! Placement: each buffer takes the lowest offset where it fits between the placed buffers
//! whose lifetimes overlap its own (TFLM walks them in offset order; [`super::space`] finds the
//! same offset without the walk and says why it is the same). Fixed buffers keep their offset
//! and are never checked against each other (an offline plan may alias).
//!
//! With overlaps (module `overlap`, never in TFLM's problems) the order is the same, and a buffer
//! whose partners are placed takes the lowest offset where it fits that they allow.
//!
//! Cost: O(n log² n), plus one step per run of placed bytes a buffer jumps over.

use super::{Problem, overlap};

pub(super) fn plan(problem: &Problem) -> Vec<u64> {
    plan_counted(problem).0
}

/// [`plan`], and the work it did: the placement's units (see `space`) plus one per buffer.
pub(super) fn plan_counted(problem: &Problem) -> (Vec<u64>, u64) {
    let buffers = problem.buffers();
    let size = |i: usize| buffers.get(i).map_or(0, |b| problem.aligned_size(b.size));

    let mut order: Vec<usize> = (0..buffers.len())
        .filter(|&i| buffers.get(i).is_some_and(|b| b.fixed_offset.is_some()))
        .collect();
    // Largest first, equal sizes later buffer first.
    let mut online: Vec<(std::cmp::Reverse<u64>, std::cmp::Reverse<usize>)> = (0..buffers.len())
        .filter(|&i| buffers.get(i).is_some_and(|b| b.fixed_offset.is_none()))
        .map(|i| (std::cmp::Reverse(size(i)), std::cmp::Reverse(i)))
        .collect();
    online.sort_unstable();
    order.extend(online.into_iter().map(|(_, std::cmp::Reverse(i))| i));

    let mut placement = overlap::Placement::new(problem);
    for id in order {
        let Some(buffer) = buffers.get(id) else {
            continue;
        };
        let wanted = size(id);
        let offset = match buffer.fixed_offset {
            Some(fixed) => fixed,
            None => placement.fit(id, wanted, false),
        };
        placement.put(id, offset, wanted);
    }
    placement.finish()
}

#[cfg(test)]
mod tests {
    use crate::plan::{Buffer, Planner, Problem, run};

    /// TFLite Micro's planner as it is written: a list sorted by offset, walked for every buffer.
    fn tflm_walk(problem: &Problem) -> Vec<u64> {
        let buffers = problem.buffers();
        let size = |i: usize| problem.aligned_size(buffers[i].size);
        let mut order: Vec<usize> = (0..buffers.len())
            .filter(|&i| buffers[i].fixed_offset.is_some())
            .collect();
        let mut online: Vec<usize> = (0..buffers.len())
            .filter(|&i| buffers[i].fixed_offset.is_none())
            .collect();
        online.sort_by(|&a, &b| size(b).cmp(&size(a)).then(b.cmp(&a)));
        order.extend(online);
        let mut offsets = vec![0; buffers.len()];
        let mut placed: Vec<(u64, u64, usize)> = Vec::new();
        for id in order {
            let wanted = size(id);
            let offset = buffers[id].fixed_offset.unwrap_or_else(|| {
                let mut candidate = 0u64;
                for &(offset, other_size, other) in &placed {
                    if !buffers[other].lifetime.overlaps(&buffers[id].lifetime) {
                        continue;
                    }
                    if offset >= candidate && offset - candidate >= wanted {
                        break;
                    }
                    candidate = candidate.max(offset + other_size);
                }
                candidate
            });
            let at = placed.partition_point(|&(o, _, _)| o <= offset);
            placed.insert(at, (offset, wanted, id));
            offsets[id] = offset;
        }
        offsets
    }

    #[test]
    fn equals_the_walk_of_tflite_micro() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..300 {
            let n = (next() % 60) as usize;
            let align = [1u64, 4, 16][(next() % 3) as usize];
            let buffers: Vec<Buffer> = (0..n)
                .map(|_| {
                    let first = (next() % 20) as u32;
                    let last = first + (next() % 8) as u32;
                    let size = [0, 1, 16, 17, 40, 64][(next() % 6) as usize] * (1 + next() % 3);
                    if next() % 9 == 0 {
                        Buffer::fixed(size, first, last, next() % 8 * 16)
                    } else {
                        Buffer::new(size, first, last)
                    }
                })
                .collect();
            let problem = Problem::new(buffers, align).unwrap();
            assert_eq!(
                run(&problem, Planner::Greedy).offsets(),
                tflm_walk(&problem),
                "round {round}"
            );
        }
    }

    fn greedy(buffers: &[(u64, u32, u32)]) -> (Vec<u64>, u64) {
        let problem = Problem::new(
            buffers
                .iter()
                .map(|&(s, f, l)| Buffer::new(s, f, l))
                .collect(),
            1,
        )
        .unwrap();
        let plan = run(&problem, Planner::Greedy);
        (plan.offsets().to_vec(), plan.arena_bytes())
    }

    // The vectors of TFLM's greedy_memory_planner_test.cc.
    #[test]
    fn tflm_greedy_medium() {
        let (offsets, arena) =
            greedy(&[(10, 0, 1), (20, 1, 2), (30, 2, 3), (40, 3, 4), (50, 0, 1)]);
        assert_eq!(offsets, [50, 70, 40, 0, 0]);
        assert_eq!(arena, 90);
    }

    #[test]
    fn tflm_overlap_case() {
        let (_, arena) = greedy(&[(100, 0, 1), (50, 2, 3), (20, 1, 2)]);
        assert_eq!(arena, 120);
    }

    #[test]
    fn tflm_greedy_basics() {
        let (offsets, arena) = greedy(&[(10, 0, 1), (20, 2, 3)]);
        assert_eq!(offsets, [0, 0]);
        assert_eq!(arena, 20);
    }

    #[test]
    fn equal_sizes_later_buffer_first() {
        // Checked against TFLM: three 32-byte buffers with equal lifetimes get 64, 32, 0.
        let (offsets, _) = greedy(&[(32, 0, 1), (32, 0, 1), (32, 0, 1)]);
        assert_eq!(offsets, [64, 32, 0]);
    }

    #[test]
    fn sizes_are_rounded_to_the_alignment() {
        let problem = Problem::new(vec![Buffer::new(1, 0, 0), Buffer::new(17, 0, 0)], 16).unwrap();
        let plan = run(&problem, Planner::Greedy);
        assert_eq!(plan.offsets(), [32, 0]);
        assert_eq!(plan.arena_bytes(), 48);
    }

    #[test]
    fn online_buffers_avoid_fixed_ones_and_fixed_ones_stay() {
        let problem = Problem::new(
            vec![
                Buffer::fixed(16, 0, 3, 16),
                Buffer::new(16, 1, 2),
                Buffer::new(32, 0, 0),
                Buffer::fixed(16, 0, 3, 16),
            ],
            16,
        )
        .unwrap();
        let plan = run(&problem, Planner::Greedy);
        // The 32-byte buffer cannot use the 16-byte gap at 0; the 16-byte one can.
        assert_eq!(plan.offsets(), [16, 0, 32, 16]);
    }
}
