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
//! int8 and int16 CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, the pools, ADD and MUL take loops
//! blocked for the Cortex-M DSP extension (each op's `dsp` module: `SXTB16`/`SXTAB16` widen
//! four int8 values, `SMLAD`/`SMLALD` add two products, `SSUB8`/`SSUB16` and `SEL` take
//! maxima, accumulators stay in registers) with the same results; their instructions come
//! from the crate's `dsp` module, the one place with `unsafe` (`asm!`), outside this module.
//! Elsewhere (Armv6-M, the host, miri) the portable loops run; the tests run the blocked loops
//! on the host with a portable definition of each instruction.
//!
//! # Layout
//!
//! One module per op kind, named as TFLM's kernel file, as the op's build-time module in the
//! planner (`planner/src/ops/<op>.rs`) and as its proof in `tests/conformance/<op>.rs`. An op
//! with more than its portable kernel is a folder: `<op>/mod.rs` (the portable kernel and its
//! public entry points), `<op>/dsp.rs` (or `<op>/dsp/`: the Cortex-M DSP variant),
//! `<op>/in_place.rs` (its one-buffer entries, listed by [`overlap`]) and their tests. What
//! several ops share sits below them in `shared` (fixed-point arithmetic and requantisation,
//! slices, the window geometry, the broadcast walk, the in-place driver, the blocked loops'
//! common pieces) and imports no op. This file is the table: the modules and what each
//! exports; [`overlap`] is the table of the one-buffer entries.
//!
//! No heap, no `unsafe`, no panics. Each kernel `f` has `check_f`, a `const fn` of its
//! parameters and its slices' lengths stating its preconditions (its `# Errors`): `f` checks
//! first and returns `Err(KernelError)`, writing nothing, when they do not hold. Generated code
//! asserts each op's check when the crate compiles, on the lengths of the views it passes, and
//! calls the proven entries ([`proven`], not public API), which check nothing at run time (in
//! debug builds they assert it). Inside, the kernels read through bounds-checked accessors and
//! write through iterators. Arithmetic that TFLM lets overflow (int32 accumulators) wraps as it
//! does on every target TFLM is built for.
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
//! blocked) take as two disjoint slices, the elementwise ops, ADD, MUL, PAD and CONCATENATION in
//! memory order.
//!
//! Shapes are TFLite's: NHWC activations, OHWI convolution filters, `1HWO` depthwise filters.
//!
//! The one switch between TFLM's double-rounding (default) and single-rounding builds is
//! [`fixed::SINGLE_ROUNDING`].
#![forbid(unsafe_code)]

// What the ops share, below them (imports no op).
mod shared;
pub use shared::fixed;

// One module per op kind, named as its build-time module in the planner (`planner/src/ops/`)
// and its proof in `tests/conformance/`.
mod activations;
mod add;
mod batch_matmul;
mod concatenation;
mod conv;
mod depthwise_conv;
mod dequantize;
mod detection_postprocess;
mod fully_connected;
mod l2_pool;
mod logistic;
mod lstm_eval;
mod mul;
#[cfg(test)]
mod overlap_tests;
mod pad;
mod pooling;
mod quantize;
mod reduce;
mod reshape;
mod softmax;
mod svdf;
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

pub mod overlap;
#[doc(hidden)]
pub mod proven;

pub use shared::check::KernelError;

