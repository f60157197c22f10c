//! The order in which the runtime's kernels read their inputs and write their outputs, and the
//! overlaps of an output with a dying input that this order tolerates.
//!
//! A kernel runs in *steps*: each step reads some input bytes, then writes some output bytes
//! (every read of a step comes before its writes). An output may share bytes with an input it
//! reads for the last time when no output byte is written at a step before the last step that
//! reads the input byte under it. With `d = offset(input) − offset(output)` (the input's
//! displacement above the output), input byte `i` lies under output byte `i + d`; the
//! displacement is safe when, for every input byte `i` whose last reading step is `last(i)`,
//! every output byte at `i + d` (if there is one: `0 ≤ i + d < output bytes`) is written at
//! `last(i)` or later.
//!
//! [`min_displacement`] gives the least `D` from which every displacement is safe: for each
//! input byte, the highest output byte written before its last read (`W(last(i))`) must lie
//! below it, `D = max_i (W(last(i)) + 1 − i)`; `D − 1` is unsafe (the input byte achieving the
//! maximum is overwritten before its last read). It is exact for the kernels' own orders,
//! gaps included (a depthwise block reads four channels of each pixel of its window, not the
//! bytes between), in time and memory linear in the two tensors' sizes (never in the
//! multiply-accumulates), with checked arithmetic.
//!
//! The orders are those the runtime's kernels document and keep (`stowplan::kernels`):
//!
//! * [`Order::Elementwise`]: element `k` is read, then written, at step `k` (activations,
//!   QUANTIZE, DEQUANTIZE, the unary elementwise ops and a binary op's unbroadcast input).
//! * [`Order::ConvElements`]: CONV_2D's general loop (portable, and the DSP build's general
//!   case): output pixels in order (batch, y, x), within a pixel each output channel in turn,
//!   each reading its whole window (every input channel of its group) before it is written.
//! * [`Order::Conv1x1PixelPairs`]: the DSP build's 1×1 CONV_2D (stride 1, no padding): pixel
//!   pairs in order; within a pair, channel pairs in order, each reading both input pixels
//!   whole, then writing its two channels of both output pixels; an odd last channel after the
//!   pairs (both pixels); an odd last pixel last, channel by channel.
//! * [`Order::DepthwiseBlocks`]: DEPTHWISE_CONV_2D: output pixels in order, within a pixel
//!   blocks of `block` output channels in order (the DSP kernels: 4, or the whole pixel for one
//!   input channel to eight; the portable kernel: 16), each reading the window's taps of the
//!   input channels its outputs come from, then writing the block.
//!
//! A model's op may run in either build (the plan is the same for every target), so an
//! overlap is allowed only where every kernel that can run the op tolerates it:
//! [`min_displacement_all`] takes the largest of their displacements. The displacements are
//! what [`crate::plan::overlap::Overlap`] takes; models do not declare such pairs yet (their
//! kernels read and write through separate slices), so every model is still planned tensor by
//! tensor.

use std::fmt;

/// Why an order has no displacement: its sizes overflow, or its geometry is malformed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderError(String);

impl fmt::Display for OrderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OrderError {}

type Error = OrderError;

/// The geometry of a CONV_2D or DEPTHWISE_CONV_2D, NHWC, as the runtime's `ConvGeometry`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Batches (input and output).
    pub batches: usize,
    /// Input height, width, channels.
    pub input: [usize; 3],
    /// Output height, width, channels.
    pub output: [usize; 3],
    /// Filter height and width.
    pub filter: [usize; 2],
    /// Strides (height, width), at least 1.
    pub stride: [usize; 2],
    /// Padding before the first row and column.
    pub pad: [usize; 2],
    /// Dilations (height, width), at least 1.
    pub dilation: [usize; 2],
    /// Input channels per group (CONV_2D: the filter's depth; DEPTHWISE_CONV_2D: 1).
    pub group_depth: usize,
}

/// The order of one kernel over one (output, input) pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Element `k` read and written at step `k`.
    Elementwise {
        /// Elements of each tensor.
        elements: usize,
        /// Bytes per input element.
        input_bytes: usize,
        /// Bytes per output element.
        output_bytes: usize,
    },
    /// CONV_2D, one output element per step.
    ConvElements {
        /// The op's geometry.
        window: Window,
        /// Bytes per input element.
        input_bytes: usize,
        /// Bytes per output element.
        output_bytes: usize,
    },
    /// The DSP 1×1 CONV_2D (int8), pixel pairs × channel pairs.
    Conv1x1PixelPairs {
        /// The op's geometry (1×1, stride 1, no padding, one group).
        window: Window,
    },
    /// DEPTHWISE_CONV_2D, blocks of `block` output channels per step (int8 elements; with a
    /// depth multiplier, a block lies within the outputs of one input channel).
    DepthwiseBlocks {
        /// The op's geometry (`group_depth` 1).
        window: Window,
        /// Output channels per input channel.
        depth_multiplier: usize,
        /// Output channels per step (at most).
        block: usize,
    },
}

