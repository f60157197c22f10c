//! The table of the kernels' proven entries: what generated code calls once it has asserted,
//! when the crate compiled, the kernel's `check_*` on the lengths of the views it passes. Each
//! is its public entry without the run-time check (asserted in debug builds); not public API.

pub use super::add_n::proven::*;
pub use super::batch_matmul::proven::*;
pub use super::batch_to_space_nd::proven::*;
pub use super::broadcast_args::proven::*;
pub use super::broadcast_to::proven::*;
pub use super::circular_buffer::proven::*;
pub use super::comparisons::proven::*;
pub use super::conv::proven::*;
pub use super::densify::proven::*;
pub use super::depth_to_space::proven::*;
pub use super::depthwise_conv::proven::*;
pub use super::detection_postprocess::proven::*;
pub use super::div::proven::*;
pub use super::dynamic_update_slice::proven::*;
pub use super::embedding_lookup::proven::*;
pub use super::floor_div::proven::*;
pub use super::floor_mod::proven::*;
pub use super::gather::proven::*;
pub use super::gather_nd::proven::*;
pub use super::logical::proven::*;
pub use super::maximum_minimum::proven::*;
pub use super::pack::proven::*;
pub use super::prelu::proven::*;
pub use super::reshape::proven::*;
pub use super::resize_bilinear::proven::*;
pub use super::resize_nearest_neighbor::proven::*;
pub use super::reverse::proven::*;
pub use super::select::proven::*;
pub use super::shape::proven::*;
pub use super::signal_delay::proven::*;
pub use super::signal_energy::proven::*;
pub use super::signal_fft_auto_scale::proven::*;
pub use super::signal_filter_bank::proven::*;
pub use super::signal_filter_bank_log::proven::*;
pub use super::signal_filter_bank_spectral_subtraction::proven::*;
pub use super::signal_filter_bank_square_root::proven::*;
pub use super::signal_pcan::proven::*;
pub use super::signal_rfft::proven::*;
pub use super::signal_window::proven::*;
pub use super::slice::proven::*;
pub use super::space_to_batch_nd::proven::*;
pub use super::space_to_depth::proven::*;
pub use super::split::proven::*;
pub use super::split_v::proven::*;
pub use super::squared_difference::proven::*;
pub use super::strided_slice::proven::*;
pub use super::sub::proven::*;
pub use super::svdf::proven::*;
pub use super::transpose::proven::*;
pub use super::transpose_conv::proven::*;
pub use super::unidirectional_sequence_lstm::proven::*;
pub use super::unpack::proven::*;

/// The one-buffer entries' proven twins (`kernels::overlap`'s, their checks asserted).
pub mod overlap {
    pub use crate::kernels::conv::in_place::proven_conv::*;
    pub use crate::kernels::depthwise_conv::in_place::proven_depthwise_conv::*;
}
