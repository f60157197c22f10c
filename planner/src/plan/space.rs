//! Occupied bytes over time, for the placement of the greedy planners (TFLite Micro's greedy and
//! the other heuristics): where does a buffer of `w` bytes live during `first..=last` fit?
//!
//! # The rule
//!
//! A placed buffer with bytes `o..e` (a zero-size one is the point `o..o`) *blocks* offset `x`
//! for a buffer of `w > 0` bytes whose lifetime overlaps its own when `x < e` and `o < x + w`.
//! First fit takes the lowest `x ≥ 0` no placed buffer blocks. That is exactly what TFLite
//! Micro's walk computes (buffers overlapping in time, in offset order; the candidate starts at
//! 0 and rises to the highest end seen until a buffer starts at least `w` above it): at the
//! walk's answer no buffer blocks (those before it end at or below it, those after start at
//! least `w` above), and every lower offset is blocked by the first buffer, in offset order,
//! that ends above it. A buffer of 0 bytes goes at 0 (the walk stops at once).
//!
//! # The structure
//!
//! A segment tree over the distinct times (ranks of every `first` and `last`). A placed buffer
//! is stored in the *own* set of each canonical node of its lifetime, and in the *sub* set of
//! each of those nodes and of every node on the paths from its first and last leaves to the
//! root: a node's sub set holds only buffers live during its range, and every buffer stored at
//! or below the node. The buffers live at some time of `first..=last` are then exactly those in
//! the sub sets of the canonical nodes of `first..=last` and the own sets of the nodes on the
//! paths from its two leaves: a buffer's canonical node either lies inside the range (so below a
//! canonical node of the range) or contains one of its ends.
//!
//! Each set keeps byte ranges merged where they overlap or touch: a run `a..b` blocks `x` for
//! `w > 0` bytes exactly when one of its members does (`x < b` and `a < x + w`). First fit
//! starts at 0 and, while some set has a run blocking the candidate, jumps to that run's end
//! (every offset below it is blocked by the same run). Costs: O(log² n) per placement and per
//! query, plus one step per run jumped over.

use std::collections::BTreeMap;

use super::Time;

/// Byte ranges merged where they overlap or touch, by start; consecutive runs are separated by
/// at least one byte. A zero-length run `p..p` is a point. A sorted vector while small (most sets
/// are, and most insertions extend the last run), a B-tree once it has [`LARGE`] runs, so that no
/// insertion costs more than O(log n).
#[derive(Debug)]
enum Runs {
    Small(Vec<(u64, u64)>),
    Large(BTreeMap<u64, u64>),
}

/// Runs at which a set becomes a B-tree.
const LARGE: usize = 64;

impl Default for Runs {
    fn default() -> Self {
        Self::Small(Vec::new())
    }
}

impl Runs {
    fn insert(&mut self, mut start: u64, mut end: u64) {
        match self {
            Self::Small(v) => {
                // Stacking on top of the last run (the usual case), or above it.
                if let Some(last) = v.last_mut()
                    && last.0 <= start
                {
                    if start <= last.1 {
                        last.1 = last.1.max(end);
                    } else {
                        v.push((start, end));
                    }
                    if v.len() >= LARGE {
                        *self = Self::Large(v.drain(..).collect());
                    }
                    return;
                }
                // The runs that touch `start..end` are the ones from `lo` to `hi` (exclusive).
                let hi = v.partition_point(|&(s, _)| s <= end);
                let mut lo = hi;
                while lo > 0 && v.get(lo - 1).is_some_and(|&(_, e)| e >= start) {
                    lo -= 1;
                }
                if lo + 1 == hi
                    && let Some(run) = v.get_mut(lo)
                {
                    // One run absorbs it (the usual case: stacking on top of it).
                    run.0 = run.0.min(start);
                    run.1 = run.1.max(end);
                    return;
                }
                if lo == hi {
                    v.insert(lo, (start, end));
                } else {
                    if let (Some(&(s, _)), Some(&(_, e))) = (v.get(lo), v.get(hi - 1)) {
                        start = start.min(s);
                        end = end.max(e);
                    }
                    if let Some(run) = v.get_mut(lo) {
                        *run = (start, end);
                    }
                    v.drain(lo + 1..hi);
                }
                if v.len() >= LARGE {
                    *self = Self::Large(v.drain(..).collect());
                }
            }
            Self::Large(m) => {
                while let Some((&s, e)) = m.range_mut(..=end).next_back() {
                    if *e < start {
                        break;
                    }
                    if s <= start {
                        // Its start stays: extend it in place.
                        *e = (*e).max(end);
                        return;
                    }
                    end = end.max(*e);
                    m.remove(&s);
                }
                m.insert(start, end);
            }
        }
    }

