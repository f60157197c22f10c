//! What the ops' kernels share, below them: no module here imports an op.
//!
//! - [`fixed`]: TFLM's fixed-point arithmetic (gemmlowp's rounding multiplications, shifts and
//!   transcendental functions), the one switch between double and single rounding.
//! - `requant`: the `(multiplier, shift)` pair, the per-channel epilogues and the clamps.
//! - `check`: [`KernelError`](check::KernelError) and the helpers of each kernel's `check_*`
//!   (its `# Preconditions` as a `const fn`).
//! - `unary`: the macros that make each one-input kernel's checked entry and proven entry
//!   from one definition (and the elementwise kernels' checks).
//! - `slices`: bounds-checked slice access (no kernel panics), packed int4 elements.
//! - `window`: the window ops' geometry, parameters and window arithmetic.
//! - `broadcast`: the binary ops' broadcast shapes and the walk over them.
//! - `in_place`: the driver that runs an op with its output over the input it consumes (the
//!   least displacements, the chunks, the walks of the elementwise and binary ops, the macros
//!   that make each op's one-buffer entries in its own folder).
//! - `blocked`, `blocked_s16`, `binary_walk`: what the DSP extension's blocked loops of several
//!   ops share (the widening helpers and lanes, the int8 epilogue, the accumulator trait of the
//!   int16 loops, the blocked walk of ADD and MUL).
//! - `dsp` (declared by the crate's root, the one module with `unsafe`): the DSP extension's
//!   instructions, one `asm!` each, with their portable twins.

#[cfg(any(stowplan_dsp, test))]
pub(crate) mod binary_walk;
#[cfg(any(stowplan_dsp, test))]
pub(crate) mod blocked;
#[cfg(any(stowplan_dsp, test))]
pub(crate) mod blocked_s16;
pub(crate) mod broadcast;
pub(crate) mod check;
pub mod fixed;
pub(crate) mod in_place;
pub(crate) mod requant;
pub(crate) mod slices;
#[cfg(test)]
pub(crate) mod testing;
pub(crate) mod unary;
pub(crate) mod window;

pub(crate) use requant::{
    Requant, activation_f32, clamp_to_i8, clamp_to_i16, finish_f32, requantize_channel,
    requantize_channel_s16, requantize_channel_s16_acc32,
};
#[cfg(not(stowplan_dsp))]
pub(crate) use slices::dot_s8;
pub(crate) use slices::{at, int4_at, int4_elements, product, run, sized, sized_mut};
pub(crate) use window::{ConvF32, ConvGeometry, ConvS8, ConvS16, Part, inside, origin, valid_taps};
