//! Reference kernels, bit-exact with TensorFlow Lite Micro (feature `kernels`).
//!
//! One module per op kind (`conv`, `pooling`, ...), named as TFLM's kernel file and as the
//! op's build-time module in the planner. Each function computes exactly what TFLM's reference
//! kernel computes
//! (`tensorflow/lite/kernels/internal/reference/…`, `reference/integer_ops/…` and the
//! `tensorflow/lite/micro/kernels/*.cc` that call them): every float sum adds the same terms in
//! the same order (so it rounds identically), with the same fixed-point rounding ([`fixed`]),
//! saturation and order of clamping. The parameters are what TFLM's `Prepare` computes; the
//! planner computes them at build time (its `quant` module) and generated code passes them as
//! constants. The loops themselves are arranged for speed where that changes no bit: CONV_2D
//! takes the valid taps of a filter row as one run of adjacent input elements,
//! DEPTHWISE_CONV_2D and the pools go through a window with a block of channels at once, and
//! the int8 sums take the zero-point offsets out of the inner loop (`sum(f * (x + o))` as
//! `sum(f * x) + o * sum(f)`, equal modulo 2^32, which is how TFLM's int32 accumulator wraps),
//! so the inner loops are plain slice iterations the compiler vectorises.
//!
//! On Armv7E-M (`thumbv7em-*` targets, for which the build script sets cfg `stowplan_dsp`) the
//! int8 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED take loops blocked for the Cortex-M DSP
//! extension (module `simd`: `SXTB16`/`SXTAB16` widen four int8 values, `SMLAD` adds two
//! products, accumulators stay in registers) with the same results, and so do CONV_2D's other
//! shapes (`simd_conv`: 3 x 3, 5 x 5, strided, padded, dilated, the first layers' few input
//! channels), the int16 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED (`simd_s16`: `SMLALD`
//! and `SMLAD` on pairs of int16 values), the int8 and int16 pools, ADD and MUL
//! (`simd_elementwise`: `SSUB8`/`SSUB16` and `SEL` maxima, `SXTAB16`/`SXTAH` sums, four
//! elements a block); their instructions come from the crate's `dsp` module, the one place with `unsafe`
//! (`asm!`), outside this module.
//! Elsewhere (Armv6-M, the host, miri) the portable loops run; the tests run the blocked loops
//! on the host with a portable definition of each instruction.
//!
//! No heap, no `unsafe`, no panics: the kernels read through bounds-checked accessors and write
//! through iterators, so they cannot fail for any parameters (the generator's are computed at
//! build time and checked). With inconsistent parameters a kernel still does not panic:
//! CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and the pools first check that every slice is at
//! least as long as its shape says and return without writing otherwise; in the other kernels
//! reads past a slice's end read 0 (the data-movement kernels skip them) and writes past the
//! output's end are dropped; a division by a zero dimension returns without writing. Each
//! function's `# Preconditions` say what consistent means for it. Arithmetic that TFLM lets
//! overflow (int32 accumulators) wraps as it does on every target TFLM is built for.
//!
//! Float kernels call the C library's functions (`expf`, `logf`, `sinf`, `cosf`, `tanhf`,
//! `expm1f`, `sqrtf`, ...) through `stowplan_math`, ports of glibc's in IEEE and integer
//! arithmetic (as glibc's x86-64 FMA builds compute them, where it has those), so float kernels
//! match TFLM's host build on every target. Where TFLM converts an
//! out-of-range float to an integer (undefined in C++), QUANTIZE does what the x86-64 host
//! build does.
//!
//! [`overlap`] runs an op with its output in the same buffer as the input it consumes: CONV_2D,
//! DEPTHWISE_CONV_2D, the pools and FULLY_CONNECTED in chunks their kernels (portable or
//! blocked) take as two disjoint slices, the elementwise ops, PAD and CONCATENATION in memory
//! order.
//!
//! Shapes are TFLite's: NHWC activations, OHWI convolution filters, `1HWO` depthwise filters.
//!
//! The one switch between TFLM's double-rounding (default) and single-rounding builds is
//! [`fixed::SINGLE_ROUNDING`].
#![forbid(unsafe_code)]

