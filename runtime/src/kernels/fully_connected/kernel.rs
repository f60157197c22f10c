//! Which kernel runs an int8 FULLY_CONNECTED, chosen when the crate compiles.
//!
//! [`fully_connected_s8`](super::fully_connected_s8) finds its epilogue form at every call, so a
//! firmware that calls it links the loop of every form. Generated code instead evaluates
//! [`fully_connected_s8_kernel`] in a constant, when the crate compiles, and calls the proven
//! entry `fully_connected_s8_with::<K>` with it: only the form each layer runs is linked, and
//! no choice is made at run time. The outputs are the same whatever the kernel; on targets
//! without the DSP extension every kernel is the portable one.
//!
//! A kernel constant names the kernel and the epilogue form of its layer's requantisation (the
//! bits [`EPILOGUE_GENERAL`], [`EPILOGUE_SHIFT1`] or [`EPILOGUE_SHIFT2`], or'd into the
//! kernel's: `ROWS | EPILOGUE_SHIFT2`). [`fully_connected_s8_takes`] is part of the entry's
//! check ([`check_fully_connected_s8_with`](super::check_fully_connected_s8_with)): a constant
//! whose form is not the layer's does not compile.

use super::FullyConnectedS8;
use crate::kernels::shared::Requant;
use crate::kernels::shared::requant::{EPILOGUE_BITS, epilogue_bits, epilogue_form, epilogue_name};
pub use crate::kernels::shared::requant::{EPILOGUE_GENERAL, EPILOGUE_SHIFT1, EPILOGUE_SHIFT2};

/// The bits of a kernel constant that name the kernel (the others its epilogue).
pub(crate) const KERNEL_BITS: u8 = 0x0f;

/// The epilogue form found at every call, as [`fully_connected_s8`](super::fully_connected_s8)
/// does.
pub const ANY: u8 = 0;
/// With the DSP extension, each input row widened once for three output channels at a time
/// (then two, or one, for the last), every depth and channel count.
pub const ROWS: u8 = 1;
/// The portable loop, an output channel at a time (every layer on targets without the DSP
/// extension).
pub const PORTABLE: u8 = 2;

/// The kernel's name, for reports and messages: its constant's name in lower case (`"any"`
/// for [`ANY`], `"unknown"` for a value that names no kernel); the epilogue bits are not part
/// of it.
#[must_use]
pub const fn name(kernel: u8) -> &'static str {
    match kernel & KERNEL_BITS {
        ANY => "any",
        ROWS => "rows",
        PORTABLE => "portable",
        _ => "unknown",
    }
}

/// The name of the epilogue form kernel constant `kernel` names (its constant's name without
/// `EPILOGUE_`, in lower case: `"shift2"`), or `None` when the form is found at every call.
#[must_use]
pub const fn epilogue(kernel: u8) -> Option<&'static str> {
    epilogue_name(kernel)
}

/// The kernel generated code runs `p` with: [`ROWS`] with the epilogue bits of its
/// requantisation and clamp.
#[must_use]
pub const fn fully_connected_s8_kernel(p: &FullyConnectedS8) -> u8 {
    fully_connected_s8_kernel_for(p.requant, p.output_depth, p.act_min, p.act_max)
}

/// [`fully_connected_s8_kernel`] of the op whose multipliers (one: per tensor, else one per
/// output channel), output channel count and clamp are these, for callers that hold them apart.
#[must_use]
pub const fn fully_connected_s8_kernel_for(
    requant: &[Requant],
    output_depth: usize,
    act_min: i32,
    act_max: i32,
) -> u8 {
    ROWS | epilogue_bits(form_for(requant, output_depth, act_min, act_max))
}

/// The epilogue form of a layer's output channels: every channel has the per-tensor multiplier
/// when there is one, else its own.
pub(crate) const fn form_for(
    requant: &[Requant],
    output_depth: usize,
    act_min: i32,
    act_max: i32,
) -> u8 {
    let channels = if requant.len() == 1 { 1 } else { output_depth };
    epilogue_form(requant, channels, act_min, act_max)
}

/// Whether `kernel` runs `p`: [`ANY`] and [`PORTABLE`] (without epilogue bits) run every
/// layer, [`ROWS`] every layer whose form its bits name (or, without them, every layer).
#[must_use]
pub const fn fully_connected_s8_takes(kernel: u8, p: &FullyConnectedS8) -> bool {
    let bits = kernel & EPILOGUE_BITS;
    if kernel & !(KERNEL_BITS | EPILOGUE_BITS) != 0 {
        return false;
    }
    match kernel & KERNEL_BITS {
        ANY | PORTABLE => bits == 0,
        ROWS => {
            bits == 0
                || bits == epilogue_bits(form_for(p.requant, p.output_depth, p.act_min, p.act_max))
        }
        _ => false,
    }
}
