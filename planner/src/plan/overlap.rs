//! Buffers that may share bytes: an op's output written over an input it has finished reading.
//!
//! # The rule
//!
//! An [`Overlap`] lets an `output` buffer and an `input` buffer share bytes although both are
//! live at the time `t` where the input's lifetime ends and the output's begins (the op that
//! reads the one and writes the other). With `d = offset(input) − offset(output)`, the pair is
//! valid when their aligned byte ranges are disjoint, or when `d ≥ D`, where `D` is the pair's
//! [`Overlap::min_displacement`] rounded up to a multiple of the alignment: the kernel, in its own
//! order, never writes a byte of the output over a byte of the input it has still to read when
//! the input starts at least `D` bytes above the output's start (`D` may be negative: the input
//! may then start below the output). Moving the input higher only helps a kernel that reads and
//! writes in increasing order, so one number describes the whole set. Zero-sized buffers share no
//! byte with anything: their pairs are moot.
//!
//! # What a problem may declare
//!
//! [`Problem::with_overlaps`] checks that each pair names two distinct buffers without a fixed
//! offset, that the input's lifetime ends exactly where the output's begins, that no pair is
//! listed twice, and that at each time the pairs are *complete*: every input of a pair at `t`
//! is paired with every output of a pair at `t` (one op per time: an output overlapping each of
//! its dying inputs, as a concatenation does, or an input overlapped by each of its outputs, as a
//! split does). Times stay below 2^31.
//!
//! # How planners use it
//!
//! Every time `t` is split in two: a buffer is live during `2t` and `2t + 1`, except that a pair's
//! input ends at `2t` and a pair's output starts at `2t + 1`. Two buffers of a pair then no
//! longer meet in time, while every other two buffers that met still do (completeness: an input
//! ending at `2t` and an output starting at `2t + 1` are a declared pair). The placement works on
//! the split lifetimes and keeps each pair's rule as an interval of offsets the partner already
//! placed forbids. The lower bound ([`super::proven_bound`]) counts each time's pairs at their
//! smallest span.

use super::space::Space;
use super::{Problem, ProblemError, Time};

/// Permission for `output` to share bytes with `input`, at displacements of at least
/// `min_displacement`; see the [module docs](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Overlap {
    /// The buffer written: its lifetime begins where the input's ends.
    pub output: usize,
    /// The buffer read for the last time.
    pub input: usize,
    /// The smallest `offset(input) − offset(output)`, in bytes, at which the two may share
    /// bytes; at most [`super::MAX_BYTES`] in magnitude.
    pub min_displacement: i64,
}

impl Overlap {
    /// `output` may overlap `input` when `offset(input) − offset(output) ≥ min_displacement`.
    #[must_use]
    pub const fn new(output: usize, input: usize, min_displacement: i64) -> Self {
        Self {
            output,
            input,
            min_displacement,
        }
    }
}

/// The latest time a problem with overlaps may use: its split times `2t + 1` fit a [`Time`].
pub const MAX_OVERLAP_TIME: Time = (Time::MAX - 1) / 2;

