//! Test support for stowplan: the synthetic test models, and access to the shared real models.
//!
//! The synthetic models are built here with [`stowplan_planner::tflite::builder`] and committed under
//! `tests/models/synthetic/` so the command-line examples and external tools can read them;
//! `tests/tests/synthetic.rs` fails if a committed file drifts from what this code builds, and
//! `STOWPLAN_BLESS=1 cargo test -p stowplan-tests --test synthetic` rewrites them.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

pub mod fuzz;
pub mod golden;
pub mod import_circles;
pub mod malformed;
pub mod scale;

use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::{Callees, ModelBuilder, TensorSpec, ops};

/// The repository root.
#[must_use]
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The shared real models and benchmarks (`../shared` beside the repository, or
/// `STOWPLAN_SHARED`), or `None` with a notice on stderr when they are absent.
///
/// # Panics
///
/// When they are absent and `CI=true` ([`in_ci`]).
#[must_use]
pub fn shared_dir(what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("STOWPLAN_SHARED")
        .map_or_else(|| repo_root().join("../shared"), PathBuf::from);
    if dir.join("models").is_dir() {
        Some(dir)
    } else {
        let message = format!(
            "{what} skipped: the shared models directory (../shared beside the repository, or STOWPLAN_SHARED) is absent"
        );
        assert!(
            !in_ci(),
            "{message}, and CI=true: a skip in CI is a failure"
        );
        eprintln!("notice: {message}");
        None
    }
}

/// Whether the tests run in CI (`CI=true`), where a check that cannot run fails instead of
/// being skipped.
#[must_use]
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| v == "true")
}

/// The thirteen shared real models, sorted by file name, or `None` with a notice (see
/// [`shared_dir`]) when they are absent.
///
/// # Panics
///
/// If the folder exists but cannot be listed.
#[must_use]
pub fn shared_models(what: &str) -> Option<Vec<PathBuf>> {
    let dir = shared_dir(what)?.join("models");
    Some(tflite_files(&dir).unwrap_or_else(|e| panic!("{e}")))
}

/// The `.tflite` files in `dir`, sorted by name.
///
/// # Errors
///
/// The folder cannot be listed (the message names it).
pub fn tflite_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .collect();
    files.sort();
    Ok(files)
}

/// The models a table binary reads: the folder its first argument names, else
/// `../shared/models`; an error for the user if it cannot be listed.
///
/// # Errors
///
/// The folder cannot be listed.
pub fn table_models() -> Result<Vec<PathBuf>, String> {
    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| repo_root().join("../shared/models"), PathBuf::from);
    tflite_files(&dir).map_err(|e| format!("{e}: give the folder of .tflite models"))
}

/// A synthetic test model: its name, what it exercises, and how to build it.
#[derive(Clone, Copy, Debug)]
pub struct Synthetic {
    /// File stem under `tests/models/synthetic/`.
    pub name: &'static str,
    /// What the model exercises.
    pub note: &'static str,
    /// Builds the model's bytes.
    pub build: fn() -> Vec<u8>,
}

