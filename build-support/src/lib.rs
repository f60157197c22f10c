//! The `build.rs` side of stowplan, and the `stowplan` command-line tool (`src/bin/stowplan.rs`).
//!
//! A build script plans a model and writes the same module `stowplan::include_model!` expands
//! to, formatted with `prettyplease`, into `OUT_DIR`; the crate `include!`s it. The file starts
//! with an `@generated` header (tool version, model path relative to `Cargo.toml`, the model's
//! sha256, planner, lower bound and gap) and is byte-identical for the same inputs on any
//! machine. It is written only when its contents change.
//!
//! `Cargo.toml`:
//!
//! ```toml
//! [dependencies]
//! stowplan = "0.1"
//!
//! [build-dependencies]
//! stowplan-build = "0.1"
//! ```
//!
//! `build.rs`:
//!
//! ```no_run
//! fn main() {
//!     // On failure `generate` prints the reason as `cargo::error=` lines: Cargo shows each as
//!     // `error: <crate>@<version>: ...` and fails the build, with nothing else around it.
//!     let _ = stowplan_build::Config::new()
//!         .model("models/net.tflite")
//!         .budget(48 * 1024)
//!         .review_copy("src/generated/net.rs")
//!         .generate();
//! }
//! ```
//!
//! `fn main() -> Result<(), Box<dyn std::error::Error>>` with `.generate()?` works too: the
//! `cargo::error=` lines come first, then Cargo's dump of the script's output, where the error
//! reads as the same sentence ([`BuildError`]'s `Debug` is its `Display`).
//!
//! `src/main.rs`:
//!
//! ```ignore
//! // The module `net`, with its compile-time assertions, from the build script.
//! include!(concat!(env!("OUT_DIR"), "/net.rs"));
//!
//! fn main() {
//!     let mut arena = net::Arena::new();
//!     println!("{} bytes, lower bound {}", net::ARENA_BYTES, net::LOWER_BOUND_BYTES);
//! }
//! ```
//!
//! Every type a method of [`Config`] takes is named from this crate ([`Planner`],
//! [`OfflinePolicy`]); the planner crate behind it is an implementation detail:
//!
//! ```no_run
//! use stowplan_build::{Config, OfflinePolicy, Planner};
//!
//! let generated = Config::new()
//!     .model("models/person_detect_vela.tflite")
//!     .planner(Planner::Greedy) // TFLite Micro's own planner, byte for byte
//!     .offline(OfflinePolicy::Replan) // plan again instead of keeping Vela's offsets
//!     .align(64)
//!     .generate()?;
//! assert!(generated.arena_bytes >= generated.lower_bound_bytes);
//! # Ok::<(), stowplan_build::BuildError>(())
//! ```
//!
//! A **review copy** (`.review_copy(path)`) is a committed copy of the generated file. The
//! first build writes it (with a `cargo::warning`: commit it); every later build compares it
//! with the fresh output and, if they differ, fails with what changed (arena and state sizes,
//! slots moved, resized, added or removed, ops added, removed or changed) and how to accept it:
//! `STOWPLAN_BLESS=1 cargo build` rewrites it. A pull request that changes a model therefore
//! always shows the layout change as a diff.
//!
//! The `stowplan` command writes the same file without a build:
//! `stowplan generate models/net.tflite -o src/generated/net.rs --budget 49152`, run from the
//! crate's root, with the options of [`Config`] as flags (`stowplan --help`).
#![forbid(unsafe_code)]
#![allow(
    clippy::needless_doctest_main,
    reason = "the build.rs examples show a build script's whole file, `fn main` included"
)]

use std::fmt;
use std::path::{Path, PathBuf};

use stowplan_planner::codegen::{self, Codegen, ModelFile};
use stowplan_planner::graph::ShapeOverride;
use stowplan_planner::{Options, plan_model};

mod review;

/// What [`Config::offline`] does with an `OfflineMemoryAllocation` plan in the model.
/// Re-exported so that a build script names only this crate.
pub use stowplan_planner::OfflinePolicy;
/// The planners [`Config::planner`] takes (`Planner::Greedy` is TFLite Micro's own; the default,
/// `Auto`, is never worse than it). Re-exported so that a build script names only this crate.
pub use stowplan_planner::plan::Planner;

