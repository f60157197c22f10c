//! The table of the kernels' proven entries: what generated code calls once it has asserted,
//! when the crate compiled, the kernel's `check_*` on the lengths of the views it passes. Each
//! is its public entry without the run-time check (asserted in debug builds); not public API.

pub use super::add::proven::*;
pub use super::concatenation::proven::*;
pub use super::conv::proven::*;
pub use super::depthwise_conv::proven::*;
pub use super::fully_connected::proven::*;
pub use super::l2_pool::proven::*;
pub use super::mirror_pad::proven::*;
pub use super::mul::proven::*;
pub use super::pad::proven::*;
pub use super::pooling::proven::*;

/// The one-buffer entries' proven twins (`kernels::overlap`'s, their checks asserted).
pub mod overlap {
    pub use crate::kernels::add::in_place::proven_add::*;
    pub use crate::kernels::concatenation::in_place::proven_concatenation::*;
    pub use crate::kernels::conv::in_place::proven_conv::*;
    pub use crate::kernels::depthwise_conv::in_place::proven_depthwise_conv::*;
    pub use crate::kernels::fully_connected::in_place::proven_fully_connected::*;
    pub use crate::kernels::mul::in_place::proven_mul::*;
    pub use crate::kernels::pad::in_place::proven_pad::*;
    pub use crate::kernels::pooling::in_place::proven_pooling::*;
}
