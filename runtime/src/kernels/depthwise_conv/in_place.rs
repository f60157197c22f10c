//! DEPTHWISE_CONV_2D with its output over the input it consumes: each kernel's one-buffer
//! entry, its check and its proven entry, the in-place driver (`shared::in_place`) running the
//! kernel on each chunk's part.

use crate::kernels::shared::in_place::on_one_buffer;
use crate::kernels::shared::{ConvF32, ConvS8, ConvS16};

on_one_buffer! {
    mod proven_depthwise_conv;
    /// [`depthwise_conv2d_s8`](super::depthwise_conv2d_s8) on one buffer.
    depthwise_conv2d_s8, check_depthwise_conv2d_s8 =>
        crate::kernels::depthwise_conv::depthwise_conv2d_s8_part,
        super::check_depthwise_conv2d_s8, (ConvS8, i8, i8, i32);
    /// [`depthwise_conv2d_s8`](super::depthwise_conv2d_s8) on one buffer with its kernel
    /// chosen when the crate compiled (`K`: see [`kernel`](super::kernel)); only that kernel
    /// is linked. The taps kernel runs the driver's chunks with its set-up made once.
    depthwise_conv2d_s8_with<K> (crate::kernels::depthwise_conv::depthwise_conv2d_s8_own_walk::<K>), check_depthwise_conv2d_s8_with =>
        crate::kernels::depthwise_conv::depthwise_conv2d_s8_part_with::<K>,
        super::check_depthwise_conv2d_s8_with::<K>, (ConvS8, i8, i8, i32);
    /// [`depthwise_conv2d_s8_i4`](super::depthwise_conv2d_s8_i4) on one buffer.
    depthwise_conv2d_s8_i4, check_depthwise_conv2d_s8_i4 =>
        crate::kernels::depthwise_conv::depthwise_conv2d_s8_i4_part,
        super::check_depthwise_conv2d_s8_i4, (ConvS8, i8, u8, i32);
    /// [`depthwise_conv2d_s16`](super::depthwise_conv2d_s16) on one buffer.
    depthwise_conv2d_s16, check_depthwise_conv2d_s16 =>
        crate::kernels::depthwise_conv::depthwise_conv2d_s16_part,
        super::check_depthwise_conv2d_s16, (ConvS16, i16, i8, i64);
    /// [`depthwise_conv2d_f32`](super::depthwise_conv2d_f32) on one buffer.
    depthwise_conv2d_f32, check_depthwise_conv2d_f32 =>
        crate::kernels::depthwise_conv::depthwise_conv2d_f32_part,
        super::check_depthwise_conv2d_f32, (ConvF32, f32, f32, f32);
}
