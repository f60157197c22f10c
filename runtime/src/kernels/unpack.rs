//! UNPACK: TFLM's `UnpackImpl` (`unpack.cc`), generic over the element type.

/// UNPACK: TFLM's `UnpackImpl`: output `i`'s block `k` (of `copy` elements) is the input's
/// block `k * n + i` (`n` the number of outputs), for each of the `outer` positions (the product
/// of the input dimensions before the axis).
///
/// # Preconditions
///
/// `input.len() == outer * outputs.len() * copy`; every output holds `outer * copy` elements.
pub fn unpack<T: Copy>(outer: usize, copy: usize, input: &[T], outputs: &mut [&mut [T]]) {
    if copy == 0 {
        return;
    }
    let n = outputs.len();
    for (i, output) in outputs.iter_mut().enumerate() {
        for (k, dst) in output.chunks_mut(copy).take(outer).enumerate() {
            let loc = k.wrapping_mul(n).wrapping_add(i).wrapping_mul(copy);
            let src = input.get(loc..).unwrap_or(&[]);
            for (o, &x) in dst.iter_mut().zip(src) {
                *o = x;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deinterleaves_the_input() {
        let input = [1_i32, 2, 5, 6, 3, 4, 7, 8];
        let (mut a, mut b) = ([0; 4], [0; 4]);
        unpack(2, 2, &input, &mut [&mut a, &mut b]);
        assert_eq!((a, b), ([1, 2, 3, 4], [5, 6, 7, 8]));
        // No panic for a copy of 0 or short slices.
        unpack(3, 0, &input, &mut [&mut a]);
        unpack(9, 5, &input, &mut [&mut a, &mut b]);
    }
}
