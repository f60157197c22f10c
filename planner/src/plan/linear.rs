//! No reuse: TensorFlow Lite Micro's `LinearMemoryPlanner`. Fixed buffers keep their offsets;
//! the others follow one another in problem order, after the highest fixed buffer.

use super::Problem;

pub(super) fn plan(problem: &Problem) -> Vec<u64> {
    let fixed_end = problem
        .buffers()
        .iter()
        .filter_map(|b| b.fixed_offset.map(|o| o + problem.aligned_size(b.size)))
        .max()
        .unwrap_or(0);
    let mut next = fixed_end;
    problem
        .buffers()
        .iter()
        .map(|b| match b.fixed_offset {
            Some(offset) => offset,
            None => {
                let offset = next;
                next += problem.aligned_size(b.size);
                offset
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::plan::{Buffer, Planner, Problem, run};

    #[test]
    fn linear_places_in_order_without_reuse() {
        let problem = Problem::new(
            vec![
                Buffer::new(10, 0, 0),
                Buffer::new(20, 5, 5),
                Buffer::fixed(16, 0, 9, 0),
            ],
            16,
        )
        .unwrap();
        let plan = run(&problem, Planner::Linear);
        assert_eq!(plan.offsets(), [16, 32, 0]);
        assert_eq!(plan.arena_bytes(), 64);
        assert_eq!(plan.arena_bytes(), problem.naive_bytes());
    }
}
