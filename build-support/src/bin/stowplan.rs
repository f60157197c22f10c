//! `stowplan`: plan a TFLite model's arena (or a MiniMalloc CSV problem) and report it.
//!
//! Every failure is one line on stderr starting with `error:` and a non-zero exit status:
//! 1 when the input cannot be planned, 2 for a usage mistake.
#![forbid(unsafe_code)]

use std::io::Write;
use std::process::ExitCode;

use stowplan_planner::arena::KernelScratch;
use stowplan_planner::graph::ShapeOverride;
use stowplan_planner::plan::{self, Planner};
use stowplan_planner::{OfflinePolicy, Options, emit, plan_model, problem_csv};

const USAGE: &str = "\
stowplan: plan the memory of a TensorFlow Lite model at build time

usage:
  stowplan plan MODEL.tflite [options]
  stowplan plan --problem FILE.csv [options]
  stowplan embed MODEL.tflite -o OUT.tflite [--planner P] [--shape T=DIMS]... [--steps N]
      writes a copy of the model with the plan as its OfflineMemoryAllocation entry, which
      stock TensorFlow Lite Micro honours (alignment 16; an existing entry is replaced)
  stowplan group MODEL.tflite MODEL.tflite... [--pipe 'a.output_0 -> b.input_0']...
        [--budget SIZE] [--invoke] [options]
      plans models that run one at a time and share one arena (include_models!): each model's
      report (its part of the plan), then the shared arena against the separate ones and the
      budget; with --pipe, the group on one timeline; --json and --svg as for plan
  stowplan generate MODEL.tflite [-o NET.rs] [generate options]
      writes the module build.rs writes (stowplan_build::Config), byte for byte, to NET.rs or
      stdout: run it from the crate's root (MODEL relative to its Cargo.toml, as in build.rs);
      with several models, a group's module (Config::member: --budget, --name and --runtime
      for the group, the other options for each model; --pipe 'a.output_0 -> b.input_0')
  stowplan macs MODEL.tflite [--shape T=DIMS]... [--json]
      each op's multiply-accumulates: output elements x kernel height x kernel width x input
      channels per group (CONV_2D, DEPTHWISE_CONV_2D), output elements x accumulation depth
      (FULLY_CONNECTED), none for other ops; and their total

