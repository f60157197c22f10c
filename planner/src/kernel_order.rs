//! Which ops may write their output over the input they consume, and from what displacement:
//! the pairs [`model_overlaps`] gives the planner for generated `invoke`.
//!
//! CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D and MAX_POOL_2D (input and output of one element
//! type: int8, int16, float32; a pool as the depthwise convolution with its window)
//! run overlapped through the runtime's driver (`stowplan::kernels::overlap`), which feeds the
//! op's own kernel (portable, or on Armv7E-M the DSP one: the same driver for both) chunks of
//! whole output rows, or of one row's pixels, each on two disjoint slices of the one buffer;
//! see that module for the order it keeps. The driver runs every displacement
//! `d = offset(input) − offset(output)` from `D = max_u (o(u) − r(u))` on (in elements: `o(u)`
//! one past output pixel `u`'s last element, `r(u)` the lowest input element it or a later
//! pixel reads), and no smaller one. [`min_displacement`] is that function itself, compiled
//! here from the runtime's source, times the element size ([`row_displacement`]: the least
//! from which every chunk is whole rows, the pair's preferred displacement); generated code
//! asserts at compile time that the offsets it was planned with satisfy it, and the plan's own
//! check (module `overlap_proof`) derives `D` again with code of its own.
//!
//! QUANTIZE (int8 to int8, int16 to int16 or int8), the int8, int16 and float32 LOGISTIC,
//! TANH, RELU, RELU6 and LEAKY_RELU and the int8 and float32 HARD_SWISH and ELU
//! (`elementwise`) run element by element on one buffer
//! (`stowplan::kernels::overlap::requantize_s8`, ...), and so do ADD and MUL whose first input
//! is not broadcast (`binary`; the second input keeps a view of its own): their pairs have
//! `D = 0` (the output from the input's start on) and no preferred displacement. DEQUANTIZE
//! to float32 (`widening`) writes each element wider than it reads it: `D` is
//! `(4 − b) · (n − 1)` bytes for `n` elements of `b` bytes. FULLY_CONNECTED with several batch
//! rows (`fully_connected`) runs its kernel (portable or DSP) on chunks of rows, each row's
//! output below its own input row: `D = max(U, B·U − (B−1)·K)` elements. CONCATENATION
//! (`concatenation`) moves its first input's chunks into their slots, in order: `D =
//! (outer − 1)·(R − L)` elements (`R` a row of the output, `L` of the first input; a full alias
//! along the outermost axis). Only the first input of an op lies over its output; the others
//! keep views of their own.
//!
//! PAD and PADV2 with constant paddings (`pad_of`) run on one buffer too
//! (`stowplan::kernels::overlap::pad`), from the padding written before the input's last
//! element (`overlap::pad_min_displacement`).
//!
//! Every other op keeps whole-tensor planning (its kernel reads and writes separate slices).

use crate::graph::TensorInfo;
use crate::kernels::ConvGeometry;
use crate::lifetime::Lifetimes;
use crate::plan::{Overlap, Problem};
use crate::tflite::{BuiltinOp, DType, Model, Op, OpOptions, Opcode};