/// Every synthetic model.
pub const SYNTHETIC: &[Synthetic] = &[
    Synthetic {
        name: "chain",
        note: "a chain of RELUs: input and output lifetimes, reuse of dead tensors",
        build: chain,
    },
    Synthetic {
        name: "residual",
        note: "a residual ADD: a skip tensor live across two ops",
        build: residual,
    },
    Synthetic {
        name: "branches",
        note: "two branches joined by CONCATENATION, with a weight and an omitted optional input",
        build: branches,
    },
    Synthetic {
        name: "if_else",
        note: "an IF with then and else subgraphs: callee tensors in their own scope blocks",
        build: if_else,
    },
    Synthetic {
        name: "while_loop",
        note: "a WHILE with cond and body subgraphs",
        build: while_loop,
    },
    Synthetic {
        name: "call_once",
        note: "CALL_ONCE of an init subgraph, VAR_HANDLE resource handles, READ/ASSIGN_VARIABLE",
        build: call_once,
    },
    Synthetic {
        name: "variables",
        note: "SVDF-like ops with variable state tensors kept in the persistent region",
        build: variables,
    },
    Synthetic {
        name: "offline_plan",
        note: "an OfflineMemoryAllocation entry fixing two tensors' offsets",
        build: offline_plan,
    },
    Synthetic {
        name: "dynamic_dim",
        note: "a -1 batch dimension in shape and shape_signature: needs a shape override",
        build: dynamic_dim,
    },
    Synthetic {
        name: "all_types",
        note: "one tensor of every sized TensorType, with per-type element sizes",
        build: all_types,
    },
    Synthetic {
        name: "reserved_names",
        note: "tensors named like the module's own items (plan_by, proven_optimal, model_file, model_file_bytes, and buffer_1 next to constant buffer 1)",
        build: reserved_names,
    },
    Synthetic {
        name: "wide_live",
        note: "1,200 RELU outputs of one input, all model outputs, so live together to the end",
        build: wide_live,
    },
    Synthetic {
        name: "fold_f16_conv",
        note: "float16 CONV_2D weights, DEQUANTIZE to float32 (which TFLM refuses): folded when built",
        build: fold_f16_conv,
    },
    Synthetic {
        name: "fold_densify",
        note: "sparse FULLY_CONNECTED weights (CSR rows in 1x4 blocks), DENSIFY: folded when built",
        build: fold_densify,
    },
    Synthetic {
        name: "streaming_window_f32",
        note: "float32 frames kept in a resource variable (READ_VARIABLE -> STRIDED_SLICE -> CONCATENATION with the new frame -> ASSIGN_VARIABLE), flattened by a RESHAPE that aliases the window, and a second CONCATENATION of it with another variable: no output is planned over the alias",
        build: streaming_window_f32,
    },
    Synthetic {
        name: "streaming_window_s8",
        note: "the float32 streaming window in int8, with int8 variables (zero point -5, their reset value)",
        build: streaming_window_s8,
    },
    Synthetic {
        name: "circular_buffer",
        note: "int8 CONV_2D -> CIRCULAR_BUFFER (3 slots, cycles_max 2) -> CONV_2D over the slots: a window kept in the persistent region, an invoke that stops early",
        build: circular_buffer,
    },
];

/// Models that must be refused, for the UI tests of `include_model!` (committed under
/// `tests/models/malformed/`, refreshed like the synthetic ones).
pub const MALFORMED: &[Synthetic] = &[
    Synthetic {
        name: "truncated",
        note: "the chain model cut in half",
        build: truncated,
    },
    Synthetic {
        name: "string_tensor",
        note: "an op writing a STRING tensor, which has no fixed size",
        build: string_tensor,
    },
    Synthetic {
        name: "aliasing_offline",
        note: "an offline plan putting tensors live at the same time at one offset",
        build: aliasing_offline,
    },
    Synthetic {
        name: "huge_arena",
        note: "two 3 GiB tensors live together: a 6 GiB arena no 32-bit target can address",
        build: huge_arena,
    },
];

/// x (3 GiB) -> RELU -> y (3 GiB): both live at op 0.
#[must_use]
pub fn huge_arena() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int8, &[3, 1 << 30]);
    let y = b.tensor(sg, "y", DType::Int8, &[3, 1 << 30]);
    b.op(sg, ops::RELU, &[x], &[y]);
    b.io(sg, &[x], &[y]);
    b.finish()
}

/// The chain model cut in half.
#[must_use]
pub fn truncated() -> Vec<u8> {
    let mut bytes = chain();
    bytes.truncate(bytes.len() / 2);
    bytes
}

/// x -> custom op -> a STRING tensor.
#[must_use]
pub fn string_tensor() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int8, &[4]);
    let y = b.tensor(sg, "text", DType::String, &[4]);
    b.custom(sg, "ToText", &[x], &[y]);
    b.io(sg, &[x], &[y]);
    b.finish()
}

/// The chain with an offline plan putting every tensor at offset 0.
#[must_use]
pub fn aliasing_offline() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    relu_chain(&mut b, sg);
    b.offline_plan(&[0, 0, 0, 0]);
    b.finish()
}

const F32: DType = DType::Float32;

/// t0 -> RELU -> t1 -> RELU -> t2 -> RELU -> t3, 1x64 float32 each, t0 the input, t3 the output.
fn relu_chain(b: &mut ModelBuilder, sg: usize) {
    let [t0, t1, t2, t3] = ["t0", "t1", "t2", "t3"].map(|name| b.tensor(sg, name, F32, &[1, 64]));
    b.op(sg, ops::RELU, &[t0], &[t1]);
    b.op(sg, ops::RELU, &[t1], &[t2]);
    b.op(sg, ops::RELU, &[t2], &[t3]);
    b.io(sg, &[t0], &[t3]);
}

/// input -> RELU -> RELU -> RELU -> output, 1x64 float32 each (256 B).
#[must_use]
pub fn chain() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    b.description("stowplan synthetic: chain");
    let sg = b.subgraph("main");
    relu_chain(&mut b, sg);
    b.finish()
}

