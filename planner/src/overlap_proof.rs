//! The plan's check of every output placed over an input it consumes, independent of the
//! planner's [`crate::kernel_order`]: from the op's shapes and options alone, with code of its
//! own, it derives the least displacement the runtime's kernels run on one buffer and refuses
//! any plan in which two tensors share a byte otherwise.
//!
//! [`crate::verify`] has already proven that buffers live together share no byte except the
//! pairs the problem declares, each at least its declared displacement apart. This check does
//! not trust those declarations: for each declared pair that does share bytes in the plan it
//! finds the op writing the output, requires its kind to declare kernels on one buffer
//! ([`crate::ops::Overwrite`], read from the op's module) that overwrite the input, read once,
//! as the operand the declaration names, into the op's one output, and the declaration's
//! preconditions to hold for this op; then it derives `D` in bytes again for the declared
//! [`WriteOrder`] with arithmetic of its own, and refuses a plan closer than that, and a
//! declaration whose least displacement is below it (a wrong entry of the registry cannot
//! fool the planner and this check both). Per write order:
//!
//! * elementwise: output element `k`, no wider than input element `k` (as many of each), is
//!   written after that is read, below input element `k + 1` whenever the input starts at or
//!   above the output: `D = 0`;
//! * widening: output element `k` of `o` bytes after input element `k` of `b < o` bytes, `n`
//!   of each: `D = (o − b)(n − 1)`;
//! * rows: `B` rows of `K` inputs and `U` outputs (from the two shapes): `D = max((r + 1)·U −
//!   r·K)` elements over the rows `r`;
//! * concatenation over the first input: `D = (outer − 1)·(R − L)` elements (`R` an output
//!   row along the axis, `L` the first input's);
//! * pad: `pad_needed`, from the constant paddings;
//! * window (a convolution's window from its filter's shape, a pool's from its options):
//!   - pointwise (1 x 1 filter, stride 1, no padding, output rows and columns those of the
//!     input): pixel `p` writes `[p·O, (p+1)·O)` and reads from `p·C`, so
//!     `D = max(O, P·O − (P−1)·C)` elements over the `P` pixels of all batches;
//!   - otherwise pixel `(b, y, x)` writes up to `((b·OH + y)·OW + x + 1)·O`, and neither it
//!     nor a later pixel reads below its window's corner, `(b·H + t)·W·C + l·C` with `t` and `l`
//!     its first row and column clamped into the input (below the start of row `t` only, when
//!     the next output row's windows start at row `t` too); that difference, in 128-bit
//!     integers, is linear in `b` and piecewise linear in `y` and `x`, so `D` is its greatest
//!     value at the ends of the pieces.

use crate::graph::TensorInfo;
use crate::kernel_order::Registry;
use crate::ops::WriteOrder;
use crate::plan::{Plan, Problem};
use crate::tflite::{Model, Op, OpOptions, TensorId};

/// What the check needs of a plan.
pub(crate) struct Planned<'a> {
    pub model: &'a Model,
    /// The model file (for a PAD's constant paddings).
    pub bytes: &'a [u8],
    pub tensors: &'a [TensorInfo],
    pub problem: &'a Problem,
    pub plan: &'a Plan,
    /// The tensor of each of the problem's first buffers.
    pub buffer_tensors: &'a [TensorId],
}

/// What the derivation of one op's least displacement reads: the model, its file (for a PAD's
/// constant paddings) and the planned shapes.
#[derive(Clone, Copy)]
struct Shapes<'a> {
    model: &'a Model,
    bytes: &'a [u8],
    tensors: &'a [TensorInfo],
}

impl Planned<'_> {
    const fn shapes(&self) -> Shapes<'_> {
        Shapes {
            model: self.model,
            bytes: self.bytes,
            tensors: self.tensors,
        }
    }
}

/// Checks every declared pair that shares bytes in the plan (see the [module docs](self)),
/// against the op modules' declarations.
///
/// # Errors
/// A message naming the op and both tensors, with the displacement planned and the one the
/// op's kernels need.
pub(crate) fn check(p: &Planned<'_>) -> Result<(), String> {
    check_with(p, &crate::ops::overwrite_of, false)
}

/// [`check`] with the declarations of `registry`; with `every_pair`, each pair of the problem
/// is checked as if the plan put it at its declared displacement, whether or not its tensors
/// share bytes in the plan (a pairing this check would refuse must never be proposed).
///
/// # Errors
/// As [`check`].
pub(crate) fn check_with(
    p: &Planned<'_>,
    registry: Registry<'_>,
    every_pair: bool,
) -> Result<(), String> {
    let offsets = p.plan.offsets();
    let buffers = p.problem.buffers();
    let align = p.problem.alignment();
    for pair in p.problem.overlaps() {
        let (Some(&oo), Some(&io), Some(ob), Some(ib)) = (
            offsets.get(pair.output),
            offsets.get(pair.input),
            buffers.get(pair.output),
            buffers.get(pair.input),
        ) else {
            return Err(format!(
                "a pair names buffers {} and {} the plan does not have",
                pair.output, pair.input
            ));
        };
        let (oe, ie) = (
            oo.saturating_add(p.problem.aligned_size(ob.size)),
            io.saturating_add(p.problem.aligned_size(ib.size)),
        );
        let shared = ob.size > 0 && ib.size > 0 && oe > io && ie > oo;
        if !shared && !every_pair {
            // No byte shared: nothing to prove.
            continue;
        }
        let (Some(&out_t), Some(&in_t)) = (
            p.buffer_tensors.get(pair.output),
            p.buffer_tensors.get(pair.input),
        ) else {
            return Err("a pair names a buffer that holds no tensor (kernel scratch)".to_owned());
        };
        // The displacement the planner may use is the kernels' rounded up to the alignment;
        // the kernels need the check's figure only.
        let planned = if shared {
            i128::from(io) - i128::from(oo)
        } else {
            i128::from(pair.min_displacement)
        };
        check_pair(&p.shapes(), registry, (in_t, out_t), planned, Some(align))?;
    }
    Ok(())
}

