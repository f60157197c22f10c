//! AVERAGE_POOL_2D and MAX_POOL_2D with the output over the input they consume: a pool is
//! walked as the depthwise convolution with its window ([`pool_walk`]): the same elements read
//! and written in the same order, by the in-place driver (`shared::in_place`).

use super::{PoolF32, PoolGeometry, PoolS8, PoolS16};
use crate::kernels::KernelError;
use crate::kernels::shared::ConvGeometry;
use crate::kernels::shared::in_place::{Steps, fits, shaped, window_placement};

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
/// One buffer's entry point for each AVERAGE_POOL_2D and MAX_POOL_2D kernel (`$name`), its
/// check (`$check_name`: the placement, [`pool_fits`], and the kernel's own `$check` on the
/// geometry's lengths) and its proven entry (`$proven::$name`, what generated code calls): the
/// driver's loop over [`pool_walk`] with the kernel on each chunk's part, as `on_one_buffer`'s.
macro_rules! pool_on_one_buffer {
    (mod $proven:ident; $($(#[$doc:meta])* $name:ident, $check_name:ident => $kernel:path, $check:path, ($params:ident, $t:ty);)*) => {
        $(
        $(#[$doc])*
        ///
        /// The input's elements at `buf[input_at..]`, the output's at `buf[output_at..]`: the two
        /// share no element, or the input starts far enough above the output ([`pool_fits`]).
        ///
        /// # Errors
        ///
        #[doc = concat!("[`KernelError`], with nothing written, unless [`", stringify!($check_name), "`] holds.")]
        #[must_use = "the kernel writes nothing when it returns an error"]
        pub fn $name(
            p: &$params,
            buf: &mut [$t],
            input_at: usize,
            output_at: usize,
        ) -> Result<(), KernelError> {
            $check_name(p, buf.len(), input_at, output_at)?;
            $proven::$name(p, buf, input_at, output_at);
            Ok(())
        }

        #[doc = concat!("The preconditions of [`", stringify!($name), "`], on the buffer's length: the placement of the input and the output in the buffer (both inside it, and [`pool_fits`]) and the two-buffer kernel's check on the lengths the geometry gives them. Generated code asserts it when the crate compiles.")]
        ///
        /// # Errors
        ///
        /// The first that does not hold.
        pub const fn $check_name(
            p: &$params,
            buf: usize,
            input_at: usize,
            output_at: usize,
        ) -> Result<(), KernelError> {
            let g = &p.geometry;
            if g.output[3] != g.input[3] {
                return Err(KernelError::Parameters("the output's channels are not the input's"));
            }
            match window_placement(&pool_walk(g), buf, input_at, output_at) {
                Ok((input, output)) => $check(p, input, output),
                Err(e) => Err(e),
            }
        }
        )*

        /// The entries generated code calls once it has asserted their checks when the crate
        /// compiled (asserted again in debug builds).
        #[doc(hidden)]
        pub mod $proven {
            use super::*;
            $(
            #[doc = concat!("[`", stringify!($name), "`](super::", stringify!($name), "), its check proven.")]
            #[inline(never)]
            pub fn $name(p: &$params, buf: &mut [$t], input_at: usize, output_at: usize) {
                debug_assert!(super::$check_name(p, buf.len(), input_at, output_at).is_ok());
                let walk = pool_walk(&p.geometry);
                let Some(mut steps) = Steps::new(&walk, buf.len(), input_at, output_at) else {
                    return;
                };
                let mut q = *p;
                while let Some(run) = steps.next(&walk, &mut q.geometry) {
                    // Every chunk runs where the check holds.
                    let Some(run) = run else {
                        debug_assert!(false, "a chunk the driver cannot run where its check holds");
                        return;
                    };
                    let (input, output) = run.slices(buf);
                    $kernel(&q, run.part, input, output);
                }
            }
            )*
        }
    };
}

pool_on_one_buffer! {
    mod proven_pooling;
    /// [`super::average_pool_s8`] on one buffer.
    average_pool_s8, check_average_pool_s8 =>
        crate::kernels::pooling::average_pool_s8_part, super::check_average_pool_s8, (PoolS8, i8);
    /// [`super::max_pool_s8`] on one buffer.
    max_pool_s8, check_max_pool_s8 =>
        crate::kernels::pooling::max_pool_s8_part, super::check_max_pool_s8, (PoolS8, i8);
    /// [`super::average_pool_s16`] on one buffer.
    average_pool_s16, check_average_pool_s16 =>
        crate::kernels::pooling::average_pool_s16_part, super::check_average_pool_s16, (PoolS16, i16);
    /// [`super::max_pool_s16`] on one buffer.
    max_pool_s16, check_max_pool_s16 =>
        crate::kernels::pooling::max_pool_s16_part, super::check_max_pool_s16, (PoolS16, i16);
    /// [`super::average_pool_f32`] on one buffer.
    average_pool_f32, check_average_pool_f32 =>
        crate::kernels::pooling::average_pool_f32_part, super::check_average_pool_f32, (PoolF32, f32);
    /// [`super::max_pool_f32`] on one buffer.
    max_pool_f32, check_max_pool_f32 =>
        crate::kernels::pooling::max_pool_f32_part, super::check_max_pool_f32, (PoolF32, f32);
}
