//! What an op's kernels can do with its output over the input they consume, declared once in
//! the op's module ([`Overwrite`], the field `overwrite` of its [`OpKind`](super::OpKind)):
//! which input they may write over, in which order they write ([`WriteOrder`]), the runtime's
//! one-buffer entry of each kernel variant and the compile-time check of its offsets, and, for
//! one op of the kind, whether its variants' preconditions hold and from which displacement it
//! runs ([`Pairing`]).
//!
//! Read by the planner's pairs (`crate::kernel_order`, which names no op), by lowering
//! (`Lower::overlapped_call` takes the entry and its check from the declaration) and by the
//! conformance suite (`stowplan-conformance overlap-kinds`, the kinds it counts). The plan's
//! check (`crate::overlap_proof`) does not take the declared displacement on trust: it derives
//! it again from the op's shapes and options with arithmetic of its own for the declared write
//! order, and refuses a declaration below its own figure.
//!
//! The helpers below are what several declarations share (one input written element by
//! element, a window op's displacement from the runtime's driver, byte conversions).

use std::fmt;

use crate::graph::TensorInfo;
use crate::kernels::ConvGeometry;
use crate::tflite::{DType, Model, Op, Tensor, TensorIndex};

/// The order in which a kernel on one buffer reads its input and writes its output, which
/// decides the least displacement `offset(input) − offset(output)` it runs from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WriteOrder {
    /// The runtime's overlapped driver (`stowplan::kernels::overlap`): chunks of output pixels
    /// in order, each on two slices split at the lowest input element it or a later pixel reads
    /// (CONV_2D, DEPTHWISE_CONV_2D; a pool as the depthwise convolution of its window).
    Window,
    /// Output element `k`, no wider than input element `k`, written after that is read, in
    /// order: the output may start anywhere at or below the input (QUANTIZE, the activations,
    /// ADD and MUL over their first input).
    Elementwise,
    /// Output element `k`, wider than input element `k`, written after that is read, in order
    /// (DEQUANTIZE to float32).
    Widening,
    /// Whole rows in order, each row's outputs after its own inputs are read
    /// (FULLY_CONNECTED of several batch rows).
    Rows,
    /// The first input's chunks moved into their slots of the output in order, the other
    /// inputs from views of their own (CONCATENATION).
    Concatenation,
    /// Output elements in order, each written after the input element it covers is read
    /// (PAD and PADV2 with constant paddings).
    Pad,
}

impl WriteOrder {
    /// Every write order.
    pub const ALL: [Self; 6] = [
        Self::Window,
        Self::Elementwise,
        Self::Widening,
        Self::Rows,
        Self::Concatenation,
        Self::Pad,
    ];

    /// The order's name in reports and in the conformance suite (`window`, `elementwise`, ..).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Window => "window",
            Self::Elementwise => "elementwise",
            Self::Widening => "widening",
            Self::Rows => "rows",
            Self::Concatenation => "concatenation",
            Self::Pad => "pad",
        }
    }
}

/// One op's pairing: the displacements from which its kernels run it on one buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// The least displacement `offset(input) − offset(output)`, in bytes, from which the
    /// kernels run the op with its output over the input (and every larger one).
    pub least: i64,
    /// The displacement, in bytes, the planner moves the pair to where the arena has room
    /// (`crate::spread`: a window op's chunks are whole output rows from there); 0 for none.
    pub preferred: i64,
    /// A window op's bytes of one output pixel: each of them added to the least displacement
    /// lets each of the driver's chunks hold one output pixel more (at the least displacement
    /// a chunk may be a single pixel; the planner adds `Options::chunk_pixels − 1` of them); 0
    /// for the other orders.
    pub pixel: i64,
}

/// The one-buffer pairing of one op of a kind, from the model, its file and the planned
/// shapes: `None` where no variant of the kind's kernels runs it on one buffer (types,
/// options or shapes outside their preconditions).
pub type Pair = fn(&Model, &[u8], &[TensorInfo], &Op) -> Option<Pairing>;

/// What an op kind's kernels can do with the output over an input they consume.
#[derive(Clone, Copy)]
pub struct Overwrite {
    /// The input the kernels may write the output over (its position among the op's inputs;
    /// the runtime's one-buffer entries take it as the one view `o0`, with the output).
    pub input: usize,
    /// How they read and write ([`WriteOrder`]).
    pub order: WriteOrder,
    /// The runtime's compile-time check of the planned offsets, `kernels::overlap::<fits>`,
    /// which generated code asserts.
    pub fits: &'static str,
    /// The runtime's one-buffer entry of each kernel variant, `kernels::overlap::<entry>`,
    /// named as the variant's kernel.
    pub entries: &'static [&'static str],
    /// For one op of the kind: its pairing, or `None` ([`Pair`]).
    pub pairing: Pair,
}

impl fmt::Debug for Overwrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Overwrite")
            .field("input", &self.input)
            .field("order", &self.order)
            .field("fits", &self.fits)
            .field("entries", &self.entries)
            .finish_non_exhaustive()
    }
}

/// Input `i` of `op`, if present.
pub(super) fn operand<'m>(model: &'m Model, op: &Op, i: usize) -> Option<&'m Tensor> {
    let t: TensorIndex = op.inputs.get(i).copied().flatten()?;
    model.tensor(op.subgraph, t)
}

