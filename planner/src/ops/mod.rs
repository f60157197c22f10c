//! What the build knows about each op kind, one module per kind: which tensors it reads and
//! writes, its options, the checks of its shapes, types and quantisation, TensorFlow Lite
//! Micro's `Prepare` computed at build time, the tokens of its kernel call, and what its kernels
//! can do with the output over the input they consume.
//!
//! This module is the table and nothing else: [`kind`] maps every builtin code and custom op
//! name stowplan knows to its module's [`OpKind`], the row each module fills in (its lowering,
//! scratch, folding, kernel state, [`Overwrite`]). A module is named as its kernel in
//! `stowplan::kernels` (`runtime/src/kernels/`) and its proof in `tests/conformance/`, after
//! TFLM's kernel file (`conv.cc`, `pooling.cc`): adding an op is adding those modules and one
//! line of the table (`BUILTINS` or `CUSTOM`). The driver, `codegen::invoke`, knows no op by
//! name, nor does the planner's `kernel_order`.
//!
//! What every module lowers with lives beside them, below the op modules: `lower` ([`Lower`],
//! [`Call`], [`Refusal`] and the helpers), `op_kind` ([`OpKind`]) and `overwrite` ([`Overwrite`],
//! [`WriteOrder`], [`Pairing`]).
//!
//! Every formula of TFLM's (multiplier quantisation, activation ranges, padding, tables) lives
//! once, in [`crate::quant`] or in the module of the op that owns it, and is called from there.
//! Lowering an op checks what it reads before it computes anything: shapes against the data
//! that backs them, zero points before they are negated, channel counts against the filter
//! before a multiplier is made; arithmetic on model values is checked, and every failure is a
//! [`Refusal`] that names the tensor and the value.

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
mod mul;
mod pad;
mod pooling;
mod quantize;
mod reduce;
mod reshape;
mod resource_variables;
mod softmax;
mod svdf;
mod transpose;
mod transpose_conv;
mod unidirectional_sequence_lstm;
// The elementwise family (ops-b).
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
mod unary;
// Data movement, indexing and the other reductions.
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
mod unpack;
// TFLM's signal library (custom ops), one module per kernel file.
mod signal_delay;
mod signal_energy;
mod signal_fft_auto_scale;
mod signal_filter_bank;
mod signal_filter_bank_log;
mod signal_filter_bank_spectral_subtraction;
mod signal_filter_bank_square_root;
mod signal_options;
mod signal_pcan;
mod signal_rfft;
mod signal_window;
// TFLM's custom ops beyond the signal library.
mod circular_buffer;
// Beyond TFLM: evaluated when the crate compiles.
mod densify;

// What the modules above share (they name no op).
mod lower;
mod op_kind;
mod overwrite;

pub use lower::{Call, FoldedData, KernelChoice, Lower, Refusal};
pub(crate) use lower::{le_bytes, padding_hw, values, with_element};
pub use op_kind::{Folding, Lowering, OpKind, Scratch, StateBytes};
pub(crate) use overwrite::constant_i32s;
pub use overwrite::{Overwrite, Pair, Pairing, WriteOrder};

// The helpers, as `super::..` for the op modules.
use lower::{
    act_range_f32, act_range_s8, axis, dims, f32_lit, fused, i32_lit, i32_lits, input, invalid,
    output, output_views, pad_front, positive, product, raw_i32s, requant, resolve_axis,
    unsupported, usize_lits,
};
use op_kind::{kernel, no_scratch};

use crate::tflite::{BuiltinOp, Model, Op, Opcode};