/// [`check_with`]'s proof of one pair: the op writing `out_t` over `in_t` with `in_t` starting
/// `planned` bytes above it (the plan's alignment, if any, named in a refusal).
fn check_pair(
    s: &Shapes<'_>,
    registry: Registry<'_>,
    (in_t, out_t): (TensorId, TensorId),
    planned: i128,
    align: Option<u64>,
) -> Result<(), String> {
    let name = |t: TensorId| {
        s.model
            .tensors
            .get(t.get())
            .map_or("?", |t| t.name.as_str())
    };
    let need = needed(s, registry, in_t, out_t).map_err(|why| {
        format!(
            "`{}` shares bytes with `{}`: {why}",
            name(out_t),
            name(in_t)
        )
    })?;
    if planned < need {
        let align = align
            .map(|a| format!(" (alignment {a})"))
            .unwrap_or_default();
        return Err(format!(
            "`{}` starts {planned} bytes above `{}`, which its op writes over it, but the op's kernels need at least {need}{align}",
            name(in_t),
            name(out_t)
        ));
    }
    Ok(())
}

/// The plan's check of one output sharing bytes with an input its op consumes, as
/// [`plan_model`](crate::plan_model) runs it on every such pair of a plan: `input` starting
/// `displacement` bytes above `output` (`offset(input) − offset(output)`, either sign), for the
/// op of `model` writing `output`, with `tensors` the planned shapes
/// ([`graph::tensor_infos`](crate::graph::tensor_infos)) and `bytes` the model file. Its figure
/// is derived independently of the op module's declaration ([`crate::ops::Overwrite`]), which it
/// also refuses when the declaration is below it.
///
/// # Errors
///
/// Why the op's kernels cannot write `output` over `input` at that displacement (or at all).
pub fn check_overlap(
    model: &Model,
    bytes: &[u8],
    tensors: &[TensorInfo],
    input: TensorId,
    output: TensorId,
    displacement: i64,
) -> Result<(), String> {
    let s = Shapes {
        model,
        bytes,
        tensors,
    };
    check_pair(
        &s,
        &crate::ops::overwrite_of,
        (input, output),
        i128::from(displacement),
        None,
    )
}

/// A refusal of the pair, saying why.
fn refuse(why: &str) -> Result<i128, String> {
    Err(why.to_owned())
}

/// The least displacement in bytes at which the op writing `out_t` may write it over `in_t`,
/// derived here for the write order its kind declares; an error saying why the pair cannot
/// share bytes at all, or why the declaration is wrong.
fn needed(
    p: &Shapes<'_>,
    registry: Registry<'_>,
    in_t: TensorId,
    out_t: TensorId,
) -> Result<i128, String> {
    let model = p.model;
    let Some(op) = model.ops.iter().find(|op| {
        op.outputs
            .first()
            .and_then(|&t| model.tensor(op.subgraph, t))
            .is_some_and(|t| t.id == out_t)
    }) else {
        return refuse("no op writes the output first");
    };
    let Some(declared) = registry(&op.opcode) else {
        return refuse(&format!("{} has no kernel on one buffer", op.opcode));
    };
    let operand = |i: usize| {
        op.inputs
            .get(i)
            .copied()
            .flatten()
            .and_then(|t| model.tensor(op.subgraph, t))
    };
    let (Some(input), Some(output)) = (operand(declared.input), model.tensors.get(out_t.get()))
    else {
        return refuse("the op has no such input");
    };
    if input.id != in_t || op.outputs.len() != 1 {
        return refuse(&if declared.input == 0 {
            "the op does not read the input as its first operand into its one output".to_owned()
        } else {
            format!(
                "the op does not read the input as its operand {} into its one output",
                declared.input
            )
        });
    }
    if (0..op.inputs.len())
        .filter(|&i| i != declared.input)
        .any(|i| operand(i).is_some_and(|t| t.id == in_t))
    {
        return refuse("it reads the input twice");
    }
    let Some(pairing) = (declared.pairing)(model, p.bytes, p.tensors, op) else {
        return refuse(&format!(
            "its kernels do not run this {} on one buffer (its types, options or shapes)",
            op.opcode
        ));
    };
    let (Some(ib), Some(ob)) = (input.dtype.element_bytes(), output.dtype.element_bytes()) else {
        return refuse("its element type has no size");
    };
    let (ib, ob) = (i128::from(ib), i128::from(ob));
    let count = |t: TensorId| -> Option<i128> {
        p.tensors
            .get(t.get())?
            .shape
            .iter()
            .try_fold(1_i128, |n, &d| {
                (d >= 0).then_some(())?;
                n.checked_mul(i128::from(d))
            })
    };
    let need = match declared.order {
        // Output element `k`, no wider than input element `k`, after reading it, in order:
        // below input element `k + 1` whenever the input starts at or above the output.
        WriteOrder::Elementwise => {
            if count(in_t).is_none() || count(in_t) != count(out_t) {
                return refuse("its input and output differ in element count (a broadcast input)");
            }
            if ob > ib {
                return refuse("its output elements are wider than its input's");
            }
            0
        }
        // Output element `k` (`ob` bytes) after reading input element `k` (`ib` bytes): it
        // must end at or below input element `k + 1`, `ob(k + 1) ≤ D + ib(k + 1)` for every
        // `k` up to `n − 2`.
        WriteOrder::Widening => {
            let Some(n) = count(in_t).filter(|&n| n > 0 && count(out_t) == Some(n)) else {
                return refuse("its input and output differ in element count");
            };
            if ob <= ib {
                return refuse("its output elements are not wider than its input's");
            }
            (ob - ib) * (n - 1)
        }
        // Row `r` writes its `U` outputs while reading its `K` inputs: its output must end at
        // or below the row's input, `(r + 1)·U ≤ D + r·K`, the most at the first or the last
        // row (the difference is linear in `r`).
        WriteOrder::Rows => {
            let units = p
                .tensors
                .get(out_t.get())
                .and_then(|t| t.shape.last())
                .map(|&d| i128::from(d));
            let (Some(units), Some(i), Some(o)) = (units, count(in_t), count(out_t)) else {
                return refuse("a shape is missing");
            };
            if units <= 0 || o % units != 0 || ib != ob {
                return refuse("its output is not rows of its last dimension");
            }
            let rows = o / units;
            if rows <= 0 || i % rows != 0 {
                return refuse("its input does not hold its rows");
            }
            let depth = i / rows;
            let need = |r: i128| (r + 1) * units - r * depth;
            need(0).max(need(rows - 1)).saturating_mul(ib)
        }
        WriteOrder::Concatenation => concatenation_needed(p, op, in_t, out_t)?,
        WriteOrder::Pad => pad_needed(p, op, in_t, out_t)?,
        WriteOrder::Window => window_needed(p, op, in_t, out_t)?,
    };
    if i128::from(pairing.least) < need {
        return refuse(&format!(
            "its kernels declare they run it from {} bytes on, but its {} write order needs {need}",
            pairing.least,
            declared.order.name()
        ));
    }
    Ok(need)
}

