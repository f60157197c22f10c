//! Every decision of stowplan: read a TensorFlow Lite model, compute its tensors' lifetimes,
//! plan the arena, prove the plan correct and report it.
//!
//! This is a plain library, tested without a compiler in the loop; `stowplan-macros` and
//! `stowplan-build` are thin shells over it. **Its API is internal to stowplan and not
//! semver-stable.**
//!
//! The layers, in order (each only uses the ones before it):
//!
//! 1. [`tflite`]: the format: the verified flatbuffer view, validation of every index and
//!    zero point, the owned model types and the errors that name them ([`ReadModelError`]),
//!    the model builder and the metadata writer;
//! 2. [`graph`]: each tensor's shape, size, kind and placement (arena, persistent, none);
//!    [`macs`]: each op's multiply-accumulates, from those shapes;
//! 3. [`lifetime`]: TensorFlow Lite Micro's timeline over all subgraphs;
//! 4. [`quant`] and [`ops`]: TFLM's `Prepare` arithmetic, and one module per op kind (what it
//!    reads and writes, its checks, its kernel call, whether it works in place, what its
//!    kernels do with the output over the input they consume, the scratch TFLM's kernel
//!    requests), in one table; [`persistent`]: the persistent region's layout, which lowering
//!    reads; [`kernel_order`]: the pairs of outputs and the inputs they may cover, from the
//!    ops' declarations;
//! 5. [`plan`]: the abstract [`plan::Problem`] and its planners, with the lower bound (nothing
//!    of TFLite);
//! 6. [`verify`]: the independent proof that a plan is correct;
//! 7. [`arena`]: a model's arena as a [`plan::Problem`] (in-place ops merged, kernel scratch,
//!    offline offsets), and plan buffers back to the model's names; [`state`]: plans the
//!    persistent region (variable tensors, resource variables, kernel state, flags);
//! 8. [`emit`], [`codegen`], [`embed`]: reports (text table, JSON, SVG), the generated Rust
//!    module (with `invoke`, whose driver lowers each op through its module), the plan written
//!    into the model for TFLM.
//!
//! No module imports one that imports it back (a test of `stowplan-tests`,
//! `tests/tests/import_circles.rs`, fails on a circle and names it).
//!
//! [`plan_model`] runs them in this order: read the model, size its tensors, compute their
//! lifetimes, make the arena problem, run the planner, verify the plan, name what failed.
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

pub mod arena;
pub mod choice;
pub mod codegen;
pub mod embed;
pub mod emit;
mod error;
pub mod fold;
pub mod graph;
pub mod kernel_order;
// The runtime's kernels, compiled from the very same source files for the host: folding
// evaluates ops with them, so a folded constant is the bytes the device would compute (the
// runtime crate cannot be a dependency: it depends on the macros, which depend on this crate).
// They are linted under the runtime's rules, where they live; here only what folding calls is
// used. `src/runtime_kernels` is a symbolic link to `runtime/src/kernels`, so that the planner's
// package (which `cargo package` fills through the link) carries them too.
#[path = "runtime_kernels/mod.rs"]
#[allow(
    dead_code,
    unused_imports,
    unused_extern_crates,
    clippy::indexing_slicing
)]
mod kernels;
// TFLM's `(multiplier, shift)` pair, declared beside the kernels as in the runtime.
#[path = "runtime_kernels/shared/requant_pair.rs"]
mod requant_pair;
// The instructions the kernels' blocked loops use, declared beside them as in the runtime (its
// portable semantics here: the planner runs on the host).
#[cfg(test)]
#[path = "runtime_kernels/shared/dsp.rs"]
#[allow(dead_code, unused_extern_crates)]
mod dsp;
pub mod lifetime;
pub mod macs;
pub mod ops;
mod overlap_proof;
#[cfg(test)]
mod pairing_tests;
pub mod persistent;
pub mod pipeline;
pub mod plan;
pub mod problem_csv;
pub mod quant;
mod spread;
pub mod state;
pub mod tflite;
pub mod verify;

pub use error::{OpDesc, PlanArenaError, ReadModelError, TensorDesc};
pub use overlap_proof::check_overlap;

