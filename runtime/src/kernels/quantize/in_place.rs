//! QUANTIZE (int8 to int8, int16 to int16 or int8) with its output over the input it consumes:
//! element by element through the in-place driver's elementwise walk.

use super::{Requantize, requantized, to_s8, to_s16};
use crate::kernels::shared::in_place::{elementwise, elementwise_on_one_buffer};

elementwise_on_one_buffer! {
    /// [`requantize_s8`](super::requantize_s8) on one buffer.
    requantize_s8(Requantize, i8) => |p, x| to_s8(requantized(p, i32::from(x)));
    /// [`requantize_s16`](super::requantize_s16) on one buffer.
    requantize_s16(Requantize, i16) => |p, x| to_s16(requantized(p, i32::from(x)));
}

/// [`requantize_s16_s8`](super::requantize_s16_s8) on one buffer of bytes (as `i8`): `len` elements, the int16
/// input's from byte `input_at` (width 2, each element's two bytes in the machine's order, as
/// an int16 view of the arena holds them), the int8
/// output's from byte `output_at`; `false` (nothing written) unless [`elementwise_fits`](crate::kernels::overlap::elementwise_fits) and
/// both fit in `buf`.
#[inline(never)]
pub fn requantize_s16_s8(
    p: &Requantize,
    buf: &mut [i8],
    input_at: usize,
    output_at: usize,
    len: usize,
) -> bool {
    elementwise(buf, input_at, output_at, len, 2, |x| match *x {
        [b0, b1] => {
            // The element's two bytes as an int16 view holds them: in the machine's order.
            let x = i16::from_ne_bytes([b0.to_ne_bytes()[0], b1.to_ne_bytes()[0]]);
            to_s8(requantized(p, i32::from(x)))
        }
        _ => 0,
    })
}