/// x -> RELU a -> RELU b -> ADD(a, b) -> out.
#[must_use]
pub fn residual() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    b.description("stowplan synthetic: residual");
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", F32, &[1, 32]);
    let a = b.tensor(sg, "a", F32, &[1, 32]);
    let c = b.tensor(sg, "b", F32, &[1, 32]);
    let out = b.tensor(sg, "out", F32, &[1, 32]);
    b.op(sg, ops::RELU, &[x], &[a]);
    b.op(sg, ops::RELU, &[a], &[c]);
    b.op(sg, ops::ADD, &[a, c], &[out]);
    b.io(sg, &[x], &[out]);
    b.finish()
}

/// x -> FC(w, no bias) -> l; x -> RELU -> r; CONCATENATION(l, r) -> out.
#[must_use]
pub fn branches() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    b.description("stowplan synthetic: branches");
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int8, &[1, 48]);
    let w = b.constant(sg, "w", DType::Int8, &[16, 48], &[1; 16 * 48]);
    let l = b.tensor(sg, "left", DType::Int8, &[1, 16]);
    let r = b.tensor(sg, "right", DType::Int8, &[1, 48]);
    let out = b.tensor(sg, "out", DType::Int8, &[1, 64]);
    b.op(sg, ops::FULLY_CONNECTED, &[x, w, -1], &[l]);
    b.op(sg, ops::RELU, &[x], &[r]);
    b.op(sg, ops::CONCATENATION, &[l, r], &[out]);
    b.io(sg, &[x], &[out]);
    b.finish()
}

/// Subgraph 0: cond, x -> IF(then=1, else=2) -> y -> RELU -> out.
/// Subgraph 1: x -> RELU -> h -> RELU -> y. Subgraph 2: x -> RELU -> y.
#[must_use]
pub fn if_else() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    b.description("stowplan synthetic: if_else");
    let main = b.subgraph("main");
    let then = b.subgraph("then");
    let otherwise = b.subgraph("else");
    let cond = b.tensor(main, "cond", DType::Bool, &[]);
    let x = b.tensor(main, "x", F32, &[1, 16]);
    let y = b.tensor(main, "y", F32, &[1, 16]);
    let out = b.tensor(main, "out", F32, &[1, 16]);
    b.control_flow(
        main,
        Callees::If {
            then: 1,
            otherwise: 2,
        },
        &[cond, x],
        &[y],
    );
    b.op(main, ops::RELU, &[y], &[out]);
    b.io(main, &[cond, x], &[out]);

    let tx = b.tensor(then, "then/x", F32, &[1, 16]);
    let th = b.tensor(then, "then/h", F32, &[1, 16]);
    let ty = b.tensor(then, "then/y", F32, &[1, 16]);
    b.op(then, ops::RELU, &[tx], &[th]);
    b.op(then, ops::RELU, &[th], &[ty]);
    b.io(then, &[tx], &[ty]);

    let ex = b.tensor(otherwise, "else/x", F32, &[1, 16]);
    let ey = b.tensor(otherwise, "else/y", F32, &[1, 16]);
    b.op(otherwise, ops::RELU, &[ex], &[ey]);
    b.io(otherwise, &[ex], &[ey]);
    b.finish()
}

/// Subgraph 0: i, x -> WHILE(cond=1, body=2) -> i', y.
/// Subgraph 1 (cond): i, x -> LESS(i, limit) -> c. Subgraph 2 (body): i, x -> ADD(i, one), RELU(x).
#[must_use]
pub fn while_loop() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    b.description("stowplan synthetic: while_loop");
    let main = b.subgraph("main");
    let cond = b.subgraph("cond");
    let body = b.subgraph("body");
    let i = b.tensor(main, "i", DType::Int32, &[]);
    let x = b.tensor(main, "x", F32, &[1, 32]);
    let i_out = b.tensor(main, "i_out", DType::Int32, &[]);
    let y = b.tensor(main, "y", F32, &[1, 32]);
    b.control_flow(
        main,
        Callees::While { cond: 1, body: 2 },
        &[i, x],
        &[i_out, y],
    );
    b.io(main, &[i, x], &[i_out, y]);

    let ci = b.tensor(cond, "cond/i", DType::Int32, &[]);
    let cx = b.tensor(cond, "cond/x", F32, &[1, 32]);
    let limit = b.constant(cond, "cond/limit", DType::Int32, &[], &3i32.to_le_bytes());
    let c = b.tensor(cond, "cond/c", DType::Bool, &[]);
    b.op(cond, ops::LESS, &[ci, limit], &[c]);
    b.io(cond, &[ci, cx], &[c]);

    let bi = b.tensor(body, "body/i", DType::Int32, &[]);
    let bx = b.tensor(body, "body/x", F32, &[1, 32]);
    let one = b.constant(body, "body/one", DType::Int32, &[], &1i32.to_le_bytes());
    let bi2 = b.tensor(body, "body/i2", DType::Int32, &[]);
    let bx2 = b.tensor(body, "body/x2", F32, &[1, 32]);
    b.op(body, ops::ADD, &[bi, one], &[bi2]);
    b.op(body, ops::RELU, &[bx], &[bx2]);
    b.io(body, &[bi, bx], &[bi2, bx2]);
    b.finish()
}

