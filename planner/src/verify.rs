//! The verifier: an independent proof that a plan is correct.
//!
//! It shares no code with any planner. For a [`Problem`] and a [`Plan`] it checks that
//!
//! - there is one offset per buffer;
//! - every buffer with a fixed offset has exactly that offset;
//! - every offset is a multiple of the alignment;
//! - every buffer (with its size rounded up to the alignment) ends inside the arena;
//! - any two buffers whose lifetimes intersect have disjoint byte ranges, except the pairs the
//!   problem declares ([`crate::plan::Overlap`]);
//! - each declared pair whose byte ranges intersect has `offset(input) − offset(output)` at
//!   least its minimum displacement (rounded up to the alignment).
//!
//! The sweep below sees a declared pair's two buffers as not live together: it splits every
//! time `t` in two, a pair's input ending in the first half and a pair's output starting in the
//! second (the problem's rules make every other two buffers that met still meet); each pair is
//! then checked on its own.
//!
//! Two buffers that both have fixed offsets (an offline plan) may be allowed to overlap: Vela's
//! plans alias tensors that are live together on purpose. Such overlaps are then returned as
//! [`Verified::declared_overlaps`] instead of failing; every other rule still holds.
//!
//! Cost: O(n log n) for n buffers (plus one step per declared overlap reported, at most
//! [`MAX_DECLARED_OVERLAPS`]). One sweep over time: at each buffer's first time, the buffers
//! that ended before it leave, then it is checked against the bytes still occupied and enters.
//! The occupied bytes are counted per elementary byte range (between consecutive offsets and ends
//! of the plan) in segment trees with range add and range maximum, one for the buffers that must
//! not overlap anything and one for the fixed buffers allowed to overlap each other; an overlap
//! found is then named by a scan of the buffers live at that time. Two buffers live at the same
//! time share a byte exactly when, at the first time of the later one, the earlier one is live
//! and their byte ranges share an elementary range.
//!
//! When plans fail, the error names the overlap met first in that sweep: the one at the
//! earliest time, with the buffer starting then, and among the buffers it overlaps the one with
//! the lowest index.

use std::fmt;

use crate::plan::{self, Plan, Planner, Problem, Settings, Time};

/// Two fixed-offset buffers that overlap in memory while both are live, accepted as declared by
/// the offline plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeclaredOverlap {
    /// The buffer with the lower index.
    pub a: usize,
    /// The buffer with the higher index.
    pub b: usize,
    /// The first time both are live.
    pub time: Time,
}

/// The most declared overlaps [`Verified::declared_overlaps`] lists: an offline plan of `n`
/// aliased tensors declares up to `n²/2` of them, and a report needs a few.
pub const MAX_DECLARED_OVERLAPS: usize = 10_000;

/// What a successful verification found.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Verified {
    /// Overlaps between fixed-offset buffers, when those were allowed, by buffer pair: all of
    /// them, or the first [`MAX_DECLARED_OVERLAPS`] the sweep met.
    pub declared_overlaps: Vec<DeclaredOverlap>,
}

/// A plan that is wrong, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyPlanError {
    /// The plan has a different number of offsets than the problem has buffers.
    WrongLength {
        /// Buffers in the problem.
        expected: usize,
        /// Offsets in the plan.
        found: usize,
    },
    /// A buffer with a fixed offset was moved.
    FixedOffsetMoved {
        /// The buffer.
        buffer: usize,
        /// Its fixed offset.
        fixed: u64,
        /// Its offset in the plan.
        offset: u64,
    },
    /// An offset is not a multiple of the alignment.
    Misaligned {
        /// The buffer.
        buffer: usize,
        /// Its offset.
        offset: u64,
        /// The alignment.
        alignment: u64,
    },
    /// A buffer ends beyond the arena.
    OutOfArena {
        /// The buffer.
        buffer: usize,
        /// Where it ends (offset + aligned size).
        end: u64,
        /// The arena size.
        arena: u64,
    },
    /// A declared pair shares bytes at a displacement its kernel does not allow.
    TooClose {
        /// The pair's output buffer.
        output: usize,
        /// The pair's input buffer.
        input: usize,
        /// `offset(input) − offset(output)` in the plan.
        displacement: i128,
        /// The least displacement allowed (the pair's, rounded up to the alignment).
        min: i128,
    },
    /// Two buffers live at the same time share bytes.
    Overlap {
        /// The buffer with the lower index.
        a: usize,
        /// The buffer with the higher index.
        b: usize,
        /// The first time both are live.
        time: Time,
        /// The shared byte range, `start..end`.
        bytes: (u64, u64),
    },
}