/// The geometry the generated code passes an overlappable op's kernel (as its lowering computes
/// it from the planned shapes and the options), with the element size in bytes; `None` for
/// other ops, other types, or malformed shapes.
#[must_use]
pub(crate) fn geometry_of(
    model: &Model,
    tensors: &[TensorInfo],
    op: &Op,
) -> Option<(ConvGeometry, u64)> {
    let tensor = |t: Option<&Option<crate::tflite::TensorIndex>>| {
        t.copied()
            .flatten()
            .and_then(|t| model.tensor(op.subgraph, t))
    };
    let input = tensor(op.inputs.first())?;
    let output = model.tensor(op.subgraph, *op.outputs.first()?)?;
    if input.dtype != output.dtype {
        return None;
    }
    let shape = |id: crate::tflite::TensorId| -> Option<[usize; 4]> {
        let dims: Option<Vec<usize>> = tensors
            .get(id.get())?
            .shape
            .iter()
            .map(|&d| usize::try_from(d).ok())
            .collect();
        <[usize; 4]>::try_from(dims?).ok()
    };
    let (i, o) = (shape(input.id)?, shape(output.id)?);
    let positive = |v: i32| usize::try_from(v).ok().filter(|&v| v > 0);
    // The pools: the window of a depthwise convolution of multiplier 1, no dilation (the
    // runtime's `overlap::pool_walk`), the types their kernels take.
    if let (
        Opcode::Builtin(BuiltinOp::AVERAGE_POOL_2D | BuiltinOp::MAX_POOL_2D),
        &OpOptions::Pool2D {
            padding,
            stride_w,
            stride_h,
            filter_w,
            filter_h,
            ..
        },
    ) = (&op.opcode, &op.options)
    {
        if !matches!(input.dtype, DType::Int8 | DType::Int16 | DType::Float32) || i[3] != o[3] {
            return None;
        }
        let stride = (positive(stride_h)?, positive(stride_w)?);
        let window = (positive(filter_h)?, positive(filter_w)?);
        let (pad_h, pad_w) =
            crate::ops::padding_hw(padding, stride, (1, 1), (i[1], i[2]), window).ok()?;
        let g = ConvGeometry {
            input: i,
            filter: [1, window.0, window.1, i[3]],
            output: o,
            stride_h: stride.0,
            stride_w: stride.1,
            dilation_h: 1,
            dilation_w: 1,
            pad_h,
            pad_w,
            depth_multiplier: 1,
        };
        return Some((g, input.dtype.element_bytes()?));
    }
    let filter = tensor(op.inputs.get(1))?;
    // The types the runtime's kernels take (others go to a fallback, which keeps whole
    // tensors): int8 with int8 or int4 weights, int16 with int8, float32 with float32.
    match (input.dtype, filter.dtype) {
        (DType::Int8, DType::Int8 | DType::Int4)
        | (DType::Int16, DType::Int8)
        | (DType::Float32, DType::Float32) => {}
        _ => return None,
    }
    let f = shape(filter.id)?;
    // CONV_2D and DEPTHWISE_CONV_2D share the fields the geometry needs.
    let (padding, stride, dilation) = match (&op.opcode, &op.options) {
        (
            Opcode::Builtin(BuiltinOp::CONV_2D),
            &OpOptions::Conv2D {
                padding,
                stride_w,
                stride_h,
                dilation_w,
                dilation_h,
                ..
            },
        )
        | (
            Opcode::Builtin(BuiltinOp::DEPTHWISE_CONV_2D),
            &OpOptions::DepthwiseConv2D {
                padding,
                stride_w,
                stride_h,
                dilation_w,
                dilation_h,
                ..
            },
        ) => (padding, (stride_h, stride_w), (dilation_h, dilation_w)),
        _ => return None,
    };
    let depthwise = op.opcode == Opcode::Builtin(BuiltinOp::DEPTHWISE_CONV_2D);
    let stride = (positive(stride.0)?, positive(stride.1)?);
    let dilation = (positive(dilation.0)?, positive(dilation.1)?);
    // CONV_2D's filter is [out, h, w, in], DEPTHWISE_CONV_2D's [1, h, w, out].
    let (pad_h, pad_w) =
        crate::ops::padding_hw(padding, stride, dilation, (i[1], i[2]), (f[1], f[2])).ok()?;
    let depth_multiplier = if depthwise {
        o[3].checked_div(i[3])?
    } else {
        1
    };
    let g = ConvGeometry {
        input: i,
        filter: f,
        output: o,
        stride_h: stride.0,
        stride_w: stride.1,
        dilation_h: dilation.0,
        dilation_w: dilation.1,
        pad_h,
        pad_w,
        depth_multiplier,
    };
    Some((g, input.dtype.element_bytes()?))
}

