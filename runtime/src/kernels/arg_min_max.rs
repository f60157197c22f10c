//! ARG_MAX and ARG_MIN: TFLM's `reference_ops::ArgMinMax` with `GreaterFn` and `LessFn` (plain
//! `>` and `<`), int32 output.

use super::shared::check::{KernelError, check, elements, length, require};

/// Parameters of ARG_MAX / ARG_MIN: the input as `[outer, axis, inner]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArgMinMax {
    /// The product of the dimensions before the axis.
    pub outer: usize,
    /// The axis' extent.
    pub axis: usize,
    /// The product of the dimensions after the axis.
    pub inner: usize,
}

/// For each output, the first index along the axis whose value `better` beats every earlier
/// one (TFLM's loop: the running best starts at index 0 and is replaced when `better(value,
/// best)`).
#[inline(always)]
fn arg<T: Copy + Default>(
    p: &ArgMinMax,
    input: &[T],
    output: &mut [i32],
    better: impl Fn(T, T) -> bool,
) {
    let mut out = output.iter_mut();
    for outer in 0..p.outer {
        for inner in 0..p.inner {
            let at = |i: usize| {
                let k = outer
                    .wrapping_mul(p.axis)
                    .wrapping_add(i)
                    .wrapping_mul(p.inner)
                    .wrapping_add(inner);
                super::shared::at(input, k)
            };
            let mut best = at(0);
            let mut index = 0_usize;
            for i in 1..p.axis {
                let v = at(i);
                if better(v, best) {
                    best = v;
                    index = i;
                }
            }
            match out.next() {
                Some(o) => *o = index as i32,
                None => return,
            }
        }
    }
}

/// [`arg_max`]'s preconditions, on the lengths of its slices: the input `outer * axis * inner`
/// long, the output `outer * inner`, and an axis of at least one element when there is an
/// output (each output is an index into it): what the entry checks before it runs, and what
/// generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_arg_max(p: &ArgMinMax, input: usize, output: usize) -> Result<(), KernelError> {
    let outputs = p.outer.checked_mul(p.inner);
    check!(length(
        "input",
        elements(&[p.outer, p.axis, p.inner]),
        input
    ));
    check!(length("output", outputs, output));
    require(
        p.axis > 0 || output == 0,
        "the axis has no element to index",
    )
}

/// [`arg_min`]'s preconditions, as [`check_arg_max`]'s.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_arg_min(p: &ArgMinMax, input: usize, output: usize) -> Result<(), KernelError> {
    check_arg_max(p, input, output)
}

/// ARG_MAX: TFLM's `ArgMinMax` with `GreaterFn` (`value > best`): the first index of the
/// largest value; a NaN never replaces the best, and a NaN first stays the answer (index 0).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless [`check_arg_max`] holds for the slices'
/// lengths.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn arg_max<T: Copy + Default + PartialOrd>(
    p: &ArgMinMax,
    input: &[T],
    output: &mut [i32],
) -> Result<(), KernelError> {
    check_arg_max(p, input.len(), output.len())?;
    proven::arg_max(p, input, output);
    Ok(())
}

/// ARG_MIN: TFLM's `ArgMinMax` with `LessFn` (`value < best`).
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless [`check_arg_min`] holds for the slices'
/// lengths.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn arg_min<T: Copy + Default + PartialOrd>(
    p: &ArgMinMax,
    input: &[T],
    output: &mut [i32],
) -> Result<(), KernelError> {
    check_arg_min(p, input.len(), output.len())?;
    proven::arg_min(p, input, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    use super::{ArgMinMax, arg};

    /// [`arg_max`](super::arg_max), its [check](super::check_arg_max) proven.
    pub fn arg_max<T: Copy + Default + PartialOrd>(p: &ArgMinMax, input: &[T], output: &mut [i32]) {
        debug_assert!(super::check_arg_max(p, input.len(), output.len()).is_ok());
        arg(p, input, output, |v, best| v > best);
    }

    /// [`arg_min`](super::arg_min), its [check](super::check_arg_min) proven.
    pub fn arg_min<T: Copy + Default + PartialOrd>(p: &ArgMinMax, input: &[T], output: &mut [i32]) {
        debug_assert!(super::check_arg_min(p, input.len(), output.len()).is_ok());
        arg(p, input, output, |v, best| v < best);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_index_of_the_extreme() {
        let p = ArgMinMax {
            outer: 1,
            axis: 4,
            inner: 1,
        };
        let mut out = [0];
        arg_max(&p, &[1.0_f32, 3.0, 3.0, 2.0], &mut out).unwrap();
        assert_eq!(out, [1]);
        arg_max(&p, &[f32::NAN, 1.0, 3.0, 2.0], &mut out).unwrap();
        assert_eq!(out, [0]);
        arg_min(&p, &[1_i8, -3, 3, -3], &mut out).unwrap();
        assert_eq!(out, [1]);
        // Along axis 0 of [2, 2].
        let p = ArgMinMax {
            outer: 1,
            axis: 2,
            inner: 2,
        };
        let mut out = [0; 2];
        arg_min(&p, &[1_i8, 5, 2, 4], &mut out).unwrap();
        assert_eq!(out, [0, 1]);
    }
}