    /// The last run starting below `limit`.
    fn last_below(&self, limit: u64) -> Option<(u64, u64)> {
        match self {
            Self::Small(v) => {
                let k = v.partition_point(|&(s, _)| s < limit);
                k.checked_sub(1).and_then(|k| v.get(k)).copied()
            }
            Self::Large(m) => m.range(..limit).next_back().map(|(&s, &e)| (s, e)),
        }
    }

    /// The first run starting above `x`.
    fn first_above(&self, x: u64) -> Option<u64> {
        match self {
            Self::Small(v) => v.get(v.partition_point(|&(s, _)| s <= x)).map(|r| r.0),
            Self::Large(m) => m.range(x.saturating_add(1)..).next().map(|(&s, _)| s),
        }
    }

    /// The end of the run blocking `x` for `w > 0` bytes, if any: the last run starting below
    /// `x + w` has the highest end of all such runs.
    fn blocking(&self, x: u64, w: u64) -> Option<u64> {
        let (_, e) = self.last_below(x.saturating_add(w))?;
        (e > x).then_some(e)
    }

    /// The start of the lowest run that ends above `x`.
    fn next_start(&self, x: u64) -> Option<u64> {
        if let Some((s, e)) = self.last_below(x.saturating_add(1))
            && e > x
        {
            return Some(s);
        }
        self.first_above(x)
    }

    fn top(&self) -> u64 {
        match self {
            Self::Small(v) => v.last().map_or(0, |r| r.1),
            Self::Large(m) => m.last_key_value().map_or(0, |(_, &e)| e),
        }
    }
}

/// The most gaps best fit compares before it settles for the smallest seen (a bound on its
/// work; plans stay valid and deterministic).
pub(super) const MAX_BEST_FIT_GAPS: usize = 64;

/// Placed buffers by time; see the [module docs](self).
#[derive(Debug)]
pub(super) struct Space {
    times: Vec<Time>,
    leaves: usize,
    /// For each node, 1 + the index of its set in `sets`, or 0 while it has none.
    own: Vec<u32>,
    sub: Vec<u32>,
    /// Whether a node is a canonical node of some lifetime to come: only those sub sets are
    /// ever read.
    read: Vec<bool>,
    sets: Vec<Runs>,
    /// Scratch: the sets a query looks at.
    query: Vec<u32>,
    nodes: Vec<usize>,
}

impl Space {
    /// An empty space for buffers with these lifetimes (`(first, last)`), placed in any order.
    pub(super) fn new(lifetimes: &[(Time, Time)]) -> Self {
        let mut times: Vec<Time> = lifetimes.iter().flat_map(|&(f, l)| [f, l]).collect();
        times.sort_unstable();
        times.dedup();
        let leaves = times.len().max(1).next_power_of_two();
        let mut space = Self {
            times,
            leaves,
            own: vec![0; 2 * leaves],
            sub: vec![0; 2 * leaves],
            read: vec![false; 2 * leaves],
            sets: Vec::new(),
            query: Vec::new(),
            nodes: Vec::new(),
        };
        for &(f, l) in lifetimes {
            let (lo, hi) = (space.leaf(f), space.leaf(l));
            space.canonical(lo, hi);
            for &n in &space.nodes {
                if let Some(r) = space.read.get_mut(n) {
                    *r = true;
                }
            }
        }
        space
    }