/// The int32 values of a constant tensor's data in the model file, `None` for another type or a
/// tensor without data (or data that is not whole values).
#[must_use]
pub(crate) fn constant_i32s(
    model: &Model,
    bytes: &[u8],
    t: &crate::tflite::Tensor,
) -> Option<Vec<i32>> {
    if t.dtype != DType::Int32 {
        return None;
    }
    let range = model.buffers.get(t.buffer.get())?.data.clone()?;
    let data = bytes.get(range)?;
    if data.len() % 4 != 0 {
        return None;
    }
    Some(
        data.chunks_exact(4)
            .filter_map(|c| <[u8; 4]>::try_from(c).ok())
            .map(i32::from_le_bytes)
            .collect(),
    )
}

/// PAD's parameters as its lowering computes them (the shapes right-aligned into five
/// dimensions, the padding before each) and its element size, for a PAD or PADV2 the runtime's
/// `kernels::pad` runs (float32, int8, int16, int32) with constant int32 paddings: `None` for
/// any other op, or paddings the shapes do not match.
#[must_use]
pub(crate) fn pad_of(
    model: &Model,
    bytes: &[u8],
    tensors: &[TensorInfo],
    op: &Op,
) -> Option<(crate::kernels::Pad, u64)> {
    if !matches!(
        op.opcode,
        Opcode::Builtin(BuiltinOp::PAD | BuiltinOp::PADV2)
    ) || !matches!(op.inputs.len(), 2 | 3)
    {
        return None;
    }
    let tensor =
        |t: Option<crate::tflite::TensorIndex>| t.and_then(|t| model.tensor(op.subgraph, t));
    let input = tensor(op.inputs.first().copied().flatten())?;
    let paddings = tensor(op.inputs.get(1).copied().flatten())?;
    let output = tensor(op.outputs.first().copied())?;
    if input.dtype != output.dtype
        || !matches!(
            input.dtype,
            DType::Float32 | DType::Int8 | DType::Int16 | DType::Int32
        )
    {
        return None;
    }
    let pads = constant_i32s(model, bytes, paddings)?;
    let shape = |t: &crate::tflite::Tensor| -> Option<Vec<usize>> {
        tensors
            .get(t.id.get())?
            .shape
            .iter()
            .map(|&d| usize::try_from(d).ok())
            .collect()
    };
    let (i, o) = (shape(input)?, shape(output)?);
    let r = i.len();
    if r > 5 || o.len() != r || pads.len() != 2 * r {
        return None;
    }
    let mut p = crate::kernels::Pad {
        input: [1; 5],
        output: [1; 5],
        before: [0; 5],
    };
    for d in 0..r {
        let (b, a) = (
            usize::try_from(*pads.get(2 * d)?).ok()?,
            usize::try_from(*pads.get(2 * d + 1)?).ok()?,
        );
        let (in_d, out_d) = (*i.get(d)?, *o.get(d)?);
        if in_d.checked_add(b)?.checked_add(a)? != out_d {
            return None;
        }
        let at = 5 - r + d;
        *p.input.get_mut(at)? = in_d;
        *p.output.get_mut(at)? = out_d;
        *p.before.get_mut(at)? = b;
    }
    Some((p, input.dtype.element_bytes()?))
}

