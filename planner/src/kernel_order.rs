//! Which ops may write their output over the input they consume, and from what displacement:
//! the pairs [`model_overlaps`] gives the planner for generated `invoke`.
//!
//! Nothing here names an op: each op kind whose kernels run on one buffer declares it in its
//! module ([`crate::ops::Overwrite`], the field `overwrite` of its [`crate::ops::OpKind`]): the
//! input they write over, their write order, the runtime's one-buffer entries and their
//! compile-time check, and for each op whether its variants' preconditions hold and its least
//! displacement `D = offset(input) − offset(output)`, computed with the runtime's own
//! functions (`stowplan::kernels::overlap::min_displacement` and its siblings, compiled here
//! from the runtime's source). `pairs` walks the model's ops through that registry and pairs
//! each op's output with the input it consumes where the plan can use it (module docs of
//! `crate::ops::overwrite` and `docs/planning.md` for each kind's `D`).
//!
//! Which kinds declare it, and from what `D`, is in their modules alone (listed by
//! `stowplan-conformance overlap-kinds`, described in `docs/planning.md`); a window op also
//! prefers the displacement from which the driver's chunks are whole output rows
//! ([`row_displacement`]; [`min_displacement`] is the driver's least one, in bytes). Generated
//! code asserts at compile time that the offsets it was planned with satisfy the runtime's
//! check, and the plan's own check (module `overlap_proof`) derives `D` again with code of its
//! own.
//!
//! Every other op keeps whole-tensor planning (its kernel reads and writes separate slices).

use crate::graph::TensorInfo;
use crate::kernels::ConvGeometry;
use crate::lifetime::Lifetimes;
use crate::ops::Overwrite;
use crate::plan::{Overlap, Problem};
use crate::tflite::{Model, Opcode};

/// How far apart the planner may want a pair beyond its least displacement, in bytes (the
/// op's [`Pairing`](crate::ops::Pairing)): `preferred`, where the driver's chunks are whole
/// output rows (module `spread` moves the pair there when the arena has room; 0 for none), and
/// `pixel`, one output pixel of a window op, of which `Options::chunk_pixels − 1` are added to
/// the least displacement the planner plans with (0 for the other orders).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Spacing {
    pub(crate) preferred: i64,
    pub(crate) pixel: i64,
}

/// Where [`pairs`] looks up what an op's kernels can do on one buffer: [`crate::ops::overwrite_of`]
/// (the op modules' declarations), or a stand-in in tests.
pub(crate) type Registry<'a> = &'a dyn Fn(&Opcode) -> Option<Overwrite>;

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

/// The pairs of `problem`'s buffers whose output may cover the input it consumes: each op whose
/// kind declares a one-buffer kernel (`registry`) with a pairing for this op, whose overwritten
/// input dies at the op (not a subgraph output, not read again by the op) and is written by it
/// into one output, both planned online on buffers of their own, at the pairing's least
/// displacement. Both buffers must be their tensors' own: an input that shares another
/// tensor's buffer (the output of a reshape-like op aliasing its input,
/// [`crate::ModelPlan::aliases`]) is not paired, since the plan's check, the reports and the
/// generated code know a pair by its buffers' own tensors (a pair of the buffer would name the
/// reshape's input, which the op does not read). Each time has at most one pair (one
/// op runs at a time), so the pairs form a valid [`Problem::with_overlaps`] with the buffers.
/// With each pair its [`Spacing`].
#[must_use]
#[allow(clippy::too_many_arguments)]
pub(crate) fn pairs(
    model: &Model,
    bytes: &[u8],
    tensors: &[TensorInfo],
    lifetimes: &Lifetimes,
    problem: &Problem,
    tensor_buffers: &[Option<u32>],
    buffer_tensors: &[crate::tflite::TensorId],
    registry: Registry<'_>,
) -> Vec<(Overlap, Spacing)> {
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
        let Some(declared) = registry(&op.opcode) else {
            continue;
        };
        let Some(pairing) = (declared.pairing)(model, bytes, tensors, op) else {
            continue;
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
            op.inputs
                .get(declared.input)
                .copied()
                .flatten()
                .and_then(tensor),
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
        // Each buffer must be its tensor's own: a pair is known by its buffers' tensors.
        let own = |b: usize, id: crate::tflite::TensorId| buffer_tensors.get(b) == Some(&id);
        let read_again = op
            .inputs
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != declared.input)
            .filter_map(|(_, t)| *t)
            .any(|t| tensor(t).is_some_and(|t| buffer(t.id) == Some(bi)));
        if bi == bo
            || !own(bi, input.id)
            || !own(bo, output.id)
            || ib.lifetime.last != time
            || ob.lifetime.first != time
            || ib.fixed_offset.is_some()
            || ob.fixed_offset.is_some()
            || read_again
        {
            continue;
        }
        pairs.push((
            Overlap::new(bo, bi, pairing.least),
            Spacing {
                preferred: pairing.preferred,
                pixel: pairing.pixel,
            },
        ));
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
