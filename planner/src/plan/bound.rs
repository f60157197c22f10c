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

/// A lower bound on the arena of every plan of `problem`, in bytes (a multiple of the
/// alignment).
///
/// Without fixed offsets this is [`lower_bound`]'s aligned figure. Fixed buffers may overlap each
/// other on purpose (an offline plan's aliases), so with them the bound is the larger of the
/// highest fixed end and, at each time, the aligned bytes of the live buffers without a fixed
/// offset plus the bytes the live fixed buffers cover (their union, not their sum). O(n²) when
/// fixed buffers are present, O(n log n) otherwise.
#[must_use]
pub fn proven_bound(problem: &Problem) -> u64 {
    let buffers = problem.buffers();
    let fixed = |b: &&super::Buffer| b.fixed_offset.is_some() && b.size > 0;
    if !buffers.iter().any(|b| fixed(&b)) {
        return lower_bound(problem).aligned_bytes;
    }
    let mut bound = buffers
        .iter()
        .filter(fixed)
        .map(|b| b.fixed_offset.unwrap_or(0) + problem.aligned_size(b.size))
        .max()
        .unwrap_or(0);
    let mut times: Vec<Time> = buffers.iter().map(|b| b.lifetime.first).collect();
    times.sort_unstable();
    times.dedup();
    let mut spans: Vec<(u64, u64)> = Vec::new();
    for t in times {
        let mut online: u64 = 0;
        spans.clear();
        for b in buffers
            .iter()
            .filter(|b| b.size > 0 && b.lifetime.contains(t))
        {
            let size = problem.aligned_size(b.size);
            match b.fixed_offset {
                Some(o) => spans.push((o, o + size)),
                None => online = online.saturating_add(size),
            }
        }
        spans.sort_unstable();
        let mut covered: u64 = 0;
        let mut reach: u64 = 0;
        for &(start, end) in &spans {
            let from = start.max(reach);
            if end > from {
                covered += end - from;
            }
            reach = reach.max(end);
        }
        bound = bound.max(online.saturating_add(covered));
    }
    bound
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Buffer;

    #[test]
    fn proven_bound_counts_aliased_fixed_buffers_once() {
        let problem = Problem::new(
            vec![
                Buffer::fixed(64, 0, 3, 0),
                Buffer::fixed(32, 1, 2, 0),
                Buffer::new(16, 2, 2),
            ],
            16,
        )
        .unwrap();
        assert_eq!(lower_bound(&problem).aligned_bytes, 112);
        assert_eq!(proven_bound(&problem), 80);
        let plain = Problem::new(vec![Buffer::new(16, 0, 1), Buffer::new(16, 1, 1)], 16).unwrap();
        assert_eq!(proven_bound(&plain), 32);
    }

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