/// The options of a VAR_HANDLE naming resource variable `name`.
fn var_handle(name: &str) -> stowplan_planner::tflite::OpOptions {
    stowplan_planner::tflite::OpOptions::VarHandle {
        container: String::new(),
        shared_name: name.to_owned(),
    }
}

/// Subgraph 0: CALL_ONCE(init=1); VAR_HANDLE -> h; READ_VARIABLE(h) -> v; ADD(x, v) -> y;
/// ASSIGN_VARIABLE(h, y). Subgraph 1 (init): VAR_HANDLE -> h; ASSIGN_VARIABLE(h, zeros).
#[must_use]
pub fn call_once() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    b.description("stowplan synthetic: call_once");
    let main = b.subgraph("main");
    let init = b.subgraph("init");
    let x = b.tensor(main, "x", F32, &[1, 8]);
    let h = b.tensor(main, "handle", DType::Resource, &[]);
    let v = b.tensor(main, "value", F32, &[1, 8]);
    let y = b.tensor(main, "y", F32, &[1, 8]);
    b.control_flow(main, Callees::CallOnce { init: 1 }, &[], &[]);
    b.op_with_options(main, ops::VAR_HANDLE, &[], &[h], var_handle("state"));
    b.op(main, ops::READ_VARIABLE, &[h], &[v]);
    b.op(main, ops::ADD, &[x, v], &[y]);
    b.op(main, ops::ASSIGN_VARIABLE, &[h, y], &[]);
    b.io(main, &[x], &[y]);

    let ih = b.tensor(init, "init/handle", DType::Resource, &[]);
    let zeros = b.constant(init, "init/zeros", F32, &[1, 8], &[0; 32]);
    b.op_with_options(init, ops::VAR_HANDLE, &[], &[ih], var_handle("state"));
    b.op(init, ops::ASSIGN_VARIABLE, &[ih, zeros], &[]);
    b.io(init, &[], &[]);
    b.finish()
}

/// Two SVDF-like ops, each reading and updating a variable state tensor.
#[must_use]
pub fn variables() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    b.description("stowplan synthetic: variables");
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int8, &[1, 40]);
    let s1 = b.variable(sg, "state1", DType::Int16, &[1, 320]);
    let h = b.tensor(sg, "h", DType::Int8, &[1, 32]);
    let s2 = b.variable(sg, "state2", DType::Int16, &[1, 100]);
    let y = b.tensor(sg, "y", DType::Int8, &[1, 8]);
    b.op(sg, ops::SVDF, &[x, -1, -1, -1, s1], &[h]);
    b.op(sg, ops::SVDF, &[h, -1, -1, -1, s2], &[y]);
    b.io(sg, &[x], &[y]);
    b.finish()
}

/// The chain with an offline plan fixing t1 at 0 and t2 at 256, others online.
#[must_use]
pub fn offline_plan() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    b.description("stowplan synthetic: offline_plan");
    let sg = b.subgraph("main");
    relu_chain(&mut b, sg);
    b.offline_plan(&[-1, 0, 256, -1]);
    b.finish()
}

/// A RELU chain whose batch dimension is -1 in shape and in shape_signature.
#[must_use]
pub fn dynamic_dim() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    b.description("stowplan synthetic: dynamic_dim");
    let sg = b.subgraph("main");
    let spec = |name: &str| TensorSpec {
        name: name.to_owned(),
        type_code: DType::Float32.code(),
        shape: Some(vec![-1, 10]),
        shape_signature: Some(vec![-1, 10]),
        ..TensorSpec::default()
    };
    let x = b.tensor_spec(sg, spec("x"));
    let h = b.tensor_spec(sg, spec("h"));
    let y = b.tensor_spec(sg, spec("y"));
    b.op(sg, ops::RELU, &[x], &[h]);
    b.op(sg, ops::RELU, &[h], &[y]);
    b.io(sg, &[x], &[y]);
    b.finish()
}

