//! Every decision of stowplan: read a TensorFlow Lite model, compute its tensors' lifetimes,
//! plan the arena, prove the plan correct and report it.
//!
//! This is a plain library, tested without a compiler in the loop; `stowplan-macros` and
//! `stowplan-build` are thin shells over it. **Its API is internal to stowplan and not
//! semver-stable.**
//!
//! The layers, in order (each only uses the ones before it):
//!
//! 1. [`model`]: the verified flatbuffer view and validation of every index;
//! 2. [`graph`]: each tensor's shape, size, kind and placement (arena, persistent, none);
//! 3. [`lifetime`]: TensorFlow Lite Micro's timeline over all subgraphs;
//! 4. [`plan`]: the abstract [`plan::Problem`] and its planners, with the lower bound;
//! 5. [`verify`]: the independent proof that a plan is correct;
//! 6. [`emit`]: reports (text table, JSON).
//!
//! [`plan_model`] runs them all:
//!
//! ```
//! use stowplan_planner::{plan_model, Options};
//! use stowplan_planner::tflite::builder::{ModelBuilder, ops};
//! use stowplan_planner::tflite::DType;
//!
//! // input -> RELU -> RELU -> output, 1 KiB each.
//! let mut b = ModelBuilder::new();
//! let sg = b.subgraph("main");
//! let x = b.tensor(sg, "x", DType::Int8, &[1, 1024]);
//! let y = b.tensor(sg, "y", DType::Int8, &[1, 1024]);
//! let z = b.tensor(sg, "z", DType::Int8, &[1, 1024]);
//! b.op(sg, ops::RELU, &[x], &[y]);
//! b.op(sg, ops::RELU, &[y], &[z]);
//! b.io(sg, &[x], &[z]);
//! let plan = plan_model(&b.finish(), &Options::default())?;
//! assert_eq!(plan.arena_bytes(), 2048); // x and z share bytes: x is dead once op 0 ran
//! assert_eq!(plan.lower_bound_bytes(), 2048);
//! # Ok::<(), stowplan_planner::PlanArenaError>(())
//! ```
#![deny(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

pub mod codegen;
pub mod embed;
pub mod emit;
mod error;
pub mod graph;
pub mod lifetime;
pub mod plan;
pub mod problem_csv;
pub mod quant;
pub mod scratch;
pub mod tflite;
pub mod verify;

pub use error::{OpDesc, PlanArenaError, ReadModelError, TensorDesc};

use graph::{Placement, ShapeOverride, TensorInfo};
use lifetime::{Lifetimes, TimePoint};
use plan::{Buffer, LiveProfile, Plan, Planner, Problem};
use tflite::{Model, TensorId};

/// What to do with an `OfflineMemoryAllocation` plan in the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum OfflinePolicy {
    /// Keep its offsets, as TFLite Micro does; overlaps between its tensors are reported as
    /// declared by the model instead of rejected.
    #[default]
    Honour,
    /// Ignore it and plan every tensor.
    Replan,
}

/// How to plan a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The planner.
    pub planner: Planner,
    /// Alignment of every offset and size (a power of two). TFLite Micro uses 16.
    pub alignment: u64,
    /// Shapes for tensors whose `shape` has `-1` dimensions.
    pub shapes: Vec<ShapeOverride>,
    /// What to do with an offline plan in the model.
    pub offline: OfflinePolicy,
    /// For the `search` and `auto` planners: stop at the first plan whose arena is at most this
    /// many bytes ([`plan::Settings::capacity`]).
    pub capacity: Option<u64>,
    /// Kernel scratch buffers to plan with the tensors ([`scratch`]).
    pub kernel_scratch: scratch::KernelScratch,
    /// Tensors with a `-1` in `shape` or `shape_signature`: with `true` they are left out of
    /// the plan ([`graph::Placement::Dynamic`], served by a buffer cache at run time); with
    /// `false` (the default) `shape` is planned as TFLite Micro does and a `-1` left in it is
    /// an error.
    pub dynamic_cache: bool,
    /// Let RESHAPE, SQUEEZE and EXPAND_DIMS alias their input (no copy) where the input has no
    /// later reader and is neither a model input nor output: input and output become one
    /// buffer with the union of their lifetimes ([`ModelPlan::aliases`]). Off in the
    /// TFLite-Micro-compatible mode (the default, `embed`, greedy cross-checks); generated
    /// `invoke` turns it on.
    pub alias_reshapes: bool,
    /// For the `search` and `auto` planners: the most search steps to spend
    /// ([`plan::DEFAULT_SEARCH_STEPS`] by default).
    pub search_steps: u64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            planner: Planner::default(),
            alignment: 16,
            shapes: Vec::new(),
            offline: OfflinePolicy::default(),
            capacity: None,
            kernel_scratch: scratch::KernelScratch::None,
            dynamic_cache: false,
            alias_reshapes: false,
            search_steps: plan::DEFAULT_SEARCH_STEPS,
        }
    }
}