// One module per op kind, named as its build-time module in the planner (`planner/src/ops/`)
// and its proof in `tests/conformance/`.
mod activations;
mod add;
mod batch_matmul;
mod broadcast;
mod concatenation;
mod conv;
mod depthwise_conv;
mod dequantize;
mod detection_postprocess;
pub mod fixed;
mod fully_connected;
mod l2_pool;
mod logistic;
mod lstm_eval;
mod mul;
pub mod overlap;
mod pad;
mod pooling;
mod quantize;
mod reduce;
mod reshape;
mod softmax;
mod svdf;
// The int8 loops blocked for the Cortex-M DSP extension (compiled on the host for its tests).
#[cfg(any(stowplan_dsp, test))]
mod simd;
// CONV_2D's other shapes (3 x 3, strided, padded, dilated, first layers) blocked likewise.
#[cfg(any(stowplan_dsp, test))]
mod simd_conv;
// The int16 (16x8) CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED blocked likewise.
#[cfg(any(stowplan_dsp, test))]
mod simd_s16;
// The pools, ADD and MUL (int8 and int16), blocked likewise.
#[cfg(any(stowplan_dsp, test))]
mod simd_elementwise;
#[cfg(test)]
mod tests;
mod transpose;
// Ops of the elementwise family (ops-b).
mod add_n;
mod cast;
mod comparisons;
mod div;
mod fill;
mod floor_div;
mod floor_mod;
mod logical;
mod maximum_minimum;
mod prelu;
mod select;
mod squared_difference;
mod sub;
mod zeros_like;

mod ceil;
mod elementwise;
mod elu;
mod exp;
mod floor;
mod hard_swish;
mod l2norm;
mod leaky_relu;
mod log_softmax;
mod neg;
mod round;
mod tanh;
// Data movement, indexing and the other reductions (one module per TFLM kernel file).
mod arg_min_max;
mod batch_to_space_nd;
mod broadcast_args;
mod broadcast_to;
mod cumsum;
mod depth_to_space;
mod dynamic_update_slice;
mod embedding_lookup;
mod gather;
mod gather_nd;
mod mirror_pad;
mod pack;
mod resize_bilinear;
mod resize_nearest_neighbor;
mod reverse;
mod shape;
mod slice;
mod space_to_batch_nd;
mod space_to_depth;
mod split;
mod split_v;
mod strided_slice;
mod transpose_conv;
mod unidirectional_sequence_lstm;
mod unpack;
// TFLM's signal library (custom ops, `signal/micro/kernels/`), one module per kernel file.
mod signal_delay;
mod signal_energy;
mod signal_fft_auto_scale;
mod signal_filter_bank;
mod signal_filter_bank_log;
mod signal_filter_bank_spectral_subtraction;
mod signal_filter_bank_square_root;
mod signal_pcan;
mod signal_rfft;
mod signal_window;
// TFLM's custom ops beyond the signal library.
mod circular_buffer;
// Beyond TFLM (folding).
mod densify;

