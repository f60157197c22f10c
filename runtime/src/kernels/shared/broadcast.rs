//! What ADD and MUL (and the binary ops to come) share: the broadcast shape and the loop that
//! walks the output in memory order, fetching each input's element.
//!
//! Every output element depends on one element of each input only, so the order in which the
//! broadcast loops visit the output does not change any result.

use super::check::{KernelError, check, elements, length, require};
use super::slices::at;

/// Whether `x + offset` fits a halfword for every int8 `x` (so `SXTAB16`'s lanes are the exact
/// offset values): `offset` in `-32640..=32640`. The blocked ADD and MUL take such offsets.
#[inline(always)]
pub(crate) const fn offset_fits(offset: i32) -> bool {
    -32640 <= offset && offset <= 32640
}

/// Shapes of a binary elementwise op, each right-aligned into 6 dimensions padded with leading
/// 1s. An input dimension of 1 where the output's is larger is broadcast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BinaryShape {
    /// First input.
    pub input1: [usize; 6],
    /// Second input.
    pub input2: [usize; 6],
    /// Output.
    pub output: [usize; 6],
}

/// Parameters of a float ADD or MUL.
#[derive(Clone, Copy, Debug)]
pub struct BinaryF32 {
    /// The shapes.
    pub shape: BinaryShape,
    /// Lower clamp of the output (fused activation).
    pub act_min: f32,
    /// Upper clamp of the output (fused activation).
    pub act_max: f32,
}

/// What every broadcasting binary kernel needs of its shapes and its slices' lengths: each
/// slice holds its shape's element count (`input1`, `input2`, `output` elements), and every
/// input dimension equals the output's or is 1.
///
/// # Errors
///
/// The first precondition that does not hold.
pub(crate) const fn check_binary(
    shape: &BinaryShape,
    input1: usize,
    input2: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length("input1", elements(&shape.input1), input1));
    check!(length("input2", elements(&shape.input2), input2));
    check!(length("output", elements(&shape.output), output));
    let mut d = 0;
    while d < 6 {
        let o = shape.output[d];
        check!(require(
            (shape.input1[d] == o || shape.input1[d] == 1)
                && (shape.input2[d] == o || shape.input2[d] == 1),
            "an input dimension is neither the output's nor 1"
        ));
        d += 1;
    }
    Ok(())
}

/// Row-major strides of `shape`, 0 where `shape` has extent 1 (broadcast).
fn broadcast_strides(shape: &[usize; 6]) -> [usize; 6] {
    let mut strides = [0; 6];
    let mut stride = 1_usize;
    for d in (0..6).rev() {
        strides[d] = if shape[d] == 1 { 0 } else { stride };
        stride = stride.wrapping_mul(shape[d]);
    }
    strides
}

/// Visits the output in memory order, calling `visit(j1, j2)` with the index of the element of
/// each input that broadcasts to each output element (the output's own index counts up from 0
/// with the calls).
#[inline(always)]
pub(crate) fn walk(shape: &BinaryShape, mut visit: impl FnMut(usize, usize)) {
    let s1 = broadcast_strides(&shape.input1);
    let s2 = broadcast_strides(&shape.input2);
    let [d0, d1, d2, d3, d4, d5] = shape.output;
    for i0 in 0..d0 {
        for i1 in 0..d1 {
            for i2 in 0..d2 {
                for i3 in 0..d3 {
                    let base1 = i0 * s1[0] + i1 * s1[1] + i2 * s1[2] + i3 * s1[3];
                    let base2 = i0 * s2[0] + i1 * s2[1] + i2 * s2[2] + i3 * s2[3];
                    for i4 in 0..d4 {
                        for i5 in 0..d5 {
                            visit(
                                base1 + i4 * s1[4] + i5 * s1[5],
                                base2 + i4 * s2[4] + i5 * s2[5],
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Walks the output in memory order, calling `op(a, b)` with the input elements that
/// broadcast to each output element.
#[inline(always)]
pub(crate) fn broadcast<T: Copy + Default, O>(
    shape: &BinaryShape,
    input1: &[T],
    input2: &[T],
    output: &mut [O],
    op: impl FnMut(T, T) -> O,
) {
    if shape.input1 == shape.output && shape.input2 == shape.output {
        // TFLM's elementwise path (no broadcast): the same pairs, element by element.
        let mut op = op;
        for (i, o) in output.iter_mut().enumerate() {
            *o = op(at(input1, i), at(input2, i));
        }
        return;
    }
    broadcast_mixed(shape, input1, input2, output, op);
}

/// Parameters of an int32 binary op (ADD, SUB, MUL, DIV): the shapes and the clamp of the
/// fused activation (TFLM's `CalculateActivationRange<int32_t>`, or the whole int32 range where
/// the kernel ignores the activation).
#[derive(Clone, Copy, Debug)]
pub struct BinaryI32 {
    /// The shapes.
    pub shape: BinaryShape,
    /// Lower clamp of the output.
    pub act_min: i32,
    /// Upper clamp of the output.
    pub act_max: i32,
}

/// [`broadcast`] for inputs of two element types (PRELU's int16 input with int8 alphas): the
/// same walk, in the output's memory order.
#[inline(always)]
pub(crate) fn broadcast_mixed<A: Copy + Default, B: Copy + Default, O>(
    shape: &BinaryShape,
    input1: &[A],
    input2: &[B],
    output: &mut [O],
    mut op: impl FnMut(A, B) -> O,
) {
    let mut out = output.iter_mut();
    walk(shape, |j1, j2| {
        if let Some(o) = out.next() {
            *o = op(at(input1, j1), at(input2, j2));
        }
    });
}

/// TFLM's `std::min(max, std::max(min, x))` on an int32 value (the clamp of the binary int32
/// kernels and of `ActivationFunctionWithMinMax<int32_t>`).
#[inline(always)]
pub(crate) fn clamp_i32(x: i32, act_min: i32, act_max: i32) -> i32 {
    let x = if x < act_min { act_min } else { x };
    if act_max < x { act_max } else { x }
}