/// The variable that makes review copies be rewritten instead of compared.
pub const BLESS_VAR: &str = "STOWPLAN_BLESS";

/// Largest model file read.
const MAX_FILE_BYTES: u64 = (1 << 31) - 1;

/// Why generation failed.
///
/// Its `Debug` form is its `Display` text, so `fn main() -> Result<(), Box<dyn Error>>` with `?`
/// prints a sentence (`Error: review copy ... is stale ...`), not a struct.
#[non_exhaustive]
pub enum BuildError {
    /// No model was given.
    NoModel,
    /// An option is invalid.
    BadOption(String),
    /// The model cannot be read, planned or generated (including an arena over budget).
    Model {
        /// The model path as given.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The committed review copy differs from the fresh output.
    StaleReviewCopy {
        /// The review copy's path as given.
        path: String,
        /// What changed, one topic per line (arena and state sizes, slots moved, resized,
        /// added or removed, ops added, removed or changed).
        changes: Vec<String>,
    },
    /// A file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// A variable cargo sets for build scripts is missing.
    MissingEnv(&'static str),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoModel => {
                f.write_str("no model given: call Config::model(\"models/net.tflite\")")
            }
            Self::BadOption(m) => f.write_str(m),
            Self::Model { path, message } => write!(f, "{path}: {message}"),
            Self::StaleReviewCopy { path, changes } => {
                writeln!(f, "review copy {path} is stale; what changed:")?;
                for c in changes {
                    writeln!(f, "  {c}")?;
                }
                write!(
                    f,
                    "to accept the new plan, build with {BLESS_VAR}=1 (`{BLESS_VAR}=1 cargo build`) and commit the diff"
                )
            }
            Self::Io { path, error } => write!(f, "{}: {error}", path.display()),
            Self::MissingEnv(var) => write!(
                f,
                "{var} is not set: call generate() from a build script run by cargo"
            ),
        }
    }
}

impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for BuildError {}

/// Plans one model and writes its module; see the [crate docs](crate).
#[derive(Clone, Debug, Default)]
pub struct Config {
    model: Option<String>,
    budget: Option<u64>,
    options: Options,
    shapes: Vec<String>,
    name: Option<String>,
    runtime: Option<String>,
    review_copy: Option<String>,
    manifest_dir: Option<PathBuf>,
    out_dir: Option<PathBuf>,
    bless: Option<bool>,
    invoke: bool,
    fallback: Option<String>,
    op_marks: Option<String>,
    /// `Some(false)`: outputs kept off the inputs they consume ([`Self::overlap`]).
    overlap: Option<bool>,
    members: Vec<Config>,
    pipes: Vec<String>,
}

/// What [`Config::generate`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    /// The file in `OUT_DIR`.
    pub path: PathBuf,
    /// The generated module's name.
    pub module: String,
    /// Arena bytes.
    pub arena_bytes: u64,
    /// Lower bound bytes.
    pub lower_bound_bytes: u64,
    /// Bytes of the persistent region (the state kept across invocations; 0 for a model
    /// without state, whose `invoke` takes the arena only).
    pub persistent_bytes: u64,
    /// The `cargo::` lines printed for Cargo (what to watch).
    pub cargo_directives: Vec<String>,
}

impl Config {
    /// A configuration with the defaults: alignment 16, the default planner, no budget.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The model, relative to the crate's `Cargo.toml`.
    pub fn model(&mut self, path: impl Into<String>) -> &mut Self {
        self.model = Some(path.into());
        self
    }

    /// Fails generation if the arena needs more than `bytes`.
    pub fn budget(&mut self, bytes: u64) -> &mut Self {
        self.budget = Some(bytes);
        self
    }

    /// Alignment of every offset and size (a power of two; default 16).
    pub fn align(&mut self, bytes: u64) -> &mut Self {
        self.options.alignment = bytes;
        self
    }

    /// The planner.
    pub fn planner(&mut self, planner: Planner) -> &mut Self {
        self.options.planner = planner;
        self
    }

