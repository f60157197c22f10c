//! An ASCII chart of a plan for generated docs, in the style of TFLite Micro's
//! `PrintMemoryPlan`: one row per time, one column per slice of the arena (the tensor holding the slice's middle byte), one symbol per tensor
//! (`0-9a-zA-Z`, repeating after 62), `.` for free bytes and `!` where tensors overlap (an
//! offline plan's aliases, or an output over the input it consumes at the op that runs then).

use std::fmt::Write as _;

use crate::ModelPlan;

const WIDTH: u64 = 64;
const SYMBOLS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

fn symbol(buffer: usize) -> char {
    SYMBOLS
        .get(buffer % SYMBOLS.len())
        .map_or('?', |&b| char::from(b))
}

/// The chart and its legend.
#[must_use]
pub fn chart(plan: &ModelPlan) -> String {
    let arena = plan.arena_bytes();
    let mut out = String::new();
    if arena == 0 {
        out.push_str("(no tensor is planned in the arena)\n");
        return out;
    }
    let column = arena.div_ceil(WIDTH).max(1);
    let columns = arena.div_ceil(column);
    let problem = &plan.problem;
    let max_time = problem
        .buffers()
        .iter()
        .map(|b| b.lifetime.last)
        .max()
        .unwrap_or(0);
    let min_time = problem
        .buffers()
        .iter()
        .map(|b| b.lifetime.first)
        .min()
        .unwrap_or(0);
    let _ = writeln!(
        out,
        "time  0{:>width$}",
        format!("{arena} B"),
        width = usize::try_from(columns).unwrap_or(64) + 1
    );
    // One sweep over time: each buffer enters the columns it covers when its lifetime starts
    // and leaves them after it ends, so the chart costs the buffers times the columns plus the
    // rows times the columns, never the rows times the buffers.
    let span = max_time
        .checked_sub(min_time)
        .and_then(|d| usize::try_from(d).ok())
        .map_or(0, |d| d.saturating_add(1));
    let mut starts: Vec<Vec<usize>> = vec![Vec::new(); span];
    let mut ends: Vec<Vec<usize>> = vec![Vec::new(); span];
    for (i, b) in problem.buffers().iter().enumerate() {
        if b.lifetime.first > b.lifetime.last {
            continue;
        }
        let first = usize::try_from(b.lifetime.first - min_time).unwrap_or(0);
        let last = usize::try_from(b.lifetime.last - min_time).unwrap_or(0);
        if let (Some(s), Some(e)) = (starts.get_mut(first), ends.get_mut(last)) {
            s.push(i);
            e.push(i);
        }
    }
    let half = column / 2;
    // The columns whose middle byte buffer `i` holds.
    let covered = |i: usize| -> std::ops::Range<usize> {
        let (Some(b), Some(&o)) = (problem.buffers().get(i), plan.plan.offsets().get(i)) else {
            return 0..0;
        };
        if b.size == 0 {
            return 0..0;
        }
        let end = o.saturating_add(problem.aligned_size(b.size));
        let lo = if o <= half {
            0
        } else {
            (o - half).div_ceil(column)
        };
        let hi = if end <= half {
            0
        } else {
            (end - half).div_ceil(column).min(columns)
        };
        let lo = usize::try_from(lo).unwrap_or(usize::MAX);
        let hi = usize::try_from(hi).unwrap_or(0);
        lo.min(hi)..hi
    };
    // Per column, how many live buffers hold its middle byte (more than one only where an
    // offline plan overlaps) and the XOR of their indices: the one buffer when there is one.
    let mut cells: Vec<(u64, usize)> = vec![(0, 0); usize::try_from(columns).unwrap_or(0)];
    let mut live_bytes = 0u64;
    for (row, time) in (min_time..=max_time).enumerate() {
        for &i in starts.get(row).map_or(&[][..], Vec::as_slice) {
            for c in covered(i) {
                if let Some((count, xor)) = cells.get_mut(c) {
                    *count += 1;
                    *xor ^= i;
                }
            }
            if let Some(b) = problem.buffers().get(i) {
                live_bytes = live_bytes.saturating_add(problem.aligned_size(b.size));
            }
        }
        let line: String = cells
            .iter()
            .map(|&(count, xor)| match count {
                0 => '.',
                1 => symbol(xor),
                _ => '!',
            })
            .collect();
        let scope = time
            .checked_sub(1)
            .map_or_else(|| "-1".to_owned(), |s| s.to_string());
        let _ = writeln!(out, "{scope:>4}  {line}  {live_bytes}");
        for &i in ends.get(row).map_or(&[][..], Vec::as_slice) {
            for c in covered(i) {
                if let Some((count, xor)) = cells.get_mut(c) {
                    *count = count.saturating_sub(1);
                    *xor ^= i;
                }
            }
            if let Some(b) = problem.buffers().get(i) {
                live_bytes = live_bytes.saturating_sub(problem.aligned_size(b.size));
            }
        }
    }
    out.push_str("\nsymbols:");
    for (i, id) in plan.buffer_tensors.iter().enumerate() {
        let name = plan
            .model
            .tensors
            .get(id.get())
            .map_or("", |t| t.name.as_str());
        let _ = write!(
            out,
            "{}{} {name:?}",
            if i % 4 == 0 { "\n  " } else { ", " },
            symbol(i)
        );
    }
    out.push('\n');
    out
}
