//! FULLY_CONNECTED with its output over the input it consumes: its kernel (the portable one, or
//! on Armv7E-M the DSP one) on chunks of consecutive batch rows ([`rows`]), each on two disjoint
//! slices split at the chunk's first input row; a row's output must lie below its own input
//! row: from [`fully_connected_min_displacement`] on (`max(U, B·U − (B−1)·K)` elements).

use crate::kernels::KernelError;
use crate::kernels::shared::in_place::{get, inside_buffer, mul};

/// FULLY_CONNECTED's least displacement in elements (input and output of one element type):
/// batch row `b` writes `[b·U, (b+1)·U)` while it reads input row `b`, `[d + b·K, d + (b+1)·K)`
/// (`U` outputs per row, `K` inputs): the row's output must lie below its input row,
/// `(b+1)·U ≤ d + b·K` for every `b`, so `D = max(U, B·U − (B−1)·K)` over the `B` rows (the
/// difference is linear in `b`). `None` without rows or on overflow.
#[must_use]
pub const fn fully_connected_min_displacement(
    batches: usize,
    depth: usize,
    units: usize,
) -> Option<usize> {
    if batches == 0 || units == 0 {
        return None;
    }
    let last = get!(mul(batches, units));
    let below = get!(mul(batches - 1, depth));
    Some(if last > below && last - below > units {
        last - below
    } else {
        units
    })
}