    fn leaf(&self, t: Time) -> usize {
        self.leaves + self.times.partition_point(|&x| x < t)
    }

    /// The canonical nodes of leaves `lo..=hi` into `self.nodes`.
    fn canonical(&mut self, lo: usize, hi: usize) {
        self.nodes.clear();
        let (mut a, mut b) = (lo, hi + 1);
        while a < b {
            if a & 1 == 1 {
                self.nodes.push(a);
                a += 1;
            }
            if b & 1 == 1 {
                b -= 1;
                self.nodes.push(b);
            }
            a >>= 1;
            b >>= 1;
        }
    }

    fn set_of(index: &mut [u32], sets: &mut Vec<Runs>, node: usize) -> Option<usize> {
        let slot = index.get_mut(node)?;
        if *slot == 0 {
            sets.push(Runs::Small(Vec::with_capacity(4)));
            *slot = u32::try_from(sets.len()).ok()?;
        }
        Some(*slot as usize - 1)
    }

    fn add(&mut self, which_own: bool, node: usize, start: u64, end: u64) {
        if !which_own && !self.read.get(node).copied().unwrap_or(false) {
            return;
        }
        let index = if which_own {
            &mut self.own
        } else {
            &mut self.sub
        };
        if let Some(i) = Self::set_of(index, &mut self.sets, node)
            && let Some(set) = self.sets.get_mut(i)
        {
            set.insert(start, end);
        }
    }

    /// Records a buffer live during `first..=last` at bytes `start..end`.
    pub(super) fn insert(&mut self, first: Time, last: Time, start: u64, end: u64) {
        let (lo, hi) = (self.leaf(first), self.leaf(last));
        self.canonical(lo, hi);
        let nodes = std::mem::take(&mut self.nodes);
        for &n in &nodes {
            self.add(true, n, start, end);
            self.add(false, n, start, end);
        }
        self.nodes = nodes;
        let (mut a, mut b) = (lo, hi);
        while a >= 1 {
            self.add(false, a, start, end);
            if b != a {
                self.add(false, b, start, end);
            }
            a >>= 1;
            b >>= 1;
        }
    }

    /// Collects into `self.query` the sets holding every buffer live at some time of
    /// `first..=last` (and no other).
    fn gather(&mut self, first: Time, last: Time) {
        let (lo, hi) = (self.leaf(first), self.leaf(last));
        self.canonical(lo, hi);
        self.query.clear();
        for &n in &self.nodes {
            if let Some(&s) = self.sub.get(n)
                && s != 0
            {
                self.query.push(s - 1);
            }
        }
        let (mut a, mut b) = (lo, hi);
        while a >= 1 {
            for n in [a, b] {
                if let Some(&s) = self.own.get(n)
                    && s != 0
                {
                    self.query.push(s - 1);
                }
                if a == b {
                    break;
                }
            }
            a >>= 1;
            b >>= 1;
        }
    }

    /// The lowest offset at or above `from` where no gathered run blocks `w > 0` bytes.
    fn fit_from(&self, from: u64, w: u64) -> u64 {
        // Round robin: each set in turn moves `x` past its runs that block it; done when every
        // set in a row leaves it where it is. (A set may list twice: harmless.)
        let m = self.query.len();
        let mut x = from;
        let (mut free, mut k) = (0, 0);
        while free < m {
            let moved = self
                .query
                .get(k)
                .and_then(|&i| self.sets.get(i as usize))
                .is_some_and(|set| {
                    let mut moved = false;
                    while let Some(e) = set.blocking(x, w) {
                        x = e;
                        moved = true;
                    }
                    moved
                });
            free = if moved { 1 } else { free + 1 };
            k = if k + 1 == m { 0 } else { k + 1 };
        }
        x
    }

