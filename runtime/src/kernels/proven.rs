//! The table of the kernels' proven entries: what generated code calls once it has asserted,
//! when the crate compiled, the kernel's `check_*` on the lengths of the views it passes. Each
//! is its public entry without the run-time check (asserted in debug builds); not public API.

pub use super::activations::proven::*;
pub use super::add::proven::*;
pub use super::arg_min_max::proven::*;
pub use super::cast::proven::*;
pub use super::ceil::proven::*;
pub use super::concatenation::proven::*;
pub use super::conv::proven::*;
pub use super::cumsum::proven::*;
pub use super::depthwise_conv::proven::*;
pub use super::dequantize::proven::*;
pub use super::elementwise::proven::*;
pub use super::elu::proven::*;
pub use super::exp::proven::*;
pub use super::fill::proven::*;
pub use super::floor::proven::*;
pub use super::fully_connected::proven::*;
pub use super::hard_swish::proven::*;
pub use super::l2_pool::proven::*;
pub use super::l2norm::proven::*;
pub use super::leaky_relu::proven::*;
pub use super::log_softmax::proven::*;
pub use super::logistic::proven::*;
pub use super::mirror_pad::proven::*;
pub use super::mul::proven::*;
pub use super::neg::proven::*;
pub use super::pad::proven::*;
pub use super::pooling::proven::*;
pub use super::quantize::proven::*;
pub use super::reduce::proven::*;
pub use super::round::proven::*;
pub use super::softmax::proven::*;
pub use super::tanh::proven::*;

/// The one-buffer entries' proven twins (`kernels::overlap`'s, their checks asserted).
pub mod overlap {
    pub use crate::kernels::activations::in_place::proven_activations::*;
    pub use crate::kernels::add::in_place::proven_add::*;
    pub use crate::kernels::concatenation::in_place::proven_concatenation::*;
    pub use crate::kernels::conv::in_place::proven_conv::*;
    pub use crate::kernels::depthwise_conv::in_place::proven_depthwise_conv::*;
    pub use crate::kernels::dequantize::in_place::proven_dequantize::*;
    pub use crate::kernels::elu::in_place::proven_elu::*;
    pub use crate::kernels::fully_connected::in_place::proven_fully_connected::*;
    pub use crate::kernels::hard_swish::in_place::proven_hard_swish::*;
    pub use crate::kernels::leaky_relu::in_place::proven_leaky_relu::*;
    pub use crate::kernels::logistic::in_place::proven_logistic::*;
    pub use crate::kernels::mul::in_place::proven_mul::*;
    pub use crate::kernels::pad::in_place::proven_pad::*;
    pub use crate::kernels::pooling::in_place::proven_pooling::*;
    pub use crate::kernels::quantize::in_place::proven_quantize::*;
    pub use crate::kernels::tanh::in_place::proven_tanh::*;
}
