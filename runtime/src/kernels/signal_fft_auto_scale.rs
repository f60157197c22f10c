//! `SignalFftAutoScale` (TFLM's `signal/micro/kernels/fft_auto_scale_kernel.cc`,
//! `signal/src/fft_auto_scale.cc`, `max_abs.cc`, `msb_32.cc`): the input scaled up by the
//! largest power of two that keeps its largest magnitude within int16, and that power.

use super::shared::check::{KernelError, check, length, require};

/// TFLM's `MostSignificantBit32` as its GCC build computes it: `32 - clz(x)`, and 32 for 0.
pub(crate) const fn most_significant_bit_32(x: u32) -> u32 {
    if x == 0 { 32 } else { 32 - x.leading_zeros() }
}

/// TFLM's `MaxAbs16` (the portable loop): `max` starts at 0; a value above it replaces it,
/// else its negation if above it, negated in int then narrowed to int16 (`-(-32768)` becomes
/// -32768, which every later value exceeds).
fn max_abs_16(input: &[i16]) -> i16 {
    let mut max: i16 = 0;
    for &v in input {
        if v > max {
            max = v;
        } else if -i32::from(v) > i32::from(max) {
            max = (-i32::from(v)) as i16;
        }
    }
    max
}

/// [`signal_fft_auto_scale`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_signal_fft_auto_scale(
    input: usize,
    output: usize,
    scale_bit: usize,
) -> Result<(), KernelError> {
    check!(require(
        output <= input,
        "the output is longer than the input"
    ));
    length("scale_bit", Some(1), scale_bit)
}

/// TFLM's `FftAutoScaleEval`: `scale = max(0, 15 - MostSignificantBit32(max_abs))` (the
/// int16 maximum widened to `uint32_t` with its sign), `out[i] = in[i] * 2^scale` narrowed
/// to int16, over the output's length; `scale_bit[0] = scale`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_signal_fft_auto_scale`]) hold: `input.len() >= output.len()` (TFLM reads the
/// output's length of input), `scale_bit.len() == 1`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn signal_fft_auto_scale(
    input: &[i16],
    output: &mut [i16],
    scale_bit: &mut [i32],
) -> Result<(), KernelError> {
    check_signal_fft_auto_scale(input.len(), output.len(), scale_bit.len())?;
    proven::signal_fft_auto_scale(input, output, scale_bit);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`signal_fft_auto_scale`](super::signal_fft_auto_scale), its [`check`](super::check_signal_fft_auto_scale) proven.
    #[inline]
    pub fn signal_fft_auto_scale(input: &[i16], output: &mut [i16], scale_bit: &mut [i32]) {
        debug_assert!(
            super::check_signal_fft_auto_scale(input.len(), output.len(), scale_bit.len()).is_ok()
        );
        let n = output.len().min(input.len());
        let data = input.get(..n).unwrap_or(&[]);
        let max = max_abs_16(data);
        let msb = most_significant_bit_32(i32::from(max) as u32);
        let scale = (16 - msb as i32 - 1).max(0);
        for (o, &x) in output.iter_mut().zip(data) {
            *o = (i32::from(x) * (1i32 << scale)) as i16;
        }
        if let Some(s) = scale_bit.first_mut() {
            *s = scale;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_to_the_top_bit() {
        let mut out = [0i16; 3];
        let mut s = [0i32];
        signal_fft_auto_scale(&[1, -2, 3], &mut out, &mut s).unwrap();
        assert_eq!((out, s), ([8192, -16384, 24576], [13]));
        signal_fft_auto_scale(&[0, 0, 0], &mut out, &mut s).unwrap();
        assert_eq!((out, s), ([0, 0, 0], [0]));
        // -32768 first: every later value replaces it.
        signal_fft_auto_scale(&[-32768, 5, 1], &mut out, &mut s).unwrap();
        assert_eq!((out, s), ([0, 20480, 4096], [12]));
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        refuses([3, 3, 1], [AtLeast, AtMost, Exact], |[i, o, s]| {
            let (mut out, mut scale) = (vec![7_i16; o], vec![7_i32; s]);
            let r = signal_fft_auto_scale(&vec![1; i], &mut out, &mut scale);
            (r, untouched(&out, 7) && untouched(&scale, 7))
        });
    }
}