/// Whether `op` is an elementwise op the runtime runs on one buffer (`kernels::overlap`'s
/// `requantize_s8`, `requantize_s16`, `requantize_s16_s8`, `logistic_s8`, `tanh_s8`, `relu_s8`,
/// `relu6_s8`): QUANTIZE from int8 to int8, int16 to int16 or int16 to int8 and the int8
/// LOGISTIC, TANH, RELU and RELU6, as many output elements as
/// input ones (each output element written after its input element is read, never wider: the
/// output may start anywhere at or below the input's start).
#[must_use]
pub(crate) fn elementwise(model: &Model, tensors: &[TensorInfo], op: &Op) -> bool {
    let tensor =
        |t: Option<crate::tflite::TensorIndex>| t.and_then(|t| model.tensor(op.subgraph, t));
    let (Some(input), Some(output)) = (
        tensor(op.inputs.first().copied().flatten()),
        tensor(op.outputs.first().copied()),
    ) else {
        return false;
    };
    let kernel = matches!(
        (&op.opcode, input.dtype, output.dtype),
        (
            Opcode::Builtin(BuiltinOp::QUANTIZE),
            DType::Int8,
            DType::Int8
        ) | (
            Opcode::Builtin(BuiltinOp::QUANTIZE),
            DType::Int16,
            DType::Int16 | DType::Int8
        ) | (
            Opcode::Builtin(
                BuiltinOp::LOGISTIC
                    | BuiltinOp::TANH
                    | BuiltinOp::RELU
                    | BuiltinOp::RELU6
                    | BuiltinOp::LEAKY_RELU
            ),
            DType::Int8,
            DType::Int8
        ) | (
            Opcode::Builtin(
                BuiltinOp::LOGISTIC
                    | BuiltinOp::TANH
                    | BuiltinOp::RELU
                    | BuiltinOp::RELU6
                    | BuiltinOp::LEAKY_RELU
            ),
            DType::Int16,
            DType::Int16
        ) | (
            Opcode::Builtin(
                BuiltinOp::LOGISTIC
                    | BuiltinOp::TANH
                    | BuiltinOp::RELU
                    | BuiltinOp::RELU6
                    | BuiltinOp::LEAKY_RELU
                    | BuiltinOp::HARD_SWISH
                    | BuiltinOp::ELU
            ),
            DType::Float32,
            DType::Float32
        ) | (
            Opcode::Builtin(BuiltinOp::HARD_SWISH | BuiltinOp::ELU),
            DType::Int8,
            DType::Int8
        )
    );
    let elements = |t: &crate::tflite::Tensor| {
        tensors.get(t.id.get()).and_then(|info| {
            info.shape
                .iter()
                .try_fold(1_u64, |n, &d| n.checked_mul(u64::try_from(d).ok()?))
        })
    };
    kernel
        && op.inputs.len() == 1
        && elements(input).is_some()
        && elements(input) == elements(output)
}

/// The element count of a tensor's planned shape, `None` on overflow or a negative dimension.
fn elements(tensors: &[TensorInfo], t: &crate::tflite::Tensor) -> Option<u64> {
    tensors.get(t.id.get()).and_then(|info| {
        info.shape
            .iter()
            .try_fold(1_u64, |n, &d| n.checked_mul(u64::try_from(d).ok()?))
    })
}

/// Input `i` and output 0 of `op`, if both exist.
fn operands<'m>(
    model: &'m Model,
    op: &Op,
    i: usize,
) -> Option<(&'m crate::tflite::Tensor, &'m crate::tflite::Tensor)> {
    let tensor =
        |t: Option<crate::tflite::TensorIndex>| t.and_then(|t| model.tensor(op.subgraph, t));
    Some((
        tensor(op.inputs.get(i).copied().flatten())?,
        tensor(op.outputs.first().copied())?,
    ))
}

/// ADD and MUL of int8, int16, int32 or float32 whose first input is not broadcast (as many
/// elements as the output): `stowplan::kernels::overlap::add_s8` and the others walk the output
/// in memory order, each element after the first input's element is read (`D = 0`), the second
/// input in a view of its own.
#[must_use]
pub(crate) fn binary(model: &Model, tensors: &[TensorInfo], op: &Op) -> bool {
    let (Some((a, out)), Some((b, _))) = (operands(model, op, 0), operands(model, op, 1)) else {
        return false;
    };
    matches!(op.opcode, Opcode::Builtin(BuiltinOp::ADD | BuiltinOp::MUL))
        && op.inputs.len() == 2
        && matches!(
            out.dtype,
            DType::Int8 | DType::Int16 | DType::Int32 | DType::Float32
        )
        && a.dtype == out.dtype
        && b.dtype == out.dtype
        && a.id != b.id
        && elements(tensors, a).is_some()
        && elements(tensors, a) == elements(tensors, out)
}

