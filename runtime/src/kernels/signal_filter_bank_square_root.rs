//! `SignalFilterBankSquareRoot` (TFLM's `signal/micro/kernels/filter_bank_square_root.cc`,
//! `signal/src/filter_bank_square_root.cc`, `square_root_32.cc`, `square_root_64.cc`):
//! integer square roots, rounded, shifted down.

use super::shared::check::{KernelError, check, length, require};
use super::signal_fft_auto_scale::most_significant_bit_32;

/// TFLM's `MostSignificantBit64` (GCC build): `64 - clzll(x)`, 64 for 0.
const fn most_significant_bit_64(x: u64) -> u32 {
    if x == 0 { 64 } else { 64 - x.leading_zeros() }
}

/// TFLM's `Sqrt32`: bit-by-bit square root, rounded up when the remainder exceeds the root
/// (unless the root is `0xFFFF`).
pub(crate) fn sqrt32(mut num: u32) -> u16 {
    if num == 0 {
        return 0;
    }
    let mut res: u32 = 0;
    let max_bit_number = (32 - most_significant_bit_32(num)) | 1;
    let mut bit: u32 = 1u32 << ((31 - max_bit_number) & 31);
    let mut iterations = (31 - max_bit_number) / 2 + 1;
    while iterations > 0 {
        iterations -= 1;
        if num >= res.wrapping_add(bit) {
            num = num.wrapping_sub(res.wrapping_add(bit));
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if num > res && res != 0xFFFF {
        res += 1;
    }
    res as u16
}

/// TFLM's `Sqrt64`: [`sqrt32`] when the high word is 0, else the 64-bit loop, rounded the
/// same way (unless the root is `0xFFFFFFFF`), narrowed to uint32.
pub(crate) fn sqrt64(mut num: u64) -> u32 {
    if num >> 32 == 0 {
        return u32::from(sqrt32(num as u32));
    }
    let mut res: u64 = 0;
    let max_bit_number = (64 - most_significant_bit_64(num)) | 1;
    let mut bit: u64 = 1u64 << ((63 - max_bit_number) & 63);
    let mut iterations = (63 - max_bit_number) / 2 + 1;
    while iterations > 0 {
        iterations -= 1;
        if num >= res.wrapping_add(bit) {
            num = num.wrapping_sub(res.wrapping_add(bit));
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if num > res && res != 0xFFFF_FFFF {
        res += 1;
    }
    res as u32
}

/// [`signal_filter_bank_square_root`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_signal_filter_bank_square_root(
    input: usize,
    scale_bits: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(require(
        output >= input,
        "the output is shorter than the input"
    ));
    length("scale_bits", Some(1), scale_bits)
}

/// TFLM's `FilterbankSqrt`: `out[i] = Sqrt64(in[i]) >> scale_bits[0]` over the input; the
/// shift count taken modulo 32 as x86-64's `shr` takes it (TFLM's shift by 32 or more is
/// undefined).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_signal_filter_bank_square_root`]) hold: `output.len() >= input.len()`,
/// `scale_bits.len() == 1`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn signal_filter_bank_square_root(
    input: &[u64],
    scale_bits: &[i32],
    output: &mut [u32],
) -> Result<(), KernelError> {
    check_signal_filter_bank_square_root(input.len(), scale_bits.len(), output.len())?;
    proven::signal_filter_bank_square_root(input, scale_bits, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`signal_filter_bank_square_root`](super::signal_filter_bank_square_root), its [`check`](super::check_signal_filter_bank_square_root) proven.
    #[inline]
    pub fn signal_filter_bank_square_root(input: &[u64], scale_bits: &[i32], output: &mut [u32]) {
        debug_assert!(
            super::check_signal_filter_bank_square_root(
                input.len(),
                scale_bits.len(),
                output.len()
            )
            .is_ok()
        );
        let shift = (scale_bits.first().copied().unwrap_or(0) as u32) & 31;
        for (o, &x) in output.iter_mut().zip(input) {
            *o = sqrt64(x) >> shift;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots() {
        assert_eq!(sqrt32(0), 0);
        assert_eq!(sqrt32(16), 4);
        assert_eq!(sqrt32(17), 4);
        assert_eq!(sqrt32(21), 5);
        assert_eq!(sqrt32(u32::MAX), 0xFFFF);
        assert_eq!(sqrt64(1 << 40), 1 << 20);
        assert_eq!(sqrt64(u64::MAX), 0xFFFF_FFFF);
        let mut out = [0u32; 2];
        signal_filter_bank_square_root(&[1 << 40, 100], &[2], &mut out).unwrap();
        assert_eq!(out, [1 << 18, 2]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        refuses([2, 1, 2], [AtMost, Exact, AtLeast], |[i, s, o]| {
            let mut out = vec![7_u32; o];
            (
                signal_filter_bank_square_root(&vec![0; i], &vec![0; s], &mut out),
                untouched(&out, 7),
            )
        });
    }
}