/// Checks the rules of the [module docs](self) on `overlaps` for `problem`'s buffers.
pub(super) fn check(problem: &Problem, overlaps: &[Overlap]) -> Result<(), ProblemError> {
    let buffers = problem.buffers();
    let bad = |overlap: usize, why: &'static str| ProblemError::BadOverlap { overlap, why };
    if overlaps.is_empty() {
        return Ok(());
    }
    if let Some((buffer, b)) = buffers
        .iter()
        .enumerate()
        .find(|(_, b)| b.lifetime.last > MAX_OVERLAP_TIME)
    {
        return Err(ProblemError::TimeTooLate {
            buffer,
            time: b.lifetime.last,
        });
    }
    for (k, o) in overlaps.iter().enumerate() {
        let (Some(out), Some(inp)) = (buffers.get(o.output), buffers.get(o.input)) else {
            return Err(bad(k, "names a buffer the problem does not have"));
        };
        if o.output == o.input {
            return Err(bad(k, "pairs a buffer with itself"));
        }
        if out.fixed_offset.is_some() || inp.fixed_offset.is_some() {
            return Err(bad(k, "pairs a buffer with a fixed offset"));
        }
        if inp.lifetime.last != out.lifetime.first {
            return Err(bad(
                k,
                "has an input whose lifetime does not end where the output's begins",
            ));
        }
        if o.min_displacement.unsigned_abs() > super::MAX_BYTES {
            return Err(bad(k, "has a displacement beyond the byte limit"));
        }
    }
    // Duplicates, then completeness per time: sorted by (time, output, input).
    let mut by_time: Vec<(Time, usize, usize, usize)> = overlaps
        .iter()
        .enumerate()
        .map(|(k, o)| {
            let t = buffers.get(o.output).map_or(0, |b| b.lifetime.first);
            (t, o.output, o.input, k)
        })
        .collect();
    by_time.sort_unstable();
    for w in by_time.windows(2) {
        if let [a, b] = w
            && (a.0, a.1, a.2) == (b.0, b.1, b.2)
        {
            return Err(bad(b.3, "repeats an earlier pair"));
        }
    }
    let keys: Vec<(Time, usize, usize)> = by_time.iter().map(|p| (p.0, p.1, p.2)).collect();
    for g in time_groups(&keys) {
        let group = by_time.get(g.range.clone()).unwrap_or(&[]);
        if g.outputs.len().checked_mul(g.inputs.len()) != Some(group.len()) {
            // Name the pair given last: the first list without it may be complete.
            let last = group.iter().map(|p| p.3).max().unwrap_or(0);
            return Err(bad(
                last,
                "is one of several pairs at its time that do not pair every input with every output",
            ));
        }
    }
    Ok(())
}

/// The pairs of one time, from a list sorted by `(time, output, input)`: their positions in it
/// and their distinct outputs and inputs.
struct TimeGroup {
    time: Time,
    range: std::ops::Range<usize>,
    outputs: Vec<usize>,
    inputs: Vec<usize>,
}

fn time_groups(sorted: &[(Time, usize, usize)]) -> Vec<TimeGroup> {
    let mut groups = Vec::new();
    let mut start = 0;
    while let Some(&(time, _, _)) = sorted.get(start) {
        let end = start
            + sorted
                .get(start..)
                .map_or(0, |r| r.partition_point(|p| p.0 == time));
        let group = sorted.get(start..end).unwrap_or(&[]);
        let mut outputs: Vec<usize> = group.iter().map(|p| p.1).collect();
        let mut inputs: Vec<usize> = group.iter().map(|p| p.2).collect();
        outputs.dedup();
        inputs.sort_unstable();
        inputs.dedup();
        groups.push(TimeGroup {
            time,
            range: start..end,
            outputs,
            inputs,
        });
        start = end;
    }
    groups
}

/// Whether `i` is the output, and whether it is the input, of some pair.
fn roles(problem: &Problem) -> (Vec<bool>, Vec<bool>) {
    let n = problem.buffers().len();
    let (mut out, mut inp) = (vec![false; n], vec![false; n]);
    for o in problem.overlaps() {
        if let Some(x) = out.get_mut(o.output) {
            *x = true;
        }
        if let Some(x) = inp.get_mut(o.input) {
            *x = true;
        }
    }
    (out, inp)
}

/// The lifetimes the placement works on: the problem's, or their split (module docs) when it
/// declares overlaps.
pub(super) fn placement_lifetimes(problem: &Problem) -> Vec<(Time, Time)> {
    let buffers = problem.buffers();
    if problem.overlaps().is_empty() {
        return buffers
            .iter()
            .map(|b| (b.lifetime.first, b.lifetime.last))
            .collect();
    }
    let (out, inp) = roles(problem);
    buffers
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let first = 2 * b.lifetime.first + Time::from(out.get(i).copied().unwrap_or(false));
            let last = 2 * b.lifetime.last + Time::from(!inp.get(i).copied().unwrap_or(false));
            (first, last)
        })
        .collect()
}

/// One side of a pair, seen from a buffer: the partner, whether the buffer is the pair's output,
/// and the aligned minimum displacement.
#[derive(Clone, Copy, Debug)]
pub(super) struct Partner {
    pub(super) other: usize,
    pub(super) is_output: bool,
    pub(super) min: i128,
}

/// Each buffer's partners, by buffer (no list at all when the problem declares no overlap).
pub(super) fn partners(problem: &Problem) -> Vec<Vec<Partner>> {
    if problem.overlaps().is_empty() {
        return Vec::new();
    }
    let mut all: Vec<Vec<Partner>> = vec![Vec::new(); problem.buffers().len()];
    for o in problem.overlaps() {
        let min = aligned_min(problem, o);
        if let Some(list) = all.get_mut(o.output) {
            list.push(Partner {
                other: o.input,
                is_output: true,
                min,
            });
        }
        if let Some(list) = all.get_mut(o.input) {
            list.push(Partner {
                other: o.output,
                is_output: false,
                min,
            });
        }
    }
    all
}

