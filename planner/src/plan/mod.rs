//! The abstract planning problem and the planners that solve it.
//!
//! Nothing here knows about TensorFlow Lite: a [`Problem`] is a list of [`Buffer`]s (a size, an
//! inclusive [`Lifetime`] and an optional fixed offset) plus an alignment. The same planners run
//! on models, on MiniMalloc's CSV instances and on random property-test instances.
//!
//! Every planner rounds each size up to the alignment before placing it (as TensorFlow Lite
//! Micro does), so offsets and the arena are multiples of the alignment. Buffers with a fixed
//! offset are never moved; the others avoid them.
//!
//! Nothing here verifies a plan: [`crate::verify`] does, with code that shares nothing with the
//! planners ([`crate::verify::solve`] runs a planner, then verifies its plan).
//!
//! # The planners and what they guarantee
//!
//! | planner | what it does | guarantee |
//! |---|---|---|
//! | `linear` | no reuse (TFLite Micro's `LinearMemoryPlanner`) | arena = the naive sum |
//! | `greedy` | TFLite Micro's `GreedyMemoryPlanner`, byte for byte | TFLite Micro's head |
//! | `best-fit` | TFLite's `ArenaPlanner` order, best-fit placement | valid plan |
//! | `conflicts` | most conflicts first, first fit | valid plan |
//! | `lifetime` | longest lifetime first, first fit | valid plan |
//! | `urgency` | highest live bytes during the lifetime first (Vela), first fit | valid plan |
//! | `search` | exact branch and bound from greedy's plan (see `search` below) | never worse than `greedy`; optimal when [`Plan::proven_optimal`] |
//! | `auto` (default) | the heuristics, greedy first, stopping at the lower bound (or past [`AUTO_HEURISTIC_WORK`]); then the search | never worse than `greedy`; equal to greedy's plan when greedy reaches the lower bound |
//!
//! Every plan carries a proven lower bound ([`Plan::best_bound`]): at least [`proven_bound`],
//! raised by the search when it proves a capacity infeasible. [`Plan::proven_optimal`] is true
//! exactly when the arena equals it. The bound is computed on its own and never clamped to the
//! arena: a bound above the arena is a bug (the property tests look for one), not a proof.
//!
//! The greedy planners place buffers with an interval structure over time and offsets (module
//! `space`: a segment tree, or a scan by start time when lifetimes are short), O(n log² n) for n
//! buffers; the lower bound is one sweep over time.
//!
//! The search (module `search`, MiniMalloc's algorithm) explores canonical plans depth first
//! with a budget counted in steps (units of work proportional to time, never the clock), so a
//! plan never depends on the machine; its
//! module docs give the pruning rules and why they keep it exact. With a budget large enough to
//! finish it returns an optimal plan; when the budget runs out it returns the best plan found
//! and the best bound proven. Problems with more than [`MAX_SEARCH_BUFFERS`] buffers to place
//! are not searched: `search` and `auto` then return the heuristic plan.
//!
//! # Overlaps
//!
//! A problem may declare pairs of buffers that share bytes while both are live ([`Overlap`]: an
//! op's output over an input it reads for the last time, at displacements its kernel allows;
//! module `overlap` has the rules). The lower bound then counts each pair at its smallest span
//! ([`proven_bound`]; [`lower_bound`] stays the bound of whole buffers), and every greedy
//! planner places a buffer where its placed partners allow, overlapping them or not. `linear`
//! overlaps nothing. `auto` also tries TFLite Micro's greedy plan of whole buffers, which pairs
//! that drift apart can beat. The search takes pairs too (module `search`): it is exact when
//! every pair's displacement is at least one alignment unit; a pair that allows less (a full
//! alias, or an input below its output) it places one unit apart at least, so its plans stay
//! valid but an exhausted search then raises no bound.

mod bound;
mod greedy;
mod heuristic;
mod linear;
pub mod overlap;
mod search;
mod space;

use std::fmt;

pub use bound::{LiveProfile, lower_bound, proven_bound};
pub use overlap::{MAX_OVERLAP_TIME, Overlap};
pub use search::MAX_SEARCH_BUFFERS;

/// A point on the planning timeline. Lifetimes are inclusive ranges of times.
pub type Time = u32;

/// Times `first..=last` during which a buffer must keep its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lifetime {
    /// First time the buffer is live.
    pub first: Time,
    /// Last time the buffer is live (inclusive).
    pub last: Time,
}