pub use activations::{Relu6S8, ReluS8, relu_f32, relu_s8, relu6_f32, relu6_s8};
pub use add::{AddS8, add_f32, add_s8};
pub use arg_min_max::{ArgMinMax, arg_max, arg_min};
pub use batch_matmul::{
    BatchMatMulF32, BatchMatMulQ, BatchMatMulShape, batch_matmul_f32, batch_matmul_s8,
    batch_matmul_s16,
};
pub use batch_to_space_nd::{BatchToSpace, batch_to_space_nd};
pub use broadcast::{BinaryF32, BinaryShape};
pub use broadcast_args::{ShapeValue, broadcast_args};
pub use broadcast_to::{BroadcastTo, broadcast_to};
pub use concatenation::concatenation;
pub use conv::{ConvF32, ConvGeometry, ConvS8, conv2d_f32, conv2d_s8};
pub use conv::{ConvS16, conv2d_s8_i4, conv2d_s16, conv2d_s16_acc32};
pub use cumsum::{Cumsum, CumsumS8, cumsum_f32, cumsum_s8};
pub use densify::{Densify, DensifyLevel, densify};
pub use depth_to_space::{DepthToSpace, depth_to_space};
pub use depthwise_conv::{depthwise_conv2d_f32, depthwise_conv2d_s8};
pub use depthwise_conv::{depthwise_conv2d_s8_i4, depthwise_conv2d_s16};
pub use dequantize::{Dequantize, dequantize_s16_f32, dequantize_u8_f32};
pub use dequantize::{DequantizeS8F32, dequantize_s8_f32};
pub use dequantize::{dequantize_f16_f32, f16_to_f32};
pub use detection_postprocess::{
    DetectionPostProcess, MAX_CLASSES_PER_DETECTION, MAX_DETECTIONS_PER_CLASS,
    detection_postprocess,
};
pub use dynamic_update_slice::{DynamicUpdateSlice, dynamic_update_slice};
pub use embedding_lookup::{
    EmbeddingLookup, EmbeddingLookupHybrid, embedding_lookup, embedding_lookup_s8_f32,
};
pub use fully_connected::{
    FullyConnectedF32, FullyConnectedS8, fully_connected_f32, fully_connected_s8,
};
pub use fully_connected::{
    FullyConnectedS16, fully_connected_s8_i4, fully_connected_s16, fully_connected_s16_acc32,
};
pub use gather::{Gather, gather};
pub use gather_nd::{GatherNd, gather_nd};
pub use l2_pool::l2_pool_f32;
pub use logistic::{LogisticS8, logistic_f32, logistic_s8};
pub use lstm_eval::{LstmFc, LstmMul, LstmSize};
pub use mirror_pad::{MirrorPad, mirror_pad};
pub use mul::{MulS8, mul_f32, mul_s8};
pub use pack::pack;
pub use pad::{Pad, pad};
pub use pooling::{
    PoolF32, PoolGeometry, PoolS8, average_pool_f32, average_pool_s8, max_pool_f32, max_pool_s8,
};
pub use pooling::{PoolS16, average_pool_s16, max_pool_s16};
pub use quantize::{QuantizeF32S8, Requantize, quantize_f32_s8, requantize_s8};
pub use quantize::{
    QuantizeF32S16, quantize_f32_s16, requantize_s8_s16, requantize_s8_s32, requantize_s8_u8,
    requantize_s16, requantize_s16_s8, requantize_s16_s32, requantize_s32_s8, requantize_s32_s16,
    requantize_u8_s8,
};
pub use reduce::{MeanF32, MeanS8, mean_f32, mean_s8};
pub use reduce::{MeanS16, mean_s16};
pub use reduce::{
    Reduce, SumQuantized, reduce_all, reduce_max_f32, reduce_max_s8, reduce_min_f32, reduce_min_s8,
    sum_f32, sum_s8, sum_s16,
};
pub use reshape::copy;
pub use resize_bilinear::{ResizeBilinear, resize_bilinear_f32, resize_bilinear_s8};
pub use resize_nearest_neighbor::{ResizeNearestNeighbor, resize_nearest_neighbor};
pub use reverse::{Reverse, reverse};
pub use shape::shape;
pub use slice::{Slice, SliceDynamic, slice, slice_dynamic};
pub use softmax::{SoftmaxF32, SoftmaxS8, softmax_f32, softmax_s8};
pub use space_to_batch_nd::{SpaceToBatch, space_to_batch_nd};
pub use space_to_depth::{SpaceToDepth, space_to_depth};
pub use split::split;
pub use split_v::split_v;
pub use strided_slice::{StridedSlice, strided_slice};
pub use transpose::{Transpose, transpose};
pub use unpack::unpack;

