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
/// With overlaps (module `overlap`), the bytes of the buffers of each time's pairs are counted at
/// that time as the fewest they can span together (the larger of their inputs' sum, their
/// outputs' sum and each pair's smallest span) instead of their sum: the overlap-aware bound,
/// which [`lower_bound`] does not lower.
///
/// Without fixed offsets this is [`lower_bound`]'s aligned figure. Fixed buffers may overlap each
/// other on purpose (an offline plan's aliases), so with them the bound is the larger of the
/// highest fixed end (zero-size fixed buffers included: every buffer ends inside the arena) and,
/// at each time, the aligned bytes of the live buffers without a fixed offset plus the bytes the
/// live fixed buffers cover (their union, not their sum). O(n log n): one sweep over time, with
/// the union kept in a segment tree over the fixed buffers' ends.
#[must_use]
pub fn proven_bound(problem: &Problem) -> u64 {
    let buffers = problem.buffers();
    let fixed_end = buffers
        .iter()
        .filter_map(|b| Some(b.fixed_offset? + problem.aligned_size(b.size)))
        .max()
        .unwrap_or(0);
    if problem.overlaps().is_empty()
        && !buffers
            .iter()
            .any(|b| b.fixed_offset.is_some() && b.size > 0)
    {
        return lower_bound(problem).aligned_bytes.max(fixed_end);
    }
    // Elementary byte ranges between the fixed buffers' ends.
    let mut coords: Vec<u64> = buffers
        .iter()
        .filter(|b| b.size > 0)
        .filter_map(|b| {
            let o = b.fixed_offset?;
            Some([o, o + problem.aligned_size(b.size)])
        })
        .flatten()
        .collect();
    coords.sort_unstable();
    coords.dedup();
    let mut cover = Cover::new(&coords);
    // (time, is a start, buffer): ends at last + 1, before starts at the same time.
    let mut events: Vec<(u64, bool, usize)> = Vec::with_capacity(2 * buffers.len());
    for (i, b) in buffers.iter().enumerate().filter(|(_, b)| b.size > 0) {
        events.push((u64::from(b.lifetime.first), true, i));
        events.push((u64::from(b.lifetime.last) + 1, false, i));
    }
    // Times with pairs, each evaluated on its own (an event with no buffer at t and at t + 1).
    let savings = super::overlap::reduction(problem);
    for &(t, _) in &savings {
        events.push((u64::from(t), true, usize::MAX));
        events.push((u64::from(t) + 1, true, usize::MAX));
    }
    events.sort_unstable();
    let mut bound = fixed_end;
    let mut online: u64 = 0;
    let mut k = 0;
    while let Some(&(time, _, _)) = events.get(k) {
        while let Some(&(t, start, i)) = events.get(k) {
            if t != time {
                break;
            }
            k += 1;
            let Some(b) = buffers.get(i) else { continue };
            let size = problem.aligned_size(b.size);
            match b.fixed_offset {
                Some(o) => {
                    let lo = coords.partition_point(|&c| c < o);
                    let hi = coords.partition_point(|&c| c < o + size);
                    cover.add(lo, hi, if start { 1 } else { -1 });
                }
                None if start => online = online.saturating_add(size),
                None => online = online.saturating_sub(size),
            }
        }
        let saving = savings
            .binary_search_by_key(&time, |&(t, _)| u64::from(t))
            .ok()
            .and_then(|i| savings.get(i))
            .map_or(0, |&(_, s)| s);
        bound = bound.max(
            online
                .saturating_sub(saving)
                .saturating_add(cover.covered()),
        );
    }
    bound
}

/// The bytes covered by a multiset of ranges over fixed coordinates (add and remove ranges; the
/// classic union-length segment tree).
struct Cover<'a> {
    coords: &'a [u64],
    leaves: usize,
    count: Vec<i64>,
    len: Vec<u64>,
}

impl<'a> Cover<'a> {
    fn new(coords: &'a [u64]) -> Self {
        let leaves = coords.len().saturating_sub(1).max(1).next_power_of_two();
        Self {
            coords,
            leaves,
            count: vec![0; 2 * leaves],
            len: vec![0; 2 * leaves],
        }
    }

    /// Adds `delta` to the elementary ranges `lo..hi`.
    fn add(&mut self, lo: usize, hi: usize, delta: i64) {
        self.update(1, 0, self.leaves, lo, hi, delta);
    }

    fn update(&mut self, node: usize, a: usize, z: usize, lo: usize, hi: usize, delta: i64) {
        if hi <= a || z <= lo {
            return;
        }
        if lo <= a && z <= hi {
            if let Some(c) = self.count.get_mut(node) {
                *c += delta;
            }
        } else {
            let mid = a.midpoint(z);
            self.update(2 * node, a, mid, lo, hi, delta);
            self.update(2 * node + 1, mid, z, lo, hi, delta);
        }
        let covered = if self.count.get(node).is_some_and(|&c| c > 0) {
            let at = |i: usize| self.coords.get(i.min(self.coords.len().saturating_sub(1)));
            match (at(a), at(z)) {
                (Some(&s), Some(&e)) => e - s,
                _ => 0,
            }
        } else if z - a == 1 {
            0
        } else {
            self.len.get(2 * node).copied().unwrap_or(0)
                + self.len.get(2 * node + 1).copied().unwrap_or(0)
        };
        if let Some(l) = self.len.get_mut(node) {
            *l = covered;
        }
    }

    fn covered(&self) -> u64 {
        self.len.get(1).copied().unwrap_or(0)
    }
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
