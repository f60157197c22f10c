//! Reference kernels, bit-exact with TensorFlow Lite Micro (feature `kernels`).
//!
//! Each function computes exactly what TFLM's reference kernel computes
//! (`tensorflow/lite/kernels/internal/reference/…`, `reference/integer_ops/…` and the
//! `tensorflow/lite/micro/kernels/*.cc` that call them): the same loop order (so float sums
//! are added in the same order and round identically), the same fixed-point rounding
//! ([`fixed`]), saturation and order of clamping. The parameters are what TFLM's `Prepare`
//! computes; the planner computes them at build time (its `quant` module) and generated code
//! passes them as constants.
//!
//! No heap, no `unsafe`, no panics: every kernel reads its inputs through bounds-checked
//! accessors that cannot fail for parameters that describe the slices consistently (the
//! generator's parameters are computed at build time and checked), and writes its output
//! through an iterator. With inconsistent parameters a kernel still does not panic: reads
//! past a slice's end read 0 (the data-movement kernels skip them), writes past the output's
//! end are dropped, and a division by a zero dimension returns without writing. Each
//! function's `# Preconditions` say what consistent means for it. Arithmetic that TFLM lets
//! overflow (int32 accumulators) wraps as it does on every target TFLM is built for.
//!
//! Float kernels call `exp` through a port of glibc's and musl's `expf` (Arm's
//! optimized-routines algorithm) in plain IEEE arithmetic, so float SOFTMAX and LOGISTIC match
//! TFLM built against those C libraries, on every target. Where TFLM converts an
//! out-of-range float to an integer (undefined in C++), QUANTIZE does what the x86-64 host
//! build does.
//!
//! Shapes are TFLite's: NHWC activations, OHWI convolution filters, `1HWO` depthwise filters.
//!
//! The one switch between TFLM's double-rounding (default) and single-rounding builds is
//! [`fixed::SINGLE_ROUNDING`].
#![forbid(unsafe_code)]

mod activations;
mod conv;
mod elementwise;
mod expf;
pub mod fixed;
mod fully_connected;
mod pooling;
mod quantize;
mod reduce;
mod shape;
mod softmax;
#[cfg(test)]
mod tests;

pub use activations::{
    LogisticS8, Relu6S8, ReluS8, logistic_f32, logistic_s8, relu_f32, relu_s8, relu6_f32, relu6_s8,
};
pub use conv::{
    ConvF32, ConvGeometry, ConvS8, conv2d_f32, conv2d_s8, depthwise_conv2d_f32, depthwise_conv2d_s8,
};
pub use elementwise::{AddS8, BinaryF32, BinaryShape, MulS8, add_f32, add_s8, mul_f32, mul_s8};
pub use fully_connected::{
    FullyConnectedF32, FullyConnectedS8, fully_connected_f32, fully_connected_s8,
};
pub use pooling::{
    PoolF32, PoolGeometry, PoolS8, average_pool_f32, average_pool_s8, max_pool_f32, max_pool_s8,
};
pub use quantize::{
    DequantizeS8F32, QuantizeF32S8, Requantize, dequantize_s8_f32, quantize_f32_s8, requantize_s8,
};
pub use reduce::{MeanF32, MeanS8, mean_f32, mean_s8};
pub use shape::{Pad, Transpose, concatenation, copy, pad, transpose};
pub use softmax::{SoftmaxF32, SoftmaxS8, softmax_f32, softmax_s8};

/// TFLM's `(quantized_multiplier, shift)` pair from `QuantizeMultiplier`: the real multiplier
/// `multiplier * 2^(shift - 31)`; `shift > 0` is a left shift.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Requant {
    /// Q0.31 significand in `[2^30, 2^31)`, or 0.
    pub multiplier: i32,
    /// Power-of-two exponent; positive shifts left.
    pub shift: i32,
}

impl Requant {
    /// Multiplies `x` by this multiplier as TFLM's `MultiplyByQuantizedMultiplier` does.
    #[must_use]
    pub const fn apply(&self, x: i32) -> i32 {
        fixed::multiply_by_quantized_multiplier(x, self.multiplier, self.shift)
    }
}

/// The element at `index`, or the default (0) past the end: never panics.
#[inline(always)]
fn at<T: Copy + Default>(slice: &[T], index: usize) -> T {
    match slice.get(index) {
        Some(&value) => value,
        None => T::default(),
    }
}

/// Clamps an accumulator into `[min, max]` the way TFLM does (`max` first, then `min`) and
/// narrows it to `i8` (the C++ `static_cast`, which wraps if the range is wider than `i8`).
#[inline(always)]
fn clamp_to_i8(acc: i32, min: i32, max: i32) -> i8 {
    let acc = if acc < min { min } else { acc };
    let acc = if acc > max { max } else { acc };
    acc as i8
}

/// TFLM's `ActivationFunctionWithMinMax` for floats: `min(max(x, lo), hi)` with `std::max` and
/// `std::min` semantics (`std::max(a, b)` is `a < b ? b : a`, so a NaN `x` stays NaN).
#[inline(always)]
fn activation_f32(x: f32, lo: f32, hi: f32) -> f32 {
    let x = if x < lo { lo } else { x };
    if hi < x { hi } else { x }
}