/// CONCATENATION moves its first input's chunk `k` (of `L` elements, from `d + k·L`) after
/// writing every earlier chunk of the output (rows of `R`, up to `k·R`): `k·R ≤ d + k·L` for
/// every outer position `k`, the most at the last.
fn concatenation_needed(
    p: &Shapes<'_>,
    op: &Op,
    in_t: TensorId,
    out_t: TensorId,
) -> Result<i128, String> {
    let (Some(input), Some(output)) = (
        p.model.tensors.get(in_t.get()),
        p.model.tensors.get(out_t.get()),
    ) else {
        return refuse("a tensor is missing");
    };
    let axis = match op.options {
        OpOptions::Concatenation {
            axis,
            activation: crate::tflite::Activation::None,
        } => axis,
        OpOptions::None => 0,
        _ => return refuse("a CONCATENATION with a fused activation"),
    };
    let shape = |t: TensorId| p.tensors.get(t.get()).map(|i| i.shape.clone());
    let Some(oshape) = shape(out_t) else {
        return refuse("a shape is missing");
    };
    let rank = i128::try_from(oshape.len()).unwrap_or(0);
    let ax = i128::from(axis) + if axis < 0 { rank } else { 0 };
    let Some(ax) = usize::try_from(ax).ok().filter(|&a| a < oshape.len()) else {
        return refuse("its axis is outside the output's rank");
    };
    // The product of some dimensions, -1 where they are missing or it overflows.
    let size = |dims: Option<&[i32]>| {
        dims.and_then(|dims| {
            dims.iter()
                .try_fold(1_i128, |n, &d| n.checked_mul(i128::from(d)))
        })
        .unwrap_or(-1)
    };
    let (outer, row) = (size(oshape.get(..ax)), size(oshape.get(ax..)));
    let Some(ishape) = shape(in_t) else {
        return refuse("a shape is missing");
    };
    if ishape.len() != oshape.len()
        || ishape
            .iter()
            .zip(&oshape)
            .enumerate()
            .any(|(d, (a, b))| d != ax && a != b)
        || input.dtype != output.dtype
    {
        return refuse("its first input does not concatenate into its output");
    }
    let first = size(ishape.get(ax..));
    let Some(bytes) = output.dtype.element_bytes() else {
        return refuse("its element type has no size");
    };
    let need = (outer - 1)
        .checked_mul(row - first)
        .and_then(|d| d.checked_mul(i128::from(bytes)));
    match need {
        Some(need) if outer > 0 && row >= 0 && first >= 0 => Ok(need),
        _ => refuse("its output is empty, or its size overflows"),
    }
}

