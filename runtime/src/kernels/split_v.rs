//! SPLIT_V: TFLM's `split_v.cc` `SplitImpl`, the same copy as SPLIT's with each output's own
//! extent along the axis ([`super::split`]).

/// SPLIT_V: TFLM's `SplitImpl` of `split_v.cc`: as [`super::split()`], with `copies[i]` output
/// `i`'s own extent along the axis times the product of the dimensions after it.
///
/// # Preconditions
///
/// As [`super::split()`].
pub fn split_v<T: Copy>(outer: usize, copies: &[usize], input: &[T], outputs: &mut [&mut [T]]) {
    super::split(outer, copies, input, outputs);
}
