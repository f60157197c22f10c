//! The exact search, in the spirit of MiniMalloc (Moffitt, ASPLOS 2023).
//!
//! # The decision problem
//!
//! [`decide`] answers "is there a plan whose arena is at most `capacity`?" by a depth-first
//! search over *canonical* plans. All sizes and offsets are in units of the alignment (every size
//! is rounded up to it and every offset is a multiple of it). Buffers with a fixed offset are
//! obstacles that never move; zero-sized buffers conflict with nothing and go at offset 0; the
//! search places the rest.
//!
//! A node of the search is a set of placed buffers. The *floor* of an unplaced buffer is the
//! lowest offset at or above the top of every placed buffer whose lifetime overlaps its own
//! where it does not collide with a fixed buffer. A child places one unplaced buffer at its
//! floor. Buffers are placed in order of non-decreasing offset (equal offsets in a static
//! preorder), so each plan is reached along at most one path.
//!
//! **Completeness.** If a plan with arena ≤ capacity exists, take one whose offsets have the
//! smallest sum. Every buffer in it sits at its floor with respect to the buffers below it
//! (otherwise it could move down, lowering the sum), so sorting its buffers by (offset,
//! preorder) gives a path of the search. The pruning rules below never cut that path:
//!
//! - *canonical order*: a child's offset must not be below its parent's (ties: later preorder);
//! - *dominance*: a buffer may not be placed at or above `floor(v) + size(v)` for another
//!   unplaced `v`: everything placed later lies above, so `v` could drop to its floor, which
//!   lowers the sum of offsets;
//! - *section bound*: time is cut into sections (maximal ranges where the same buffers are
//!   live); in each, the unplaced buffers live there must stack above both the section's floor
//!   and the last offset placed, so `max(last offset, floor) + unplaced bytes ≤ capacity`;
//! - *hatless pruning*: when a buffer that overlaps no unplaced buffer fails at its floor, its
//!   siblings fail too (any plan they lead to can drop that buffer to its floor first);
//! - *decomposition*: when no unplaced buffer spans a section boundary, the two sides are
//!   independent and are solved one after the other.
//!
//! So an exhausted search proves that no plan fits the capacity.
//!
//! # Pairs that may overlap
//!
//! With pairs (module `overlap`), the search works on the split lifetimes, where a pair's two
//! buffers never meet in time, and keeps each pair's rule in the floors: an output placed first
//! lifts its input's floor to the output's offset plus the pair's displacement `D`, an input
//! placed first lifts its output's floor to its own top (the output may not overlap it from
//! above). Completeness holds for `D` of at least one alignment unit: in a plan with the smallest
//! sum of offsets, moving a buffer down never breaks a pair with a buffer above it (an output
//! below its input only widens their distance; an input below its output is disjoint from it), so
//! every buffer still sits at its floor. A pair with a smaller `D` (a full alias, or an input
//! allowed below its output) is searched as if its `D` were one unit: valid plans, but the
//! search is then not exact, and an exhausted one raises no bound ([`minimise`]). A pair also
//! couples its buffers' sections until one of them is placed, so no decomposition separates
//! them, and a buffer with an unplaced partner is never hatless.
//!
//! # Budget and restarts
//!
//! The budget counts *steps*, units of work: one per node visited, and one per element every
//! loop of the search walks (the candidates a node sorts, the sections and neighbours a
//! placement updates, the trail it undoes, the buffers a part is split into, the setup of each
//! decision). So the steps spent are proportional to the time spent, on small and large problems
//! alike, and count nothing of the clock: the same input and budget give the same plan on every
//! machine. The budget is checked once per node, so a decision overshoots it by at most one
//! node's work. The decision runs the search with three static preorders in turn (MiniMalloc's
//! `WAT`, `TAW`, `TWA`: lifetime width, area = size × width, and the largest total of unplaced
//! bytes in the buffer's sections), restarting with a doubled work limit (starting from four
//! times the work of setting the decision up) until one finds a plan, one proves there is none,
//! or the budget is spent. Everything is integer arithmetic and ties are broken by buffer index.
//!
//! Problems with more than [`MAX_SEARCH_BUFFERS`] buffers to place are not searched (the
//! memory of the depth-first search grows with the square of the buffers): they keep their
//! heuristic plan and bound.
//!
//! # Optimisation
//!
//! [`minimise`] is anytime: starting from an incumbent plan (a heuristic's), it decides the
//! capacity equal to the proven lower bound with three quarters of the remaining budget, raising
//! that bound by one alignment unit whenever the search proves a capacity infeasible; when the
//! budget runs out first, it bisects between the capacities not yet tried and the incumbent,
//! half the remaining budget each time, keeping the best plan found. It returns that plan, the
//! proven lower bound and the steps used; the plan is proven optimal when its arena equals the
//! bound. With a capacity, it decides that capacity alone, with the whole budget.

use super::{Lifetime, Problem, Time};

const NONE: u64 = u64::MAX;

/// The most buffers the search takes on. Each level of the depth-first search keeps its sorted
/// candidates, so memory grows with the square of the buffers (about 33 MB at this limit); larger
/// problems keep their heuristic plan.
pub const MAX_SEARCH_BUFFERS: usize = 2_048;

/// The answer to one decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Status {
    /// A plan within the capacity was found.
    Found,
    /// The search is exhausted: no plan fits the capacity.
    Infeasible,
    /// The step budget ran out first.
    Unknown,
}

