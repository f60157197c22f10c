//! BROADCAST_ARGS: TFLM's `reference_ops::BroadcastArgs` (int32 and int64 shapes).

use super::shared::check::{KernelError, require};

/// The element types of BROADCAST_ARGS' shapes; TFLM takes each value as an `int`.
pub trait ShapeValue: Copy {
    /// `static_cast<int>` of the value (the low 32 bits of an int64, as x86-64 truncates).
    fn to_int(self) -> i32;
    /// The value of an `int` stored into the type.
    fn from_int(v: i32) -> Self;
}

impl ShapeValue for i32 {
    fn to_int(self) -> i32 {
        self
    }
    fn from_int(v: i32) -> Self {
        v
    }
}

impl ShapeValue for i64 {
    fn to_int(self) -> i32 {
        self as i32
    }
    fn from_int(v: i32) -> Self {
        i64::from(v)
    }
}

/// [`broadcast_args`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_broadcast_args(
    shape1: usize,
    shape2: usize,
    output: usize,
) -> Result<(), KernelError> {
    require(
        output >= shape1 && output >= shape2,
        "the output is shorter than a shape",
    )
}

/// BROADCAST_ARGS: TFLM's `reference_ops::BroadcastArgs`: the broadcast of two shapes, aligned
/// at their ends (a missing dimension is 1): output dimension `i` from the end is the other
/// shape's where one is 1, else the first's. Where neither is 1 and they differ TFLM's
/// `TFLITE_CHECK_EQ` aborts; this kernel writes the first shape's value.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions ([`check_broadcast_args`])
/// hold: `output.len()` is at least the longer shape's length (TFLM writes as many values as
/// the output holds).
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn broadcast_args<T: ShapeValue>(
    shape1: &[T],
    shape2: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    check_broadcast_args(shape1.len(), shape2.len(), output.len())?;
    proven::broadcast_args(shape1, shape2, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`broadcast_args`](super::broadcast_args), its [`check`](super::check_broadcast_args) proven.
    #[inline]
    pub fn broadcast_args<T: ShapeValue>(shape1: &[T], shape2: &[T], output: &mut [T]) {
        debug_assert!(
            super::check_broadcast_args(shape1.len(), shape2.len(), output.len()).is_ok()
        );
        let n = output.len();
        let back = |shape: &[T], i: usize| {
            shape
                .len()
                .checked_sub(1 + i)
                .and_then(|j| shape.get(j))
                .map_or(1, |&v| v.to_int())
        };
        for (k, o) in output.iter_mut().enumerate() {
            let i = n - 1 - k;
            let (a, b) = (back(shape1, i), back(shape2, i));
            *o = T::from_int(if a == 1 { b } else { a });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasts_shapes_from_the_end() {
        let mut out = [0_i32; 4];
        broadcast_args(&[2, 1, 3], &[5, 1], &mut out).unwrap();
        assert_eq!(out, [1, 2, 5, 3]);
        // An output shorter than a shape is refused, nothing written.
        let mut out = [9_i32; 2];
        assert_eq!(
            broadcast_args(&[2, 1, 3], &[5, 1], &mut out),
            Err(KernelError::Parameters(
                "the output is shorter than a shape"
            ))
        );
        assert_eq!(out, [9; 2]);
        let mut out = [0_i64; 2];
        broadcast_args(&[1_i64 << 32 | 7], &[1, 1], &mut out).unwrap();
        assert_eq!(out, [1, 7]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        refuses([3, 3, 3], [AtMost, AtMost, AtLeast], |[a, b, o]| {
            let mut out = vec![7_i32; o];
            (
                broadcast_args(&vec![1; a], &vec![1; b], &mut out),
                untouched(&out, 7),
            )
        });
    }
}
