//! `include_model!`, the proc-macro front door of stowplan (used through the `stowplan` crate).
//!
//! It will resolve a model path relative to the calling crate's `Cargo.toml`, call
//! `stowplan-planner` and return the generated module, turning every error into a compile error
//! on the path literal or on the option it concerns. The macro arrives with the code generation
//! work; until then this crate exports nothing, so nothing can depend on a half-made macro.
#![forbid(unsafe_code)]
