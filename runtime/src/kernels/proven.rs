//! The table of the kernels' proven entries: what generated code calls once it has asserted,
//! when the crate compiled, the kernel's `check_*` on the lengths of the views it passes. Each
//! is its public entry without the run-time check (asserted in debug builds); not public API.

pub use super::conv::proven::*;
pub use super::depthwise_conv::proven::*;

/// The one-buffer entries' proven twins (`kernels::overlap`'s, their checks asserted).
pub mod overlap {
    pub use crate::kernels::conv::in_place::proven_conv::*;
    pub use crate::kernels::depthwise_conv::in_place::proven_depthwise_conv::*;
}