pub use activations::{Relu6S8, ReluS8, relu_f32, relu_s8, relu6_f32, relu6_s8};
pub use add::kernel as add_kernel;
pub use add::{AddS8, add_f32, add_s8};
pub use add::{check_add_f32, check_add_i32, check_add_s8, check_add_s8_with, check_add_s16};
pub use arg_min_max::{ArgMinMax, arg_max, arg_min};
pub use batch_matmul::{
    BatchMatMulF32, BatchMatMulQ, BatchMatMulShape, batch_matmul_f32, batch_matmul_s8,
    batch_matmul_s16,
};
pub use batch_to_space_nd::{BatchToSpace, batch_to_space_nd};
pub use broadcast_args::{ShapeValue, broadcast_args};
pub use broadcast_to::{BroadcastTo, broadcast_to};
pub use concatenation::{check_concatenation, concatenation};
pub use conv::kernel as conv_kernel;
pub use conv::{
    check_conv2d_f32, check_conv2d_s8, check_conv2d_s8_i4, check_conv2d_s8_with,
    check_conv2d_s8_with_scratch, check_conv2d_s16, check_conv2d_s16_acc32,
};
pub use conv::{conv2d_f32, conv2d_s8};
pub use conv::{conv2d_s8_i4, conv2d_s16, conv2d_s16_acc32};
pub use cumsum::{Cumsum, CumsumS8, cumsum_f32, cumsum_s8};
pub use densify::{Densify, DensifyLevel, densify};
pub use depth_to_space::{DepthToSpace, depth_to_space};
pub use depthwise_conv::kernel as depthwise_kernel;
pub use depthwise_conv::{
    check_depthwise_conv2d_f32, check_depthwise_conv2d_s8, check_depthwise_conv2d_s8_i4,
    check_depthwise_conv2d_s8_with, check_depthwise_conv2d_s16,
};
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
pub use fully_connected::kernel as fully_connected_kernel;
pub use fully_connected::{
    FullyConnectedF32, FullyConnectedS8, fully_connected_f32, fully_connected_s8,
};
pub use fully_connected::{
    FullyConnectedS16, fully_connected_s8_i4, fully_connected_s16, fully_connected_s16_acc32,
};
pub use fully_connected::{
    check_fully_connected_f32, check_fully_connected_s8, check_fully_connected_s8_i4,
    check_fully_connected_s8_with, check_fully_connected_s16, check_fully_connected_s16_acc32,
};
pub use gather::{Gather, gather};
pub use gather_nd::{GatherNd, gather_nd};
pub use l2_pool::{check_l2_pool_f32, l2_pool_f32};
pub use logistic::{LogisticS8, logistic_f32, logistic_s8};
pub use lstm_eval::{LstmFc, LstmMul, LstmSize};
pub use mirror_pad::{MirrorPad, check_mirror_pad, mirror_pad};
pub use mul::{MulS8, mul_f32, mul_s8};
pub use mul::{check_mul_f32, check_mul_i32, check_mul_s8, check_mul_s16};
pub use pack::pack;
pub use pad::{Pad, check_pad, pad};
pub use pooling::{
    PoolF32, PoolGeometry, PoolS8, average_pool_f32, average_pool_s8, max_pool_f32, max_pool_s8,
};
pub use pooling::{PoolS16, average_pool_s16, max_pool_s16};
pub use pooling::{
    check_average_pool_f32, check_average_pool_s8, check_average_pool_s16, check_max_pool_f32,
    check_max_pool_s8, check_max_pool_s16,
};
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
pub use shared::broadcast::{BinaryF32, BinaryShape};
pub use shared::window::{ConvF32, ConvGeometry, ConvS8, ConvS16};
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
pub use cast::{CastFrom, cast};
pub use ceil::ceil_f32;
pub use circular_buffer::check_circular_buffer_s8;
pub use comparisons::{Comparison, ComparisonS8, compare, compare_s8};
pub use densify::check_densify;
pub use detection_postprocess::check_detection_postprocess;
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
pub use shared::broadcast::BinaryI32;
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

// Each kernel's check beside it (ops of the elementwise and reduction family).
pub use activations::{
    check_relu_f32, check_relu_s8, check_relu_s16, check_relu6_f32, check_relu6_s8, check_relu6_s16,
};
pub use arg_min_max::{check_arg_max, check_arg_min};
pub use cast::check_cast;
pub use ceil::check_ceil_f32;
pub use cumsum::{check_cumsum_f32, check_cumsum_s8};
pub use dequantize::{
    check_dequantize_f16_f32, check_dequantize_s8_f32, check_dequantize_s16_f32,
    check_dequantize_u8_f32,
};
pub use elementwise::{
    check_abs_f32, check_abs_s8, check_abs_s16, check_abs_s16_plain, check_cos_f32, check_log_f32,
    check_rsqrt_f32, check_rsqrt_s8, check_sin_f32, check_sqrt_f32, check_square_f32,
};
pub use elu::{check_elu_f32, check_elu_s8};
pub use exp::check_exp_f32;
pub use fill::check_fill;
pub use floor::check_floor_f32;
pub use hard_swish::{check_hard_swish_f32, check_hard_swish_s8};
pub use l2norm::{check_l2norm_f32, check_l2norm_s8};
pub use leaky_relu::{check_leaky_relu_f32, check_leaky_relu_s8, check_leaky_relu_s16};
pub use log_softmax::{check_log_softmax_f32, check_log_softmax_s8};
pub use logistic::{check_logistic_f32, check_logistic_s8, check_logistic_s16};
pub use neg::check_neg_f32;
pub use quantize::{
    check_quantize_f32_s8, check_quantize_f32_s16, check_requantize_s8, check_requantize_s8_s16,
    check_requantize_s8_s32, check_requantize_s8_u8, check_requantize_s16, check_requantize_s16_s8,
    check_requantize_s16_s32, check_requantize_s32_s8, check_requantize_s32_s16,
    check_requantize_u8_s8,
};
pub use reduce::{
    check_mean_f32, check_mean_s8, check_mean_s16, check_reduce_all, check_reduce_max_f32,
    check_reduce_max_s8, check_reduce_min_f32, check_reduce_min_s8, check_sum_f32, check_sum_s8,
    check_sum_s16,
};
pub use round::check_round_f32;
pub use softmax::{check_softmax_f32, check_softmax_s8, check_softmax_s8_s16, check_softmax_s16};
pub use tanh::{check_tanh_f32, check_tanh_s8, check_tanh_s16};

