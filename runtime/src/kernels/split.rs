//! SPLIT (and SPLIT_V's copy): TFLM's `SplitImpl` (`split.cc`, `split_v.cc`), generic over the
//! element type.

/// SPLIT: TFLM's `SplitImpl`: for each of the `outer` positions (the product of the input
/// dimensions before the axis), the input's next `copies[i]` elements go to output `i`, outputs
/// in order. `copies[i]` is output `i`'s extent along the axis times the product of the
/// dimensions after it (for SPLIT, TFLM takes output 0's extent for every output).
///
/// # Preconditions
///
/// `outputs.len() == copies.len()`, `outputs[i].len() == outer * copies[i]`, `input.len() ==
/// outer * copies.iter().sum()`.
pub fn split<T: Copy>(outer: usize, copies: &[usize], input: &[T], outputs: &mut [&mut [T]]) {
    let mut at = 0_usize;
    for k in 0..outer {
        if at >= input.len() {
            return;
        }
        for (output, &copy) in outputs.iter_mut().zip(copies) {
            let src = input.get(at..).unwrap_or(&[]).iter().take(copy);
            let dst = output.get_mut(k.wrapping_mul(copy)..).unwrap_or(&mut []);
            for (&x, o) in src.zip(dst.iter_mut()) {
                *o = x;
            }
            at = at.wrapping_add(copy);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_rows_in_turn() {
        // A 2x3 input split along axis 1 into [1, 2].
        let input = [1_i8, 2, 3, 4, 5, 6];
        let (mut a, mut b) = ([0_i8; 2], [0_i8; 4]);
        split(2, &[1, 2], &input, &mut [&mut a, &mut b]);
        assert_eq!(a, [1, 4]);
        assert_eq!(b, [2, 3, 5, 6]);
    }
}