/// Two tensors an offline plan puts in the same bytes while both are live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeclaredAlias {
    /// One tensor.
    pub a: TensorId,
    /// The other.
    pub b: TensorId,
    /// The first TFLite Micro scope at which both are live (`None` for before the first op).
    pub scope: Option<u32>,
}

/// A model and its verified plan.
#[derive(Clone, Debug)]
pub struct ModelPlan {
    /// The model as read.
    pub model: Model,
    /// Every tensor's shape, size, kind and placement, by tensor id.
    pub tensors: Vec<TensorInfo>,
    /// Every tensor's lifetime and the timeline.
    pub lifetimes: Lifetimes,
    /// The abstract problem: one buffer per planned tensor, in tensor id order.
    pub problem: Problem,
    /// The tensor of each problem buffer; the buffers after these are [`ModelPlan::scratch`].
    pub buffer_tensors: Vec<TensorId>,
    /// Kernel scratch buffers, planned after the tensors' buffers (problem buffer
    /// `buffer_tensors.len() + i` is `scratch[i]`).
    pub scratch: Vec<scratch::ScratchBuffer>,
    /// Reshape-like ops whose output shares its input's buffer ([`Options::alias_reshapes`]):
    /// `(input, output)`; the output is not in `buffer_tensors` (its buffer is the input's).
    pub aliases: Vec<(TensorId, TensorId)>,
    /// The verified plan.
    pub plan: Plan,
    /// Live bytes over time: the lower bound and the peak.
    pub profile: LiveProfile,
    /// Overlaps the offline plan declares on purpose (accepted, reported).
    pub declared_aliases: Vec<DeclaredAlias>,
    /// Bytes of variable tensors kept in the persistent region (each rounded up to the alignment).
    pub persistent_bytes: u64,
    /// Bytes of those variable tensors without rounding.
    pub persistent_raw_bytes: u64,
    /// The offline plan policy that applied.
    pub offline: OfflinePolicy,
}

impl ModelPlan {
    /// The arena: bytes of the planned region.
    #[must_use]
    pub const fn arena_bytes(&self) -> u64 {
        self.plan.arena_bytes()
    }

    /// The aligned lower bound: the most bytes (sizes rounded up to the alignment) live at once.
    #[must_use]
    pub const fn lower_bound_bytes(&self) -> u64 {
        self.profile.aligned_bytes
    }

    /// The naive arena: every planned tensor in its own bytes.
    #[must_use]
    pub fn naive_bytes(&self) -> u64 {
        self.problem.naive_bytes()
    }

    /// How far the arena is above the lower bound, in percent of the lower bound (0 when both are 0).
    /// Negative when an offline plan aliases tensors on purpose.
    #[must_use]
    pub fn gap_percent(&self) -> f64 {
        let lb = self.lower_bound_bytes();
        if lb == 0 {
            0.0
        } else {
            (self.arena_bytes() as f64 - lb as f64) * 100.0 / lb as f64
        }
    }

    /// The offset of a tensor planned in the arena.
    #[must_use]
    pub fn offset(&self, tensor: TensorId) -> Option<u64> {
        // An aliased output lives in its input's buffer (chains resolve in order).
        let mut tensor = tensor;
        while let Some(&(input, _)) = self.aliases.iter().find(|(_, out)| *out == tensor) {
            tensor = input;
        }
        let buffer = self.buffer_tensors.binary_search(&tensor).ok()?;
        self.plan.offsets().get(buffer).copied()
    }

