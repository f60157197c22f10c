//! Hygiene of generated code: `tests/expected/hygiene.rs` (the residual model, generated with
//! `runtime_crate("::renamed_runtime")`) must compile with no prelude and the runtime renamed,
//! so it relies on nothing but fully qualified paths. It is `no_std` too, so CI builds it for
//! `thumbv6m-none-eabi`: the runtime and a generated module on a target without atomics.
#![no_std]
#![no_implicit_prelude]
#![forbid(unsafe_code)]

::core::include!("../../expected/hygiene.rs");

/// The generated constants are usable from here.
pub const ARENA: usize = residual::ARENA_BYTES;
