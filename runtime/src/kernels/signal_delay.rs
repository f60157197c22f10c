//! `SignalDelay` (TFLM's `signal/micro/kernels/delay.cc` with `signal/src/circular_buffer.cc`):
//! each row of the input delayed by `delay_length` samples, the delay line kept across
//! invocations.

use super::shared::check::{KernelError, check, elements, length, require};

/// Parameters of [`signal_delay`].
#[derive(Clone, Copy, Debug)]
pub struct SignalDelay {
    /// Samples per row: the input's innermost dimension (TFLM's `frame_size`).
    pub frame_size: usize,
    /// Rows: the input's other dimensions (TFLM's `outer_dims`).
    pub rows: usize,
    /// Samples of delay (`delay_length`).
    pub delay_length: usize,
}

/// Sample `i` of the delay lines, two int16 to a word (low half first).
fn sample(state: &[u32], i: usize) -> i16 {
    let word = state.get(i / 2).copied().unwrap_or(0);
    (if i.is_multiple_of(2) {
        word
    } else {
        word >> 16
    }) as u16 as i16
}

fn set_sample(state: &mut [u32], i: usize, v: i16) {
    if let Some(word) = state.get_mut(i / 2) {
        let v = u32::from(v as u16);
        *word = if i.is_multiple_of(2) {
            (*word & 0xFFFF_0000) | v
        } else {
            (*word & 0x0000_FFFF) | (v << 16)
        };
    }
}

/// [`signal_delay`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_signal_delay(
    p: &SignalDelay,
    input: usize,
    output: usize,
    state: usize,
) -> Result<(), KernelError> {
    let n = elements(&[p.rows, p.frame_size]);
    check!(length("input", n, input));
    check!(length("output", n, output));
    let samples = match p.rows.checked_mul(p.delay_length) {
        Some(s) => Some(s.div_ceil(2)),
        None => None,
    };
    check!(length("state", samples, state));
    require(p.frame_size >= 1 || p.rows == 0, "the frame size is 0")
}

/// TFLM's `DelayEval`: for each row in order, the row is appended to its delay line (which
/// holds `delay_length` samples, zeros after a reset, as TFLM's `DelayReset` writes them),
/// the first `frame_size` samples of the line are the output row, and they leave the line.
/// So each output row is the previous `delay_length` samples of its input row's stream
/// followed by the row's first `frame_size - delay_length`.
///
/// `state` holds the delay lines, row after row, `delay_length` int16 each, two to a word.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_signal_delay`])
/// hold: `input` and `output` hold `rows × frame_size` values (a frame of at least one),
/// `state` `rows × delay_length` samples, two to a word (`ceil(rows × delay_length / 2)`
/// words).
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn signal_delay(
    p: &SignalDelay,
    input: &[i16],
    output: &mut [i16],
    state: &mut [u32],
) -> Result<(), KernelError> {
    check_signal_delay(p, input.len(), output.len(), state.len())?;
    proven::signal_delay(p, input, output, state);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`signal_delay`](super::signal_delay), its [`check`](super::check_signal_delay) proven.
    #[inline]
    pub fn signal_delay(p: &SignalDelay, input: &[i16], output: &mut [i16], state: &mut [u32]) {
        debug_assert!(super::check_signal_delay(p, input.len(), output.len(), state.len()).is_ok());
        let (fs, d) = (p.frame_size, p.delay_length);
        for (r, (row, out)) in input
            .chunks(fs.max(1))
            .zip(output.chunks_mut(fs.max(1)))
            .take(p.rows)
            .enumerate()
        {
            let base = r.saturating_mul(d);
            // The line followed by the row, read at `k`.
            let stream = |state: &[u32], k: usize| -> i16 {
                if k < d {
                    sample(state, base.saturating_add(k))
                } else {
                    row.get(k - d).copied().unwrap_or(0)
                }
            };
            for (k, o) in out.iter_mut().enumerate() {
                *o = stream(state, k);
            }
            // The line keeps the stream's samples fs .. fs + d, read before they are overwritten
            // (in increasing order, each from at or after the sample it replaces).
            for k in 0..d {
                let v = stream(state, fs.saturating_add(k));
                set_sample(state, base.saturating_add(k), v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use super::*;

    /// The delay as a queue, the way TFLM's circular buffer behaves.
    fn reference(p: &SignalDelay, frames: &[Vec<i16>]) -> Vec<Vec<i16>> {
        let mut lines: Vec<std::collections::VecDeque<i16>> = (0..p.rows)
            .map(|_| vec![0; p.delay_length].into())
            .collect();
        frames
            .iter()
            .map(|frame| {
                let mut out = Vec::new();
                for (line, row) in lines.iter_mut().zip(frame.chunks(p.frame_size)) {
                    line.extend(row);
                    out.extend(line.drain(..p.frame_size));
                }
                out
            })
            .collect()
    }

    #[test]
    fn delays_every_row_by_its_length_across_invocations() {
        let mut seed = 7_u32;
        for (frame_size, rows, delay_length) in
            [(4, 1, 0), (4, 2, 1), (3, 2, 3), (2, 3, 5), (5, 1, 4)]
        {
            let p = SignalDelay {
                frame_size,
                rows,
                delay_length,
            };
            let frames: Vec<Vec<i16>> = (0..6)
                .map(|_| {
                    (0..frame_size * rows)
                        .map(|_| {
                            seed ^= seed << 13;
                            seed ^= seed >> 17;
                            seed ^= seed << 5;
                            seed as i16
                        })
                        .collect()
                })
                .collect();
            let mut state = vec![0_u32; (rows * delay_length).div_ceil(2)];
            let want = reference(&p, &frames);
            for (frame, want) in frames.iter().zip(&want) {
                let mut out = vec![0_i16; frame.len()];
                signal_delay(&p, frame, &mut out, &mut state).unwrap();
                assert_eq!(&out, want, "{p:?}");
            }
        }
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = SignalDelay {
            frame_size: 3,
            rows: 2,
            delay_length: 3,
        };
        refuses([6, 6, 3], [Exact; 3], |[i, o, s]| {
            let mut out = vec![7_i16; o];
            let mut state = vec![9_u32; s];
            let r = signal_delay(&p, &vec![0; i], &mut out, &mut state);
            (r, untouched(&out, 7) && untouched(&state, 9))
        });
    }
}
