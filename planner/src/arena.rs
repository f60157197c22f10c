//! A model's arena as the abstract problem the planners solve: one buffer per planned tensor
//! (reshape-like ops merged with their input where allowed), the scratch buffers kernels ask
//! for, fixed offsets from an offline plan (variable tensors are the persistent region's:
//! [`crate::state`]).
//!
//! The rules come from the layers before: which tensors are planned and their sizes from
//! [`crate::graph`], lifetimes from [`crate::lifetime`], which ops work in place and which
//! scratch TFLM's kernels request from [`crate::ops`]. After planning, [`ArenaProblem`] turns
//! buffer numbers back into the model's names for messages.
//!
//! # Kernel scratch
//!
//! TensorFlow Lite Micro's kernels request scratch buffers in their `Prepare`
//! (`RequestScratchBufferInArena`); TFLM plans them with the tensors, each live for its op's
//! scope only, appended after every tensor in request order. When TFLM honours an offline plan
//! (see [`crate::embed`]), it places those requests first-fit around the fixed offsets, so a plan
//! that leaves no room for them makes TFLM's arena grow past it. Planning them as buffers of
//! their own (lifetime of one op) reserves that room. The op modules know the requests
//! ([`crate::ops::OpKind::tflm_scratch`]):
//!
//! | op | requests (bytes) |
//! |---|---|
//! | `SVDF`, int8 input | `batch × filters × 4`, then `batch × units × 4` |
//! | `SVDF`, float input | `batch × filters × 4` |
//! | `UNIDIRECTIONAL_SEQUENCE_LSTM` | four of `batch × cells × cell element size` (the cell state's bytes, input 19) |
//! | `SignalRfft` (custom) | `fft_length × element size`, with `fft_length` = the output's last dimension − 2 |
//! | `ADD_N`, float32 or int8 | `inputs × 8` (one pointer per input on the 64-bit host) |
//! | `MIRROR_PAD` | two of `rank × 4` |
//! | `MEAN`, `SUM`, int8 or int16 input | `output elements × 4`, `rank × 4`, `axis elements × 4` |
//! | `MEAN`, `SUM`, float input | `rank × 4`, `axis elements × 4` |
//! | `REDUCE_MAX`, `REDUCE_MIN` | `rank × 4`, `axis elements × 4` |
//! | `CONV_2D`, `DEPTHWISE_CONV_2D`, `FULLY_CONNECTED` with an int4 filter | the filter's element count (it is unpacked there) |
//! | `TRANSPOSE_CONV`, int8 input | the output's element count × 4 |
//! | `TRANSPOSE_CONV`, int16 input | the output's element count × 8, then (an int16 bias) the bias's × 8 |
//! | `TFLite_Detection_PostProcess` (custom) | eleven buffers sized by its options, which lie in the file's bytes; not known here |
//!
//! Other ops are taken to request none (true of TFLM's reference kernels for every op in the
//! models the project checks; optimised kernel builds such as CMSIS-NN request more). The real
//! TFLM interpreter confirms these sizes: with them, stowplan's greedy plan equals TFLM's arena
//! head on every model it runs (`tests/tflm/check_heads.py`).

use crate::error::{PlanArenaError, ReadModelError};
use crate::graph::{MAX_TENSOR_BYTES, Placement, TensorInfo, TensorKind};
use crate::lifetime::Lifetimes;
use crate::plan::{self, Buffer, Problem};
use crate::tflite::{Model, TensorId};
use crate::verify::{Verified, VerifyPlanError};
use crate::{DeclaredAlias, ops};

/// Where kernel scratch comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum KernelScratch {
    /// No scratch is planned (a module without `invoke` runs no kernel).
    #[default]
    None,
    /// The requests of TensorFlow Lite Micro's reference kernels.
    Tflm,
    /// The requests of stowplan's own kernels (generated `invoke`):
    /// [`crate::ops::OpKind::scratch`], 32-bit words; with an alignment below 4, only the
    /// scratch a kernel cannot do without ([`crate::ops::scratch_is_optional`]: CONV_2D's
    /// kernels then keep their working memory on the stack).
    Stowplan,
}

/// One planned scratch buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScratchBuffer {
    /// The op that asks for it, by position in [`Model::ops`].
    pub op: usize,
    /// Its size in bytes.
    pub bytes: u64,
}

/// How the arena is made from the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Alignment of every offset and size (a power of two).
    pub alignment: u64,
    /// Kernel scratch to plan with the tensors.
    pub kernel_scratch: KernelScratch,
    /// Let in-place ops (RESHAPE and the like) share their input's buffer.
    pub alias_reshapes: bool,
}

/// The arena of a model as an abstract problem, and the way back to the model's names.
#[derive(Clone, Debug)]
pub struct ArenaProblem {
    /// One buffer per planned tensor (in tensor id order), then the scratch buffers.
    pub problem: Problem,
    /// The tensor of each of the first buffers.
    pub buffer_tensors: Vec<TensorId>,
    /// Kernel scratch: buffer `buffer_tensors.len() + i` is `scratch[i]`.
    pub scratch: Vec<ScratchBuffer>,
    /// In-place ops whose output shares its input's buffer: `(input, output)`, sorted.
    pub aliases: Vec<(TensorId, TensorId)>,
    /// The buffer of each tensor, by tensor id: its own, its input's for an aliased output (the
    /// first input's, for a chain), `None` for a tensor not in the arena.
    pub tensor_buffers: Vec<Option<u32>>,
}