/// The least displacement `offset(input) − offset(output)` from which `order` never
/// overwrites an input byte before its last read; `None` when no overlap is safe (the least is
/// at or past the output's end: only disjoint placements). Every displacement at or below
/// `−input bytes` is disjoint, so the result is at least that.
///
/// # Errors
/// The sizes overflow, or the order is malformed (a zero stride, dilation or block, channel
/// counts that do not divide).
pub fn min_displacement(order: &Order) -> Result<Option<i64>, Error> {
    let steps = Steps::of(order)?;
    // `written[s]`: one past the highest output byte written at steps before `s`.
    let mut written = vec![0_u64; steps.count.saturating_add(1)];
    let mut high = 0_u64;
    let mut step = 0_usize;
    let mut record = |s: usize, end: u64| -> Result<(), Error> {
        // Steps are reported in order; fill the ones in between.
        while step < s {
            step += 1;
            if let Some(w) = written.get_mut(step) {
                *w = high;
            }
        }
        high = high.max(end);
        Ok(())
    };
    steps.each_write(&mut record)?;
    while step < steps.count {
        step += 1;
        if let Some(w) = written.get_mut(step) {
            *w = high;
        }
    }
    let input_bytes = steps.input_bytes;
    let output_bytes = steps.output_bytes;
    let mut least = -(to_i64(input_bytes)?);
    steps.each_last_read(&mut |i: u64, last: usize| {
        // The output bytes written before `last`: all below `written[last]`.
        let w = written.get(last).copied().unwrap_or(high);
        if w > 0 {
            // Byte `i` must lie at or above output byte `w`: `i + d ≥ w`.
            let d = to_i64(w)? - to_i64(i)?;
            least = least.max(d);
        }
        Ok(())
    })?;
    Ok((least < to_i64(output_bytes)?).then_some(least))
}

/// The largest of [`min_displacement`] over `orders` (every kernel that may run an op): `None`
/// if any of them allows no overlap.
///
/// # Errors
/// As [`min_displacement`].
pub fn min_displacement_all(orders: &[Order]) -> Result<Option<i64>, Error> {
    let mut least = None;
    for order in orders {
        let Some(d) = min_displacement(order)? else {
            return Ok(None);
        };
        least = Some(least.map_or(d, |l: i64| l.max(d)));
    }
    Ok(least)
}

fn to_i64(x: u64) -> Result<i64, Error> {
    i64::try_from(x).map_err(|_| OrderError("a size past 2^63 bytes".into()))
}

fn too_large() -> Error {
    OrderError("a kernel's step count overflows".into())
}

/// A kernel's steps: how many, and per byte of each tensor the step that writes it (output)
/// or reads it for the last time (input).
struct Steps<'a> {
    order: &'a Order,
    count: usize,
    input_bytes: u64,
    output_bytes: u64,
}

impl<'a> Steps<'a> {
    fn of(order: &'a Order) -> Result<Self, Error> {
        let mul = |a: usize, b: usize| a.checked_mul(b).ok_or_else(too_large);
        let (count, input_bytes, output_bytes) = match *order {
            Order::Elementwise {
                elements,
                input_bytes,
                output_bytes,
            } => (
                elements,
                mul(elements, input_bytes)?,
                mul(elements, output_bytes)?,
            ),
            Order::ConvElements {
                window,
                input_bytes,
                output_bytes,
            } => {
                window.check()?;
                let outputs = window.outputs()?;
                (
                    outputs,
                    mul(window.inputs()?, input_bytes)?,
                    mul(outputs, output_bytes)?,
                )
            }
            Order::Conv1x1PixelPairs { window } => {
                window.check()?;
                if window.filter != [1, 1]
                    || window.stride != [1, 1]
                    || window.pad != [0, 0]
                    || window.group_depth != window.input[2]
                    || window.input[..2] != window.output[..2]
                {
                    return Err(OrderError(
                        "the pixel-pair order is the 1x1 CONV_2D's (stride 1, no padding)".into(),
                    ));
                }
                // Steps per pixel pair: the channel pairs and an odd last channel; then the
                // odd last pixel's channels.
                let pixels = window.pixels()?;
                let per_pair = window.output[2].div_ceil(2);
                let count = mul(pixels / 2, per_pair)?
                    .checked_add(if pixels % 2 == 1 { window.output[2] } else { 0 })
                    .ok_or_else(too_large)?;
                (count, window.inputs()?, window.outputs()?)
            }
            Order::DepthwiseBlocks {
                window,
                depth_multiplier,
                block,
            } => {
                window.check()?;
                if block == 0
                    || depth_multiplier == 0
                    || window.input[2].checked_mul(depth_multiplier) != Some(window.output[2])
                {
                    return Err(OrderError(
                        "a depthwise order needs a block and output channels = input channels × \
                         depth multiplier"
                            .into(),
                    ));
                }
                let per_pixel = depthwise_blocks(window.output[2], depth_multiplier, block);
                (
                    mul(window.pixels()?, per_pixel)?,
                    window.inputs()?,
                    window.outputs()?,
                )
            }
        };
        let wide = |n: usize| u64::try_from(n).map_err(|_| too_large());
        Ok(Self {
            order,
            count,
            input_bytes: wide(input_bytes)?,
            output_bytes: wide(output_bytes)?,
        })
    }

