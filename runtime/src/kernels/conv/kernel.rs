//! Which kernel runs an int8 CONV_2D, chosen when the crate compiles.
//!
//! [`conv2d_s8`](super::conv2d_s8) chooses among its kernels at every call, from the geometry,
//! so a firmware that calls it links all of them. Generated code instead evaluates
//! [`conv2d_s8_kernel`] in a constant, when the crate compiles, and calls the proven entry
//! `conv2d_s8_with::<K>` (and its one-buffer twin) with that constant: only the kernel each
//! layer runs is linked, and no choice is made at run time. The choice is the one
//! [`conv2d_s8`](super::conv2d_s8) makes for the same geometry and bias, so the outputs are the
//! same; on targets without the DSP extension every kernel is the portable one.
//!
//! A kernel constant also names the epilogue form its layer's requantisation takes (the bits
//! [`EPILOGUE_GENERAL`], [`EPILOGUE_SHIFT1`] or [`EPILOGUE_SHIFT2`], or'd into the kernel's:
//! `POINTWISE | EPILOGUE_SHIFT2`), so only that form's loops are compiled too; a constant
//! without them finds the form at every call.
//!
//! Each kernel's [`conv2d_s8_takes`] is part of its entry's check
//! ([`check_conv2d_s8_with`](super::check_conv2d_s8_with)): a constant naming a kernel that
//! does not take the geometry does not compile.

use crate::kernels::shared::requant::{EPILOGUE_BITS, epilogue_bits, epilogue_form, epilogue_name};
pub use crate::kernels::shared::requant::{EPILOGUE_GENERAL, EPILOGUE_SHIFT1, EPILOGUE_SHIFT2};
use crate::kernels::shared::{ConvGeometry, ConvS8, Requant};

/// The bits of a kernel constant that name the kernel (the others its epilogue).
pub(crate) const KERNEL_BITS: u8 = 0x0f;

/// Chosen at every call from the geometry, as [`conv2d_s8`](super::conv2d_s8) does.
pub const ANY: u8 = 0;
/// The blocked 1 x 1 matrix product (a 1 x 1 filter, stride 1, no padding, one group), with
/// the DSP extension, a pixel pair at a time for any channel count; the in-place driver gives
/// it whole runs of pixels. Chosen for a layer no other kernel takes (the layers of the folded
/// epilogue's constants take [`WIDENED_64`], [`WIDENED`] or [`WIDENED_336`], the others
/// [`WINDOW`]).
pub const POINTWISE: u8 = 1;
/// Short filter rows (first layers) gathered into windows on the stack for whole geometries,
/// the in-place driver's runs of pixels by [`WINDOW`]'s kernel.
pub const GATHERED: u8 = 2;
/// Every other geometry with one group: windows widened once per pair of output pixels.
pub const WINDOW: u8 = 3;
/// The portable loop nest (grouped convolution, and every geometry on targets without the DSP
/// extension).
pub const PORTABLE: u8 = 4;
// 5 to 10 name no kernel (they named loops per input channel count, which the widened
// kernels below replaced).
/// The 1 x 1 matrix product with each pixel pair widened once, `input + input_offset` as
/// halfwords, for every pair of output channels: per pair of channels one block of the sums
/// and the folded epilogue (`crate::dsp::smlad_2x2_requant`), for a layer of at most 64 input
/// channels, a multiple of four, an even number of output channels, a bias, the epilogue form
/// [`EPILOGUE_SHIFT2`] and right shifts of 2 to 23 (the pixel pair's buffer, 256 bytes, is on
/// the stack while the kernel runs).
pub const WIDENED_64: u8 = 11;
/// [`WIDENED_64`] for layers of 65 to 144 input channels (a buffer of 576 bytes).
pub const WIDENED: u8 = 12;
/// [`WIDENED_64`] for layers of 145 to 336 input channels (a buffer of 1,344 bytes: the
/// expansions of MobileNetV2-like models, 6 x 32 and 6 x 56, which the window kernel otherwise
/// sums in slabs).
pub const WIDENED_336: u8 = 13;

/// The most input channels of [`WIDENED_336`]: a pixel pair's rows widened are `4 WIDE` bytes
/// on the stack while it runs.
pub(crate) const WIDE: usize = 336;

