//! `SignalPCAN` (TFLM's `signal/micro/kernels/pcan.cc`, `signal/src/pcan_argc_fixed.cc`):
//! per-channel automatic gain control from a noise estimate through a gain table.

use super::shared::check::{KernelError, check, length, require};
use super::signal_fft_auto_scale::most_significant_bit_32;

/// Parameters of [`signal_pcan`] (the op's custom options).
#[derive(Clone, Copy, Debug)]
pub struct SignalPcan {
    /// `snr_shift` (0 to 63).
    pub snr_shift: u32,
}

/// TFLM's `kPcanSnrBits` and `kPcanOutputBits`.
const SNR_BITS: u32 = 12;
const OUTPUT_BITS: u32 = 6;

/// TFLM's `WideDynamicFunction`: `lut[x]` for `x <= 2`; else, with `n = msb(x)` and
/// `l = lut[4n - 6..]`, a quadratic in the 10 bits below the top one, in int32 (wrapping).
fn wide_dynamic(x: u32, lut: &[i16]) -> i16 {
    if x <= 2 {
        return super::shared::at(lut, x as usize);
    }
    let interval = most_significant_bit_32(x);
    let base = (4 * interval - 6) as usize;
    let l = |k: usize| i32::from(super::shared::at(lut, base + k));
    let frac = (if interval < 11 {
        x << (11 - interval)
    } else {
        x >> (interval - 11)
    } & 0x3FF) as i32;
    let mut result = (l(2) * frac) >> 5;
    result = result.wrapping_add(((l(1) as u32) << 5) as i32);
    result = result.wrapping_mul(frac);
    result = result.wrapping_add(1 << 14) >> 15;
    result = result.wrapping_add(l(0));
    result as i16
}

/// TFLM's `PcanShrink`: `x^2 / 4` below 2, `x - 1` above, from 12 to 6 fractional bits.
const fn shrink(x: u32) -> u32 {
    if x < (2 << SNR_BITS) {
        x.wrapping_mul(x) >> (2 + 2 * SNR_BITS - OUTPUT_BITS)
    } else {
        (x >> (SNR_BITS - OUTPUT_BITS)).wrapping_sub(1 << OUTPUT_BITS)
    }
}

/// [`signal_pcan`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_signal_pcan(
    input: usize,
    noise_estimate: usize,
    lut: usize,
    _params: &SignalPcan,
    output: usize,
) -> Result<(), KernelError> {
    check!(length("output", Some(input), output));
    check!(require(
        noise_estimate >= input,
        "the noise estimate is shorter than the input"
    ));
    require(lut >= 125, "the gain table holds fewer than 125 values")
}

/// TFLM's `PcanEval`: the input copied to the output, then for each channel
/// `gain = WideDynamicFunction(noise[i], lut)` (int16 widened to uint32 with its sign),
/// `snr = (out[i] * gain) >> snr_shift` in uint64 narrowed to uint32, `out[i] = shrink(snr)`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_signal_pcan`])
/// hold: `output.len() == input.len()`, `noise_estimate.len() >= input.len()`, `lut.len() >=
/// 125` (TFLM reads up to `lut[124]` for the largest noise values).
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn signal_pcan(
    input: &[u32],
    noise_estimate: &[u32],
    lut: &[i16],
    params: &SignalPcan,
    output: &mut [u32],
) -> Result<(), KernelError> {
    check_signal_pcan(
        input.len(),
        noise_estimate.len(),
        lut.len(),
        params,
        output.len(),
    )?;
    proven::signal_pcan(input, noise_estimate, lut, params, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`signal_pcan`](super::signal_pcan), its [`check`](super::check_signal_pcan) proven.
    #[inline]
    pub fn signal_pcan(
        input: &[u32],
        noise_estimate: &[u32],
        lut: &[i16],
        params: &SignalPcan,
        output: &mut [u32],
    ) {
        debug_assert!(
            super::check_signal_pcan(
                input.len(),
                noise_estimate.len(),
                lut.len(),
                params,
                output.len()
            )
            .is_ok()
        );
        let shift = params.snr_shift & 63;
        for ((o, &x), &n) in output.iter_mut().zip(input).zip(noise_estimate) {
            let gain = i32::from(wide_dynamic(n, lut)) as u32;
            let snr = (u64::from(x).wrapping_mul(u64::from(gain)) >> shift) as u32;
            *o = shrink(snr);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrink_is_piecewise() {
        assert_eq!(shrink(4096), 16);
        assert_eq!(shrink(8192), 64);
        assert_eq!(shrink(0), 0);
        let lut: [i16; 125] = core::array::from_fn(|i| i as i16);
        assert_eq!(wide_dynamic(2, &lut), 2);
        // x = 3: interval 2, base 2, frac = (3 << 9) & 0x3FF = 512.
        // (4 * 512) >> 5 = 64; + 3 << 5 = 160; * 512 = 81920; (81920 + 16384) >> 15 = 3; + 2.
        assert_eq!(wide_dynamic(3, &lut), 5);
        let mut out = [0u32; 1];
        signal_pcan(&[1000], &[3], &lut, &SignalPcan { snr_shift: 6 }, &mut out).unwrap();
        // gain 5: snr = 5000 >> 6 = 78; shrink = 78 * 78 >> 20 = 0.
        assert_eq!(out, [0]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = SignalPcan { snr_shift: 6 };
        refuses(
            [2, 2, 125, 2],
            [Exact, AtLeast, AtLeast, Exact],
            |[i, n, l, o]| {
                let mut out = vec![7_u32; o];
                (
                    signal_pcan(&vec![0; i], &vec![0; n], &vec![0; l], &p, &mut out),
                    untouched(&out, 7),
                )
            },
        );
    }
}