// The family-C kernels' checks (`check_<kernel>`), beside their entries above.
pub use add_n::{check_add_n_f32, check_add_n_s8};
pub use batch_matmul::{check_batch_matmul_f32, check_batch_matmul_s8, check_batch_matmul_s16};
pub use batch_to_space_nd::check_batch_to_space_nd;
pub use broadcast_args::check_broadcast_args;
pub use broadcast_to::check_broadcast_to;
pub use comparisons::{check_compare, check_compare_s8};
pub use depth_to_space::check_depth_to_space;
pub use div::{check_div_f32, check_div_i32, check_div_s8};
pub use dynamic_update_slice::check_dynamic_update_slice;
pub use embedding_lookup::{check_embedding_lookup, check_embedding_lookup_s8_f32};
pub use floor_div::check_floor_div_f32;
pub use floor_mod::check_floor_mod_f32;
pub use gather::check_gather;
pub use gather_nd::check_gather_nd;
pub use logical::{check_logical_and, check_logical_not, check_logical_or};
pub use maximum_minimum::{check_maximum, check_minimum};
pub use pack::check_pack;
pub use prelu::{check_prelu_f32, check_prelu_s8, check_prelu_s16};
pub use reshape::check_copy;
pub use resize_bilinear::{check_resize_bilinear_f32, check_resize_bilinear_s8};
pub use resize_nearest_neighbor::check_resize_nearest_neighbor;
pub use reverse::check_reverse;
pub use select::check_select;
pub use shape::check_shape;
pub use slice::{check_slice, check_slice_dynamic};
pub use space_to_batch_nd::check_space_to_batch_nd;
pub use space_to_depth::check_space_to_depth;
pub use split::check_split;
pub use split_v::check_split_v;
pub use squared_difference::{
    check_squared_difference_f32, check_squared_difference_i32, check_squared_difference_s8,
    check_squared_difference_s16,
};
pub use strided_slice::check_strided_slice;
pub use sub::{check_sub_f32, check_sub_i32, check_sub_s8, check_sub_s16};
pub use svdf::{check_svdf_f32, check_svdf_s8, check_svdf_s8_s16};
pub use transpose::check_transpose;
pub use transpose_conv::{
    check_transpose_conv_f32, check_transpose_conv_s8, check_transpose_conv_s16,
    check_transpose_conv_s16_bias16,
};
pub use unidirectional_sequence_lstm::{
    check_unidirectional_sequence_lstm_f32, check_unidirectional_sequence_lstm_s8,
    check_unidirectional_sequence_lstm_s16,
};
pub use unpack::check_unpack;

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
// Their checks.
pub use signal_delay::check_signal_delay;
pub use signal_energy::check_signal_energy;
pub use signal_fft_auto_scale::check_signal_fft_auto_scale;
pub use signal_filter_bank::check_signal_filter_bank;
pub use signal_filter_bank_log::check_signal_filter_bank_log;
pub use signal_filter_bank_spectral_subtraction::check_signal_filter_bank_spectral_subtraction;
pub use signal_filter_bank_square_root::check_signal_filter_bank_square_root;
pub use signal_pcan::check_signal_pcan;
pub use signal_rfft::check_signal_rfft;
pub use signal_window::check_signal_window;

pub use circular_buffer::{CircularBuffer, circular_buffer_s8};
pub use shared::requant::Requant;