/// The most input channels of a [`WIDENED_64`]-like kernel (`None` for the others).
#[must_use]
pub const fn widened_channels(kernel: u8) -> Option<usize> {
    match kernel & KERNEL_BITS {
        WIDENED_64 => Some(64),
        WIDENED => Some(SLAB),
        WIDENED_336 => Some(WIDE),
        _ => None,
    }
}

/// The scratch kernel `kernel` takes for `geometry`, in 32-bit words, which generated code
/// plans in the arena (`proven::conv2d_s8_with_scratch`): a widened 1 x 1 kernel's pixel
/// pair's widened rows (one word per input channel of each pixel: `4 depth` bytes); the window
/// kernel's pixel pair's whole windows for a window of more than 144 values (its groups of four
/// words and a part group: `16 (ceil(window / 4) + 1)` bytes), which it would otherwise sum in
/// slabs of 144; none for the others (0).
#[must_use]
pub const fn conv2d_s8_scratch(kernel: u8, geometry: &ConvGeometry) -> usize {
    let [out_depth, filter_h, filter_w, filter_d] = geometry.filter;
    if widened_channels(kernel).is_some() {
        return geometry.input[3];
    }
    let Some(window) = filter_h.checked_mul(filter_w) else {
        return 0;
    };
    let Some(window) = window.checked_mul(filter_d) else {
        return 0;
    };
    if kernel & KERNEL_BITS != WINDOW || window <= SLAB || out_depth == 0 {
        return 0;
    }
    match (window.div_ceil(4) + 1).checked_mul(4) {
        Some(words) => words,
        None => 0,
    }
}

/// The kernel's name, for reports and messages: its constant's name in lower case (`"any"`
/// for [`ANY`], `"unknown"` for a value that names no kernel); the epilogue bits are not part
/// of it.
#[must_use]
pub const fn name(kernel: u8) -> &'static str {
    match kernel & KERNEL_BITS {
        ANY => "any",
        POINTWISE => "pointwise",
        GATHERED => "gathered",
        WINDOW => "window",
        PORTABLE => "portable",
        WIDENED_64 => "widened_64",
        WIDENED => "widened",
        WIDENED_336 => "widened_336",
        _ => "unknown",
    }
}

/// The name of the epilogue form kernel constant `kernel` names (its constant's name without
/// `EPILOGUE_`, in lower case: `"shift2"`), or `None` when the form is found at every call.
#[must_use]
pub const fn epilogue(kernel: u8) -> Option<&'static str> {
    epilogue_name(kernel)
}

/// The most values a gathered window holds: two of them (a pixel pair) are on the stack while
/// the kernel runs.
pub(crate) const MOST: usize = 64;

/// The most window values the window kernel's buffer holds: a window of up to `SLAB` values
/// is gathered whole, a larger one in slabs of `SLAB` values (the buffer of a pixel pair,
/// `SLAB / 4` groups of 16 bytes and one part group, is on the stack while the kernel runs:
/// 592 bytes); [`WIDENED`]'s widened 1 x 1 pixel pairs take rows of up to `SLAB`.
pub(crate) const SLAB: usize = 144;

/// The filter rows (`FW x C` values) shorter than this are gathered; longer ones are walked as
/// runs by the window kernel, where a run is long enough to pay for its walk.
pub(crate) const SHORT_RUN: usize = 16;

/// The input offsets the halfword lanes of `SXTAB16` add exactly to every int8 value (the
/// window kernel's).
const OFFSETS: (i32, i32) = (-32640, 32640);

/// Dilated window extents (`(taps - 1) * dilation`) past this are left to the portable loop
/// (none fits a microcontroller's memory), so that no tap coordinate wraps.
const EXTENT: usize = 1 << 15;