impl fmt::Display for VerifyPlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::WrongLength { expected, found } => {
                write!(f, "plan has {found} offsets for {expected} buffers")
            }
            Self::FixedOffsetMoved {
                buffer,
                fixed,
                offset,
            } => {
                write!(
                    f,
                    "buffer {buffer} is fixed at offset {fixed} but the plan puts it at {offset}"
                )
            }
            Self::Misaligned {
                buffer,
                offset,
                alignment,
            } => {
                write!(
                    f,
                    "buffer {buffer} is at offset {offset}, which is not a multiple of the alignment {alignment}"
                )
            }
            Self::OutOfArena { buffer, end, arena } => {
                write!(
                    f,
                    "buffer {buffer} ends at byte {end}, beyond the arena of {arena} bytes"
                )
            }
            Self::TooClose {
                output,
                input,
                displacement,
                min,
            } => write!(
                f,
                "buffers {output} and {input} share bytes with the input {displacement} bytes above the output, below the {min} the op writing the output over its input allows"
            ),
            Self::Overlap {
                a,
                b,
                time,
                bytes: (start, end),
            } => write!(
                f,
                "buffers {a} and {b} share bytes {start}..{end} while both are live at time {time}"
            ),
        }
    }
}

impl std::error::Error for VerifyPlanError {}