/// One `[1,3]` tensor of every type that has a size, written by a custom op from one input.
#[must_use]
pub fn all_types() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    b.description("stowplan synthetic: all_types");
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int8, &[1, 3]);
    let outs: Vec<i32> = DType::ALL
        .iter()
        .filter(|d| d.element_bytes().is_some() && **d != DType::Resource)
        .map(|d| b.tensor(sg, d.name(), *d, &[1, 3]))
        .collect();
    b.custom(sg, "FanOut", &[x], &outs);
    b.io(sg, &[x], &outs);
    b.finish()
}

/// Runs `f` on its own thread and returns its result, or panics naming `what` when it takes
/// longer than `limit`: "never a hang" as an assertion (the thread is left behind).
///
/// # Panics
///
/// When `f` panics or runs out of time.
pub fn within<T: Send + 'static>(
    limit: std::time::Duration,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(f());
    });
    match receive.recv_timeout(limit) {
        Ok(v) => v,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what} took longer than {limit:?}")
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("{what} panicked"),
    }
}

/// Tensors whose names, in SCREAMING_CASE, are the generated module's own items: `PLAN_BY`,
/// `PROVEN_OPTIMAL`, `MODEL_FILE`, `MODEL_FILE_BYTES`, and `BUFFER_1`, a constant whose data is
/// buffer 1 (the module's `BUFFER_1` item).
#[must_use]
pub fn reserved_names() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    b.description("stowplan synthetic: reserved_names");
    let sg = b.subgraph("main");
    let w = b.constant(sg, "buffer_1", DType::Int8, &[4], &[1, 2, 3, 4]);
    let x = b.tensor(sg, "plan_by", DType::Int8, &[4]);
    let a = b.tensor(sg, "proven_optimal", DType::Int8, &[4]);
    let c = b.tensor(sg, "model_file", DType::Int8, &[4]);
    let y = b.tensor(sg, "model_file_bytes", DType::Int8, &[4]);
    b.op(sg, ops::ADD, &[x, w], &[a]);
    b.op(sg, ops::RELU, &[a], &[c]);
    b.op(sg, ops::RELU, &[c], &[y]);
    b.io(sg, &[x], &[y]);
    b.finish()
}

/// One input read by 1,200 RELUs whose outputs are all model outputs: 1,201 slots live together
/// at the end, beyond what a proof with one step per overlapping pair fits in rustc's constant
/// evaluation.
#[must_use]
pub fn wide_live() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    b.description("stowplan synthetic: wide_live");
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Int8, &[1]);
    let outs: Vec<i32> = (0..1_200)
        .map(|k| {
            let y = b.tensor(sg, &format!("y{k}"), DType::Int8, &[1]);
            b.op(sg, ops::RELU, &[x], &[y]);
            y
        })
        .collect();
    b.io(sg, &[x], &outs);
    b.finish()
}

/// The float16 weights of [`fold_f16_conv`], as their bits: every sign, subnormals, zeros and
/// values up to 2^6 (no infinity or NaN), drawn by a fixed linear congruential sequence.
#[must_use]
pub fn fold_f16_weights() -> Vec<u16> {
    let mut x: u32 = 0x1234_5678;
    let mut out = Vec::with_capacity(54);
    for i in 0..54u32 {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let bits = (x >> 16) as u16;
        let h = match i {
            0 => 0x0000, // +0
            1 => 0x8000, // -0
            2 => 0x0001, // the smallest subnormal
            3 => 0x83ff, // the largest negative subnormal
            // Exponents 0..=20 (magnitudes below 2^6), any sign and mantissa.
            _ => (bits & 0x83ff) | ((u16::try_from((x >> 8) % 21).unwrap_or(0)) << 10),
        };
        out.push(h);
    }
    out
}