/// The problem prepared for the search: search buffers, sections, conflicts.
#[derive(Debug)]
pub(super) struct Instance {
    align: u64,
    /// Problem index of each search buffer.
    ids: Vec<usize>,
    size: Vec<u64>,
    width: Vec<u64>,
    /// Sections `lo..hi` the buffer is live in.
    lo: Vec<u32>,
    hi: Vec<u32>,
    /// Conflicting search buffers (CSR).
    nbr_start: Vec<u32>,
    nbrs: Vec<u32>,
    /// Fixed buffers live at the same time, as `(start, end)` in units, sorted by start.
    obstacles: Vec<Vec<(u64, u64)>>,
    /// Buffers live in each section (CSR).
    sec_start: Vec<u32>,
    sec_members: Vec<u32>,
    /// For each buffer, its position in `sec_members` in each of its sections (CSR by buffer).
    slot_start: Vec<u32>,
    slots: Vec<u32>,
    sections: usize,
    /// Highest end of a fixed buffer, in units.
    fixed_end: u64,
    /// Pairs that may overlap (module `overlap`), per search buffer: the partner, how far
    /// above this buffer's offset the partner's floor rises when this one is placed first (in
    /// units), and the section boundaries `lo..hi` the pair couples.
    partners: Vec<Vec<(u32, u64, u32, u32)>>,
    /// Whether the search decides the problem itself: false when some pair allows a
    /// displacement below one alignment unit, which the search does not place (module docs);
    /// its plans stay valid, but an exhausted search then proves nothing.
    exact: bool,
}

fn get<T: Copy + Default>(v: &[T], i: usize) -> T {
    v.get(i).copied().unwrap_or_default()
}

fn u(i: u32) -> usize {
    i as usize
}

impl Instance {
    pub(super) fn new(problem: &Problem) -> Self {
        let align = problem.alignment();
        let buffers = problem.buffers();
        let units = |size: u64| problem.aligned_size(size) / align;
        // With pairs, the split lifetimes (module `overlap`): a pair's two buffers no longer
        // share a time, every other two that did still do.
        let split = super::overlap::placement_lifetimes(problem);
        let lifetime_of = |i: usize| {
            split
                .get(i)
                .map_or(Lifetime::new(0, 0), |&(f, l)| Lifetime::new(f, l))
        };
        let mut ids = Vec::new();
        let mut fixed: Vec<(Time, Time, u64, u64)> = Vec::new();
        for (i, b) in buffers.iter().enumerate() {
            if b.size == 0 {
                continue;
            }
            match b.fixed_offset {
                Some(o) => fixed.push((
                    lifetime_of(i).first,
                    lifetime_of(i).last,
                    o / align,
                    o / align + units(b.size),
                )),
                None => ids.push(i),
            }
        }
        let life = lifetime_of;
        let size: Vec<u64> = ids
            .iter()
            .map(|&i| buffers.get(i).map_or(0, |b| units(b.size)))
            .collect();
        let width: Vec<u64> = ids
            .iter()
            .map(|&i| u64::from(life(i).last) - u64::from(life(i).first) + 1)
            .collect();
        // Sections: elementary ranges between consecutive event points.
        let mut points: Vec<u64> = ids
            .iter()
            .flat_map(|&i| [u64::from(life(i).first), u64::from(life(i).last) + 1])
            .collect();
        points.sort_unstable();
        points.dedup();
        let sections = points.len().saturating_sub(1);
        let index = |t: u64| points.partition_point(|&p| p < t) as u32;
        let lo: Vec<u32> = ids
            .iter()
            .map(|&i| index(u64::from(life(i).first)))
            .collect();
        let hi: Vec<u32> = ids
            .iter()
            .map(|&i| index(u64::from(life(i).last) + 1))
            .collect();
        // Members of each section.
        let mut count = vec![0u32; sections + 1];
        for (&l, &h) in lo.iter().zip(&hi) {
            for s in u(l)..u(h) {
                if let Some(c) = count.get_mut(s + 1) {
                    *c += 1;
                }
            }
        }
        for s in 1..count.len() {
            let prev = get(&count, s - 1);
            if let Some(c) = count.get_mut(s) {
                *c += prev;
            }
        }
        let sec_start = count.clone();
        let mut fill = count;
        let mut sec_members = vec![0u32; u(get(&sec_start, sections))];
        let mut slot_start = Vec::with_capacity(lo.len() + 1);
        let mut slots = Vec::with_capacity(sec_members.len());
        slot_start.push(0u32);
        for (b, (&l, &h)) in lo.iter().zip(&hi).enumerate() {
            for s in u(l)..u(h) {
                if let Some(at) = fill.get_mut(s) {
                    if let Some(m) = sec_members.get_mut(u(*at)) {
                        *m = b as u32;
                    }
                    slots.push(*at);
                    *at += 1;
                }
            }
            slot_start.push(slots.len() as u32);
        }
        // Conflicts: sweep buffers by first time.
        let n = ids.len();
        let mut by_first: Vec<u32> = (0..n as u32).collect();
        by_first.sort_by_key(|&b| (get(&lo, u(b)), b));
        let mut adjacency: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (k, &a) in by_first.iter().enumerate() {
            let a_hi = get(&hi, u(a));
            for &b in by_first.iter().skip(k + 1) {
                if get(&lo, u(b)) >= a_hi {
                    break;
                }
                if let Some(list) = adjacency.get_mut(u(a)) {
                    list.push(b);
                }
                if let Some(list) = adjacency.get_mut(u(b)) {
                    list.push(a);
                }
            }
        }
        let mut nbr_start = Vec::with_capacity(n + 1);
        let mut nbrs = Vec::new();
        nbr_start.push(0u32);
        for mut list in adjacency {
            list.sort_unstable();
            nbrs.extend(list);
            nbr_start.push(nbrs.len() as u32);
        }
        let obstacles: Vec<Vec<(u64, u64)>> = ids
            .iter()
            .map(|&i| {
                let l = life(i);
                let mut obs: Vec<(u64, u64)> = fixed
                    .iter()
                    .filter(|f| f.0 <= l.last && l.first <= f.1)
                    .map(|f| (f.2, f.3))
                    .collect();
                obs.sort_unstable();
                obs
            })
            .collect();
        // Zero-size fixed buffers are no obstacle, but they end inside the arena too.
        let fixed_end = buffers
            .iter()
            .filter_map(|b| Some(b.fixed_offset? / align + units(b.size)))
            .max()
            .unwrap_or(0);
        // Pairs between searched buffers: placed first, an output lets its input's floor rise
        // by the pair's displacement only (at least one unit); an input lets its output's rise by
        // its whole size (the output may not overlap it from above).
        let mut partners: Vec<Vec<(u32, u64, u32, u32)>> = vec![Vec::new(); ids.len()];
        let mut exact = true;
        for o in problem.overlaps() {
            let (Ok(out), Ok(inp)) = (ids.binary_search(&o.output), ids.binary_search(&o.input))
            else {
                continue;
            };
            let min = super::overlap::aligned_min(problem, o);
            let d = u64::try_from(min / i128::from(align)).unwrap_or(0);
            if d == 0 {
                exact = false;
            }
            let (so, si) = (get(&size, out), get(&size, inp));
            let span_lo = get(&lo, out).min(get(&lo, inp));
            let span_hi = get(&hi, out).max(get(&hi, inp));
            if let Some(list) = partners.get_mut(out) {
                list.push((inp as u32, d.clamp(1, so.max(1)), span_lo, span_hi));
            }
            if let Some(list) = partners.get_mut(inp) {
                list.push((out as u32, si, span_lo, span_hi));
            }
        }
        Self {
            align,
            ids,
            size,
            width,
            lo,
            hi,
            nbr_start,
            nbrs,
            obstacles,
            sec_start,
            sec_members,
            slot_start,
            slots,
            sections,
            fixed_end,
            partners,
            exact,
        }
    }