/// DEQUANTIZE from int8, uint8 or int16 to float32: `stowplan::kernels::overlap::dequantize_s8_f32`
/// and the others write each output element, wider than its input element, after that is
/// read; the least displacement in bytes (`overlap::widening_min_displacement` in the input's
/// elements), `None` for other ops.
#[must_use]
pub(crate) fn widening(model: &Model, tensors: &[TensorInfo], op: &Op) -> Option<i64> {
    let (input, out) = operands(model, op, 0)?;
    let in_bytes: u64 = match (&op.opcode, input.dtype, out.dtype) {
        (Opcode::Builtin(BuiltinOp::DEQUANTIZE), DType::Int8 | DType::Uint8, DType::Float32) => 1,
        (Opcode::Builtin(BuiltinOp::DEQUANTIZE), DType::Int16, DType::Float32) => 2,
        _ => return None,
    };
    let n = elements(tensors, input)?;
    if op.inputs.len() != 1 || elements(tensors, out) != Some(n) {
        return None;
    }
    let d = crate::kernels::overlap::widening_min_displacement(
        usize::try_from(n).ok()?,
        usize::try_from(4 / in_bytes).ok()?,
    )?;
    i64::try_from(u64::try_from(d).ok()?.checked_mul(in_bytes)?).ok()
}

/// FULLY_CONNECTED of several batch rows (int8 with int8 or int4 weights, int16 with int8,
/// float32 with float32; not shuffled): `stowplan::kernels::overlap::fully_connected_s8` and
/// the others run the kernel on chunks of rows, each row's output below its own input row;
/// the least displacement in bytes (`overlap::fully_connected_min_displacement`), `None` for
/// other ops and for one row (whose output cannot share a byte with its input).
#[must_use]
pub(crate) fn fully_connected(model: &Model, tensors: &[TensorInfo], op: &Op) -> Option<i64> {
    let (input, out) = operands(model, op, 0)?;
    let (filter, _) = operands(model, op, 1)?;
    let plain = match op.options {
        OpOptions::FullyConnected {
            shuffled_weights, ..
        } => !shuffled_weights,
        OpOptions::None => true,
        _ => false,
    };
    let kernel = matches!(
        (input.dtype, filter.dtype, out.dtype),
        (DType::Int8, DType::Int8 | DType::Int4, DType::Int8)
            | (DType::Int16, DType::Int8, DType::Int16)
            | (DType::Float32, DType::Float32, DType::Float32)
    );
    if op.opcode != Opcode::Builtin(BuiltinOp::FULLY_CONNECTED) || !plain || !kernel {
        return None;
    }
    let units = u64::try_from(*tensors.get(out.id.get())?.shape.last()?).ok()?;
    let depth = u64::try_from(*tensors.get(filter.id.get())?.shape.last()?).ok()?;
    let (i, o) = (elements(tensors, input)?, elements(tensors, out)?);
    let batches = o.checked_div(units)?;
    if batches < 2 || batches.checked_mul(units) != Some(o) || batches.checked_mul(depth) != Some(i)
    {
        return None;
    }
    let size = |v: u64| usize::try_from(v).ok();
    let d = crate::kernels::overlap::fully_connected_min_displacement(
        size(batches)?,
        size(depth)?,
        size(units)?,
    )?;
    let bytes = input.dtype.element_bytes()?;
    i64::try_from(u64::try_from(d).ok()?.checked_mul(bytes)?).ok()
}