impl Lifetime {
    /// The lifetime `first..=last`.
    #[must_use]
    pub const fn new(first: Time, last: Time) -> Self {
        Self { first, last }
    }

    /// Whether two lifetimes share at least one time (so the buffers may not share bytes).
    #[must_use]
    pub const fn overlaps(&self, other: &Lifetime) -> bool {
        self.first <= other.last && other.first <= self.last
    }

    /// Whether the buffer is live at `time`.
    #[must_use]
    pub const fn contains(&self, time: Time) -> bool {
        self.first <= time && time <= self.last
    }
}

impl fmt::Display for Lifetime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..={}", self.first, self.last)
    }
}

/// One buffer to place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// Bytes the buffer needs, before rounding up to the alignment.
    pub size: u64,
    /// When the buffer is live.
    pub lifetime: Lifetime,
    /// An offset the buffer must have (from an offline plan), or `None` to let the planner choose.
    pub fixed_offset: Option<u64>,
}

impl Buffer {
    /// A buffer the planner places.
    #[must_use]
    pub const fn new(size: u64, first: Time, last: Time) -> Self {
        Self {
            size,
            lifetime: Lifetime::new(first, last),
            fixed_offset: None,
        }
    }

    /// A buffer at a fixed offset.
    #[must_use]
    pub const fn fixed(size: u64, first: Time, last: Time, offset: u64) -> Self {
        Self {
            size,
            lifetime: Lifetime::new(first, last),
            fixed_offset: Some(offset),
        }
    }
}

/// Largest buffer, offset or arena a problem may describe: 2^48 bytes. Far beyond any device,
/// small enough that sums of a few million sizes cannot overflow `u64`.
pub const MAX_BYTES: u64 = 1 << 48;

/// Buffers to place, the alignment of every offset and size, and the pairs of buffers that may
/// share bytes ([`Overlap`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    buffers: Vec<Buffer>,
    alignment: u64,
    overlaps: Vec<Overlap>,
}

impl Problem {
    /// A problem, checked: the alignment is a power of two, every lifetime has `first <= last`,
    /// every size and fixed offset is at most [`MAX_BYTES`], and every fixed offset is aligned.
    ///
    /// # Errors
    ///
    /// [`ProblemError`] naming the first buffer that breaks a rule.
    pub fn new(buffers: Vec<Buffer>, alignment: u64) -> Result<Self, ProblemError> {
        Self::with_overlaps(buffers, alignment, Vec::new())
    }

    /// [`Problem::new`] with pairs of buffers that may share bytes, checked as the
    /// [`Overlap`] rules say (module `overlap`).
    ///
    /// # Errors
    ///
    /// What [`Problem::new`] returns, or [`ProblemError::BadOverlap`] naming the first pair that
    /// breaks a rule, or [`ProblemError::TimeTooLate`].
    ///
    /// ```
    /// use stowplan_planner::plan::{Buffer, Overlap, Planner, Problem, proven_bound, run};
    ///
    /// // A 32-byte input read for the last time at time 1 by the op writing a 64-byte output,
    /// // which may start up to 32 bytes below the input (as a 1x1 convolution doubling the
    /// // channels: output pixel p ends below input pixel p + 1).
    /// let problem = Problem::with_overlaps(
    ///     vec![Buffer::new(32, 0, 1), Buffer::new(64, 1, 2)],
    ///     16,
    ///     vec![Overlap::new(1, 0, 32)],
    /// )?;
    /// assert_eq!(proven_bound(&problem), 64);
    /// let plan = run(&problem, Planner::Greedy);
    /// assert_eq!(plan.offsets(), [32, 0]);
    /// assert_eq!(plan.arena_bytes(), 64);
    /// # Ok::<(), stowplan_planner::plan::ProblemError>(())
    /// ```
    pub fn with_overlaps(
        buffers: Vec<Buffer>,
        alignment: u64,
        overlaps: Vec<Overlap>,
    ) -> Result<Self, ProblemError> {
        if !alignment.is_power_of_two() || alignment > MAX_BYTES {
            return Err(ProblemError::BadAlignment { alignment });
        }
        for (index, b) in buffers.iter().enumerate() {
            if b.lifetime.first > b.lifetime.last {
                return Err(ProblemError::EmptyLifetime {
                    buffer: index,
                    lifetime: b.lifetime,
                });
            }
            if b.size > MAX_BYTES {
                return Err(ProblemError::TooLarge {
                    buffer: index,
                    bytes: b.size,
                });
            }
            if let Some(offset) = b.fixed_offset {
                if offset > MAX_BYTES {
                    return Err(ProblemError::TooLarge {
                        buffer: index,
                        bytes: offset,
                    });
                }
                if offset % alignment != 0 {
                    return Err(ProblemError::MisalignedFixedOffset {
                        buffer: index,
                        offset,
                        alignment,
                    });
                }
            }
        }
        if u32::try_from(buffers.len()).is_err() {
            return Err(ProblemError::TooManyBuffers {
                count: buffers.len(),
            });
        }
        // Every offset a planner makes is at most the largest fixed end plus the sum of all
        // aligned sizes; if that fits in a u64, no planner arithmetic can overflow.
        let mut total: u64 = 0;
        let mut fixed_end: u64 = 0;
        for b in &buffers {
            let size = b.size.div_ceil(alignment) * alignment;
            total = total.checked_add(size).ok_or(ProblemError::TotalTooLarge)?;
            if let Some(offset) = b.fixed_offset {
                fixed_end = fixed_end.max(offset + size);
            }
        }
        total
            .checked_add(fixed_end)
            .ok_or(ProblemError::TotalTooLarge)?;
        let problem = Self {
            buffers,
            alignment,
            overlaps: Vec::new(),
        };
        overlap::check(&problem, &overlaps)?;
        Ok(Self {
            overlaps,
            ..problem
        })
    }