    fn partners(&self, b: usize) -> &[(u32, u64, u32, u32)] {
        self.partners.get(b).map_or(&[], Vec::as_slice)
    }

    fn nbrs(&self, b: usize) -> &[u32] {
        let (s, e) = (get(&self.nbr_start, b), get(&self.nbr_start, b + 1));
        self.nbrs.get(u(s)..u(e)).unwrap_or_default()
    }

    fn slots(&self, b: usize) -> &[u32] {
        let (a, e) = (get(&self.slot_start, b), get(&self.slot_start, b + 1));
        self.slots.get(u(a)..u(e)).unwrap_or_default()
    }

    /// The lowest offset at or above `base` where buffer `b` misses every fixed buffer.
    fn fit(&self, b: usize, base: u64) -> u64 {
        let Some(obs) = self.obstacles.get(b) else {
            return base;
        };
        let size = get(&self.size, b);
        let mut pos = base;
        for &(start, end) in obs {
            if end <= pos {
                continue;
            }
            if start >= pos.saturating_add(size) {
                break;
            }
            pos = end;
        }
        pos
    }

    /// The work of setting up one decision ([`Dfs::new`]).
    fn setup_work(&self) -> u64 {
        1 + (self.len() + self.sections + 3 * self.sec_members.len()) as u64
            + self.obstacles.iter().map(|o| o.len() as u64).sum::<u64>()
    }

    /// Number of buffers the search places.
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    /// Offsets in bytes for every buffer of `problem`, from search offsets in units.
    pub(super) fn offsets(&self, problem: &Problem, units: &[u64]) -> Vec<u64> {
        let mut offsets: Vec<u64> = problem
            .buffers()
            .iter()
            .map(|b| b.fixed_offset.unwrap_or(0))
            .collect();
        for (&i, &o) in self.ids.iter().zip(units) {
            if let Some(slot) = offsets.get_mut(i) {
                *slot = o * self.align;
            }
        }
        offsets
    }
}

/// A static preorder: keys compared largest first, then the buffer index.
#[derive(Clone, Copy, Debug)]
enum Key {
    Width,
    Area,
    Total,
}

const PREORDERS: [[Key; 3]; 3] = [
    [Key::Width, Key::Area, Key::Total],
    [Key::Total, Key::Area, Key::Width],
    [Key::Total, Key::Width, Key::Area],
];

/// A part of the timeline solved on its own: sections `lo..hi` and its buffers in preorder.
struct Part {
    lo: u32,
    hi: u32,
    order: Vec<u32>,
}

enum Outcome {
    Found,
    NotFound,
    Aborted,
}