/// A window op's least displacement in bytes (the [module docs](self)): its window from its
/// filter's shape (a convolution) or its options (a pool).
fn window_needed(p: &Shapes<'_>, op: &Op, in_t: TensorId, out_t: TensorId) -> Result<i128, String> {
    let model = p.model;
    let (Some(input), Some(output)) = (
        model.tensors.get(in_t.get()),
        model.tensors.get(out_t.get()),
    ) else {
        return refuse("a tensor is missing");
    };
    if input.dtype != output.dtype {
        return refuse("the two are of different element types");
    }
    let (padding, stride, dilation) = match op.options {
        OpOptions::Conv2D {
            padding,
            stride_h,
            stride_w,
            dilation_h,
            dilation_w,
            ..
        }
        | OpOptions::DepthwiseConv2D {
            padding,
            stride_h,
            stride_w,
            dilation_h,
            dilation_w,
            ..
        } => (padding, (stride_h, stride_w), (dilation_h, dilation_w)),
        OpOptions::Pool2D {
            padding,
            stride_h,
            stride_w,
            ..
        } => (padding, (stride_h, stride_w), (1, 1)),
        _ => {
            return refuse(&format!(
                "{} has no window (no convolution or pool options)",
                op.opcode
            ));
        }
    };
    let dims = |t: TensorId| -> Option<[i128; 4]> {
        let s = &p.tensors.get(t.get())?.shape;
        match s.as_slice() {
            &[a, b, c, d] if a > 0 && b > 0 && c > 0 && d > 0 => {
                Some([a.into(), b.into(), c.into(), d.into()])
            }
            _ => None,
        }
    };
    let filter = op
        .inputs
        .get(1)
        .copied()
        .flatten()
        .and_then(|t| model.tensor(op.subgraph, t))
        .map(|t| t.id);
    // A pool's window is in its options; a convolution's in its filter's shape.
    let window = match op.options {
        OpOptions::Pool2D {
            filter_h, filter_w, ..
        } if filter_h > 0 && filter_w > 0 => Some([1, filter_h.into(), filter_w.into(), 1]),
        OpOptions::Pool2D { .. } => None,
        _ => filter.and_then(dims),
    };
    let (Some([n, h, w, c]), Some([_, oh, ow, oc]), Some([_, fh, fw, _])) =
        (dims(in_t), dims(out_t), window)
    else {
        return refuse("a shape is not four positive dimensions");
    };
    if matches!(op.options, OpOptions::Pool2D { .. }) && c != oc {
        return refuse("a pool's output has other channels than its input");
    }
    let Some(bytes) = input.dtype.element_bytes() else {
        return refuse("its element type has no size");
    };
    let i32_of = |v: i128| i32::try_from(v).ok();
    let (Some(ih), Some(iw), Some(kh), Some(kw)) = (i32_of(h), i32_of(w), i32_of(fh), i32_of(fw))
    else {
        return refuse("a dimension exceeds int32");
    };
    if stride.0 <= 0 || stride.1 <= 0 || dilation.0 <= 0 || dilation.1 <= 0 {
        return refuse("a stride or dilation below 1");
    }
    let kind = match padding {
        crate::tflite::Padding::Same => crate::quant::PaddingKind::Same,
        crate::tflite::Padding::Valid => crate::quant::PaddingKind::Valid,
        crate::tflite::Padding::Unknown(_) => {
            return refuse("its padding is neither SAME nor VALID");
        }
    };
    let pad = crate::quant::compute_padding_height_width(
        stride.0, stride.1, dilation.0, dilation.1, ih, iw, kh, kw, kind,
    );
    let (s, pad_h, pad_w) = (
        i128::from(stride.0),
        i128::from(pad.height),
        i128::from(pad.width),
    );
    let elements =
        if fh == 1 && fw == 1 && stride == (1, 1) && pad_h == 0 && pad_w == 0 && (oh, ow) == (h, w)
        {
            let pixels = n * h * w;
            oc.max(pixels * oc - (pixels - 1) * c)
        } else {
            let extent = (fh - 1) * i128::from(dilation.0) + 1;
            if extent <= pad_h || (oh - 1) * s - pad_h >= h {
                return refuse("an output row's window reaches only padding");
            }
            let sw = i128::from(stride.1);
            // Pixel (b, y, x) writes up to `end`; no pixel from it on reads below `read`: the
            // corner of its window (first row and column clamped into the input), or the
            // start of its first row when the next output row starts at that row too.
            let top = |y: i128| (y * s - pad_h).max(0);
            let left = |x: i128| (x * sw - pad_w).clamp(0, w);
            let value = |b: i128, y: i128, x: i128| {
                let end = ((b * oh + y) * ow + x + 1) * oc;
                let row = (b * h + top(y)) * w * c;
                let shared = y + 1 < oh && top(y + 1) == top(y);
                end - if shared { row } else { row + left(x) * c }
            };
            // Rows below `e` share their first row with the next (their value grows with `y`
            // and `x`: the last of them, at its last pixel); from `e` on the read start moves
            // with `y` (linearly after row `e`, the last whose window starts at row 0) and with
            // `x` (linearly between the columns where the window enters and leaves the input).
            let e = (pad_h / s).min(oh - 1);
            let xs = [
                0,
                pad_w / sw,
                pad_w / sw + 1,
                (w + pad_w) / sw,
                (w + pad_w) / sw + 1,
            ];
            let mut most = i128::MIN;
            for b in [0, n - 1] {
                if e > 0 {
                    most = most.max(value(b, e - 1, ow - 1));
                }
                for y in [e, e + 1, oh - 1] {
                    for x in xs.iter().chain(&[ow - 1]) {
                        most = most.max(value(b, y.min(oh - 1), (*x).min(ow - 1)));
                    }
                }
            }
            most.max(0)
        };
    Ok(elements * i128::from(bytes))
}

