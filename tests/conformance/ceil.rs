//! CEIL (TFLM's `ceil.cc`): float32 over ranks 1 to 6, with the suite's magnitudes and special values (NaN,
//! infinities, signed zeros, subnormals, halves and integers near 2^23, and the function's
//! own edges).

use crate::elementwise::{float_unary, specials};
use crate::suite::{Target, Variant};

/// The variants.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    float_unary(seed, target, "ceil", "CEIL", &specials("CEIL"))
}