/// The kernel [`conv2d_s8`](super::conv2d_s8) runs `p`'s whole geometry with (`bias`: whether
/// the op has one), in the order it tries them: a 1 x 1 layer's widened pixel pairs
/// ([`WIDENED_64`], [`WIDENED`], [`WIDENED_336`]: rows of whole words of up to 336 values, an
/// even number of output channels, a bias and the folded epilogue's constants; the benchmark
/// measured them faster than the loops per input channel count they replaced on every such
/// layer), [`GATHERED`], [`WINDOW`] (the other 1 x 1 layers too: their pixel pairs' windows
/// widened once for every channel, which the benchmark measured faster than [`POINTWISE`]'s
/// pixel pairs), [`POINTWISE`], else [`PORTABLE`]; a DSP kernel with the epilogue bits of `p`'s
/// requantisation and clamp. A 1-D convolution (one-pixel-wide images) is chosen for as the
/// row it runs as. An op on one buffer takes the same kernel (the widened ones walk the buffer a
/// pixel pair at a time, each pair widened before its outputs are written).
#[must_use]
pub const fn conv2d_s8_kernel(p: &ConvS8, bias: bool) -> u8 {
    conv2d_s8_kernel_for(
        &p.geometry,
        p.input_offset,
        p.requant,
        p.act_min,
        p.act_max,
        bias,
    )
}

/// [`conv2d_s8_kernel`] of the op whose parameters are these (the geometry, the input offset,
/// the output channels' multipliers, the clamp and whether it has a bias), for callers that
/// hold them apart.
#[must_use]
pub const fn conv2d_s8_kernel_for(
    geometry: &ConvGeometry,
    input_offset: i32,
    requant: &[Requant],
    act_min: i32,
    act_max: i32,
    bias: bool,
) -> u8 {
    choose(geometry, input_offset, requant, (act_min, act_max), bias)
}

/// [`conv2d_s8_kernel_for`]'s choice.
const fn choose(
    geometry: &ConvGeometry,
    input_offset: i32,
    requant: &[Requant],
    (act_min, act_max): (i32, i32),
    bias: bool,
) -> u8 {
    let g = match geometry.columns_as_rows() {
        Some(g) => g,
        None => *geometry,
    };
    let form = epilogue_form(requant, geometry.filter[0], act_min, act_max);
    let kernel = if pointwise_takes(&g) {
        if pointwise_widened(&g, form, bias, requant) {
            widened_for(g.input[3])
        } else if window_takes(&g, input_offset) {
            WINDOW
        } else {
            POINTWISE
        }
    } else if gathered_takes(&g, input_offset) {
        GATHERED
    } else if window_takes(&g, input_offset) {
        WINDOW
    } else {
        return PORTABLE;
    };
    kernel | epilogue_bits(form)
}

/// Whether [`POINTWISE`]'s widened pixel pairs take a pointwise geometry `g` with epilogue
/// form `form`: form 6 with a bias, rows of whole words of at most [`WIDE`] values, an even
/// number of output channels, and every channel's multiplier `>= 0` with a right shift of 2
/// to 23 (the folded epilogue's; its output zero point is the model's int8 one).
const fn pointwise_widened(g: &ConvGeometry, form: u8, bias: bool, requant: &[Requant]) -> bool {
    let [_, _, _, depth] = g.input;
    let out_depth = g.filter[0];
    if form != 6
        || !bias
        || depth > WIDE
        || !depth.is_multiple_of(4)
        || !out_depth.is_multiple_of(2)
        || requant.len() < out_depth
    {
        return false;
    }
    let mut c = 0;
    while c < out_depth {
        let r = requant[c];
        if r.multiplier < 0 || r.shift < -23 || r.shift > -2 {
            return false;
        }
        c += 1;
    }
    true
}

/// The [`WIDENED_64`]-like kernel for rows of `channels` values (at most [`WIDE`]).
const fn widened_for(channels: usize) -> u8 {
    if channels <= 64 {
        WIDENED_64
    } else if channels <= SLAB {
        WIDENED
    } else {
        WIDENED_336
    }
}

/// The epilogue form of `p`'s output channels.
const fn form_of(p: &ConvS8) -> u8 {
    epilogue_form(p.requant, p.geometry.filter[0], p.act_min, p.act_max)
}

