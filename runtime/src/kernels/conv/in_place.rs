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

/// The preconditions of the one-buffer [`conv2d_s8_widened`](proven_conv_widened::conv2d_s8_widened)
/// with kernel `K`, a widened 1 x 1 kernel, and scratch of `scratch` words:
/// [`check_conv2d_s8_with`]'s, and that the scratch holds the pixel pair's widened rows
/// ([`conv2d_s8_scratch`](super::kernel::conv2d_s8_scratch) words). Generated code asserts it
/// when the crate compiles.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_conv2d_s8_widened<const K: u8>(
    p: &ConvS8,
    buf: usize,
    input_at: usize,
    output_at: usize,
    filter: usize,
    bias: Option<usize>,
    scratch: usize,
) -> Result<(), crate::kernels::KernelError> {
    match check_conv2d_s8_with::<K>(p, buf, input_at, output_at, filter, bias) {
        Ok(()) => super::widened_scratch::<K>(p, scratch),
        Err(e) => Err(e),
    }
}

/// The one-buffer entry with scratch generated code calls once it has asserted its check.
#[doc(hidden)]
pub mod proven_conv_widened {
    use super::ConvS8;

    /// [`conv2d_s8_with`](super::proven_conv::conv2d_s8_with) with a widened 1 x 1 kernel `K`
    /// whose pixel pair's widened rows are `scratch` (planned in the arena), not on the stack:
    /// the pixel pairs walk the buffer without the driver. Its
    /// [check](super::check_conv2d_s8_widened) proven.
    #[inline(never)]
    pub fn conv2d_s8_widened<const K: u8>(
        p: &ConvS8,
        buf: &mut [i8],
        input_at: usize,
        output_at: usize,
        filter: &[i8],
        bias: Option<&[i32]>,
        scratch: &mut [u32],
    ) {
        debug_assert!(
            super::check_conv2d_s8_widened::<K>(
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
        #[cfg(stowplan_dsp)]
        if crate::kernels::conv::dsp::pointwise::widened_on_one_buffer_s8::<K>(
            p,
            buf,
            (input_at, output_at),
            filter,
            bias,
            Some(scratch),
        ) {
            return;
        }
        let _ = &scratch;
        super::proven_conv::conv2d_s8_with::<{ crate::kernels::conv::kernel::PORTABLE }>(
            p, buf, input_at, output_at, filter, bias,
        );
    }
}
