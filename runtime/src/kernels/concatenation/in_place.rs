//! CONCATENATION with its first input over the output: that input's chunks moved into their
//! slots in order, the other inputs from their own slices, from
//! [`concatenation_min_displacement`] on (a full alias when it has one outer position).

use crate::kernels::shared::in_place::{add, get, mul};

/// CONCATENATION's least displacement in elements for its first input over the output: the
/// kernel copies, for each of the `outer` positions in turn, each input's next chunk
/// (`inners[i]` elements), so before it reads the first input's chunk `k` (at `d + k·L`, `L =
/// inners[0]`) it has written the output up to `k·R` (`R` the sum of `inners`): `k·R ≤ d + k·L`
/// for every `k`, `D = (outer − 1)·(R − L)`; the chunk itself moves within the buffer (a
/// `copy_within`). `None` without inputs or positions, or on overflow.
#[must_use]
pub const fn concatenation_min_displacement(outer: usize, inners: &[usize]) -> Option<usize> {
    if outer == 0 || inners.is_empty() {
        return None;
    }
    let (mut row, mut i) = (0_usize, 0);
    while i < inners.len() {
        row = get!(add(row, inners[i]));
        i += 1;
    }
    mul(outer - 1, row - inners[0])
}

/// Whether [`concatenation`] runs `outer` positions of `inners` with its first input at
/// `input_at` and its output at `output_at` (elements) of one buffer: the two share no
/// element, or the input starts at least [`concatenation_min_displacement`] above the output.
/// Generated code asserts it at compile time.
#[must_use]
pub const fn concatenation_fits(
    outer: usize,
    inners: &[usize],
    input_at: usize,
    output_at: usize,
) -> bool {
    let Some(least) = concatenation_min_displacement(outer, inners) else {
        return false;
    };
    let (mut row, mut i) = (0_usize, 0);
    while i < inners.len() {
        row = match add(row, inners[i]) {
            Some(r) => r,
            None => return false,
        };
        i += 1;
    }
    let (Some(n_in), Some(n_out)) = (mul(outer, inners[0]), mul(outer, row)) else {
        return false;
    };
    let (Some(in_end), Some(out_end)) = (input_at.checked_add(n_in), output_at.checked_add(n_out))
    else {
        return false;
    };
    if in_end <= output_at || out_end <= input_at {
        return true;
    }
    match input_at.checked_sub(output_at) {
        Some(d) => d >= least,
        None => false,
    }
}

/// [`super::concatenation`] with its first input and the output on one buffer (no
/// parameters: `()`): the first input's `outer × inners[0]` elements at `buf[input_at..]`, the
/// output's at `buf[output_at..]`, the other inputs in `rest` (input `i + 1` in `rest[i]`).
/// The output is written in the kernel's order, each chunk of the first input moved by
/// `copy_within` after every chunk before it is written. Returns `false`, writing nothing,
/// unless [`concatenation_fits`], `rest` has an entry for each other input, and both fit in
/// `buf`.
#[inline(never)]
pub fn concatenation<T: Copy>(
    _: &(),
    buf: &mut [T],
    input_at: usize,
    output_at: usize,
    outer: usize,
    inners: &[usize],
    rest: &[&[T]],
) -> bool {
    if !concatenation_fits(outer, inners, input_at, output_at) || rest.len() + 1 != inners.len() {
        return false;
    }
    let row: usize = inners.iter().sum();
    let first = inners[0];
    if input_at.saturating_add(outer * first) > buf.len()
        || output_at.saturating_add(outer * row) > buf.len()
    {
        return false;
    }
    let mut at = output_at;
    for k in 0..outer {
        let from = input_at + k * first;
        buf.copy_within(from..from + first, at);
        at += first;
        for (input, &inner) in rest.iter().zip(&inners[1..]) {
            let start = k.wrapping_mul(inner);
            let chunk = input.get(start..).unwrap_or(&[]).iter().take(inner);
            // Each input holds `outer × inner` elements (the kernel's precondition); a short
            // one leaves the rest of its part of the output as it was.
            for (o, &i) in buf[at..at + inner].iter_mut().zip(chunk) {
                *o = i;
            }
            at += inner;
        }
    }
    true
}
