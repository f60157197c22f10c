//! AVERAGE_POOL_2D and MAX_POOL_2D with the output over the input they consume: a pool is
//! walked as the depthwise convolution with its window ([`pool_walk`]): the same elements read
//! and written in the same order, by the in-place driver (`shared::in_place`).

use super::{PoolF32, PoolGeometry, PoolS8, PoolS16};
use crate::kernels::shared::ConvGeometry;
use crate::kernels::shared::in_place::{Steps, fits, shaped};

shaped!(PoolGeometry);

/// The geometry the driver walks for AVERAGE_POOL_2D and MAX_POOL_2D of geometry `g`: a
/// depthwise convolution's with the pool's window (depth multiplier 1, no dilation), which reads
/// and writes the same elements in the same order.
#[must_use]
pub const fn pool_walk(g: &PoolGeometry) -> ConvGeometry {
    ConvGeometry {
        input: g.input,
        filter: [1, g.filter_h, g.filter_w, g.input[3]],
        output: g.output,
        stride_h: g.stride_h,
        stride_w: g.stride_w,
        dilation_h: 1,
        dilation_w: 1,
        pad_h: g.pad_h,
        pad_w: g.pad_w,
        depth_multiplier: 1,
    }
}

/// [`fits`] for a pool of geometry `g` ([`pool_walk`]): generated code asserts it at compile
/// time for the offsets it was planned with.
#[must_use]
pub const fn pool_fits(g: &PoolGeometry, input_at: usize, output_at: usize) -> bool {
    g.output[3] == g.input[3] && fits(&pool_walk(g), input_at, output_at)
}
/// One buffer's entry point for each AVERAGE_POOL_2D and MAX_POOL_2D kernel: the driver's loop
/// over [`pool_walk`] with the kernel on each chunk's part, as `on_one_buffer`'s.
macro_rules! pool_on_one_buffer {
    ($($(#[$doc:meta])* $name:ident => $kernel:path, ($params:ident, $t:ty);)*) => {$(
        $(#[$doc])*
        ///
        /// The input's elements at `buf[input_at..]`, the output's at `buf[output_at..]`. Returns
        /// `true` when every chunk ran: the two share no element, or the input starts far
        /// enough above the output ([`pool_fits`]); `false` when a tensor does not fit in `buf`
        /// or the input and output channels differ (nothing written) or the input lies too
        /// close (the output is then written only up to the pixel that could not run).
        #[inline(never)]
        pub fn $name(p: &$params, buf: &mut [$t], input_at: usize, output_at: usize) -> bool {
            let walk = pool_walk(&p.geometry);
            if p.geometry.output[3] != p.geometry.input[3] {
                return false;
            }
            let Some(mut steps) = Steps::new(&walk, buf.len(), input_at, output_at) else {
                return false;
            };
            let mut q = *p;
            while let Some(run) = steps.next(&walk, &mut q.geometry) {
                let Some(run) = run else {
                    return false;
                };
                let (input, output) = run.slices(buf);
                $kernel(&q, run.part, input, output);
            }
            true
        }
    )*};
}

pool_on_one_buffer! {
    /// [`super::average_pool_s8`] on one buffer.
    average_pool_s8 => super::average_pool_s8_part, (PoolS8, i8);
    /// [`super::max_pool_s8`] on one buffer.
    max_pool_s8 => super::max_pool_s8_part, (PoolS8, i8);
    /// [`super::average_pool_s16`] on one buffer.
    average_pool_s16 => super::average_pool_s16_part, (PoolS16, i16);
    /// [`super::max_pool_s16`] on one buffer.
    max_pool_s16 => super::max_pool_s16_part, (PoolS16, i16);
    /// [`super::average_pool_f32`] on one buffer.
    average_pool_f32 => super::average_pool_f32_part, (PoolF32, f32);
    /// [`super::max_pool_f32`] on one buffer.
    max_pool_f32 => super::max_pool_f32_part, (PoolF32, f32);
}