/// The one output of `op` (`None` for an op with several outputs).
pub(super) fn only_output<'m>(model: &'m Model, op: &Op) -> Option<&'m Tensor> {
    match op.outputs.as_slice() {
        &[t] => model.tensor(op.subgraph, t),
        _ => None,
    }
}

/// The element count of a tensor's planned shape, `None` on overflow or a negative dimension.
pub(super) fn elements(tensors: &[TensorInfo], t: &Tensor) -> Option<u64> {
    tensors.get(t.id.get()).and_then(|info| {
        info.shape
            .iter()
            .try_fold(1_u64, |n, &d| n.checked_mul(u64::try_from(d).ok()?))
    })
}

/// A tensor's planned shape, `None` with a negative dimension.
pub(super) fn shape(tensors: &[TensorInfo], t: &Tensor) -> Option<Vec<usize>> {
    tensors
        .get(t.id.get())?
        .shape
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect()
}

/// `count` elements of `element` bytes as a displacement in bytes, checked.
pub(super) fn bytes(count: usize, element: u64) -> Option<i64> {
    i64::try_from(u64::try_from(count).ok()?.checked_mul(element)?).ok()
}

/// A kernel writing its output element by element over its first (only, unless `second`)
/// input ([`WriteOrder::Elementwise`]): the pairing `D = 0` when the op has one input (or,
/// with `second`, two distinct ones of the output's type, for ADD and MUL), as many output
/// elements as first-input elements (not broadcast), and input and output types one of
/// `types`.
pub(super) fn elementwise(
    model: &Model,
    tensors: &[TensorInfo],
    op: &Op,
    types: &[(DType, DType)],
    second: bool,
) -> Option<Pairing> {
    let (input, output) = (operand(model, op, 0)?, only_output(model, op)?);
    if !types.contains(&(input.dtype, output.dtype)) {
        return None;
    }
    if second {
        let other = operand(model, op, 1)?;
        if op.inputs.len() != 2 || other.dtype != output.dtype || other.id == input.id {
            return None;
        }
    } else if op.inputs.len() != 1 {
        return None;
    }
    let n = elements(tensors, input)?;
    (elements(tensors, output) == Some(n)).then_some(Pairing {
        least: 0,
        preferred: 0,
        pixel: 0,
    })
}

/// A window op of geometry `g` and `element` bytes per element through the runtime's driver
/// ([`WriteOrder::Window`]): from its least displacement (the driver's own
/// `kernels::overlap::min_displacement`, in bytes), preferring the one from which its chunks
/// are whole output rows (`row_displacement`); with `paired` (kernels that block a chunk's
/// pixels in pairs), its output pixel's bytes (from the least plus `k` pixels every chunk
/// holds `k + 1` pixels or more: a chunk's output may end `k` pixels further than a single
/// pixel's could, `o(u + k) = o(u) + k C_out` along a row, or the next rows' one pixel each of
/// a one-pixel-wide output); `None` where the driver has no walk.
pub(super) fn window(g: &ConvGeometry, element: u64, paired: bool) -> Option<Pairing> {
    Some(Pairing {
        least: bytes(crate::kernels::overlap::min_displacement(g)?, element)?,
        preferred: bytes(crate::kernels::overlap::row_displacement(g)?, element)?,
        pixel: if paired {
            bytes(g.output[3], element)?
        } else {
            0
        },
    })
}

/// The int32 values of a constant tensor's data in the model file, `None` for another type or a
/// tensor without data (or data that is not whole values).
#[must_use]
pub(crate) fn constant_i32s(model: &Model, file: &[u8], t: &Tensor) -> Option<Vec<i32>> {
    if t.dtype != DType::Int32 {
        return None;
    }
    let range = model.buffers.get(t.buffer.get())?.data.clone()?;
    let data = file.get(range)?;
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    /// Each declaration names a check and entries that generated code can call (identifiers,
    /// each entry once), for a kind with a lowering, and every write order is some kind's.
    #[test]
    fn every_declaration_names_callable_entries() {
        let ident = |s: &str| {
            s.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        let mut orders = BTreeSet::new();
        let kinds = super::super::overwrites();
        assert!(kinds.len() >= 19, "{}", kinds.len());
        for (name, module, o) in &kinds {
            let opcode = crate::tflite::BuiltinOp::from_name(name).map_or_else(
                || crate::tflite::Opcode::Custom(name.clone()),
                crate::tflite::Opcode::Builtin,
            );
            let kind = super::super::kind(&opcode);
            assert!(kind.is_some_and(|k| k.lower.is_some()), "{name}");
            assert!(ident(o.fits), "{name}: {}", o.fits);
            assert!(!o.entries.is_empty(), "{name}");
            let entries: BTreeSet<&str> = o.entries.iter().copied().collect();
            assert_eq!(entries.len(), o.entries.len(), "{name}");
            assert!(o.entries.iter().all(|e| ident(e)), "{name} ({module})");
            orders.insert(o.order.name());
        }
        assert_eq!(orders.len(), super::WriteOrder::ALL.len());
    }
}