/// x `float32[1,5,5,2]` -> CONV_2D(DEQUANTIZE(w `float16[3,3,3,2]`) -> `float32[3,3,3,2]`,
/// bias `float32[3]`, SAME, stride 1) -> y `float32[1,5,5,3]`.
#[must_use]
pub fn fold_f16_conv() -> Vec<u8> {
    use stowplan_planner::tflite::{Activation, OpOptions, Padding};
    let mut b = ModelBuilder::new();
    b.description("stowplan synthetic: fold_f16_conv");
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Float32, &[1, 5, 5, 2]);
    let w16: Vec<u8> = fold_f16_weights()
        .iter()
        .flat_map(|h| h.to_le_bytes())
        .collect();
    let w16 = b.constant(sg, "w_f16", DType::Float16, &[3, 3, 3, 2], &w16);
    let w = b.tensor(sg, "w", DType::Float32, &[3, 3, 3, 2]);
    let bias: Vec<u8> = [0.5f32, -1.25, 3.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let bias = b.constant(sg, "bias", DType::Float32, &[3], &bias);
    let y = b.tensor(sg, "y", DType::Float32, &[1, 5, 5, 3]);
    b.op(
        sg,
        stowplan_planner::tflite::BuiltinOp::DEQUANTIZE,
        &[w16],
        &[w],
    );
    b.op_with_options(
        sg,
        stowplan_planner::tflite::BuiltinOp::CONV_2D,
        &[x, w, bias],
        &[y],
        OpOptions::Conv2D {
            padding: Padding::Same,
            stride_w: 1,
            stride_h: 1,
            dilation_w: 1,
            dilation_h: 1,
            activation: Activation::None,
        },
    );
    b.io(sg, &[x], &[y]);
    b.finish()
}

/// The dense weights [`fold_densify`] encodes, `float32[4,8]` row-major: rows in 1x4 blocks,
/// row 0 holding block 0, row 1 none, row 2 both, row 3 block 1.
pub const FOLD_DENSE_WEIGHTS: [f32; 32] = [
    1.0, -2.0, 0.0, 0.25, 0.0, 0.0, 0.0, 0.0, //
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, //
    -0.5, 0.0, 4.0, 1.5, 3.0, -3.0, 0.0, 2.0, //
    0.0, 0.0, 0.0, 0.0, 0.125, 7.0, -1.0, 0.0,
];

/// x `float32[1,8]` -> FULLY_CONNECTED(DENSIFY(w, sparse `float32[4,8]`: dimension 0 dense,
/// dimension 1 compressed in blocks of 4) -> `float32[4,8]`, bias `float32[4]`) -> y
/// `float32[1,4]`.
#[must_use]
pub fn fold_densify() -> Vec<u8> {
    use stowplan_planner::tflite::builder::IndexWidth;
    use stowplan_planner::tflite::{
        Activation, DimensionFormat, DimensionMetadata, OpOptions, Sparsity,
    };
    let mut b = ModelBuilder::new();
    b.description("stowplan synthetic: fold_densify");
    let sg = b.subgraph("main");
    let x = b.tensor(sg, "x", DType::Float32, &[1, 8]);
    // The blocks present, in traversal order: (row, block column).
    let blocks = [(0, 0), (2, 0), (2, 1), (3, 1)];
    let values: Vec<u8> = blocks
        .iter()
        .flat_map(|&(r, c)| {
            FOLD_DENSE_WEIGHTS[r * 8 + c * 4..r * 8 + c * 4 + 4]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>()
        })
        .collect();
    let ws = b.constant(sg, "w_sparse", DType::Float32, &[4, 8], &values);
    let dense = |n: i32| DimensionMetadata {
        format: DimensionFormat::Dense,
        dense_size: n,
        segments: Vec::new(),
        indices: Vec::new(),
    };
    b.sparsity(
        sg,
        ws,
        &Sparsity {
            traversal_order: vec![0, 1, 2],
            block_map: vec![1],
            dim_metadata: vec![
                dense(4),
                DimensionMetadata {
                    format: DimensionFormat::SparseCsr,
                    dense_size: 0,
                    segments: vec![0, 1, 1, 3, 4],
                    indices: vec![0, 0, 1, 1],
                },
                dense(4),
            ],
        },
        IndexWidth::Uint8,
    );
    let w = b.tensor(sg, "w", DType::Float32, &[4, 8]);
    let bias: Vec<u8> = [0.0f32, 1.0, -1.0, 0.5]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let bias = b.constant(sg, "bias", DType::Float32, &[4], &bias);
    let y = b.tensor(sg, "y", DType::Float32, &[1, 4]);
    b.op(
        sg,
        stowplan_planner::tflite::BuiltinOp::DENSIFY,
        &[ws],
        &[w],
    );
    b.op_with_options(
        sg,
        stowplan_planner::tflite::BuiltinOp::FULLY_CONNECTED,
        &[x, w, bias],
        &[y],
        OpOptions::FullyConnected {
            activation: Activation::None,
            keep_num_dims: false,
            shuffled_weights: false,
        },
    );
    b.io(sg, &[x], &[y]);
    b.finish()
}