    /// The buffers, in the order given.
    #[must_use]
    pub fn buffers(&self) -> &[Buffer] {
        &self.buffers
    }

    /// The pairs of buffers that may share bytes, in the order given.
    #[must_use]
    pub fn overlaps(&self) -> &[Overlap] {
        &self.overlaps
    }

    /// The same buffers and alignment, with no pair allowed to overlap.
    #[must_use]
    pub fn without_overlaps(&self) -> Self {
        Self {
            buffers: self.buffers.clone(),
            alignment: self.alignment,
            overlaps: Vec::new(),
        }
    }

    /// The alignment of every offset and of every size.
    #[must_use]
    pub const fn alignment(&self) -> u64 {
        self.alignment
    }

    /// `size` rounded up to the alignment. Cannot overflow: sizes are at most [`MAX_BYTES`].
    #[must_use]
    pub const fn aligned_size(&self, size: u64) -> u64 {
        size.div_ceil(self.alignment) * self.alignment
    }

    /// The sum of all aligned sizes: the arena of a plan that reuses nothing.
    #[must_use]
    pub fn naive_bytes(&self) -> u64 {
        self.buffers.iter().map(|b| self.aligned_size(b.size)).sum()
    }
}

/// A [`Problem`] that breaks a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProblemError {
    /// The alignment is zero or not a power of two.
    BadAlignment {
        /// The alignment given.
        alignment: u64,
    },
    /// A buffer's lifetime ends before it starts.
    EmptyLifetime {
        /// Index of the buffer.
        buffer: usize,
        /// Its lifetime.
        lifetime: Lifetime,
    },
    /// A size or offset above [`MAX_BYTES`].
    TooLarge {
        /// Index of the buffer.
        buffer: usize,
        /// The size or offset.
        bytes: u64,
    },
    /// A fixed offset that is not a multiple of the alignment.
    MisalignedFixedOffset {
        /// Index of the buffer.
        buffer: usize,
        /// Its fixed offset.
        offset: u64,
        /// The problem's alignment.
        alignment: u64,
    },
    /// The sizes add up to more than a `u64` holds.
    TotalTooLarge,
    /// More buffers than a `u32` can count.
    TooManyBuffers {
        /// How many were given.
        count: usize,
    },
    /// An [`Overlap`] that breaks a rule.
    BadOverlap {
        /// Index of the pair.
        overlap: usize,
        /// The rule it breaks.
        why: &'static str,
    },
    /// A lifetime beyond [`MAX_OVERLAP_TIME`] in a problem with overlaps.
    TimeTooLate {
        /// Index of the buffer.
        buffer: usize,
        /// Its last time.
        time: Time,
    },
}