/// Checks `plan` against `problem`; see the [module docs](self).
///
/// # Errors
///
/// The first [`VerifyPlanError`] found (checks run in the order of the module docs).
///
/// ```
/// use stowplan_planner::plan::{Buffer, Plan, Planner, Problem};
/// use stowplan_planner::verify::{verify, VerifyPlanError};
///
/// let problem = Problem::new(vec![Buffer::new(16, 0, 1), Buffer::new(16, 1, 2)], 16)?;
/// // Both at offset 0, but both live at time 1.
/// let plan = Plan::from_offsets(&problem, vec![0, 0], Planner::Linear)?;
/// let err = verify(&problem, &plan, false).unwrap_err();
/// assert_eq!(err, VerifyPlanError::Overlap { a: 0, b: 1, time: 1, bytes: (0, 16) });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn verify(
    problem: &Problem,
    plan: &Plan,
    allow_fixed_overlaps: bool,
) -> Result<Verified, VerifyPlanError> {
    let buffers = problem.buffers();
    let offsets = plan.offsets();
    if buffers.len() != offsets.len() {
        return Err(VerifyPlanError::WrongLength {
            expected: buffers.len(),
            found: offsets.len(),
        });
    }
    let alignment = problem.alignment();
    let arena = plan.arena_bytes();
    for (buffer, (b, &offset)) in buffers.iter().zip(offsets).enumerate() {
        if let Some(fixed) = b.fixed_offset
            && fixed != offset
        {
            return Err(VerifyPlanError::FixedOffsetMoved {
                buffer,
                fixed,
                offset,
            });
        }
        if offset % alignment != 0 {
            return Err(VerifyPlanError::Misaligned {
                buffer,
                offset,
                alignment,
            });
        }
        let end = offset.saturating_add(problem.aligned_size(b.size));
        if end > arena {
            return Err(VerifyPlanError::OutOfArena { buffer, end, arena });
        }
    }

    // (start, end, fixed) of every buffer that occupies bytes.
    let occupies: Vec<usize> = (0..buffers.len())
        .filter(|&i| buffers.get(i).is_some_and(|b| b.size > 0))
        .collect();
    let range = |i: usize| -> (u64, u64) {
        let o = offsets.get(i).copied().unwrap_or(0);
        let size = buffers.get(i).map_or(0, |b| problem.aligned_size(b.size));
        (o, o.saturating_add(size))
    };
    // Lifetimes, split (module docs) when the problem declares pairs; `time` maps back.
    let split = !problem.overlaps().is_empty();
    let mut ends_as_input = vec![false; if split { buffers.len() } else { 0 }];
    let mut starts_as_output = ends_as_input.clone();
    for o in problem.overlaps() {
        if let Some(x) = ends_as_input.get_mut(o.input) {
            *x = true;
        }
        if let Some(x) = starts_as_output.get_mut(o.output) {
            *x = true;
        }
    }
    let life = |i: usize| {
        let l = buffers.get(i)?.lifetime;
        if !split {
            return Some(l);
        }
        let flag = |v: &[bool]| Time::from(v.get(i).copied().unwrap_or(false));
        Some(plan::Lifetime::new(
            2 * l.first + flag(&starts_as_output),
            2 * l.last + 1 - flag(&ends_as_input),
        ))
    };
    let time = |t: Time| if split { t / 2 } else { t };
    let may_alias =
        |i: usize| allow_fixed_overlaps && buffers.get(i).is_some_and(|b| b.fixed_offset.is_some());
    let mut coords: Vec<u64> = occupies
        .iter()
        .flat_map(|&i| {
            let (s, e) = range(i);
            [s, e]
        })
        .collect();
    coords.sort_unstable();
    coords.dedup();
    let cells = |i: usize| {
        let (s, e) = range(i);
        (
            coords.partition_point(|&c| c < s),
            coords.partition_point(|&c| c < e),
        )
    };
    let ranges = coords.len().saturating_sub(1);
    // Buffers that must overlap nothing, and fixed buffers that may overlap each other.
    let mut strict = MaxAdd::new(ranges);
    let mut aliasing = MaxAdd::new(ranges);
    // For listing declared overlaps: the aliasing buffers by start, with the end of the live ones.
    let mut by_start: Vec<usize> = occupies.iter().copied().filter(|&i| may_alias(i)).collect();
    by_start.sort_by_key(|&i| (range(i), i));
    let mut ends = MaxEnd::new(by_start.len());

    let mut arrivals = occupies.clone();
    arrivals.sort_by_key(|&i| (life(i).map_or(0, |l| l.first), i));
    let mut departures = occupies;
    departures.sort_by_key(|&i| (life(i).map_or(0, |l| l.last), i));
    let mut live = vec![false; buffers.len()];
    let mut gone = 0;
    let mut declared = Vec::new();
    for &x in &arrivals {
        let Some(lx) = life(x) else { continue };
        while let Some(&y) = departures.get(gone) {
            if life(y).is_none_or(|l| l.last >= lx.first) {
                break;
            }
            gone += 1;
            let (lo, hi) = cells(y);
            if may_alias(y) {
                aliasing.add(lo, hi, -1);
                if let Ok(k) = by_start.binary_search_by_key(&(range(y), y), |&i| (range(i), i)) {
                    ends.set(k, 0);
                }
            } else {
                strict.add(lo, hi, -1);
            }
            if let Some(l) = live.get_mut(y) {
                *l = false;
            }
        }
        let (lo, hi) = cells(x);
        let (sx, ex) = range(x);
        let hits_strict = strict.max(lo, hi) > 0;
        let hits_aliasing = aliasing.max(lo, hi) > 0;
        if hits_strict || (hits_aliasing && !may_alias(x)) {
            // Name the overlap: the live buffer with the lowest index sharing a byte with x.
            let partner = (0..buffers.len()).find(|&y| {
                let (sy, ey) = range(y);
                live.get(y).copied().unwrap_or(false)
                    && sy < ex
                    && sx < ey
                    && (!may_alias(x) || !may_alias(y))
            });
            if let Some(y) = partner {
                let (sy, ey) = range(y);
                return Err(VerifyPlanError::Overlap {
                    a: x.min(y),
                    b: x.max(y),
                    time: time(lx.first),
                    bytes: (sx.max(sy), ex.min(ey)),
                });
            }
        }
        if may_alias(x) {
            if hits_aliasing && declared.len() < MAX_DECLARED_OVERLAPS {
                // The live aliasing buffers starting below x's end and ending above its start.
                let below = by_start.partition_point(|&i| range(i).0 < ex);
                ends.each_above(below, sx, &mut |k| {
                    if declared.len() >= MAX_DECLARED_OVERLAPS {
                        return false;
                    }
                    if let Some(&y) = by_start.get(k) {
                        declared.push(DeclaredOverlap {
                            a: x.min(y),
                            b: x.max(y),
                            time: time(lx.first),
                        });
                    }
                    true
                });
            }
            aliasing.add(lo, hi, 1);
            if let Ok(k) = by_start.binary_search_by_key(&(range(x), x), |&i| (range(i), i)) {
                ends.set(k, ex);
            }
        } else {
            strict.add(lo, hi, 1);
        }
        if let Some(l) = live.get_mut(x) {
            *l = true;
        }
    }
    // Each declared pair: disjoint, or its input far enough above its output.
    for o in problem.overlaps() {
        let (so, eo) = range(o.output);
        let (si, ei) = range(o.input);
        if so < eo && si < ei && so < ei && si < eo {
            let a = i128::from(alignment);
            let min = -((-i128::from(o.min_displacement)).div_euclid(a)) * a;
            let displacement = i128::from(si) - i128::from(so);
            if displacement < min {
                return Err(VerifyPlanError::TooClose {
                    output: o.output,
                    input: o.input,
                    displacement,
                    min,
                });
            }
        }
    }
    declared.sort_unstable_by_key(|d| (d.a, d.b));
    Ok(Verified {
        declared_overlaps: declared,
    })
}

