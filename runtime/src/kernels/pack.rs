//! PACK: TFLM's `PackImpl` (`pack.cc`), generic over the element type.

/// PACK: TFLM's `PackImpl`: output element block `k * n + i` (of `copy` elements, `n` the
/// number of inputs) is input `i`'s block `k`, for each of the `outer` positions (the product of
/// the output dimensions before the axis). The output is written in order.
///
/// # Preconditions
///
/// Every input holds `outer * copy` elements; `output.len() == outer * inputs.len() * copy`.
pub fn pack<T: Copy>(outer: usize, copy: usize, inputs: &[&[T]], output: &mut [T]) {
    let mut out = output.iter_mut();
    for k in 0..outer {
        if out.len() == 0 {
            return;
        }
        for input in inputs {
            let src = input
                .get(k.wrapping_mul(copy)..)
                .unwrap_or(&[])
                .iter()
                .take(copy);
            // The source first: `zip` stops on it without taking an output element.
            for (&x, o) in src.zip(&mut out) {
                *o = x;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaves_the_inputs() {
        // Two [2, 2] inputs packed along axis 1: output [2, 2, 2].
        let (a, b) = ([1_i16, 2, 3, 4], [5_i16, 6, 7, 8]);
        let mut out = [0_i16; 8];
        pack(2, 2, &[&a, &b], &mut out);
        assert_eq!(out, [1, 2, 5, 6, 3, 4, 7, 8]);
    }
}
