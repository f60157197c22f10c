//! DEQUANTIZE to float32 with its output over the input it consumes: each output element, wider
//! than its input element, written after that is read ([`widening`]), from
//! [`widening_min_displacement`] on.

use super::{Dequantize, DequantizeS8F32};
use crate::kernels::KernelError;
use crate::kernels::shared::in_place::inside_buffer;

/// The least displacement, in buffer elements, of an elementwise op whose output elements are
/// `width` buffer elements wide and its input's one ([`dequantize_s8_f32`], ...): output element
/// `k` is written after input element `k` is read and must lie below input element `k + 1`,
/// `(k + 1) · width ≤ d + k + 1` for every `k` below `len − 1`: `D = (width − 1) · (len − 1)`.
/// `None` for `width` 0 or sizes that overflow.
#[must_use]
pub const fn widening_min_displacement(len: usize, width: usize) -> Option<usize> {
    if width == 0 {
        return None;
    }
    (width - 1).checked_mul(len.saturating_sub(1))
}

/// Whether the widening entries ([`dequantize_s8_f32`], ...) run an op of `len` elements with
/// its input at `input_at` and its output at `output_at` (buffer elements) of one buffer, each
/// output element `width` buffer elements wide: the two share no element, or the input starts
/// at least [`widening_min_displacement`] above the output. Generated code asserts it at
/// compile time.
#[must_use]
pub const fn widening_fits(input_at: usize, output_at: usize, len: usize, width: usize) -> bool {
    let (Some(least), Some(out_len)) = (
        widening_min_displacement(len, width),
        len.checked_mul(width),
    ) else {
        return false;
    };
    let (Some(in_end), Some(out_end)) = (input_at.checked_add(len), output_at.checked_add(out_len))
    else {
        return false;
    };
    if in_end <= output_at || out_end <= input_at {
        return true;
    }
    match input_at.checked_sub(output_at) {
        Some(d) => d >= least,
        None => false,
    }
}

/// An elementwise op widening each element on one buffer: output element `k` (the `W` buffer
/// elements at `output_at + k · W`) is `f` of input element `k` (at `input_at + k`), for `k` in
/// order, each written after its input element is read. Returns `false`, writing nothing,
/// unless [`widening_fits`] and both fit in `buf`.
#[inline(always)]
pub(crate) fn widening<T: Copy, const W: usize>(
    buf: &mut [T],
    input_at: usize,
    output_at: usize,
    len: usize,
    mut f: impl FnMut(T) -> [T; W],
) -> bool {
    if !widening_fits(input_at, output_at, len, W)
        || input_at.saturating_add(len) > buf.len()
        || output_at.saturating_add(len.saturating_mul(W)) > buf.len()
    {
        return false;
    }
    for k in 0..len {
        let value = f(buf[input_at + k]);
        let at = output_at + k * W;
        buf[at..at + W].copy_from_slice(&value);
    }
    true
}

/// The placement the widening entries need: the input's `len` elements at `input_at` and the
/// output's `len` elements of `width` buffer elements at `output_at` both inside a buffer of
/// `buf` elements, and [`widening_fits`].
///
/// # Errors
///
/// [`KernelError::Placement`] otherwise (sizes that overflow too).
const fn widening_placement(
    buf: usize,
    input_at: usize,
    output_at: usize,
    len: usize,
    width: usize,
) -> Result<(), KernelError> {
    match len.checked_mul(width) {
        Some(out_len)
            if inside_buffer(buf, input_at, len, output_at, out_len)
                && widening_fits(input_at, output_at, len, width) =>
        {
            Ok(())
        }
        _ => Err(KernelError::Placement),
    }
}

