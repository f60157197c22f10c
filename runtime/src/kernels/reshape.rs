//! RESHAPE, SQUEEZE and EXPAND_DIMS: TFLM copies the bytes (when generated `invoke` does not
//! give the output its input's buffer, which needs no kernel at all).

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
