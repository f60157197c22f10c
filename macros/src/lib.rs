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
///   `budget = MY_BUDGET` is an error; write `budget = 48 * 1024` or `budget = "48 KiB"`.
///
/// Options (each at most once, except `shape`):
///
/// | option | value |
/// |---|---|
/// | `budget` | integer literal arithmetic (`+ - * / <<`) or a size string (`"48 KiB"`, `"1.5 MiB"`, `"49152"`): the arena must fit, else a compile error on this argument says by how much, where the peak is, and what would help |
/// | `align` | a power of two (default 16, as TFLite Micro) |
/// | `planner` | a planner name (`"greedy"`, `"linear"`) |
/// | `name` | the module's name (default: the file stem in snake case) |
/// | `crate` | the runtime crate's path if renamed (default `::stowplan`) |
/// | `shape` | `"T=DIMS"` for a tensor with `-1` dimensions (`T` an index in subgraph 0 or a name) |
/// | `offline` | `"honour"` (default) or `"replan"` an offline plan |
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