/// CONCATENATION (of int8, int16, int32, int64, float32 or bool, no fused activation) with its
/// first input over the output: `stowplan::kernels::overlap::concatenation` moves that input's
/// chunks into their slots in the kernel's order, the other inputs from views of their own; the
/// least displacement in bytes (`overlap::concatenation_min_displacement`), `None` for other
/// ops and shapes that do not concatenate.
#[must_use]
pub(crate) fn concatenation(model: &Model, tensors: &[TensorInfo], op: &Op) -> Option<i64> {
    let (_, out) = operands(model, op, 0)?;
    let axis = match op.options {
        OpOptions::Concatenation {
            axis,
            activation: crate::tflite::Activation::None,
        } => axis,
        OpOptions::None => 0,
        _ => return None,
    };
    let kinds = [
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::Float32,
        DType::Bool,
    ];
    if op.opcode != Opcode::Builtin(BuiltinOp::CONCATENATION) || !kinds.contains(&out.dtype) {
        return None;
    }
    let oshape = &tensors.get(out.id.get())?.shape;
    let rank = i64::try_from(oshape.len()).ok()?;
    let axis = i64::from(axis);
    let ax = usize::try_from(if axis < 0 { axis + rank } else { axis }).ok()?;
    if ax >= oshape.len() {
        return None;
    }
    let product = |dims: &[i32]| {
        dims.iter()
            .try_fold(1_usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))
    };
    let outer = product(oshape.get(..ax)?)?;
    let mut inners = Vec::with_capacity(op.inputs.len());
    let mut along = 0_usize;
    for i in 0..op.inputs.len() {
        let (t, _) = operands(model, op, i)?;
        let shape = &tensors.get(t.id.get())?.shape;
        let same_elsewhere = t.dtype == out.dtype
            && shape.len() == oshape.len()
            && shape
                .iter()
                .zip(oshape)
                .enumerate()
                .all(|(d, (a, b))| d == ax || a == b);
        if !same_elsewhere {
            return None;
        }
        along = along.checked_add(usize::try_from(*shape.get(ax)?).ok()?)?;
        inners.push(product(shape.get(ax..)?)?);
    }
    if inners.is_empty() || usize::try_from(*oshape.get(ax)?).ok()? != along {
        return None;
    }
    let d = crate::kernels::overlap::concatenation_min_displacement(outer, &inners)?;
    let bytes = out.dtype.element_bytes()?;
    i64::try_from(u64::try_from(d).ok()?.checked_mul(bytes)?).ok()
}

/// The least displacement in bytes of an op the runtime runs in output order without a window
/// (no preferred displacement): an [`elementwise`] or [`binary`] op (0), a [`widening`], a
/// [`fully_connected`] or a [`concatenation`] one; `None` for other ops.
fn streamed(model: &Model, tensors: &[TensorInfo], op: &Op) -> Option<i64> {
    if elementwise(model, tensors, op) || binary(model, tensors, op) {
        return Some(0);
    }
    widening(model, tensors, op)
        .or_else(|| fully_connected(model, tensors, op))
        .or_else(|| concatenation(model, tensors, op))
}

/// `D` in bytes for an op of geometry `g` and `element` bytes per element: the runtime driver's
/// least displacement ([module docs](self)); `None` where the driver has no walk (a zero
/// dimension, sizes that overflow, a window of padding only).
#[must_use]
pub fn min_displacement(g: &ConvGeometry, element: u64) -> Option<i64> {
    let d = crate::kernels::overlap::min_displacement(g)?;
    i64::try_from(u64::try_from(d).ok()?.checked_mul(element)?).ok()
}