generate options (each one of Config's):
  --budget SIZE      fail if arena + state need more: bytes, or 48KiB, '1.5 MiB' (KiB, MiB)
  --align N          alignment of every offset and size and of the arena (default 16)
  --planner P        as below
  --name NAME        the module's name (default: from the file stem)
  --runtime PATH     the runtime crate's path in generated code (default ::stowplan)
  --shape T=DIMS     as below; repeatable
  --offline MODE     honour (default) or replan
  --dynamic MODE     plan (default) or cache
  --invoke           generate `invoke` (the runtime's kernels)
  --fallback PATH    with --invoke: the module whose op_N functions run ops without a kernel
  --op-marks PATH    with --invoke: call PATH::op_begin(subgraph, op) and PATH::op_end(subgraph,
                     op, arena) around every op (marks for a profiler or an instruction counter)
  --no-overlap       with --invoke: keep every output off the input it consumes (overlap = false)
  --chunk-pixels N   with --invoke: as for plan (Config::chunk_pixels)
  --manifest-dir DIR the directory MODEL is relative to (default: the current one)

options:
  --planner P        auto (default) | search | greedy | best-fit | conflicts | lifetime |
                     urgency | linear
  --capacity N       search for a plan whose arena is at most N bytes; fail if none is found
                     within the search budget
  --steps N          search budget in steps, units of work (default 1000000000); the same
                     steps give the same plan on every machine
  --svg FILE         also write a picture of the plan to FILE
  --align N          alignment of every offset and size, a power of two (default 16 for
                     models, 1 for problems)
  --shape T=DIMS     shape for a tensor with -1 dimensions; T is a tensor index in subgraph 0
                     or a tensor name (split at the last '='), DIMS like 1x96x96x1; repeatable
  --offline MODE     honour (default) or replan an OfflineMemoryAllocation plan in the model
  --dynamic MODE     plan (default: -1 dimensions are an error, shape_signature ignored) or
                     cache (tensors with -1 dimensions are left out, served at run time)
  --scratch KIND     kernel scratch to plan with the tensors: none (default), tflm (the
                     requests of TFLite Micro's reference kernels; always on for embed) or
                     stowplan (the runtime's kernels' working memory, as generated `invoke`
                     plans it)
  --alias-reshapes   let RESHAPE/SQUEEZE/EXPAND_DIMS share their input's bytes where it has no
                     later reader (as generated `invoke` does; never with embed)
  --overlaps         let a CONV_2D's or DEPTHWISE_CONV_2D's output lie over the input it
                     consumes, as far as the runtime's overlapped driver allows (the report
                     adds the tensor-level bound; never with embed)
  --chunk-pixels N   with --overlaps: such an output lies N - 1 output pixels further below its
                     input than the least displacement, so the driver runs N pixels or more a
                     call (default 2, a pixel pair; 1: the least displacement, fewest bytes)
  --fold N           evaluate ops whose inputs are all constants when planning, creating at
                     most N bytes of constants (as generated `invoke` does with 262144; never
                     with embed); the report lists what was folded and what was not
  --json             one JSON object on stdout instead of the table
  -h, --help         this text
  -V, --version      the version
";

/// Largest file read: the flatbuffer format's limit.
const MAX_FILE_BYTES: u64 = (1 << 31) - 1;

enum Failure {
    Usage(String),
    Plan(String),
}

struct Args {
    model: Option<String>,
    problem: Option<String>,
    planner: Planner,
    align: Option<u64>,
    shapes: Vec<ShapeOverride>,
    offline: OfflinePolicy,
    json: bool,
    capacity: Option<u64>,
    steps: u64,
    svg: Option<String>,
    scratch: KernelScratch,
    dynamic_cache: bool,
    alias_reshapes: bool,
    fold_cap: Option<u64>,
    overlaps: bool,
    chunk_pixels: u64,
}

impl Args {
    /// The planning options for a model (alignment 16 unless given).
    fn model_options(&self) -> Options {
        Options {
            planner: self.planner,
            alignment: self.align.unwrap_or(16),
            shapes: self.shapes.clone(),
            offline: self.offline,
            capacity: self.capacity,
            search_steps: self.steps,
            kernel_scratch: self.scratch,
            dynamic_cache: self.dynamic_cache,
            alias_reshapes: self.alias_reshapes,
            fold_cap: self.fold_cap,
            overlaps: self.overlaps,
            chunk_pixels: self.chunk_pixels,
        }
    }
}

fn parse(mut it: impl Iterator<Item = String>) -> Result<Option<Args>, Failure> {
    let usage = |m: String| Failure::Usage(m);
    let mut args = Args {
        model: None,
        problem: None,
        planner: Planner::default(),
        align: None,
        shapes: Vec::new(),
        offline: OfflinePolicy::default(),
        json: false,
        capacity: None,
        steps: plan::DEFAULT_SEARCH_STEPS,
        svg: None,
        scratch: KernelScratch::None,
        dynamic_cache: false,
        alias_reshapes: false,
        overlaps: false,
        fold_cap: None,
        chunk_pixels: stowplan_planner::DEFAULT_CHUNK_PIXELS,
    };
    let value = |it: &mut dyn Iterator<Item = String>, flag: &str| {
        it.next()
            .ok_or_else(|| usage(format!("{flag} needs a value; see stowplan --help")))
    };
    while let Some(arg) = it.next() {
        let (flag, inline) = split_flag(&arg);
        let take = |it: &mut dyn Iterator<Item = String>| match inline.clone() {
            Some(v) => Ok(v),
            None => value(it, &flag),
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(None),
            "--planner" => {
                args.planner = take(&mut it)?
                    .parse()
                    .map_err(|e: plan::UnknownPlannerError| usage(e.to_string()))?;
            }
            "--align" => {
                let v = take(&mut it)?;
                let n = v
                    .parse::<u64>()
                    .ok()
                    .filter(|n| n.is_power_of_two())
                    .ok_or_else(|| {
                        usage(format!("--align {v}: expected a power of two such as 16"))
                    })?;
                args.align = Some(n);
            }
            "--shape" => {
                let v = take(&mut it)?;
                args.shapes
                    .push(v.parse().map_err(|e: stowplan_planner::ReadModelError| {
                        usage(format!("--shape {v}: {e}"))
                    })?);
            }
            "--offline" => {
                args.offline = match take(&mut it)?.as_str() {
                    "honour" | "honor" => OfflinePolicy::Honour,
                    "replan" => OfflinePolicy::Replan,
                    other => {
                        return Err(usage(format!(
                            "--offline {other}: expected honour or replan"
                        )));
                    }
                };
            }
            "--chunk-pixels" => {
                let v = take(&mut it)?;
                args.chunk_pixels = chunk_pixels(&v)?;
            }
            "--fold" => {
                let v = take(&mut it)?;
                let n = v
                    .replace('_', "")
                    .parse::<u64>()
                    .map_err(|_| usage(format!("--fold {v}: expected a number of bytes")))?;
                args.fold_cap = Some(n);
            }
            "--capacity" | "--steps" => {
                let v = take(&mut it)?;
                let n = v.replace('_', "").parse::<u64>().map_err(|_| {
                    usage(format!(
                        "{flag} {v}: expected a number of {}",
                        if flag == "--steps" { "steps" } else { "bytes" }
                    ))
                })?;
                if flag == "--steps" {
                    args.steps = n;
                } else {
                    args.capacity = Some(n);
                }
            }
            "--dynamic" => {
                args.dynamic_cache = match take(&mut it)?.as_str() {
                    "cache" => true,
                    "plan" => false,
                    other => {
                        return Err(usage(format!("--dynamic {other}: expected plan or cache")));
                    }
                };
            }
            "--scratch" => {
                args.scratch = match take(&mut it)?.as_str() {
                    "none" => KernelScratch::None,
                    "tflm" => KernelScratch::Tflm,
                    "stowplan" => KernelScratch::Stowplan,
                    other => {
                        return Err(usage(format!(
                            "--scratch {other}: expected none, tflm or stowplan"
                        )));
                    }
                };
            }
            "--svg" => args.svg = Some(take(&mut it)?),
            "--problem" => args.problem = Some(take(&mut it)?),
            "--json" if inline.is_none() => args.json = true,
            "--alias-reshapes" if inline.is_none() => args.alias_reshapes = true,
            "--overlaps" if inline.is_none() => args.overlaps = true,
            f if f.starts_with('-') && f.len() > 1 => {
                return Err(usage(format!("unknown option {f}; see stowplan --help")));
            }
            _ if args.model.is_none() => args.model = Some(arg),
            _ => {
                return Err(usage(format!(
                    "unexpected argument {arg:?}; one model at a time"
                )));
            }
        }
    }
    match (&args.model, &args.problem) {
        (None, None) => Err(usage(
            "plan needs a MODEL.tflite or --problem FILE.csv; see stowplan --help".into(),
        )),
        (Some(_), Some(_)) => Err(usage("give a model or --problem, not both".into())),
        (None, Some(_)) if !args.shapes.is_empty() => {
            Err(usage("--shape applies to models, not to --problem".into()))
        }
        _ => Ok(Some(args)),
    }
}

/// `stowplan embed MODEL -o OUT [plan options]`.
fn embed_command(it: impl Iterator<Item = String>) -> Result<String, Failure> {
    let mut output = None;
    let mut rest = Vec::new();
    let mut it = it.into_iter();
    while let Some(arg) = it.next() {
        if arg == "-o" || arg == "--output" {
            output = Some(
                it.next()
                    .ok_or_else(|| Failure::Usage(format!("{arg} needs a file name")))?,
            );
        } else if let Some(v) = arg.strip_prefix("--output=") {
            output = Some(v.to_owned());
        } else {
            rest.push(arg);
        }
    }
    let Some(args) = parse(rest.into_iter())? else {
        return Ok(USAGE.to_owned());
    };
    if args.problem.is_some()
        || args.json
        || args.capacity.is_some()
        || args.alias_reshapes
        || args.overlaps
        || args.fold_cap.is_some()
    {
        return Err(Failure::Usage(
            "embed takes a model and -o OUT, with --planner, --align, --shape, --steps".into(),
        ));
    }
    let output = output.ok_or_else(|| Failure::Usage("embed needs -o OUT.tflite".into()))?;
    let path = args.model.as_deref().unwrap_or_default();
    let bytes = read_file(path)?;
    // Embedding replaces any offline plan in the model, has no capacity to meet, and leaves
    // room for TFLM's kernel scratch.
    let options = Options {
        offline: OfflinePolicy::Replan,
        capacity: None,
        kernel_scratch: KernelScratch::Tflm,
        ..args.model_options()
    };
    let (embedded, plan) = stowplan_planner::embed::embed(&bytes, &options)
        .map_err(|e| Failure::Plan(format!("{path}: {e}")))?;
    std::fs::write(&output, &embedded)
        .map_err(|e| Failure::Plan(format!("cannot write {output}: {e}")))?;
    let greedy = plan_model(
        &bytes,
        &Options {
            planner: Planner::Greedy,
            ..options.clone()
        },
    )
    .map(|g| g.arena_bytes())
    .map_err(|e| Failure::Plan(format!("{path}: {e}")))?;
    Ok(format!(
        "wrote {output}: OfflineMemoryAllocation places {} tensors; arena {} B with {} kernel scratch buffers ({} plan by {}{}), TFLite Micro's own greedy plan {} B, lower bound {} B\n",
        plan.buffer_tensors.len(),
        plan.arena_bytes(),
        plan.scratch.len(),
        plan.plan.planner(),
        plan.plan.winner(),
        if plan.plan.proven_optimal() {
            ", proven optimal"
        } else {
            ""
        },
        greedy,
        plan.lower_bound_bytes()
    ))
}

/// `--flag=value` as the flag and its value; anything else as itself with no value.
fn split_flag(arg: &str) -> (String, Option<String>) {
    match arg.split_once('=') {
        Some((f, v)) if f.starts_with("--") => (f.to_owned(), Some(v.to_owned())),
        _ => (arg.to_owned(), None),
    }
}

/// A flag's value: given inline (`--flag=value`), else the next argument.
fn value_of(
    flag: &str,
    inline: Option<String>,
    it: &mut impl Iterator<Item = String>,
) -> Result<String, Failure> {
    match inline {
        Some(v) => Ok(v),
        None => it
            .next()
            .ok_or_else(|| Failure::Usage(format!("{flag} needs a value; see stowplan --help"))),
    }
}

/// `stowplan macs MODEL [--shape T=DIMS]... [--json]`: each op's multiply-accumulates.
fn macs_command(it: impl Iterator<Item = String>) -> Result<String, Failure> {
    let usage = |m: String| Failure::Usage(m);
    let (mut model, mut shapes, mut json) = (None, Vec::new(), false);
    let mut it = it.into_iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = split_flag(&arg);
        match flag.as_str() {
            "-h" | "--help" => return Ok(USAGE.to_owned()),
            "--shape" => {
                let v = value_of(&flag, inline, &mut it)?;
                shapes.push(v.parse().map_err(|e: stowplan_planner::ReadModelError| {
                    usage(format!("--shape {v}: {e}"))
                })?);
            }
            "--json" if inline.is_none() => json = true,
            f if f.starts_with('-') && f.len() > 1 => {
                return Err(usage(format!(
                    "unknown option {f} for macs; see stowplan --help"
                )));
            }
            _ if model.is_none() => model = Some(arg),
            _ => {
                return Err(usage(format!(
                    "unexpected argument {arg:?}; one model at a time"
                )));
            }
        }
    }
    let path =
        model.ok_or_else(|| usage("macs needs a MODEL.tflite; see stowplan --help".into()))?;
    let bytes = read_file(&path)?;
    let ops = stowplan_planner::choice::model_kernels(&bytes, &shapes)
        .map_err(|e| Failure::Plan(format!("{path}: {e}")))?;
    let total = ops
        .iter()
        .filter_map(|o| o.macs)
        .try_fold(0u64, u64::checked_add)
        .ok_or_else(|| Failure::Plan(format!("{path}: the total does not fit in 64 bits")))?;
    if json {
        let ops: Vec<serde_json::Value> = ops
            .iter()
            .map(|o| {
                serde_json::json!({
                    "subgraph": o.subgraph.0,
                    "index": o.index.0,
                    "opcode": o.opcode.to_string(),
                    "macs": o.macs,
                    "outputs": o.outputs,
                    "pixels": o.pixels,
                    "kernel": o.choice.map(|c| c.kernel),
                    "epilogue": o.choice.and_then(|c| c.epilogue),
                    "expected_instructions": o.expected_instructions,
                })
            })
            .collect();
        return Ok(
            serde_json::json!({ "model": path, "total_macs": total, "ops": ops }).to_string(),
        );
    }
    let mut out = format!(
        "{path}: {} multiply-accumulates in {} of {} ops\n",
        emit::thousands(total),
        ops.iter().filter(|o| o.macs.is_some()).count(),
        ops.len()
    );
    out.push_str(
        "subgraph     op  opcode                              macs  kernel (Cortex-M4)        expected instructions\n",
    );
    for o in &ops {
        let kernel = o.choice.map_or_else(
            || "-".to_owned(),
            |c| match c.epilogue {
                Some(e) => format!("{}/{e}", c.kernel),
                None => c.kernel.to_owned(),
            },
        );
        out.push_str(&format!(
            "{:>8} {:>6}  {:<28} {:>12}  {:<24} {:>21}\n",
            o.subgraph.0,
            o.index.0,
            o.opcode.to_string(),
            o.macs.map_or_else(|| "-".to_owned(), emit::thousands),
            kernel,
            o.expected_instructions
                .map_or_else(|| "-".to_owned(), emit::thousands)
        ));
    }
    Ok(out)
}

/// `stowplan generate MODEL [-o OUT] [Config's options]`: the file `Config::generate` writes.
fn generate_command(it: impl Iterator<Item = String>) -> Result<String, Failure> {
    let usage = |m: String| Failure::Usage(m);
    // Options for each model, and for the group (or the one model): applied at the end.
    type Apply = Box<dyn Fn(&mut stowplan_build::Config)>;
    let mut per_model: Vec<Apply> = Vec::new();
    let mut per_group: Vec<Apply> = Vec::new();
    let mut output = None;
    let mut models: Vec<String> = Vec::new();
    let mut pipes: Vec<String> = Vec::new();
    let mut manifest_dir = None;
    let mut it = it.into_iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = split_flag(&arg);
        let mut take = || value_of(&flag, inline.clone(), &mut it);
        match flag.as_str() {
            "-h" | "--help" => return Ok(USAGE.to_owned()),
            "-o" | "--output" => output = Some(take()?),
            "--budget" => {
                let v = take()?;
                let bytes = stowplan_planner::codegen::size::parse_size(&v)
                    .map_err(|e| usage(format!("--budget {v}: {e}")))?;
                per_group.push(Box::new(move |c| {
                    c.budget(bytes);
                }));
            }
            "--align" => {
                let v = take()?;
                let n = v
                    .parse::<u64>()
                    .ok()
                    .filter(|n| n.is_power_of_two())
                    .ok_or_else(|| {
                        usage(format!("--align {v}: expected a power of two such as 16"))
                    })?;
                per_model.push(Box::new(move |c| {
                    c.align(n);
                }));
            }
            "--planner" => {
                let planner: Planner = take()?
                    .parse()
                    .map_err(|e: plan::UnknownPlannerError| usage(e.to_string()))?;
                per_model.push(Box::new(move |c| {
                    c.planner(planner);
                }));
            }
            "--name" => {
                let name = take()?;
                per_group.push(Box::new(move |c| {
                    c.name(name.clone());
                }));
            }
            "--runtime" => {
                let runtime = take()?;
                per_group.push(Box::new(move |c| {
                    c.runtime_crate(runtime.clone());
                }));
            }
            "--shape" => {
                let shape = take()?;
                per_model.push(Box::new(move |c| {
                    c.shape(shape.clone());
                }));
            }
            "--pipe" => pipes.push(take()?),
            "--offline" => {
                let policy = match take()?.as_str() {
                    "honour" | "honor" => OfflinePolicy::Honour,
                    "replan" => OfflinePolicy::Replan,
                    other => {
                        return Err(usage(format!(
                            "--offline {other}: expected honour or replan"
                        )));
                    }
                };
                per_model.push(Box::new(move |c| {
                    c.offline(policy);
                }));
            }
            "--dynamic" => {
                let cache = match take()?.as_str() {
                    "cache" => true,
                    "plan" => false,
                    other => {
                        return Err(usage(format!("--dynamic {other}: expected plan or cache")));
                    }
                };
                per_model.push(Box::new(move |c| {
                    c.dynamic_cache(cache);
                }));
            }
            "--invoke" if inline.is_none() => {
                per_model.push(Box::new(|c| {
                    c.invoke(true);
                }));
            }
            "--fallback" => {
                let fallback = take()?;
                per_model.push(Box::new(move |c| {
                    c.invoke_fallback(fallback.clone());
                }));
            }
            "--op-marks" => {
                let marks = take()?;
                per_model.push(Box::new(move |c| {
                    c.op_marks(marks.clone());
                }));
            }
            "--no-overlap" if inline.is_none() => {
                per_model.push(Box::new(|c| {
                    c.overlap(false);
                }));
            }
            "--chunk-pixels" => {
                let n = chunk_pixels(&take()?)?;
                per_model.push(Box::new(move |c| {
                    c.chunk_pixels(n);
                }));
            }
            "--manifest-dir" => manifest_dir = Some(take()?),
            f if f.starts_with('-') && f.len() > 1 => {
                return Err(usage(format!(
                    "unknown option {f} for generate; see stowplan --help"
                )));
            }
            _ => models.push(arg),
        }
    }
    if models.is_empty() {
        return Err(usage("generate needs a MODEL.tflite (relative to the crate's Cargo.toml); see stowplan --help".into()));
    }
    let mut config = stowplan_build::Config::new();
    per_group.iter().for_each(|f| f(&mut config));
    if models.len() == 1 && pipes.is_empty() {
        per_model.iter().for_each(|f| f(&mut config));
        config.model(models.remove(0));
    } else {
        // A group: the model options for each model, the others for the group.
        for path in models {
            let mut member = stowplan_build::Config::new();
            per_model.iter().for_each(|f| f(&mut member));
            member.model(path);
            config.member(member);
        }
        for p in pipes {
            config.pipe(p);
        }
    }
    let dir = match manifest_dir {
        Some(d) => std::path::PathBuf::from(d),
        None => std::env::current_dir()
            .map_err(|e| Failure::Plan(format!("cannot read the current directory: {e}")))?,
    };
    let (text, _) = config.manifest_dir(dir).render().map_err(|e| match e {
        stowplan_build::BuildError::BadOption(m) => Failure::Usage(m),
        other => Failure::Plan(other.to_string()),
    })?;
    match output {
        None => Ok(text),
        Some(path) => {
            std::fs::write(&path, &text)
                .map_err(|e| Failure::Plan(format!("cannot write {path}: {e}")))?;
            Ok(String::new())
        }
    }
}

