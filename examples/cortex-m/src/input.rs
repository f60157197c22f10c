//! The input TFLite Micro's models get in these firmwares (and in `firmware_tflm.py`, which
//! computes TFLM's outputs for it): deterministic, the same for every model.

/// Fills `input` from xorshift32 (13, 17, 5) seeded with 1: the low byte of each state as one
/// `i8` element, in order.
pub fn fill_input(input: &mut [i8]) {
    let mut x: u32 = 1;
    for v in input {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *v = x.to_le_bytes()[0] as i8;
    }
}
