//! SLICE: TFLM's `reference_ops::Slice` (generic over the element type), with `begin` and
//! `size` resolved at build time.

use super::shared::check::{KernelError, check, elements, length, require};
use super::shared::{at, sized_mut};

/// Parameters of SLICE: shapes right-aligned into 5 dimensions padded with leading 1s (TFLM's
/// `ExtendedShape(5, ..)` with the begin and size vectors front-padded by 0 and 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    /// Input shape.
    pub input: [usize; 5],
    /// First input index along each dimension (TFLM's `start`).
    pub begin: [usize; 5],
    /// Output shape: the slice's extent along each dimension (TFLM's `stop - start`).
    pub output: [usize; 5],
}

/// [`slice()`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_slice(p: &Slice, input: usize, output: usize) -> Result<(), KernelError> {
    check!(length("input", elements(&p.input), input));
    check!(length("output", elements(&p.output), output));
    let mut d = 0;
    while d < 5 {
        let inside = match p.begin[d].checked_add(p.output[d]) {
            Some(end) => end <= p.input[d],
            None => false,
        };
        check!(require(inside, "the slice does not lie inside the input"));
        d += 1;
    }
    Ok(())
}

/// SLICE: TFLM's `reference_ops::Slice`: output element `(o0..o4)` is input element
/// `(begin[0] + o0, .., begin[4] + o4)`, in the output's row-major order (the order of TFLM's
/// `SequentialTensorWriter`).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_slice`]) hold:
/// `input.len()` and `output.len()` are the products of the shapes, and `begin[d] + output[d]
/// <= input[d]` in every dimension.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn slice<T: Copy + Default>(
    p: &Slice,
    input: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_slice(p, input.len(), output.len())?;
    proven::slice(p, input, output);
    Ok(())
}

/// Parameters of SLICE whose `begin` is read when the op runs (`size` constant): shapes
/// right-aligned into 5 dimensions padded with leading 1s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceDynamic {
    /// Input shape.
    pub input: [usize; 5],
    /// Output shape (the constant sizes).
    pub output: [usize; 5],
    /// The input's rank: the first `rank` values of `begin` are read, for its last `rank`
    /// dimensions.
    pub rank: usize,
}

/// [`slice_dynamic`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_slice_dynamic(
    p: &SliceDynamic,
    input: usize,
    begin: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length("input", elements(&p.input), input));
    check!(length("output", elements(&p.output), output));
    check!(require(p.rank <= 5, "the rank is above 5"));
    check!(length("begin", Some(p.rank), begin));
    let mut d = 0;
    while d < 5 {
        check!(require(
            p.output[d] <= p.input[d],
            "the output is larger than the input"
        ));
        d += 1;
    }
    Ok(())
}

