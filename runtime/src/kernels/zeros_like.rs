//! ZEROS_LIKE: TFLM's `zeros_like.cc` (`resetZeros`): every output element
//! `static_cast<T>(0)` (`+0.0` for floats).

/// ZEROS_LIKE: writes `T::default()` (0, `+0.0`) to every output element; the input is only
/// its shape.
pub fn zeros_like<T: Copy + Default>(output: &mut [T]) {
    for o in output.iter_mut() {
        *o = T::default();
    }
}
