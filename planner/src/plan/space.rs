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
//! query, plus one step per run jumped over. Each buffer's first and last leaf are computed
//! once, and sets of one or two runs (most of them) are kept inline.
//!
//! # The walk
//!
//! When lifetimes are short (chains, DAGs of bounded width), a plainer structure is faster: the
//! buffers by the rank of their first time. A query scans those that start at most the longest
//! lifetime before it and no later than it ends, keeps the placed ones whose lifetime overlaps
//! its own, and merges their byte ranges into runs; first and best fit then read that union,
//! which is the union of the tree's sets, so both give the same offsets (the tests compare them
//! with each other and with TFLite Micro's walk). [`Space::new`] counts the buffers the walk
//! would scan, O(n) with prefix sums, and takes it when that stays within
//! [`WALK_SCAN_PER_BUFFER`] per buffer: O(n) scans in all, plus sorting each query's runs.
//! Otherwise (a buffer live for most of the model) the tree. And when one time lies in every
//! lifetime (wide fan-outs, tensors no op touches), every buffer overlaps every other: one set
//! of runs holds them all, O(log n) per placement.

use std::collections::BTreeMap;

use super::Time;

/// Byte ranges merged where they overlap or touch, by start; consecutive runs are separated by
/// at least one byte. A zero-length run `p..p` is a point. Up to [`INLINE`] runs are kept inline
/// (most sets hold one or two: no allocation, one cache line), then a sorted vector while small
/// (most insertions extend the last run), a B-tree once it has [`LARGE`] runs, so that no
/// insertion costs more than O(log n).
#[derive(Debug)]
enum Runs {
    Inline(u8, [(u64, u64); INLINE]),
    Small(Vec<(u64, u64)>),
    Large(BTreeMap<u64, u64>),
}

/// Runs a set keeps without allocating.
const INLINE: usize = 2;

/// Runs at which a set becomes a B-tree.
const LARGE: usize = 64;

/// `runs` (sorted, merged) with `start..end` added, merged: at most `INLINE + 1` runs.
fn merge_into(runs: &[(u64, u64)], start: u64, end: u64) -> ([(u64, u64); INLINE + 1], usize) {
    let mut out = [(0, 0); INLINE + 1];
    let mut n = 0;
    let mut new = Some((start, end));
    let push = |run: (u64, u64), out: &mut [(u64, u64); INLINE + 1], n: &mut usize| {
        if let Some(last) = n.checked_sub(1).and_then(|k| out.get_mut(k))
            && run.0 <= last.1
        {
            last.1 = last.1.max(run.1);
            return;
        }
        if let Some(slot) = out.get_mut(*n) {
            *slot = run;
            *n += 1;
        }
    };
    for &run in runs {
        if let Some(r) = new
            && r.0 < run.0
        {
            push(r, &mut out, &mut n);
            new = None;
        }
        push(run, &mut out, &mut n);
    }
    if let Some(r) = new {
        push(r, &mut out, &mut n);
    }
    (out, n)
}

impl Default for Runs {
    fn default() -> Self {
        Self::Inline(0, [(0, 0); INLINE])
    }
}

impl Runs {
    /// The runs in order, unless the set is a B-tree.
    fn slice(&self) -> Option<&[(u64, u64)]> {
        match self {
            Self::Inline(n, a) => a.get(..usize::from(*n)),
            Self::Small(v) => Some(v),
            Self::Large(_) => None,
        }
    }