    /// Calls `f(step, end)` for every step in order: `end` one past the highest output byte
    /// the step writes.
    fn each_write(&self, f: &mut impl FnMut(usize, u64) -> Result<(), Error>) -> Result<(), Error> {
        match *self.order {
            Order::Elementwise {
                elements,
                output_bytes,
                ..
            } => {
                for k in 0..elements {
                    f(k, ((k + 1) * output_bytes) as u64)?;
                }
            }
            Order::ConvElements {
                window,
                output_bytes,
                ..
            } => {
                for k in 0..window.outputs()? {
                    f(k, ((k + 1) * output_bytes) as u64)?;
                }
            }
            Order::Conv1x1PixelPairs { window } => {
                let pixels = window.pixels()?;
                let channels = window.output[2];
                let mut s = 0;
                for pair in 0..pixels / 2 {
                    let second = (2 * pair + 1) * channels;
                    for c in (0..channels).step_by(2) {
                        // The pair's last channel written: c + 1, or c alone when odd.
                        let last = (c + 1).min(channels - 1);
                        f(s, (second + last + 1) as u64)?;
                        s += 1;
                    }
                }
                if pixels % 2 == 1 {
                    let base = (pixels - 1) * channels;
                    for c in 0..channels {
                        f(s, (base + c + 1) as u64)?;
                        s += 1;
                    }
                }
            }
            Order::DepthwiseBlocks {
                window,
                depth_multiplier,
                block,
            } => {
                let channels = window.output[2];
                let mut s = 0;
                for p in 0..window.pixels()? {
                    for (_, end) in depthwise_block_ranges(channels, depth_multiplier, block) {
                        f(s, (p * channels + end) as u64)?;
                        s += 1;
                    }
                }
            }
        }
        Ok(())
    }

    /// Calls `f(byte, last)` for every input byte some step reads: `last` the last step that
    /// reads it.
    fn each_last_read(
        &self,
        f: &mut impl FnMut(u64, usize) -> Result<(), Error>,
    ) -> Result<(), Error> {
        match *self.order {
            Order::Elementwise {
                elements,
                input_bytes,
                ..
            } => {
                for k in 0..elements {
                    for b in 0..input_bytes {
                        f((k * input_bytes + b) as u64, k)?;
                    }
                }
            }
            Order::ConvElements {
                window,
                input_bytes,
                ..
            } => {
                let [_, _, in_d] = window.input;
                let out_d = window.output[2];
                let groups = in_d / window.group_depth;
                let per_group = out_d / groups;
                window.each_last_reader(&mut |pixel, last_pixel| {
                    let Some(q) = last_pixel else { return Ok(()) };
                    for c in 0..in_d {
                        // The group's last output channel reads channel `c` last.
                        let last = q * out_d + (c / window.group_depth + 1) * per_group - 1;
                        for b in 0..input_bytes {
                            f(((pixel * in_d + c) * input_bytes + b) as u64, last)?;
                        }
                    }
                    Ok(())
                })?;
            }
            Order::Conv1x1PixelPairs { window } => {
                let pixels = window.pixels()?;
                let in_d = window.input[2];
                let out_d = window.output[2];
                let per_pair = out_d.div_ceil(2);
                for p in 0..pixels {
                    // A pair's input pixels are read by each of its steps, last by its last;
                    // the odd last pixel by each of its channels.
                    let last = if p / 2 < pixels / 2 {
                        (p / 2 + 1) * per_pair - 1
                    } else {
                        (pixels / 2) * per_pair + out_d - 1
                    };
                    for c in 0..in_d {
                        f((p * in_d + c) as u64, last)?;
                    }
                }
            }
            Order::DepthwiseBlocks {
                window,
                depth_multiplier,
                block,
            } => {
                let in_d = window.input[2];
                let out_d = window.output[2];
                let per_pixel = depthwise_blocks(out_d, depth_multiplier, block);
                // The block (index within a pixel) that reads input channel `c` last: the one
                // holding output channel `c × m + m − 1`.
                let mut last_block = vec![0_usize; in_d];
                for (k, (start, end)) in
                    depthwise_block_ranges(out_d, depth_multiplier, block).enumerate()
                {
                    for out_c in start..end {
                        if let Some(l) = last_block.get_mut(out_c / depth_multiplier) {
                            *l = k;
                        }
                    }
                }
                window.each_last_reader(&mut |pixel, last_pixel| {
                    let Some(q) = last_pixel else { return Ok(()) };
                    for (c, &k) in last_block.iter().enumerate() {
                        f((pixel * in_d + c) as u64, q * per_pixel + k)?;
                    }
                    Ok(())
                })?;
            }
        }
        Ok(())
    }
}