/// The filter of `circular_buffer`'s second CONV_2D (`[4, 3, 1, 4]`, OHWI).
pub const CB_FILTER: [i8; 48] = [
    1, 2, 3, 4, -1, -2, -3, -4, 5, 6, 7, 8, //
    0, 1, 0, 1, 1, 0, 1, 0, -5, 5, -5, 5, //
    9, -9, 9, -9, 2, 2, 2, 2, 0, 0, 0, 1, //
    -7, 3, -2, 8, 4, -4, 6, -6, 1, 1, 1, 1,
];

/// Frames of [`WINDOW_F`] values, [`WINDOW_T`] of them kept in the resource variable
/// `window`, and [`HISTORY`] values in `history` (the sizes of [`streaming_window_f32`]).
pub const WINDOW_T: usize = 4;
/// Values per frame.
pub const WINDOW_F: usize = 6;
/// Values of the second variable.
pub const HISTORY: usize = 5;

/// A streaming window of `dtype` (float32, or int8 with scale 0.5 and zero point -5):
/// `frame[1,1,F]` is the new frame; `window[1,T,F]` = READ_VARIABLE(window) ->
/// STRIDED_SLICE(1..T) -> `kept[1,T-1,F]` -> CONCATENATION(kept, frame) along axis 1 ->
/// `concat[1,T,F]` -> ASSIGN_VARIABLE(window) and RESHAPE -> `flat[1,T*F]` (which aliases
/// `concat` with `invoke`: its last reader); READ_VARIABLE(history) -> `history[1,K]`;
/// CONCATENATION(flat, history) -> `concat_1[1,T*F+K]`, the output, whose first K values are
/// assigned to `history` (STRIDED_SLICE -> `next`).
#[must_use]
pub fn streaming_window(dtype: DType) -> Vec<u8> {
    let (t, f, k) = (WINDOW_T as i32, WINDOW_F as i32, HISTORY as i32);
    let mut b = ModelBuilder::new();
    b.description(&format!(
        "stowplan synthetic: streaming_window_{}",
        if dtype == DType::Int8 { "s8" } else { "f32" }
    ));
    let sg = b.subgraph("main");
    let tensor = |b: &mut ModelBuilder, name: &str, shape: &[i32]| {
        if dtype == DType::Int8 {
            b.quantized(sg, name, DType::Int8, shape, (&[0.5], &[-5], 0))
        } else {
            b.tensor(sg, name, dtype, shape)
        }
    };
    let ints = |b: &mut ModelBuilder, name: &str, v: &[i32]| {
        let data: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        b.constant(sg, name, DType::Int32, &[v.len() as i32], &data)
    };
    let slice = stowplan_planner::tflite::OpOptions::StridedSlice {
        begin_mask: 0,
        end_mask: 0,
        ellipsis_mask: 0,
        new_axis_mask: 0,
        shrink_axis_mask: 0,
        offset: false,
    };
    let concatenation = stowplan_planner::tflite::OpOptions::Concatenation {
        axis: 1,
        activation: stowplan_planner::tflite::Activation::None,
    };
    let frame = tensor(&mut b, "frame", &[1, 1, f]);
    let hw = b.tensor(sg, "window/handle", DType::Resource, &[]);
    let hh = b.tensor(sg, "history/handle", DType::Resource, &[]);
    b.op_with_options(sg, ops::VAR_HANDLE, &[], &[hw], var_handle("window"));
    b.op_with_options(sg, ops::VAR_HANDLE, &[], &[hh], var_handle("history"));
    let window = tensor(&mut b, "window", &[1, t, f]);
    b.op(sg, ops::READ_VARIABLE, &[hw], &[window]);
    let (begin, end, strides) = (
        ints(&mut b, "kept/begin", &[0, 1, 0]),
        ints(&mut b, "kept/end", &[1, t, f]),
        ints(&mut b, "kept/strides", &[1, 1, 1]),
    );
    let kept = tensor(&mut b, "kept", &[1, t - 1, f]);
    b.op_with_options(
        sg,
        stowplan_planner::tflite::BuiltinOp::STRIDED_SLICE,
        &[window, begin, end, strides],
        &[kept],
        slice.clone(),
    );
    let concat = tensor(&mut b, "concat", &[1, t, f]);
    b.op_with_options(
        sg,
        ops::CONCATENATION,
        &[kept, frame],
        &[concat],
        concatenation.clone(),
    );
    b.op(sg, ops::ASSIGN_VARIABLE, &[hw, concat], &[]);
    let shape = ints(&mut b, "flat/shape", &[1, t * f]);
    let flat = tensor(&mut b, "flat", &[1, t * f]);
    b.op_with_options(
        sg,
        ops::RESHAPE,
        &[concat, shape],
        &[flat],
        stowplan_planner::tflite::OpOptions::Reshape {
            new_shape: Some(vec![1, t * f]),
        },
    );
    let history = tensor(&mut b, "history", &[1, k]);
    b.op(sg, ops::READ_VARIABLE, &[hh], &[history]);
    let out = tensor(&mut b, "concat_1", &[1, t * f + k]);
    b.op_with_options(
        sg,
        ops::CONCATENATION,
        &[flat, history],
        &[out],
        concatenation,
    );
    let (begin, end, strides) = (
        ints(&mut b, "next/begin", &[0, 0]),
        ints(&mut b, "next/end", &[1, k]),
        ints(&mut b, "next/strides", &[1, 1]),
    );
    let next = tensor(&mut b, "next", &[1, k]);
    b.op_with_options(
        sg,
        stowplan_planner::tflite::BuiltinOp::STRIDED_SLICE,
        &[out, begin, end, strides],
        &[next],
        slice,
    );
    b.op(sg, ops::ASSIGN_VARIABLE, &[hh, next], &[]);
    b.io(sg, &[frame], &[out]);
    b.finish()
}