/// Whether `kernel` runs `p`'s geometry (`bias`: whether the op has one; [`ANY`] and
/// [`PORTABLE`] run every one): the geometry its DSP kernel takes (a [`WIDENED_64`]-like
/// kernel: the one [`conv2d_s8_kernel`] chooses), and, if the constant names an epilogue form,
/// `p`'s form ([`ANY`] and [`PORTABLE`] name none). A [`GATHERED`] layer's runs of pixels on
/// one buffer that the window kernel does not take, and anything on a target without the DSP
/// extension, run the portable loop.
#[must_use]
pub const fn conv2d_s8_takes(kernel: u8, p: &ConvS8, bias: bool) -> bool {
    let rows = match p.geometry.columns_as_rows() {
        Some(g) => g,
        None => p.geometry,
    };
    let bits = kernel & EPILOGUE_BITS;
    if kernel & !(KERNEL_BITS | EPILOGUE_BITS) != 0 {
        return false;
    }
    let dsp = match kernel & KERNEL_BITS {
        ANY | PORTABLE => return bits == 0,
        POINTWISE => pointwise_takes(&rows),
        GATHERED => gathered_takes(&rows, p.input_offset),
        WINDOW => window_takes(&p.geometry, p.input_offset),
        WIDENED_64 | WIDENED | WIDENED_336 => {
            pointwise_takes(&rows)
                && pointwise_widened(&rows, form_of(p), bias, p.requant)
                && widened_for(rows.input[3]) == kernel & KERNEL_BITS
        }
        _ => false,
    };
    dsp && (bits == 0 || bits == epilogue_bits(form_of(p)))
}

/// No dimension is 0.
const fn no_zero(dims: &[usize]) -> bool {
    let mut k = 0;
    while k < dims.len() {
        if dims[k] == 0 {
            return false;
        }
        k += 1;
    }
    true
}

/// The pointwise kernel's geometries: a 1 x 1 filter over every input channel, the output the
/// input's pixels, stride 1, no padding, no zero dimension.
pub(crate) const fn pointwise_takes(g: &ConvGeometry) -> bool {
    let [batches, height, width, depth] = g.input;
    let [out_depth, fh, fw, fd] = g.filter;
    let [ob, oh, ow, oc] = g.output;
    fh == 1
        && fw == 1
        && fd == depth
        && ob == batches
        && oh == height
        && ow == width
        && oc == out_depth
        && g.stride_h == 1
        && g.stride_w == 1
        && g.pad_h == 0
        && g.pad_w == 0
        && depth != 0
        && out_depth != 0
}

/// The gathered kernel's geometries: one group, no zero dimension, stride or dilation, more
/// than one filter row, windows of at most [`MOST`] values, filter rows shorter than
/// [`SHORT_RUN`] values (or dilated), and an input zero point that is an int8 value.
pub(crate) const fn gathered_takes(g: &ConvGeometry, input_offset: i32) -> bool {
    let [batches, input_h, input_w, depth] = g.input;
    let [out_depth, filter_h, filter_w, filter_d] = g.filter;
    let [out_batches, output_h, output_w, _] = g.output;
    let zero_point = input_offset.wrapping_neg();
    let Some(row) = filter_w.checked_mul(depth) else {
        return false;
    };
    let Some(window) = row.checked_mul(filter_h) else {
        return false;
    };
    zero_point >= i8::MIN as i32
        && zero_point <= i8::MAX as i32
        && filter_d == depth
        && out_batches == batches
        && no_zero(&[
            batches, input_h, input_w, depth, out_depth, filter_h, filter_w, output_h, output_w,
        ])
        && no_zero(&[g.stride_h, g.stride_w, g.dilation_h, g.dilation_w])
        && window <= MOST
        && window != row
        && (row < SHORT_RUN || g.dilation_w != 1)
}

/// The window kernel's geometries: one group (filter depth = input depth), no zero dimension,
/// stride or dilation, dilated window extents below 2^15 (so that no tap coordinate wraps) and
/// an input offset in `-32640..=32640`.
pub(crate) const fn window_takes(g: &ConvGeometry, input_offset: i32) -> bool {
    let [batches, input_h, input_w, depth] = g.input;
    let [out_depth, filter_h, filter_w, filter_d] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    const fn extent(taps: usize, dilation: usize) -> bool {
        match (taps - 1).checked_mul(dilation) {
            Some(e) => e < EXTENT,
            None => false,
        }
    }
    filter_d == depth
        && no_zero(&[
            batches, input_h, input_w, depth, out_depth, filter_h, filter_w, output_h, output_w,
        ])
        && no_zero(&[g.stride_h, g.stride_w, g.dilation_h, g.dilation_w])
        && extent(filter_h, g.dilation_h)
        && extent(filter_w, g.dilation_w)
        && input_offset >= OFFSETS.0
        && input_offset <= OFFSETS.1
}