/// A PAD's least displacement in bytes: it writes its output in order, each element after the
/// input element it covers is read, so with the input `d` elements above the output the write
/// of output element `k` lands on input element `k − d`, which must already have been read:
/// `k − d < c(k)`, the count of input elements at output indices up to `k`. While an input
/// element is still unread, `k − c(k)` is largest just before the last one is read, at
/// `k = q(n − 1) − 1` (`q` its output index): `D = q(n − 1) − (n − 1)`, computed here from the
/// constant paddings in 128-bit integers.
fn pad_needed(
    p: &Shapes<'_>,
    op: &crate::tflite::Op,
    in_t: TensorId,
    out_t: TensorId,
) -> Result<i128, String> {
    let model = p.model;
    let paddings = op
        .inputs
        .get(1)
        .copied()
        .flatten()
        .and_then(|t| model.tensor(op.subgraph, t))
        .ok_or("its paddings are missing")?;
    let pads = crate::ops::constant_i32s(model, p.bytes, paddings)
        .ok_or("its paddings are not constant int32 values")?;
    let shape = |t: TensorId| -> Option<Vec<i128>> {
        Some(
            p.tensors
                .get(t.get())?
                .shape
                .iter()
                .map(|&d| i128::from(d))
                .collect(),
        )
    };
    let (Some(i), Some(o)) = (shape(in_t), shape(out_t)) else {
        return Err("a shape is missing".to_owned());
    };
    if i.len() != o.len() || pads.len() != 2 * i.len() || i.iter().any(|&d| d <= 0) {
        return Err("its paddings do not match its shapes".to_owned());
    }
    // From the last dimension up: the last input element's index in the input and in the
    // output, and each dimension's stride in both.
    let (mut q, mut last, mut so, mut si) = (0_i128, 0_i128, 1_i128, 1_i128);
    for (d, ((&n, &m), pair)) in i.iter().zip(&o).zip(pads.chunks_exact(2)).enumerate().rev() {
        let &[b, a] = pair else {
            return Err("its paddings do not match its shapes".to_owned());
        };
        let (b, a) = (i128::from(b), i128::from(a));
        if b < 0 || a < 0 || n + b + a != m {
            return Err(format!("its dimension {d} is not {n} + {b} + {a}"));
        }
        q += (b + n - 1) * so;
        last += (n - 1) * si;
        so *= m;
        si *= n;
    }
    let bytes = model
        .tensors
        .get(in_t.get())
        .and_then(|t| t.dtype.element_bytes())
        .ok_or("its element type has no size")?;
    Ok((q - last) * i128::from(bytes))
}

#[cfg(test)]
mod tests {
    use crate::ops::{Overwrite, Pairing};
    use crate::plan::{Overlap, Plan, Planner, Problem};
    use crate::tflite::builder::ModelBuilder;
    use crate::tflite::{Activation, BuiltinOp, DType, OpOptions, Opcode, Padding};
    use crate::{Options, plan_model};

    /// x (1×6×6×2) → DEPTHWISE 3×3 stride 1 SAME (multiplier 2) → y (1×6×6×4) → CONV 1×1 →
    /// z (1×6×6×8) → MAX_POOL 2×2 stride 2 → p (1×3×3×8), one byte of alignment so that
    /// displacements are exact.
    fn model() -> Vec<u8> {
        let mut b = ModelBuilder::new();
        let sg = b.subgraph("main");
        let x = b.tensor(sg, "x", DType::Int8, &[1, 6, 6, 2]);
        let d = b.constant(sg, "d", DType::Int8, &[1, 3, 3, 4], &[1; 36]);
        let y = b.tensor(sg, "y", DType::Int8, &[1, 6, 6, 4]);
        let same = |padding| OpOptions::DepthwiseConv2D {
            padding,
            stride_w: 1,
            stride_h: 1,
            depth_multiplier: 2,
            dilation_w: 1,
            dilation_h: 1,
            activation: Activation::None,
        };
        b.op_with_options(
            sg,
            BuiltinOp::DEPTHWISE_CONV_2D,
            &[x, d],
            &[y],
            same(Padding::Same),
        );
        let f = b.constant(sg, "f", DType::Int8, &[8, 1, 1, 4], &[1; 32]);
        let z = b.tensor(sg, "z", DType::Int8, &[1, 6, 6, 8]);
        let conv = OpOptions::Conv2D {
            padding: Padding::Valid,
            stride_w: 1,
            stride_h: 1,
            dilation_w: 1,
            dilation_h: 1,
            activation: Activation::None,
        };
        b.op_with_options(sg, BuiltinOp::CONV_2D, &[y, f], &[z], conv);
        let p = b.tensor(sg, "p", DType::Int8, &[1, 3, 3, 8]);
        let pool = OpOptions::Pool2D {
            padding: Padding::Valid,
            stride_w: 2,
            stride_h: 2,
            filter_w: 2,
            filter_h: 2,
            activation: Activation::None,
        };
        b.op_with_options(sg, BuiltinOp::MAX_POOL_2D, &[z], &[p], pool);
        b.io(sg, &[x], &[p]);
        b.finish()
    }

    fn options() -> Options {
        Options {
            alignment: 1,
            overlaps: true,
            chunk_pixels: 1,
            ..Options::default()
        }
    }