/// [`streaming_window`] in float32.
#[must_use]
pub fn streaming_window_f32() -> Vec<u8> {
    streaming_window(F32)
}

/// [`streaming_window`] in int8.
#[must_use]
pub fn streaming_window_s8() -> Vec<u8> {
    streaming_window(DType::Int8)
}

/// int8 `x[1,1,1,4]` -> CONV_2D 1x1 (identity weights, scale 1) -> `a` -> CIRCULAR_BUFFER
/// (3 slots, `cycles_max` 2) -> `w[1,3,1,4]` -> CONV_2D 3x1 VALID ([`CB_FILTER`], scale 1) ->
/// `y[1,1,1,4]`. Every scale is 1 and every zero point 0, so `y[o] = clamp(sum(w * f))`.
#[must_use]
pub fn circular_buffer() -> Vec<u8> {
    use stowplan_planner::tflite::flexbuffer::{WriteValue, write_map};
    use stowplan_planner::tflite::{Activation, OpOptions, Padding};
    let mut b = ModelBuilder::new();
    b.description("stowplan synthetic: circular_buffer");
    let sg = b.subgraph("main");
    let q = |b: &mut ModelBuilder, name: &str, shape: &[i32]| {
        b.quantized(sg, name, DType::Int8, shape, (&[1.0], &[0], 0))
    };
    let x = q(&mut b, "x", &[1, 1, 1, 4]);
    let identity: Vec<u8> = (0..16).map(|i| u8::from(i % 5 == 0)).collect();
    let f1 = b.quantized_constant(
        sg,
        "f1",
        DType::Int8,
        &[4, 1, 1, 4],
        (&[1.0], &[0], 0),
        &identity,
    );
    let f2: Vec<u8> = CB_FILTER.iter().map(|&v| v as u8).collect();
    let f2 = b.quantized_constant(sg, "f2", DType::Int8, &[4, 3, 1, 4], (&[1.0], &[0], 0), &f2);
    let a = q(&mut b, "a", &[1, 1, 1, 4]);
    let w = q(&mut b, "w", &[1, 3, 1, 4]);
    let y = q(&mut b, "y", &[1, 1, 1, 4]);
    let conv = OpOptions::Conv2D {
        padding: Padding::Valid,
        stride_w: 1,
        stride_h: 1,
        dilation_w: 1,
        dilation_h: 1,
        activation: Activation::None,
    };
    b.op_with_options(sg, ops::CONV_2D, &[x, f1, -1], &[a], conv.clone());
    let options = write_map(&[("cycles_max", WriteValue::Int(2))], 1);
    b.custom_with_options(sg, "CIRCULAR_BUFFER", &[a], &[w], &options);
    b.op_with_options(sg, ops::CONV_2D, &[w, f2, -1], &[y], conv);
    b.io(sg, &[x], &[y]);
    b.finish()
}

/// Code generation options as the tests use them: module `module` of `m.tflite` (relative to
/// the manifest), the runtime as `::stowplan`, no budget, no fallback and no op marks, `invoke` as
/// given.
#[must_use]
pub fn test_codegen(module: &str, invoke: bool) -> stowplan_planner::codegen::Codegen {
    stowplan_planner::codegen::Codegen {
        module: module.into(),
        runtime: syn::parse_quote!(::stowplan),
        model_path: "m.tflite".into(),
        model_file: stowplan_planner::codegen::ModelFile::ManifestRelative("m.tflite".into()),
        budget: None,
        invoke,
        fallback: None,
        op_marks: None,
    }
}