/// Each widening entry (`$name`, on a buffer of `$t`, the float32 output `$width` elements of
/// it wide), its check (`$check`: [`widening_placement`]; the two-buffer kernel's check holds
/// for two slices of `len` elements) and its proven entry in `proven_dequantize`, with
/// `$bytes`, the output value `o` as the buffer's elements.
macro_rules! widening_on_one_buffer {
    ($($(#[$doc:meta])* $name:ident, $check:ident ($params:ty, $t:ty, $width:literal) => |$o:ident| $bytes:expr;)*) => {
        $(
        $(#[$doc])*
        ///
        /// # Errors
        ///
        #[doc = concat!("[`KernelError`], with nothing written, unless [`", stringify!($check), "`] holds.")]
        #[must_use = "the kernel writes nothing when it returns an error"]
        pub fn $name(
            p: &$params,
            buf: &mut [$t],
            input_at: usize,
            output_at: usize,
            len: usize,
        ) -> Result<(), KernelError> {
            $check(p, buf.len(), input_at, output_at, len)?;
            proven_dequantize::$name(p, buf, input_at, output_at, len);
            Ok(())
        }

        #[doc = concat!("The preconditions of [`", stringify!($name), "`], on the buffer's length: the input's `len` elements and the output's (", stringify!($width), " buffer elements each) inside it, apart or the input at least [`widening_min_displacement`] above the output ([`widening_fits`]). Generated code asserts it when the crate compiles.")]
        ///
        /// # Errors
        ///
        /// [`KernelError::Placement`] otherwise.
        pub const fn $check(
            _: &$params,
            buf: usize,
            input_at: usize,
            output_at: usize,
            len: usize,
        ) -> Result<(), KernelError> {
            widening_placement(buf, input_at, output_at, len, $width)
        }
        )*

        /// The entries generated code calls once it has asserted their checks when the crate
        /// compiled (asserted again in debug builds).
        #[doc(hidden)]
        pub mod proven_dequantize {
            use super::*;
            $(
            #[doc = concat!("[`", stringify!($name), "`](super::", stringify!($name), "), its check proven.")]
            #[inline(never)]
            pub fn $name(p: &$params, buf: &mut [$t], input_at: usize, output_at: usize, len: usize) {
                debug_assert!(super::$check(p, buf.len(), input_at, output_at, len).is_ok());
                let ran = widening(buf, input_at, output_at, len, |x| {
                    let mut o = [0.0_f32];
                    crate::kernels::dequantize::proven::$name(p, &[x], &mut o);
                    let [$o] = o;
                    $bytes
                });
                debug_assert!(ran, "the walk refused what its check accepts");
            }
            )*
        }
    };
}

widening_on_one_buffer! {
    /// [`dequantize_s8_f32`](super::dequantize_s8_f32) on one buffer of bytes (as `i8`): `len`
    /// elements, the input's from byte `input_at`, the float32 output's (four bytes each, in the
    /// machine's byte order, as a float view reads them) from byte `output_at`: both inside
    /// `buf`, apart or the input at least [`widening_min_displacement`] (width 4) above the
    /// output.
    dequantize_s8_f32, check_dequantize_s8_f32 (DequantizeS8F32, i8, 4) =>
        |o| o.to_ne_bytes().map(|b| i8::from_ne_bytes([b]));
    /// [`dequantize_u8_f32`](super::dequantize_u8_f32) on one buffer of bytes: as
    /// [`dequantize_s8_f32`].
    dequantize_u8_f32, check_dequantize_u8_f32 (Dequantize, u8, 4) => |o| o.to_ne_bytes();
    /// [`dequantize_s16_f32`](super::dequantize_s16_f32) on one buffer of halfwords: `len`
    /// elements, the input's from halfword `input_at`, the float32 output's (two halfwords
    /// each, holding its bytes in the machine's order) from halfword `output_at`: both inside
    /// `buf`, apart or the input at least [`widening_min_displacement`] (width 2) above the
    /// output.
    dequantize_s16_f32, check_dequantize_s16_f32 (Dequantize, i16, 2) => |o| {
        let [a, b, c, d] = o.to_ne_bytes();
        [i16::from_ne_bytes([a, b]), i16::from_ne_bytes([c, d])]
    };
}