    #[test]
    fn outputs_lie_over_their_inputs_at_the_least_displacement() {
        let plan = plan_model(&model(), &options()).unwrap();
        // Depthwise: the last pixel's outputs end 88 bytes past its window's corner, input
        // pixel (4, 4) (6 · 6 · 4 − (4 · 6 + 4) · 2); 1×1: the last pixel's 8 outputs end 4
        // bytes past its input's start (36 · 8 − 35 · 4 = 148); the pool: its first pixel's 8
        // outputs end 8 bytes past its window's corner, input pixel (0, 0).
        let pairs: Vec<i64> = plan
            .problem
            .overlaps()
            .iter()
            .map(|o| o.min_displacement)
            .collect();
        assert_eq!(pairs, [88, 148, 8]);
        assert_eq!(plan.tensor_bound_bytes(), 144 + 288);
        // The pool's span is the peak: 8 + 288.
        assert_eq!(plan.lower_bound_bytes(), 8 + 288);
        // A chain: z lies 8 above p (the pool's pair), y 148 above z (the 1×1's), so y ends
        // 8 + 148 + 144 above p's start, 4 bytes above the bound (which counts each time's
        // pairs alone).
        assert_eq!(plan.arena_bytes(), 8 + 148 + 144);
        // The 1×1 and the pool need their pairs (the depthwise op's span, 160, is below the
        // peak).
        let names: Vec<(&str, &str)> = plan
            .overlapped()
            .iter()
            .map(|&(i, o)| {
                (
                    plan.model.tensors[i.get()].name.as_str(),
                    plan.model.tensors[o.get()].name.as_str(),
                )
            })
            .collect();
        assert_eq!(names, [("y", "z"), ("z", "p")]);
        // Without the option: whole tensors.
        let whole = plan_model(
            &model(),
            &Options {
                overlaps: false,
                ..options()
            },
        )
        .unwrap();
        assert!(whole.problem.overlaps().is_empty());
        assert_eq!(whole.arena_bytes(), 144 + 288);
    }

    /// x (int16, 64) → QUANTIZE → y (int8, 64) → LOGISTIC → z (int8, 64): each output may
    /// start at its input's start (a full alias), none below it.
    #[test]
    fn elementwise_outputs_alias_their_inputs_and_no_lower() {
        let mut b = ModelBuilder::new();
        let sg = b.subgraph("main");
        let x = b.tensor(sg, "x", DType::Int16, &[1, 64]);
        let y = b.tensor(sg, "y", DType::Int8, &[1, 64]);
        let z = b.tensor(sg, "z", DType::Int8, &[1, 64]);
        b.op(sg, BuiltinOp::QUANTIZE, &[x], &[y]);
        b.op(sg, BuiltinOp::LOGISTIC, &[y], &[z]);
        b.io(sg, &[x], &[z]);
        let bytes = b.finish();
        let plan = plan_model(&bytes, &options()).unwrap();
        let pairs: Vec<i64> = plan
            .problem
            .overlaps()
            .iter()
            .map(|o| o.min_displacement)
            .collect();
        assert_eq!(pairs, [0, 0]);
        assert_eq!(plan.tensor_bound_bytes(), 128 + 64);
        assert_eq!(plan.lower_bound_bytes(), 128);
        assert_eq!(plan.arena_bytes(), 128);
        // The QUANTIZE's output one byte above its input's start: refused, naming both.
        let pair = plan.problem.overlaps()[0];
        let mut offsets = plan.plan.offsets().to_vec();
        for (k, offset) in offsets.iter_mut().enumerate() {
            *offset = 1000 * (k as u64 + 1);
        }
        offsets[pair.input] = 0;
        offsets[pair.output] = 1;
        let problem = Problem::with_overlaps(
            plan.problem.buffers().to_vec(),
            1,
            vec![Overlap::new(pair.output, pair.input, -1)],
        )
        .unwrap();
        let moved = Plan::from_offsets(&problem, offsets, Planner::Linear).unwrap();
        crate::verify::verify(&problem, &moved, false).expect("the pair as declared");
        let err = super::check(&super::Planned {
            model: &plan.model,
            bytes: &bytes,
            tensors: &plan.tensors,
            problem: &problem,
            plan: &moved,
            buffer_tensors: &plan.buffer_tensors,
        })
        .unwrap_err();
        assert!(err.contains("`x` starts -1 bytes above `y`"), "{err}");
        assert!(err.contains("need at least 0"), "{err}");
    }

    /// A planner that declared a pair one byte too close: the abstract verifier accepts the plan
    /// (it trusts the pair), the model's check refuses it, naming both tensors.
    #[test]
    fn one_byte_closer_than_the_kernels_allow_is_refused() {
        refuses_one_byte_closer(&model(), 3);
        refuses_one_byte_closer(&streamed_model(), 5);
    }

