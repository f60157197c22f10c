//! SHAPE: TFLM's `ExtractShape` (`shape.cc`): the input's dimensions, known at build time.

/// SHAPE: TFLM's `ExtractShape`: the input's dimensions as int32 (the planner passes them).
///
/// # Preconditions
///
/// `output.len() == dims.len()`.
pub fn shape(dims: &[i32], output: &mut [i32]) {
    for (o, &d) in output.iter_mut().zip(dims) {
        *o = d;
    }
}
