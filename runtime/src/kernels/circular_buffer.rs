//! `CIRCULAR_BUFFER` (TFLM's custom op, `micro/kernels/circular_buffer.cc`,
//! `CircularBufferEval` and `EvalInt8`): a window of the last `num_slots` inputs, shifted by one
//! slot per invocation, with a period after which the rest of the graph runs.

use super::shared::check::{KernelError, check, length, require};

/// Parameters of [`circular_buffer_s8`] (TFLM's `OpDataCircularBuffer` after its `Prepare`, and
/// the output's shape).
#[derive(Clone, Copy, Debug)]
pub struct CircularBuffer {
    /// Slots of the window: the output's `dims[1]`.
    pub num_slots: usize,
    /// Bytes of one slot: the output's `dims[2] * dims[3]`.
    pub depth: usize,
    /// The period: the rest of the graph runs on every `cycles_max`-th invocation (TFLM's
    /// `cycles_max` after its `Prepare`, at least 1).
    pub cycles_max: u32,
}

/// [`circular_buffer_s8`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_circular_buffer_s8(
    input: usize,
    params: &CircularBuffer,
    output: usize,
    state: usize,
) -> Result<(), KernelError> {
    check!(require(
        params.num_slots >= 1 && params.cycles_max >= 1,
        "num_slots or cycles_max is 0"
    ));
    check!(length("input", Some(params.depth), input));
    check!(length(
        "output",
        params.num_slots.checked_mul(params.depth),
        output
    ));
    length("state", Some(1), state)
}

/// TFLM's `CircularBufferEval` for int8: moves the first `(num_slots - 1) * depth` bytes of
/// `output` one slot (`depth` bytes) towards the start (`memmove`), copies the first `depth`
/// bytes of `input` into slot `num_slots - 1`, then counts the invocation. Returns `true` when
/// the rest of the graph runs (TFLM's `kTfLiteOk`: `cycles_max` invocations since the last
/// time), `false` when the invocation ends here (`kTfLiteAbort`).
///
/// `state[0]` counts the invocations since the graph last ran: TFLM's `cycles_until_run` is
/// `cycles_max - state[0]`, so the reset value 0 is TFLM's `Reset` (`cycles_until_run =
/// cycles_max`). The output itself is kept across invocations (it is the window).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_circular_buffer_s8`]) hold: `num_slots >= 1` and `cycles_max >= 1`, `output` holds
/// `num_slots * depth` values, `input` `depth`, `state` one word. `Ok(false)` means the
/// invocation ends here.
#[must_use = "`Ok(false)` means the invocation ends here"]
pub fn circular_buffer_s8(
    input: &[i8],
    params: &CircularBuffer,
    output: &mut [i8],
    state: &mut [u32],
) -> Result<bool, KernelError> {
    check_circular_buffer_s8(input.len(), params, output.len(), state.len())?;
    Ok(proven::circular_buffer_s8(input, params, output, state))
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    use super::CircularBuffer;

    /// [`circular_buffer_s8`](super::circular_buffer_s8), its
    /// [`check`](super::check_circular_buffer_s8) proven: `true` when the rest of the graph runs.
    #[inline]
    #[must_use = "`false` means the invocation ends here"]
    pub fn circular_buffer_s8(
        input: &[i8],
        params: &CircularBuffer,
        output: &mut [i8],
        state: &mut [u32],
    ) -> bool {
        debug_assert!(
            super::check_circular_buffer_s8(input.len(), params, output.len(), state.len()).is_ok()
        );
        let window = params
            .num_slots
            .saturating_mul(params.depth)
            .min(output.len());
        if let Some(window) = output.get_mut(..window) {
            let keep = window.len().saturating_sub(params.depth);
            window.copy_within(window.len() - keep.., 0);
            if let Some(last) = window.get_mut(keep..) {
                for (o, &x) in last.iter_mut().zip(input) {
                    *o = x;
                }
            }
        }
        let Some(count) = state.first_mut() else {
            return true;
        };
        // `--cycles_until_run != 0` with `cycles_until_run = cycles_max - count`.
        let next = count.wrapping_add(1);
        if next == params.cycles_max {
            *count = 0;
            true
        } else {
            *count = next;
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_one_slot_and_runs_every_cycles_max() {
        let params = CircularBuffer {
            num_slots: 3,
            depth: 2,
            cycles_max: 2,
        };
        let mut out = [0i8; 6];
        let mut state = [0u32];
        let mut ran = [true; 4];
        for (k, r) in (1..=4i8).zip(ran.iter_mut()) {
            *r = circular_buffer_s8(&[k, -k], &params, &mut out, &mut state).unwrap();
        }
        assert_eq!(out, [2, -2, 3, -3, 4, -4]);
        assert_eq!(ran, [false, true, false, true]);
    }

    #[test]
    fn period_one_always_runs() {
        let params = CircularBuffer {
            num_slots: 2,
            depth: 1,
            cycles_max: 1,
        };
        let mut out = [7i8; 2];
        let mut state = [0u32];
        assert_eq!(
            circular_buffer_s8(&[1], &params, &mut out, &mut state),
            Ok(true)
        );
        assert_eq!(
            circular_buffer_s8(&[2], &params, &mut out, &mut state),
            Ok(true)
        );
        assert_eq!(out, [1, 2]);
        assert_eq!(state, [0]);
    }

    #[test]
    fn inconsistent_slices_are_refused() {
        let params = CircularBuffer {
            num_slots: 5,
            depth: 4,
            cycles_max: 3,
        };
        let mut out = [1i8, 2, 3, 4, 5, 6];
        let mut state = [0u32];
        assert_eq!(
            circular_buffer_s8(&[9; 4], &params, &mut out, &mut state),
            Err(KernelError::Length {
                operand: "output",
                expected: Some(20),
                found: 6
            })
        );
        let mut out = [1i8; 20];
        assert!(circular_buffer_s8(&[9], &params, &mut out, &mut state).is_err());
        assert!(circular_buffer_s8(&[9; 4], &params, &mut out, &mut []).is_err());
        let none = CircularBuffer {
            num_slots: 0,
            depth: 4,
            cycles_max: 0,
        };
        assert!(circular_buffer_s8(&[], &none, &mut [], &mut state).is_err());
        assert_eq!((out, state), ([1; 20], [0]));
    }
}
