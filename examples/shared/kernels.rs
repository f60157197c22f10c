//! The kernels the examples' model needs: float32 FULLY_CONNECTED with a fused activation,
//! computed as TFLite's reference kernel does
//! (`tensorflow/lite/kernels/internal/reference/fully_connected.h`): for each output, the
//! products summed in input order, then the bias, then the activation. Rust never fuses a
//! multiply and an add on its own, so on an IEEE-754 float unit this gives TFLite's bits.
//!
//! `no_std`, no `unsafe`: `examples/desktop` and `examples/cortex-m` include this file with
//! `#[path]` (as does the test that checks the inference against TFLite's output).

/// A fused activation (TFLite's `ActivationFunctionType`, the values the examples need).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// None.
    None,
    /// `max(x, 0)`.
    Relu,
}

impl Activation {
    /// Applies the activation.
    #[must_use]
    pub fn apply(self, x: f32) -> f32 {
        match self {
            Self::None => x,
            Self::Relu => x.max(0.0),
        }
    }
}

/// FULLY_CONNECTED: `output[b][o] = act(Σ_d input[b][d] × weights[o][d] + bias[o])`, with
/// `weights` `[outputs, depth]` row-major as TFLite stores them and `bias` `[outputs]`.
///
/// # Panics
///
/// If the lengths do not fit together: `bias.len()` outputs, `weights.len() / bias.len()`
/// the depth, `input` a whole number of rows of that depth, `output` one row per input row.
pub fn fully_connected(
    input: &[f32],
    weights: &[f32],
    bias: &[f32],
    output: &mut [f32],
    activation: Activation,
) {
    let outputs = bias.len();
    assert!(
        outputs > 0 && weights.len().is_multiple_of(outputs),
        "weights do not fit the bias"
    );
    let depth = weights.len() / outputs;
    assert!(
        depth > 0
            && input.len().is_multiple_of(depth)
            && output.len() == input.len() / depth * outputs,
        "input and output do not fit the weights"
    );
    for (row, out) in input
        .chunks_exact(depth)
        .zip(output.chunks_exact_mut(outputs))
    {
        for ((y, w), b) in out.iter_mut().zip(weights.chunks_exact(depth)).zip(bias) {
            let mut total = 0.0f32;
            for (x, w) in row.iter().zip(w) {
                total += x * w;
            }
            *y = activation.apply(total + b);
        }
    }
}
