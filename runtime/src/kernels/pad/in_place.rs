//! PAD and PADV2 with their output over the input they consume: the output written in order,
//! from [`pad_min_displacement`] on.

use crate::kernels::KernelError;
use crate::kernels::shared::in_place::{add, get, inside_buffer, mul};

/// PAD's least displacement in elements: writing its output in order over its input, output
/// element `k` is written after the input element it covers is read, and lies below every input
/// element still to be read when the input starts at least the padding written before the
/// input's last element above the output: `q − (n − 1)`, with `q` the output index of input
/// element `n − 1`, the last. `None` for an empty input, shapes that do not hold the input
/// (`before[d] + input[d] > output[d]`) or sizes that overflow.
#[must_use]
pub const fn pad_min_displacement(p: &super::Pad) -> Option<usize> {
    let (mut q, mut last) = (0_usize, 0_usize);
    let (mut out_stride, mut in_stride) = (1_usize, 1_usize);
    let mut d = 5;
    while d > 0 {
        d -= 1;
        let (i, o, b) = (p.input[d], p.output[d], p.before[d]);
        if i == 0 || get!(add(b, i)) > o {
            return None;
        }
        q = get!(add(q, get!(mul(b + i - 1, out_stride))));
        last = get!(add(last, get!(mul(i - 1, in_stride))));
        out_stride = get!(mul(out_stride, o));
        in_stride = get!(mul(in_stride, i));
    }
    q.checked_sub(last)
}

/// Whether [`pad`] runs `p` with its input at `input_at` and its output at `output_at`
/// (elements) of one buffer: the two share no element, or the input starts at least
/// [`pad_min_displacement`] above the output. Generated code asserts it at compile time.
#[must_use]
pub const fn pad_fits(p: &super::Pad, input_at: usize, output_at: usize) -> bool {
    let (Some(least), Some(i), Some(o)) = (
        pad_min_displacement(p),
        elements5(&p.input),
        elements5(&p.output),
    ) else {
        return false;
    };
    let (Some(in_end), Some(out_end)) = (input_at.checked_add(i), output_at.checked_add(o)) else {
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

/// The element count of a five-dimensional shape, `None` on overflow.
pub(crate) const fn elements5(shape: &[usize; 5]) -> Option<usize> {
    mul(
        get!(mul(
            get!(mul(shape[0], shape[1])),
            get!(mul(shape[2], shape[3]))
        )),
        shape[4],
    )
}

/// The preconditions of [`pad`], on the buffer's length: the placement of the input and the
/// output in the buffer (both inside it, and [`pad_fits`]) and the two-buffer kernel's check
/// (`super::check_pad`) on the lengths the shapes give them. Generated code asserts it when
/// the crate compiles.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_pad(
    p: &super::Pad,
    buf: usize,
    input_at: usize,
    output_at: usize,
) -> Result<(), KernelError> {
    let (Some(i), Some(o)) = (elements5(&p.input), elements5(&p.output)) else {
        return Err(KernelError::Length {
            operand: "buf",
            expected: None,
            found: buf,
        });
    };
    if !inside_buffer(buf, input_at, i, output_at, o) || !pad_fits(p, input_at, output_at) {
        return Err(KernelError::Placement);
    }
    super::check_pad(p, i, o)
}

/// [`super::pad`] on one buffer: the input's elements at `buf[input_at..]`, the output's at
/// `buf[output_at..]`, output elements written in order, each after the input element it covers
/// is read.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless [`check_pad`] holds.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn pad<T: Copy>(
    p: &super::Pad,
    buf: &mut [T],
    input_at: usize,
    output_at: usize,
    pad_value: T,
) -> Result<(), KernelError> {
    check_pad(p, buf.len(), input_at, output_at)?;
    proven_pad::pad(p, buf, input_at, output_at, pad_value);
    Ok(())
}

/// The entry generated code calls once it has asserted its check when the crate compiled
/// (asserted again in debug builds).
#[doc(hidden)]
pub mod proven_pad {
    use super::elements5;

    /// [`pad`](super::pad), its check proven.
    pub fn pad<T: Copy>(
        p: &crate::kernels::pad::Pad,
        buf: &mut [T],
        input_at: usize,
        output_at: usize,
        pad_value: T,
    ) {
        debug_assert!(super::check_pad(p, buf.len(), input_at, output_at).is_ok());
        let (Some(i), Some(o)) = (elements5(&p.input), elements5(&p.output)) else {
            return;
        };
        if input_at + i <= output_at {
            // The input wholly below the output.
            let (lo, hi) = buf.split_at_mut(output_at);
            crate::kernels::pad::proven::pad(
                p,
                &lo[input_at..input_at + i],
                pad_value,
                &mut hi[..o],
            );
            return;
        }
        // The input at or above the output, at least the least displacement: runs in order,
        // each input run moved as one (a forward move where it overlaps its output run).
        let mut k = output_at;
        crate::kernels::pad::pad_runs(p, |run| match run {
            crate::kernels::pad::Run::Fill(len) => {
                if let Some(out) = buf.get_mut(k..k + len) {
                    out.fill(pad_value);
                }
                k += len;
            }
            crate::kernels::pad::Run::Copy { from, len } => {
                let from = input_at + from;
                if from + len <= buf.len() && k + len <= buf.len() {
                    buf.copy_within(from..from + len, k);
                }
                k += len;
            }
        });
    }
}
