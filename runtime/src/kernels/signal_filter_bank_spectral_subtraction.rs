//! `SignalFilterBankSpectralSubtraction` (TFLM's
//! `signal/micro/kernels/filter_bank_spectral_subtraction.cc`,
//! `signal/src/filter_bank_spectral_subtraction.cc`): a smoothed noise estimate per channel,
//! kept across invocations, subtracted from the signal down to a floor.

use super::shared::check::{KernelError, check, length, require};

/// Parameters of [`signal_filter_bank_spectral_subtraction`] (the op's custom options).
#[derive(Clone, Copy, Debug)]
pub struct SignalSpectralSubtraction {
    /// Channels (`num_channels`).
    pub num_channels: usize,
    /// `smoothing` (even channels).
    pub smoothing: u32,
    /// `one_minus_smoothing` (even channels).
    pub one_minus_smoothing: u32,
    /// `alternate_smoothing` (odd channels).
    pub alternate_smoothing: u32,
    /// `alternate_one_minus_smoothing` (odd channels).
    pub alternate_one_minus_smoothing: u32,
    /// `min_signal_remaining`.
    pub min_signal_remaining: u32,
    /// `smoothing_bits` (0 to 31).
    pub smoothing_bits: u32,
    /// `spectral_subtraction_bits` (0 to 63).
    pub spectral_subtraction_bits: u32,
    /// `clamping`.
    pub clamping: bool,
}

/// [`signal_filter_bank_spectral_subtraction`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_signal_filter_bank_spectral_subtraction(
    input: usize,
    params: &SignalSpectralSubtraction,
    output: usize,
    noise_estimate: usize,
    state: usize,
) -> Result<(), KernelError> {
    let nc = params.num_channels;
    check!(require(
        input >= nc,
        "the input holds fewer than num_channels values"
    ));
    check!(require(
        output >= nc,
        "the output holds fewer than num_channels values"
    ));
    check!(require(
        noise_estimate <= nc,
        "the noise estimate holds more than num_channels values"
    ));
    length("state", Some(nc), state)
}

/// TFLM's `FilterbankSpectralSubtraction`, then the copy of the noise estimate into the second
/// output: for each channel `i < num_channels` in order, with `s = in[i] << smoothing_bits`
/// (uint32), `noise[i] = (s * smoothing + noise[i] * one_minus) >> spectral_subtraction_bits`
/// in uint64 (wrapping) narrowed to uint32 (the alternate pair on odd channels); the estimate
/// used is `min(noise[i], s)` (stored back when `clamping`); `out[i] = max((s - estimate) >>
/// smoothing_bits, (in[i] * min_signal_remaining) >> spectral_subtraction_bits)`.
/// `noise_estimate` receives the first `noise_estimate.len()` words of `state`.
///
/// `state` is the noise estimate kept across invocations (TFLM's persistent buffer; its reset
/// value is 0).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_signal_filter_bank_spectral_subtraction`]) hold: `input` and `output` hold at least
/// `num_channels` values, `state` exactly that many and `noise_estimate` at most that.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn signal_filter_bank_spectral_subtraction(
    input: &[u32],
    params: &SignalSpectralSubtraction,
    output: &mut [u32],
    noise_estimate: &mut [u32],
    state: &mut [u32],
) -> Result<(), KernelError> {
    check_signal_filter_bank_spectral_subtraction(
        input.len(),
        params,
        output.len(),
        noise_estimate.len(),
        state.len(),
    )?;
    proven::signal_filter_bank_spectral_subtraction(input, params, output, noise_estimate, state);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`signal_filter_bank_spectral_subtraction`](super::signal_filter_bank_spectral_subtraction), its [`check`](super::check_signal_filter_bank_spectral_subtraction) proven.
    #[inline]
    pub fn signal_filter_bank_spectral_subtraction(
        input: &[u32],
        params: &SignalSpectralSubtraction,
        output: &mut [u32],
        noise_estimate: &mut [u32],
        state: &mut [u32],
    ) {
        debug_assert!(
            super::check_signal_filter_bank_spectral_subtraction(
                input.len(),
                params,
                output.len(),
                noise_estimate.len(),
                state.len()
            )
            .is_ok()
        );
        let sb = params.smoothing_bits & 31;
        let ssb = params.spectral_subtraction_bits & 63;
        for (i, ((&x, o), n)) in input
            .iter()
            .zip(output.iter_mut())
            .zip(state.iter_mut())
            .take(params.num_channels)
            .enumerate()
        {
            let (smoothing, one_minus) = if i & 1 == 0 {
                (params.smoothing, params.one_minus_smoothing)
            } else {
                (
                    params.alternate_smoothing,
                    params.alternate_one_minus_smoothing,
                )
            };
            let scaled = x << sb;
            *n = (u64::from(scaled)
                .wrapping_mul(u64::from(smoothing))
                .wrapping_add(u64::from(*n).wrapping_mul(u64::from(one_minus)))
                >> ssb) as u32;
            let mut estimate = *n;
            if estimate > scaled {
                estimate = scaled;
                if params.clamping {
                    *n = estimate;
                }
            }
            let floor =
                (u64::from(x).wrapping_mul(u64::from(params.min_signal_remaining)) >> ssb) as u32;
            let subtracted = (scaled - estimate) >> sb;
            *o = subtracted.max(floor);
        }
        for (d, &s) in noise_estimate.iter_mut().zip(state.iter()) {
            *d = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracks_the_noise() {
        let p = SignalSpectralSubtraction {
            num_channels: 2,
            smoothing: 409,
            one_minus_smoothing: 15975,
            alternate_smoothing: 983,
            alternate_one_minus_smoothing: 15401,
            min_signal_remaining: 819,
            smoothing_bits: 10,
            spectral_subtraction_bits: 14,
            clamping: false,
        };
        let mut state = [0u32; 2];
        let (mut out, mut noise) = ([0u32; 2], [0u32; 2]);
        signal_filter_bank_spectral_subtraction(
            &[1000, 2000],
            &p,
            &mut out,
            &mut noise,
            &mut state,
        )
        .unwrap();
        // s = 1024000: noise = 1024000 * 409 >> 14 = 25562; out = (1024000 - 25562) >> 10 = 975.
        assert_eq!(noise[0], 25562);
        assert_eq!(out[0], 975);
        assert_eq!(state, noise);
        let first = noise;
        signal_filter_bank_spectral_subtraction(
            &[1000, 2000],
            &p,
            &mut out,
            &mut noise,
            &mut state,
        )
        .unwrap();
        assert!(noise[0] > first[0] && noise[1] > first[1]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = SignalSpectralSubtraction {
            num_channels: 2,
            smoothing: 1,
            one_minus_smoothing: 1,
            alternate_smoothing: 1,
            alternate_one_minus_smoothing: 1,
            min_signal_remaining: 1,
            smoothing_bits: 1,
            spectral_subtraction_bits: 1,
            clamping: false,
        };
        refuses(
            [2, 2, 2, 2],
            [AtLeast, AtLeast, AtMost, Exact],
            |[i, o, n, s]| {
                let (mut out, mut noise, mut state) =
                    (vec![7_u32; o], vec![7_u32; n], vec![7_u32; s]);
                let r = signal_filter_bank_spectral_subtraction(
                    &vec![0; i],
                    &p,
                    &mut out,
                    &mut noise,
                    &mut state,
                );
                (
                    r,
                    untouched(&out, 7) && untouched(&noise, 7) && untouched(&state, 7),
                )
            },
        );
    }
}