/// The pairs of `plan`'s buffers whose output may cover the input it reads for the last time,
/// under the runtime's kernels ([`min_displacement_all`] over every kernel that can run the
/// op): each CONV_2D (int8, int16, float32) and DEPTHWISE_CONV_2D (int8, int16) whose first
/// input dies at the op (not a subgraph output, not read again), both tensors planned online.
/// Each time has at most one pair (one op runs at a time), so the pairs form a valid
/// [`crate::plan::Problem::with_overlaps`] with `plan`'s buffers.
///
/// An op whose geometry the orders refuse (sizes that overflow, channels that do not divide)
/// gets no pair.
#[must_use]
pub fn model_overlaps(plan: &crate::ModelPlan) -> Vec<crate::plan::Overlap> {
    use crate::tflite::{BuiltinOp, DType, OpOptions, Opcode, Padding};
    let model = &plan.model;
    let buffers = plan.problem.buffers();
    let mut pairs = Vec::new();
    for (position, op) in model.ops.iter().enumerate() {
        // One run of the op, and its first input and output in the arena, on their own
        // buffers, the input's lifetime ending where the output's begins.
        let Some(&[scope]) = plan.lifetimes.op_times.get(position).map(Vec::as_slice) else {
            continue;
        };
        // The problem's time of the op's scope (`TensorLifetime::to_problem`).
        let Some(time) = scope.checked_add(1) else {
            continue;
        };
        let tensor = |i: Option<&Option<crate::tflite::TensorIndex>>| {
            i.copied()
                .flatten()
                .and_then(|t| model.tensor(op.subgraph, t))
        };
        let (Some(input), Some(filter), Some(output)) = (
            tensor(op.inputs.first()),
            tensor(op.inputs.get(1)),
            op.outputs
                .first()
                .and_then(|&t| model.tensor(op.subgraph, t)),
        ) else {
            continue;
        };
        let buffer = |id: crate::tflite::TensorId| {
            plan.tensor_buffers
                .get(id.get())
                .copied()
                .flatten()
                .map(|b| b as usize)
        };
        let (Some(bi), Some(bo)) = (buffer(input.id), buffer(output.id)) else {
            continue;
        };
        let (Some(ib), Some(ob)) = (buffers.get(bi), buffers.get(bo)) else {
            continue;
        };
        let read_again = op.inputs.iter().skip(1).flatten().any(|&t| {
            model
                .tensor(op.subgraph, t)
                .is_some_and(|t| buffer(t.id) == Some(bi))
        });
        if bi == bo
            || ib.lifetime.last != time
            || ob.lifetime.first != time
            || ib.fixed_offset.is_some()
            || ob.fixed_offset.is_some()
            || read_again
            || op.outputs.len() != 1
        {
            continue;
        }
        let Some(shapes) = [&input.shape, &filter.shape, &output.shape]
            .iter()
            .map(|s| {
                let dims: Option<Vec<usize>> = s.iter().map(|&d| usize::try_from(d).ok()).collect();
                dims.and_then(|d| <[usize; 4]>::try_from(d).ok())
            })
            .collect::<Option<Vec<[usize; 4]>>>()
        else {
            continue;
        };
        let (Some(&i), Some(&f), Some(&o)) = (shapes.first(), shapes.get(1), shapes.get(2)) else {
            continue;
        };
        let (padding, stride, dilation) = match op.options {
            OpOptions::Conv2D {
                padding,
                stride_w,
                stride_h,
                dilation_w,
                dilation_h,
                ..
            }
            | OpOptions::DepthwiseConv2D {
                padding,
                stride_w,
                stride_h,
                dilation_w,
                dilation_h,
                ..
            } => (padding, (stride_h, stride_w), (dilation_h, dilation_w)),
            _ => continue,
        };
        let multiplier = match (&op.opcode, &op.options) {
            (Opcode::Builtin(BuiltinOp::CONV_2D), OpOptions::Conv2D { .. }) => None,
            // The multiplier from the shapes, as TFLM's kernel takes it (the orders check that
            // it divides).
            (Opcode::Builtin(BuiltinOp::DEPTHWISE_CONV_2D), OpOptions::DepthwiseConv2D { .. }) => {
                Some(o[3].checked_div(i[3]).unwrap_or(0))
            }
            _ => continue,
        };
        let kind = match padding {
            Padding::Same => crate::quant::PaddingKind::Same,
            Padding::Valid => crate::quant::PaddingKind::Valid,
            Padding::Unknown(_) => continue,
        };
        // CONV_2D's filter is [out, h, w, in], DEPTHWISE_CONV_2D's [1, h, w, out].
        let (filter_h, filter_w) = (f[1], f[2]);
        let i32_of = |v: usize| i32::try_from(v).ok();
        let (Some(ih), Some(iw), Some(fh), Some(fw)) = (
            i32_of(i[1]),
            i32_of(i[2]),
            i32_of(filter_h),
            i32_of(filter_w),
        ) else {
            continue;
        };
        let p = crate::quant::compute_padding_height_width(
            stride.0, stride.1, dilation.0, dilation.1, ih, iw, fh, fw, kind,
        );
        let positive = |v: i32| usize::try_from(v).ok().filter(|&v| v > 0);
        let (Some(sh), Some(sw), Some(dh), Some(dw), Ok(ph), Ok(pw)) = (
            positive(stride.0),
            positive(stride.1),
            positive(dilation.0),
            positive(dilation.1),
            usize::try_from(p.height),
            usize::try_from(p.width),
        ) else {
            continue;
        };
        if i[0] != o[0] {
            continue;
        }
        let window = Window {
            batches: i[0],
            input: [i[1], i[2], i[3]],
            output: [o[1], o[2], o[3]],
            filter: [filter_h, filter_w],
            stride: [sh, sw],
            pad: [ph, pw],
            dilation: [dh, dw],
            group_depth: if multiplier.is_some() { 1 } else { f[3] },
        };
        let (Some(in_bytes), Some(out_bytes)) =
            (input.dtype.element_bytes(), output.dtype.element_bytes())
        else {
            continue;
        };
        let (in_bytes, out_bytes) = (in_bytes as usize, out_bytes as usize);
        let int8 = input.dtype == DType::Int8 && output.dtype == DType::Int8;
        let mut orders = Vec::new();
        match multiplier {
            None => {
                if !matches!(input.dtype, DType::Int8 | DType::Int16 | DType::Float32) {
                    continue;
                }
                orders.push(Order::ConvElements {
                    window,
                    input_bytes: in_bytes,
                    output_bytes: out_bytes,
                });
                let one_by_one = window.filter == [1, 1]
                    && window.stride == [1, 1]
                    && window.pad == [0, 0]
                    && window.group_depth == window.input[2]
                    && window.input[..2] == window.output[..2];
                if int8 && one_by_one {
                    orders.push(Order::Conv1x1PixelPairs { window });
                }
            }
            Some(m) => {
                // The portable kernel's blocks of 16 (int8, int16); the DSP kernel's of four
                // (eight for one input channel to eight) for int8 with a multiplier of 1 or a
                // multiple of four.
                if !(int8 || (input.dtype == DType::Int16 && output.dtype == DType::Int16)) {
                    continue;
                }
                orders.push(Order::DepthwiseBlocks {
                    window,
                    depth_multiplier: m,
                    block: 16,
                });
                if int8 && (m == 1 || m.is_multiple_of(4)) {
                    let block = if window.input[2] == 1 && window.output[2] == 8 {
                        8
                    } else {
                        4
                    };
                    orders.push(Order::DepthwiseBlocks {
                        window,
                        depth_multiplier: m,
                        block,
                    });
                }
            }
        }
        // A geometry the kernels refuse (checked by the lowering): no pair.
        let Ok(least) = min_displacement_all(&orders) else {
            continue;
        };
        if let Some(d) = least {
            pairs.push(crate::plan::Overlap::new(bo, bi, d));
        }
    }
    pairs
}