impl fmt::Display for ProblemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadAlignment { alignment } => {
                write!(f, "alignment must be a power of two, found {alignment}")
            }
            Self::EmptyLifetime { buffer, lifetime } => write!(
                f,
                "buffer {buffer} has lifetime {lifetime}, which ends before it starts"
            ),
            Self::TooLarge { buffer, bytes } => {
                write!(
                    f,
                    "buffer {buffer} needs {bytes} bytes, more than the limit of {MAX_BYTES}"
                )
            }
            Self::MisalignedFixedOffset {
                buffer,
                offset,
                alignment,
            } => write!(
                f,
                "buffer {buffer} is fixed at offset {offset}, which is not a multiple of the alignment {alignment}"
            ),
            Self::TotalTooLarge => {
                f.write_str("the buffers add up to more bytes than 64 bits can count")
            }
            Self::TooManyBuffers { count } => {
                write!(f, "{count} buffers are more than a planner takes")
            }
            Self::BadOverlap { overlap, why } => write!(f, "overlap {overlap} {why}"),
            Self::TimeTooLate { buffer, time } => write!(
                f,
                "buffer {buffer} is live until time {time}; a problem with overlaps ends by time {MAX_OVERLAP_TIME}"
            ),
        }
    }
}

impl std::error::Error for ProblemError {}

/// The planners; see the [module docs](self) for what each guarantees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum Planner {
    /// No reuse: every buffer after the previous one, in the given order (TFLite Micro's
    /// `LinearMemoryPlanner`). The baseline; its arena is the naive sum of sizes.
    Linear,
    /// TFLite Micro's `GreedyMemoryPlanner`, reproduced exactly: fixed buffers first in the given
    /// order; then the others by size, largest first, equal sizes later buffer first; each at the
    /// lowest offset where it fits between buffers already placed whose lifetimes overlap its own.
    Greedy,
    /// TFLite's `ArenaPlanner`: buffers live over the whole timeline first, then by size; each in
    /// the smallest gap that holds it.
    BestFit,
    /// Most buffers overlapping in time first (TVM's `greedy_by_conflicts`), first fit.
    Conflicts,
    /// Longest lifetime first, first fit.
    Lifetime,
    /// Highest live bytes during the buffer's lifetime first (Vela's "urgency"), first fit.
    Urgency,
    /// The exact search (MiniMalloc's algorithm) starting from greedy's plan, within the step
    /// budget.
    Search,
    /// The default: greedy, then the other heuristics, stopping as soon as one reaches the lower
    /// bound (or the capacity), or once they spent [`AUTO_HEURISTIC_WORK`]; otherwise the exact
    /// search from the best of them.
    #[default]
    Auto,
}

impl Planner {
    /// Every planner, in the order reports list them.
    pub const ALL: [Planner; 8] = [
        Planner::Linear,
        Planner::Greedy,
        Planner::BestFit,
        Planner::Conflicts,
        Planner::Lifetime,
        Planner::Urgency,
        Planner::Search,
        Planner::Auto,
    ];

    /// The heuristics `auto` tries, in order, before searching.
    pub const HEURISTICS: [Planner; 5] = [
        Planner::Greedy,
        Planner::BestFit,
        Planner::Conflicts,
        Planner::Lifetime,
        Planner::Urgency,
    ];

    /// The name used on the command line, in reports and in generated code.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Linear => "linear",
            Self::Greedy => "greedy",
            Self::BestFit => "best-fit",
            Self::Conflicts => "conflicts",
            Self::Lifetime => "lifetime",
            Self::Urgency => "urgency",
            Self::Search => "search",
            Self::Auto => "auto",
        }
    }
}

/// The search budget of [`Settings::new`], in steps (units of work, see module `search`): enough
/// for MiniMalloc's hard instances at their capacity (see docs/planning.md), at most a few
/// seconds on any problem (about three in a release build, where a second is some 300 million
/// steps; the build-time planner in a debug build is a few times slower).
pub const DEFAULT_SEARCH_STEPS: u64 = 1_000_000_000;

/// The work `auto` spends on heuristics (units of the placement, see module `space`, plus one
/// per buffer placed) before it stops trying the next one: greedy always runs, and each further
/// heuristic only while the heuristics so far spent at most this. Some 8 million units, a few
/// tenths of a second in a release build: every heuristic runs on models up to tens of thousands
/// of tensors (on every model of the tests and on MiniMalloc's instances), while the
/// benchmark's random DAG of width 64 with 100,000 tensors gets greedy alone. Like the search
/// budget it counts work, never the clock.
pub const AUTO_HEURISTIC_WORK: u64 = 1 << 23;