/// Counts over elementary ranges with range add and range maximum (no push-down: each node keeps
/// the maximum of its children plus what was added to all of it).
struct MaxAdd {
    leaves: usize,
    max: Vec<i64>,
    add: Vec<i64>,
}

impl MaxAdd {
    fn new(ranges: usize) -> Self {
        let leaves = ranges.max(1).next_power_of_two();
        Self {
            leaves,
            max: vec![0; 2 * leaves],
            add: vec![0; 2 * leaves],
        }
    }

    fn add(&mut self, lo: usize, hi: usize, delta: i64) {
        self.update(1, 0, self.leaves, lo, hi, delta);
    }

    fn update(&mut self, node: usize, a: usize, z: usize, lo: usize, hi: usize, delta: i64) {
        if hi <= a || z <= lo {
            return;
        }
        if lo <= a && z <= hi {
            if let Some(m) = self.max.get_mut(node) {
                *m += delta;
            }
            if let Some(m) = self.add.get_mut(node) {
                *m += delta;
            }
            return;
        }
        let mid = a.midpoint(z);
        self.update(2 * node, a, mid, lo, hi, delta);
        self.update(2 * node + 1, mid, z, lo, hi, delta);
        let children = self
            .max
            .get(2 * node)
            .copied()
            .unwrap_or(0)
            .max(self.max.get(2 * node + 1).copied().unwrap_or(0));
        let own = self.add.get(node).copied().unwrap_or(0);
        if let Some(m) = self.max.get_mut(node) {
            *m = children + own;
        }
    }

    /// The largest count over ranges `lo..hi` (0 when empty).
    fn max(&self, lo: usize, hi: usize) -> i64 {
        if lo >= hi {
            return 0;
        }
        self.query(1, 0, self.leaves, lo, hi)
    }

    fn query(&self, node: usize, a: usize, z: usize, lo: usize, hi: usize) -> i64 {
        if hi <= a || z <= lo {
            return i64::MIN;
        }
        if lo <= a && z <= hi {
            return self.max.get(node).copied().unwrap_or(0);
        }
        let mid = a.midpoint(z);
        let children =
            self.query(2 * node, a, mid, lo, hi)
                .max(self.query(2 * node + 1, mid, z, lo, hi));
        children.saturating_add(self.add.get(node).copied().unwrap_or(0))
    }
}

