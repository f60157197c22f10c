//! MIRROR_PAD: TFLM's `MirrorPad` (`mirror_pad.cc`), generic over the element type, with the
//! paddings resolved at build time.

use super::shared::{at, sized_mut};

/// Parameters of MIRROR_PAD: shapes right-aligned into 6 dimensions padded with leading 1s
/// (and paddings of 0), which maps every element as TFLM's `GetFlatIndex` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MirrorPad {
    /// Input shape.
    pub input: [usize; 6],
    /// Output shape: `input[d] + before[d] + after[d]`.
    pub output: [usize; 6],
    /// The padding before each dimension.
    pub before: [usize; 6],
    /// TFLM's `offset`: 1 for `REFLECT` (the border is not repeated), 0 for `SYMMETRIC`.
    pub offset: usize,
}

/// TFLM's `GetInputDimension`: the input index an output index `padded` of one dimension
/// mirrors.
fn input_index(padded: usize, before: usize, size: usize, offset: usize) -> usize {
    if padded < before {
        let original = before.saturating_add(offset).saturating_sub(1);
        return original.saturating_sub(padded.min(original.saturating_sub(offset)));
    }
    let padded = padded - before;
    if padded >= size {
        let padded = padded - size;
        let original = size.saturating_sub(1 + offset);
        return original.saturating_sub(padded.min(original));
    }
    padded
}

/// MIRROR_PAD: TFLM's `MirrorPad`: output element `i` is input element `GetFlatIndex(i)`, each
/// dimension's index mirrored at the borders (repeating the border for `SYMMETRIC`, not for
/// `REFLECT`), in the output's order.
///
/// # Preconditions
///
/// `before[d] <= input[d] - offset` and likewise after; the slices' lengths are the products of
/// the shapes.
pub fn mirror_pad<T: Copy + Default>(p: &MirrorPad, input: &[T], output: &mut [T]) {
    let Some(output) = sized_mut(output, &p.output) else {
        return;
    };
    let [_, i1, i2, i3, i4, i5] = p.input;
    let [o0, o1, o2, o3, o4, o5] = p.output;
    let m = |o: usize, d: usize| input_index(o, p.before[d], p.input[d], p.offset);
    let mut out = output.iter_mut();
    for a in 0..o0 {
        let ia = m(a, 0);
        for b in 0..o1 {
            let ib = ia.wrapping_mul(i1).wrapping_add(m(b, 1));
            for c in 0..o2 {
                let ic = ib.wrapping_mul(i2).wrapping_add(m(c, 2));
                for d in 0..o3 {
                    let id = ic.wrapping_mul(i3).wrapping_add(m(d, 3));
                    for e in 0..o4 {
                        let ie = id.wrapping_mul(i4).wrapping_add(m(e, 4));
                        for f in 0..o5 {
                            let i = ie.wrapping_mul(i5).wrapping_add(m(f, 5));
                            if let Some(o) = out.next() {
                                *o = at(input, i);
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_dim(before: usize, out: usize, offset: usize) -> [f32; 12] {
        let p = MirrorPad {
            input: [1, 1, 1, 1, 1, 4],
            output: [1, 1, 1, 1, 1, out],
            before: [0, 0, 0, 0, 0, before],
            offset,
        };
        let mut o = [0.0; 12];
        mirror_pad(&p, &[1.0, 2.0, 3.0, 4.0], &mut o[..out]);
        o
    }

    #[test]
    fn reflects_and_mirrors_like_tflm() {
        // TFLM: REFLECT [1, 2, 3, 4] by (3, 3) -> 4 3 2 1 2 3 4 3 2 1.
        assert_eq!(
            &one_dim(3, 10, 1)[..10],
            &[4.0, 3.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 2.0, 1.0]
        );
        // SYMMETRIC by (4, 4) -> 4 3 2 1 1 2 3 4 4 3 2 1.
        assert_eq!(
            one_dim(4, 12, 0),
            [4.0, 3.0, 2.0, 1.0, 1.0, 2.0, 3.0, 4.0, 4.0, 3.0, 2.0, 1.0]
        );
    }

    #[test]
    fn extreme_parameters_do_not_panic() {
        let p = MirrorPad {
            input: [usize::MAX, 0, 1, 1, 1, 1],
            output: [1, 1, 1, 1, 1, 2],
            before: [usize::MAX; 6],
            offset: usize::MAX,
        };
        let mut out = [0_i8; 2];
        mirror_pad(&p, &[1, 2], &mut out);
    }
}
