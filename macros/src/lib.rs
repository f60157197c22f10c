//! `include_model!`, the proc-macro front door of stowplan. Use it through the `stowplan`
//! crate (`stowplan::include_model!`), whose docs describe the input and the generated module.
//!
//! This crate is a thin shell: parsing, planning and code generation all live in
//! `stowplan-planner` (`codegen::request::expand`), so the macro's expansion and the file the
//! `build.rs` helper writes are the same tokens.
#![forbid(unsafe_code)]

use proc_macro::TokenStream;

/// Plans a TFLite model at compile time and expands to a module describing its arena.
///
/// The following restrictions apply to the input:
///
/// - the first argument is the model path as a string literal, **relative to the calling
///   crate's `Cargo.toml`** (absolute paths are refused: they only work on one machine);
/// - every tensor that needs memory must have a static shape (`-1` dimensions need a `shape`
///   option) and a type with a fixed size (not STRING or VARIANT); any op, builtin or custom,
///   can be planned;
/// - a model whose `OfflineMemoryAllocation` plan aliases tensors live at the same time (Vela
///   does this) is refused unless `offline = "replan"`;
/// - option values are literals: a proc macro cannot evaluate named constants, so
///   `budget = MY_BUDGET` is an error; write `budget = 48 * 1024` or `budget = "48 KiB"`, or
///   leave the budget out and check the constant after the macro
///   (`const _: () = assert!(net::RAM_BYTES <= MY_BUDGET);`); `stowplan_build::Config::budget`
///   takes a constant.
///
/// Options (each at most once, except `shape`):
///
/// | option | value |
/// |---|---|
/// | `budget` | integer literal arithmetic (`+ - * / <<`) or a size string (`"48 KiB"`, `"1.5 MiB"`, `"49152"`; binary units, case-insensitive; `"4MB"` and `"64K"` are refused as ambiguous): the arena and the state must fit, else a compile error on this argument says by how much, where the peak is, and what would help |
/// | `align` | a power of two up to 4,096 (default 16, as TFLite Micro): every offset and size, and above 16 the arena's address too |
/// | `planner` | a planner name (`"greedy"`, `"linear"`) |
/// | `name` | the module's name (default: the file stem in snake case) |
/// | `crate` | the runtime crate's path if renamed (default `::stowplan`) |
/// | `shape` | `"T=DIMS"` for a tensor with `-1` dimensions (`T` an index in subgraph 0 or a name) |
/// | `offline` | `"honour"` (default) or `"replan"` an offline plan |
/// | `invoke` | `true`: generate `invoke`, which runs every op with the runtime's kernels (feature `kernels` of `stowplan`); an op without a kernel is a compile error naming it |
/// | `fallback` | with `invoke = true`, a module path (`crate::my_ops`) whose `op_N` functions run the ops without a kernel on their planned views |
/// | `dynamic` | `"plan"` (default: a `-1` dimension needs a `shape`) or `"cache"`: tensors with `-1` dimensions come from a `BufferCache` at run time, listed in the module's `dynamic` |
///
/// The model's inputs and outputs have names that do not depend on the converter's:
/// `net::inputs::INPUT_0`, `net::outputs::OUTPUT_0`, ... (the same slots as the constants named
/// after the tensors).
///
/// Editing the model file recompiles the crate (the module tracks it with an unused
/// `include_bytes!`, which costs no flash). `STOWPLAN_MANIFEST_DIR`, if set, replaces
/// `CARGO_MANIFEST_DIR` for resolving the path (for test harnesses such as trybuild).
///
/// The generated module is described in the `stowplan` crate docs.
#[proc_macro]
pub fn include_model(input: TokenStream) -> TokenStream {
    stowplan_planner::codegen::request::expand(input.into(), None).into()
}

/// Plans several TFLite models that run one at a time and expands to a module in which they
/// share one arena, as large as the largest model's.
///
/// ```text
/// include_models!(
///     name = audio,                 // the group's module (default `models`)
///     budget = 64 * 1024,           // for the shared arena and every model's state
///     crate = ::stowplan,           // the runtime crate's path, if renamed
///     model("models/kws.tflite", invoke = true),
///     model("models/cmd.tflite", invoke = true, name = cmd),
/// )
/// ```
///
/// Each `model(...)` takes the path and the options of [`include_model!`] but `budget` and
/// `crate`, which the group has once. Each model's module (`audio::kws`) is the one
/// `include_model!` generates for it alone; the group adds the shared `audio::Arena` and, per
/// model, `audio::kws(&mut arena) -> &mut audio::kws::Arena`, which borrows the shared arena, so
/// that two models' arenas or views are never alive at once. Each model keeps its own persistent
/// region (state is never shared). Over budget, the error names the model whose arena sets the
/// shared one and its op at the peak.
///
/// The generated module is described in the `stowplan` crate docs.
#[proc_macro]
pub fn include_models(input: TokenStream) -> TokenStream {
    stowplan_planner::codegen::request::expand_group(input.into(), None).into()
}
