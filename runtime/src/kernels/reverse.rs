//! REVERSE_V2: TFLM's `reference_ops::Reverse` (generic over the element type), with the
//! axes resolved at build time.

/// Parameters of REVERSE_V2: the input as `[upper, middle, lower]`, `middle` the product of the
/// reversed (contiguous) dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reverse {
    /// The product of the dimensions before the first reversed one.
    pub upper: usize,
    /// The product of the reversed dimensions.
    pub middle: usize,
    /// The product of the dimensions after the last reversed one.
    pub lower: usize,
}

/// REVERSE_V2: TFLM's `reference_ops::Reverse`: output block `(i, middle - 1 - j)` (of `lower`
/// elements) is input block `(i, j)`; reversing contiguous axes together is reversing their
/// flattened index (TFLM's `reverse_copy` when they are all the axes, or `lower` is 1).
///
/// # Preconditions
///
/// `input.len() == output.len() == upper * middle * lower`.
pub fn reverse<T: Copy>(p: &Reverse, input: &[T], output: &mut [T]) {
    if p.lower == 0 || p.middle == 0 {
        return;
    }
    for (k, dst) in output.chunks_mut(p.lower).enumerate() {
        let (i, j) = (k / p.middle, k % p.middle);
        if i >= p.upper {
            return;
        }
        let at = i
            .wrapping_mul(p.middle)
            .wrapping_add(p.middle - 1 - j)
            .wrapping_mul(p.lower);
        let src = input.get(at..).unwrap_or(&[]);
        for (o, &x) in dst.iter_mut().zip(src) {
            *o = x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reverses_the_middle_axes() {
        // [2, 3] reversed along axis 1.
        let p = Reverse {
            upper: 2,
            middle: 3,
            lower: 1,
        };
        let mut out = [0_u8; 6];
        reverse(&p, &[1, 2, 3, 4, 5, 6], &mut out);
        assert_eq!(out, [3, 2, 1, 6, 5, 4]);
        // [3, 2] reversed along axis 0.
        let p = Reverse {
            upper: 1,
            middle: 3,
            lower: 2,
        };
        reverse(&p, &[1, 2, 3, 4, 5, 6], &mut out);
        assert_eq!(out, [5, 6, 3, 4, 1, 2]);
    }
}