/// Ends by position, 0 for none, with the positions whose end is above a value listed in
/// O((1 + listed) log n).
struct MaxEnd {
    leaves: usize,
    tree: Vec<u64>,
}

impl MaxEnd {
    fn new(n: usize) -> Self {
        let leaves = n.max(1).next_power_of_two();
        Self {
            leaves,
            tree: vec![0; 2 * leaves],
        }
    }

    fn set(&mut self, k: usize, end: u64) {
        let mut node = self.leaves + k;
        if let Some(t) = self.tree.get_mut(node) {
            *t = end;
        }
        while node > 1 {
            node /= 2;
            let m = self
                .tree
                .get(2 * node)
                .copied()
                .unwrap_or(0)
                .max(self.tree.get(2 * node + 1).copied().unwrap_or(0));
            if let Some(t) = self.tree.get_mut(node) {
                *t = m;
            }
        }
    }

    /// Calls `f` on every position below `below` whose end is above `above`, in order, until it
    /// returns `false`.
    fn each_above(&self, below: usize, above: u64, f: &mut dyn FnMut(usize) -> bool) {
        self.walk(1, 0, self.leaves, below, above, f);
    }

    fn walk(
        &self,
        node: usize,
        a: usize,
        z: usize,
        below: usize,
        above: u64,
        f: &mut dyn FnMut(usize) -> bool,
    ) -> bool {
        if a >= below || self.tree.get(node).is_none_or(|&t| t <= above) {
            return true;
        }
        if z - a == 1 {
            return f(a);
        }
        let mid = a.midpoint(z);
        self.walk(2 * node, a, mid, below, above, f)
            && self.walk(2 * node + 1, mid, z, below, above, f)
    }
}

/// Runs `planner` on `problem` and verifies the result.
///
/// # Errors
///
/// [`VerifyPlanError`] if the plan fails verification. For plans made here this means a bug in a
/// planner, or fixed offsets that overlap each other while their buffers are live together (an
/// offline plan may do that on purpose: use [`verify`] with
/// `allow_fixed_overlaps` to accept it).
///
/// ```
/// use stowplan_planner::plan::{Buffer, Planner, Problem};
/// use stowplan_planner::verify::solve;
///
/// // TFLite Micro's golden test for its greedy planner.
/// let problem = Problem::new(
///     vec![Buffer::new(10, 0, 1), Buffer::new(20, 1, 2), Buffer::new(30, 2, 3),
///          Buffer::new(40, 3, 4), Buffer::new(50, 0, 1)],
///     1,
/// )?;
/// let plan = solve(&problem, Planner::Greedy)?;
/// assert_eq!(plan.offsets(), [50, 70, 40, 0, 0]);
/// assert_eq!(plan.arena_bytes(), 90);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn solve(problem: &Problem, planner: Planner) -> Result<Plan, VerifyPlanError> {
    solve_with(problem, &Settings::new(planner))
}