pub use activations::{Relu6S16, ReluS16, relu_s16, relu6_s16};
pub use add::{AddS16, add_i32, add_s16};
pub use add_n::{AddNS8, add_n_f32, add_n_s8};
pub use broadcast::BinaryI32;
pub use cast::{CastFrom, cast};
pub use ceil::ceil_f32;
pub use comparisons::{Comparison, ComparisonS8, compare, compare_s8};
pub use div::{DivS8, div_f32, div_i32, div_s8};
pub use elementwise::{
    AbsQuantized, RsqrtS8, abs_f32, abs_s8, abs_s16, abs_s16_plain, cos_f32, log_f32, rsqrt_f32,
    rsqrt_s8, sin_f32, sqrt_f32, square_f32,
};
pub use elu::{EluS8, elu_f32, elu_s8};
pub use exp::exp_f32;
pub use fill::fill;
pub use floor::floor_f32;
pub use floor_div::floor_div_f32;
pub use floor_mod::floor_mod_f32;
pub use hard_swish::{HardSwishS8, hard_swish_f32, hard_swish_s8};
pub use l2norm::{L2Norm, l2norm_f32, l2norm_s8};
pub use leaky_relu::{
    LeakyReluF32, LeakyReluQuantized, leaky_relu_f32, leaky_relu_s8, leaky_relu_s16,
};
pub use log_softmax::{LogSoftmaxF32, LogSoftmaxS8, log_softmax_f32, log_softmax_s8};
pub use logical::{logical_and, logical_not, logical_or};
pub use logistic::{LogisticS16, logistic_s16};
pub use maximum_minimum::{maximum, minimum};
pub use mul::{MulS16, mul_i32, mul_s16};
pub use neg::neg_f32;
pub use prelu::{PreluQuant, prelu_f32, prelu_s8, prelu_s16};
pub use round::round_f32;
pub use select::{SelectShape, select};
pub use softmax::{SoftmaxS16, softmax_s8_s16, softmax_s16};
pub use squared_difference::{
    SquaredDifferenceQuant, squared_difference_f32, squared_difference_i32, squared_difference_s8,
    squared_difference_s16,
};
pub use sub::{SubQuant, sub_f32, sub_i32, sub_s8, sub_s16};
pub use svdf::{SvdfActivation, SvdfF32, SvdfS8, SvdfShape, svdf_f32, svdf_s8, svdf_s8_s16};
pub use tanh::{TanhS8, TanhS16, tanh_f32, tanh_s8, tanh_s16};
pub use transpose_conv::{
    TransposeConvF32, TransposeConvGeometry, TransposeConvS8, TransposeConvS16, transpose_conv_f32,
    transpose_conv_s8, transpose_conv_s16, transpose_conv_s16_bias16,
};
pub use unidirectional_sequence_lstm::{
    LstmCellState, LstmF32, LstmGate, LstmQuantized, LstmWeights, unidirectional_sequence_lstm_f32,
    unidirectional_sequence_lstm_s8, unidirectional_sequence_lstm_s16,
};
pub use zeros_like::zeros_like;

pub use signal_delay::{SignalDelay, signal_delay};
pub use signal_energy::{SignalEnergy, signal_energy};
pub use signal_fft_auto_scale::signal_fft_auto_scale;
pub use signal_filter_bank::{SignalFilterBank, signal_filter_bank};
pub use signal_filter_bank_log::{LOG_LUT_LEN, SignalFilterBankLog, signal_filter_bank_log};
pub use signal_filter_bank_spectral_subtraction::{
    SignalSpectralSubtraction, signal_filter_bank_spectral_subtraction,
};
pub use signal_filter_bank_square_root::signal_filter_bank_square_root;
pub use signal_pcan::{SignalPcan, signal_pcan};
pub use signal_rfft::{FftScalar, MAX_FACTORS, SignalRfft, signal_rfft};
pub use signal_window::{SignalWindow, signal_window};

pub use circular_buffer::{CircularBuffer, circular_buffer_s8};

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

/// `(sum(input * filter), sum(filter))` over the pairs of `input` and `filter`, wrapping like
/// TFLM's int32 accumulators; the int8 kernels add their offsets' terms afterwards (equal
/// modulo 2^32 to adding the offsets to every element), which keeps the loop vectorisable.
#[inline(always)]
#[cfg(not(stowplan_dsp))]
fn dot_s8(input: &[i8], filter: &[i8]) -> (i32, i32) {
    let mut products: i32 = 0;
    let mut filter_sum: i32 = 0;
    for (&x, &f) in input.iter().zip(filter) {
        products = products.wrapping_add(i32::from(x) * i32::from(f));
        filter_sum = filter_sum.wrapping_add(i32::from(f));
    }
    (products, filter_sum)
}

/// The first `dims.iter().product()` elements of `slice`, or `None` if the product overflows
/// or `slice` is shorter. Kernels size their slices once with it, so that every index they
/// compute afterwards is below a slice's length and cannot overflow.
#[inline(always)]
fn sized<'a, T>(slice: &'a [T], dims: &[usize]) -> Option<&'a [T]> {
    slice.get(..product(dims)?)
}

/// [`sized`] for the output.
#[inline(always)]
fn sized_mut<'a, T>(slice: &'a mut [T], dims: &[usize]) -> Option<&'a mut [T]> {
    slice.get_mut(..product(dims)?)
}

/// The product of `dims`, or `None` if it overflows.
#[inline(always)]
fn product(dims: &[usize]) -> Option<usize> {
    dims.iter().try_fold(1_usize, |n, &d| n.checked_mul(d))
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