    /// A shape for a tensor with `-1` dimensions, as `T=DIMS` (`input=1x96x96x1`).
    pub fn shape(&mut self, spec: impl Into<String>) -> &mut Self {
        self.shapes.push(spec.into());
        self
    }

    /// Generate `invoke`, which runs the model's ops with the runtime's reference kernels (the
    /// `stowplan` dependency needs its feature `kernels`); an op without a kernel is an error.
    pub fn invoke(&mut self, yes: bool) -> &mut Self {
        self.invoke = yes;
        self
    }

    /// With [`Self::invoke`], `false` keeps every CONV_2D's and DEPTHWISE_CONV_2D's output off
    /// the input it consumes (by default with `invoke` an output may lie over it as far as the
    /// runtime's overlapped kernels allow: `stowplan_planner::Options::overlaps`). Without
    /// `invoke` nothing overlaps either way.
    pub fn overlap(&mut self, yes: bool) -> &mut Self {
        self.overlap = Some(yes);
        self
    }

    /// With [`Self::invoke`] and overlaps: the fewest output pixels each of the in-place
    /// driver's calls runs of a CONV_2D, DEPTHWISE_CONV_2D or pool whose output lies over its
    /// input (default `stowplan_planner::DEFAULT_CHUNK_PIXELS`, 2: a pixel pair of the blocked
    /// kernels). The output then lies `n − 1` output pixels further below the input than the
    /// least displacement the kernels allow; 1 plans the fewest bytes, each such op possibly
    /// one pixel a call (`stowplan_planner::Options::chunk_pixels`). 0 is taken as 1.
    pub fn chunk_pixels(&mut self, n: u64) -> &mut Self {
        self.options.chunk_pixels = n.max(1);
        self
    }

    /// With [`Self::invoke`]: the most bytes of constants folding may make (default
    /// `stowplan_planner::fold::DEFAULT_CAP`, 256 KiB; 0 folds nothing). Ops whose inputs are
    /// all constants are evaluated when the crate compiles, their outputs constants in flash;
    /// an op whose outputs would pass the cap runs on the device.
    pub fn fold_cap(&mut self, bytes: u64) -> &mut Self {
        self.options.fold_cap = Some(bytes);
        self
    }

    /// Leave tensors with a `-1` in `shape` or `shape_signature` out of the plan: the generated
    /// module describes them in `dynamic`, and their buffers come from a
    /// `stowplan::cache::BufferCache` at run time. Without it, `shape` is planned as TFLite
    /// Micro does and a `-1` left in it is an error.
    pub fn dynamic_cache(&mut self, yes: bool) -> &mut Self {
        self.options.dynamic_cache = yes;
        self
    }

    /// With [`Self::invoke`]: the path of a module (`"crate::my_ops"`) whose functions `op_N`
    /// run the ops without a kernel, each given the views `ops::op_N` returns.
    pub fn invoke_fallback(&mut self, path: impl Into<String>) -> &mut Self {
        self.fallback = Some(path.into());
        self
    }

    /// With [`Self::invoke`]: the path of a module (`"crate::marks"`) whose functions
    /// `op_begin(subgraph, op)` and `op_end(subgraph, op, arena)` the generated `invoke` calls
    /// just before and just after every op, the op's subgraph and index as integer literals and
    /// the arena's bytes as the op left them (`&[u8; N]`, taken as `&[u8]`): marks for
    /// a profiler or an instruction counter (`bench/firmware`'s `#[inline(never)]` functions,
    /// whose addresses the counter watches). Without it `invoke` calls nothing between ops.
    pub fn op_marks(&mut self, path: impl Into<String>) -> &mut Self {
        self.op_marks = Some(path.into());
        self
    }

    /// Honour (default) or replan an offline plan in the model.
    pub fn offline(&mut self, policy: OfflinePolicy) -> &mut Self {
        self.options.offline = policy;
        self
    }

    /// The generated module's name (default: from the file stem). The file is `OUT_DIR/<name>.rs`.
    pub fn name(&mut self, name: impl Into<String>) -> &mut Self {
        self.name = Some(name.into());
        self
    }

