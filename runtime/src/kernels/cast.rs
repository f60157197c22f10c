//! CAST: TFLM's `cast.cc` (`copyCast`: `static_cast<ToT>(a)` per element) for every pair it
//! converts: from int8, int16, int32, uint32, float32 or bool to int8, int16, int32, uint32
//! or float32, with the conversions as the pinned TFLM wheel computes them ([`CastFrom`]).

use super::shared::check::KernelError;
use super::shared::unary::same_length;

/// `static_cast<Self>(a)` as the pinned TFLM wheel computes it.
///
/// - Integer to integer: two's complement truncation or sign/zero extension (`as`).
/// - Integer to float: rounded to nearest, ties to even (`cvtsi2ss`).
/// - Float to integer: truncation towards zero, saturated to the type's range, NaN to 0
///   (Rust's `as`). A plain C++ `static_cast` is undefined out of range (x86-64 gives
///   `INT32_MIN`); the wheel's outputs saturate (found by the conformance suite), so this
///   mirrors them.
/// - Bool (a byte, 0 false) to anything: 0 or 1.
pub trait CastFrom<A>: Sized {
    /// The converted value.
    fn cast_from(a: A) -> Self;
}

macro_rules! cast_as {
    ($($from:ty => $($to:ty),*);* $(;)?) => {
        $($(
            impl CastFrom<$from> for $to {
                #[inline(always)]
                fn cast_from(a: $from) -> Self {
                    a as $to
                }
            }
        )*)*
    };
}

cast_as! {
    i8 => i8, i16, i32, u32, f32;
    i16 => i8, i16, i32, u32, f32;
    i32 => i8, i16, i32, u32, f32;
    u32 => i8, i16, i32, u32, f32;
    f32 => i8, i16, i32, u32, f32;
}

macro_rules! cast_bool {
    ($($to:ty),*) => {
        $(
            impl CastFrom<u8> for $to {
                /// A bool (a byte) to 0 or 1.
                #[inline(always)]
                fn cast_from(a: u8) -> Self {
                    <$to>::from(u8::from(a != 0))
                }
            }
        )*
    };
}

cast_bool!(i16, i32, u32, f32);

impl CastFrom<u8> for i8 {
    /// A bool (a byte) to 0 or 1.
    #[inline(always)]
    fn cast_from(a: u8) -> Self {
        i8::from(a != 0)
    }
}

/// [`cast`]'s preconditions, on the lengths of its slices: the output as long as the input
/// (what the entry checks before it runs, and what generated code asserts when the crate
/// compiles).
///
/// # Errors
///
/// [`KernelError::Length`] of the output otherwise.
pub const fn check_cast(input: usize, output: usize) -> Result<(), KernelError> {
    same_length(input, output)
}

/// CAST: `output[i] = static_cast<B>(input[i])` ([`CastFrom`]); a `u8` input is TFLM's bool.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless [`check_cast`] holds for the slices' lengths.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn cast<A: Copy, B: CastFrom<A>>(input: &[A], output: &mut [B]) -> Result<(), KernelError> {
    check_cast(input.len(), output.len())?;
    proven::cast(input, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    use super::CastFrom;

    /// [`cast`](super::cast), its [check](super::check_cast) proven.
    pub fn cast<A: Copy, B: CastFrom<A>>(input: &[A], output: &mut [B]) {
        debug_assert!(super::check_cast(input.len(), output.len()).is_ok());
        for (o, &x) in output.iter_mut().zip(input) {
            *o = B::cast_from(x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_as_x86() {
        let mut out = [0_i8; 4];
        cast(&[300.7_f32, -1.5, f32::NAN, -3e9], &mut out).unwrap();
        assert_eq!(out, [127, -1, 0, -128]);
        let mut out = [0_u32; 4];
        cast(&[-1.0_f32, 4e9, f32::NAN, 1e20], &mut out).unwrap();
        assert_eq!(out, [0, 4_000_000_000, 0, u32::MAX]);
        let mut out = [0.0_f32; 2];
        cast(&[16_777_217_i32, -3], &mut out).unwrap();
        assert_eq!(out, [16_777_216.0, -3.0]);
        let mut out = [0_i32; 3];
        cast(&[0_u8, 1, 2], &mut out).unwrap();
        assert_eq!(out, [0, 1, 1]);
    }
}