fn read_file(path: &str) -> Result<Vec<u8>, Failure> {
    let fail = |e: std::io::Error| Failure::Plan(format!("cannot read {path}: {e}"));
    let meta = std::fs::metadata(path).map_err(fail)?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(Failure::Plan(format!(
            "{path} has {} bytes, more than the limit of {MAX_FILE_BYTES}",
            meta.len()
        )));
    }
    std::fs::read(path).map_err(fail)
}

/// What a command prints on stdout.
enum Output {
    /// Text, printed with a final newline.
    Text(String),
    /// A model's JSON report, written as it is made (a model of a million ops has hundreds of
    /// megabytes of it), with a final newline.
    ModelJson(Box<stowplan_planner::ModelPlan>, String),
}

impl From<String> for Output {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

fn run(args: &Args) -> Result<Output, Failure> {
    if let Some(path) = &args.problem {
        let bytes = read_file(path)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Failure::Plan(format!("{path} is not UTF-8 text")))?;
        let csv = problem_csv::read_csv(&text, args.align.unwrap_or(1))
            .map_err(|e| Failure::Plan(format!("{path}: {e}")))?;
        let settings = plan::Settings {
            planner: args.planner,
            capacity: args.capacity,
            search_steps: args.steps,
        };
        let plan = stowplan_planner::verify::solve_with(&csv.problem, &settings)
            .map_err(|e| Failure::Plan(format!("{path}: plan failed verification: {e}")))?;
        check_capacity(path, args, &plan)?;
        let profile = plan::lower_bound(&csv.problem);
        if let Some(svg) = &args.svg {
            let labels = csv.ids.clone();
            write_svg(
                svg,
                &emit::plan_svg(&csv.problem, &plan, &profile, &labels, path),
            )?;
        }
        return Ok(Output::Text(if args.json {
            emit::problem_json(&csv.problem, &plan, &profile, &csv.ids, path).to_string()
        } else {
            emit::problem_text(&csv.problem, &plan, &profile, path)
        }));
    }
    let path = args.model.as_deref().unwrap_or_default();
    let bytes = read_file(path)?;
    let options = args.model_options();
    let plan = plan_model(&bytes, &options).map_err(|e| Failure::Plan(format!("{path}: {e}")))?;
    check_capacity(path, args, &plan.plan)?;
    if let Some(svg) = &args.svg {
        write_svg(svg, &emit::model_svg(&plan, path))?;
    }
    Ok(if args.json {
        Output::ModelJson(Box::new(plan), path.to_owned())
    } else {
        Output::Text(emit::model_text(&plan, path))
    })
}

