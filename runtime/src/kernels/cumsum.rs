//! CUMSUM: TFLM's `reference_ops::CumSum` (float, and the int8 version with its rescaling).

use super::shared::check::{KernelError, check, elements, length};
use super::shared::unary::one_input_kernels;
use super::shared::{Requant, fixed};

/// The geometry of CUMSUM in TFLM's names: `inner` is the product of the dimensions *before*
/// the axis, `outer` of those after it, `depth` the axis' extent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cumsum {
    /// The product of the dimensions before the axis (TFLM's `inner`).
    pub inner: usize,
    /// The axis' extent.
    pub depth: usize,
    /// The product of the dimensions after the axis (TFLM's `outer`).
    pub outer: usize,
    /// Each output excludes its own input.
    pub exclusive: bool,
    /// Sums run from the end of the axis.
    pub reverse: bool,
}

/// Parameters of an int8 CUMSUM: TFLM's `OpData` (`cumsum.cc:35-45`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CumsumS8 {
    /// The geometry.
    pub shape: Cumsum,
    /// Minus the input zero point.
    pub input_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// TFLM's `kCumSumIntegerShift` (20).
    pub left_shift: i32,
    /// `QuantizeMultiplierSmallerThanOneExp(input_scale / (2 * input_scale))`.
    pub input_requant: Requant,
    /// `QuantizeMultiplierSmallerThanOneExp(2 * input_scale / (2^20 * output_scale))`.
    pub output_requant: Requant,
    /// The activation range (`kTfLiteActNone`: the int8 range).
    pub act_min: i32,
    /// The upper end of the activation range.
    pub act_max: i32,
}

/// Calls `f(index, first)` for every element in TFLM's order: for each position after the axis
/// and before it (each reversed with `reverse`), the axis in order (reversed with `reverse`);
/// `first` marks the start of each run along the axis.
#[inline(always)]
fn walk(p: &Cumsum, mut f: impl FnMut(usize, bool)) {
    let rev = |i: usize, n: usize| if p.reverse { n - 1 - i } else { i };
    let plane = p.depth.wrapping_mul(p.outer);
    for outer in 0..p.outer {
        let outer_adj = rev(outer, p.outer);
        for inner in 0..p.inner {
            let inner_adj = rev(inner, p.inner);
            for depth in 0..p.depth {
                let depth_adj = rev(depth, p.depth);
                f(
                    outer_adj
                        .wrapping_add(inner_adj.wrapping_mul(plane))
                        .wrapping_add(depth_adj.wrapping_mul(p.outer)),
                    depth == 0,
                );
            }
        }
    }
}

/// What both CUMSUM kernels need of their slices: the input and the output `inner * depth *
/// outer` long.
const fn check_cumsum(p: &Cumsum, input: usize, output: usize) -> Result<(), KernelError> {
    let n = elements(&[p.inner, p.depth, p.outer]);
    check!(length("input", n, input));
    length("output", n, output)
}

/// [`cumsum_f32`]'s preconditions, on the lengths of its slices: the input and the output
/// `inner * depth * outer` long (what the entry checks before it runs, and what generated code
/// asserts when the crate compiles).
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_cumsum_f32(p: &Cumsum, input: usize, output: usize) -> Result<(), KernelError> {
    check_cumsum(p, input, output)
}

/// [`cumsum_s8`]'s preconditions, as [`check_cumsum_f32`]'s on its geometry.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_cumsum_s8(p: &CumsumS8, input: usize, output: usize) -> Result<(), KernelError> {
    check_cumsum(&p.shape, input, output)
}

one_input_kernels! {
    /// float CUMSUM: TFLM's `reference_ops::CumSum<float>`: each run along the axis sums from 0
    /// (`accumulator + input`), writing the sum after (inclusive) or before (exclusive) adding.
    pub fn cumsum_f32 / check_cumsum_f32(p: &Cumsum, input: &[f32], output: &mut [f32]) {
        let mut acc = 0.0_f32;
        walk(p, |i, first| {
            if first {
                acc = 0.0;
            }
            {
                let x = input.get(i).copied().unwrap_or(0.0);
                let value = if p.exclusive {
                    let before = acc;
                    acc += x;
                    before
                } else {
                    acc += x;
                    acc
                };
                if let Some(o) = output.get_mut(i) {
                    *o = value;
                }
            }
        });
    }

    /// int8 CUMSUM: TFLM's `reference_ops::CumSum(const ArithmeticParams&, ..)`: every input `(x +
    /// input_offset) << left_shift` scaled by the input multiplier, summed in int32 (wrapping as
    /// x86-64 does where TFLM overflows) from the scaled input offset (TFLM's accumulator starts
    /// at `input_offset << left_shift` scaled, not at 0), each sum scaled by the output multiplier
    /// plus the output offset, clamped to the activation range.
    pub fn cumsum_s8 / check_cumsum_s8(p: &CumsumS8, input: &[i8], output: &mut [i8]) {
        let scale = |x: i32, r: Requant| {
            fixed::multiply_by_quantized_multiplier_smaller_than_one_exp(x, r.multiplier, r.shift)
        };
        let pot = 1_i32.wrapping_shl(p.left_shift as u32);
        let mut acc = 0_i32;
        walk(&p.shape, |i, first| {
            if first {
                acc = scale(p.input_offset.wrapping_mul(pot), p.input_requant);
            }
            {
                let y = p
                    .input_offset
                    .wrapping_add(i32::from(input.get(i).copied().unwrap_or(0)));
                let scaled = scale(y.wrapping_mul(pot), p.input_requant);
                let sum = if p.shape.exclusive {
                    let before = acc;
                    acc = acc.wrapping_add(scaled);
                    before
                } else {
                    acc = acc.wrapping_add(scaled);
                    acc
                };
                let raw = scale(sum, p.output_requant).wrapping_add(p.output_offset);
                let clamped = raw.max(p.act_min).min(p.act_max);
                if let Some(o) = output.get_mut(i) {
                    *o = clamped as i8;
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_along_the_axis() {
        // [2, 3] along axis 1: inner 2, depth 3, outer 1.
        let mut p = Cumsum {
            inner: 2,
            depth: 3,
            outer: 1,
            exclusive: false,
            reverse: false,
        };
        let input = [1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0];
        let mut out = [0.0; 6];
        cumsum_f32(&p, &input, &mut out).unwrap();
        assert_eq!(out, [1.0, 3.0, 6.0, 4.0, 9.0, 15.0]);
        p.exclusive = true;
        p.reverse = true;
        cumsum_f32(&p, &input, &mut out).unwrap();
        assert_eq!(out, [5.0, 3.0, 0.0, 11.0, 6.0, 0.0]);
    }

    #[test]
    fn int8_rescales_each_sum() {
        // Input and output scale 1, zero points 0: multipliers 0.5 and 2 * 2^-20 (as TFLM's
        // QuantizeMultiplierSmallerThanOneExp gives them), so sums come out as they are.
        let p = CumsumS8 {
            shape: Cumsum {
                inner: 1,
                depth: 3,
                outer: 1,
                exclusive: false,
                reverse: false,
            },
            input_offset: 0,
            output_offset: 0,
            left_shift: 20,
            input_requant: Requant {
                multiplier: 1 << 30,
                shift: 0,
            },
            output_requant: Requant {
                multiplier: 1 << 30,
                shift: -18,
            },
            act_min: -128,
            act_max: 127,
        };
        let mut out = [0_i8; 3];
        cumsum_s8(&p, &[1, 2, 127], &mut out).unwrap();
        assert_eq!(out, [1, 3, 127]);
    }
}
