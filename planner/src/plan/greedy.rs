//! TensorFlow Lite Micro's `GreedyMemoryPlanner`, reproduced exactly.
//!
//! Order: buffers with a fixed offset first, in problem order; then the others by aligned size,
//! largest first, and among equal sizes the later buffer first (TFLM writes online buffers from
//! the tail in reverse order and then runs a stable descending sort).
//!
//! Placement: the placed buffers are kept in a list sorted by offset (equal offsets in placing
//! order). A new buffer walks the list, looking only at buffers whose lifetimes overlap its own;
//! it takes the first gap at least its size, else goes after the highest of them. Fixed buffers
//! keep their offset and are never checked against each other (an offline plan may alias).
//!
//! Cost: O(n²) in the worst case (every buffer walks the whole list).

use super::Problem;

pub(super) fn plan(problem: &Problem) -> Vec<u64> {
    let buffers = problem.buffers();
    let size = |i: usize| buffers.get(i).map_or(0, |b| problem.aligned_size(b.size));

    let mut order: Vec<usize> = (0..buffers.len())
        .filter(|&i| buffers.get(i).is_some_and(|b| b.fixed_offset.is_some()))
        .collect();
    let mut online: Vec<usize> = (0..buffers.len())
        .filter(|&i| buffers.get(i).is_some_and(|b| b.fixed_offset.is_none()))
        .collect();
    online.sort_by(|&a, &b| size(b).cmp(&size(a)).then(b.cmp(&a)));
    order.extend(online);

    let mut offsets = vec![0; buffers.len()];
    // (offset, aligned size, buffer index), sorted by offset; equal offsets in placing order.
    let mut placed: Vec<(u64, u64, usize)> = Vec::with_capacity(buffers.len());
    for id in order {
        let Some(buffer) = buffers.get(id) else {
            continue;
        };
        let wanted = size(id);
        let offset = match buffer.fixed_offset {
            Some(fixed) => fixed,
            None => {
                let mut candidate = 0u64;
                for &(offset, other_size, other) in &placed {
                    let Some(o) = buffers.get(other) else {
                        continue;
                    };
                    if !o.lifetime.overlaps(&buffer.lifetime) {
                        continue;
                    }
                    if offset >= candidate && offset - candidate >= wanted {
                        break;
                    }
                    candidate = candidate.max(offset + other_size);
                }
                candidate
            }
        };
        let at = placed.partition_point(|&(o, _, _)| o <= offset);
        placed.insert(at, (offset, wanted, id));
        if let Some(slot) = offsets.get_mut(id) {
            *slot = offset;
        }
    }
    offsets
}

#[cfg(test)]
mod tests {
    use crate::plan::{Buffer, Planner, Problem, run};

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
