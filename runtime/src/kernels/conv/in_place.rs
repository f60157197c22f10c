//! CONV_2D with its output over the input it consumes: each kernel's one-buffer entry, its
//! check and its proven entry, the in-place driver (`shared::in_place`) running the kernel on
//! each chunk's part.

use crate::kernels::shared::in_place::on_one_buffer;
use crate::kernels::shared::{ConvF32, ConvS8, ConvS16};

on_one_buffer! {
    mod proven_conv;
    /// [`conv2d_s8`](super::conv2d_s8) on one buffer.
    conv2d_s8, check_conv2d_s8 =>
        crate::kernels::conv::conv2d_s8_part, super::check_conv2d_s8, (ConvS8, i8, i8, i32);
    /// [`conv2d_s8`](super::conv2d_s8) on one buffer with its kernel chosen when the crate
    /// compiled (`K`: see [`kernel`](super::kernel)); only that kernel is linked. The widened
    /// 1 x 1 kernels walk the buffer a pixel pair at a time without the driver.
    conv2d_s8_with<K> (crate::kernels::conv::conv2d_s8_own_walk::<K>), check_conv2d_s8_with =>
        crate::kernels::conv::conv2d_s8_part_with::<K>, super::check_conv2d_s8_with::<K>, (ConvS8, i8, i8, i32);
    /// [`conv2d_s8_i4`](super::conv2d_s8_i4) on one buffer.
    conv2d_s8_i4, check_conv2d_s8_i4 =>
        crate::kernels::conv::conv2d_s8_i4_part, super::check_conv2d_s8_i4, (ConvS8, i8, u8, i32);
    /// [`conv2d_s16`](super::conv2d_s16) on one buffer.
    conv2d_s16, check_conv2d_s16 =>
        crate::kernels::conv::conv2d_s16_part, super::check_conv2d_s16, (ConvS16, i16, i8, i64);
    /// [`conv2d_s16_acc32`](super::conv2d_s16_acc32) on one buffer.
    conv2d_s16_acc32, check_conv2d_s16_acc32 =>
        crate::kernels::conv::conv2d_s16_acc32_part, super::check_conv2d_s16_acc32, (ConvS16, i16, i8, i32);
    /// [`conv2d_f32`](super::conv2d_f32) on one buffer.
    conv2d_f32, check_conv2d_f32 =>
        crate::kernels::conv::conv2d_f32_part, super::check_conv2d_f32, (ConvF32, f32, f32, f32);
}

/// The preconditions of the one-buffer
/// [`conv2d_s8_with_scratch`](proven_conv_scratch::conv2d_s8_with_scratch) with kernel `K` and
/// scratch of `scratch` words: [`check_conv2d_s8_with`]'s, and that the kernel takes scratch
/// for the geometry and `scratch` holds it
/// ([`conv2d_s8_scratch`](super::kernel::conv2d_s8_scratch) words). Generated code asserts it
/// when the crate compiles.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_conv2d_s8_with_scratch<const K: u8>(
    p: &ConvS8,
    buf: usize,
    input_at: usize,
    output_at: usize,
    filter: usize,
    bias: Option<usize>,
    scratch: usize,
) -> Result<(), crate::kernels::KernelError> {
    match check_conv2d_s8_with::<K>(p, buf, input_at, output_at, filter, bias) {
        Ok(()) => super::scratch_holds::<K>(p, scratch),
        Err(e) => Err(e),
    }
}

/// The one-buffer entry with scratch generated code calls once it has asserted its check.
#[doc(hidden)]
pub mod proven_conv_scratch {
    use super::ConvS8;

    /// [`conv2d_s8_with`](super::proven_conv::conv2d_s8_with) with kernel `K`'s working
    /// memory in `scratch` (planned in the arena), not on the stack: the widened 1 x 1 pixel
    /// pairs and the window kernel's whole windows walk the buffer without the driver (where
    /// they decline, the driver runs the portable kernel or `K`'s chunks). Its
    /// [check](super::check_conv2d_s8_with_scratch) proven.
    #[inline(never)]
    pub fn conv2d_s8_with_scratch<const K: u8>(
        p: &ConvS8,
        buf: &mut [i8],
        input_at: usize,
        output_at: usize,
        filter: &[i8],
        bias: Option<&[i32]>,
        scratch: &mut [u32],
    ) {
        debug_assert!(
            super::check_conv2d_s8_with_scratch::<K>(
                p,
                buf.len(),
                input_at,
                output_at,
                filter.len(),
                bias.map(<[i32]>::len),
                scratch.len()
            )
            .is_ok()
        );
        use crate::kernels::conv::kernel::{KERNEL_BITS, PORTABLE, WINDOW, widened_channels};
        #[cfg(stowplan_dsp)]
        {
            use crate::kernels::conv::dsp::{pointwise, window};
            let at = (input_at, output_at);
            let ran = if widened_channels(K).is_some() {
                pointwise::widened_on_one_buffer_s8::<K>(p, buf, at, filter, bias, Some(scratch))
            } else {
                K & KERNEL_BITS == WINDOW
                    && window::window_on_one_buffer_s8::<K>(p, buf, at, filter, bias, Some(scratch))
            };
            if ran {
                return;
            }
        }
        let _ = &scratch;
        if widened_channels(K).is_some() || K & KERNEL_BITS != WINDOW {
            super::proven_conv::conv2d_s8_with::<PORTABLE>(
                p, buf, input_at, output_at, filter, bias,
            );
        } else {
            super::proven_conv::conv2d_s8_with::<K>(p, buf, input_at, output_at, filter, bias);
        }
    }
}