    /// For each of the `pairs` pairs of `bytes`' plan: at its least displacement the check
    /// accepts the plan, one byte closer it refuses it (the abstract verifier accepts both).
    fn refuses_one_byte_closer(bytes: &[u8], pairs: usize) {
        let plan = plan_model(bytes, &options()).unwrap();
        let buffers = plan.problem.buffers().to_vec();
        assert_eq!(plan.problem.overlaps().len(), pairs);
        for (k, pair) in plan.problem.overlaps().iter().enumerate() {
            let mut pairs = plan.problem.overlaps().to_vec();
            let least = pair.min_displacement;
            pairs[k] = Overlap::new(pair.output, pair.input, least - 1);
            let problem = Problem::with_overlaps(buffers.clone(), 1, pairs).unwrap();
            let mut offsets = plan.plan.offsets().to_vec();
            for at in [least, least - 1] {
                // The output at 1, the input `at` above it, the other tensors above both.
                for (b, offset) in offsets.iter_mut().enumerate() {
                    *offset = 1000 * (b as u64 + 1);
                }
                offsets[pair.output] = 1;
                offsets[pair.input] = u64::try_from(at + 1).unwrap();
                let moved = Plan::from_offsets(&problem, offsets.clone(), Planner::Linear).unwrap();
                crate::verify::verify(&problem, &moved, false).expect("the pair as declared");
                let result = super::check(&super::Planned {
                    model: &plan.model,
                    bytes,
                    tensors: &plan.tensors,
                    problem: &problem,
                    plan: &moved,
                    buffer_tensors: &plan.buffer_tensors,
                });
                if at == least {
                    result.expect("the least displacement");
                } else {
                    let err = result.unwrap_err();
                    assert!(err.contains(&format!("starts {at} bytes above")), "{err}");
                    assert!(err.contains(&format!("need at least {least}")), "{err}");
                }
            }
        }
    }

    /// A declaration one byte closer than the kernel's own least displacement, for every op.
    fn one_byte_closer(
        model: &crate::tflite::Model,
        file: &[u8],
        tensors: &[crate::graph::TensorInfo],
        op: &crate::tflite::Op,
    ) -> Option<Pairing> {
        let right = crate::ops::overwrite_of(&op.opcode)?;
        let p = (right.pairing)(model, file, tensors, op)?;
        Some(Pairing {
            least: p.least - 1,
            ..p
        })
    }

    /// A wrong entry in the registry fools the planner, which pairs as it says, but not the
    /// check, which reads the same entry and derives each displacement itself: the declaration
    /// is refused wherever the pair shares bytes, even where the plan happens to keep the
    /// kernel's own displacement.
    #[test]
    fn a_declaration_below_the_kernels_displacement_is_refused() {
        let wrong = |opcode: &Opcode| {
            crate::ops::overwrite_of(opcode).map(|o| Overwrite {
                pairing: one_byte_closer,
                ..o
            })
        };
        for (bytes, count) in [(model(), 3), (streamed_model(), 5)] {
            let plan = plan_model(&bytes, &options()).unwrap();
            let pairs: Vec<Overlap> = crate::kernel_order::pairs(
                &plan.model,
                &bytes,
                &plan.tensors,
                &plan.lifetimes,
                &plan.problem,
                &plan.tensor_buffers,
                &plan.buffer_tensors,
                &wrong,
            )
            .into_iter()
            .map(|(o, _)| o)
            .collect();
            assert_eq!(pairs.len(), count);
            let problem =
                Problem::with_overlaps(plan.problem.buffers().to_vec(), 1, pairs).unwrap();
            for (k, pair) in problem.overlaps().iter().enumerate() {
                let declared = pair.min_displacement;
                let right = plan.problem.overlaps()[k].min_displacement;
                assert_eq!(declared, right - 1);
                for at in [declared, right] {
                    let mut offsets: Vec<u64> = (0..problem.buffers().len())
                        .map(|b| 1000 * (b as u64 + 1))
                        .collect();
                    offsets[pair.output] = 1;
                    offsets[pair.input] = u64::try_from(at + 1).unwrap();
                    let moved = Plan::from_offsets(&problem, offsets, Planner::Linear).unwrap();
                    crate::verify::verify(&problem, &moved, false).expect("the pair as declared");
                    let planned = super::Planned {
                        model: &plan.model,
                        bytes: &bytes,
                        tensors: &plan.tensors,
                        problem: &problem,
                        plan: &moved,
                        buffer_tensors: &plan.buffer_tensors,
                    };
                    let err = super::check_with(&planned, &wrong, false).unwrap_err();
                    assert!(
                        err.contains(&format!(
                            "declare they run it from {declared} bytes on, but its"
                        )) && err.contains(&format!("write order needs {right}")),
                        "{err}"
                    );
                    // With the op modules' own declarations: refused one byte closer, accepted
                    // at the kernel's displacement.
                    let own = super::check(&planned);
                    assert_eq!(own.is_ok(), at == right, "{own:?}");
                }
            }
        }
    }

    /// Every op declared as written element by element from 0 on.
    fn from_zero(
        model: &crate::tflite::Model,
        file: &[u8],
        tensors: &[crate::graph::TensorInfo],
        op: &crate::tflite::Op,
    ) -> Option<Pairing> {
        let right = crate::ops::overwrite_of(&op.opcode)?;
        (right.pairing)(model, file, tensors, op)?;
        Some(Pairing {
            least: 0,
            preferred: 0,
            pixel: 0,
        })
    }