/// The arena problem of `model`.
///
/// # Errors
///
/// [`PlanArenaError`] for an offline offset that is not a multiple of the alignment, or sizes
/// the problem cannot hold.
pub fn problem(
    model: &Model,
    tensors: &[TensorInfo],
    lifetimes: &Lifetimes,
    rules: &Rules,
) -> Result<ArenaProblem, PlanArenaError> {
    let mut aliases = if rules.alias_reshapes {
        in_place_aliases(model, tensors, lifetimes)
    } else {
        Vec::new()
    };
    // The root of each aliased output: in op order, an input is resolved before its outputs.
    let mut roots: std::collections::HashMap<TensorId, TensorId> =
        std::collections::HashMap::with_capacity(aliases.len());
    for &(input, output) in &aliases {
        let root = roots.get(&input).copied().unwrap_or(input);
        roots.insert(output, root);
    }
    aliases.sort_unstable();
    let mut buffers: Vec<Buffer> = Vec::new();
    let mut buffer_tensors: Vec<TensorId> = Vec::new();
    let mut widen: Vec<(TensorId, u64, plan::Lifetime)> = Vec::new();
    for (tensor, info) in model.tensors.iter().zip(tensors) {
        let bytes = info.bytes.unwrap_or(0);
        match info.placement {
            Placement::Arena => {
                if let Some(offset) = info.fixed_offset
                    && !offset.is_multiple_of(rules.alignment)
                {
                    return Err(ReadModelError::BadOfflinePlan {
                        reason: format!(
                            "{} is at offset {offset}, not a multiple of the alignment {}",
                            tensor.desc(),
                            rules.alignment
                        ),
                    }
                    .into());
                }
                let lifetime = lifetimes
                    .tensors
                    .get(tensor.id.get())
                    .copied()
                    .unwrap_or_default()
                    .to_problem();
                if let Some(&root) = roots.get(&tensor.id) {
                    // Shares its input's buffer (its root's, for a chain): widened below.
                    widen.push((root, bytes, lifetime));
                    continue;
                }
                buffers.push(Buffer {
                    size: bytes,
                    lifetime,
                    fixed_offset: info.fixed_offset,
                });
                buffer_tensors.push(tensor.id);
            }
            // Variable tensors are the persistent region's ([`crate::state`]).
            Placement::Persistent | Placement::None | Placement::Dynamic => {}
        }
    }
    let mut tensor_buffers: Vec<Option<u32>> = vec![None; model.tensors.len()];
    for (b, t) in buffer_tensors.iter().enumerate() {
        if let Some(slot) = tensor_buffers.get_mut(t.get()) {
            *slot = u32::try_from(b).ok();
        }
    }
    for (&output, root) in &roots {
        let buffer = tensor_buffers.get(root.get()).copied().flatten();
        if let Some(slot) = tensor_buffers.get_mut(output.get()) {
            *slot = buffer;
        }
    }
    for (root, bytes, lifetime) in widen {
        if let Some(b) = buffer_tensors
            .binary_search(&root)
            .ok()
            .and_then(|b| buffers.get_mut(b))
        {
            b.size = b.size.max(bytes);
            b.lifetime = plan::Lifetime::new(
                b.lifetime.first.min(lifetime.first),
                b.lifetime.last.max(lifetime.last),
            );
        }
    }
    let scratch = match rules.kernel_scratch {
        KernelScratch::None => Vec::new(),
        KernelScratch::Tflm => requests(model, lifetimes, ops::tflm_scratch),
        KernelScratch::Stowplan => {
            let mut r = requests(model, lifetimes, ops::stowplan_scratch);
            // Scratch is handed out as 32-bit words: with offsets aligned to less than a word,
            // the kernels that can keep their working memory on the stack do.
            if rules.alignment < 4 {
                r.retain(|s| !model.ops.get(s.op).is_some_and(ops::scratch_is_optional));
            }
            r
        }
    };
    for s in &scratch {
        if s.bytes > MAX_TENSOR_BYTES {
            // As for tensors: more than a 32-bit target can address, and a message that names
            // the op (never an internal buffer number).
            let op = model.ops.get(s.op).map(crate::tflite::Op::desc);
            if let Some(op) = op {
                return Err(ReadModelError::ScratchTooLarge {
                    op,
                    bytes: s.bytes,
                    limit: MAX_TENSOR_BYTES,
                }
                .into());
            }
        }
        // Live at every time its op runs (on the problem's timeline, TFLM's scope + 1): an op
        // of a subgraph called from several places runs at several, and its scratch gets one
        // interval over them, as the subgraph's tensors do.
        let times = lifetimes.op_times.get(s.op).map_or(&[][..], Vec::as_slice);
        let time = |t: Option<&u32>| t.map_or(0, |&t| t.saturating_add(1));
        let (first, last) = (time(times.iter().min()), time(times.iter().max()));
        buffers.push(Buffer {
            size: s.bytes,
            lifetime: plan::Lifetime::new(first, last),
            fixed_offset: None,
        });
    }
    let problem = Problem::new(buffers, rules.alignment)?;
    Ok(ArenaProblem {
        problem,
        buffer_tensors,
        scratch,
        aliases,
        tensor_buffers,
    })
}