    /// The TFLite Micro scope where live bytes peak (`Some(None)` = before the first op).
    #[must_use]
    pub fn peak_scope(&self) -> Option<Option<u32>> {
        self.profile.peak_time.map(|t| t.checked_sub(1))
    }

    /// The tensors live at the peak.
    #[must_use]
    pub fn peak_tensors(&self) -> Vec<TensorId> {
        self.profile
            .peak_buffers
            .iter()
            .filter_map(|&b| self.buffer_tensors.get(b).copied())
            .collect()
    }

    /// Says what happens at a TFLite Micro scope: `op 3 (CONV_2D) of subgraph 0`.
    #[must_use]
    pub fn describe_scope(&self, scope: Option<u32>) -> String {
        describe_scope(&self.model, &self.lifetimes, scope)
    }
}

/// The reshape-like ops whose output can share its input's buffer: both in the arena (no offline
/// offsets), the same size, the input an intermediate whose last reader is this op, the output
/// not a subgraph input. In op order, so a chain aliases to its first input.
fn reshape_aliases(
    model: &Model,
    tensors: &[TensorInfo],
    lifetimes: &Lifetimes,
) -> Vec<(TensorId, TensorId)> {
    let mut out = Vec::new();
    for (position, op) in model.ops.iter().enumerate() {
        let tflite::Opcode::Builtin(b) = op.opcode else {
            continue;
        };
        if !matches!(b.name(), Some("RESHAPE" | "SQUEEZE" | "EXPAND_DIMS")) {
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
            && ii.kind == graph::TensorKind::Intermediate
            && oi.kind != graph::TensorKind::Input
            && last_read_here
        {
            out.push((input.id, output.id));
        }
    }
    out
}

/// TFLM's scratch requests of every op that runs, in op order (TFLM's request order).
fn tflm_scratch(model: &Model, lifetimes: &Lifetimes) -> Vec<scratch::ScratchBuffer> {
    model
        .ops
        .iter()
        .enumerate()
        .filter(|(i, _)| lifetimes.op_times.get(*i).is_some_and(|t| !t.is_empty()))
        .flat_map(|(i, op)| {
            scratch::tflm_requests(model, op)
                .into_iter()
                .filter(|&bytes| bytes > 0)
                .map(move |bytes| scratch::ScratchBuffer { op: i, bytes })
        })
        .collect()
}

fn describe_scope(model: &Model, lifetimes: &Lifetimes, scope: Option<u32>) -> String {
    let Some(s) = scope else {
        return "time -1, before the first op (tensors no op reaches)".to_owned();
    };
    match lifetimes.timeline.get(s as usize) {
        Some(TimePoint::Entry(sg)) if sg.0 == 0 => "the model's start (its inputs)".to_owned(),
        Some(TimePoint::Entry(sg)) => format!("the entry of subgraph {sg}"),
        Some(TimePoint::Op { position, .. }) => model
            .ops
            .get(*position)
            .map_or_else(|| format!("time {s}"), |op| op.desc().to_string()),
        None => format!("time {s}"),
    }
}

/// Reads `bytes` as a TFLite model, plans its arena with `options`, and verifies the plan.
///
/// # Errors
///
/// [`PlanArenaError`] if the model is malformed or cannot be planned (see [`ReadModelError`]),
/// the alignment is not a power of two, or the plan fails verification.
pub fn plan_model(bytes: &[u8], options: &Options) -> Result<ModelPlan, PlanArenaError> {
    if !options.alignment.is_power_of_two() {
        return Err(plan::ProblemError::BadAlignment {
            alignment: options.alignment,
        }
        .into());
    }
    let model = tflite::read_model(bytes)?;
    let honour = options.offline == OfflinePolicy::Honour;
    let tensors = graph::tensor_infos(&model, &options.shapes, honour, options.dynamic_cache)?;
    let lifetimes = lifetime::lifetimes(&model)?;
    let aliases = if options.alias_reshapes {
        reshape_aliases(&model, &tensors, &lifetimes)
    } else {
        Vec::new()
    };

    let mut buffers: Vec<Buffer> = Vec::new();
    let mut buffer_tensors: Vec<TensorId> = Vec::new();
    let mut widen: Vec<(TensorId, u64, plan::Lifetime)> = Vec::new();
    let mut persistent_bytes: u64 = 0;
    let mut persistent_raw_bytes: u64 = 0;
    for (tensor, info) in model.tensors.iter().zip(&tensors) {
        let bytes = info.bytes.unwrap_or(0);
        match info.placement {
            Placement::Arena => {
                if let Some(offset) = info.fixed_offset
                    && !offset.is_multiple_of(options.alignment)
                {
                    return Err(ReadModelError::BadOfflinePlan {
                        reason: format!(
                            "{} is at offset {offset}, not a multiple of the alignment {}",
                            tensor.desc(),
                            options.alignment
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
                if let Some(&(input, _)) = aliases.iter().find(|(_, out)| *out == tensor.id) {
                    // Shares its input's buffer (its root's, for a chain): widened below.
                    let mut root = input;
                    while let Some(&(i, _)) = aliases.iter().find(|(_, o)| *o == root) {
                        root = i;
                    }
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
            Placement::Persistent => {
                let aligned = bytes
                    .div_ceil(options.alignment)
                    .saturating_mul(options.alignment);
                persistent_bytes = persistent_bytes.saturating_add(aligned);
                persistent_raw_bytes = persistent_raw_bytes.saturating_add(bytes);
            }
            Placement::None | Placement::Dynamic => {}
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
    let scratch = match options.kernel_scratch {
        scratch::KernelScratch::None => Vec::new(),
        scratch::KernelScratch::Tflm => tflm_scratch(&model, &lifetimes),
    };
    for s in &scratch {
        let time = lifetimes
            .op_times
            .get(s.op)
            .and_then(|t| t.last())
            .map_or(0, |&t| t + 1);
        buffers.push(Buffer {
            size: s.bytes,
            lifetime: plan::Lifetime::new(time, time),
            fixed_offset: None,
        });
    }
    let problem = Problem::new(buffers, options.alignment)?;
    let plan = plan::run_with(
        &problem,
        &plan::Settings {
            planner: options.planner,
            capacity: options.capacity,
            search_steps: options.search_steps,
        },
    );
    let verified = verify::verify(&problem, &plan, honour).map_err(|e| {
        let name = |b: usize| {
            if let Some(s) = b
                .checked_sub(buffer_tensors.len())
                .and_then(|i| scratch.get(i))
            {
                return model.ops.get(s.op).map_or_else(
                    || format!("buffer {b}"),
                    |op| format!("the scratch of {}", op.desc()),
                );
            }
            buffer_tensors
                .get(b)
                .and_then(|t| model.tensors.get(t.get()))
                .map_or_else(|| format!("buffer {b}"), |t| t.desc().to_string())
        };
        let reason = match e {
            verify::VerifyPlanError::Overlap {
                a,
                b,
                time,
                bytes: (start, end),
            } => format!(
                "{} and {} share bytes {start}..{end} while both are live at {}",
                name(a),
                name(b),
                describe_scope(&model, &lifetimes, time.checked_sub(1))
            ),
            verify::VerifyPlanError::OutOfArena { buffer, end, arena } => {
                format!(
                    "{} ends at byte {end}, beyond the arena of {arena} bytes",
                    name(buffer)
                )
            }
            verify::VerifyPlanError::Misaligned {
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
    })?;
    let declared_aliases = verified
        .declared_overlaps
        .iter()
        .filter_map(|d| {
            Some(DeclaredAlias {
                a: *buffer_tensors.get(d.a)?,
                b: *buffer_tensors.get(d.b)?,
                scope: d.time.checked_sub(1),
            })
        })
        .collect();
    let profile = plan::lower_bound(&problem);
    Ok(ModelPlan {
        model,
        tensors,
        lifetimes,
        problem,
        buffer_tensors,
        scratch,
        aliases,
        plan,
        profile,
        declared_aliases,
        persistent_bytes,
        persistent_raw_bytes,
        offline: options.offline,
    })
}
