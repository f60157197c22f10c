//! An ASCII chart of a plan for generated docs, in the style of TFLite Micro's
//! `PrintMemoryPlan`: one row per time, one column per slice of the arena (the tensor holding the slice's middle byte), one symbol per tensor
//! (`0-9a-zA-Z`, repeating after 62), `.` for free bytes and `!` where tensors overlap (only an
//! offline plan may do that).

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
    for time in min_time..=max_time {
        let mut row = String::new();
        let mut live_bytes = 0u64;
        for c in 0..columns {
            // The byte in the middle of the column decides its symbol.
            let byte = c * column + column / 2;
            let mut here = problem
                .buffers()
                .iter()
                .zip(plan.plan.offsets())
                .enumerate()
                .filter(|&(_, (b, &o))| {
                    b.size > 0
                        && b.lifetime.contains(time)
                        && o <= byte
                        && byte < o + problem.aligned_size(b.size)
                });
            row.push(match (here.next(), here.next()) {
                (None, _) => '.',
                (Some((i, _)), None) => symbol(i),
                (Some(_), Some(_)) => '!',
            });
        }
        for b in problem
            .buffers()
            .iter()
            .filter(|b| b.lifetime.contains(time))
        {
            live_bytes += problem.aligned_size(b.size);
        }
        let scope = time
            .checked_sub(1)
            .map_or_else(|| "-1".to_owned(), |s| s.to_string());
        let _ = writeln!(out, "{scope:>4}  {row}  {live_bytes}");
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