/// The offsets a buffer of `size` aligned bytes may not take, given its `partners` already
/// placed (`offsets` of the buffers `placed` so far): one open interval per such partner.
fn avoid(
    problem: &Problem,
    partners: Option<&Vec<Partner>>,
    placed: &[bool],
    offsets: &[u64],
    size: u64,
) -> Vec<(i128, i128)> {
    let Some(partners) = partners else {
        return Vec::new();
    };
    partners
        .iter()
        .filter(|p| placed.get(p.other).copied().unwrap_or(false))
        .filter_map(|p| {
            let at = offsets.get(p.other).copied()?;
            let other = problem.buffers().get(p.other)?;
            forbidden(size, p, at, problem.aligned_size(other.size))
        })
        .collect()
}

/// A greedy placement in progress (greedy's and the other heuristics'): the occupied space,
/// each buffer's offset and, with pairs, which buffers are placed.
pub(super) struct Placement<'a> {
    problem: &'a Problem,
    space: Space,
    offsets: Vec<u64>,
    partners: Vec<Vec<Partner>>,
    placed: Vec<bool>,
}

impl<'a> Placement<'a> {
    pub(super) fn new(problem: &'a Problem) -> Self {
        let partners = partners(problem);
        let n = problem.buffers().len();
        Self {
            problem,
            space: Space::new(&placement_lifetimes(problem)),
            offsets: vec![0; n],
            placed: vec![false; if partners.is_empty() { 0 } else { n }],
            partners,
        }
    }

    /// Records buffer `id` of `size` aligned bytes at `offset`.
    pub(super) fn put(&mut self, id: usize, offset: u64, size: u64) {
        self.space.insert(id, offset, offset.saturating_add(size));
        if let Some(slot) = self.offsets.get_mut(id) {
            *slot = offset;
        }
        if let Some(p) = self.placed.get_mut(id) {
            *p = true;
        }
    }

    /// Where buffer `id` of `size` aligned bytes goes: first fit, or best fit with `best`; with
    /// a placed partner, the first fit its partners allow.
    pub(super) fn fit(&mut self, id: usize, size: u64, best: bool) -> u64 {
        let avoid = avoid(
            self.problem,
            self.partners.get(id),
            &self.placed,
            &self.offsets,
            size,
        );
        if !avoid.is_empty() {
            self.space.first_fit_avoiding(id, size, &avoid)
        } else if best {
            self.space.best_fit(id, size)
        } else {
            self.space.first_fit(id, size)
        }
    }

    /// The offsets, and the work done: the placement's units plus one per buffer.
    pub(super) fn finish(self) -> (Vec<u64>, u64) {
        let work = self
            .space
            .work()
            .saturating_add(self.problem.buffers().len() as u64);
        (self.offsets, work)
    }
}

/// `min_displacement` rounded up to a multiple of the alignment (offsets are multiples of it).
pub(super) fn aligned_min(problem: &Problem, o: &Overlap) -> i128 {
    let a = i128::from(problem.alignment());
    let d = i128::from(o.min_displacement);
    -((-d).div_euclid(a)) * a
}

/// The open interval `(lo, hi)` of offsets of a buffer of `size` aligned bytes that its placed
/// `partner` (at `at`, of `partner_size` aligned bytes) forbids. Empty (`lo ≥ hi - 1`) when
/// either buffer has no bytes.
pub(super) fn forbidden(
    size: u64,
    partner: &Partner,
    at: u64,
    partner_size: u64,
) -> Option<(i128, i128)> {
    if size == 0 || partner_size == 0 {
        return None;
    }
    let (s, p, at) = (i128::from(size), i128::from(partner_size), i128::from(at));
    if partner.is_output {
        // This buffer is the output, the partner its input at `at`: the output may start at or
        // below `at − D`, or below `at − s` (disjoint), or at or above `at + p` (disjoint).
        Some(((at - s).max(at - partner.min), at + p))
    } else {
        // This buffer is the input, the partner its output at `at`: the input may start at or
        // above `at + D` or `at + p` (disjoint), or at or below `at − s` (disjoint).
        Some((at - s, (at + p).min(at + partner.min)))
    }
}

