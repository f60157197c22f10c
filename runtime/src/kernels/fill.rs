//! FILL: TFLM's `reference_ops::Fill`: every output element the value tensor's one element.

use super::at;

/// FILL: `output[i] = value[0]` for every element (the default, 0, if `value` is empty).
///
/// # Preconditions
///
/// `value` holds one element.
pub fn fill<T: Copy + Default>(value: &[T], output: &mut [T]) {
    let v = at(value, 0);
    for o in output.iter_mut() {
        *o = v;
    }
}
