//! Which kernel runs an int8 DEPTHWISE_CONV_2D, chosen when the crate compiles: as
//! [`conv_kernel`](crate::kernels::conv_kernel) for CONV_2D, generated code evaluates
//! [`depthwise_conv2d_s8_kernel`] in a constant and calls the proven entry
//! `depthwise_conv2d_s8_with::<K>` (and its one-buffer twin) with it, so only the loops each
//! layer runs are linked. The choice is the one
//! [`depthwise_conv2d_s8`](super::depthwise_conv2d_s8) makes at every call; on targets without
//! the DSP extension every kernel is the portable one. A kernel constant also names the epilogue
//! form of the layer's requantisation (`TAPS | EPILOGUE_SHIFT2`), as CONV_2D's do.

use crate::kernels::shared::requant::{EPILOGUE_BITS, epilogue_bits, epilogue_form, epilogue_name};
pub use crate::kernels::shared::requant::{EPILOGUE_GENERAL, EPILOGUE_SHIFT1, EPILOGUE_SHIFT2};
use crate::kernels::shared::{ConvGeometry, ConvS8, Requant};

/// The bits of a kernel constant that name the kernel (the others its epilogue).
pub(crate) const KERNEL_BITS: u8 = 0x0f;

/// Chosen at every call from the geometry, as
/// [`depthwise_conv2d_s8`](super::depthwise_conv2d_s8) does.
pub const ANY: u8 = 0;
/// One input channel to eight output channels (depth multiplier 8: first layers).
pub const ONE_TO_EIGHT: u8 = 1;
/// Depth multiplier 1 and windows of at most nine taps: the taps' runs summed from lists,
/// a 3 x 3 filter's whole windows in one `asm!` block per four channels.
pub const TAPS: u8 = 2;
/// Depth multiplier 1 and larger windows: the window walked a row of taps at a time.
pub const BLOCKS: u8 = 3;
/// A depth multiplier that is a multiple of four: one input channel's value for a block of
/// four outputs, the window walked a row of taps at a time.
pub const BLOCKS_MULTIPLIER: u8 = 4;
/// The portable loop nest (dilation, channel counts that are not multiples of four, other
/// depth multipliers, and every geometry on targets without the DSP extension).
pub const PORTABLE: u8 = 5;

/// The most taps [`TAPS`]'s kernel sums from a list of runs: a 3 x 3 window.
pub(crate) const MOST_TAPS: usize = 9;

/// The kernel's name, for reports and messages: its constant's name in lower case (`"any"`
/// for [`ANY`], `"unknown"` past [`PORTABLE`]); the epilogue bits are not part of it.
#[must_use]
pub const fn name(kernel: u8) -> &'static str {
    match kernel & KERNEL_BITS {
        ANY => "any",
        ONE_TO_EIGHT => "one_to_eight",
        TAPS => "taps",
        BLOCKS => "blocks",
        BLOCKS_MULTIPLIER => "blocks_multiplier",
        PORTABLE => "portable",
        _ => "unknown",
    }
}

/// The name of the epilogue form kernel constant `kernel` names (`"shift2"`), or `None` when
/// the form is found at every call.
#[must_use]
pub const fn epilogue(kernel: u8) -> Option<&'static str> {
    epilogue_name(kernel)
}

/// Whether the DSP kernels take `p`'s geometry: depth multiplier 1 or a multiple of four, the
/// output's channels the input's times the multiplier (a non-zero multiple of four), the
/// batches the input's, no dilation.
pub(crate) const fn dsp_takes(g: &ConvGeometry) -> bool {
    let multiplier = g.depth_multiplier;
    let depth = g.filter[3];
    let same = match g.input[3].checked_mul(multiplier) {
        Some(d) => d == depth,
        None => false,
    };
    (multiplier == 1 || multiplier.is_multiple_of(4))
        && same
        && g.output[3] == depth
        && g.output[0] == g.input[0]
        && g.dilation_h == 1
        && g.dilation_w == 1
        && depth != 0
        && depth.is_multiple_of(4)
}

/// The kernel [`depthwise_conv2d_s8`](super::depthwise_conv2d_s8) runs `p` with:
/// [`ONE_TO_EIGHT`], [`TAPS`], [`BLOCKS`] or [`BLOCKS_MULTIPLIER`] where the DSP kernels take it,
/// with the epilogue bits of `p`'s requantisation and clamp, else [`PORTABLE`].
#[must_use]
pub const fn depthwise_conv2d_s8_kernel(p: &ConvS8) -> u8 {
    depthwise_conv2d_s8_kernel_for(&p.geometry, p.requant, p.act_min, p.act_max)
}

/// [`depthwise_conv2d_s8_kernel`] of the op whose parameters are these (the geometry, the
/// output channels' multipliers and the clamp), for callers that hold them apart.
#[must_use]
pub const fn depthwise_conv2d_s8_kernel_for(
    geometry: &ConvGeometry,
    requant: &[Requant],
    act_min: i32,
    act_max: i32,
) -> u8 {
    let kernel = dsp_kernel(geometry);
    if kernel == PORTABLE {
        PORTABLE
    } else {
        kernel | epilogue_bits(epilogue_form(requant, geometry.filter[3], act_min, act_max))
    }
}

/// Whether DSP kernel `kernel` runs geometry `g` ([`depthwise_conv2d_s8_takes`] without its
/// epilogue bits, which the entry's check proved for the op): the DSP loops' guard at each
/// call (on one buffer a chunk's geometry), without a pass over the multipliers.
#[cfg(any(stowplan_dsp, test))]
pub(crate) const fn dsp_kernel_takes(kernel: u8, g: &ConvGeometry) -> bool {
    kernel & !(KERNEL_BITS | EPILOGUE_BITS) == 0
        && kernel & KERNEL_BITS != PORTABLE
        && kernel & KERNEL_BITS == dsp_kernel(g)
}

/// [`depthwise_conv2d_s8_kernel`] without the epilogue bits.
const fn dsp_kernel(g: &ConvGeometry) -> u8 {
    if !dsp_takes(g) {
        PORTABLE
    } else if g.input[3] == 1 && g.filter[3] == 8 {
        ONE_TO_EIGHT
    } else if g.depth_multiplier == 1 && g.filter[1].saturating_mul(g.filter[2]) <= MOST_TAPS {
        TAPS
    } else if g.depth_multiplier == 1 {
        BLOCKS
    } else {
        BLOCKS_MULTIPLIER
    }
}

/// Whether `kernel` runs `p`'s geometry: [`ANY`] and [`PORTABLE`] run every one (and name no
/// epilogue form), each DSP kernel the geometries [`depthwise_conv2d_s8_kernel`] chooses it
/// for, with `p`'s epilogue form if the constant names one.
#[must_use]
pub const fn depthwise_conv2d_s8_takes(kernel: u8, p: &ConvS8) -> bool {
    let bits = kernel & EPILOGUE_BITS;
    if kernel & !(KERNEL_BITS | EPILOGUE_BITS) != 0 {
        return false;
    }
    match kernel & KERNEL_BITS {
        ANY | PORTABLE => bits == 0,
        k @ (ONE_TO_EIGHT | TAPS | BLOCKS | BLOCKS_MULTIPLIER) => {
            let chosen = depthwise_conv2d_s8_kernel(p);
            chosen & KERNEL_BITS == k && (bits == 0 || bits == chosen & EPILOGUE_BITS)
        }
        _ => false,
    }
}
