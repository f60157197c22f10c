//! `SignalFilterBankLog` (TFLM's `signal/micro/kernels/filter_bank_log.cc`,
//! `signal/src/filter_bank_log.cc`, `signal/src/log.cc`): a fixed-point natural logarithm,
//! scaled and saturated to int16.

use super::shared::check::{KernelError, require};
use super::signal_fft_auto_scale::most_significant_bit_32;

/// Entries of [`SignalFilterBankLog::lut`]: 129 segment ends and one pad.
pub const LOG_LUT_LEN: usize = 130;

/// Parameters of [`signal_filter_bank_log`] (the op's custom options, and TFLM's log table).
#[derive(Clone, Copy, Debug)]
pub struct SignalFilterBankLog {
    /// `output_scale`, as TFLM's `uint32_t`.
    pub output_scale: u32,
    /// `input_correction_bits` (0 to 31).
    pub input_correction_bits: u32,
    /// TFLM's `kLogLut`: `round(65536 * (log2(1 + i/128) - i/128))` for `i` in `0..=128`, then
    /// 0 (computed when the crate builds).
    pub lut: [u16; LOG_LUT_LEN],
}

/// TFLM's `Log2FractionPart32`: the fraction of `log2(x)`, 16 bits, by linear interpolation in
/// the table.
fn log2_fraction(x: u32, log2x: u32, lut: &[u16]) -> u32 {
    let mut frac = x.wrapping_sub(1u32 << (log2x & 31)) as i32;
    if log2x < 16 {
        frac <<= 16 - log2x;
    } else {
        frac >>= log2x - 16;
    }
    let base_seg = (frac >> 9) as u32;
    let c0 = i32::from(super::shared::at(lut, base_seg as usize));
    let c1 = i32::from(super::shared::at(lut, base_seg as usize + 1));
    let seg_base = (512 * base_seg) as i32;
    let rel_pos = ((c1 - c0).wrapping_mul(frac.wrapping_sub(seg_base))) >> 16;
    frac.wrapping_add(c0).wrapping_add(rel_pos) as u32
}

/// TFLM's `Log32`: `ln(x)` with 16 fractional bits from `log2`, times `out_scale`, rounded.
fn log32(x: u32, out_scale: u32, lut: &[u16]) -> u32 {
    let integer = most_significant_bit_32(x).wrapping_sub(1);
    let fraction = log2_fraction(x, integer, lut);
    let log2 = (integer << 16).wrapping_add(fraction);
    let round: u32 = 32768;
    let loge = ((45426u64 * u64::from(log2) + u64::from(round)) >> 16) as u32;
    out_scale.wrapping_mul(loge).wrapping_add(round) >> 16
}

/// [`signal_filter_bank_log`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_signal_filter_bank_log(
    input: usize,
    _params: &SignalFilterBankLog,
    output: usize,
) -> Result<(), KernelError> {
    require(output >= input, "the output is shorter than the input")
}

/// TFLM's `FilterbankLog`: for each input channel, `s = in[i] << input_correction_bits`;
/// `out[i] = min(Log32(s, output_scale), 32767)` if `s > 1`, else 0.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_signal_filter_bank_log`]) hold: `output.len() >= input.len()`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn signal_filter_bank_log(
    input: &[u32],
    params: &SignalFilterBankLog,
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_signal_filter_bank_log(input.len(), params, output.len())?;
    proven::signal_filter_bank_log(input, params, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`signal_filter_bank_log`](super::signal_filter_bank_log), its [`check`](super::check_signal_filter_bank_log) proven.
    #[inline]
    pub fn signal_filter_bank_log(input: &[u32], params: &SignalFilterBankLog, output: &mut [i16]) {
        debug_assert!(
            super::check_signal_filter_bank_log(input.len(), params, output.len()).is_ok()
        );
        let shift = params.input_correction_bits & 31;
        for (o, &x) in output.iter_mut().zip(input) {
            let scaled = x << shift;
            *o = if scaled > 1 {
                log32(scaled, params.output_scale, &params.lut).min(i16::MAX as u32) as i16
            } else {
                0
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs() {
        // A table that is 0 everywhere still gives exact logs of powers of two.
        let p = SignalFilterBankLog {
            output_scale: 1,
            input_correction_bits: 0,
            lut: [0; LOG_LUT_LEN],
        };
        let mut out = [0i16; 3];
        signal_filter_bank_log(&[0, 1, 1 << 20], &p, &mut out).unwrap();
        // ln(2^20) = 13.86: loge = 908520 (Q16), (908520 + 32768) >> 16 = 14.
        assert_eq!(out, [0, 0, 14]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = SignalFilterBankLog {
            output_scale: 1600,
            input_correction_bits: 3,
            lut: [0; LOG_LUT_LEN],
        };
        refuses([3, 3], [AtMost, AtLeast], |[i, o]| {
            let mut out = vec![7_i16; o];
            (
                signal_filter_bank_log(&vec![0; i], &p, &mut out),
                untouched(&out, 7),
            )
        });
    }
}
