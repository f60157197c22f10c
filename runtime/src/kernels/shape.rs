//! Data movement: RESHAPE / SQUEEZE / EXPAND_DIMS copies, CONCATENATION, PAD, TRANSPOSE.

/// RESHAPE, SQUEEZE or EXPAND_DIMS when the output does not alias the input: TFLM copies the
/// bytes.
///
/// # Preconditions
///
/// `input.len() == output.len()` (a shorter slice limits the copy).
pub fn copy<T: Copy>(input: &[T], output: &mut [T]) {
    for (o, &i) in output.iter_mut().zip(input) {
        *o = i;
    }
}
