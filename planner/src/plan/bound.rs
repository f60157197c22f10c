//! The lower bound: the largest number of bytes live at one time.
//!
//! No plan can be smaller than the bytes that must be held at once, so the maximum over time of
//! the sum of live (aligned) sizes bounds every plan from below. For problems whose conflicts
//! are all pairwise-overlapping intervals this bound is often, but not always, reachable.

use super::{Problem, Time};

/// Bytes live over time, and where they peak.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LiveProfile {
    /// Maximum over time of the sum of aligned sizes of live buffers: the lower bound.
    pub aligned_bytes: u64,
    /// Maximum over time of the sum of raw sizes (may peak at another time).
    pub raw_bytes: u64,
    /// The first time at which `aligned_bytes` are live, if any buffer has a size.
    pub peak_time: Option<Time>,
    /// The buffers live at `peak_time` with a non-zero size, in problem order.
    pub peak_buffers: Vec<usize>,
}

/// Computes the [`LiveProfile`] of `problem` in O(n log n).
///
/// ```
/// use stowplan_planner::plan::{lower_bound, Buffer, Problem};
///
/// let problem = Problem::new(vec![Buffer::new(10, 0, 1), Buffer::new(20, 1, 2), Buffer::new(5, 2, 2)], 16)?;
/// let profile = lower_bound(&problem);
/// assert_eq!(profile.aligned_bytes, 48); // 16 + 32 at time 1 (32 + 16 at time 2 too)
/// assert_eq!(profile.raw_bytes, 30);
/// assert_eq!(profile.peak_time, Some(1));
/// # Ok::<(), stowplan_planner::plan::ProblemError>(())
/// ```
#[must_use]
pub fn lower_bound(problem: &Problem) -> LiveProfile {
    // (time, aligned delta, raw delta); ends at last + 1, so use u64 times.
    let mut events: Vec<(u64, i128, i128)> = Vec::with_capacity(problem.buffers().len() * 2);
    for b in problem.buffers().iter().filter(|b| b.size > 0) {
        let aligned = i128::from(problem.aligned_size(b.size));
        let raw = i128::from(b.size);
        events.push((u64::from(b.lifetime.first), aligned, raw));
        events.push((u64::from(b.lifetime.last) + 1, -aligned, -raw));
    }
    events.sort_unstable();

    let mut profile = LiveProfile::default();
    let (mut aligned, mut raw) = (0i128, 0i128);
    let mut i = 0;
    while let Some(&(time, _, _)) = events.get(i) {
        while let Some(&(t, a, r)) = events.get(i) {
            if t != time {
                break;
            }
            aligned += a;
            raw += r;
            i += 1;
        }
        let (a, r) = (
            u64::try_from(aligned).unwrap_or(0),
            u64::try_from(raw).unwrap_or(0),
        );
        if a > profile.aligned_bytes {
            profile.aligned_bytes = a;
            profile.peak_time = Time::try_from(time).ok();
        }
        profile.raw_bytes = profile.raw_bytes.max(r);
    }
    if let Some(peak) = profile.peak_time {
        profile.peak_buffers = problem
            .buffers()
            .iter()
            .enumerate()
            .filter(|(_, b)| b.size > 0 && b.lifetime.contains(peak))
            .map(|(i, _)| i)
            .collect();
    }
    profile
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Buffer;

    #[test]
    fn empty_problem_has_zero_bound() {
        let profile = lower_bound(&Problem::new(vec![], 16).unwrap());
        assert_eq!(profile, LiveProfile::default());
    }

    #[test]
    fn bound_counts_touching_lifetimes_as_overlapping() {
        // [0,1] and [1,2] are both live at 1.
        let problem = Problem::new(
            vec![
                Buffer::new(100, 0, 1),
                Buffer::new(50, 1, 2),
                Buffer::new(70, 2, 2),
            ],
            1,
        )
        .unwrap();
        let profile = lower_bound(&problem);
        assert_eq!(profile.aligned_bytes, 150);
        assert_eq!(profile.peak_time, Some(1));
        assert_eq!(profile.peak_buffers, [0, 1]);
    }

    #[test]
    fn raw_and_aligned_peaks_can_differ() {
        // Time 0: 1 + 1 + 1 raw = 3, aligned 48. Time 1: 40 raw, aligned 48.
        let problem = Problem::new(
            vec![
                Buffer::new(1, 0, 0),
                Buffer::new(1, 0, 0),
                Buffer::new(1, 0, 0),
                Buffer::new(40, 1, 1),
            ],
            16,
        )
        .unwrap();
        let profile = lower_bound(&problem);
        assert_eq!(profile.aligned_bytes, 48);
        assert_eq!(profile.peak_time, Some(0));
        assert_eq!(profile.raw_bytes, 40);
    }

    #[test]
    fn lifetimes_ending_at_the_last_time_do_not_overflow() {
        let problem = Problem::new(
            vec![
                Buffer::new(8, Time::MAX, Time::MAX),
                Buffer::new(8, 0, Time::MAX),
            ],
            8,
        )
        .unwrap();
        let profile = lower_bound(&problem);
        assert_eq!(profile.aligned_bytes, 16);
        assert_eq!(profile.peak_time, Some(Time::MAX));
    }
}