/// Builtin ops by code, each with its module.
const BUILTINS: &[(BuiltinOp, OpKind)] = &[
    (BuiltinOp::ADD, add::ADD),
    (BuiltinOp::AVERAGE_POOL_2D, pooling::AVERAGE_POOL_2D),
    (BuiltinOp::CONCATENATION, concatenation::CONCATENATION),
    (BuiltinOp::CONV_2D, conv::CONV_2D),
    (
        BuiltinOp::DEPTHWISE_CONV_2D,
        depthwise_conv::DEPTHWISE_CONV_2D,
    ),
    (BuiltinOp::DEQUANTIZE, dequantize::DEQUANTIZE),
    (BuiltinOp::FULLY_CONNECTED, fully_connected::FULLY_CONNECTED),
    (BuiltinOp::LOGISTIC, logistic::LOGISTIC),
    (BuiltinOp::MAX_POOL_2D, pooling::MAX_POOL_2D),
    (BuiltinOp::MUL, mul::MUL),
    (BuiltinOp::RELU, activations::RELU),
    (BuiltinOp::RESHAPE, reshape::RESHAPE),
    (BuiltinOp::SOFTMAX, softmax::SOFTMAX),
    (BuiltinOp::SVDF, svdf::SVDF),
    (BuiltinOp::PAD, pad::PAD),
    (BuiltinOp::TRANSPOSE, transpose::TRANSPOSE),
    (BuiltinOp::MEAN, reduce::MEAN),
    (BuiltinOp::SQUEEZE, reshape::SQUEEZE),
    (BuiltinOp::EXPAND_DIMS, reshape::EXPAND_DIMS),
    (BuiltinOp::RELU6, activations::RELU6),
    (BuiltinOp::QUANTIZE, quantize::QUANTIZE),
    (BuiltinOp::READ_VARIABLE, resource_variables::READ_VARIABLE),
    (
        BuiltinOp::ASSIGN_VARIABLE,
        resource_variables::ASSIGN_VARIABLE,
    ),
    (
        BuiltinOp::UNIDIRECTIONAL_SEQUENCE_LSTM,
        unidirectional_sequence_lstm::UNIDIRECTIONAL_SEQUENCE_LSTM,
    ),
    (BuiltinOp::SUB, sub::SUB),
    (BuiltinOp::DIV, div::DIV),
    (BuiltinOp::FLOOR_DIV, floor_div::FLOOR_DIV),
    (BuiltinOp::FLOOR_MOD, floor_mod::FLOOR_MOD),
    (BuiltinOp::MAXIMUM, maximum_minimum::MAXIMUM),
    (BuiltinOp::MINIMUM, maximum_minimum::MINIMUM),
    (
        BuiltinOp::SQUARED_DIFFERENCE,
        squared_difference::SQUARED_DIFFERENCE,
    ),
    (BuiltinOp::EQUAL, comparisons::EQUAL),
    (BuiltinOp::NOT_EQUAL, comparisons::NOT_EQUAL),
    (BuiltinOp::GREATER, comparisons::GREATER),
    (BuiltinOp::GREATER_EQUAL, comparisons::GREATER_EQUAL),
    (BuiltinOp::LESS, comparisons::LESS),
    (BuiltinOp::LESS_EQUAL, comparisons::LESS_EQUAL),
    (BuiltinOp::LOGICAL_AND, logical::LOGICAL_AND),
    (BuiltinOp::LOGICAL_OR, logical::LOGICAL_OR),
    (BuiltinOp::LOGICAL_NOT, logical::LOGICAL_NOT),
    (BuiltinOp::SELECT_V2, select::SELECT_V2),
    (BuiltinOp::ADD_N, add_n::ADD_N),
    (BuiltinOp::PRELU, prelu::PRELU),
    (BuiltinOp::CAST, cast::CAST),
    (BuiltinOp::ZEROS_LIKE, zeros_like::ZEROS_LIKE),
    (BuiltinOp::FILL, fill::FILL),
    (BuiltinOp::ABS, elementwise::ABS),
    (BuiltinOp::SIN, elementwise::SIN),
    (BuiltinOp::COS, elementwise::COS),
    (BuiltinOp::LOG, elementwise::LOG),
    (BuiltinOp::SQRT, elementwise::SQRT),
    (BuiltinOp::RSQRT, elementwise::RSQRT),
    (BuiltinOp::SQUARE, elementwise::SQUARE),
    (BuiltinOp::NEG, neg::NEG),
    (BuiltinOp::CEIL, ceil::CEIL),
    (BuiltinOp::FLOOR, floor::FLOOR),
    (BuiltinOp::ROUND, round::ROUND),
    (BuiltinOp::EXP, exp::EXP),
    (BuiltinOp::TANH, tanh::TANH),
    (BuiltinOp::ELU, elu::ELU),
    (BuiltinOp::HARD_SWISH, hard_swish::HARD_SWISH),
    (BuiltinOp::LEAKY_RELU, leaky_relu::LEAKY_RELU),
    (BuiltinOp::LOG_SOFTMAX, log_softmax::LOG_SOFTMAX),
    (BuiltinOp::L2_NORMALIZATION, l2norm::L2_NORMALIZATION),
    (BuiltinOp::SLICE, slice::SLICE),
    (BuiltinOp::STRIDED_SLICE, strided_slice::STRIDED_SLICE),
    (BuiltinOp::SPLIT, split::SPLIT),
    (BuiltinOp::SPLIT_V, split_v::SPLIT_V),
    (BuiltinOp::PACK, pack::PACK),
    (BuiltinOp::UNPACK, unpack::UNPACK),
    (BuiltinOp::GATHER, gather::GATHER),
    (BuiltinOp::GATHER_ND, gather_nd::GATHER_ND),
    (BuiltinOp::DEPTH_TO_SPACE, depth_to_space::DEPTH_TO_SPACE),
    (BuiltinOp::SPACE_TO_DEPTH, space_to_depth::SPACE_TO_DEPTH),
    (
        BuiltinOp::BATCH_TO_SPACE_ND,
        batch_to_space_nd::BATCH_TO_SPACE_ND,
    ),
    (
        BuiltinOp::SPACE_TO_BATCH_ND,
        space_to_batch_nd::SPACE_TO_BATCH_ND,
    ),
    (BuiltinOp::MIRROR_PAD, mirror_pad::MIRROR_PAD),
    (BuiltinOp::REVERSE_V2, reverse::REVERSE_V2),
    (BuiltinOp::PADV2, pad::PADV2),
    (BuiltinOp::BROADCAST_TO, broadcast_to::BROADCAST_TO),
    (BuiltinOp::BROADCAST_ARGS, broadcast_args::BROADCAST_ARGS),
    (BuiltinOp::SHAPE, shape::SHAPE),
    (
        BuiltinOp::EMBEDDING_LOOKUP,
        embedding_lookup::EMBEDDING_LOOKUP,
    ),
    (
        BuiltinOp::DYNAMIC_UPDATE_SLICE,
        dynamic_update_slice::DYNAMIC_UPDATE_SLICE,
    ),
    (BuiltinOp::CUMSUM, cumsum::CUMSUM),
    (BuiltinOp::ARG_MAX, arg_min_max::ARG_MAX),
    (BuiltinOp::ARG_MIN, arg_min_max::ARG_MIN),
    (BuiltinOp::REDUCE_MAX, reduce::REDUCE_MAX),
    (BuiltinOp::REDUCE_ALL, reduce::REDUCE_ALL),
    (BuiltinOp::REDUCE_MIN, reduce::REDUCE_MIN),
    (BuiltinOp::SUM, reduce::SUM),
    (
        BuiltinOp::RESIZE_NEAREST_NEIGHBOR,
        resize_nearest_neighbor::RESIZE_NEAREST_NEIGHBOR,
    ),
    (BuiltinOp::RESIZE_BILINEAR, resize_bilinear::RESIZE_BILINEAR),
    (BuiltinOp::BATCH_MATMUL, batch_matmul::BATCH_MATMUL),
    (BuiltinOp::TRANSPOSE_CONV, transpose_conv::TRANSPOSE_CONV),
    (BuiltinOp::DENSIFY, densify::DENSIFY),
    (BuiltinOp::L2_POOL_2D, l2_pool::L2_POOL_2D),
];

