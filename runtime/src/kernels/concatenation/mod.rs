//! CONCATENATION: TFLM's `reference_ops::Concatenation`, a copy of each input's rows (int8
//! inputs are quantised as the output, so no arithmetic: generic over the element type).

pub(crate) mod in_place;

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