struct Dfs<'a> {
    inst: &'a Instance,
    cap: u64,
    keys: [Key; 3],
    placed: Vec<u64>,
    base: Vec<u64>,
    floor_of: Vec<u64>,
    /// For each entry of `sec_members`: the buffer's floor if unplaced, `NONE` if placed.
    sec_vals: Vec<u64>,
    /// Sections where a buffer's floor rose to exactly the top of the buffer just placed.
    hit: Vec<u32>,
    sec_floor: Vec<u64>,
    sec_total: Vec<u64>,
    cuts: Vec<u32>,
    solution: Vec<u64>,
    /// Units of work done so far (see the module docs).
    work: u64,
    /// The work at which the current run stops.
    stop_at: u64,
    trail_buf: Vec<(u32, u64, u64)>,
    trail_sec: Vec<(u32, u64)>,
    mark: Vec<u32>,
    stamp: u32,
    affected: Vec<u32>,
    pool: Vec<Vec<(u64, u32)>>,
    same: Vec<(u64, u32)>,
    changed: Vec<(u64, u32)>,
}

impl<'a> Dfs<'a> {
    fn new(inst: &'a Instance, cap: u64) -> Self {
        let n = inst.len();
        let s = inst.sections;
        let mut sec_total = vec![0u64; s];
        for (b, (&l, &h)) in inst.lo.iter().zip(&inst.hi).enumerate() {
            let size = get(&inst.size, b);
            for t in sec_total.get_mut(u(l)..u(h)).unwrap_or_default() {
                *t += size;
            }
        }
        let mut cuts = vec![0u32; s];
        for (&l, &h) in inst.lo.iter().zip(&inst.hi) {
            // Boundaries l..h-1 (between section k and k + 1) are spanned.
            for c in cuts
                .get_mut(u(l)..u(h).saturating_sub(1))
                .unwrap_or_default()
            {
                *c += 1;
            }
        }
        // A pair couples the sections of its two buffers until one is placed: once from each
        // side (see `descend`).
        for b in 0..n {
            for &(_, _, l, h) in inst.partners(b) {
                for c in cuts
                    .get_mut(u(l)..u(h).saturating_sub(1))
                    .unwrap_or_default()
                {
                    *c += 1;
                }
            }
        }
        let floor_of: Vec<u64> = (0..n).map(|b| inst.fit(b, 0)).collect();
        let mut dfs = Self {
            inst,
            cap,
            keys: PREORDERS[0],
            placed: vec![NONE; n],
            base: vec![0; n],
            sec_vals: inst
                .sec_members
                .iter()
                .map(|&m| get(&floor_of, u(m)))
                .collect(),
            hit: vec![0; s],
            floor_of,
            sec_floor: vec![0; s],
            sec_total,
            cuts,
            solution: vec![0; n],
            work: 0,
            stop_at: 0,
            trail_buf: Vec::new(),
            trail_sec: Vec::new(),
            mark: vec![0; s],
            stamp: 0,
            affected: Vec::new(),
            pool: Vec::new(),
            same: Vec::new(),
            changed: Vec::new(),
        };
        // Section floors start at the lowest floor of their buffers (fixed buffers may lift it).
        for s in 0..s {
            dfs.refresh_floor(s);
        }
        dfs.trail_sec.clear();
        dfs.work = inst.setup_work();
        dfs
    }

    /// Raises the floor of section `s` to the lowest floor of its unplaced buffers.
    fn refresh_floor(&mut self, s: usize) {
        let (a, e) = (
            get(&self.inst.sec_start, s),
            get(&self.inst.sec_start, s + 1),
        );
        self.work += 1 + u64::from(e.saturating_sub(a));
        let lowest = self
            .sec_vals
            .get(u(a)..u(e))
            .unwrap_or_default()
            .iter()
            .copied()
            .min()
            .unwrap_or(NONE);
        if let Some(f) = self.sec_floor.get_mut(s)
            && lowest != NONE
            && *f < lowest
        {
            self.trail_sec.push((s as u32, *f));
            *f = lowest;
        }
    }

    /// Writes `value` as buffer `b`'s entry in each of its sections.
    fn set_open(&mut self, b: usize, value: u64) {
        self.work += self.inst.slots(b).len() as u64;
        for &slot in self.inst.slots(b) {
            if let Some(x) = self.sec_vals.get_mut(u(slot)) {
                *x = value;
            }
        }
    }