    /// First fit: the lowest offset where `w` bytes live during `first..=last` fit (0 for 0
    /// bytes).
    pub(super) fn first_fit(&mut self, first: Time, last: Time, w: u64) -> u64 {
        if w == 0 {
            return 0;
        }
        self.gather(first, last);
        self.fit_from(0, w)
    }

    /// Best fit: the lowest of the smallest gaps between placed buffers that holds `w` bytes
    /// (comparing at most [`MAX_BEST_FIT_GAPS`] gaps, lowest first), else the top of the buffers
    /// live meanwhile (0 for 0 bytes).
    pub(super) fn best_fit(&mut self, first: Time, last: Time, w: u64) -> u64 {
        if w == 0 {
            return 0;
        }
        self.gather(first, last);
        let top = self
            .query
            .iter()
            .filter_map(|&i| self.sets.get(i as usize))
            .map(Runs::top)
            .max()
            .unwrap_or(0);
        let mut best: Option<(u64, u64)> = None; // (gap, offset)
        let mut x = self.fit_from(0, w);
        let mut seen = 0;
        while x < top && seen < MAX_BEST_FIT_GAPS {
            let next = self
                .query
                .iter()
                .filter_map(|&i| self.sets.get(i as usize)?.next_start(x))
                .min()
                .unwrap_or(top);
            let gap = next.saturating_sub(x);
            if best.is_none_or(|(g, _)| gap < g) {
                best = Some((gap, x));
            }
            if gap == w {
                break;
            }
            seen += 1;
            x = self.fit_from(next, w);
        }
        best.map_or(top, |(_, o)| o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    /// TFLite Micro's walk over `placed` (offset, end, first, last), written as it is.
    fn walk(placed: &[(u64, u64, Time, Time)], first: Time, last: Time, w: u64) -> u64 {
        let mut sorted: Vec<_> = placed.to_vec();
        sorted.sort_by_key(|p| p.0);
        let mut candidate = 0u64;
        for &(o, e, f, l) in &sorted {
            if !(f <= last && first <= l) {
                continue;
            }
            if o >= candidate && o - candidate >= w {
                break;
            }
            candidate = candidate.max(e);
        }
        candidate
    }

    #[test]
    fn first_fit_is_the_walk_of_tflite_micro() {
        // A deterministic mix of sizes (zero included), lifetimes and overlapping placements.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..200 {
            let n = 1 + (next() % 40) as usize;
            let buffers: Vec<(u64, Time, Time)> = (0..n)
                .map(|_| {
                    let f = (next() % 12) as Time;
                    (next() % 5 * 8, f, f + (next() % 5) as Time)
                })
                .collect();
            let lifetimes: Vec<(Time, Time)> = buffers.iter().map(|b| (b.1, b.2)).collect();
            let mut space = Space::new(&lifetimes);
            let mut placed = Vec::new();
            for (k, &(w, f, l)) in buffers.iter().enumerate() {
                let expected = walk(&placed, f, l, w);
                // Some buffers go elsewhere (as fixed ones do, overlapping others).
                let offset = if k % 7 == 3 {
                    next() % 6 * 8
                } else {
                    let got = space.first_fit(f, l, w);
                    assert_eq!(got, expected, "round {round}, buffer {k}");
                    got
                };
                space.insert(f, l, offset, offset + w);
                placed.push((offset, offset + w, f, l));
            }
        }
    }

    #[test]
    fn best_fit_takes_the_smallest_gap_then_the_top() {
        let mut space = Space::new(&[(0, 2), (1, 1)]);
        for (o, e) in [(0, 30), (50, 60), (70, 80)] {
            space.insert(0, 2, o, e);
        }
        // Gaps 30..50 (20) and 60..70 (10).
        assert_eq!(space.best_fit(1, 1, 10), 60);
        assert_eq!(space.best_fit(1, 1, 11), 30);
        assert_eq!(space.best_fit(1, 1, 21), 80);
        assert_eq!(space.first_fit(1, 1, 10), 30);
    }
}