use graph::{ShapeOverride, TensorInfo};
use lifetime::Lifetimes;
use plan::{LiveProfile, Plan, Planner, Problem};
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
    /// Alignment of every offset and size (a power of two). TFLite Micro uses 16. A smaller
    /// alignment than the model's widest element type is raised to that type's size, so that
    /// every tensor's typed view is aligned (an int32 tensor at offset 2 could not be one).
    pub alignment: u64,
    /// Shapes for tensors whose `shape` has `-1` dimensions.
    pub shapes: Vec<ShapeOverride>,
    /// What to do with an offline plan in the model.
    pub offline: OfflinePolicy,
    /// For the `search` and `auto` planners: stop at the first plan whose arena is at most this
    /// many bytes ([`plan::Settings::capacity`]).
    pub capacity: Option<u64>,
    /// Kernel scratch buffers to plan with the tensors ([`arena`]).
    pub kernel_scratch: arena::KernelScratch,
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
    /// Evaluate ops whose inputs are all constants when the crate compiles, creating at most
    /// this many bytes of constants ([`fold`]); `None` (the default, as TFLite Micro runs every
    /// op) folds nothing. Generated `invoke` turns it on with [`fold::DEFAULT_CAP`].
    pub fold_cap: Option<u64>,
    /// Let a convolution's, pool's or elementwise op's output lie over the input it consumes, as
    /// far as the runtime's one-buffer kernels (`stowplan::kernels::overlap`) allow (each op's
    /// module declares which of its ops, from what displacement, [`ops::Overwrite`]; the pairs
    /// are [`kernel_order`]'s): the plan may then go below the tensor-level bound
    /// ([`ModelPlan::tensor_bound_bytes`]).
    /// Only that driver keeps the order the pairs rely on, so this is off by default (TFLite
    /// Micro's kernels, `embed`, a user's fallback iterate their own way) and on with generated
    /// `invoke` ([`Options::with_invoke`]; `overlap = false` turns it off again), whose
    /// ops then run on one view of both tensors.
    pub overlaps: bool,
    /// With [`Options::overlaps`]: the fewest output pixels in each chunk the runtime's
    /// in-place driver runs of an overlapped window op (CONV_2D, DEPTHWISE_CONV_2D, a pool).
    /// At its least displacement such an op may run one pixel a call, which the blocked kernels
    /// cannot pair; the planner keeps its output `chunk_pixels − 1` output pixels further below
    /// its input than that, at most as many bytes more at the arena's peak. 1 plans every pair
    /// at its least displacement (the fewest bytes); the default is [`DEFAULT_CHUNK_PIXELS`].
    pub chunk_pixels: u64,
}

/// [`Options::chunk_pixels`]'s default: two output pixels a chunk, a pixel pair of the blocked
/// kernels.
pub const DEFAULT_CHUNK_PIXELS: u64 = 2;

impl Default for Options {
    fn default() -> Self {
        Self {
            planner: Planner::default(),
            alignment: 16,
            shapes: Vec::new(),
            offline: OfflinePolicy::default(),
            capacity: None,
            kernel_scratch: arena::KernelScratch::None,
            dynamic_cache: false,
            alias_reshapes: false,
            search_steps: plan::DEFAULT_SEARCH_STEPS,
            fold_cap: None,
            overlaps: false,
            chunk_pixels: DEFAULT_CHUNK_PIXELS,
        }
    }
}