/// The in-place ops ([`ops::OpKind::in_place`]) whose output can share its input's buffer:
/// both in the arena (no offline offsets), the same size, the input an intermediate whose last
/// reader is this op, the output not a subgraph input. In op order, so a chain aliases to its
/// first input.
fn in_place_aliases(
    model: &Model,
    tensors: &[TensorInfo],
    lifetimes: &Lifetimes,
) -> Vec<(TensorId, TensorId)> {
    let mut out = Vec::new();
    for (position, op) in model.ops.iter().enumerate() {
        if !ops::kind(&op.opcode).is_some_and(|k| k.in_place) {
            continue;
        }
        let (Some(Some(i)), Some(o)) = (op.inputs.first(), op.outputs.first()) else {
            continue;
        };
        let (Some(input), Some(output)) =
            (model.tensor(op.subgraph, *i), model.tensor(op.subgraph, *o))
        else {
            continue;
        };
        let info = |id: TensorId| tensors.get(id.get());
        let (Some(ii), Some(oi)) = (info(input.id), info(output.id)) else {
            continue;
        };
        let times = lifetimes.op_times.get(position);
        let last_read_here = lifetimes
            .tensors
            .get(input.id.get())
            .and_then(|l| l.last)
            .is_some_and(|last| times.is_some_and(|t| t.len() == 1 && t.first() == Some(&last)));
        let movable = |i: &TensorInfo| i.placement == Placement::Arena && i.fixed_offset.is_none();
        if movable(ii)
            && movable(oi)
            && ii.bytes == oi.bytes
            && ii.kind == TensorKind::Intermediate
            && oi.kind != TensorKind::Input
            && last_read_here
        {
            out.push((input.id, output.id));
        }
    }
    out
}

/// The scratch requests of every op that runs, in op order (TFLM's request order).
fn requests(
    model: &Model,
    lifetimes: &Lifetimes,
    of: fn(&Model, &crate::tflite::Op) -> Vec<u64>,
) -> Vec<ScratchBuffer> {
    model
        .ops
        .iter()
        .enumerate()
        .filter(|(i, _)| lifetimes.op_times.get(*i).is_some_and(|t| !t.is_empty()))
        .flat_map(|(i, op)| {
            of(model, op)
                .into_iter()
                .filter(|&bytes| bytes > 0)
                .map(move |bytes| ScratchBuffer { op: i, bytes })
        })
        .collect()
}

impl ArenaProblem {
    /// How messages name problem buffer `b`: the tensor, or the op whose scratch it is.
    #[must_use]
    pub fn describe_buffer(&self, model: &Model, b: usize) -> String {
        if let Some(s) = b
            .checked_sub(self.buffer_tensors.len())
            .and_then(|i| self.scratch.get(i))
        {
            return model.ops.get(s.op).map_or_else(
                || format!("buffer {b}"),
                |op| format!("the scratch of {}", op.desc()),
            );
        }
        self.buffer_tensors
            .get(b)
            .and_then(|t| model.tensors.get(t.get()))
            .map_or_else(|| format!("buffer {b}"), |t| t.desc().to_string())
    }

    /// A failed verification as the model's error, naming tensors and the time.
    #[must_use]
    pub fn unverified(
        &self,
        model: &Model,
        lifetimes: &Lifetimes,
        e: VerifyPlanError,
    ) -> PlanArenaError {
        let name = |b: usize| self.describe_buffer(model, b);
        let reason = match e {
            VerifyPlanError::Overlap {
                a,
                b,
                time,
                bytes: (start, end),
            } => format!(
                "{} and {} share bytes {start}..{end} while both are live at {}",
                name(a),
                name(b),
                lifetimes.describe(model, time.checked_sub(1))
            ),
            VerifyPlanError::OutOfArena { buffer, end, arena } => {
                format!(
                    "{} ends at byte {end}, beyond the arena of {arena} bytes",
                    name(buffer)
                )
            }
            VerifyPlanError::Misaligned {
                buffer,
                offset,
                alignment,
            } => {
                format!(
                    "{} is at offset {offset}, not a multiple of {alignment}",
                    name(buffer)
                )
            }
            other => other.to_string(),
        };
        PlanArenaError::Unverified { reason }
    }

    /// The overlaps between offline-placed tensors the verifier accepted, by tensor.
    #[must_use]
    pub fn declared_aliases(&self, verified: &Verified) -> Vec<DeclaredAlias> {
        verified
            .declared_overlaps
            .iter()
            .filter_map(|d| {
                Some(DeclaredAlias {
                    a: *self.buffer_tensors.get(d.a)?,
                    b: *self.buffer_tensors.get(d.b)?,
                    scope: d.time.checked_sub(1),
                })
            })
            .collect()
    }
}
