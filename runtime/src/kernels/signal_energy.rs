//! `SignalEnergy` (TFLM's `signal/micro/kernels/energy.cc`, `signal/src/energy.cc`): the
//! squared magnitude of complex int16 values.

/// Parameters of [`signal_energy`] (the op's custom options).
#[derive(Clone, Copy, Debug)]
pub struct SignalEnergy {
    /// First complex value (`start_index`).
    pub start: usize,
    /// One past the last (`end_index`).
    pub end: usize,
}

/// TFLM's `SpectrumToEnergy`: for `start <= i < end`,
/// `out[i] = re*re + im*im` of complex value `i` (`input[2i]`, `input[2i + 1]`), the int32
/// sum wrapping as x86-64 does (two `-32768`s give `2^31`), as uint32. Other outputs are not
/// written, as in TFLM.
///
/// # Preconditions
///
/// `input.len() >= 2 * end`, `output.len() >= end`; values past either are skipped.
pub fn signal_energy(input: &[i16], params: &SignalEnergy, output: &mut [u32]) {
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
        );
        assert_eq!(out, [7, 25, 1 << 31]);
    }
}