    /// A wrong write order in the registry: FULLY_CONNECTED, DEQUANTIZE and CONCATENATION
    /// declared element by element (`D = 0`). The check's own arithmetic for that order refuses
    /// them (their input and output differ in element count or width); ADD and RELU, which are
    /// element by element, pass.
    #[test]
    fn a_wrong_write_order_is_refused() {
        let wrong = |opcode: &Opcode| {
            crate::ops::overwrite_of(opcode).map(|o| Overwrite {
                order: crate::ops::WriteOrder::Elementwise,
                pairing: from_zero,
                ..o
            })
        };
        let bytes = streamed_model();
        let plan = plan_model(&bytes, &options()).unwrap();
        let pairs: Vec<Overlap> = crate::kernel_order::pairs(
            &plan.model,
            &bytes,
            &plan.tensors,
            &plan.lifetimes,
            &plan.problem,
            &plan.tensor_buffers,
            &plan.buffer_tensors,
            &wrong,
        )
        .into_iter()
        .map(|(o, _)| o)
        .collect();
        let problem = Problem::with_overlaps(plan.problem.buffers().to_vec(), 1, pairs).unwrap();
        let mut refused = Vec::new();
        for pair in problem.overlaps() {
            let mut offsets: Vec<u64> = (0..problem.buffers().len())
                .map(|b| 1000 * (b as u64 + 1))
                .collect();
            offsets[pair.output] = 1;
            offsets[pair.input] = 1;
            let moved = Plan::from_offsets(&problem, offsets, Planner::Linear).unwrap();
            crate::verify::verify(&problem, &moved, false).expect("the pair as declared");
            let planned = super::Planned {
                model: &plan.model,
                bytes: &bytes,
                tensors: &plan.tensors,
                problem: &problem,
                plan: &moved,
                buffer_tensors: &plan.buffer_tensors,
            };
            if super::check_with(&planned, &wrong, false).is_err() {
                refused.push(
                    plan.model.tensors[plan.buffer_tensors[pair.output].get()]
                        .name
                        .as_str(),
                );
            }
        }
        // FULLY_CONNECTED writes y, DEQUANTIZE f, CONCATENATION o.
        assert_eq!(refused, ["y", "f", "o"]);
    }

    /// x (int8, 4 rows of 16) → FULLY_CONNECTED (8 units) → y (4 × 8) → ADD (y + c, a
    /// constant) → z → DEQUANTIZE → f (float32) → RELU → r → CONCATENATION with s (4 × 2,
    /// along axis 1) → o (4 × 10): every op's output may lie over its first input.
    fn streamed_model() -> Vec<u8> {
        let mut b = ModelBuilder::new();
        let sg = b.subgraph("main");
        let q = |b: &mut ModelBuilder, name: &str, shape: &[i32]| {
            b.quantized(sg, name, DType::Int8, shape, (&[0.05], &[-3], 0))
        };
        let x = q(&mut b, "x", &[4, 16]);
        let w = b.quantized_constant(
            sg,
            "w",
            DType::Int8,
            &[8, 16],
            (&[0.01], &[0], 0),
            &[1; 128],
        );
        let y = q(&mut b, "y", &[4, 8]);
        b.op_with_options(
            sg,
            BuiltinOp::FULLY_CONNECTED,
            &[x, w],
            &[y],
            OpOptions::FullyConnected {
                activation: Activation::None,
                keep_num_dims: false,
                shuffled_weights: false,
            },
        );
        let c = b.quantized_constant(sg, "c", DType::Int8, &[4, 8], (&[0.05], &[-3], 0), &[2; 32]);
        let z = q(&mut b, "z", &[4, 8]);
        b.op(sg, BuiltinOp::ADD, &[y, c], &[z]);
        let f = b.tensor(sg, "f", DType::Float32, &[4, 8]);
        b.op(sg, BuiltinOp::DEQUANTIZE, &[z], &[f]);
        let r = b.tensor(sg, "r", DType::Float32, &[4, 8]);
        b.op(sg, BuiltinOp::RELU, &[f], &[r]);
        let s = b.tensor(sg, "s", DType::Float32, &[4, 2]);
        let o = b.tensor(sg, "o", DType::Float32, &[4, 10]);
        b.op_with_options(
            sg,
            BuiltinOp::CONCATENATION,
            &[r, s],
            &[o],
            OpOptions::Concatenation {
                axis: 1,
                activation: Activation::None,
            },
        );
        b.io(sg, &[x, s], &[o]);
        b.finish()
    }

    #[test]
    fn fully_connected_add_dequantize_and_float_relu_overlap() {
        let bytes = streamed_model();
        let plan = plan_model(&bytes, &options()).unwrap();
        let pairs: Vec<i64> = plan
            .problem
            .overlaps()
            .iter()
            .map(|o| o.min_displacement)
            .collect();
        // FULLY_CONNECTED: max(8, 4 · 8 − 3 · 16) = 8; ADD 0; DEQUANTIZE 3 · 31 = 93; RELU 0;
        // CONCATENATION: 3 rows of 10 − 8 floats, 24 bytes.
        assert_eq!(pairs, [8, 0, 93, 0, 24]);
        // The CONCATENATION's tensors at the peak: s (32 bytes) beside o (160), r within 24
        // bytes above o's start.
        assert_eq!(plan.tensor_bound_bytes(), 128 + 32 + 160);
        assert_eq!(plan.lower_bound_bytes(), 160 + 32);
        assert_eq!(plan.arena_bytes(), 160 + 32);
        // The float tensors fill the arena each: the DEQUANTIZE's output covers its input,
        // the RELU's its own.
        let names: Vec<(&str, &str)> = plan
            .overlapped()
            .iter()
            .map(|&(i, o)| {
                (
                    plan.model.tensors[i.get()].name.as_str(),
                    plan.model.tensors[o.get()].name.as_str(),
                )
            })
            .collect();
        assert!(
            names.contains(&("z", "f")) && names.contains(&("f", "r")),
            "{names:?}"
        );
    }
}