/// Blocks per output pixel of a depthwise order.
fn depthwise_blocks(channels: usize, multiplier: usize, block: usize) -> usize {
    depthwise_block_ranges(channels, multiplier, block).count()
}

/// A depthwise pixel's blocks of output channels, `start..end`, in order: `block` channels at a
/// time, within one input channel's outputs when the multiplier is not 1 (the portable
/// kernel's blocks; the DSP kernels' blocks of four, with a multiplier that is 1 or a multiple
/// of four, are the same ranges).
fn depthwise_block_ranges(
    channels: usize,
    multiplier: usize,
    block: usize,
) -> impl Iterator<Item = (usize, usize)> {
    let mut first = 0;
    core::iter::from_fn(move || {
        if first >= channels || block == 0 || multiplier == 0 {
            return None;
        }
        let len = if multiplier == 1 {
            block.min(channels - first)
        } else {
            block.min(multiplier - first % multiplier)
        };
        let range = (first, first + len);
        first += len;
        Some(range)
    })
}

impl Window {
    fn check(&self) -> Result<(), Error> {
        if self.stride.contains(&0)
            || self.dilation.contains(&0)
            || self.group_depth == 0
            || !self.input[2].is_multiple_of(self.group_depth)
            || self.output[2] == 0
            || !self.output[2].is_multiple_of(self.input[2] / self.group_depth)
        {
            return Err(OrderError(
                "a window order needs strides and dilations of at least 1 and channel counts \
                 that divide into groups"
                    .into(),
            ));
        }
        // Every index below fits: the tensors' element counts do.
        self.inputs()?;
        self.outputs()?;
        Ok(())
    }

    fn pixels(&self) -> Result<usize, Error> {
        let [h, w, _] = self.output;
        self.batches
            .checked_mul(h)
            .and_then(|n| n.checked_mul(w))
            .ok_or_else(too_large)
    }

    fn outputs(&self) -> Result<usize, Error> {
        self.pixels()?
            .checked_mul(self.output[2])
            .ok_or_else(too_large)
    }

    fn inputs(&self) -> Result<usize, Error> {
        let [h, w, d] = self.input;
        self.batches
            .checked_mul(h)
            .and_then(|n| n.checked_mul(w))
            .and_then(|n| n.checked_mul(d))
            .ok_or_else(too_large)
    }

    /// The last output coordinate along one axis whose window holds input coordinate `at`:
    /// output `o` reads `o × stride − pad + t × dilation` for taps `t` below `filter`.
    fn last_along(
        at: usize,
        outputs: usize,
        filter: usize,
        stride: usize,
        pad: usize,
        dilation: usize,
    ) -> Option<usize> {
        let shifted = at + pad;
        (0..filter)
            .filter_map(|t| {
                let base = shifted.checked_sub(t * dilation)?;
                (base % stride == 0 && base / stride < outputs).then_some(base / stride)
            })
            .max()
    }