/// `--chunk-pixels N`'s value: a whole number of pixels, at least 1.
fn chunk_pixels(v: &str) -> Result<u64, Failure> {
    v.parse::<u64>().ok().filter(|&n| n >= 1).ok_or_else(|| {
        Failure::Usage(format!(
            "--chunk-pixels {v}: expected a number of pixels, 1 or more"
        ))
    })
}

/// `stowplan group MODEL... [--pipe SPEC]... [--budget SIZE] [--invoke] [plan options]`.
fn group_command(it: impl Iterator<Item = String>) -> Result<String, Failure> {
    use stowplan_planner::codegen::{Codegen, ModelFile, group};
    use stowplan_planner::pipeline;
    const VALUE_FLAGS: [&str; 11] = [
        "--chunk-pixels",
        "--planner",
        "--align",
        "--shape",
        "--offline",
        "--fold",
        "--capacity",
        "--steps",
        "--dynamic",
        "--scratch",
        "--svg",
    ];
    let usage = |m: String| Failure::Usage(m);
    let (mut paths, mut pipes, mut rest) = (Vec::new(), Vec::new(), Vec::new());
    let (mut budget, mut invoke) = (None, false);
    let mut it = it.into_iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = split_flag(&arg);
        let mut take = || value_of(&flag, inline.clone(), &mut it);
        match flag.as_str() {
            "-h" | "--help" => return Ok(USAGE.to_owned()),
            "--pipe" => pipes.push(take()?),
            "--budget" => {
                let v = take()?;
                budget = Some(
                    stowplan_planner::codegen::size::parse_size(&v)
                        .map_err(|e| usage(format!("--budget {v}: {e}")))?,
                );
            }
            "--invoke" if inline.is_none() => invoke = true,
            "--problem" | "--capacity" => {
                return Err(usage(format!(
                    "{flag} does not apply to a group; see stowplan --help"
                )));
            }
            f if VALUE_FLAGS.contains(&f) => {
                let v = take()?;
                rest.push(flag.clone());
                rest.push(v);
            }
            f if f.starts_with('-') && f.len() > 1 => rest.push(arg),
            _ => paths.push(arg),
        }
    }
    if paths.is_empty() {
        return Err(usage(
            "group needs one or more MODEL.tflite files; see stowplan --help".into(),
        ));
    }
    rest.push(paths.first().cloned().unwrap_or_default());
    let Some(args) = parse(rest.into_iter())? else {
        return Ok(USAGE.to_owned());
    };
    let options = args.model_options().with_invoke(invoke);
    let mut names: Vec<String> = Vec::new();
    let mut plans = Vec::new();
    let mut files = Vec::new();
    for path in &paths {
        let bytes = read_file(path)?;
        let plan =
            plan_model(&bytes, &options).map_err(|e| Failure::Plan(format!("{path}: {e}")))?;
        let stem = std::path::Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = stowplan_planner::codegen::names::module_name(&stem);
        if names.contains(&name) {
            return Err(usage(format!(
                "two models of the group are named `{name}` (after their files): copy one under another name"
            )));
        }
        names.push(name);
        plans.push(plan);
        files.push(bytes);
    }
    let parsed = pipes
        .iter()
        .map(|s| pipeline::parse_pipe(s, &names))
        .collect::<Result<Vec<_>, _>>()
        .map_err(usage)?;
    let joint = if parsed.is_empty() {
        None
    } else {
        Some(
            pipeline::plan_pipeline(
                &mut plans,
                &names,
                &parsed,
                &plan::Settings::new(args.planner),
            )
            .map_err(Failure::Plan)?,
        )
    };
    let members: Vec<group::Member<'_>> = plans
        .iter()
        .zip(&files)
        .zip(names.iter().zip(&paths))
        .map(|((plan, bytes), (name, path))| group::Member {
            plan,
            bytes,
            codegen: Codegen {
                module: name.clone(),
                runtime: syn_path(),
                model_path: path.clone(),
                model_file: ModelFile::ManifestRelative(path.clone()),
                budget: None,
                invoke,
                fallback: None,
                op_marks: None,
            },
        })
        .collect();
    let shared = plans.iter().map(|p| p.arena_bytes()).max().unwrap_or(0);
    let separate: u64 = plans.iter().map(|p| p.arena_bytes()).sum();
    let state: u64 = plans.iter().map(|p| p.persistent_bytes).sum();
    let ram = shared + state;
    if let Some(b) = budget
        && ram > b
    {
        return Err(Failure::Plan(group::group_over_budget_message(
            "group", &members, b,
        )));
    }
    if let Some(svg) = &args.svg {
        let pictures: Vec<String> = plans
            .iter()
            .zip(names.iter().zip(&paths))
            .map(|(p, (name, path))| emit::model_svg(p, &format!("{name}: {path}")))
            .collect();
        write_svg(svg, &emit::stack_svg(&pictures))?;
    }
    if args.json {
        let models: Vec<serde_json::Value> = plans
            .iter()
            .zip(names.iter().zip(&paths))
            .map(|(p, (name, path))| {
                serde_json::json!({ "name": name, "report": emit::model_json(p, path) })
            })
            .collect();
        let pipeline = joint.as_ref().map(|j| {
            serde_json::json!({
                "pipes": pipes,
                "arena_bytes": j.arena_bytes,
                "separate_arena_bytes": j.separate_bytes,
                "larger_plus_handover_bytes": j.larger_plus_handover_bytes,
                "handover_bytes": j.handover_bytes,
                "kept": j.kept,
            })
        });
        return Ok(serde_json::json!({
            "models": models,
            "shared_arena_bytes": shared,
            "separate_arena_bytes": separate,
            "state_bytes": state,
            "ram_bytes": ram,
            "budget_bytes": budget,
            "pipeline": pipeline,
        })
        .to_string());
    }
    let mut out = String::new();
    for (p, (name, path)) in plans.iter().zip(names.iter().zip(&paths)) {
        out.push_str(&format!("== model `{name}`\n"));
        out.push_str(&emit::model_text(p, path));
        out.push('\n');
    }
    out.push_str(&format!(
        "group of {} models, run one at a time:\n",
        plans.len()
    ));
    for (p, name) in plans.iter().zip(&names) {
        out.push_str(&format!(
            "  {name:<24} arena {:>12} B  state {:>10} B\n",
            emit::thousands(p.arena_bytes()),
            emit::thousands(p.persistent_bytes)
        ));
    }
    out.push_str(&format!(
        "  shared arena {} B (separate arenas {} B, saving {} B); state {} B, each model's own; RAM {} B{}\n",
        emit::thousands(shared),
        emit::thousands(separate),
        emit::thousands(separate - shared),
        emit::thousands(state),
        emit::thousands(ram),
        budget.map_or_else(String::new, |b| format!(", budget {} B", emit::thousands(b)))
    ));
    if let Some(j) = &joint {
        out.push_str(&format!(
            "  pipeline {}: on one timeline {} B (separate {} B, larger + {} B handed over {} B; the {} plan)\n",
            pipes.join(", "),
            emit::thousands(j.arena_bytes),
            emit::thousands(j.separate_bytes),
            emit::thousands(j.handover_bytes),
            emit::thousands(j.larger_plus_handover_bytes),
            j.kept
        ));
    }
    Ok(out)
}

