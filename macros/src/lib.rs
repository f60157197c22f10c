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
/// See the `stowplan` crate for the input (a model path relative to `Cargo.toml` and options)
/// and the generated module.
#[proc_macro]
pub fn include_model(input: TokenStream) -> TokenStream {
    stowplan_planner::codegen::request::expand(input.into(), None).into()
}
