//! Which kernel runs an int8 DEPTHWISE_CONV_2D, chosen when the crate compiles: as
//! [`conv_kernel`](crate::kernels::conv_kernel) for CONV_2D, generated code evaluates
//! [`depthwise_conv2d_s8_kernel`] in a constant and calls the proven entry
//! `depthwise_conv2d_s8_with::<K>` (and its one-buffer twin) with it, so only the loops each
//! layer runs are linked. The choice is the one
//! [`depthwise_conv2d_s8`](super::depthwise_conv2d_s8) makes at every call; on targets without
//! the DSP extension every kernel is the portable one.

use crate::kernels::shared::ConvS8;

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
/// for [`ANY`], `"unknown"` past [`PORTABLE`]).
#[must_use]
pub const fn name(kernel: u8) -> &'static str {
    match kernel {
        ANY => "any",
        ONE_TO_EIGHT => "one_to_eight",
        TAPS => "taps",
        BLOCKS => "blocks",
        BLOCKS_MULTIPLIER => "blocks_multiplier",
        PORTABLE => "portable",
        _ => "unknown",
    }
}

/// Whether the DSP kernels take `p`'s geometry: depth multiplier 1 or a multiple of four, the
/// output's channels the input's times the multiplier (a non-zero multiple of four), the
/// batches the input's, no dilation.
pub(crate) const fn dsp_takes(p: &ConvS8) -> bool {
    let g = &p.geometry;
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
/// else [`PORTABLE`].
#[must_use]
pub const fn depthwise_conv2d_s8_kernel(p: &ConvS8) -> u8 {
    let g = &p.geometry;
    if !dsp_takes(p) {
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

/// Whether `kernel` runs `p`'s geometry: [`ANY`] and [`PORTABLE`] run every one, each DSP
/// kernel the geometries [`depthwise_conv2d_s8_kernel`] chooses it for.
#[must_use]
pub const fn depthwise_conv2d_s8_takes(kernel: u8, p: &ConvS8) -> bool {
    match kernel {
        ANY | PORTABLE => true,
        ONE_TO_EIGHT | TAPS | BLOCKS | BLOCKS_MULTIPLIER => depthwise_conv2d_s8_kernel(p) == kernel,
        _ => false,
    }
}