fn syn_path() -> syn::Path {
    syn::parse_quote!(::stowplan)
}

/// With `--capacity`, a plan above it is a failure that says what is known.
fn check_capacity(path: &str, args: &Args, plan: &plan::Plan) -> Result<(), Failure> {
    let Some(capacity) = args.capacity else {
        return Ok(());
    };
    if plan.arena_bytes() <= capacity {
        return Ok(());
    }
    let best = emit::thousands(plan.arena_bytes());
    let bound = emit::thousands(plan.best_bound());
    Err(Failure::Plan(if plan.best_bound() > capacity {
        format!(
            "{path}: no plan fits a capacity of {capacity} bytes: the arena needs at least {bound} bytes (best plan found {best} bytes)"
        )
    } else {
        format!(
            "{path}: no plan within a capacity of {capacity} bytes found in {} search steps (best {best} bytes, lower bound {bound}); raise --steps or the capacity",
            plan.search_steps()
        )
    }))
}

fn write_svg(path: &str, svg: &str) -> Result<(), Failure> {
    std::fs::write(path, svg).map_err(|e| Failure::Plan(format!("cannot write {path}: {e}")))
}

fn one_line(message: &str) -> String {
    printable(&message.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// `text` with every control character but newline and tab escaped (`\u{1b}`): names and op
/// codes come from the model, and must not reach the terminal as escape sequences.
fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A writer that passes text on as [`printable`] would (every control character but newline
/// and tab escaped), without a copy of the whole text.
struct PrintableWriter<W: Write> {
    inner: W,
    /// The start of a character the last write cut (at most 3 bytes).
    pending: Vec<u8>,
}

impl<W: Write> PrintableWriter<W> {
    const fn new(inner: W) -> Self {
        Self {
            inner,
            pending: Vec::new(),
        }
    }

    /// Writes whole characters of `text`, escaping control characters.
    fn text(&mut self, text: &str) -> std::io::Result<()> {
        let mut rest = text;
        // A control character starts with a byte below 0x20, 0x7f, or 0xc2 (U+0080 to U+009F):
        // each starts a character, so the text splits there.
        while let Some(at) = rest
            .bytes()
            .position(|b| b < 0x20 || b == 0x7f || b == 0xc2)
        {
            let (clean, from) = rest.split_at(at);
            self.inner.write_all(clean.as_bytes())?;
            let mut chars = from.chars();
            let Some(c) = chars.next() else { break };
            if c.is_control() && c != '\n' && c != '\t' {
                write!(self.inner, "{}", c.escape_default())?;
            } else {
                self.inner
                    .write_all(c.encode_utf8(&mut [0; 4]).as_bytes())?;
            }
            rest = chars.as_str();
        }
        self.inner.write_all(rest.as_bytes())
    }

    /// Writes `bytes`: whole characters escaped as needed, a cut character kept for the next
    /// write, bytes that are not UTF-8 as they are.
    fn bytes(&mut self, mut bytes: &[u8]) -> std::io::Result<()> {
        loop {
            match std::str::from_utf8(bytes) {
                Ok(text) => return self.text(text),
                Err(e) => {
                    let (valid, rest) = bytes.split_at(e.valid_up_to());
                    self.text(std::str::from_utf8(valid).unwrap_or_default())?;
                    match e.error_len() {
                        None => {
                            self.pending.extend_from_slice(rest);
                            return Ok(());
                        }
                        Some(n) => {
                            let (bad, after) = rest.split_at(n.min(rest.len()));
                            self.inner.write_all(bad)?;
                            bytes = after;
                        }
                    }
                }
            }
        }
    }

    /// Writes what is still pending and flushes.
    fn finish(mut self) -> std::io::Result<()> {
        let pending = std::mem::take(&mut self.pending);
        self.inner.write_all(&pending)?;
        self.inner.flush()
    }
}

impl<W: Write> Write for PrintableWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.pending.is_empty() {
            self.bytes(buf)?;
        } else {
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(buf);
            self.bytes(&joined)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes `output` to stdout (with a final newline), reporting a failure (a full disk, a closed
/// pipe) instead of panicking.
fn write_stdout(output: &Output) -> std::io::Result<()> {
    // Buffered before the escaping, which then sees large chunks (and may cut a character
    // between two: it keeps the start for the next).
    let mut printable = PrintableWriter::new(std::io::stdout().lock());
    let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut printable);
    match output {
        Output::Text(text) => {
            out.write_all(text.as_bytes())?;
            if !text.ends_with('\n') {
                out.write_all(b"\n")?;
            }
        }
        Output::ModelJson(plan, path) => {
            emit::write_model_json(plan, path, &mut out)?;
            out.write_all(b"\n")?;
        }
    }
    out.flush()?;
    drop(out);
    printable.finish()
}

fn main() -> ExitCode {
    let mut it = std::env::args().skip(1);
    let result: Result<Output, Failure> = match it.next().as_deref() {
        None | Some("-h" | "--help" | "help") => Ok(USAGE.to_owned().into()),
        Some("-V" | "--version") => Ok(format!("stowplan {}", env!("CARGO_PKG_VERSION")).into()),
        Some("embed") => embed_command(it).map(Output::from),
        Some("generate") => generate_command(it).map(Output::from),
        Some("group") => group_command(it).map(Output::from),
        Some("macs") => macs_command(it).map(Output::from),
        Some("plan") => parse(it).and_then(|args| match args {
            None => Ok(USAGE.to_owned().into()),
            Some(args) => run(&args),
        }),
        Some(other) => Err(Failure::Usage(format!(
            "unknown command {other:?}; the commands are `stowplan plan`, `stowplan group`, `stowplan generate`, `stowplan embed` and `stowplan macs`"
        ))),
    };
    match result {
        Ok(Output::Text(text)) if text.is_empty() => ExitCode::SUCCESS,
        Ok(output) => match write_stdout(&output) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: cannot write the output: {e}");
                ExitCode::from(1)
            }
        },
        Err(Failure::Usage(m)) => {
            eprintln!("error: {}", one_line(&m));
            ExitCode::from(2)
        }
        Err(Failure::Plan(m)) => {
            eprintln!("error: {}", one_line(&m));
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` through a [`PrintableWriter`], written in pieces of `piece` bytes.
    fn through_writer(text: &str, piece: usize) -> String {
        let mut out = Vec::new();
        let mut w = PrintableWriter::new(&mut out);
        for chunk in text.as_bytes().chunks(piece) {
            w.write_all(chunk).unwrap();
        }
        w.finish().unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_writer_escapes_as_printable_does_wherever_the_writes_cut() {
        let text = "a\u{1b}[31mé\u{7f}\u{9b}x\u{85}\n\t\r\u{0}ü€𝄞\u{c2}end\u{9f}";
        let expected = printable(text);
        assert!(expected.contains("\\u{1b}") && expected.contains("\\u{9b}"));
        for piece in 1..=text.len() {
            assert_eq!(through_writer(text, piece), expected, "pieces of {piece}");
        }
    }
}
