//! The verifier: an independent proof that a plan is correct.
//!
//! It shares no code with any planner. For a [`Problem`] and a [`Plan`] it checks that
//!
//! - there is one offset per buffer;
//! - every buffer with a fixed offset has exactly that offset;
//! - every offset is a multiple of the alignment;
//! - every buffer (with its size rounded up to the alignment) ends inside the arena;
//! - any two buffers whose lifetimes intersect have disjoint byte ranges.
//!
//! Two buffers that both have fixed offsets (an offline plan) may be allowed to overlap: Vela's
//! plans alias tensors that are live together on purpose. Such overlaps are then returned as
//! [`Verified::declared_overlaps`] instead of failing; every other rule still holds.
//!
//! Cost: sorting plus one comparison per pair of buffers whose lifetimes intersect.

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

/// What a successful verification found.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Verified {
    /// Overlaps between fixed-offset buffers, when those were allowed.
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

    // (first, last, start, end, fixed, index) of every buffer that occupies bytes, by first time.
    let mut spans: Vec<(Time, Time, u64, u64, bool, usize)> = buffers
        .iter()
        .zip(offsets)
        .enumerate()
        .filter(|(_, (b, _))| b.size > 0)
        .map(|(i, (b, &o))| {
            (
                b.lifetime.first,
                b.lifetime.last,
                o,
                o + problem.aligned_size(b.size),
                b.fixed_offset.is_some(),
                i,
            )
        })
        .collect();
    spans.sort_unstable();

    let mut declared = Vec::new();
    for (k, &(first, last, start, end, fixed, i)) in spans.iter().enumerate() {
        for &(first2, _, start2, end2, fixed2, j) in spans.iter().skip(k + 1) {
            if first2 > last {
                break;
            }
            if start < end2 && start2 < end {
                let (a, b) = (i.min(j), i.max(j));
                let time = first.max(first2);
                if allow_fixed_overlaps && fixed && fixed2 {
                    declared.push(DeclaredOverlap { a, b, time });
                } else {
                    return Err(VerifyPlanError::Overlap {
                        a,
                        b,
                        time,
                        bytes: (start.max(start2), end.min(end2)),
                    });
                }
            }
        }
    }
    declared.sort_unstable_by_key(|d| (d.a, d.b));
    Ok(Verified {
        declared_overlaps: declared,
    })
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