/// The fewest bytes two buffers of a pair can span together: aligned sizes `out` and `inp`,
/// aligned minimum displacement `min`.
fn min_span(out: u64, inp: u64, min: i128) -> u64 {
    let (o, i) = (i128::from(out), i128::from(inp));
    let span = if min >= o {
        o + i
    } else if min <= 0 {
        o.max(i)
    } else {
        o.max(min + i)
    };
    u64::try_from(span).unwrap_or(u64::MAX)
}

/// For each time with pairs, the bytes the pairs save against the sum of the sizes of their
/// buffers: `(time, saving)`, by time. At a time, the pairs' inputs are live together and share
/// no byte, and so are their outputs; every input and output together span at least the larger
/// of those two sums and of each pair's smallest span. The saving is the sum of their sizes less
/// that span.
pub(super) fn reduction(problem: &Problem) -> Vec<(Time, u64)> {
    let buffers = problem.buffers();
    let size = |i: usize| buffers.get(i).map_or(0, |b| problem.aligned_size(b.size));
    let mut pairs: Vec<(Time, usize, usize, i128)> = problem
        .overlaps()
        .iter()
        .filter(|o| size(o.output) > 0 && size(o.input) > 0)
        .map(|o| {
            let t = buffers.get(o.output).map_or(0, |b| b.lifetime.first);
            (t, o.output, o.input, aligned_min(problem, o))
        })
        .collect();
    pairs.sort_unstable();
    let keys: Vec<(Time, usize, usize)> = pairs.iter().map(|p| (p.0, p.1, p.2)).collect();
    let sum = |ids: &[usize]| ids.iter().map(|&i| size(i)).fold(0u64, u64::saturating_add);
    time_groups(&keys)
        .into_iter()
        .map(|g| {
            let (sum_out, sum_in) = (sum(&g.outputs), sum(&g.inputs));
            let span = pairs
                .get(g.range.clone())
                .unwrap_or(&[])
                .iter()
                .map(|&(_, o, i, min)| min_span(size(o), size(i), min))
                .fold(sum_out.max(sum_in), u64::max);
            (g.time, sum_out.saturating_add(sum_in).saturating_sub(span))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Buffer;

    #[test]
    fn min_span_of_each_case() {
        // No overlap allowed, any overlap, part of it.
        assert_eq!(min_span(32, 16, 32), 48);
        assert_eq!(min_span(32, 16, 0), 32);
        assert_eq!(min_span(32, 16, -16), 32);
        assert_eq!(min_span(32, 16, 16), 32);
        assert_eq!(min_span(32, 32, 16), 48);
    }

    #[test]
    fn the_minimum_is_rounded_up_to_the_alignment() {
        let p = Problem::new(vec![Buffer::new(1, 0, 0)], 16).unwrap();
        for (d, want) in [
            (0, 0),
            (1, 16),
            (16, 16),
            (17, 32),
            (-1, 0),
            (-16, -16),
            (-17, -16),
        ] {
            assert_eq!(aligned_min(&p, &Overlap::new(0, 0, d)), want, "{d}");
        }
    }

    #[test]
    fn forbidden_offsets_are_exactly_the_overlaps_closer_than_the_minimum() {
        // Output of 48 bytes, input of 32, D = 16, input placed at 64.
        let as_output = Partner {
            other: 1,
            is_output: true,
            min: 16,
        };
        let (lo, hi) = forbidden(48, &as_output, 64, 32).unwrap();
        for o in 0..200i128 {
            let d = 64 - o;
            let disjoint = o + 48 <= 64 || 64 + 32 <= o;
            assert_eq!(lo < o && o < hi, !(disjoint || d >= 16), "output at {o}");
        }
        // The same pair seen from the input, output placed at 64.
        let as_input = Partner {
            other: 0,
            is_output: false,
            min: 16,
        };
        let (lo, hi) = forbidden(32, &as_input, 64, 48).unwrap();
        for i in 0..200i128 {
            let d = i - 64;
            let disjoint = i + 32 <= 64 || 64 + 48 <= i;
            assert_eq!(lo < i && i < hi, !(disjoint || d >= 16), "input at {i}");
        }
        assert_eq!(forbidden(0, &as_input, 64, 48), None);
    }
}
