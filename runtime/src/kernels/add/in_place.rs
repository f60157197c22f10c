//! ADD with the output over its first input: the in-place driver's binary walk (the output in
//! memory order, each element written after the first input's element is read), or on
//! Armv7E-M the blocked loop's one-buffer walk.

use super::{AddS8, AddS16, kernel};
use crate::kernels::shared::broadcast::{BinaryF32, BinaryI32};
use crate::kernels::shared::check::{KernelError, require};
use crate::kernels::shared::in_place::binary_on_one_buffer;

binary_on_one_buffer! {
    mod proven_add;
    /// [`add_s8`](super::add_s8) on one buffer.
    ///
    /// With cfg `stowplan_dsp` (Armv7E-M) the same shapes and a scalar second input run
    /// blocked, four elements per load, as [`add_s8`](super::add_s8) runs them there: each
    /// block reads its four first-input elements before it writes its four outputs, in
    /// increasing order; the outputs are the same.
    add_s8, check_add_s8(AddS8, i8) =>
        crate::kernels::add::add_s8_one, super::check_add_s8,
        dsp crate::kernels::add::dsp::add_s8_on_one_buffer_any;
    /// [`add_s16`](super::add_s16) on one buffer.
    ///
    /// With cfg `stowplan_dsp` blocked as [`add_s8`], four elements (two words) at once.
    add_s16, check_add_s16(AddS16, i16) =>
        crate::kernels::add::add_s16_one, super::check_add_s16,
        dsp crate::kernels::add::dsp::add_s16_on_one_buffer;
    /// [`add_i32`](super::add_i32) on one buffer.
    add_i32, check_add_i32(BinaryI32, i32) =>
        crate::kernels::add::add_i32_one, super::check_add_i32;
    /// [`add_f32`](super::add_f32) on one buffer.
    add_f32, check_add_f32(BinaryF32, f32) =>
        crate::kernels::add::add_f32_one, super::check_add_f32;
}

/// [`add_s8`] with its loop chosen when the crate compiled (`K`, one of
/// [`kernel`](super::kernel)'s): only that loop is linked.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless [`check_add_s8_with`] holds.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn add_s8_with<const K: u8>(
    p: &AddS8,
    buf: &mut [i8],
    input_at: usize,
    output_at: usize,
    input2: &[i8],
) -> Result<(), KernelError> {
    check_add_s8_with::<K>(p, buf.len(), input_at, output_at, input2.len())?;
    proven_add_with::add_s8_with::<K>(p, buf, input_at, output_at, input2);
    Ok(())
}

/// The preconditions of [`add_s8_with`]: [`check_add_s8`]'s, and that kernel `K` is the
/// layer's ([`kernel::add_s8_takes`]). Generated code asserts it when the crate compiles.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_add_s8_with<const K: u8>(
    p: &AddS8,
    buf: usize,
    input_at: usize,
    output_at: usize,
    input2: usize,
) -> Result<(), KernelError> {
    match check_add_s8(p, buf, input_at, output_at, input2) {
        Ok(()) => require(
            kernel::add_s8_takes(K, p),
            "the chosen ADD kernel is not this layer's",
        ),
        Err(e) => Err(e),
    }
}

/// The entry generated code calls once it has asserted its check when the crate compiled
/// (asserted again in debug builds).
#[doc(hidden)]
pub mod proven_add_with {
    use super::AddS8;

    /// [`add_s8_with`](super::add_s8_with), its check proven.
    #[inline(never)]
    pub fn add_s8_with<const K: u8>(
        p: &AddS8,
        buf: &mut [i8],
        input_at: usize,
        output_at: usize,
        input2: &[i8],
    ) {
        debug_assert!(
            super::check_add_s8_with::<K>(p, buf.len(), input_at, output_at, input2.len()).is_ok()
        );
        #[cfg(stowplan_dsp)]
        if K != crate::kernels::add::kernel::PORTABLE
            && crate::kernels::add::dsp::add_s8_on_one_buffer::<K>(
                p, buf, input_at, output_at, input2,
            )
        {
            return;
        }
        let ran = crate::kernels::shared::in_place::binary(
            &p.shape,
            buf,
            input_at,
            output_at,
            input2,
            |x, y| crate::kernels::add::add_s8_one(p, x, y),
        );
        debug_assert!(ran, "a binary op the walk cannot run where its check holds");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::add::dsp::tests::add_params;
    use crate::kernels::shared::testing::Rng;
    use crate::kernels::shared::testing::binary::binary_case;

    /// The one-buffer entry's check takes the kernels the two-buffer one takes: the layer's
    /// choice, `ANY` and `PORTABLE`, and no other (the output right after the first input).
    #[test]
    fn the_one_buffer_check_takes_the_layers_kernel() {
        let mut rng = Rng(0xadd_0008);
        let cases = if cfg!(miri) { 8 } else { 2000 };
        for _ in 0..cases {
            let (shape, x1, x2, len) = binary_case(&mut rng);
            let mut p = add_params(&mut rng, shape);
            if rng.below(2) == 0 {
                p.input2 = crate::kernels::shared::Requant {
                    multiplier: 1 << 30,
                    shift: 0,
                };
                p.output.shift = -18;
            }
            let k = kernel::add_s8_kernel(&p);
            let (n1, n2, buf) = (x1.len(), x2.len(), x1.len() + len);
            let placed = check_add_s8(&p, buf, 0, n1, n2).is_ok();
            for other in 0..8_u8 {
                let taken = match other {
                    kernel::ANY => check_add_s8_with::<{ kernel::ANY }>(&p, buf, 0, n1, n2),
                    kernel::SAME => check_add_s8_with::<{ kernel::SAME }>(&p, buf, 0, n1, n2),
                    kernel::SAME_HALF_SHIFT1 => {
                        check_add_s8_with::<{ kernel::SAME_HALF_SHIFT1 }>(&p, buf, 0, n1, n2)
                    }
                    kernel::SAME_HALF_SHIFT2 => {
                        check_add_s8_with::<{ kernel::SAME_HALF_SHIFT2 }>(&p, buf, 0, n1, n2)
                    }
                    kernel::SAME_HALVES => {
                        check_add_s8_with::<{ kernel::SAME_HALVES }>(&p, buf, 0, n1, n2)
                    }
                    kernel::SECOND_SCALAR => {
                        check_add_s8_with::<{ kernel::SECOND_SCALAR }>(&p, buf, 0, n1, n2)
                    }
                    kernel::FIRST_SCALAR => {
                        check_add_s8_with::<{ kernel::FIRST_SCALAR }>(&p, buf, 0, n1, n2)
                    }
                    _ => check_add_s8_with::<{ kernel::PORTABLE }>(&p, buf, 0, n1, n2),
                };
                assert_eq!(
                    taken.is_ok(),
                    placed && (other == k || other == kernel::ANY || other == kernel::PORTABLE),
                    "{p:?}: kernel {other} on one buffer, chosen {k}"
                );
            }
        }
    }
}