/// SLICE with `begin` read when the op runs: TFLM's `SliceEval` (the begin values stored into
/// `int32_t`, an int64's low 32 bits) and `reference_ops::Slice`, the window of the output's
/// shape from `begin`. A begin that puts the window outside the input (TFLM reads outside it,
/// which is undefined) is clamped into it here.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_slice_dynamic`])
/// hold: `input.len()` and `output.len()` are the products of the shapes, no output dimension
/// exceeds the input's, `rank <= 5` and `begin.len() == rank`.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn slice_dynamic<T: Copy + Default, I: Copy + Into<i64>>(
    p: &SliceDynamic,
    input: &[T],
    begin: &[I],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_slice_dynamic(p, input.len(), begin.len(), output.len())?;
    proven::slice_dynamic(p, input, begin, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`slice()`](super::slice), its [`check`](super::check_slice) proven.
    #[inline]
    pub fn slice<T: Copy + Default>(p: &Slice, input: &[T], output: &mut [T]) {
        debug_assert!(super::check_slice(p, input.len(), output.len()).is_ok());
        let Some(output) = sized_mut(output, &p.output) else {
            return;
        };
        let [_, i1, i2, i3, i4] = p.input;
        let [b0, b1, b2, b3, b4] = p.begin;
        let [o0, o1, o2, o3, o4] = p.output;
        let mut out = output.iter_mut();
        for a in 0..o0 {
            let ia = b0.wrapping_add(a);
            for b in 0..o1 {
                let ib = ia.wrapping_mul(i1).wrapping_add(b1.wrapping_add(b));
                for c in 0..o2 {
                    let ic = ib.wrapping_mul(i2).wrapping_add(b2.wrapping_add(c));
                    for d in 0..o3 {
                        let id = ic.wrapping_mul(i3).wrapping_add(b3.wrapping_add(d));
                        let base = id.wrapping_mul(i4).wrapping_add(b4);
                        for e in 0..o4 {
                            if let Some(o) = out.next() {
                                *o = at(input, base.wrapping_add(e));
                            }
                        }
                    }
                }
            }
        }
    }

    /// [`slice_dynamic`](super::slice_dynamic), its [`check`](super::check_slice_dynamic) proven.
    #[inline]
    pub fn slice_dynamic<T: Copy + Default, I: Copy + Into<i64>>(
        p: &SliceDynamic,
        input: &[T],
        begin: &[I],
        output: &mut [T],
    ) {
        debug_assert!(
            super::check_slice_dynamic(p, input.len(), begin.len(), output.len()).is_ok()
        );
        let lead = 5_usize.saturating_sub(p.rank);
        let begin: [usize; 5] = core::array::from_fn(|d| {
            let v = d
                .checked_sub(lead)
                .and_then(|i| begin.get(i))
                .map_or(0, |&v| i64::from(v.into() as i32));
            let room = p.input[d].saturating_sub(p.output[d]);
            usize::try_from(v.max(0)).unwrap_or(0).min(room)
        });
        slice(
            &Slice {
                input: p.input,
                begin,
                output: p.output,
            },
            input,
            output,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_a_window() {
        // A 3x4 input, rows 1..3, columns 1..4.
        let input: [i32; 12] = core::array::from_fn(|i| i as i32);
        let p = Slice {
            input: [1, 1, 1, 3, 4],
            begin: [0, 0, 0, 1, 1],
            output: [1, 1, 1, 2, 3],
        };
        let mut out = [0; 6];
        slice(&p, &input, &mut out).unwrap();
        assert_eq!(out, [5, 6, 7, 9, 10, 11]);
    }

    #[test]
    fn inconsistent_parameters_do_not_panic() {
        let p = Slice {
            input: [usize::MAX; 5],
            begin: [usize::MAX; 5],
            output: [1, 1, 1, 1, 2],
        };
        let mut out = [7_i8; 2];
        assert!(slice(&p, &[1, 2], &mut out).is_err());
        assert_eq!(out, [7; 2]);
    }

    #[test]
    fn reads_and_clamps_begin_at_run_time() {
        let input: [i32; 12] = core::array::from_fn(|i| i as i32);
        let p = SliceDynamic {
            input: [1, 1, 1, 3, 4],
            output: [1, 1, 1, 2, 3],
            rank: 2,
        };
        let mut out = [0; 6];
        slice_dynamic(&p, &input, &[1_i64, 1], &mut out).unwrap();
        assert_eq!(out, [5, 6, 7, 9, 10, 11]);
        // (7, -3) clamps to (1, 0).
        slice_dynamic(&p, &input, &[7_i32, -3], &mut out).unwrap();
        assert_eq!(out, [4, 5, 6, 8, 9, 10]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let p = Slice {
            input: [1, 1, 1, 3, 4],
            begin: [0, 0, 0, 1, 1],
            output: [1, 1, 1, 2, 3],
        };
        refuses([12, 6], [Exact; 2], |[i, o]| {
            let mut out = vec![7_i8; o];
            (slice(&p, &vec![0; i], &mut out), untouched(&out, 7))
        });
        let d = SliceDynamic {
            input: p.input,
            output: p.output,
            rank: 2,
        };
        refuses([12, 2, 6], [Exact; 3], |[i, b, o]| {
            let mut out = vec![7_i8; o];
            (
                slice_dynamic(&d, &vec![0; i], &vec![0_i32; b], &mut out),
                untouched(&out, 7),
            )
        });
        let mut out = [7_i8; 6];
        let outside = Slice {
            begin: [0, 0, 0, 2, 1],
            ..p
        };
        assert!(slice(&outside, &[0; 12], &mut out).is_err());
        assert_eq!(out, [7; 6]);
    }
}
