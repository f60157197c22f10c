//! FILL: TFLM's `reference_ops::Fill`: every output element the value tensor's one element.

use super::shared::at;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::zeros_like;

    #[test]
    fn fills_and_zeros() {
        let mut out = [0_i8; 3];
        fill(&[-7], &mut out);
        assert_eq!(out, [-7; 3]);
        zeros_like(&mut out);
        assert_eq!(out, [0; 3]);
    }
}
