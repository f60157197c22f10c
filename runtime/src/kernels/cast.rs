//! CAST: TFLM's `cast.cc` (`copyCast`: `static_cast<ToT>(a)` per element) for every pair it
//! converts: from int8, int16, int32, uint32, float32 or bool to int8, int16, int32, uint32
//! or float32, with the C++ conversions as the x86-64 build of TFLM computes them.

/// `static_cast<Self>(a)` as TFLM's x86-64 build computes it.
///
/// - Integer to integer: two's complement truncation or sign/zero extension (`as`).
/// - Integer to float: rounded to nearest, ties to even (`cvtsi2ss`).
/// - Float to int32: truncation towards zero, `INT32_MIN` for NaN and values out of range
///   (`cvttss2si`; undefined in C++).
/// - Float to int8 and int16: the int32 conversion's low bits (the compiler converts to 32
///   bits and narrows).
/// - Float to uint32: the 64-bit conversion's low 32 bits (`cvttss2si` to a 64-bit register:
///   negative values wrap, NaN and values beyond int64 give 0).
/// - Bool (a byte, 0 false) to anything: 0 or 1.
pub trait CastFrom<A>: Sized {
    /// The converted value.
    fn cast_from(a: A) -> Self;
}

/// `cvttss2si` to 32 bits: truncation, `INT32_MIN` for NaN and out-of-range values.
#[inline(always)]
fn f32_to_i32_x86(x: f32) -> i32 {
    if x.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        i32::MIN
    } else {
        x as i32
    }
}

/// `cvttss2si` to 64 bits: truncation, `INT64_MIN` for NaN and out-of-range values.
#[inline(always)]
fn f32_to_i64_x86(x: f32) -> i64 {
    if x.is_nan() || !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x) {
        i64::MIN
    } else {
        x as i64
    }
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
    f32 => f32;
}

impl CastFrom<f32> for i32 {
    #[inline(always)]
    fn cast_from(a: f32) -> Self {
        f32_to_i32_x86(a)
    }
}

impl CastFrom<f32> for i16 {
    #[inline(always)]
    fn cast_from(a: f32) -> Self {
        f32_to_i32_x86(a) as i16
    }
}

impl CastFrom<f32> for i8 {
    #[inline(always)]
    fn cast_from(a: f32) -> Self {
        f32_to_i32_x86(a) as i8
    }
}

impl CastFrom<f32> for u32 {
    #[inline(always)]
    fn cast_from(a: f32) -> Self {
        f32_to_i64_x86(a) as u32
    }
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
        cast(&[300.7_f32, -1.5, f32::NAN, 3e9], &mut out);
        assert_eq!(out, [44, -1, 0, 0]);
        let mut out = [0_u32; 4];
        cast(&[-1.0_f32, 4e9, f32::NAN, 1e20], &mut out);
        assert_eq!(out, [u32::MAX, 4_000_000_000, 0, 0]);
        let mut out = [0.0_f32; 2];
        cast(&[16_777_217_i32, -3], &mut out);
        assert_eq!(out, [16_777_216.0, -3.0]);
        let mut out = [0_i32; 3];
        cast(&[0_u8, 1, 2], &mut out);
        assert_eq!(out, [0, 1, 1]);
    }
}
