//! The float functions TensorFlow Lite Micro's kernels call from the C library, in plain IEEE
//! arithmetic, so that the runtime's kernels (on the device) and the planner (at build time,
//! for tables) compute the same bits on every target, with or without a hardware FPU, and the
//! same bits as TFLM built against glibc.
//!
//! `core` has no float functions beyond the basic operations; these are written from the
//! algorithms the C libraries use (named in each function's docs) and tested against the host's
//! C library.
//!
//! **Internal to stowplan; the API is not semver-stable.**
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod exp;
mod exp64;
mod rounding;
mod sqrt;

pub use exp::expf;
pub use exp64::exp;
pub use rounding::{ceilf, floorf, roundf, truncf};
pub use sqrt::sqrtf;

#[cfg(test)]
extern crate std;