    /// Calls `f(pixel, last)` for every input pixel (batch, y, x flattened) in order, with
    /// the last output pixel (flattened) whose window reads it, `None` if none does.
    fn each_last_reader(
        &self,
        f: &mut impl FnMut(usize, Option<usize>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let [in_h, in_w, _] = self.input;
        let [out_h, out_w, _] = self.output;
        let [(fh, fw), (sh, sw), (ph, pw), (dh, dw)] = [
            (self.filter[0], self.filter[1]),
            (self.stride[0], self.stride[1]),
            (self.pad[0], self.pad[1]),
            (self.dilation[0], self.dilation[1]),
        ];
        let rows: Vec<Option<usize>> = (0..in_h)
            .map(|y| Self::last_along(y, out_h, fh, sh, ph, dh))
            .collect();
        let columns: Vec<Option<usize>> = (0..in_w)
            .map(|x| Self::last_along(x, out_w, fw, sw, pw, dw))
            .collect();
        let mut pixel = 0;
        for b in 0..self.batches {
            for row in &rows {
                for column in &columns {
                    let last = row
                        .zip(*column)
                        .map(|(oy, ox)| (b * out_h + oy) * out_w + ox);
                    f(pixel, last)?;
                    pixel += 1;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    /// A literal run of each order's loops on shadow memory: every read and write in the
    /// kernel's order, on one buffer where the input lies `d` bytes above the output. Returns
    /// whether every read found the input's own byte (not one an output write replaced).
    fn runs_clean(order: &Order, d: i64) -> bool {
        let steps = Steps::of(order).unwrap();
        let (ib, ob) = (steps.input_bytes as i64, steps.output_bytes as i64);
        let low = d.min(0);
        let high = (d + ib).max(ob);
        // Each byte: `Some(i)` holds input byte `i`, `None` was overwritten.
        let mut memory: Vec<Option<i64>> = vec![None; (high - low) as usize];
        for i in 0..ib {
            memory[(i + d - low) as usize] = Some(i);
        }
        let mut clean = true;
        let mut read = |memory: &[Option<i64>], i: i64| {
            if memory[(i + d - low) as usize] != Some(i) {
                clean = false;
            }
        };
        let write = |memory: &mut [Option<i64>], o: i64| memory[(o - low) as usize] = None;
        match *order {
            Order::Elementwise {
                elements,
                input_bytes,
                output_bytes,
            } => {
                for k in 0..elements as i64 {
                    for b in 0..input_bytes as i64 {
                        read(&memory, k * input_bytes as i64 + b);
                    }
                    for b in 0..output_bytes as i64 {
                        write(&mut memory, k * output_bytes as i64 + b);
                    }
                }
            }
            Order::ConvElements {
                window: w,
                input_bytes,
                output_bytes,
            } => {
                let groups = w.input[2] / w.group_depth;
                let per_group = w.output[2] / groups;
                let mut o = 0;
                for b in 0..w.batches {
                    for oy in 0..w.output[0] {
                        for ox in 0..w.output[1] {
                            for oc in 0..w.output[2] {
                                let g = oc / per_group;
                                for (y, x) in taps(&w, oy, ox) {
                                    for c in g * w.group_depth..(g + 1) * w.group_depth {
                                        let e = ((b * w.input[0] + y) * w.input[1] + x)
                                            * w.input[2]
                                            + c;
                                        for k in 0..input_bytes {
                                            read(&memory, (e * input_bytes + k) as i64);
                                        }
                                    }
                                }
                                for k in 0..output_bytes {
                                    write(&mut memory, (o * output_bytes + k) as i64);
                                }
                                o += 1;
                            }
                        }
                    }
                }
            }
            Order::Conv1x1PixelPairs { window: w } => {
                let pixels = w.batches * w.output[0] * w.output[1];
                let (ind, outd) = (w.input[2], w.output[2]);
                let read_pixel =
                    |memory: &[Option<i64>],
                     p: usize,
                     read: &mut dyn FnMut(&[Option<i64>], i64)| {
                        for c in 0..ind {
                            read(memory, (p * ind + c) as i64);
                        }
                    };
                for pair in 0..pixels / 2 {
                    let (a, b) = (2 * pair, 2 * pair + 1);
                    let mut c = 0;
                    while c + 1 < outd {
                        read_pixel(&memory, a, &mut read);
                        read_pixel(&memory, b, &mut read);
                        for p in [a, b] {
                            write(&mut memory, (p * outd + c) as i64);
                            write(&mut memory, (p * outd + c + 1) as i64);
                        }
                        c += 2;
                    }
                    if outd % 2 == 1 {
                        read_pixel(&memory, a, &mut read);
                        read_pixel(&memory, b, &mut read);
                        write(&mut memory, (a * outd + outd - 1) as i64);
                        write(&mut memory, (b * outd + outd - 1) as i64);
                    }
                }
                if pixels % 2 == 1 {
                    let p = pixels - 1;
                    for c in 0..outd {
                        read_pixel(&memory, p, &mut read);
                        write(&mut memory, (p * outd + c) as i64);
                    }
                }
            }
            Order::DepthwiseBlocks {
                window: w,
                depth_multiplier: m,
                block,
            } => {
                let mut p = 0;
                for b in 0..w.batches {
                    for oy in 0..w.output[0] {
                        for ox in 0..w.output[1] {
                            for (start, end) in depthwise_block_ranges(w.output[2], m, block) {
                                for (y, x) in taps(&w, oy, ox) {
                                    for oc in start..end {
                                        let c = oc / m;
                                        let e = ((b * w.input[0] + y) * w.input[1] + x)
                                            * w.input[2]
                                            + c;
                                        read(&memory, e as i64);
                                    }
                                }
                                for oc in start..end {
                                    write(&mut memory, (p * w.output[2] + oc) as i64);
                                }
                            }
                            p += 1;
                        }
                    }
                }
            }
        }
        clean
    }

    /// The valid taps (input y, x) of output pixel (oy, ox).
    fn taps(w: &Window, oy: usize, ox: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for ty in 0..w.filter[0] {
            for tx in 0..w.filter[1] {
                let y = (oy * w.stride[0] + ty * w.dilation[0]) as i64 - w.pad[0] as i64;
                let x = (ox * w.stride[1] + tx * w.dilation[1]) as i64 - w.pad[1] as i64;
                if (0..w.input[0] as i64).contains(&y) && (0..w.input[1] as i64).contains(&x) {
                    out.push((y as usize, x as usize));
                }
            }
        }
        out
    }

    /// `min_displacement` is exact: the literal run is clean at it and at every larger
    /// displacement that still overlaps, and not one byte below it.
    fn check(order: &Order) {
        let steps = Steps::of(order).unwrap();
        let (ib, ob) = (steps.input_bytes as i64, steps.output_bytes as i64);
        match min_displacement(order).unwrap() {
            Some(d) => {
                assert!(d >= -ib && d < ob, "{order:?}: {d}");
                for e in d..ob {
                    assert!(runs_clean(order, e), "{order:?}: unsafe at {e} (least {d})");
                }
                if d > -ib {
                    assert!(
                        !runs_clean(order, d - 1),
                        "{order:?}: safe at {} (least {d})",
                        d - 1
                    );
                }
            }
            None => {
                // The topmost displacement that still overlaps is unsafe.
                assert!(
                    !runs_clean(order, ob - 1),
                    "{order:?}: safe at {}, none claimed",
                    ob - 1
                );
            }
        }
    }

    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    fn random_window(rng: &mut Rng, depthwise: bool) -> (Window, usize) {
        let stride = [1 + rng.below(2), 1 + rng.below(2)];
        let dilation = [1 + rng.below(2), 1 + rng.below(2)];
        let filter = [1 + rng.below(3), 1 + rng.below(3)];
        let input = [1 + rng.below(5), 1 + rng.below(5)];
        let same = rng.below(2) == 0;
        let axis = |i: usize| {
            let span = (filter[i] - 1) * dilation[i] + 1;
            if same {
                let out = input[i].div_ceil(stride[i]);
                let pad_total = ((out - 1) * stride[i] + span).saturating_sub(input[i]);
                (out, pad_total / 2)
            } else if input[i] >= span {
                ((input[i] - span) / stride[i] + 1, 0)
            } else {
                (1, 0)
            }
        };
        let ((oh, ph), (ow, pw)) = (axis(0), axis(1));
        let in_d = 1 + rng.below(5);
        let (group_depth, out_d, m) = if depthwise {
            let m = [1, 1, 2, 4, 8][rng.below(5)];
            (1, in_d * m, m)
        } else {
            let groups = if rng.below(3) == 0 && in_d.is_multiple_of(2) {
                2
            } else {
                1
            };
            (in_d / groups, groups * (1 + rng.below(4)), 1)
        };
        let w = Window {
            batches: 1 + rng.below(2),
            input: [input[0], input[1], in_d],
            output: [oh, ow, out_d],
            filter,
            stride,
            pad: [ph, pw],
            dilation,
            group_depth,
        };
        (w, m)
    }

    #[test]
    fn elementwise_is_exact() {
        for elements in 1..6 {
            for input_bytes in 1..5 {
                for output_bytes in 1..5 {
                    check(&Order::Elementwise {
                        elements,
                        input_bytes,
                        output_bytes,
                    });
                }
            }
        }
        // Same widths: the output may lie on the input (activations, int8 QUANTIZE).
        let same = Order::Elementwise {
            elements: 100,
            input_bytes: 1,
            output_bytes: 1,
        };
        assert_eq!(min_displacement(&same).unwrap(), Some(0));
        // float32 → int8: the output may start three bytes above the input's start.
        let narrower = Order::Elementwise {
            elements: 100,
            input_bytes: 4,
            output_bytes: 1,
        };
        assert_eq!(min_displacement(&narrower).unwrap(), Some(-3));
    }

    #[test]
    fn conv_and_depthwise_are_exact() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..300 {
            let (w, _) = random_window(&mut rng, false);
            let bytes = [(1, 1), (2, 2), (1, 4)][rng.below(3)];
            check(&Order::ConvElements {
                window: w,
                input_bytes: bytes.0,
                output_bytes: bytes.1,
            });
            let (w, m) = random_window(&mut rng, true);
            for block in [1, 4, 16] {
                check(&Order::DepthwiseBlocks {
                    window: w,
                    depth_multiplier: m,
                    block,
                });
            }
        }
        for _ in 0..200 {
            let pixels = [1 + rng.below(4), 1 + rng.below(4)];
            let w = Window {
                batches: 1 + rng.below(2),
                input: [pixels[0], pixels[1], 1 + rng.below(6)],
                output: [pixels[0], pixels[1], 1 + rng.below(6)],
                filter: [1, 1],
                stride: [1, 1],
                pad: [0, 0],
                dilation: [1, 1],
                group_depth: 0,
            };
            let w = Window {
                group_depth: w.input[2],
                ..w
            };
            check(&Order::Conv1x1PixelPairs { window: w });
            check(&Order::ConvElements {
                window: w,
                input_bytes: 1,
                output_bytes: 1,
            });
        }
    }

    /// The model's own layers: person_detect's first three ops (the figures).
    #[test]
    fn person_detect_head() {
        let dw = |input: [usize; 3], output: [usize; 3], stride, pad| Window {
            batches: 1,
            input,
            output,
            filter: [3, 3],
            stride: [stride, stride],
            pad: [pad, pad],
            dilation: [1, 1],
            group_depth: 1,
        };
        // DEPTHWISE 3x3 stride 2, 96² × 1 → 48² × 8 (depth multiplier 8).
        let op0 = dw([96, 96, 1], [48, 48, 8], 2, 0);
        let dsp = Order::DepthwiseBlocks {
            window: op0,
            depth_multiplier: 8,
            block: 8,
        };
        let portable = Order::DepthwiseBlocks {
            window: op0,
            depth_multiplier: 8,
            block: 16,
        };
        let d0 = min_displacement_all(&[dsp, portable]).unwrap().unwrap();
        // Input pixel (y, x) is read last by output pixel (y / 2, x / 2), after the 8 bytes of
        // every earlier output pixel are written: d ≥ 8 (48 ⌊y/2⌋ + ⌊x/2⌋) − (96 y + x), the
        // most at y = x = 94: 96 × 94 + 3 × 94.
        assert_eq!(d0, 96 * 94 + 3 * 94);
        // DEPTHWISE 3x3 stride 1 SAME, 48² × 8 (blocks of four: one row and one pixel back).
        let op1 = dw([48, 48, 8], [48, 48, 8], 1, 1);
        let d1 = min_displacement_all(&[
            Order::DepthwiseBlocks {
                window: op1,
                depth_multiplier: 1,
                block: 4,
            },
            Order::DepthwiseBlocks {
                window: op1,
                depth_multiplier: 1,
                block: 16,
            },
        ])
        .unwrap()
        .unwrap();
        assert_eq!(d1, (48 + 1) * 8, "one row and one pixel of displacement");
        // CONV 1x1, 8 → 16 channels on 48²: the input fits in the top half of the output (18,432
        // bytes up), and a little more for the DSP kernel's pixel pairs.
        let op2 = Window {
            batches: 1,
            input: [48, 48, 8],
            output: [48, 48, 16],
            filter: [1, 1],
            stride: [1, 1],
            pad: [0, 0],
            dilation: [1, 1],
            group_depth: 8,
        };
        let d2 = min_displacement_all(&[
            Order::Conv1x1PixelPairs { window: op2 },
            Order::ConvElements {
                window: op2,
                input_bytes: 1,
                output_bytes: 1,
            },
        ])
        .unwrap()
        .unwrap();
        // The DSP kernel's last pixel pair (q = 1151) reads its input pixels last at its last
        // channel pair, after writing the second pixel's channels 0..14: d ≥ (2q + 1) × 16 +
        // 14 − 2q × 8 = 16 q + 30 (the portable kernel needs less: one pixel at a time).
        assert_eq!(d2, 16 * 1151 + 30);
    }

    #[test]
    fn malformed_orders_are_errors() {
        let w = Window {
            batches: 1,
            input: [4, 4, 3],
            output: [4, 4, 3],
            filter: [3, 3],
            stride: [0, 1],
            pad: [1, 1],
            dilation: [1, 1],
            group_depth: 3,
        };
        assert!(
            min_displacement(&Order::ConvElements {
                window: w,
                input_bytes: 1,
                output_bytes: 1
            })
            .is_err()
        );
        let w = Window {
            stride: [1, 1],
            ..w
        };
        assert!(min_displacement(&Order::Conv1x1PixelPairs { window: w }).is_err());
        assert!(
            min_displacement(&Order::DepthwiseBlocks {
                window: w,
                depth_multiplier: 2,
                block: 4
            })
            .is_err()
        );
        let huge = Order::Elementwise {
            elements: usize::MAX,
            input_bytes: 2,
            output_bytes: 1,
        };
        assert!(min_displacement(&huge).is_err());
    }
}
