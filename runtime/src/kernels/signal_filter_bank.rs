//! `SignalFilterBank` (TFLM's `signal/micro/kernels/filter_bank.cc`,
//! `signal/src/filter_bank.cc`): triangular filters over an energy spectrum, accumulated in
//! uint64.

/// Parameters of [`signal_filter_bank`] (the op's custom options).
#[derive(Clone, Copy, Debug)]
pub struct SignalFilterBank {
    /// Channels (`num_channels`); the tables hold one more (channel 0 is scratch).
    pub num_channels: usize,
}

/// TFLM's `FilterbankAccumulateChannels` then its copy from channel 1: for each channel
/// `i` in `0..=num_channels` in order, over `j < widths[i]`, with `f = freq_starts[i] + j` and
/// `w = weight_starts[i] + j`, `acc += weights[w] * input[f]` and `unacc += unweights[w] *
/// input[f]` (the int16 weight converted to uint64, products and sums wrapping); channel `i`'s
/// result is `acc`, then `acc = unacc` and `unacc = 0`. `output[i - 1]` is channel `i`'s result.
///
/// # Preconditions
///
/// The three tables hold `num_channels + 1` values, starts are not negative and every index
/// is inside `input`, `weights` and `unweights`; `output.len() <= num_channels`. Reads past a
/// slice read 0; nothing panics.
#[allow(clippy::too_many_arguments)]
pub fn signal_filter_bank(
    input: &[u32],
    weights: &[i16],
    unweights: &[i16],
    freq_starts: &[i16],
    weight_starts: &[i16],
    widths: &[i16],
    params: &SignalFilterBank,
    output: &mut [u64],
) {
    let mut acc: u64 = 0;
    let mut unacc: u64 = 0;
    for i in 0..=params.num_channels {
        let fs = usize::try_from(super::shared::at(freq_starts, i)).unwrap_or(usize::MAX);
        let ws = usize::try_from(super::shared::at(weight_starts, i)).unwrap_or(usize::MAX);
        let width = usize::try_from(super::shared::at(widths, i)).unwrap_or(0);
        for j in 0..width {
            let x = u64::from(super::shared::at(input, fs.saturating_add(j)));
            let w = i64::from(super::shared::at(weights, ws.saturating_add(j))) as u64;
            let u = i64::from(super::shared::at(unweights, ws.saturating_add(j))) as u64;
            acc = acc.wrapping_add(w.wrapping_mul(x));
            unacc = unacc.wrapping_add(u.wrapping_mul(x));
        }
        if let Some(o) = i.checked_sub(1).and_then(|k| output.get_mut(k)) {
            *o = acc;
        }
        acc = unacc;
        unacc = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accumulates_weights_then_unweights() {
        let mut out = [0u64; 2];
        signal_filter_bank(
            &[10, 20, 30, 40],
            &[1, 2, 3, -1],
            &[5, 6, 7, 8],
            &[0, 1, 2],
            &[0, 1, 3],
            &[1, 2, 1],
            &SignalFilterBank { num_channels: 2 },
            &mut out,
        );
        // Channel 0: w 1*10 = 10 (dropped), u 5*10 = 50.
        // Channel 1: 50 + 2*20 + 3*30 = 180; u 6*20 + 7*30 = 330.
        // Channel 2: 330 + (-1 as u64)*30 wrapping = 300.
        assert_eq!(out, [180, 300]);
    }
}
