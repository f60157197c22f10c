//! The window ops' geometry and parameters: CONV_2D and DEPTHWISE_CONV_2D (NHWC activations,
//! OHWI or `1HWO` filters), which part of an output one kernel call computes (the in-place
//! driver's chunks), and the window arithmetic (origins, taps inside the input).

use super::requant::Requant;
use super::slices::product;

/// NHWC geometry of CONV_2D / DEPTHWISE_CONV_2D.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvGeometry {
    /// Input shape `[N, H, W, C]`.
    pub input: [usize; 4],
    /// Filter shape: CONV_2D `[O, H, W, I]` (`I` may be a divisor of `C`: grouped
    /// convolution); DEPTHWISE_CONV_2D `[1, H, W, O]`.
    pub filter: [usize; 4],
    /// Output shape `[N, H, W, C]`.
    pub output: [usize; 4],
    /// Vertical stride.
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Vertical dilation factor.
    pub dilation_h: usize,
    /// Horizontal dilation factor.
    pub dilation_w: usize,
    /// TFLM's `padding_values.height` (rows of implicit zeros above the input).
    pub pad_h: usize,
    /// TFLM's `padding_values.width` (columns of implicit zeros left of the input).
    pub pad_w: usize,
    /// DEPTHWISE_CONV_2D only: output channels per input channel (1 for CONV_2D).
    pub depth_multiplier: usize,
}

impl ConvGeometry {
    /// The same convolution with rows and columns exchanged, when every image is one column
    /// (input, filter and output one pixel wide, no column padding) of more than one row: the
    /// input `[N, H, 1, C]` and `[N, 1, H, C]` are the same bytes, as are the filters
    /// `[O, FH, 1, I]` and `[O, 1, FH, I]` and the outputs, and output row `y`'s window over
    /// rows `y * stride_h + k * dilation_h − pad_h` is output column `y`'s over the same
    /// columns: a kernel computes every output of one as it computes the other's, in the same
    /// memory order. The blocked kernels pair adjacent pixels of a row; a column has one pixel
    /// a row, so 1-D (temporal) convolutions, which TFLite lays out as columns, run their
    /// blocks only as rows. `None` for any other geometry.
    #[must_use]
    pub(crate) const fn columns_as_rows(&self) -> Option<Self> {
        let [n, h, w, c] = self.input;
        let [o, fh, fw, i] = self.filter;
        let [on, oh, ow, oc] = self.output;
        if w != 1 || fw != 1 || ow != 1 || self.pad_w != 0 || h < 2 || oh < 2 {
            return None;
        }
        Some(Self {
            input: [n, 1, h, c],
            filter: [o, 1, fh, i],
            output: [on, 1, oh, oc],
            stride_h: 1,
            stride_w: self.stride_h,
            dilation_h: 1,
            dilation_w: self.dilation_h,
            pad_h: 0,
            pad_w: self.pad_h,
            depth_multiplier: self.depth_multiplier,
        })
    }
}

/// Parameters of an int8 CONV_2D or DEPTHWISE_CONV_2D (per-channel quantised filter).
#[derive(Clone, Copy, Debug)]
pub struct ConvS8 {
    /// The geometry.
    pub geometry: ConvGeometry,
    /// Minus the input zero point.
    pub input_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// One multiplier per output channel (TFLM's `per_channel_output_multiplier` / `_shift`).
    pub requant: &'static [Requant],
    /// Lower clamp of the quantised output (fused activation).
    pub act_min: i32,
    /// Upper clamp of the quantised output (fused activation).
    pub act_max: i32,
}

/// Parameters of a float CONV_2D or DEPTHWISE_CONV_2D.
#[derive(Clone, Copy, Debug)]
pub struct ConvF32 {
    /// The geometry.
    pub geometry: ConvGeometry,
    /// Lower clamp of the output (fused activation).
    pub act_min: f32,
    /// Upper clamp of the output (fused activation).
    pub act_max: f32,
}

/// The input coordinate `origin + dilation * k` if it lies in `0..size`.
#[inline(always)]
pub(crate) fn inside(origin: isize, dilation: usize, k: usize, size: usize) -> Option<usize> {
    let at = origin.wrapping_add(dilation.wrapping_mul(k) as isize);
    if at >= 0 && (at as usize) < size {
        Some(at as usize)
    } else {
        None
    }
}

/// `out * stride - pad`, the window's origin in the input.
#[inline(always)]
pub(crate) fn origin(out: usize, stride: usize, pad: usize) -> isize {
    (out.wrapping_mul(stride) as isize).wrapping_sub(pad as isize)
}

