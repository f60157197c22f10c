//! `SignalWindow` (TFLM's `signal/micro/kernels/window.cc`, `signal/src/window.cc`): each frame
//! of the input times the window, shifted right and saturated to int16.

use super::shared::check::{KernelError, check, length, require};

/// Parameters of [`signal_window`] (from the op's custom options).
#[derive(Clone, Copy, Debug)]
pub struct SignalWindow {
    /// Right shift of each product (`shift`; 0 to 31).
    pub shift: u32,
}

/// [`signal_window`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_signal_window(
    input: usize,
    weights: usize,
    _params: &SignalWindow,
    output: usize,
) -> Result<(), KernelError> {
    check!(require(weights >= 1, "the window is empty"));
    check!(require(
        input.is_multiple_of(weights),
        "the input is not a whole number of frames"
    ));
    length("output", Some(input), output)
}

/// TFLM's `WindowEval`: for each frame of `weights.len()` input values,
/// `ApplyWindow`: `out[i] = sat_i16((in[i] * w[i]) >> shift)`, frames in order.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_signal_window`])
/// hold: `weights` is not empty, `input.len()` is a multiple of it, `output.len() ==
/// input.len()`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn signal_window(
    input: &[i16],
    weights: &[i16],
    params: &SignalWindow,
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_signal_window(input.len(), weights.len(), params, output.len())?;
    proven::signal_window(input, weights, params, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`signal_window`](super::signal_window), its [`check`](super::check_signal_window) proven.
    #[inline]
    pub fn signal_window(
        input: &[i16],
        weights: &[i16],
        params: &SignalWindow,
        output: &mut [i16],
    ) {
        debug_assert!(
            super::check_signal_window(input.len(), weights.len(), params, output.len()).is_ok()
        );
        if weights.is_empty() {
            return;
        }
        let shift = params.shift & 31;
        for (frame, out) in input
            .chunks_exact(weights.len())
            .zip(output.chunks_exact_mut(weights.len()))
        {
            for ((o, &x), &w) in out.iter_mut().zip(frame).zip(weights) {
                let raw = (i32::from(x) * i32::from(w)) >> shift;
                *o = raw.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturates_and_shifts() {
        let mut out = [0i16; 4];
        signal_window(
            &[32767, -32768, 100, -3],
            &[32767, 32767, 2, 1],
            &SignalWindow { shift: 1 },
            &mut out,
        )
        .unwrap();
        assert_eq!(out, [32767, -32768, 100, -2]);
        let mut out = [0i16; 4];
        signal_window(
            &[1, 2, 3, 4],
            &[4096, 8192],
            &SignalWindow { shift: 12 },
            &mut out,
        )
        .unwrap();
        assert_eq!(out, [1, 4, 3, 8]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = SignalWindow { shift: 1 };
        refuses([4, 2, 4], [Exact, AtMost, Exact], |[i, w, o]| {
            let mut out = vec![7_i16; o];
            // A window of 3 does not divide 4 values; an empty one is refused too.
            (
                signal_window(&vec![0; i], &vec![0; w], &p, &mut out),
                untouched(&out, 7),
            )
        });
        let mut out = [7_i16; 4];
        assert!(signal_window(&[0; 4], &[], &p, &mut out).is_err());
        assert_eq!(out, [7; 4]);
    }
}