    /// The runtime crate's path in generated code, if it is renamed (default `::stowplan`).
    pub fn runtime_crate(&mut self, path: impl Into<String>) -> &mut Self {
        self.runtime = Some(path.into());
        self
    }

    /// A committed copy of the generated file, relative to `Cargo.toml`, kept in sync.
    pub fn review_copy(&mut self, path: impl Into<String>) -> &mut Self {
        self.review_copy = Some(path.into());
        self
    }

    /// The directory model paths are relative to (default `CARGO_MANIFEST_DIR`).
    pub fn manifest_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.manifest_dir = Some(dir.into());
        self
    }

    /// Whether to rewrite the review copy instead of comparing it (default: whether
    /// `STOWPLAN_BLESS=1` is set).
    pub fn bless(&mut self, bless: bool) -> &mut Self {
        self.bless = Some(bless);
        self
    }

    /// Where to write (default `OUT_DIR`).
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Makes this configuration a group: `model`'s configuration becomes one of several
    /// models that run one at a time and share one arena, as large as the largest model's (as
    /// `stowplan::include_models!`). The group's own configuration gives the module's `name`
    /// (default `models`), the `budget` (for the shared arena and every model's state), the
    /// runtime crate, the review copy and the directories; each member its model and its
    /// options. A member may not have a budget, a runtime crate, a review copy or members.
    ///
    /// ```no_run
    /// use stowplan_build::Config;
    ///
    /// let mut kws = Config::new();
    /// kws.model("models/kws.tflite").invoke(true);
    /// let mut cmd = Config::new();
    /// cmd.model("models/cmd.tflite").invoke(true);
    /// let generated = Config::new()
    ///     .name("audio")
    ///     .budget(64 * 1024)
    ///     .member(kws)
    ///     .member(cmd)
    ///     .review_copy("src/generated/audio.rs")
    ///     .generate()?;
    /// // The shared arena: the larger of the two.
    /// println!("{} bytes", generated.arena_bytes);
    /// # Ok::<(), stowplan_build::BuildError>(())
    /// ```
    pub fn member(&mut self, model: Config) -> &mut Self {
        self.members.push(model);
        self
    }

    fn root(&self) -> Result<PathBuf, BuildError> {
        match &self.manifest_dir {
            Some(d) => Ok(d.clone()),
            None => std::env::var_os("CARGO_MANIFEST_DIR")
                .map(PathBuf::from)
                .ok_or(BuildError::MissingEnv("CARGO_MANIFEST_DIR")),
        }
    }

    /// The generated file's text (header and module), without writing anything.
    ///
    /// # Errors
    ///
    /// [`BuildError`] if no model was given, an option is invalid, or the model cannot be read,
    /// planned within the budget, or generated.
    pub fn render(&self) -> Result<(String, Generated), BuildError> {
        if !self.members.is_empty() {
            return self.render_group();
        }
        if !self.pipes.is_empty() {
            return Err(BuildError::BadOption(
                "a pipe needs a group: give the configuration its models with `member`".into(),
            ));
        }
        let rel = self.model.clone().ok_or(BuildError::NoModel)?;
        let (bytes, plan, cg) = self.prepare()?;
        let model_err = |message: String| BuildError::Model {
            path: rel.clone(),
            message,
        };
        let module = cg.module.clone();
        let tokens = codegen::generate(&plan, &bytes, &cg).map_err(|e| model_err(e.to_string()))?;
        let file: syn::File = syn::parse2(tokens)
            .map_err(|e| model_err(format!("generated code does not parse (a bug): {e}")))?;
        let header = format!(
            "// @generated by stowplan-build {} from {rel} (sha256 {}). Do not edit.\n// planner {} (plan by {}{}), arena {} B, lower bound {} B, gap {:.2} %.\n",
            env!("CARGO_PKG_VERSION"),
            codegen::sha256_hex(&bytes),
            plan.plan.planner(),
            plan.plan.winner(),
            if plan.plan.proven_optimal() {
                ", proven optimal"
            } else {
                ""
            },
            plan.arena_bytes(),
            plan.lower_bound_bytes(),
            plan.gap_percent()
        );
        let text = format!("{header}\n{}", prettyplease::unparse(&file));
        let generated = Generated {
            path: PathBuf::from(format!("{module}.rs")),
            module,
            arena_bytes: plan.arena_bytes(),
            lower_bound_bytes: plan.lower_bound_bytes(),
            persistent_bytes: plan.persistent_bytes,
            cargo_directives: Vec::new(),
        };
        Ok((text, generated))
    }

    /// [`Config::render`] for a group (see [`Config::member`]).
    fn render_group(&self) -> Result<(String, Generated), BuildError> {
        if self.model.is_some() {
            return Err(BuildError::BadOption(
                "a group's models are its members: give the group no model of its own".into(),
            ));
        }
        let group = self.name.clone().unwrap_or_else(|| "models".to_owned());
        if syn::parse_str::<syn::Ident>(&group).is_err() {
            return Err(BuildError::BadOption(format!(
                "name {group:?} is not a Rust identifier"
            )));
        }
        let runtime: syn::Path = syn::parse_str(self.runtime.as_deref().unwrap_or("::stowplan"))
            .map_err(|e| {
                BuildError::BadOption(format!("runtime crate path {:?}: {e}", self.runtime))
            })?;
        let mut prepared = Vec::new();
        for m in &self.members {
            let what = m.model.as_deref().unwrap_or("a member");
            let refuse = |option: &str| {
                Err(BuildError::BadOption(format!(
                    "group {group}: {what} has its own {option}; a group has one, for all its models: give it to the group"
                )))
            };
            if m.budget.is_some() {
                return refuse("budget");
            }
            if m.runtime.is_some() {
                return refuse("runtime crate");
            }
            if m.review_copy.is_some() {
                return refuse("review copy");
            }
            if !m.members.is_empty() {
                return refuse("members");
            }
            if !m.pipes.is_empty() {
                return refuse("pipes");
            }
            let mut m = m.clone();
            m.manifest_dir = m.manifest_dir.or_else(|| self.manifest_dir.clone());
            prepared.push(m.prepare()?);
        }
        let group_err = |message: String| BuildError::Model {
            path: format!("group {group}"),
            message,
        };
        let names: Vec<String> = prepared.iter().map(|p| p.2.module.clone()).collect();
        let pipes = self
            .pipes
            .iter()
            .map(|s| stowplan_planner::pipeline::parse_pipe(s, &names))
            .collect::<Result<Vec<_>, _>>()
            .map_err(group_err)?;
        let joint = if pipes.is_empty() {
            None
        } else {
            let mut plans: Vec<stowplan_planner::ModelPlan> =
                prepared.iter().map(|p| p.1.clone()).collect();
            let planner = self
                .members
                .first()
                .map_or_else(Planner::default, |m| m.options.planner);
            let joint = stowplan_planner::pipeline::plan_pipeline(
                &mut plans,
                &names,
                &pipes,
                &stowplan_planner::plan::Settings::new(planner),
            )
            .map_err(group_err)?;
            for (p, plan) in prepared.iter_mut().zip(plans) {
                p.1 = plan;
            }
            Some(joint)
        };
        let members: Vec<codegen::group::Member<'_>> = prepared
            .iter()
            .map(|(bytes, plan, cg)| codegen::group::Member {
                plan,
                bytes,
                codegen: cg.clone(),
            })
            .collect();
        let tokens = codegen::group::generate_group(
            &group,
            &runtime,
            self.budget,
            &members,
            joint.as_ref().map(|j| (pipes.as_slice(), j)),
        )
        .map_err(|e| group_err(e.to_string()))?;
        let file: syn::File = syn::parse2(tokens).map_err(|e| BuildError::Model {
            path: format!("group {group}"),
            message: format!("generated code does not parse (a bug): {e}"),
        })?;
        let mut header = format!(
            "// @generated by stowplan-build {} for the group {group}. Do not edit.\n",
            env!("CARGO_PKG_VERSION")
        );
        let (mut shared, mut lower, mut state, mut separate) = (0u64, 0u64, 0u64, 0u64);
        for (bytes, plan, cg) in &prepared {
            header.push_str(&format!(
                "// {}: {} (sha256 {}), planner {} (plan by {}), arena {} B, lower bound {} B.\n",
                cg.module,
                cg.model_path,
                codegen::sha256_hex(bytes),
                plan.plan.planner(),
                plan.plan.winner(),
                plan.arena_bytes(),
                plan.lower_bound_bytes()
            ));
            shared = shared.max(plan.arena_bytes());
            lower = lower.max(plan.lower_bound_bytes());
            state = state.saturating_add(plan.persistent_bytes);
            separate = separate.saturating_add(plan.arena_bytes());
        }
        header.push_str(&format!(
            "// shared arena {shared} B (separate arenas {separate} B), state {state} B.\n"
        ));
        let text = format!("{header}\n{}", prettyplease::unparse(&file));
        let generated = Generated {
            path: PathBuf::from(format!("{group}.rs")),
            module: group,
            arena_bytes: shared,
            lower_bound_bytes: lower,
            persistent_bytes: state,
            cargo_directives: Vec::new(),
        };
        Ok((text, generated))
    }

    /// For a group: a model reads another's output, left in place (`"kws.output_0 ->
    /// cmd.input_0"`: models by their module names, outputs and inputs by position; the writer
    /// an earlier member than the reader). The group is then planned on one timeline: the
    /// hand-over stays where the reader reads it and everything else is shared, an arena of at
    /// most the smaller of the arenas' sum and the larger arena plus the bytes handed over.
    pub fn pipe(&mut self, spec: impl Into<String>) -> &mut Self {
        self.pipes.push(spec.into());
        self
    }

    /// Reads and plans this configuration's model: the file, the plan and how to generate it.
    fn prepare(&self) -> Result<(Vec<u8>, stowplan_planner::ModelPlan, Codegen), BuildError> {
        let rel = self.model.clone().ok_or(BuildError::NoModel)?;
        let model_err = |message: String| BuildError::Model {
            path: rel.clone(),
            message,
        };
        if Path::new(&rel).is_absolute() {
            return Err(model_err(
                "absolute model paths only work on this machine; use a path relative to Cargo.toml"
                    .into(),
            ));
        }
        let full = self.root()?.join(&rel);
        let len = std::fs::metadata(&full)
            .map_err(|e| model_err(format!("cannot read the model: {e}")))?
            .len();
        if len > MAX_FILE_BYTES {
            return Err(model_err(format!(
                "{len} bytes is more than the limit of {MAX_FILE_BYTES}"
            )));
        }
        let bytes =
            std::fs::read(&full).map_err(|e| model_err(format!("cannot read the model: {e}")))?;
        let mut options = self.options.clone();
        for s in &self.shapes {
            let o: ShapeOverride = s
                .parse()
                .map_err(|e| BuildError::BadOption(format!("shape {s:?}: {e}")))?;
            options.shapes.push(o);
        }
        let module = match &self.name {
            Some(n) => n.clone(),
            None => codegen::names::module_name(
                &Path::new(&rel)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            ),
        };
        if syn::parse_str::<syn::Ident>(&module).is_err() {
            return Err(BuildError::BadOption(format!(
                "name {module:?} is not a Rust identifier"
            )));
        }
        let runtime: syn::Path = syn::parse_str(self.runtime.as_deref().unwrap_or("::stowplan"))
            .map_err(|e| {
                BuildError::BadOption(format!("runtime crate path {:?}: {e}", self.runtime))
            })?;
        let mut options = options.with_invoke(self.invoke);
        if let Some(on) = self.overlap {
            options.overlaps = on && self.invoke;
        }
        let plan = plan_model(&bytes, &options).map_err(|e| model_err(e.to_string()))?;
        let fallback = self
            .fallback
            .as_deref()
            .map(|p| {
                syn::parse_str::<syn::Path>(p)
                    .map_err(|e| BuildError::BadOption(format!("fallback path {p:?}: {e}")))
            })
            .transpose()?;
        let op_marks = self
            .op_marks
            .as_deref()
            .map(|p| {
                let path = syn::parse_str::<syn::Path>(p).map_err(|e| {
                    BuildError::BadOption(format!(
                        "op_marks path {p:?}: {e}; expected the path of a module, such as \"crate::marks\""
                    ))
                })?;
                if self.invoke {
                    Ok(path)
                } else {
                    Err(BuildError::BadOption(format!(
                        "op_marks {p:?} needs invoke(true): the marks are calls between the ops of the generated `invoke`"
                    )))
                }
            })
            .transpose()?;
        let cg = Codegen {
            module: module.clone(),
            runtime,
            model_path: rel.clone(),
            model_file: ModelFile::ManifestRelative(rel.clone()),
            budget: self.budget,
            invoke: self.invoke,
            fallback,
            op_marks,
        };
        Ok((bytes, plan, cg))
    }

    /// Plans the model and writes `OUT_DIR/<name>.rs` (only if its contents changed), checks or
    /// blesses the review copy, and prints `cargo::rerun-if-changed` for the model and review
    /// copy and `cargo::rerun-if-env-changed` for every variable read.
    ///
    /// A review copy that does not exist yet is written, with a `cargo::warning` saying so (commit
    /// it); one that differs from the fresh output fails the build with a summary of what changed
    /// and how to accept it.
    ///
    /// # Errors
    ///
    /// [`BuildError`]: see [`Config::render`]; also a stale review copy, a failed write, or a
    /// missing `OUT_DIR`. On failure the error's text is also printed as `cargo::error=` lines,
    /// one per line, so Cargo shows it as `error: <crate>@<version>: ...` and fails the build
    /// even when the build script ignores the result; returning it from `main` with `?` prints it
    /// once more (as a sentence: `BuildError`'s `Debug` is its `Display`).
    pub fn generate(&self) -> Result<Generated, BuildError> {
        let mut directives = Vec::new();
        let result = self.generate_into(&mut directives);
        if let Err(e) = &result {
            for line in e.to_string().lines().filter(|l| !l.trim().is_empty()) {
                println!("cargo::error={line}");
            }
        }
        result
    }

    fn generate_into(&self, directives: &mut Vec<String>) -> Result<Generated, BuildError> {
        for model in self
            .model
            .iter()
            .chain(self.members.iter().filter_map(|m| m.model.as_ref()))
        {
            directives.push(format!("cargo::rerun-if-changed={model}"));
        }
        if let Some(copy) = &self.review_copy {
            directives.push(format!("cargo::rerun-if-changed={copy}"));
        }
        if self.bless.is_none() {
            directives.push(format!("cargo::rerun-if-env-changed={BLESS_VAR}"));
        }
        // Printed first, so a failed build still reruns when the model is fixed.
        for d in directives.iter() {
            println!("{d}");
        }
        let (text, mut generated) = self.render()?;
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(BuildError::MissingEnv("OUT_DIR"))?,
        };
        let path = out_dir.join(&generated.path);
        write_if_changed(&path, &text)?;
        generated.path = path;
        if let Some(copy) = &self.review_copy {
            let copy_path = self.root()?.join(copy);
            let bless = self
                .bless
                .unwrap_or_else(|| std::env::var_os(BLESS_VAR).is_some_and(|v| v == "1"));
            let committed = match std::fs::read_to_string(&copy_path) {
                Ok(t) => Some(t),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(error) => {
                    return Err(BuildError::Io {
                        path: copy_path,
                        error,
                    });
                }
            };
            if bless || committed.is_none() {
                if let Some(parent) = copy_path.parent() {
                    std::fs::create_dir_all(parent).map_err(|error| BuildError::Io {
                        path: parent.to_path_buf(),
                        error,
                    })?;
                }
                write_if_changed(&copy_path, &text)?;
                if committed.is_none() {
                    let warning = format!(
                        "cargo::warning=review copy {copy} did not exist: wrote it; commit it, and later builds fail if the plan changes"
                    );
                    println!("{warning}");
                    directives.push(warning);
                }
            } else if let Some(old) = committed
                && old != text
            {
                return Err(BuildError::StaleReviewCopy {
                    path: copy.clone(),
                    changes: review::summary(&old, &text),
                });
            }
        }
        generated.cargo_directives = std::mem::take(directives);
        Ok(generated)
    }
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), BuildError> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|error| BuildError::Io {
        path: path.to_path_buf(),
        error,
    })
}

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