/// Which part of an op's output one kernel call computes, for the overlapped driver's chunks
/// of pixels ([`super::overlap`]): the call's geometry has the op's input rows it reads (all
/// columns) and the output pixels it computes; those are the op's output columns `x0..` of
/// its row, and the input slice starts `skip` pixels into the geometry's input (the pixels
/// before it are not read, and may already hold output). [`Part::WHOLE`]: the geometry's own
/// output and input, as every kernel's public entry takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Part {
    /// The op's output column of the call's output column 0.
    pub x0: usize,
    /// Input pixels missing at the start of the call's input slice.
    pub skip: usize,
}

impl Part {
    /// The whole geometry: columns from 0, no pixel skipped.
    pub const WHOLE: Self = Self { x0: 0, skip: 0 };

    /// `input` cut to `g`'s input shape less the skipped pixels, `None` if shorter.
    ///
    /// The pixels a part skips are never read by its windows (the in-place driver starts each
    /// chunk's input at the lowest pixel its windows read), so no kernel reads outside its
    /// slice: in debug builds a part that skips a pixel some window of `g`'s output reads
    /// fails here, before the kernel runs (release builds do not check; such a read would
    /// then add nothing).
    #[inline(always)]
    pub fn input<'a, T>(self, input: &'a [T], g: &ConvGeometry) -> Option<&'a [T]> {
        let dims = &g.input;
        #[cfg(debug_assertions)]
        if self.skip > 0 {
            let first = self.first_read(g);
            debug_assert!(
                self.skip <= first,
                "a part skips {} input pixels, but its windows read pixel {first}: a kernel \
                 would read outside its slice",
                self.skip
            );
        }
        let skipped = self.skip.checked_mul(dims[3])?;
        input.get(..product(dims)?.checked_sub(skipped)?)
    }

    /// The lowest input pixel (counted over batch, rows and columns of `g`'s input) that a
    /// window of the part's output pixels reads, `usize::MAX` if none reads any: the checks
    /// of debug builds, by brute force over every tap.
    #[cfg(any(debug_assertions, test))]
    pub(crate) fn first_read(self, g: &ConvGeometry) -> usize {
        let [batches, input_h, input_w, _] = g.input;
        let [_, output_h, output_w, _] = g.output;
        let (filter_h, filter_w) = (g.filter[1], g.filter[2]);
        let mut first = usize::MAX;
        for batch in 0..batches {
            for out_y in 0..output_h {
                let y0 = origin(out_y, g.stride_h, g.pad_h);
                for out_x in 0..output_w {
                    let x0 = self.origin_x(out_x, g.stride_w, g.pad_w);
                    for ky in 0..filter_h {
                        let Some(y) = inside(y0, g.dilation_h, ky, input_h) else {
                            continue;
                        };
                        for kx in 0..filter_w {
                            if let Some(x) = inside(x0, g.dilation_w, kx, input_w) {
                                first = first.min((batch * input_h + y) * input_w + x);
                            }
                        }
                    }
                }
            }
        }
        first
    }

    /// The window's origin in the input of the call's output column `out_x`.
    #[inline(always)]
    pub fn origin_x(self, out_x: usize, stride: usize, pad: usize) -> isize {
        origin(self.x0.wrapping_add(out_x), stride, pad)
    }

    /// The index in the call's slice of the geometry's input pixel `pixel` (past the slice's
    /// end, so never read, for a skipped one).
    #[inline(always)]
    pub fn pixel(self, pixel: usize) -> usize {
        pixel.wrapping_sub(self.skip)
    }
}

/// The taps `start..end` of an undilated window of `filter` taps at `origin` that lie in
/// `0..size` (empty if none do).
#[inline(always)]
pub(crate) fn valid_taps(origin: isize, filter: usize, size: usize) -> (usize, usize) {
    let start = if origin < 0 { origin.unsigned_abs() } else { 0 };
    let limit = (size as isize).wrapping_sub(origin);
    let end = if limit < 0 {
        0
    } else {
        filter.min(limit as usize)
    };
    (start, end.max(start))
}

/// Parameters of an int16 CONV_2D or DEPTHWISE_CONV_2D (int16 activations, int8 per-channel
/// filter). TFLM's int16 kernels take no zero points (int16 is quantised symmetrically): the
/// input and output offsets are not applied.
#[derive(Clone, Copy, Debug)]
pub struct ConvS16 {
    /// The geometry.
    pub geometry: ConvGeometry,
    /// One multiplier per output channel (TFLM's `per_channel_output_multiplier` / `_shift`).
    pub requant: &'static [Requant],
    /// Lower clamp of the quantised output (fused activation).
    pub act_min: i32,
    /// Upper clamp of the quantised output (fused activation).
    pub act_max: i32,
}
