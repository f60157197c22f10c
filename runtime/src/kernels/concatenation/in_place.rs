//! CONCATENATION with its first input over the output: that input's chunks moved into their
//! slots in order, the other inputs from their own slices, from
//! [`concatenation_min_displacement`] on (a full alias when it has one outer position).

use crate::kernels::KernelError;
use crate::kernels::shared::in_place::{add, get, inside_buffer, mul};

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

/// The preconditions of [`concatenation`], on the lengths of its slices (`rest[i]`: input
/// `i + 1`'s): the placement of the first input and the output in the buffer (both inside it,
/// and [`concatenation_fits`]) and the two-buffer kernel's check on the lengths
/// (`super::check_concatenation`). Generated code asserts it when the crate compiles.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_concatenation(
    buf: usize,
    input_at: usize,
    output_at: usize,
    outer: usize,
    inners: &[usize],
    rest: &[usize],
) -> Result<(), KernelError> {
    if inners.is_empty() || rest.len() + 1 != inners.len() || inners.len() > 10 {
        return Err(KernelError::Parameters(
            "the other inputs are not one fewer than the sizes (`inners`), or more than TFLM's 10",
        ));
    }
    let (mut row, mut i) = (0_usize, 0);
    while i < inners.len() {
        row = match add(row, inners[i]) {
            Some(r) => r,
            None => {
                return Err(KernelError::Length {
                    operand: "buf",
                    expected: None,
                    found: buf,
                });
            }
        };
        i += 1;
    }
    let (Some(first), Some(all)) = (mul(outer, inners[0]), mul(outer, row)) else {
        return Err(KernelError::Length {
            operand: "buf",
            expected: None,
            found: buf,
        });
    };
    if !inside_buffer(buf, input_at, first, output_at, all)
        || !concatenation_fits(outer, inners, input_at, output_at)
    {
        return Err(KernelError::Placement);
    }
    let mut lens = [0_usize; 10];
    lens[0] = first;
    let mut i = 0;
    while i < rest.len() {
        lens[i + 1] = rest[i];
        i += 1;
    }
    super::check_concatenation(outer, inners, lens.split_at(inners.len()).0, all)
}

/// [`super::concatenation`] with its first input and the output on one buffer (no
/// parameters: `()`): the first input's `outer × inners[0]` elements at `buf[input_at..]`, the
/// output's at `buf[output_at..]`, the other inputs in `rest` (input `i + 1` in `rest[i]`).
/// The output is written in the kernel's order, each chunk of the first input moved by
/// `copy_within` after every chunk before it is written.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless [`check_concatenation`] holds.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn concatenation<T: Copy>(
    p: &(),
    buf: &mut [T],
    input_at: usize,
    output_at: usize,
    outer: usize,
    inners: &[usize],
    rest: &[&[T]],
) -> Result<(), KernelError> {
    let mut lens = [0_usize; 9];
    let Some(lens) = lens.get_mut(..rest.len()) else {
        return Err(KernelError::Parameters(
            "more inputs than TFLM's CONCATENATION takes (10)",
        ));
    };
    for (l, input) in lens.iter_mut().zip(rest) {
        *l = input.len();
    }
    check_concatenation(buf.len(), input_at, output_at, outer, inners, lens)?;
    proven_concatenation::concatenation(p, buf, input_at, output_at, outer, inners, rest);
    Ok(())
}

/// The entry generated code calls once it has asserted its check when the crate compiled
/// (asserted again in debug builds).
#[doc(hidden)]
pub mod proven_concatenation {
    /// [`concatenation`](super::concatenation), its check proven.
    #[inline(never)]
    pub fn concatenation<T: Copy>(
        _: &(),
        buf: &mut [T],
        input_at: usize,
        output_at: usize,
        outer: usize,
        inners: &[usize],
        rest: &[&[T]],
    ) {
        debug_assert!({
            let mut lens = [0_usize; 9];
            lens.get_mut(..rest.len()).is_some_and(|lens| {
                for (l, input) in lens.iter_mut().zip(rest) {
                    *l = input.len();
                }
                super::check_concatenation(buf.len(), input_at, output_at, outer, inners, lens)
                    .is_ok()
            })
        });
        let (Some(&first), Some(rest_inners)) = (inners.first(), inners.get(1..)) else {
            return;
        };
        let mut at = output_at;
        for k in 0..outer {
            let from = input_at + k * first;
            buf.copy_within(from..from + first, at);
            at += first;
            for (input, &inner) in rest.iter().zip(rest_inners) {
                let start = k.wrapping_mul(inner);
                let chunk = input.get(start..).unwrap_or(&[]).iter().take(inner);
                for (o, &i) in buf[at..at + inner].iter_mut().zip(chunk) {
                    *o = i;
                }
                at += inner;
            }
        }
    }
}