/// Custom ops by custom code, each with its module.
const CUSTOM: &[(&str, OpKind)] = &[
    ("SignalDelay", signal_delay::SIGNAL_DELAY),
    ("SignalRfft", signal_rfft::SIGNAL_RFFT),
    ("SignalWindow", signal_window::SIGNAL_WINDOW),
    (
        "SignalFftAutoScale",
        signal_fft_auto_scale::SIGNAL_FFT_AUTO_SCALE,
    ),
    ("SignalEnergy", signal_energy::SIGNAL_ENERGY),
    ("SignalFilterBank", signal_filter_bank::SIGNAL_FILTER_BANK),
    (
        "SignalFilterBankSquareRoot",
        signal_filter_bank_square_root::SIGNAL_FILTER_BANK_SQUARE_ROOT,
    ),
    (
        "SignalFilterBankSpectralSubtraction",
        signal_filter_bank_spectral_subtraction::SIGNAL_FILTER_BANK_SPECTRAL_SUBTRACTION,
    ),
    ("SignalPCAN", signal_pcan::SIGNAL_PCAN),
    (
        "SignalFilterBankLog",
        signal_filter_bank_log::SIGNAL_FILTER_BANK_LOG,
    ),
    (
        "TFLite_Detection_PostProcess",
        detection_postprocess::DETECTION_POSTPROCESS,
    ),
    (circular_buffer::CODE, circular_buffer::CIRCULAR_BUFFER),
];

