//! `SignalWindow` (TFLM's `signal/micro/kernels/window.cc`, `signal/src/window.cc`): each frame
//! of the input times the window, shifted right and saturated to int16.

/// Parameters of [`signal_window`] (from the op's custom options).
#[derive(Clone, Copy, Debug)]
pub struct SignalWindow {
    /// Right shift of each product (`shift`; 0 to 31).
    pub shift: u32,
}

/// TFLM's `WindowEval`: for each frame of `weights.len()` input values,
/// `ApplyWindow`: `out[i] = sat_i16((in[i] * w[i]) >> shift)`, frames in order.
///
/// # Preconditions
///
/// `weights` is not empty, `input.len()` is a multiple of it, `output.len() == input.len()`.
/// Otherwise the frames that do not fit are skipped; nothing panics.
pub fn signal_window(input: &[i16], weights: &[i16], params: &SignalWindow, output: &mut [i16]) {
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
        );
        assert_eq!(out, [32767, -32768, 100, -2]);
        let mut out = [0i16; 4];
        signal_window(
            &[1, 2, 3, 4],
            &[4096, 8192],
            &SignalWindow { shift: 12 },
            &mut out,
        );
        assert_eq!(out, [1, 4, 3, 8]);
    }
}