/// What to run: a planner, an optional capacity and the search budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Settings {
    /// The planner.
    pub planner: Planner,
    /// For `search` and `auto`: stop at the first plan whose arena is at most this many bytes,
    /// and spend the whole budget looking for one. `None`: look for the smallest arena.
    pub capacity: Option<u64>,
    /// For `search` and `auto`: the most search steps (units of work) to spend.
    pub search_steps: u64,
}

impl Settings {
    /// `planner` with no capacity and the default budget.
    #[must_use]
    pub const fn new(planner: Planner) -> Self {
        Self {
            planner,
            capacity: None,
            search_steps: DEFAULT_SEARCH_STEPS,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self::new(Planner::default())
    }
}

impl fmt::Display for Planner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Planner {
    type Err = UnknownPlannerError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| UnknownPlannerError(s.to_owned()))
    }
}

/// A planner name that is not one of [`Planner::ALL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownPlannerError(pub String);

impl fmt::Display for UnknownPlannerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Planner::ALL.iter().map(|p| p.name()).collect();
        write!(
            f,
            "unknown planner `{}`, expected one of: {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownPlannerError {}

/// Where every buffer of a [`Problem`] goes, and what is known of its quality.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub(crate) offsets: Vec<u64>,
    pub(crate) arena_bytes: u64,
    pub(crate) planner: Planner,
    pub(crate) winner: Planner,
    pub(crate) proven_optimal: bool,
    pub(crate) search_steps: u64,
    pub(crate) best_bound: u64,
}

impl Plan {
    /// A plan from explicit offsets; the arena is the largest aligned end. Use it to check a plan
    /// made elsewhere with [`crate::verify::verify`].
    ///
    /// # Errors
    ///
    /// [`ProblemError::TooLarge`] if an offset is above [`MAX_BYTES`].
    pub fn from_offsets(
        problem: &Problem,
        offsets: Vec<u64>,
        planner: Planner,
    ) -> Result<Self, ProblemError> {
        let mut arena_bytes = 0;
        for (buffer, (b, &offset)) in problem.buffers().iter().zip(&offsets).enumerate() {
            if offset > MAX_BYTES {
                return Err(ProblemError::TooLarge {
                    buffer,
                    bytes: offset,
                });
            }
            arena_bytes = arena_bytes.max(offset + problem.aligned_size(b.size));
        }
        Ok(Self {
            offsets,
            arena_bytes,
            planner,
            winner: planner,
            proven_optimal: false,
            search_steps: 0,
            best_bound: 0,
        })
    }

    /// The offset of each buffer, in problem order.
    #[must_use]
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// The arena: the largest end (offset + aligned size) of any buffer.
    #[must_use]
    pub const fn arena_bytes(&self) -> u64 {
        self.arena_bytes
    }

    /// The planner asked for (`auto` by default).
    #[must_use]
    pub const fn planner(&self) -> Planner {
        self.planner
    }

    /// The planner whose plan this is: for `auto`, the heuristic or `search` that won; for the
    /// others, the planner itself.
    #[must_use]
    pub const fn winner(&self) -> Planner {
        self.winner
    }

    /// Whether no plan of the problem has a smaller arena: the arena equals [`Plan::best_bound`].
    #[must_use]
    pub const fn proven_optimal(&self) -> bool {
        self.proven_optimal
    }

    /// Search steps (units of work) spent; 0 when no search ran.
    #[must_use]
    pub const fn search_steps(&self) -> u64 {
        self.search_steps
    }

    /// The best proven lower bound on the arena, in bytes: [`proven_bound`], or more when the
    /// search proved smaller capacities infeasible. 0 for plans made by [`Plan::from_offsets`].
    #[must_use]
    pub const fn best_bound(&self) -> u64 {
        self.best_bound
    }
}

/// Runs `planner`. Nothing here verifies a plan: whoever runs a planner verifies its plan
/// afterwards, with its own policy on fixed overlaps ([`crate::verify::verify`], or
/// [`crate::verify::solve`] for both steps at once).
#[must_use]
pub fn run(problem: &Problem, planner: Planner) -> Plan {
    run_with(problem, &Settings::new(planner))
}