/// The least displacement in bytes from which the runtime's driver runs an op of geometry `g`
/// and `element` bytes per element in chunks of whole output rows (a pointwise op: one chunk,
/// the input above the output's end); `None` as [`min_displacement`].
#[must_use]
pub fn row_displacement(g: &ConvGeometry, element: u64) -> Option<i64> {
    let d = crate::kernels::overlap::row_displacement(g)?;
    i64::try_from(u64::try_from(d).ok()?.checked_mul(element)?).ok()
}

/// The pairs `plan` was made with: each output that may cover an input it consumes, from its
/// least displacement ([`min_displacement`] and the module docs); empty without
/// [`crate::Options::overlaps`].
#[must_use]
pub fn model_overlaps(plan: &crate::ModelPlan) -> Vec<Overlap> {
    plan.problem.overlaps().to_vec()
}

/// The pairs of `problem`'s buffers whose output may cover the input it consumes: each op the
/// runtime runs on one buffer (a window op of [`geometry_of`], an [`elementwise`] op, a PAD of
/// [`pad_of`]) whose first input dies at the op (not a subgraph output, not read again by the
/// op) and is written by it into one output, both planned online on buffers of their own, at
/// the op's least displacement. Each time has at most one pair (one op runs at a time), so the
/// pairs form a valid [`Problem::with_overlaps`] with the buffers. With each pair its preferred
/// displacement in bytes: for a window op the least from which the driver's chunks are whole
/// output rows ([`row_displacement`]), where the planner moves the pair when the arena has room
/// (module `spread`); 0 for the others.
#[must_use]
pub(crate) fn pairs(
    model: &Model,
    bytes: &[u8],
    tensors: &[TensorInfo],
    lifetimes: &Lifetimes,
    problem: &Problem,
    tensor_buffers: &[Option<u32>],
) -> Vec<(Overlap, i64)> {
    let buffers = problem.buffers();
    let mut pairs = Vec::new();
    for (position, op) in model.ops.iter().enumerate() {
        // One run of the op (not in a subgraph called from several places).
        let Some(&[scope]) = lifetimes.op_times.get(position).map(Vec::as_slice) else {
            continue;
        };
        // The problem's time of the op's scope (`TensorLifetime::to_problem`).
        let Some(time) = scope.checked_add(1) else {
            continue;
        };
        if op.outputs.len() != 1 {
            continue;
        }
        // An elementwise op runs from any displacement at or above 0 (preferring none), the
        // other streamed ones from theirs; a window op from its driver's.
        let pad = pad_of(model, bytes, tensors, op);
        let streamed = if pad.is_none() {
            streamed(model, tensors, op)
        } else {
            None
        };
        let window = if streamed.is_some() || pad.is_some() {
            None
        } else {
            let Some(window) = geometry_of(model, tensors, op) else {
                continue;
            };
            Some(window)
        };
        let tensor = |t| model.tensor(op.subgraph, t);
        let buffer = |id: crate::tflite::TensorId| {
            tensor_buffers
                .get(id.get())
                .copied()
                .flatten()
                .map(|b| b as usize)
        };
        let (Some(input), Some(output)) = (
            op.inputs.first().copied().flatten().and_then(tensor),
            op.outputs.first().and_then(|&t| tensor(t)),
        ) else {
            continue;
        };
        let (Some(bi), Some(bo)) = (buffer(input.id), buffer(output.id)) else {
            continue;
        };
        let (Some(ib), Some(ob)) = (buffers.get(bi), buffers.get(bo)) else {
            continue;
        };
        let read_again = op
            .inputs
            .iter()
            .skip(1)
            .flatten()
            .any(|&t| tensor(t).is_some_and(|t| buffer(t.id) == Some(bi)));
        if bi == bo
            || ib.lifetime.last != time
            || ob.lifetime.first != time
            || ib.fixed_offset.is_some()
            || ob.fixed_offset.is_some()
            || read_again
        {
            continue;
        }
        if let Some((p, element)) = pad {
            let d = crate::kernels::overlap::pad_min_displacement(&p)
                .and_then(|d| u64::try_from(d).ok()?.checked_mul(element))
                .and_then(|d| i64::try_from(d).ok());
            if let Some(d) = d {
                pairs.push((Overlap::new(bo, bi, d), 0));
            }
            continue;
        }
        if let Some(d) = streamed {
            pairs.push((Overlap::new(bo, bi, d), 0));
            continue;
        }
        let Some((g, element)) = window else {
            continue;
        };
        if let (Some(d), Some(rows)) =
            (min_displacement(&g, element), row_displacement(&g, element))
        {
            pairs.push((Overlap::new(bo, bi, d), rows));
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(
        input: [usize; 4],
        filter: [usize; 4],
        output: [usize; 4],
        stride: usize,
        pad: usize,
    ) -> ConvGeometry {
        ConvGeometry {
            input,
            filter,
            output,
            stride_h: stride,
            stride_w: stride,
            dilation_h: 1,
            dilation_w: 1,
            pad_h: pad,
            pad_w: pad,
            depth_multiplier: output[3] / input[3],
        }
    }

    /// person_detect's first three ops (the figures), in bytes.
    #[test]
    fn person_detect_head() {
        // DEPTHWISE 3x3 stride 2, 96² × 1 → 48² × 8: output pixel (y, x) (8 bytes) reads from
        // input pixel (2y, 2x) (one byte): the most at the last pixel, 2304 · 8 − (94 · 96 + 94)
        // (the 9,312 lets a pixel's outputs cover its own window's corner); in whole
        // rows (384 bytes, reading from input row 2y of 96 bytes), 48 · 384 − 94 · 96.
        let op0 = window([1, 96, 96, 1], [1, 3, 3, 8], [1, 48, 48, 8], 2, 0);
        assert_eq!(min_displacement(&op0, 1), Some(2304 * 8 - (94 * 96 + 94)));
        assert_eq!(row_displacement(&op0, 1), Some(48 * 384 - 94 * 96));
        // DEPTHWISE 3x3 stride 1 SAME, 48² × 8: one row and two pixels (pixel x of a row ends
        // that far past its window's corner, pixel x − 1 of the row above); in whole rows, two.
        let op1 = window([1, 48, 48, 8], [1, 3, 3, 8], [1, 48, 48, 8], 1, 1);
        assert_eq!(min_displacement(&op1, 1), Some(48 * 8 + 2 * 8));
        assert_eq!(row_displacement(&op1, 1), Some(2 * 48 * 8));
        // CONV 1x1, 8 → 16 channels on 48², pixel by pixel: the last pixel's outputs end 8
        // bytes past its input's start, 18,432 + 8 above the output's start.
        let op2 = window([1, 48, 48, 8], [16, 1, 1, 8], [1, 48, 48, 16], 1, 0);
        assert_eq!(min_displacement(&op2, 1), Some(2304 * 16 - 2303 * 8));
        // Its chunks are whole rows only with the input above the output's end.
        assert_eq!(row_displacement(&op2, 1), Some(2304 * 16));
        // int16 and float32: the same walk in wider elements.
        assert_eq!(min_displacement(&op2, 4), Some(4 * (2304 * 16 - 2303 * 8)));
    }

    #[test]
    fn malformed_geometries_have_no_displacement() {
        let zero = window([1, 0, 4, 3], [3, 1, 1, 3], [1, 0, 4, 3], 1, 0);
        assert_eq!(min_displacement(&zero, 1), None);
        let huge = window(
            [1, usize::MAX / 2, 4, 3],
            [3, 1, 1, 3],
            [1, usize::MAX / 2, 4, 3],
            1,
            0,
        );
        assert_eq!(min_displacement(&huge, 1), None);
        let ok = window([1, 4, 4, 3], [3, 1, 1, 3], [1, 4, 4, 3], 1, 0);
        assert_eq!(min_displacement(&ok, u64::MAX), None, "bytes overflow");
    }
}
