//! CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D and MAX_POOL_2D, FULLY_CONNECTED, QUANTIZE,
//! DEQUANTIZE, the activations, ADD, MUL, PAD and CONCATENATION writing their output over the
//! input they are reading: one buffer holds both, the input `d` elements above the output's
//! start. A pool is walked as the depthwise convolution with its window ([`pool_walk`]): the
//! same elements read and written in the same order.
//!
//! Each op's entries are in its own module (its `in_place`), each running the op's own kernels
//! through the driver of `kernels::shared::in_place`; this module lists them. A few kernels
//! chosen when the crate compiles walk the buffer themselves, at the same displacements: the
//! widened 1 x 1 and the window CONV_2D kernels a pixel pair at a time, the pair's input
//! gathered into their stack buffer before any of its outputs is written (its outputs end at
//! `o(u + 1) ≤ d + r(u + 1)`, below anything a later pixel reads), and DEPTHWISE_CONV_2D's
//! taps kernel the driver's chunks in a frame of its own, its set-up made once.
//!
//! # The order kept
//!
//! The driver runs the op in *chunks* of consecutive output pixels (batch, y, x), in order,
//! each by the op's own kernel (the portable one, or on Armv7E-M the DSP one) on two disjoint
//! slices of the buffer, split at the lowest input element any pixel from the chunk's first on
//! still reads (its *read base*, `r(u)`): below the split, the chunk's output elements; above
//! it, the input the chunk reads. A chunk is whole output rows where they fit, else a run of
//! pixels of one row: the kernel then gets the input rows that row's windows reach (all
//! columns, with the padding moved to match, so it computes exactly the elements it computes
//! on the whole image), the first output column of the run and how many input pixels of those
//! rows lie below the split (not in its slice, and never read). A pointwise op (a 1 x 1 filter,
//! stride 1, no padding: a matrix product over pixels) is one row of all its pixels, each run
//! of them an image of its own (a run stops one short of an odd length, unless it is one pixel
//! or ends the tensor, for the DSP kernel's pairs).
//!
//! For a pixel `u` in row `y` (of its batch) with its window's first input row `t(y)` and
//! first column `l(x)` (both clamped into the input), `r(u)` is the start of row `t(y)` plus
//! `l(x)` pixels, or just the start of row `t(y)` when the next output row's windows start at
//! the same input row (in the top padding): then a later pixel reads further left. A chunk
//! grows while its last output element stays below `d + r(first pixel)`, so what it writes
//! lies over input no later pixel reads: every input element is read, for the last time,
//! before anything is written over it, whatever the kernels do inside a chunk.
//!
//! # The displacement
//!
//! With `o(u)` one past pixel `u`'s last output element, a chunk can always start at `u` when
//! `o(u) ≤ d + r(u)`, so the driver runs every pixel exactly when `d ≥ D` with
//! `D = max_u (o(u) − r(u))` ([`min_displacement`], in elements). At `d = D − 1` the pixel
//! attaining the maximum could not run: each entry's check (`check_<kernel>`, which includes
//! [`fits`]) refuses it first, and the entry returns `Err(KernelError::Placement)` with
//! nothing written. Every `d ≥ D` runs (a larger `d` only
//! makes chunks longer), and so does every layout where the two do not share an element.
//! [`row_displacement`] is the least `d` at which every chunk is at least one whole row (far
//! fewer kernel calls); the planner prefers it where the arena has room.
//!
//! Both are `const fn`s, so generated code proves at compile time that its planned offsets
//! satisfy [`min_displacement`].
//!
//! # Elementwise ops
//!
//! QUANTIZE and the activations run element by element
//! ([`requantize_s8`], [`requantize_s16`], [`requantize_s16_s8`], [`logistic_s8`], [`tanh_s8`],
//! [`relu_s8`], [`relu6_s8`], and the int16 and float RELU, RELU6, LOGISTIC, TANH, HARD_SWISH,
//! LEAKY_RELU and ELU: [`relu_s16`], [`relu_f32`], ..., [`elu_f32`]): output element `k`, no
//! wider than input element `k`, is written after that is read, so it lies below input element
//! `k + 1` whenever the input starts at or above the output ([`elementwise_fits`]): from a full
//! alias on. ADD and MUL ([`add_s8`], ..., [`mul_f32`]) walk their output in memory order too,
//! their first input (not broadcast) over the output from a full alias on, the second in a
//! slice of its own ([`binary_fits`]). On Armv7E-M (cfg `stowplan_dsp`) the int8 and int16 ADD
//! and MUL ([`add_s8`], [`mul_s8`], [`add_s16`], [`mul_s16`]; the int16 MUL with both offsets
//! 0) with the same shapes or a scalar second input run the DSP kernel's
//! blocks of four elements instead (their `dsp` modules): each block reads its four first-input
//! elements `k..k + 4` before it writes any of its four outputs, and the blocks go in
//! increasing `k` (then the last one to three elements one by one), so with the input `d ≥ 0`
//! elements above the output a block writes over first-input elements below `k + 4`, every
//! one of them read already: [`binary_fits`] holds for it as it stands. DEQUANTIZE to float32
//! ([`dequantize_s8_f32`], [`dequantize_s16_f32`], [`dequantize_u8_f32`]) writes each output
//! element wider than its input element: from [`widening_min_displacement`] on. PAD ([`pad`])
//! writes its output in order too, from [`pad_min_displacement`] on. CONCATENATION
//! ([`concatenation`]) writes its first input's chunks into their slots in order, the other
//! inputs from their own slices: from [`concatenation_min_displacement`] on (a full alias when
//! it has one outer position).
//!
//! # FULLY_CONNECTED
//!
//! [`fully_connected_s8`] and the other FULLY_CONNECTED entries run their kernel (the portable
//! one, or on Armv7E-M the DSP one) on chunks of consecutive batch rows, each on two disjoint
//! slices split at the chunk's first input row; a row's output must lie below its own input

pub use super::activations::in_place::*;
pub use super::add::in_place::*;
pub use super::concatenation::in_place::*;
pub use super::conv::in_place::*;
pub use super::depthwise_conv::in_place::*;
pub use super::dequantize::in_place::*;
pub use super::elu::in_place::*;
pub use super::fully_connected::in_place::*;
pub use super::hard_swish::in_place::*;
pub use super::leaky_relu::in_place::*;
pub use super::logistic::in_place::*;
pub use super::mul::in_place::*;
pub use super::pad::in_place::*;
pub use super::pooling::in_place::*;
pub use super::quantize::in_place::*;
pub use super::shared::in_place::{
    binary_fits, elementwise_fits, fits, min_displacement, row_displacement,
};
pub use super::tanh::in_place::*;