/// [`run`] with a capacity and a search budget.
#[must_use]
pub fn run_with(problem: &Problem, settings: &Settings) -> Plan {
    let bound = proven_bound(problem);
    // Offsets, and the work spent (see `space`).
    let heuristic = |planner: Planner| -> (Vec<u64>, u64) {
        match planner {
            Planner::Linear => (linear::plan(problem), problem.buffers().len() as u64),
            Planner::BestFit => heuristic::place(
                problem,
                &heuristic::best_fit_order(problem),
                heuristic::Fit::Best,
            ),
            Planner::Conflicts => heuristic::place(
                problem,
                &heuristic::conflicts_order(problem),
                heuristic::Fit::First,
            ),
            Planner::Lifetime => heuristic::place(
                problem,
                &heuristic::lifetime_order(problem),
                heuristic::Fit::First,
            ),
            Planner::Urgency => heuristic::place(
                problem,
                &heuristic::urgency_order(problem),
                heuristic::Fit::First,
            ),
            Planner::Greedy | Planner::Search | Planner::Auto => greedy::plan_counted(problem),
        }
    };
    let make = |offsets: Vec<u64>, winner: Planner, steps: u64, bound: u64| {
        let arena_bytes = arena_of(problem, &offsets);
        Plan {
            offsets,
            arena_bytes,
            planner: settings.planner,
            winner,
            proven_optimal: arena_bytes == bound,
            search_steps: steps,
            best_bound: bound,
        }
    };
    let goal = settings.capacity.map_or(bound, |c| c.max(bound));
    let (start, winner) = match settings.planner {
        Planner::Auto => {
            let mut best: Option<(Vec<u64>, u64, Planner)> = None;
            let mut spent: u64 = 0;
            for planner in Planner::HEURISTICS {
                let (offsets, work) = heuristic(planner);
                spent = spent.saturating_add(work);
                let arena = arena_of(problem, &offsets);
                if best.as_ref().is_none_or(|b| arena < b.1) {
                    best = Some((offsets, arena, planner));
                }
                if arena <= goal || spent > AUTO_HEURISTIC_WORK {
                    break;
                }
            }
            if !problem.overlaps().is_empty() && best.as_ref().is_some_and(|b| b.1 > goal) {
                // Overlaps a buffer takes where it can may cost more than they save (a chain of
                // pairs that drift apart): TFLite Micro's plan of whole buffers is valid too.
                let whole = greedy::plan(&problem.without_overlaps());
                let arena = arena_of(problem, &whole);
                if best.as_ref().is_some_and(|b| arena < b.1) {
                    best = Some((whole, arena, Planner::Greedy));
                }
            }
            match best {
                Some((offsets, arena, planner)) if arena <= goal => {
                    return make(offsets, planner, 0, bound);
                }
                Some((offsets, _, planner)) => (offsets, planner),
                None => (greedy::plan(problem), Planner::Greedy),
            }
        }
        Planner::Search => (greedy::plan(problem), Planner::Greedy),
        other => return make(heuristic(other).0, other, 0, bound),
    };
    let start_arena = arena_of(problem, &start);
    let found = search::minimise(
        problem,
        start,
        bound,
        settings.capacity,
        settings.search_steps,
    );
    let winner = if found.arena < start_arena {
        Planner::Search
    } else {
        winner
    };
    make(found.offsets, winner, found.steps, found.bound)
}

/// The units of work (module `space`: sets updated and looked up, buffers scanned, one per
/// buffer placed) a heuristic's placement spends on `problem`, the same count `auto` budgets
/// ([`AUTO_HEURISTIC_WORK`]); `None` for `linear`, `search` and `auto`. Exact and the same on
/// every machine: what tests bound to show that placement stays near-linear in the buffers.
#[must_use]
pub fn placement_work(problem: &Problem, planner: Planner) -> Option<u64> {
    let fit = |order: Vec<usize>, fit| heuristic::place(problem, &order, fit).1;
    match planner {
        Planner::Greedy => Some(greedy::plan_counted(problem).1),
        Planner::BestFit => Some(fit(
            heuristic::best_fit_order(problem),
            heuristic::Fit::Best,
        )),
        Planner::Conflicts => Some(fit(
            heuristic::conflicts_order(problem),
            heuristic::Fit::First,
        )),
        Planner::Lifetime => Some(fit(
            heuristic::lifetime_order(problem),
            heuristic::Fit::First,
        )),
        Planner::Urgency => Some(fit(
            heuristic::urgency_order(problem),
            heuristic::Fit::First,
        )),
        Planner::Linear | Planner::Search | Planner::Auto => None,
    }
}

fn arena_of(problem: &Problem, offsets: &[u64]) -> u64 {
    problem
        .buffers()
        .iter()
        .zip(offsets)
        .map(|(b, &o)| o + problem.aligned_size(b.size))
        .max()
        .unwrap_or(0)
}