    fn insert(&mut self, mut start: u64, mut end: u64) {
        match self {
            Self::Inline(n, a) => {
                let (merged, len) = merge_into(a.get(..usize::from(*n)).unwrap_or(&[]), start, end);
                if len <= INLINE {
                    let mut inline = [(0, 0); INLINE];
                    for (slot, &run) in inline.iter_mut().zip(&merged) {
                        *slot = run;
                    }
                    *self = Self::Inline(len as u8, inline);
                } else {
                    let mut v = Vec::with_capacity(2 * INLINE + 2);
                    v.extend(merged.iter().take(len));
                    *self = Self::Small(v);
                }
            }
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
        match self.slice() {
            Some(v) => {
                let k = v.partition_point(|&(s, _)| s < limit);
                k.checked_sub(1).and_then(|k| v.get(k)).copied()
            }
            None => match self {
                Self::Large(m) => m.range(..limit).next_back().map(|(&s, &e)| (s, e)),
                _ => None,
            },
        }
    }

    /// The first run starting above `x`.
    fn first_above(&self, x: u64) -> Option<u64> {
        match self.slice() {
            Some(v) => v.get(v.partition_point(|&(s, _)| s <= x)).map(|r| r.0),
            None => match self {
                Self::Large(m) => m.range(x.saturating_add(1)..).next().map(|(&s, _)| s),
                _ => None,
            },
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
        match self.slice() {
            Some(v) => v.last().map_or(0, |r| r.1),
            None => match self {
                Self::Large(m) => m.last_key_value().map_or(0, |(_, &e)| e),
                _ => 0,
            },
        }
    }
}

/// The most gaps best fit compares before it settles for the smallest seen (a bound on its
/// work; plans stay valid and deterministic).
pub(super) const MAX_BEST_FIT_GAPS: usize = 64;

/// Placed buffers by time; see the [module docs](self).
#[derive(Debug)]
pub(super) struct Tree {
    /// The first and last leaf of each buffer's lifetime (computed once: no search per query).
    leaves_of: Vec<(u32, u32)>,
    /// For each node: 1 + the index of its own set in `sets` (0 while it has none), and its
    /// sub set: 0 when the node is the canonical node of no lifetime (its sub set is never
    /// read, so never kept), 1 while empty, else 2 + the index of the set.
    node: Vec<(u32, u32)>,
    sets: Vec<Runs>,
    /// Scratch: the sets a query looks at.
    query: Vec<u32>,
    nodes: Vec<usize>,
    /// Units of work so far: sets updated and set lookups of the fits.
    work: u64,
}

/// A sub set never read.
const UNREAD: u32 = 0;
/// A sub set read but still empty.
const EMPTY: u32 = 1;

impl Tree {
    /// An empty tree for buffers whose lifetimes are these ranks of distinct times (`times` of
    /// them), placed in any order.
    fn new(ranks: &[(u32, u32)], times: usize) -> Self {
        let leaves = times.max(1).next_power_of_two();
        let leaf = |r: u32| u32::try_from(leaves).unwrap_or(u32::MAX).saturating_add(r);
        let leaves_of: Vec<(u32, u32)> = ranks.iter().map(|&(f, l)| (leaf(f), leaf(l))).collect();
        let mut space = Self {
            leaves_of,
            node: vec![(0, UNREAD); 2 * leaves],
            sets: Vec::with_capacity(2 * ranks.len()),
            query: Vec::new(),
            nodes: Vec::new(),
            work: 0,
        };
        for k in 0..space.leaves_of.len() {
            let (lo, hi) = space.leaves_of.get(k).copied().unwrap_or_default();
            space.canonical(lo as usize, hi as usize);
            for &n in &space.nodes {
                if let Some(node) = space.node.get_mut(n) {
                    node.1 = EMPTY;
                }
            }
        }
        space
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

    /// Adds `start..end` to the own set (`own`) or the sub set of `node`.
    fn add(&mut self, own: bool, node: usize, start: u64, end: u64) {
        self.work += 1;
        let Some(slot) = self.node.get_mut(node) else {
            return;
        };
        let (slot, base) = if own {
            (&mut slot.0, 1)
        } else {
            if slot.1 == UNREAD {
                return;
            }
            (&mut slot.1, 2)
        };
        if *slot < base {
            self.sets.push(Runs::default());
            let Some(index) = u32::try_from(self.sets.len() - 1)
                .ok()
                .and_then(|i| i.checked_add(base))
            else {
                return;
            };
            *slot = index;
        }
        if let Some(set) = self.sets.get_mut((*slot - base) as usize) {
            set.insert(start, end);
        }
    }

    /// Records buffer `buffer` at bytes `start..end`.
    fn insert(&mut self, buffer: usize, start: u64, end: u64) {
        let Some(&(lo, hi)) = self.leaves_of.get(buffer) else {
            return;
        };
        let (lo, hi) = (lo as usize, hi as usize);
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
    /// `buffer`'s lifetime (and no other).
    fn gather(&mut self, buffer: usize) {
        let Some(&(lo, hi)) = self.leaves_of.get(buffer) else {
            self.query.clear();
            return;
        };
        let (lo, hi) = (lo as usize, hi as usize);
        self.canonical(lo, hi);
        self.query.clear();
        for &n in &self.nodes {
            if let Some(&(_, s)) = self.node.get(n)
                && s > EMPTY
            {
                self.query.push(s - 2);
            }
        }
        let (mut a, mut b) = (lo, hi);
        while a >= 1 {
            for n in [a, b] {
                if let Some(&(s, _)) = self.node.get(n)
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
    fn fit_from(&mut self, from: u64, w: u64) -> u64 {
        // Round robin: each set in turn moves `x` past its runs that block it; done when every
        // set in a row leaves it where it is. (A set may list twice: harmless.)
        let m = self.query.len();
        let mut x = from;
        let (mut free, mut k) = (0, 0);
        let mut work = 0;
        while free < m {
            work += 1;
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
        self.work += work + 1;
        x
    }

    /// First fit: the lowest offset at or above `from` where `w` bytes live during `buffer`'s
    /// lifetime fit (`from` for 0 bytes).
    fn first_fit(&mut self, buffer: usize, w: u64, from: u64) -> u64 {
        if w == 0 {
            return from;
        }
        self.gather(buffer);
        self.fit_from(from, w)
    }

    /// Best fit: the lowest of the smallest gaps between placed buffers that holds `w` bytes
    /// (comparing at most [`MAX_BEST_FIT_GAPS`] gaps, lowest first), else the top of the buffers
    /// live meanwhile (0 for 0 bytes).
    fn best_fit(&mut self, buffer: usize, w: u64) -> u64 {
        if w == 0 {
            return 0;
        }
        self.gather(buffer);
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

/// Placed buffers by the rank of their first time, for problems whose lifetimes are short: a
/// query scans the buffers that start at most the longest lifetime before it and no later than
/// it ends, keeps those placed whose lifetime overlaps its own, and merges their byte ranges (the
/// same union of runs the tree's sets describe, so every fit is the same). Chosen by
/// [`Space::new`] when the buffers scanned, summed over all queries, stay within
/// [`WALK_SCAN_PER_BUFFER`] per buffer.
#[derive(Debug)]
struct Walk {
    ranks: Vec<(u32, u32)>,
    /// Where the buffers of each first rank start in `slots` (one more entry than ranks).
    bucket: Vec<u32>,
    /// The position of each buffer in `slots`.
    slot_of: Vec<u32>,
    /// By first rank: (last rank, placed, start, end).
    slots: Vec<(u32, bool, u64, u64)>,
    /// A buffer inserted a second time (never by the planners): kept here, always scanned.
    again: Vec<(u32, u32, u64, u64)>,
    /// The longest lifetime, in ranks.
    span: u32,
    /// Scratch: the merged runs of a query.
    union: Vec<(u64, u64)>,
    work: u64,
}

/// The most buffers [`Walk`] may scan per buffer placed, on average over the problem.
const WALK_SCAN_PER_BUFFER: u64 = 256;

impl Walk {
    /// The walk for these ranks, or `None` when its scans would exceed `limit` per buffer.
    fn new(ranks: &[(u32, u32)], times: usize, limit: u64) -> Option<Self> {
        let span = ranks.iter().map(|&(f, l)| l - f).max().unwrap_or(0);
        let mut bucket = vec![0u32; times + 1];
        for &(f, _) in ranks {
            let slot = bucket.get_mut(f as usize + 1)?;
            *slot += 1;
        }
        for r in 1..bucket.len() {
            let previous = bucket.get(r - 1).copied().unwrap_or(0);
            let slot = bucket.get_mut(r)?;
            *slot += previous;
        }
        let range = |f: u32, l: u32| -> Option<(u32, u32)> {
            Some((
                *bucket.get(f.saturating_sub(span) as usize)?,
                *bucket.get(l as usize + 1)?,
            ))
        };
        let mut scans: u64 = 0;
        for &(f, l) in ranks {
            let (lo, hi) = range(f, l)?;
            scans += u64::from(hi - lo);
        }
        if scans > limit.saturating_mul(ranks.len() as u64) {
            return None;
        }
        let mut next = bucket.clone();
        let mut slot_of = vec![0u32; ranks.len()];
        let mut slots = vec![(0, false, 0, 0); ranks.len()];
        for (id, &(f, l)) in ranks.iter().enumerate() {
            let at = next.get_mut(f as usize)?;
            *slots.get_mut(*at as usize)? = (l, false, 0, 0);
            *slot_of.get_mut(id)? = *at;
            *at += 1;
        }
        Some(Self {
            ranks: ranks.to_vec(),
            bucket,
            slot_of,
            slots,
            again: Vec::new(),
            span,
            union: Vec::new(),
            work: 0,
        })
    }

    fn insert(&mut self, buffer: usize, start: u64, end: u64) {
        let Some(&slot) = self.slot_of.get(buffer) else {
            return;
        };
        if let Some(entry) = self.slots.get_mut(slot as usize) {
            if entry.1 {
                if let Some(&(f, l)) = self.ranks.get(buffer) {
                    self.again.push((f, l, start, end));
                }
            } else {
                *entry = (entry.0, true, start, end);
            }
        }
    }

    /// Merges into `self.union` the byte ranges of the placed buffers whose lifetimes overlap
    /// `buffer`'s.
    fn gather(&mut self, buffer: usize) {
        self.union.clear();
        let Some(&(f, l)) = self.ranks.get(buffer) else {
            return;
        };
        let lo = self
            .bucket
            .get(f.saturating_sub(self.span) as usize)
            .copied()
            .unwrap_or(0);
        let hi = self.bucket.get(l as usize + 1).copied().unwrap_or(lo);
        let slots = self.slots.get(lo as usize..hi as usize).unwrap_or(&[]);
        self.work += slots.len() as u64 + self.again.len() as u64 + 1;
        for &(last, placed, start, end) in slots {
            if placed && last >= f {
                self.union.push((start, end));
            }
        }
        for &(af, al, start, end) in &self.again {
            if af <= l && f <= al {
                self.union.push((start, end));
            }
        }
        self.union.sort_unstable();
        // Merge where runs overlap or touch, as the tree's sets do.
        let mut merged: usize = 0;
        for k in 0..self.union.len() {
            let Some(&run) = self.union.get(k) else { break };
            if let Some(last) = merged.checked_sub(1).and_then(|m| self.union.get_mut(m))
                && run.0 <= last.1
            {
                last.1 = last.1.max(run.1);
                continue;
            }
            if let Some(slot) = self.union.get_mut(merged) {
                *slot = run;
            }
            merged += 1;
        }
        self.union.truncate(merged);
    }

    /// The lowest offset at or above `from` where no run of the union blocks `w > 0` bytes.
    fn fit_from(&self, from: u64, w: u64) -> u64 {
        let mut x = from;
        let first = self.union.partition_point(|&(_, e)| e <= from);
        for &(a, b) in self.union.get(first..).unwrap_or(&[]) {
            if b <= x {
                continue;
            }
            if a < x.saturating_add(w) {
                x = b;
            } else {
                break;
            }
        }
        x
    }

    fn first_fit(&mut self, buffer: usize, w: u64, from: u64) -> u64 {
        if w == 0 {
            return from;
        }
        self.gather(buffer);
        self.fit_from(from, w)
    }

    fn best_fit(&mut self, buffer: usize, w: u64) -> u64 {
        if w == 0 {
            return 0;
        }
        self.gather(buffer);
        let top = self.union.last().map_or(0, |r| r.1);
        let mut best: Option<(u64, u64)> = None; // (gap, offset)
        let mut x = self.fit_from(0, w);
        let mut seen = 0;
        while x < top && seen < MAX_BEST_FIT_GAPS {
            // The start of the lowest run ending above x.
            let k = self.union.partition_point(|&(_, e)| e <= x);
            let next = self.union.get(k).map_or(top, |r| r.0);
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

/// The ranks of the distinct times of `lifetimes` (`(first, last)` each), and how many distinct
/// times there are.
fn ranks(lifetimes: &[(Time, Time)]) -> (Vec<(u32, u32)>, usize) {
    let mut ends: Vec<(Time, u32)> = Vec::with_capacity(2 * lifetimes.len());
    for (i, &(f, l)) in lifetimes.iter().enumerate() {
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        ends.push((f, 2 * i));
        ends.push((l, 2 * i + 1));
    }
    ends.sort_unstable();
    let mut ranks = vec![(0u32, 0u32); lifetimes.len()];
    let mut rank: u32 = 0;
    let mut previous: Option<Time> = None;
    for &(t, end) in &ends {
        if previous.is_some_and(|p| p != t) {
            rank += 1;
        }
        previous = Some(t);
        if let Some(r) = ranks.get_mut((end / 2) as usize) {
            if end % 2 == 0 {
                r.0 = rank;
            } else {
                r.1 = rank;
            }
        }
    }
    let times = if lifetimes.is_empty() {
        0
    } else {
        rank as usize + 1
    };
    (ranks, times)
}

/// Placed buffers by time, for the greedy planners; see the [module docs](self). The buffers are
/// named by their index in the lifetimes given to [`Space::new`].
#[derive(Debug)]
pub(super) struct Space(Kind);

#[derive(Debug)]
enum Kind {
    Tree(Tree),
    Walk(Walk),
    /// Every lifetime holds one same time: every buffer overlaps every other, so one set of runs
    /// holds them all (and the work done).
    Clique(Runs, u64),
}

/// First fit in one set of runs, from `from`; and the lookups it made.
fn fit_in(set: &Runs, from: u64, w: u64) -> (u64, u64) {
    let mut x = from;
    let mut work = 1;
    while let Some(e) = set.blocking(x, w) {
        x = e;
        work += 1;
    }
    (x, work)
}

/// Best fit in one set of runs, as [`Space::best_fit`]; and the lookups it made.
fn best_fit_in(set: &Runs, w: u64) -> (u64, u64) {
    let top = set.top();
    let mut best: Option<(u64, u64)> = None; // (gap, offset)
    let (mut x, mut work) = fit_in(set, 0, w);
    let mut seen = 0;
    while x < top && seen < MAX_BEST_FIT_GAPS {
        let next = set.next_start(x).unwrap_or(top);
        let gap = next.saturating_sub(x);
        if best.is_none_or(|(g, _)| gap < g) {
            best = Some((gap, x));
        }
        if gap == w {
            break;
        }
        seen += 1;
        let (fit, more) = fit_in(set, next, w);
        x = fit;
        work += more;
    }
    (best.map_or(top, |(_, o)| o), work)
}

impl Space {
    /// An empty space for buffers with these lifetimes (`(first, last)`), placed in any order:
    /// one set of runs when some time lies in every lifetime (all buffers overlap: wide fan-outs,
    /// tensors no op touches), else the walk when it scans at most [`WALK_SCAN_PER_BUFFER`]
    /// buffers per buffer, else the tree. All give the same fits.
    pub(super) fn new(lifetimes: &[(Time, Time)]) -> Self {
        let latest_first = lifetimes.iter().map(|l| l.0).max();
        let earliest_last = lifetimes.iter().map(|l| l.1).min();
        if latest_first <= earliest_last {
            return Self(Kind::Clique(Runs::default(), 0));
        }
        let (ranks, times) = ranks(lifetimes);
        match Walk::new(&ranks, times, WALK_SCAN_PER_BUFFER) {
            Some(walk) => Self(Kind::Walk(walk)),
            None => Self(Kind::Tree(Tree::new(&ranks, times))),
        }
    }

    /// The tree, whatever the lifetimes.
    #[cfg(test)]
    fn tree(lifetimes: &[(Time, Time)]) -> Self {
        let (ranks, times) = ranks(lifetimes);
        Self(Kind::Tree(Tree::new(&ranks, times)))
    }

    /// The walk, whatever the lifetimes.
    #[cfg(test)]
    fn walk(lifetimes: &[(Time, Time)]) -> Self {
        let (ranks, times) = ranks(lifetimes);
        match Walk::new(&ranks, times, u64::MAX) {
            Some(walk) => Self(Kind::Walk(walk)),
            None => unreachable!("no limit"),
        }
    }

    /// Records `buffer` at bytes `start..end`.
    pub(super) fn insert(&mut self, buffer: usize, start: u64, end: u64) {
        match &mut self.0 {
            Kind::Tree(t) => t.insert(buffer, start, end),
            Kind::Walk(w) => w.insert(buffer, start, end),
            Kind::Clique(set, work) => {
                *work += 1;
                set.insert(start, end);
            }
        }
    }

    /// First fit: the lowest offset where `w` bytes live during `buffer`'s lifetime fit (0 for
    /// 0 bytes).
    pub(super) fn first_fit(&mut self, buffer: usize, w: u64) -> u64 {
        self.first_fit_from(buffer, w, 0)
    }

    /// First fit at or above `from` (`from` for 0 bytes).
    pub(super) fn first_fit_from(&mut self, buffer: usize, w: u64, from: u64) -> u64 {
        match &mut self.0 {
            Kind::Tree(t) => t.first_fit(buffer, w, from),
            Kind::Walk(k) => k.first_fit(buffer, w, from),
            Kind::Clique(_, _) if w == 0 => from,
            Kind::Clique(set, work) => {
                let (x, more) = fit_in(set, from, w);
                *work += more;
                x
            }
        }
    }

    /// First fit that also avoids each open interval of offsets in `avoid` (the offsets placed
    /// partners forbid, see module `overlap`): from the plain first fit, past every interval it
    /// lands in. Each interval is passed at most once, so this ends after `avoid.len() + 1`
    /// fits. A buffer of 0 bytes goes at 0.
    pub(super) fn first_fit_avoiding(
        &mut self,
        buffer: usize,
        w: u64,
        avoid: &[(i128, i128)],
    ) -> u64 {
        if w == 0 {
            return 0;
        }
        let mut x = self.first_fit_from(buffer, w, 0);
        loop {
            let here = i128::from(x);
            let past = avoid
                .iter()
                .filter(|&&(lo, hi)| lo < here && here < hi)
                .map(|&(_, hi)| hi)
                .max();
            match past.and_then(|hi| u64::try_from(hi).ok()) {
                Some(hi) => x = self.first_fit_from(buffer, w, hi),
                None => return x,
            }
        }
    }

    /// Best fit: the lowest of the smallest gaps between placed buffers that holds `w` bytes
    /// (comparing at most [`MAX_BEST_FIT_GAPS`] gaps, lowest first), else the top of the buffers
    /// live meanwhile (0 for 0 bytes).
    pub(super) fn best_fit(&mut self, buffer: usize, w: u64) -> u64 {
        match &mut self.0 {
            Kind::Tree(t) => t.best_fit(buffer, w),
            Kind::Walk(k) => k.best_fit(buffer, w),
            Kind::Clique(_, _) if w == 0 => 0,
            Kind::Clique(set, work) => {
                let (x, more) = best_fit_in(set, w);
                *work += more;
                x
            }
        }
    }

    /// Units of work done so far (sets updated and looked up, or buffers scanned): what `auto`
    /// budgets, and what the tests bound to catch a placement whose cost grows faster than the
    /// buffers.
    pub(super) fn work(&self) -> u64 {
        match &self.0 {
            Kind::Tree(t) => t.work,
            Kind::Walk(w) => w.work,
            Kind::Clique(_, work) => *work,
        }
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
            let mut spaces = [Space::tree(&lifetimes), Space::walk(&lifetimes)];
            let mut placed = Vec::new();
            for (k, &(w, f, l)) in buffers.iter().enumerate() {
                let expected = walk(&placed, f, l, w);
                // Some buffers go elsewhere (as fixed ones do, overlapping others).
                let offset = if k % 7 == 3 { next() % 6 * 8 } else { expected };
                for (which, space) in spaces.iter_mut().enumerate() {
                    if k % 7 != 3 {
                        let got = space.first_fit(k, w);
                        assert_eq!(got, expected, "round {round}, buffer {k}, space {which}");
                    }
                    space.insert(k, offset, offset + w);
                }
                placed.push((offset, offset + w, f, l));
            }
        }
    }

    #[test]
    fn best_fit_takes_the_smallest_gap_then_the_top() {
        for mut space in [
            Space::tree(&[(0, 2), (1, 1)]),
            Space::walk(&[(0, 2), (1, 1)]),
        ] {
            for (o, e) in [(0, 30), (50, 60), (70, 80)] {
                space.insert(0, o, e);
            }
            // Gaps 30..50 (20) and 60..70 (10).
            assert_eq!(space.best_fit(1, 10), 60);
            assert_eq!(space.best_fit(1, 11), 30);
            assert_eq!(space.best_fit(1, 21), 80);
            assert_eq!(space.first_fit(1, 10), 30);
        }
    }

    /// Best fit by brute force: every gap between the merged byte ranges of the placed buffers
    /// overlapping in time, lowest first, as [`Space::best_fit`] documents it.
    fn best_fit_reference(
        placed: &[(u64, u64, Time, Time)],
        first: Time,
        last: Time,
        w: u64,
    ) -> u64 {
        if w == 0 {
            return 0;
        }
        let mut runs: Vec<(u64, u64)> = placed
            .iter()
            .filter(|p| p.2 <= last && first <= p.3)
            .map(|p| (p.0, p.1))
            .collect();
        runs.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for r in runs {
            match merged.last_mut() {
                Some(m) if r.0 <= m.1 => m.1 = m.1.max(r.1),
                _ => merged.push(r),
            }
        }
        let top = merged.last().map_or(0, |r| r.1);
        let blocked = |x: u64| merged.iter().find(|r| x < r.1 && r.0 < x + w).map(|r| r.1);
        let fit = |mut x: u64| {
            while let Some(e) = blocked(x) {
                x = e;
            }
            x
        };
        let mut best: Option<(u64, u64)> = None;
        let mut x = fit(0);
        let mut seen = 0;
        while x < top && seen < MAX_BEST_FIT_GAPS {
            let next = merged.iter().find(|r| r.1 > x).map_or(top, |r| r.0);
            let gap = next - x;
            if best.is_none_or(|(g, _)| gap < g) {
                best = Some((gap, x));
            }
            if gap == w {
                break;
            }
            seen += 1;
            x = fit(next);
        }
        best.map_or(top, |(_, o)| o)
    }

    #[test]
    fn best_fit_of_the_tree_and_the_walk_is_the_reference() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..200 {
            let n = 1 + (next() % 60) as usize;
            let buffers: Vec<(u64, Time, Time)> = (0..n)
                .map(|_| {
                    let f = (next() % 16) as Time;
                    (next() % 6 * 8, f, f + (next() % 6) as Time)
                })
                .collect();
            let lifetimes: Vec<(Time, Time)> = buffers.iter().map(|b| (b.1, b.2)).collect();
            let mut spaces = [Space::tree(&lifetimes), Space::walk(&lifetimes)];
            let mut placed = Vec::new();
            for (k, &(w, f, l)) in buffers.iter().enumerate() {
                let expected = best_fit_reference(&placed, f, l, w);
                let offset = if k % 5 == 2 { next() % 8 * 8 } else { expected };
                for (which, space) in spaces.iter_mut().enumerate() {
                    if k % 5 != 2 {
                        let got = space.best_fit(k, w);
                        assert_eq!(got, expected, "round {round}, buffer {k}, space {which}");
                    }
                    space.insert(k, offset, offset + w);
                }
                placed.push((offset, offset + w, f, l));
            }
        }
    }

    #[test]
    fn one_set_when_all_overlap_fits_as_the_tree_and_the_reference() {
        let mut x = 0x1234_5678_9abc_def1u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..200 {
            let n = 1 + (next() % 50) as usize;
            // Every lifetime holds time 10.
            let buffers: Vec<(u64, Time, Time)> = (0..n)
                .map(|_| {
                    let f = 10 - (next() % 6) as Time;
                    (next() % 6 * 8, f, 10 + (next() % 6) as Time)
                })
                .collect();
            let lifetimes: Vec<(Time, Time)> = buffers.iter().map(|b| (b.1, b.2)).collect();
            let best = round % 2 == 1;
            let mut spaces = [Space::new(&lifetimes), Space::tree(&lifetimes)];
            assert!(matches!(spaces[0].0, Kind::Clique(..)));
            let mut placed = Vec::new();
            for (k, &(w, f, l)) in buffers.iter().enumerate() {
                let expected = if best {
                    best_fit_reference(&placed, f, l, w)
                } else {
                    walk(&placed, f, l, w)
                };
                let offset = if k % 6 == 1 { next() % 8 * 8 } else { expected };
                for (which, space) in spaces.iter_mut().enumerate() {
                    if k % 6 != 1 {
                        let got = if best {
                            space.best_fit(k, w)
                        } else {
                            space.first_fit(k, w)
                        };
                        assert_eq!(got, expected, "round {round}, buffer {k}, space {which}");
                    }
                    space.insert(k, offset, offset + w);
                }
                placed.push((offset, offset + w, f, l));
            }
        }
    }

    /// Lifetimes of the model families of the scaling benchmark, `n` buffers: a chain, a fan-out
    /// (all live to the end), all live together, a random DAG of width 64, and that DAG with one
    /// buffer live throughout.
    fn family(which: usize, n: usize) -> Vec<(u64, Time, Time)> {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let end = n as Time;
        (0..n)
            .map(|k| {
                let size = 16 * (1 + next() % 64);
                let k = k as Time;
                match which {
                    0 => (size, k, k + 1),
                    1 => (size, k, end),
                    2 => (size, 0, end),
                    // The DAG again, with one buffer live throughout: the tree's case.
                    4 if k == 0 => (size, 0, end),
                    _ => (size, k, k + 1 + (next() % 64) as Time),
                }
            })
            .collect()
    }

    /// The work of greedy's placement (largest first, first fit) of `buffers`.
    fn greedy_work(buffers: &[(u64, Time, Time)], best: bool) -> u64 {
        let lifetimes: Vec<(Time, Time)> = buffers.iter().map(|b| (b.1, b.2)).collect();
        let mut order: Vec<usize> = (0..buffers.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(buffers[i].0), std::cmp::Reverse(i)));
        let mut space = Space::new(&lifetimes);
        for i in order {
            let w = buffers[i].0;
            let o = if best {
                space.best_fit(i, w)
            } else {
                space.first_fit(i, w)
            };
            space.insert(i, o, o + w);
        }
        space.work()
    }

    #[test]
    fn placement_work_grows_near_linearly() {
        // Eight times the buffers may cost at most twelve times the work (n log n gives about
        // 8 x 1.2 here; the walks this replaced, quadratic, gave 64).
        for which in 0..5 {
            let lifetimes: Vec<(Time, Time)> =
                family(which, 2_000).iter().map(|b| (b.1, b.2)).collect();
            let kind = match Space::new(&lifetimes).0 {
                Kind::Walk(_) => "walk",
                Kind::Clique(..) => "one set",
                Kind::Tree(_) => "tree",
            };
            assert_eq!(kind, ["walk", "one set", "one set", "walk", "tree"][which]);
            for best in [false, true] {
                let small = greedy_work(&family(which, 2_000), best);
                let large = greedy_work(&family(which, 16_000), best);
                assert!(
                    large <= 12 * small,
                    "family {which}, best fit {best}: {small} then {large}"
                );
                assert!(large >= 8_000, "family {which}: {large} units counted");
            }
        }
    }
}