impl Options {
    /// These options for a module with (`invoke == true`) or without generated `invoke`: with
    /// it, reshape-like ops share their input's bytes where they can ([`Options::alias_reshapes`])
    /// and the scratch stowplan's kernels need is planned with the tensors
    /// ([`arena::KernelScratch::Stowplan`]), and ops whose inputs are all constants are folded
    /// ([`Options::fold_cap`], [`fold::DEFAULT_CAP`] unless set), and convolutions may write
    /// their outputs over the inputs they consume ([`Options::overlaps`]); without it nothing is
    /// folded or overlapped.
    #[must_use]
    pub fn with_invoke(self, invoke: bool) -> Self {
        if invoke {
            Self {
                alias_reshapes: true,
                kernel_scratch: arena::KernelScratch::Stowplan,
                fold_cap: self.fold_cap.or(Some(fold::DEFAULT_CAP)),
                overlaps: true,
                ..self
            }
        } else {
            // Nothing runs the model's ops: nothing to fold, no kernel order to rely on.
            Self {
                fold_cap: None,
                overlaps: false,
                ..self
            }
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
    pub scratch: Vec<arena::ScratchBuffer>,
    /// Reshape-like ops whose output shares its input's buffer ([`Options::alias_reshapes`]):
    /// `(input, output)`, sorted; the output is not in `buffer_tensors` (its buffer is the
    /// input's).
    pub aliases: Vec<(TensorId, TensorId)>,
    /// The problem buffer of each tensor, by tensor id (an aliased output has its input's),
    /// `None` for tensors not in the arena.
    pub tensor_buffers: Vec<Option<u32>>,
    /// The verified plan.
    pub plan: Plan,
    /// Live bytes over time: the tensor-level lower bound and the peak.
    pub profile: LiveProfile,
    /// The bound the arena is measured against: the overlap-aware bound
    /// ([`plan::proven_bound`]) when the problem has overlaps ([`Options::overlaps`]), else the
    /// tensor-level one (`profile.aligned_bytes`).
    pub bound: u64,
    /// Overlaps the offline plan declares on purpose (accepted, reported).
    pub declared_aliases: Vec<DeclaredAlias>,
    /// The persistent region: variable tensors, resource variables, flags ([`state`]).
    pub state: state::State,
    /// Bytes of the persistent region (`state.bytes`: every item rounded up to the alignment).
    pub persistent_bytes: u64,
    /// Bytes of its items without rounding.
    pub persistent_raw_bytes: u64,
    /// The offline plan policy that applied.
    pub offline: OfflinePolicy,
    /// What constant folding did ([`Options::fold_cap`]; empty when it was off).
    pub folding: fold::Folding,
}

impl ModelPlan {
    /// The arena: bytes of the planned region.
    #[must_use]
    pub const fn arena_bytes(&self) -> u64 {
        self.plan.arena_bytes()
    }

    /// The lower bound of the arena: the most bytes (sizes rounded up to the alignment) live at
    /// once, with each output that may lie over the input it consumes counted at the pair's
    /// smallest span ([`Options::overlaps`]; without overlaps, the tensor-level bound).
    #[must_use]
    pub const fn lower_bound_bytes(&self) -> u64 {
        self.bound
    }

    /// The tensor-level lower bound: the most bytes live at once, every tensor in bytes of its
    /// own (no plan of whole tensors can go lower).
    #[must_use]
    pub const fn tensor_bound_bytes(&self) -> u64 {
        self.profile.aligned_bytes
    }

    /// Outputs planned over the input they consume: `(input, output)` tensor pairs sharing
    /// bytes in the plan, in op order.
    #[must_use]
    pub fn overlapped(&self) -> Vec<(TensorId, TensorId)> {
        let offsets = self.plan.offsets();
        let buffers = self.problem.buffers();
        self.problem
            .overlaps()
            .iter()
            .filter(|o| {
                let span = |b: usize| {
                    let size = buffers
                        .get(b)
                        .map_or(0, |b| self.problem.aligned_size(b.size));
                    let at = offsets.get(b).copied().unwrap_or(0);
                    (at, at.saturating_add(size), size)
                };
                let ((a0, a1, sa), (b0, b1, sb)) = (span(o.output), span(o.input));
                sa > 0 && sb > 0 && a0 < b1 && b0 < a1
            })
            .filter_map(|o| {
                Some((
                    *self.buffer_tensors.get(o.input)?,
                    *self.buffer_tensors.get(o.output)?,
                ))
            })
            .collect()
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
        // An aliased output lives in its input's buffer.
        let buffer = self.tensor_buffers.get(tensor.get()).copied().flatten()?;
        self.plan.offsets().get(buffer as usize).copied()
    }

    /// Each kernel scratch buffer ([`ModelPlan::scratch`]) with its offset in the arena.
    pub fn scratch_offsets(&self) -> impl Iterator<Item = (&arena::ScratchBuffer, Option<u64>)> {
        let offsets = self.plan.offsets();
        self.scratch.iter().enumerate().map(move |(i, s)| {
            let offset = self
                .buffer_tensors
                .len()
                .checked_add(i)
                .and_then(|b| offsets.get(b))
                .copied();
            (s, offset)
        })
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
        self.lifetimes.describe(&self.model, scope)
    }
}

/// The search budget of a problem with overlaps ([`Options::overlaps`]) when
/// [`Options::search_steps`] is left at its default: along chains of pairs the overlap-aware
/// bound is not tight (person_detect's plan, 36,896 bytes, 16 above it, is what the chain of pairs
/// at its ops 1 to 3 allows), and the
/// search would spend [`plan::DEFAULT_SEARCH_STEPS`] (minutes in a debug build of the macro)
/// trying to reach it. 2^22 steps: well under a second.
pub const OVERLAP_SEARCH_STEPS: u64 = 1 << 22;

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
    let honour = options.offline == OfflinePolicy::Honour;
    let mut model = tflite::read_model(bytes)?;

    let mut tensors = graph::tensor_infos(&model, &options.shapes, honour, options.dynamic_cache)?;
    let folding = match options.fold_cap {
        Some(cap) => {
            let folding = fold::fold(&mut model, &tensors, bytes, cap);
            if !folding.folded.is_empty() {
                // Folded outputs are constants now: not planned.
                tensors =
                    graph::tensor_infos(&model, &options.shapes, honour, options.dynamic_cache)?;
            }
            folding
        }
        None => fold::Folding::default(),
    };
    // Never below the widest element planned: each tensor's typed view needs its offset
    // aligned to its element size.
    let widest = model
        .tensors
        .iter()
        .zip(&tensors)
        .filter(|(_, info)| {
            matches!(
                info.placement,
                graph::Placement::Arena | graph::Placement::Persistent
            )
        })
        .filter_map(|(t, _)| t.dtype.element_bytes())
        .filter(|b| b.is_power_of_two())
        .max()
        .unwrap_or(1);
    let options = &Options {
        alignment: options.alignment.max(widest),
        ..options.clone()
    };
    let lifetimes = lifetime::lifetimes(&model)?;
    let arena = arena::problem(
        &model,
        &tensors,
        &lifetimes,
        &arena::Rules {
            alignment: options.alignment,
            kernel_scratch: options.kernel_scratch,
            alias_reshapes: options.alias_reshapes,
        },
    )?;
    let mut arena = arena;
    let profile = plan::lower_bound(&arena.problem);
    let mut bound = profile.aligned_bytes;
    // Each pair's preferred displacement (`spread`), once the problem has them.
    let mut preferred = Vec::new();
    if options.overlaps {
        let (pairs, spacings): (Vec<_>, Vec<_>) = kernel_order::pairs(
            &model,
            bytes,
            &tensors,
            &lifetimes,
            &arena.problem,
            &arena.tensor_buffers,
            &arena.buffer_tensors,
            &ops::overwrite_of,
        )
        .into_iter()
        .unzip();
        // A window op's pair `chunk_pixels − 1` output pixels further apart than its least
        // displacement: every chunk of its driver then holds `chunk_pixels` pixels or more.
        let extra = i64::try_from(options.chunk_pixels.max(1) - 1).unwrap_or(i64::MAX);
        let pairs: Vec<plan::Overlap> = pairs
            .into_iter()
            .zip(&spacings)
            .map(|(pair, s)| {
                let d = pair
                    .min_displacement
                    .saturating_add(s.pixel.saturating_mul(extra))
                    .min(i64::try_from(plan::MAX_BYTES).unwrap_or(i64::MAX));
                plan::Overlap::new(pair.output, pair.input, d)
            })
            .collect();
        // A problem whose times are too late for split times keeps whole-tensor planning.
        if !pairs.is_empty()
            && let Ok(p) = plan::Problem::with_overlaps(
                arena.problem.buffers().to_vec(),
                options.alignment,
                pairs,
            )
        {
            bound = plan::proven_bound(&p);
            arena.problem = p;
            preferred = spacings.iter().map(|s| s.preferred).collect();
        }
    }
    // Along chains of pairs (an op's output over its input, itself over the next op's output)
    // the overlap-aware bound is not tight, so the search may spend its whole budget failing to
    // reach it: with pairs, the default budget is `OVERLAP_SEARCH_STEPS`.
    let search_steps = if arena.problem.overlaps().is_empty()
        || options.search_steps != plan::DEFAULT_SEARCH_STEPS
    {
        options.search_steps
    } else {
        OVERLAP_SEARCH_STEPS
    };
    let plan = plan::run_with(
        &arena.problem,
        &plan::Settings {
            planner: options.planner,
            capacity: options.capacity,
            search_steps,
        },
    );
    let plan = spread::spread(&arena.problem, plan, &preferred, honour);
    let verified = verify::verify(&arena.problem, &plan, honour)
        .map_err(|e| arena.unverified(&model, &lifetimes, e))?;
    overlap_proof::check(&overlap_proof::Planned {
        model: &model,
        bytes,
        tensors: &tensors,
        problem: &arena.problem,
        plan: &plan,
        buffer_tensors: &arena.buffer_tensors,
    })
    .map_err(|reason| PlanArenaError::Unverified { reason })?;
    let declared_aliases = arena.declared_aliases(&verified);
    let state = state::plan_state(&model, bytes, &tensors, options.alignment)?;
    let arena::ArenaProblem {
        problem,
        buffer_tensors,
        scratch,
        aliases,
        tensor_buffers,
    } = arena;
    Ok(ModelPlan {
        model,
        tensors,
        lifetimes,
        problem,
        buffer_tensors,
        scratch,
        aliases,
        tensor_buffers,
        plan,
        profile,
        bound,
        declared_aliases,
        persistent_bytes: state.bytes,
        persistent_raw_bytes: state.raw_bytes,
        state,
        offline: options.offline,
        folding,
    })
}
