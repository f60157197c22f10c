//! Moving overlapped pairs apart where the arena has room.
//!
//! A pair's least displacement ([`crate::kernel_order::min_displacement`]) lets the runtime's
//! overlapped driver run the op, but close to it the driver's chunks are short (at the least
//! displacement of a 3 x 3 stride-1 depthwise op, one output pixel each: a kernel call per
//! pixel). Each pair also has a *preferred* displacement, from which its chunks are whole
//! output rows (a pointwise op: the input above the output's end). The planners minimise the
//! arena and place pairs as close as they may wherever they are; [`spread`] then moves one
//! buffer of each pair closer than it prefers (the output down, or the input up, to the
//! preferred displacement) when the moved plan still verifies within the same arena. Pairs at
//! the arena's peak stay where they are: there the bytes are the point.

use crate::plan::{Plan, Problem};

/// `plan` with pairs moved to their `preferred` displacements (bytes, one per
/// [`Problem::overlaps`] entry) where that keeps it valid ([`crate::verify::verify`] with
/// `allow_fixed_overlaps`) within its arena. The arena and what is known of its quality do not
/// change.
#[must_use]
pub(crate) fn spread(
    problem: &Problem,
    plan: Plan,
    preferred: &[i64],
    allow_fixed_overlaps: bool,
) -> Plan {
    let arena = plan.arena_bytes();
    let align = problem.alignment().max(1);
    let buffers = problem.buffers();
    let mut offsets = plan.offsets().to_vec();
    for (pair, &want) in problem.overlaps().iter().zip(preferred) {
        let (Some(&o), Some(&i), Some(ob), Some(ib)) = (
            offsets.get(pair.output),
            offsets.get(pair.input),
            buffers.get(pair.output),
            buffers.get(pair.input),
        ) else {
            continue;
        };
        let (o_end, i_end) = (
            o.saturating_add(problem.aligned_size(ob.size)),
            i.saturating_add(problem.aligned_size(ib.size)),
        );
        let d = i128::from(i) - i128::from(o);
        if d >= i128::from(want) || o_end <= i || i_end <= o {
            // Where it prefers to be, or sharing no byte.
            continue;
        }
        let Ok(want) = u64::try_from(want) else {
            continue;
        };
        // The output down to `want` below the input, or the input up to `want` above the
        // output (aligned so the displacement stays at least `want`).
        let down = i.checked_sub(want).map(|at| at / align * align);
        let up = o
            .checked_add(want)
            .and_then(|at| at.checked_next_multiple_of(align));
        for (buffer, at) in [(pair.output, down), (pair.input, up)] {
            let Some(at) = at else {
                continue;
            };
            let mut trial = offsets.clone();
            let Some(slot) = trial.get_mut(buffer) else {
                continue;
            };
            *slot = at;
            let Ok(moved) = Plan::from_offsets(problem, trial, plan.planner) else {
                continue;
            };
            if moved.arena_bytes() <= arena
                && crate::verify::verify(problem, &moved, allow_fixed_overlaps).is_ok()
            {
                offsets = moved.offsets;
                break;
            }
        }
    }
    match Plan::from_offsets(problem, offsets, plan.planner) {
        Ok(moved) => Plan {
            offsets: moved.offsets,
            arena_bytes: moved.arena_bytes,
            ..plan
        },
        Err(_) => plan,
    }
}

#[cfg(test)]
mod tests {
    use super::spread;
    use crate::plan::{Buffer, Overlap, Plan, Planner, Problem};

    /// x (64) dies at time 1 where y (64) is written over it (least 16 bytes apart, preferring
    /// 64: disjoint); z (200) dies at time 3 where w (200) is written over it (least 40,
    /// preferring 200) while v (128) is live too. The peak is at time 3 (40 + 200 + 128): the
    /// second pair stays at its least displacement, the first moves apart.
    #[test]
    fn pairs_off_the_peak_move_apart_and_the_peak_stays() {
        let buffers = vec![
            Buffer::new(64, 0, 1),
            Buffer::new(64, 1, 2),
            Buffer::new(200, 2, 3),
            Buffer::new(200, 3, 4),
            Buffer::new(128, 3, 3),
        ];
        let pairs = vec![Overlap::new(1, 0, 16), Overlap::new(3, 2, 40)];
        let problem = Problem::with_overlaps(buffers, 1, pairs).unwrap();
        // Both pairs as close as they may be: w at 0, z 40 above it, v above z; y above z
        // (they meet at time 2), x 16 above y.
        let offsets = vec![256, 240, 40, 0, 240];
        let plan = Plan::from_offsets(&problem, offsets.clone(), Planner::Linear).unwrap();
        crate::verify::verify(&problem, &plan, false).unwrap();
        assert_eq!(plan.arena_bytes(), 368);
        let moved = spread(&problem, plan.clone(), &[64, 200], false);
        crate::verify::verify(&problem, &moved, false).unwrap();
        assert_eq!(moved.arena_bytes(), 368);
        // y cannot go down (z is there at time 2); x goes up, 64 above y: they share no
        // byte. w cannot go down nor z up: the peak's pair stays 40 apart.
        assert_eq!(moved.offsets(), [304, 240, 40, 0, 240]);
        // Preferences already met: nothing moves.
        let same = spread(&problem, plan, &[16, 40], false);
        assert_eq!(same.offsets(), &offsets[..]);
    }
}
