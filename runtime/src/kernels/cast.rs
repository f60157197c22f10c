//! CAST: TFLM's `cast.cc` (`copyCast`: `static_cast<ToT>(a)` per element) for every pair it
//! converts: from int8, int16, int32, uint32, float32 or bool to int8, int16, int32, uint32
//! or float32, with the conversions as the pinned TFLM wheel computes them ([`CastFrom`]).

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

/// CAST: `output[i] = static_cast<B>(input[i])` ([`CastFrom`]); a `u8` input is TFLM's bool.
///
/// # Preconditions
///
/// `input.len() == output.len()`.
pub fn cast<A: Copy, B: CastFrom<A>>(input: &[A], output: &mut [B]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = B::cast_from(x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_as_x86() {
        let mut out = [0_i8; 4];
        cast(&[300.7_f32, -1.5, f32::NAN, -3e9], &mut out);
        assert_eq!(out, [127, -1, 0, -128]);
        let mut out = [0_u32; 4];
        cast(&[-1.0_f32, 4e9, f32::NAN, 1e20], &mut out);
        assert_eq!(out, [0, 4_000_000_000, 0, u32::MAX]);
        let mut out = [0.0_f32; 2];
        cast(&[16_777_217_i32, -3], &mut out);
        assert_eq!(out, [16_777_216.0, -3.0]);
        let mut out = [0_i32; 3];
        cast(&[0_u8, 1, 2], &mut out);
        assert_eq!(out, [0, 1, 1]);
    }
}