pub use circular_buffer::{cycles_max as circular_buffer_cycles_max, is_circular_buffer};

/// Every builtin op code stowplan knows, in table order.
pub fn builtin_codes() -> impl Iterator<Item = BuiltinOp> {
    BUILTINS.iter().map(|(c, _)| *c)
}

/// Every custom op name stowplan knows, in table order.
pub fn custom_codes() -> impl Iterator<Item = &'static str> {
    CUSTOM.iter().map(|(c, _)| *c)
}

/// The module of an op kind, if stowplan knows it.
#[must_use]
pub fn kind(opcode: &Opcode) -> Option<&'static OpKind> {
    match opcode {
        Opcode::Builtin(b) => BUILTINS.iter().find(|(c, _)| c == b).map(|(_, k)| k),
        Opcode::Custom(name) => CUSTOM.iter().find(|(c, _)| c == name).map(|(_, k)| k),
    }
}

/// The scratch requests of TFLM's reference kernel for `op`, in request order (empty for ops
/// that request none or whose tensors do not have the shapes the kernel requires).
#[must_use]
pub fn tflm_scratch(model: &Model, op: &Op) -> Vec<u64> {
    kind(&op.opcode)
        .and_then(|k| (k.tflm_scratch)(model, op))
        .unwrap_or_default()
}

/// The scratch stowplan's own kernel for `op` needs, in bytes (rounded up to whole `i32`s).
#[must_use]
pub fn stowplan_scratch(model: &Model, op: &Op) -> Vec<u64> {
    kind(&op.opcode)
        .and_then(|k| (k.scratch)(model, op))
        .unwrap_or_default()
        .into_iter()
        .map(|b| b.div_ceil(4).saturating_mul(4))
        .collect()
}

/// Whether `op`'s kernel also runs without its scratch, its working memory on the stack
/// (CONV_2D's: its scratch is a faster path's); the others need theirs.
#[must_use]
pub fn scratch_is_optional(op: &Op) -> bool {
    op.opcode == Opcode::Builtin(BuiltinOp::CONV_2D)
}

/// The bytes of state `op`'s kernel keeps across invocations outside any tensor (TFLM's
/// persistent buffers that its `Reset` sets to 0), a multiple of 4; 0 for none.
#[must_use]
pub fn kernel_state(model: &Model, file: &[u8], op: &Op) -> u64 {
    kind(&op.opcode)
        .and_then(|k| k.state)
        .and_then(|f| f(model, file, op))
        .map_or(0, |b| b.div_ceil(4).saturating_mul(4))
}

/// What the op kind of `opcode` can do with its output over the input it consumes, if anything
/// ([`OpKind::overwrite`]).
#[must_use]
pub fn overwrite_of(opcode: &Opcode) -> Option<Overwrite> {
    kind(opcode).and_then(|k| k.overwrite)
}

/// Every op kind whose kernels run on one buffer, in table order: its name (the builtin's, or
/// the custom code), its module and its [`Overwrite`].
#[must_use]
pub fn overwrites() -> Vec<(String, &'static str, Overwrite)> {
    let builtins = BUILTINS.iter().map(|(c, k)| (c.to_string(), k));
    let custom = CUSTOM.iter().map(|(c, k)| ((*c).to_owned(), k));
    builtins
        .chain(custom)
        .filter_map(|(name, k)| Some((name, k.module, k.overwrite?)))
        .collect()
}
