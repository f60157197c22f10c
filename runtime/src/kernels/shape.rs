//! Data movement: RESHAPE / SQUEEZE / EXPAND_DIMS copies, CONCATENATION, PAD, TRANSPOSE.
//!
//! TFLM moves these elements without arithmetic (int8 CONCATENATION and PAD require inputs and
//! output quantised alike), so they are generic over the element type.

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

/// CONCATENATION along an axis of inputs quantised alike: TFLM's
/// `reference_ops::Concatenation`: for each of the `outer` positions (the product of the
/// dimensions before the axis), input `i`'s next `input_inner[i]` elements (the product of its
/// dimensions from the axis on), inputs in order.
///
/// # Preconditions
///
/// `inputs.len() == input_inner.len()`, `inputs[i].len() == outer * input_inner[i]`,
/// `output.len() == outer * input_inner.iter().sum()`.
pub fn concatenation<T: Copy>(
    outer: usize,
    input_inner: &[usize],
    inputs: &[&[T]],
    output: &mut [T],
) {
    let mut out = output.iter_mut();
    for k in 0..outer {
        for (input, &inner) in inputs.iter().zip(input_inner) {
            let start = k.wrapping_mul(inner);
            let chunk = input.get(start..).unwrap_or(&[]).iter().take(inner);
            // The chunk first: `zip` stops on it without taking an output element.
            for (&i, o) in chunk.zip(&mut out) {
                *o = i;
            }
        }
    }
}

/// Parameters of PAD: shapes right-aligned into 5 dimensions padded with leading 1s, and the
/// padding before each dimension (0 for the added ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pad {
    /// Input shape.
    pub input: [usize; 5],
    /// Output shape: `input[d] + before[d] + after[d]`.
    pub output: [usize; 5],
    /// Padding before each dimension.
    pub before: [usize; 5],
}

/// PAD / PADV2: TFLM's `reference_ops::PadImpl`: each output element is the input element it
/// covers, or `pad_value` in the padding (for int8, TFLM's pad value is the constant input or
/// else the output zero point).
///
/// # Preconditions
///
/// `input.len()` and `output.len()` are the products of the shapes; `before[d] + input[d] <=
/// output[d]`.
pub fn pad<T: Copy>(p: &Pad, input: &[T], pad_value: T, output: &mut [T]) {
    let [o0, o1, o2, o3, o4] = p.output;
    let [_, i1, i2, i3, i4] = p.input;
    let inside = |o: usize, d: usize| o.checked_sub(p.before[d]).filter(|&i| i < p.input[d]);
    let mut out = output.iter_mut();
    for a in 0..o0 {
        let ia = inside(a, 0);
        for b in 0..o1 {
            let ib = inside(b, 1);
            for c in 0..o2 {
                let ic = inside(c, 2);
                for d in 0..o3 {
                    let id = inside(d, 3);
                    for e in 0..o4 {
                        let value = match (ia, ib, ic, id, inside(e, 4)) {
                            (Some(ia), Some(ib), Some(ic), Some(id), Some(ie)) => input
                                .get((((ia * i1 + ib) * i2 + ic) * i3 + id) * i4 + ie)
                                .copied()
                                .unwrap_or(pad_value),
                            _ => pad_value,
                        };
                        if let Some(o) = out.next() {
                            *o = value;
                        }
                    }
                }
            }
        }
    }
}

/// Parameters of TRANSPOSE: the input shape right-aligned into 6 dimensions padded with
/// leading 1s, and the permutation extended accordingly (`perm[d]` is the input dimension that
/// becomes output dimension `d`; the added leading dimensions map to themselves).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transpose {
    /// Input shape.
    pub input: [usize; 6],
    /// Output dimension `d` is input dimension `perm[d]`.
    pub perm: [usize; 6],
}

/// TRANSPOSE: TFLM's `reference_ops::Transpose`: output element `(o0..o5)` is input element
/// `i` with `i[perm[d]] = o[d]`.
///
/// # Preconditions
///
/// `perm` is a permutation of `0..6`; `input.len() == output.len()` is the product of the
/// input shape.
pub fn transpose<T: Copy>(p: &Transpose, input: &[T], output: &mut [T]) {
    let mut strides = [0_usize; 6];
    let mut stride = 1_usize;
    for d in (0..6).rev() {
        strides[d] = stride;
        stride = stride.wrapping_mul(p.input[d]);
    }
    // Output dimension d walks input dimension perm[d].
    let dim = |d: usize| p.perm.get(d).copied().unwrap_or(d);
    let extent = |d: usize| p.input.get(dim(d)).copied().unwrap_or(0);
    let step = |d: usize| strides.get(dim(d)).copied().unwrap_or(0);
    let (s0, s1, s2, s3, s4, s5) = (step(0), step(1), step(2), step(3), step(4), step(5));
    let mut out = output.iter_mut();
    for a in 0..extent(0) {
        for b in 0..extent(1) {
            for c in 0..extent(2) {
                for d in 0..extent(3) {
                    let base = a * s0 + b * s1 + c * s2 + d * s3;
                    for e in 0..extent(4) {
                        for f in 0..extent(5) {
                            let value = input.get(base + e * s4 + f * s5);
                            if let (Some(o), Some(&value)) = (out.next(), value) {
                                *o = value;
                            }
                        }
                    }
                }
            }
        }
    }
}
