//! `SignalFilterBank` (TFLM's `signal/micro/kernels/filter_bank.cc`,
//! `signal/src/filter_bank.cc`): triangular filters over an energy spectrum, accumulated in
//! uint64.

use super::shared::check::{KernelError, check, require};

/// Parameters of [`signal_filter_bank`] (the op's custom options).
#[derive(Clone, Copy, Debug)]
pub struct SignalFilterBank {
    /// Channels (`num_channels`); the tables hold one more (channel 0 is scratch).
    pub num_channels: usize,
}

/// What [`signal_filter_bank`]'s entry checks of the tables' values (generated code's tables are
/// constants, which the planner checks): every channel's span, `width` values from its
/// `freq_start` in `input` and from its `weight_start` in `weights` and `unweights`, lies inside
/// them (its starts not negative where its width is positive).
#[allow(clippy::too_many_arguments)]
fn check_signal_filter_bank_spans(
    input: &[u32],
    weights: &[i16],
    unweights: &[i16],
    freq_starts: &[i16],
    weight_starts: &[i16],
    widths: &[i16],
    params: &SignalFilterBank,
) -> Result<(), KernelError> {
    // A width of 0 or below reads nothing (TFLM's loop does not run).
    let inside = |start: i16, width: i16, len: usize| {
        width <= 0
            || usize::try_from(start)
                .is_ok_and(|s| usize::try_from(width).is_ok_and(|w| s + w <= len))
    };
    for i in 0..=params.num_channels {
        let (f, w, n) = (
            freq_starts.get(i).copied().unwrap_or(-1),
            weight_starts.get(i).copied().unwrap_or(-1),
            widths.get(i).copied().unwrap_or(-1),
        );
        require(
            inside(f, n, input.len())
                && inside(w, n, weights.len())
                && inside(w, n, unweights.len()),
            "a channel's span reaches outside the input or the weights",
        )?;
    }
    Ok(())
}

/// [`signal_filter_bank`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
#[allow(clippy::too_many_arguments)]
pub const fn check_signal_filter_bank(
    _input: usize,
    _weights: usize,
    _unweights: usize,
    freq_starts: usize,
    weight_starts: usize,
    widths: usize,
    params: &SignalFilterBank,
    output: usize,
) -> Result<(), KernelError> {
    let tables = match params.num_channels.checked_add(1) {
        Some(n) => n,
        None => return Err(KernelError::Parameters("num_channels overflows")),
    };
    check!(require(
        freq_starts >= tables && weight_starts >= tables && widths >= tables,
        "a channel table holds fewer than num_channels + 1 values"
    ));
    require(
        output <= params.num_channels,
        "the output is longer than num_channels",
    )
}

/// TFLM's `FilterbankAccumulateChannels` then its copy from channel 1: for each channel
/// `i` in `0..=num_channels` in order, over `j < widths[i]`, with `f = freq_starts[i] + j` and
/// `w = weight_starts[i] + j`, `acc += weights[w] * input[f]` and `unacc += unweights[w] *
/// input[f]` (the int16 weight converted to uint64, products and sums wrapping); channel `i`'s
/// result is `acc`, then `acc = unacc` and `unacc = 0`. `output[i - 1]` is channel `i`'s result.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_signal_filter_bank`]) hold: the three tables hold at least `num_channels + 1`
/// values and `output.len() <= num_channels`; and, checked by this entry only (generated code's
/// tables are constants the planner checks), every channel's span lies inside `input`,
/// `weights` and `unweights` (starts and widths not negative).
#[allow(clippy::too_many_arguments)]
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn signal_filter_bank(
    input: &[u32],
    weights: &[i16],
    unweights: &[i16],
    freq_starts: &[i16],
    weight_starts: &[i16],
    widths: &[i16],
    params: &SignalFilterBank,
    output: &mut [u64],
) -> Result<(), KernelError> {
    check_signal_filter_bank(
        input.len(),
        weights.len(),
        unweights.len(),
        freq_starts.len(),
        weight_starts.len(),
        widths.len(),
        params,
        output.len(),
    )?;
    check_signal_filter_bank_spans(
        input,
        weights,
        unweights,
        freq_starts,
        weight_starts,
        widths,
        params,
    )?;
    proven::signal_filter_bank(
        input,
        weights,
        unweights,
        freq_starts,
        weight_starts,
        widths,
        params,
        output,
    );
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`signal_filter_bank`](super::signal_filter_bank), its [`check`](super::check_signal_filter_bank) proven.
    #[inline]
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
        debug_assert!(
            super::check_signal_filter_bank(
                input.len(),
                weights.len(),
                unweights.len(),
                freq_starts.len(),
                weight_starts.len(),
                widths.len(),
                params,
                output.len()
            )
            .is_ok()
        );
        let mut acc: u64 = 0;
        let mut unacc: u64 = 0;
        for i in 0..=params.num_channels {
            let fs =
                usize::try_from(super::super::shared::at(freq_starts, i)).unwrap_or(usize::MAX);
            let ws =
                usize::try_from(super::super::shared::at(weight_starts, i)).unwrap_or(usize::MAX);
            let width = usize::try_from(super::super::shared::at(widths, i)).unwrap_or(0);
            for j in 0..width {
                let x = u64::from(super::super::shared::at(input, fs.saturating_add(j)));
                let w = i64::from(super::super::shared::at(weights, ws.saturating_add(j))) as u64;
                let u = i64::from(super::super::shared::at(unweights, ws.saturating_add(j))) as u64;
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
        )
        .unwrap();
        // Channel 0: w 1*10 = 10 (dropped), u 5*10 = 50.
        // Channel 1: 50 + 2*20 + 3*30 = 180; u 6*20 + 7*30 = 330.
        // Channel 2: 330 + (-1 as u64)*30 wrapping = 300.
        assert_eq!(out, [180, 300]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = SignalFilterBank { num_channels: 2 };
        refuses(
            [4, 4, 4, 3, 3, 3, 2],
            [AtLeast, AtLeast, AtLeast, AtLeast, AtLeast, AtLeast, AtMost],
            |[i, w, u, f, s, n, o]| {
                let mut out = vec![7_u64; o];
                // Channel 2 spans input values and weights 2..4: the slices hold at least 4.
                let table = |values: [i16; 4], len: usize| values[..len.min(4)].to_vec();
                let (freq, starts) = (table([0, 1, 2, 2], f), table([0, 1, 2, 2], s));
                let widths = table([1, 1, 2, 0], n);
                let r = signal_filter_bank(
                    &vec![0; i],
                    &vec![0; w],
                    &vec![0; u],
                    &freq,
                    &starts,
                    &widths,
                    &p,
                    &mut out,
                );
                (r, untouched(&out, 7))
            },
        );
        // A span past the input.
        let mut out = [7_u64; 2];
        let r = signal_filter_bank(
            &[0; 4],
            &[0; 4],
            &[0; 4],
            &[0, 3, 0],
            &[0; 3],
            &[1, 2, 1],
            &p,
            &mut out,
        );
        assert!(r.is_err());
        assert_eq!(out, [7; 2]);
    }
}
