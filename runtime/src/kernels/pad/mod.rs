//! PAD: TFLM's `reference_ops::Pad` (generic over the element type; the padding value is
//! given).

pub(crate) mod in_place;

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
    let mut out = output.iter_mut();
    pad_walk(p, |j| {
        if let Some(o) = out.next() {
            *o = j.and_then(|j| input.get(j).copied()).unwrap_or(pad_value);
        }
    });
}

/// PAD's loop nest: `emit(Some(j))` for each output element, in order, that is input element
/// `j`, `emit(None)` for one in the padding.
#[inline(always)]
pub(super) fn pad_walk(p: &Pad, mut emit: impl FnMut(Option<usize>)) {
    let [o0, o1, o2, o3, o4] = p.output;
    let [_, i1, i2, i3, i4] = p.input;
    let inside = |o: usize, d: usize| o.checked_sub(p.before[d]).filter(|&i| i < p.input[d]);
    for a in 0..o0 {
        let ia = inside(a, 0);
        for b in 0..o1 {
            let ib = inside(b, 1);
            for c in 0..o2 {
                let ic = inside(c, 2);
                for d in 0..o3 {
                    let id = inside(d, 3);
                    for e in 0..o4 {
                        emit(match (ia, ib, ic, id, inside(e, 4)) {
                            (Some(ia), Some(ib), Some(ic), Some(id), Some(ie)) => {
                                Some((((ia * i1 + ib) * i2 + ic) * i3 + id) * i4 + ie)
                            }
                            _ => None,
                        });
                    }
                }
            }
        }
    }
}
