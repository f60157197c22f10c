//! QUANTIZE (int8 to int8, int16 to int16 or int8) with its output over the input it consumes:
//! element by element through the in-place driver's elementwise walk.

use super::{Requantize, requantized, to_s8, to_s16};
use crate::kernels::KernelError;
use crate::kernels::shared::in_place::{
    elementwise, elementwise_on_one_buffer, elementwise_placement,
};

elementwise_on_one_buffer! {
    mod proven_quantize {
        /// [`requantize_s16_s8`](super::requantize_s16_s8), its check proven.
        #[inline(never)]
        pub fn requantize_s16_s8(
            p: &Requantize,
            buf: &mut [i8],
            input_at: usize,
            output_at: usize,
            len: usize,
        ) {
            debug_assert!(super::check_requantize_s16_s8(p, buf.len(), input_at, output_at, len).is_ok());
            let ran = elementwise(buf, input_at, output_at, len, 2, |x| match *x {
                [b0, b1] => {
                    // The element's two bytes as an int16 view holds them: in the machine's
                    // order.
                    let x = i16::from_ne_bytes([b0.to_ne_bytes()[0], b1.to_ne_bytes()[0]]);
                    to_s8(requantized(p, i32::from(x)))
                }
                _ => 0,
            });
            debug_assert!(ran, "the walk refused what its check accepts");
        }
    };
    /// [`requantize_s8`](super::requantize_s8) on one buffer.
    requantize_s8, check_requantize_s8 (Requantize, i8) => value(|p, x| to_s8(requantized(p, i32::from(x))));
    /// [`requantize_s16`](super::requantize_s16) on one buffer.
    requantize_s16, check_requantize_s16 (Requantize, i16) => value(|p, x| to_s16(requantized(p, i32::from(x))));
}

/// [`requantize_s16_s8`](super::requantize_s16_s8) on one buffer of bytes (as `i8`): `len`
/// elements, the int16 input's from byte `input_at` (width 2, each element's two bytes in the
/// machine's order, as an int16 view of the arena holds them), the int8 output's from byte
/// `output_at`: both inside `buf`, apart or the input at or above the output
/// ([`elementwise_fits`](crate::kernels::overlap::elementwise_fits), width 2).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless [`check_requantize_s16_s8`] holds.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn requantize_s16_s8(
    p: &Requantize,
    buf: &mut [i8],
    input_at: usize,
    output_at: usize,
    len: usize,
) -> Result<(), KernelError> {
    check_requantize_s16_s8(p, buf.len(), input_at, output_at, len)?;
    proven_quantize::requantize_s16_s8(p, buf, input_at, output_at, len);
    Ok(())
}

/// The preconditions of [`requantize_s16_s8`], on the buffer's length in bytes: the input's
/// `2 * len` bytes and the output's `len` inside it, apart or the input at or above the output.
/// Generated code asserts it when the crate compiles.
///
/// # Errors
///
/// [`KernelError::Placement`] otherwise.
pub const fn check_requantize_s16_s8(
    _: &Requantize,
    buf: usize,
    input_at: usize,
    output_at: usize,
    len: usize,
) -> Result<(), KernelError> {
    elementwise_placement(buf, input_at, output_at, len, 2)
}