/// Whether the FULLY_CONNECTED entries ([`fully_connected_s8`], ...) run `batches` rows of
/// `depth` inputs and `units` outputs with the input at `input_at` and the output at
/// `output_at` (elements) of one buffer: the two share no element, or the input starts at least
/// [`fully_connected_min_displacement`] above the output. Generated code asserts it at compile
/// time.
#[must_use]
pub const fn fully_connected_fits(
    batches: usize,
    depth: usize,
    units: usize,
    input_at: usize,
    output_at: usize,
) -> bool {
    let (Some(least), Some(i), Some(o)) = (
        fully_connected_min_displacement(batches, depth, units),
        mul(batches, depth),
        mul(batches, units),
    ) else {
        return false;
    };
    let (Some(in_end), Some(out_end)) = (input_at.checked_add(i), output_at.checked_add(o)) else {
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

/// Rows of a FULLY_CONNECTED on one buffer: the kernel runs on *chunks* of consecutive rows,
/// in order, each on two disjoint slices split at the chunk's first input row: below, the
/// chunk's output rows; above, its input rows. A chunk grows while its last output row ends at
/// or below that split, so every row's output is written after its input row (and every later
/// one) is read from above it. `kernel(rows, input, output)`. Returns `false`, writing
/// nothing, unless [`fully_connected_fits`] and both fit in `buf`.
#[inline(always)]
pub(crate) fn rows<T>(
    (batches, depth, units): (usize, usize, usize),
    buf: &mut [T],
    input_at: usize,
    output_at: usize,
    mut kernel: impl FnMut(usize, &[T], &mut [T]),
) -> bool {
    if !fully_connected_fits(batches, depth, units, input_at, output_at) {
        return false;
    }
    let (i, o) = (batches * depth, batches * units);
    if input_at.saturating_add(i) > buf.len() || output_at.saturating_add(o) > buf.len() {
        return false;
    }
    if input_at + i <= output_at || output_at + o <= input_at {
        // Disjoint: one call on both.
        if input_at < output_at {
            let (lo, hi) = buf.split_at_mut(output_at);
            kernel(batches, &lo[input_at..input_at + i], &mut hi[..o]);
        } else {
            let (lo, hi) = buf.split_at_mut(input_at);
            kernel(batches, &hi[..i], &mut lo[output_at..output_at + o]);
        }
        return true;
    }
    let mut b = 0;
    while b < batches {
        // Input row `b` starts at `split`; the fit puts output row `b` below it.
        let split = input_at + b * depth;
        let mut e = b + 1;
        while e < batches && output_at + (e + 1) * units <= split {
            e += 1;
        }
        let (lo, hi) = buf.split_at_mut(split);
        kernel(
            e - b,
            &hi[..(e - b) * depth],
            &mut lo[output_at + b * units..output_at + e * units],
        );
        b = e;
    }
    true
}

/// The placement the FULLY_CONNECTED one-buffer entries need: the input's `batches × depth`
/// elements at `input_at` and the output's `batches × units` at `output_at` inside a buffer of
/// `buf` elements, and [`fully_connected_fits`]; `Ok` with the two lengths.
///
/// # Errors
///
/// [`KernelError::Placement`] otherwise, [`KernelError::Length`] for sizes that overflow.
pub(crate) const fn rows_placement(
    (batches, depth, units): (usize, usize, usize),
    buf: usize,
    input_at: usize,
    output_at: usize,
) -> Result<(usize, usize), KernelError> {
    let (Some(i), Some(o)) = (mul(batches, depth), mul(batches, units)) else {
        return Err(KernelError::Length {
            operand: "buf",
            expected: None,
            found: buf,
        });
    };
    if inside_buffer(buf, input_at, i, output_at, o)
        && fully_connected_fits(batches, depth, units, input_at, output_at)
    {
        Ok((i, o))
    } else {
        Err(KernelError::Placement)
    }
}

/// One buffer's entry point for each FULLY_CONNECTED kernel (`$name`), its check
/// (`$check_name`: the placement, [`rows_placement`], and the kernel's own `$check` on the
/// lengths the sizes give) and its proven entry (`$proven::$name`, what generated code calls):
/// [`rows`] with the kernel's proven entry (`$kernel`) on each chunk, its parameters' `batches`
/// the chunk's rows.
macro_rules! fully_connected_on_one_buffer {
    (mod $proven:ident; $($(#[$doc:meta])* $name:ident, $check_name:ident => $kernel:path, $check:path, ($params:ty, $t:ty, $filter:ty, $bias:ty);)*) => {
        $(
        $(#[$doc])*
        ///
        /// The input's `batches × accum_depth` elements at `buf[input_at..]`, the output's
        /// `batches × output_depth` at `buf[output_at..]`, the filter and bias in slices of
        /// their own: the two share no element, or the input starts at least
        /// [`fully_connected_min_displacement`] above the output.
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
            filter: &[$filter],
            bias: Option<&[$bias]>,
        ) -> Result<(), KernelError> {
            $check_name(p, buf.len(), input_at, output_at, filter.len(), bias.map(<[$bias]>::len))?;
            $proven::$name(p, buf, input_at, output_at, filter, bias);
            Ok(())
        }

        #[doc = concat!("The preconditions of [`", stringify!($name), "`], on the lengths of its slices (`bias`: `None` for no bias): the placement of the input and the output in the buffer (both inside it, and [`fully_connected_fits`]) and the two-buffer kernel's check on the lengths the sizes give them. Generated code asserts it when the crate compiles.")]
        ///
        /// # Errors
        ///
        /// The first that does not hold.
        pub const fn $check_name(
            p: &$params,
            buf: usize,
            input_at: usize,
            output_at: usize,
            filter: usize,
            bias: Option<usize>,
        ) -> Result<(), KernelError> {
            let shape = (p.batches, p.accum_depth, p.output_depth);
            match rows_placement(shape, buf, input_at, output_at) {
                Ok((input, output)) => $check(p, input, filter, bias, output),
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
            pub fn $name(
                p: &$params,
                buf: &mut [$t],
                input_at: usize,
                output_at: usize,
                filter: &[$filter],
                bias: Option<&[$bias]>,
            ) {
                debug_assert!(
                    super::$check_name(p, buf.len(), input_at, output_at, filter.len(), bias.map(<[$bias]>::len)).is_ok()
                );
                let shape = (p.batches, p.accum_depth, p.output_depth);
                let ran = rows(shape, buf, input_at, output_at, |batches, input, output| {
                    let mut chunk = *p;
                    chunk.batches = batches;
                    $kernel(&chunk, input, filter, bias, output);
                });
                debug_assert!(ran, "rows the driver cannot run where its check holds");
            }
            )*
        }
    };
}

fully_connected_on_one_buffer! {
    mod proven_fully_connected;
    /// [`super::fully_connected_s8`] on one buffer.
    fully_connected_s8, check_fully_connected_s8 =>
        crate::kernels::fully_connected::proven::fully_connected_s8,
        super::check_fully_connected_s8, (crate::kernels::fully_connected::FullyConnectedS8, i8, i8, i32);
    /// [`super::fully_connected_s8_i4`] on one buffer.
    fully_connected_s8_i4, check_fully_connected_s8_i4 =>
        crate::kernels::fully_connected::proven::fully_connected_s8_i4,
        super::check_fully_connected_s8_i4, (crate::kernels::fully_connected::FullyConnectedS8, i8, u8, i32);
    /// [`super::fully_connected_s16`] on one buffer.
    fully_connected_s16, check_fully_connected_s16 =>
        crate::kernels::fully_connected::proven::fully_connected_s16,
        super::check_fully_connected_s16, (crate::kernels::fully_connected::FullyConnectedS16, i16, i8, i64);
    /// [`super::fully_connected_s16_acc32`] on one buffer.
    fully_connected_s16_acc32, check_fully_connected_s16_acc32 =>
        crate::kernels::fully_connected::proven::fully_connected_s16_acc32,
        super::check_fully_connected_s16_acc32, (crate::kernels::fully_connected::FullyConnectedS16, i16, i8, i32);
    /// [`super::fully_connected_f32`] on one buffer.
    fully_connected_f32, check_fully_connected_f32 =>
        crate::kernels::fully_connected::proven::fully_connected_f32,
        super::check_fully_connected_f32, (crate::kernels::fully_connected::FullyConnectedF32, f32, f32, f32);
}