    /// The parts of the timeline with buffers, split where no buffer spans a boundary.
    fn initial_parts(&mut self) -> Vec<Part> {
        let mut parts = Vec::new();
        let mut start = 0usize;
        for s in 0..self.inst.sections {
            if s + 1 == self.inst.sections || get(&self.cuts, s) == 0 {
                parts.push((start, s + 1));
                start = s + 1;
            }
        }
        // Every buffer lies inside one part (no buffer spans a cut): the one holding its first
        // section.
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); parts.len()];
        for b in 0..self.inst.len() {
            let lo = u(get(&self.inst.lo, b));
            let k = parts.partition_point(|&(_, hi)| hi <= lo);
            if let Some(m) = members.get_mut(k) {
                m.push(b as u32);
            }
        }
        self.work += (self.inst.sections + self.inst.len()) as u64;
        let mut out = Vec::new();
        for ((lo, hi), bufs) in parts.into_iter().zip(members) {
            if !bufs.is_empty() {
                out.push(self.part(lo as u32, hi as u32, bufs));
            }
        }
        out
    }

    /// A part with its buffers sorted by the current preorder.
    fn part(&mut self, lo: u32, hi: u32, mut bufs: Vec<u32>) -> Part {
        let inst = self.inst;
        // Sorting, and each buffer's sections for its total.
        let spans: u64 = bufs
            .iter()
            .map(|&b| u64::from(get(&inst.hi, u(b)).saturating_sub(get(&inst.lo, u(b)))))
            .sum();
        let k = bufs.len() as u64;
        self.work += spans + k * u64::from(64 - k.leading_zeros()) + 1;
        let total = |b: usize| {
            self.sec_total
                .get(u(get(&inst.lo, b))..u(get(&inst.hi, b)))
                .unwrap_or_default()
                .iter()
                .copied()
                .max()
                .unwrap_or(0)
        };
        let key = |b: usize, k: Key| match k {
            Key::Width => get(&inst.width, b),
            Key::Area => get(&inst.width, b).saturating_mul(get(&inst.size, b)),
            Key::Total => total(b),
        };
        let keys = self.keys;
        let mut keyed: Vec<([u64; 3], u32)> = bufs
            .drain(..)
            .map(|b| (keys.map(|k| key(u(b), k)), b))
            .collect();
        keyed.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        Part {
            lo,
            hi,
            order: keyed.into_iter().map(|(_, b)| b).collect(),
        }
    }

    fn solve_part(&mut self, part: &Part) -> Outcome {
        let k = part.order.len() as u64;
        self.work += u64::from(part.hi - part.lo) + k * u64::from(64 - k.leading_zeros()) + 1;
        if !self.fits(part) {
            return Outcome::NotFound;
        }
        let mut ord = self.pool.pop().unwrap_or_default();
        ord.clear();
        for (p, &b) in part.order.iter().enumerate() {
            if get(&self.placed, u(b)) == NONE {
                ord.push((get(&self.floor_of, u(b)), p as u32));
            }
        }
        ord.sort_unstable();
        let result = self.search(part, &ord, 0, 0);
        self.pool.push(ord);
        result
    }

    /// The unplaced buffers of `parent` with their current floors, sorted by (floor, preorder).
    fn children(&mut self, parent: &[(u64, u32)], part: &Part, out: &mut Vec<(u64, u32)>) {
        let mut same = std::mem::take(&mut self.same);
        let mut changed = std::mem::take(&mut self.changed);
        self.work += parent.len() as u64;
        same.clear();
        changed.clear();
        for &(off, p) in parent {
            let b = u(get(&part.order, u(p)));
            if get(&self.placed, b) != NONE {
                continue;
            }
            let f = get(&self.floor_of, b);
            if f == off {
                same.push((off, p));
            } else {
                changed.push((f, p));
            }
        }
        let k = changed.len() as u64;
        self.work += k * u64::from(64 - k.leading_zeros());
        changed.sort_unstable();
        out.clear();
        let (mut i, mut j) = (0, 0);
        while let (Some(&a), Some(&b)) = (same.get(i), changed.get(j)) {
            if a <= b {
                out.push(a);
                i += 1;
            } else {
                out.push(b);
                j += 1;
            }
        }
        out.extend(same.get(i..).unwrap_or_default());
        out.extend(changed.get(j..).unwrap_or_default());
        self.same = same;
        self.changed = changed;
    }

    fn search(
        &mut self,
        part: &Part,
        parent: &[(u64, u32)],
        min_off: u64,
        min_pre: u32,
    ) -> Outcome {
        // The budget is checked once per node: a node's own work is bounded by the instance.
        if self.work >= self.stop_at {
            return Outcome::Aborted;
        }
        self.work += 1;
        let mut ord = self.pool.pop().unwrap_or_default();
        self.children(parent, part, &mut ord);
        if ord.is_empty() {
            self.pool.push(ord);
            return Outcome::Found;
        }
        self.work += 2 * u64::from(part.hi - part.lo) + ord.len() as u64;
        let max_total = self.max_total(part);
        let min_height = ord
            .iter()
            .map(|&(off, p)| off.saturating_add(get(&self.inst.size, u(get(&part.order, u(p))))))
            .min()
            .unwrap_or(NONE);
        let mut result = Outcome::NotFound;
        for k in 0..ord.len() {
            let Some(&(off, p)) = ord.get(k) else { break };
            self.work += 1;
            if (off, p) < (min_off, min_pre) {
                continue;
            }
            if off >= min_height || off.saturating_add(max_total) > self.cap {
                // Candidates come by offset: the rest are dominated or over capacity too.
                break;
            }
            let b = u(get(&part.order, u(p)));
            if off.saturating_add(get(&self.inst.size, b)) > self.cap {
                continue;
            }
            let (mark_buf, mark_sec, hatless) = self.place(b, off);
            let outcome = if self.check(off) {
                self.descend(part, &ord, off, p, b)
            } else {
                Outcome::NotFound
            };
            self.unplace(b, mark_buf, mark_sec);
            match outcome {
                Outcome::NotFound => {}
                other => {
                    result = other;
                    break;
                }
            }
            if hatless {
                break;
            }
        }
        self.pool.push(ord);
        result
    }

    /// After placing `b`: split the part where no unplaced buffer spans a boundary any more,
    /// else go on searching the same part.
    fn descend(&mut self, part: &Part, ord: &[(u64, u32)], off: u64, p: u32, b: usize) -> Outcome {
        let inst = self.inst;
        let (lo, hi) = (u(get(&inst.lo, b)), u(get(&inst.hi, b)));
        self.work += 2 * (hi - lo) as u64;
        let mut cutpoints: Vec<u32> = Vec::new();
        for s in lo..hi.saturating_sub(1) {
            if let Some(c) = self.cuts.get_mut(s) {
                *c -= 1;
                if *c == 0 {
                    cutpoints.push(s as u32 + 1);
                }
            }
        }
        // The pairs `b` is placed first in no longer couple their sections: the partner's floor
        // holds what it needs of `b`.
        let released: Vec<(u32, u32)> = inst
            .partners(b)
            .iter()
            .filter(|&&(v, _, _, _)| get(&self.placed, u(v)) == NONE)
            .map(|&(_, _, l, h)| (l, h))
            .collect();
        for &(l, h) in &released {
            self.work += u64::from(h.saturating_sub(l));
            for s in u(l)..u(h).saturating_sub(1) {
                if let Some(c) = self.cuts.get_mut(s) {
                    *c -= 2;
                    if *c == 0 {
                        cutpoints.push(s as u32 + 1);
                    }
                }
            }
        }
        cutpoints.sort_unstable();
        cutpoints.dedup();
        let outcome = if cutpoints.is_empty() {
            self.search(part, ord, off, p)
        } else {
            let mut bounds = vec![part.lo];
            bounds.extend(cutpoints.iter().copied());
            bounds.push(part.hi);
            let mut outcome = Outcome::Found;
            for w in bounds.windows(2) {
                let (Some(&a), Some(&z)) = (w.first(), w.get(1)) else {
                    continue;
                };
                self.work += part.order.len() as u64;
                let bufs: Vec<u32> = part
                    .order
                    .iter()
                    .copied()
                    .filter(|&x| {
                        get(&self.placed, u(x)) == NONE
                            && get(&self.inst.lo, u(x)) < z
                            && a < get(&self.inst.hi, u(x))
                    })
                    .collect();
                if bufs.is_empty() {
                    continue;
                }
                let sub = self.part(a, z, bufs);
                match self.solve_part(&sub) {
                    Outcome::Found => {}
                    other => {
                        outcome = other;
                        break;
                    }
                }
            }
            outcome
        };
        for c in self
            .cuts
            .get_mut(lo..hi.saturating_sub(1))
            .unwrap_or_default()
        {
            *c += 1;
        }
        for &(l, h) in &released {
            for c in self
                .cuts
                .get_mut(u(l)..u(h).saturating_sub(1))
                .unwrap_or_default()
            {
                *c += 2;
            }
        }
        outcome
    }

    /// Places `b` at `off`; returns the trail marks and whether no unplaced buffer overlaps it.
    ///
    /// Section floors stay lower bounds on the floors of their unplaced buffers (exactly their
    /// minimum, in fact): `b`'s sections rise to its top, or to their new minimum when no buffer
    /// there rose to exactly that top; another section is rescanned only when a buffer whose
    /// floor rose could have held its minimum. The sections whose floor rose are left in
    /// `self.affected` for [`Dfs::check`].
    fn place(&mut self, b: usize, off: u64) -> (usize, usize, bool) {
        let inst = self.inst;
        let mark_buf = self.trail_buf.len();
        let mark_sec = self.trail_sec.len();
        if let Some(x) = self.placed.get_mut(b) {
            *x = off;
        }
        self.set_open(b, NONE);
        if let Some(x) = self.solution.get_mut(b) {
            *x = off;
        }
        let size = get(&inst.size, b);
        let top = off + size;
        let (lo, hi) = (u(get(&inst.lo, b)), u(get(&inst.hi, b)));
        self.work += 2 * (hi - lo) as u64 + inst.nbrs(b).len() as u64;
        for s in lo..hi {
            if let Some(f) = self.sec_floor.get_mut(s) {
                self.trail_sec.push((s as u32, *f));
                *f = top;
            }
            if let Some(t) = self.sec_total.get_mut(s) {
                *t -= size;
            }
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.hit.iter_mut().for_each(|m| *m = 0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        self.affected.clear();
        let mut hatless = true;
        for &v in inst.nbrs(b) {
            let v = u(v);
            if get(&self.placed, v) != NONE {
                continue;
            }
            hatless = false;
            self.raise(v, top, lo, hi, stamp);
        }
        // Partners (pairs that may overlap): their floors rise by less than `b`'s size when
        // `b` is the pair's output, and `b` is never hatless while one is unplaced (dropping
        // it could break the pair).
        for &(v, rise, _, _) in inst.partners(b) {
            let v = u(v);
            if get(&self.placed, v) != NONE {
                continue;
            }
            hatless = false;
            self.work += 1;
            self.raise(v, off + rise, lo, hi, stamp);
        }
        let mut affected = std::mem::take(&mut self.affected);
        for &s in &affected {
            self.refresh_floor(u(s));
        }
        for s in lo..hi {
            if get(&self.hit, s) != stamp {
                self.refresh_floor(s);
                affected.push(s as u32);
            }
        }
        self.affected = affected;
        (mark_buf, mark_sec, hatless)
    }

    /// Raises unplaced `v`'s floor to at least `top` (the top of the buffer just placed in
    /// sections `lo..hi`, or where a partner's pair lets it start), keeping the section floors
    /// as [`Dfs::place`] describes.
    fn raise(&mut self, v: usize, top: u64, lo: usize, hi: usize, stamp: u32) {
        let inst = self.inst;
        let base = get(&self.base, v);
        if base >= top {
            return;
        }
        let old_floor = get(&self.floor_of, v);
        self.trail_buf.push((v as u32, base, old_floor));
        if let Some(x) = self.base.get_mut(v) {
            *x = top;
        }
        self.work += 1 + inst.obstacles.get(v).map_or(0, |o| o.len() as u64);
        let f = inst.fit(v, top);
        if f == old_floor {
            return;
        }
        if let Some(x) = self.floor_of.get_mut(v) {
            *x = f;
        }
        self.set_open(v, f);
        let (vlo, vhi) = (u(get(&inst.lo, v)), u(get(&inst.hi, v)));
        // Inside b's sections: note where the minimum is now exactly `top`.
        if f == top {
            for h in self
                .hit
                .get_mut(vlo.max(lo)..vhi.min(hi))
                .unwrap_or_default()
            {
                *h = stamp;
            }
        }
        // Outside: sections where v may have held the minimum.
        self.work += (vhi - vlo) as u64;
        for (a, z) in [(vlo, vhi.min(lo)), (vlo.max(hi), vhi)] {
            if a >= z {
                continue;
            }
            let (Some(marks), Some(floors)) = (self.mark.get_mut(a..z), self.sec_floor.get(a..z))
            else {
                continue;
            };
            for (k, (m, &floor)) in marks.iter_mut().zip(floors).enumerate() {
                if *m != stamp && old_floor <= floor {
                    *m = stamp;
                    self.affected.push((a + k) as u32);
                }
            }
        }
    }

    fn unplace(&mut self, b: usize, mark_buf: usize, mark_sec: usize) {
        let inst = self.inst;
        self.work += (self.trail_sec.len().saturating_sub(mark_sec)
            + self.trail_buf.len().saturating_sub(mark_buf)
            + u(get(&inst.hi, b)).saturating_sub(u(get(&inst.lo, b)))) as u64;
        while self.trail_sec.len() > mark_sec {
            if let Some((s, f)) = self.trail_sec.pop()
                && let Some(x) = self.sec_floor.get_mut(u(s))
            {
                *x = f;
            }
        }
        let size = get(&inst.size, b);
        for t in self
            .sec_total
            .get_mut(u(get(&inst.lo, b))..u(get(&inst.hi, b)))
            .unwrap_or_default()
        {
            *t += size;
        }
        while self.trail_buf.len() > mark_buf {
            if let Some((v, base, floor)) = self.trail_buf.pop() {
                if let Some(x) = self.base.get_mut(u(v)) {
                    *x = base;
                }
                if let Some(x) = self.floor_of.get_mut(u(v)) {
                    *x = floor;
                }
                self.set_open(u(v), floor);
            }
        }
        if let Some(x) = self.placed.get_mut(b) {
            *x = NONE;
        }
        self.set_open(b, get(&self.floor_of, b));
    }

    /// The largest unplaced total over the part's sections.
    ///
    /// Every accepted placement leaves `floor + unplaced ≤ capacity` in every section (the root
    /// checks it once, [`Dfs::check`] after each placement where floors rose), so placing `b` at
    /// `off` can pass the section bound only if `off + max total ≤ capacity`: in `b`'s sections
    /// the floor becomes `off + size(b)` and the total drops by `size(b)`; elsewhere the floor is
    /// at least `off`.
    fn max_total(&self, part: &Part) -> u64 {
        self.sec_total
            .get(u(part.lo)..u(part.hi))
            .unwrap_or_default()
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
    }

    /// Whether `floor + unplaced ≤ capacity` holds in every section of the part.
    fn fits(&self, part: &Part) -> bool {
        let range = u(part.lo)..u(part.hi);
        match (self.sec_floor.get(range.clone()), self.sec_total.get(range)) {
            (Some(f), Some(t)) => f
                .iter()
                .zip(t)
                .all(|(&f, &t)| f.saturating_add(t) <= self.cap),
            _ => false,
        }
    }

    /// The section bound after a placement at `off`, on the sections whose floor rose (the
    /// others still pass, see [`Dfs::max_total`]).
    fn check(&mut self, off: u64) -> bool {
        self.work += self.affected.len() as u64;
        self.affected.iter().all(|&s| {
            let f = get(&self.sec_floor, u(s));
            let t = get(&self.sec_total, u(s));
            f.max(off).saturating_add(t) <= self.cap
        })
    }
}

/// Decides whether a plan with arena at most `capacity` bytes exists, within `budget` units of
/// work. Returns the status, the work done (at least 1), and on success the offsets of every
/// buffer.
pub(super) fn decide(
    problem: &Problem,
    inst: &Instance,
    capacity: u64,
    budget: u64,
) -> (Status, u64, Option<Vec<u64>>) {
    let cap = capacity / problem.alignment();
    if inst.fixed_end > cap {
        return (Status::Infeasible, 1, None);
    }
    if inst.len() == 0 {
        return (Status::Found, 1, Some(inst.offsets(problem, &[])));
    }
    if inst.setup_work() >= budget {
        return (Status::Unknown, budget.max(1), None);
    }
    let mut dfs = Dfs::new(inst, cap);
    // Restarts: the work limit doubles, starting from four times what setting up took.
    let mut limit = dfs.work.saturating_mul(2);
    loop {
        limit = limit.saturating_mul(2);
        for keys in PREORDERS {
            if dfs.work >= budget {
                return (Status::Unknown, dfs.work, None);
            }
            dfs.keys = keys;
            dfs.stop_at = dfs.work.saturating_add(limit).min(budget);
            let mut status = Outcome::Found;
            for part in dfs.initial_parts() {
                match dfs.solve_part(&part) {
                    Outcome::Found => {}
                    other => {
                        status = other;
                        break;
                    }
                }
            }
            match status {
                Outcome::Found => {
                    let offsets = inst.offsets(problem, &dfs.solution);
                    return (Status::Found, dfs.work, Some(offsets));
                }
                Outcome::NotFound => return (Status::Infeasible, dfs.work, None),
                Outcome::Aborted => {}
            }
        }
    }
}

/// The result of [`minimise`].
#[derive(Clone, Debug)]
pub(super) struct Minimised {
    pub(super) offsets: Vec<u64>,
    pub(super) arena: u64,
    pub(super) bound: u64,
    pub(super) steps: u64,
}

fn arena_of(problem: &Problem, offsets: &[u64]) -> u64 {
    problem
        .buffers()
        .iter()
        .zip(offsets)
        .map(|(b, &o)| o.saturating_add(problem.aligned_size(b.size)))
        .max()
        .unwrap_or(0)
}

/// Improves `incumbent` (offsets of a valid plan) within `budget` units of work; see the module
/// docs. `bound` is a proven lower bound in bytes (a multiple of the alignment). With a `goal`,
/// the search stops at the first plan whose arena is at most `goal` (and spends the whole budget
/// on deciding that capacity).
///
/// Every round of the loop spends at least one unit, lowers the arena or raises the capacity
/// still to try, so it ends within the budget. The bound is never clamped to the arena: a bound
/// above the arena would be a bug, and the tests look for one.
pub(super) fn minimise(
    problem: &Problem,
    incumbent: Vec<u64>,
    bound: u64,
    goal: Option<u64>,
    budget: u64,
) -> Minimised {
    let align = problem.alignment();
    let mut best = Minimised {
        arena: arena_of(problem, &incumbent),
        offsets: incumbent,
        bound,
        steps: 0,
    };
    let stop = goal.map_or(best.bound, |g| g.max(best.bound));
    // Nothing to gain, or (a capacity below the proven bound) nothing can fit.
    if best.arena <= stop || goal.is_some_and(|g| g < best.bound) {
        return best;
    }
    let searched = problem
        .buffers()
        .iter()
        .filter(|b| b.size > 0 && b.fixed_offset.is_none())
        .count();
    if searched > MAX_SEARCH_BUFFERS {
        return best;
    }
    let inst = Instance::new(problem);
    // A found plan counts only if it is within the capacity asked (always, unless a bug).
    let better = |best: &mut Minimised, offsets: Vec<u64>, capacity: u64| -> bool {
        let arena = arena_of(problem, &offsets);
        if arena > capacity {
            return false;
        }
        if arena < best.arena {
            best.arena = arena;
            best.offsets = offsets;
        }
        true
    };
    if let Some(goal) = goal.filter(|&g| g >= best.bound) {
        let capacity = goal - goal % align;
        let (status, steps, offsets) = decide(problem, &inst, capacity, budget);
        best.steps = steps;
        match (status, offsets) {
            (Status::Found, Some(offsets)) => {
                better(&mut best, offsets, capacity);
            }
            (Status::Infeasible, _) if inst.exact => {
                best.bound = best.bound.max(capacity + align);
            }
            _ => {}
        }
        return best;
    }
    // Decide the lower bound while that settles quickly, then bisect between the capacities
    // not yet tried and the incumbent.
    let mut floor = best.bound;
    let mut at_bound = true;
    while floor < best.arena && best.steps < budget {
        let remaining = budget - best.steps;
        let capacity = if at_bound {
            floor
        } else {
            let mid = floor + (best.arena - align - floor) / 2;
            mid - mid % align
        };
        // The lower bound is worth most of the budget: reaching it proves optimality.
        let slice = if at_bound {
            remaining - remaining / 4
        } else {
            remaining.div_ceil(2)
        };
        let (status, steps, offsets) = decide(problem, &inst, capacity, slice.max(1));
        best.steps = best.steps.saturating_add(steps.max(1));
        match (status, offsets) {
            (Status::Found, Some(offsets)) => {
                if !better(&mut best, offsets, capacity) {
                    at_bound = false;
                    floor = floor.max(capacity + align);
                }
            }
            (Status::Infeasible, _) => {
                // No plan fits `capacity`, so none fits anything smaller (of the plans the
                // search takes: of every plan when it is exact).
                if inst.exact {
                    best.bound = best.bound.max(capacity + align);
                }
                floor = floor.max(capacity + align);
            }
            _ => {
                at_bound = false;
                floor = floor.max(capacity + align);
            }
        }
    }
    best
}
