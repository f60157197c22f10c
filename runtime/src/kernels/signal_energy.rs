//! `SignalEnergy` (TFLM's `signal/micro/kernels/energy.cc`, `signal/src/energy.cc`): the
//! squared magnitude of complex int16 values.

use super::shared::check::{KernelError, check, require};

/// Parameters of [`signal_energy`] (the op's custom options).
#[derive(Clone, Copy, Debug)]
pub struct SignalEnergy {
    /// First complex value (`start_index`).
    pub start: usize,
    /// One past the last (`end_index`).
    pub end: usize,
}

/// [`signal_energy`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_signal_energy(
    input: usize,
    params: &SignalEnergy,
    output: usize,
) -> Result<(), KernelError> {
    if params.start >= params.end {
        return Ok(());
    }
    let inside = match params.end.checked_mul(2) {
        Some(n) => n <= input,
        None => false,
    };
    check!(require(
        inside,
        "end_index reaches past the input's complex values"
    ));
    require(params.end <= output, "end_index reaches past the output")
}

/// TFLM's `SpectrumToEnergy`: for `start <= i < end`,
/// `out[i] = re*re + im*im` of complex value `i` (`input[2i]`, `input[2i + 1]`), the int32
/// sum wrapping as x86-64 does (two `-32768`s give `2^31`), as uint32. Other outputs are not
/// written, as in TFLM.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_signal_energy`])
/// hold: when `start < end`, `input.len() >= 2 * end` and `output.len() >= end` (TFLM reads and
/// writes values `start..end` only).
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn signal_energy(
    input: &[i16],
    params: &SignalEnergy,
    output: &mut [u32],
) -> Result<(), KernelError> {
    check_signal_energy(input.len(), params, output.len())?;
    proven::signal_energy(input, params, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`signal_energy`](super::signal_energy), its [`check`](super::check_signal_energy) proven.
    #[inline]
    pub fn signal_energy(input: &[i16], params: &SignalEnergy, output: &mut [u32]) {
        debug_assert!(super::check_signal_energy(input.len(), params, output.len()).is_ok());
        let pairs = input.chunks_exact(2).enumerate();
        for (i, c) in pairs.take(params.end).skip(params.start) {
            let (re, im) = (
                i32::from(c.first().copied().unwrap_or(0)),
                i32::from(c.get(1).copied().unwrap_or(0)),
            );
            if let Some(o) = output.get_mut(i) {
                *o = (re * re).wrapping_add(im * im) as u32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_only_its_range() {
        let mut out = [7u32; 3];
        signal_energy(
            &[1, 2, 3, 4, -32768, -32768],
            &SignalEnergy { start: 1, end: 3 },
            &mut out,
        )
        .unwrap();
        assert_eq!(out, [7, 25, 1 << 31]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = SignalEnergy { start: 1, end: 3 };
        refuses([6, 3], [AtLeast; 2], |[i, o]| {
            let mut out = vec![7_u32; o];
            (signal_energy(&vec![0; i], &p, &mut out), untouched(&out, 7))
        });
    }
}