/// [`solve`] with a capacity and a search budget.
///
/// # Errors
///
/// As [`solve`].
pub fn solve_with(problem: &Problem, settings: &Settings) -> Result<Plan, VerifyPlanError> {
    let plan = plan::run_with(problem, settings);
    verify(problem, &plan, false)?;
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Buffer, Planner};

    fn plan(problem: &Problem, offsets: &[u64]) -> Plan {
        Plan::from_offsets(problem, offsets.to_vec(), Planner::Linear).unwrap()
    }

    #[test]
    fn accepts_a_correct_plan() {
        let problem = Problem::new(
            vec![
                Buffer::new(16, 0, 1),
                Buffer::new(16, 1, 2),
                Buffer::new(16, 2, 3),
            ],
            16,
        )
        .unwrap();
        assert_eq!(
            verify(&problem, &plan(&problem, &[0, 16, 0]), false),
            Ok(Verified::default())
        );
    }

    #[test]
    fn rejects_wrong_length() {
        let problem = Problem::new(vec![Buffer::new(16, 0, 1)], 16).unwrap();
        let err = verify(&problem, &plan(&problem, &[0, 0]), false).unwrap_err();
        assert_eq!(
            err,
            VerifyPlanError::WrongLength {
                expected: 1,
                found: 2
            }
        );
    }

    #[test]
    fn rejects_a_moved_fixed_buffer() {
        let problem = Problem::new(vec![Buffer::fixed(16, 0, 1, 32)], 16).unwrap();
        let err = verify(&problem, &plan(&problem, &[0]), false).unwrap_err();
        assert_eq!(
            err,
            VerifyPlanError::FixedOffsetMoved {
                buffer: 0,
                fixed: 32,
                offset: 0
            }
        );
    }

    #[test]
    fn rejects_misaligned_offsets() {
        let problem = Problem::new(vec![Buffer::new(16, 0, 1)], 16).unwrap();
        let err = verify(&problem, &plan(&problem, &[8]), false).unwrap_err();
        assert_eq!(
            err,
            VerifyPlanError::Misaligned {
                buffer: 0,
                offset: 8,
                alignment: 16
            }
        );
    }

    #[test]
    fn rejects_buffers_beyond_the_arena() {
        let problem = Problem::new(vec![Buffer::new(16, 0, 1), Buffer::new(16, 3, 3)], 16).unwrap();
        assert_eq!(plan(&problem, &[0, 16]).arena_bytes(), 32);
        let lying = Plan {
            arena_bytes: 16,
            ..plan(&problem, &[0, 16])
        };
        let err = verify(&problem, &lying, false).unwrap_err();
        assert_eq!(
            err,
            VerifyPlanError::OutOfArena {
                buffer: 1,
                end: 32,
                arena: 16
            }
        );
    }

    #[test]
    fn rejects_overlaps_and_names_the_first_shared_time() {
        let problem = Problem::new(vec![Buffer::new(32, 0, 5), Buffer::new(16, 3, 9)], 16).unwrap();
        let err = verify(&problem, &plan(&problem, &[0, 16]), false).unwrap_err();
        assert_eq!(
            err,
            VerifyPlanError::Overlap {
                a: 0,
                b: 1,
                time: 3,
                bytes: (16, 32)
            }
        );
    }

    #[test]
    fn padding_counts_as_occupied() {
        // 1 byte rounds up to 16: a buffer at 8 would collide inside the padding.
        let problem = Problem::new(vec![Buffer::new(1, 0, 0), Buffer::new(1, 0, 0)], 8).unwrap();
        let err = verify(&problem, &plan(&problem, &[0, 0]), false).unwrap_err();
        assert!(matches!(err, VerifyPlanError::Overlap { .. }));
        assert!(verify(&problem, &plan(&problem, &[0, 8]), false).is_ok());
    }

    #[test]
    fn fixed_overlaps_are_declared_only_when_allowed() {
        let problem = Problem::new(
            vec![
                Buffer::fixed(16, 0, 2, 0),
                Buffer::fixed(32, 1, 1, 0),
                Buffer::new(16, 0, 2),
            ],
            16,
        )
        .unwrap();
        let p = plan(&problem, &[0, 0, 32]);
        assert!(matches!(
            verify(&problem, &p, false),
            Err(VerifyPlanError::Overlap { a: 0, b: 1, .. })
        ));
        let ok = verify(&problem, &p, true).unwrap();
        assert_eq!(
            ok.declared_overlaps,
            [DeclaredOverlap {
                a: 0,
                b: 1,
                time: 1
            }]
        );
        // An online buffer overlapping a fixed one is never allowed.
        let bad = plan(&problem, &[0, 0, 16]);
        assert!(matches!(
            verify(&problem, &bad, true),
            Err(VerifyPlanError::Overlap { a: 1, b: 2, .. })
        ));
    }

    #[test]
    fn zero_sized_buffers_conflict_with_nothing() {
        let problem = Problem::new(vec![Buffer::new(0, 0, 9), Buffer::new(16, 0, 9)], 16).unwrap();
        assert!(verify(&problem, &plan(&problem, &[0, 0]), false).is_ok());
    }
}
