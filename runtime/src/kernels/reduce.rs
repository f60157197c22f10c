//! MEAN: TFLM's `reduce_common.cc` `EvalMeanHelper` with
//! `reference_ops::QuantizedMeanOrSum` (int8, int16) and `reference_ops::Mean` (float).

use super::shared::check::{KernelError, check, elements, length, require};
use super::shared::unary::one_input_kernels;
use super::shared::{Requant, at, fixed};

/// Parameters of an int8 MEAN.
#[derive(Clone, Copy, Debug)]
pub struct MeanS8 {
    /// Input shape, right-aligned into 4 dimensions padded with leading 1s.
    pub input: [usize; 4],
    /// Which of the 4 dimensions are reduced (the axis tensor, resolved: negative axes
    /// wrapped, duplicates merged, shifted by the padding).
    pub axes: [bool; 4],
    /// The input zero point.
    pub input_zero_point: i32,
    /// The output zero point.
    pub output_zero_point: i32,
    /// The input scale. Not read by [`mean_s8`]: TFLM at the pinned version rescales even when
    /// the input and output are quantised alike (see there); kept so the parameters describe
    /// the op completely.
    pub input_scale: f32,
    /// The output scale (not read either).
    pub output_scale: f32,
    /// `QuantizeMultiplier(input_scale / output_scale)` (TFLM's `op_data->multiplier` and
    /// `shift`; the kernel folds `1 / count` into it as TFLM does).
    pub requant: Requant,
}

/// Parameters of an int16 MEAN (TFLM's `EvalIntegerMean<int16_t>`, the int8 computation with
/// the int16 range).
#[derive(Clone, Copy, Debug)]
pub struct MeanS16 {
    /// Input shape, right-aligned into 4 dimensions padded with leading 1s.
    pub input: [usize; 4],
    /// Which of the 4 dimensions are reduced (the axis tensor, resolved).
    pub axes: [bool; 4],
    /// The input zero point.
    pub input_zero_point: i32,
    /// The output zero point.
    pub output_zero_point: i32,
    /// The input scale (not read by [`mean_s16`]).
    pub input_scale: f32,
    /// The output scale (not read either).
    pub output_scale: f32,
    /// `QuantizeMultiplier(input_scale / output_scale)`.
    pub requant: Requant,
}

/// Parameters of a float MEAN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeanF32 {
    /// Input shape, right-aligned into 4 dimensions padded with leading 1s.
    pub input: [usize; 4],
    /// Which of the 4 dimensions are reduced.
    pub axes: [bool; 4],
}

/// Calls `reduce(output_index, input_indexes)` for each output element in order, with the
/// indexes of the input elements that reduce into it in increasing order (the order TFLM's
/// `Reduce` adds them in).
#[inline(always)]
fn for_each_output(
    input: [usize; 4],
    axes: [bool; 4],
    mut reduce: impl FnMut(&mut dyn Iterator<Item = usize>),
) {
    // Output extents: 1 along reduced axes.
    let kept = |d: usize| if axes[d] { 1 } else { input[d] };
    let reduced = |d: usize| if axes[d] { input[d] } else { 1 };
    let strides = [
        input[1] * input[2] * input[3],
        input[2] * input[3],
        input[3],
        1,
    ];
    for o0 in 0..kept(0) {
        for o1 in 0..kept(1) {
            for o2 in 0..kept(2) {
                for o3 in 0..kept(3) {
                    let mut indexes = (0..reduced(0)).flat_map(move |r0| {
                        (0..reduced(1)).flat_map(move |r1| {
                            (0..reduced(2)).flat_map(move |r2| {
                                (0..reduced(3)).map(move |r3| {
                                    (o0 + r0) * strides[0]
                                        + (o1 + r1) * strides[1]
                                        + (o2 + r2) * strides[2]
                                        + (o3 + r3) * strides[3]
                                })
                            })
                        })
                    });
                    reduce(&mut indexes);
                }
            }
        }
    }
}

/// Elements reduced into each output.
fn count(input: [usize; 4], axes: [bool; 4]) -> usize {
    (0..4)
        .filter(|&d| axes[d])
        .fold(1_usize, |n, d| n.wrapping_mul(input[d]))
}

/// The input's and the output's lengths of a reduction of `input` over `axes`: the product of
/// the dimensions, and that of the kept ones (`None` on overflow).
const fn reduced_lengths(input: &[usize], axes: &[bool]) -> (Option<usize>, Option<usize>) {
    let (mut all, mut kept): (Option<usize>, Option<usize>) = (Some(1), Some(1));
    let mut d = 0;
    while d < input.len() && d < axes.len() {
        all = match all {
            Some(n) => n.checked_mul(input[d]),
            None => None,
        };
        if !axes[d] {
            kept = match kept {
                Some(n) => n.checked_mul(input[d]),
                None => None,
            };
        }
        d += 1;
    }
    (all, kept)
}

/// What every reduction needs of its slices: the input as long as the product of `input`, the
/// output as that of its kept dimensions.
const fn check_reduced(
    input: &[usize],
    axes: &[bool],
    input_len: usize,
    output_len: usize,
) -> Result<(), KernelError> {
    let (all, kept) = reduced_lengths(input, axes);
    check!(length("input", all, input_len));
    length("output", kept, output_len)
}

/// What a 4-dimensional MEAN needs: [`check_reduced`], and strides that do not overflow (the
/// product of the last three dimensions, which a zero first dimension leaves unchecked).
const fn check_mean(
    input: &[usize; 4],
    axes: &[bool; 4],
    input_len: usize,
    output_len: usize,
) -> Result<(), KernelError> {
    check!(check_reduced(input, axes, input_len, output_len));
    require(
        elements(&[input[1], input[2], input[3]]).is_some(),
        "the input's strides overflow",
    )
}

/// What the integer MEAN's arithmetic needs of its requantisation: a shift at which `31 +
/// shift` and `shift - 32` do not overflow (TFLM's shifts lie within ±31).
const fn check_mean_shift(shift: i32) -> Result<(), KernelError> {
    require(
        shift.checked_add(31).is_some() && shift.checked_sub(32).is_some(),
        "the requantisation's shift overflows the mean's arithmetic",
    )
}

/// [`mean_s8`]'s preconditions, on the lengths of its slices: the input as long as the product
/// of `p.input`, the output as that of its non-reduced dimensions, the strides and the shift
/// within range (what the entry checks before it runs, and what generated code asserts when
/// the crate compiles).
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_mean_s8(p: &MeanS8, input: usize, output: usize) -> Result<(), KernelError> {
    check!(check_mean(&p.input, &p.axes, input, output));
    check_mean_shift(p.requant.shift)
}

/// [`mean_s16`]'s preconditions, as [`check_mean_s8`]'s.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_mean_s16(p: &MeanS16, input: usize, output: usize) -> Result<(), KernelError> {
    check!(check_mean(&p.input, &p.axes, input, output));
    check_mean_shift(p.requant.shift)
}

/// [`mean_f32`]'s preconditions, as [`check_mean_s8`]'s (no shift).
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_mean_f32(p: &MeanF32, input: usize, output: usize) -> Result<(), KernelError> {
    check_mean(&p.input, &p.axes, input, output)
}

/// [`reduce_max_f32`]'s preconditions, on the lengths of its slices: the input as long as the
/// product of `p.input`, the output as that of its non-reduced dimensions (what the entry
/// checks before it runs, and what generated code asserts when the crate compiles).
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_reduce_max_f32(
    p: &Reduce,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_reduced(&p.input, &p.axes, input, output)
}

/// [`reduce_min_f32`]'s preconditions, as [`check_reduce_max_f32`]'s.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_reduce_min_f32(
    p: &Reduce,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_reduced(&p.input, &p.axes, input, output)
}

/// [`reduce_max_s8`]'s preconditions, as [`check_reduce_max_f32`]'s.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_reduce_max_s8(
    p: &Reduce,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_reduced(&p.input, &p.axes, input, output)
}

/// [`reduce_min_s8`]'s preconditions, as [`check_reduce_max_f32`]'s.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_reduce_min_s8(
    p: &Reduce,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_reduced(&p.input, &p.axes, input, output)
}

/// [`reduce_all`]'s preconditions, as [`check_reduce_max_f32`]'s.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_reduce_all(p: &Reduce, input: usize, output: usize) -> Result<(), KernelError> {
    check_reduced(&p.input, &p.axes, input, output)
}

/// [`sum_f32`]'s preconditions, as [`check_reduce_max_f32`]'s.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_sum_f32(p: &Reduce, input: usize, output: usize) -> Result<(), KernelError> {
    check_reduced(&p.input, &p.axes, input, output)
}

/// [`sum_s8`]'s preconditions, as [`check_reduce_max_f32`]'s.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_sum_s8(
    p: &SumQuantized,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_reduced(&p.input, &p.axes, input, output)
}

/// [`sum_s16`]'s preconditions, as [`check_reduce_max_f32`]'s.
///
/// # Errors
///
/// The first that does not hold.
pub const fn check_sum_s16(
    p: &SumQuantized,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    check_reduced(&p.input, &p.axes, input, output)
}

one_input_kernels! {
    /// int8 MEAN, as TFLM's int8 `EvalIntegerMean`: always `reference_ops::QuantizedMeanOrSum`,
    /// `1 / count` folded into the multiplier (`multiplier << s / count`, `shift - s` with `s =
    /// min(floor(log2 count), 32, 31 + shift)`), then `MultiplyByQuantizedMultiplier(sum -
    /// input_zero_point * count)` plus the output zero point, saturated. The result is the mean
    /// rounded to nearest (with the multiplier's truncation), not truncated.
    ///
    /// This holds when the input and output are quantised alike, too. Some `reduce_common.cc`
    /// versions send that case to `reference_ops::Mean<int8_t, int32_t>` (the int32 sum divided
    /// by the count, truncating towards zero), but the interpreter this crate is checked against
    /// (tflite-micro 0.dev20261023182759) rescales it like any other: MobileNet v2's global
    /// average pool (7x7, equal scales and zero points) and single-MEAN models with equal
    /// quantisation (counts 1, 3, 4, 49, 60) match it only this way. No int8 special case for
    /// H,W with `keep_dims` either; `keep_dims` does not change the data.
    pub fn mean_s8 / check_mean_s8(p: &MeanS8, input: &[i8], output: &mut [i8]) {
        quantized_mean(
            p.input,
            p.axes,
            p.input_zero_point,
            p.output_zero_point,
            p.requant,
            input,
            output,
            |value| value.clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8,
        );
    }

    /// int16 MEAN: TFLM's `EvalIntegerMean<int16_t>`, the computation of [`mean_s8`] saturated to
    /// the int16 range.
    pub fn mean_s16 / check_mean_s16(p: &MeanS16, input: &[i16], output: &mut [i16]) {
        quantized_mean(
            p.input,
            p.axes,
            p.input_zero_point,
            p.output_zero_point,
            p.requant,
            input,
            output,
            |value| value.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
        );
    }

    /// float MEAN: TFLM's `reference_ops::Mean` (float; the H,W special case adds in the same
    /// order): per output, the sum of its inputs in increasing index order, divided by the count
    /// as a float.
    pub fn mean_f32 / check_mean_f32(p: &MeanF32, input: &[f32], output: &mut [f32]) {
        let n = count(p.input, p.axes) as f32;
        let mut out = output.iter_mut();
        for_each_output(p.input, p.axes, |indexes| {
            let mut sum = 0.0_f32;
            for i in indexes {
                sum += at(input, i);
            }
            if let Some(o) = out.next() {
                *o = if n > 0.0 { sum / n } else { sum };
            }
        });
    }

    /// float REDUCE_MAX: TFLM's `ReduceGeneric<float>` from `std::numeric_limits<float>::lowest()`
    /// with `(in > current) ? in : current` (a NaN never wins; an all -inf reduction gives the
    /// lowest float, as TFLM's).
    pub fn reduce_max_f32 / check_reduce_max_f32(p: &Reduce, input: &[f32], output: &mut [f32]) {
        reduce_generic(p, input, output, f32::MIN, |c, x| if x > c { x } else { c });
    }

    /// float REDUCE_MIN: from `std::numeric_limits<float>::max()` with `(in < current) ? in :
    /// current`.
    pub fn reduce_min_f32 / check_reduce_min_f32(p: &Reduce, input: &[f32], output: &mut [f32]) {
        reduce_generic(p, input, output, f32::MAX, |c, x| if x < c { x } else { c });
    }

    /// int8 REDUCE_MAX (input and output quantised alike, as TFLM requires): from -128 with
    /// `(in > current) ? in : current`.
    pub fn reduce_max_s8 / check_reduce_max_s8(p: &Reduce, input: &[i8], output: &mut [i8]) {
        reduce_generic(p, input, output, i8::MIN, |c, x| if x > c { x } else { c });
    }

    /// int8 REDUCE_MIN: from 127 with `(in < current) ? in : current`.
    pub fn reduce_min_s8 / check_reduce_min_s8(p: &Reduce, input: &[i8], output: &mut [i8]) {
        reduce_generic(p, input, output, i8::MAX, |c, x| if x < c { x } else { c });
    }

    /// bool REDUCE_ALL: TFLM's `ReduceGeneric<bool>` from `true` with `in && current` (a byte
    /// other than 0 is true; the output is 0 or 1).
    pub fn reduce_all / check_reduce_all(p: &Reduce, input: &[u8], output: &mut [u8]) {
        reduce_generic(p, input, output, 1, |c, x| u8::from(x != 0 && c != 0));
    }

    /// float SUM: TFLM's `ReduceGeneric<float>` from `0.f` with `in + current`, each output's
    /// inputs in increasing index order.
    pub fn sum_f32 / check_sum_f32(p: &Reduce, input: &[f32], output: &mut [f32]) {
        reduce_generic(p, input, output, 0.0, |c, x| x + c);
    }

    /// int8 SUM: TFLM's `QuantizedMeanOrSum<int8_t, int32_t>` with `compute_sum` (no `1 / count`
    /// folded into the multiplier).
    pub fn sum_s8 / check_sum_s8(p: &SumQuantized, input: &[i8], output: &mut [i8]) {
        sum_quantized(
            p,
            input,
            output,
            |v| v as i8,
            (i32::from(i8::MIN), i32::from(i8::MAX)),
        );
    }

    /// int16 SUM: TFLM's `QuantizedMeanOrSum<int16_t, int32_t>` with `compute_sum`.
    pub fn sum_s16 / check_sum_s16(p: &SumQuantized, input: &[i16], output: &mut [i16]) {
        sum_quantized(
            p,
            input,
            output,
            |v| v as i16,
            (i32::from(i16::MIN), i32::from(i16::MAX)),
        );
    }
}

/// TFLM's `QuantizedMeanOrSum` (mean) for an integer type `T`: the int32 sums, `1 / count`
/// folded into the multiplier, `narrow` the saturation to `T`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn quantized_mean<T: Copy + Default + Into<i32>>(
    dims: [usize; 4],
    axes: [bool; 4],
    input_zero_point: i32,
    output_zero_point: i32,
    requant: Requant,
    input: &[T],
    output: &mut [T],
    narrow: impl Fn(i32) -> T,
) {
    let n = count(dims, axes);
    if dims.contains(&0) || n == 0 {
        // TFLM leaves zeroes when the input is empty.
        output.fill(T::default());
        return;
    }
    let mut out = output.iter_mut();
    let n64 = n as i64;
    let mut shift = 63 - (n as u64).leading_zeros() as i32;
    shift = shift.min(32).min(31 + requant.shift).max(0);
    let multiplier = ((i64::from(requant.multiplier) << shift) / n64) as i32;
    let output_shift = requant.shift - shift;
    let input_zero_point_times_count = i64::from(input_zero_point).wrapping_mul(n64);
    for_each_output(dims, axes, |indexes| {
        let mut sum: i32 = 0;
        for i in indexes {
            sum = sum.wrapping_add(at(input, i).into());
        }
        let shifted_sum = i64::from(sum).wrapping_sub(input_zero_point_times_count) as i32;
        let value = fixed::multiply_by_quantized_multiplier(shifted_sum, multiplier, output_shift)
            .wrapping_add(output_zero_point);
        if let Some(o) = out.next() {
            *o = narrow(value);
        }
    });
}

/// Parameters of REDUCE_MAX, REDUCE_MIN and float SUM: the input shape right-aligned into 6
/// dimensions padded with leading 1s, and the reduced dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reduce {
    /// Input shape.
    pub input: [usize; 6],
    /// Which of the 6 dimensions are reduced (the axis tensor resolved as TFLM's
    /// `ResolveAxis`: negative axes wrapped, duplicates merged, shifted by the padding).
    pub axes: [bool; 6],
}

/// Parameters of an int8 or int16 SUM (TFLM's `QuantizedMeanOrSum` with `compute_sum`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SumQuantized {
    /// Input shape, right-aligned into 6 dimensions padded with leading 1s.
    pub input: [usize; 6],
    /// Which of the 6 dimensions are reduced.
    pub axes: [bool; 6],
    /// The input zero point.
    pub input_zero_point: i32,
    /// The output zero point.
    pub output_zero_point: i32,
    /// The input scale (not read by the kernel: TFLM's `OpDataReduce` keeps it).
    pub input_scale: f32,
    /// The output scale (not read either).
    pub output_scale: f32,
    /// `QuantizeMultiplier(input_scale / output_scale)` (TFLM's `op_data->multiplier` and
    /// `shift`).
    pub requant: Requant,
}

/// Calls `reduce(inputs)` for each output element of a 6-dimensional reduction, in order, with
/// the indexes of the input elements that reduce into it in increasing order (the order in
/// which TFLM's `Reduce` visits them: it walks the input in row-major order). Returns at once
/// when the element count overflows.
#[inline(always)]
fn for_each_output6(
    input: [usize; 6],
    axes: [bool; 6],
    mut reduce: impl FnMut(&mut dyn Iterator<Item = usize>),
) {
    if super::shared::product(&input).is_none() {
        return;
    }
    let kept: [usize; 6] = core::array::from_fn(|d| if axes[d] { 1 } else { input[d] });
    let reduced: [usize; 6] = core::array::from_fn(|d| if axes[d] { input[d] } else { 1 });
    let mut strides = [0_usize; 6];
    let mut stride = 1_usize;
    for d in (0..6).rev() {
        strides[d] = stride;
        stride = stride.wrapping_mul(input[d]);
    }
    let outputs = kept.iter().product::<usize>();
    let count = reduced.iter().product::<usize>();
    // Multi-indexes by odometer: `o` over the kept extents, `r` over the reduced ones.
    let digits = |mut n: usize, extents: &[usize; 6]| {
        let mut d = [0_usize; 6];
        for k in (0..6).rev() {
            let e = extents[k].max(1);
            d[k] = n % e;
            n /= e;
        }
        d
    };
    for o in 0..outputs {
        let od = digits(o, &kept);
        let base: usize = (0..6).map(|d| od[d] * strides[d]).sum();
        let mut r = 0_usize;
        let mut rd = [0_usize; 6];
        let mut indexes = core::iter::from_fn(|| {
            if r >= count {
                return None;
            }
            let i = base + (0..6).map(|d| rd[d] * strides[d]).sum::<usize>();
            r += 1;
            // Next reduced multi-index.
            for k in (0..6).rev() {
                rd[k] += 1;
                if rd[k] < reduced[k] {
                    break;
                }
                rd[k] = 0;
            }
            Some(i)
        });
        reduce(&mut indexes);
    }
}

/// TFLM's `ReduceGeneric` with `init` and `f(current, in)`: every output starts at `init` and
/// takes each of its inputs in turn.
#[inline(always)]
fn reduce_generic<T: Copy + Default>(
    p: &Reduce,
    input: &[T],
    output: &mut [T],
    init: T,
    f: impl Fn(T, T) -> T,
) {
    let mut out = output.iter_mut();
    for_each_output6(p.input, p.axes, |indexes| {
        let mut acc = init;
        for i in indexes {
            acc = f(acc, at(input, i));
        }
        if let Some(o) = out.next() {
            *o = acc;
        }
    });
}

/// TFLM's `QuantizedMeanOrSum<T, int32_t>` with `compute_sum`: the int32 sum of each output's
/// inputs (wrapping), minus `input_zero_point * count` (in 64 bits, truncated to 32), through
/// `MultiplyByQuantizedMultiplier`, plus the output zero point, saturated to the type.
#[inline(always)]
fn sum_quantized<T: Copy + Default + Into<i32>>(
    p: &SumQuantized,
    input: &[T],
    output: &mut [T],
    narrow: impl Fn(i32) -> T,
    (lo, hi): (i32, i32),
) {
    let count = p
        .input
        .iter()
        .zip(p.axes)
        .filter(|(_, r)| *r)
        .fold(1_i64, |n, (&d, _)| n.wrapping_mul(d as i64));
    if p.input.contains(&0) {
        // TFLM leaves zeroes when the input is empty.
        output.fill(T::default());
        return;
    }
    let zero_point_times_count = i64::from(p.input_zero_point).wrapping_mul(count);
    let mut out = output.iter_mut();
    for_each_output6(p.input, p.axes, |indexes| {
        let mut sum: i32 = 0;
        for i in indexes {
            sum = sum.wrapping_add(at(input, i).into());
        }
        let shifted = i64::from(sum).wrapping_sub(zero_point_times_count) as i32;
        let value = p.requant.apply(shifted).wrapping_add(p.output_zero_point);
        if let Some(o) = out.next() {
            *o = narrow(value.clamp(lo, hi));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(axes: [bool; 6]) -> Reduce {
        Reduce {
            input: [1, 1, 1, 1, 2, 3],
            axes,
        }
    }

    #[test]
    fn reduces_rows_and_columns() {
        let x = [1.0_f32, -2.0, 3.0, 4.0, f32::NAN, -6.0];
        let mut out = [0.0; 2];
        reduce_max_f32(
            &rows([false, false, false, false, false, true]),
            &x,
            &mut out,
        )
        .unwrap();
        assert_eq!(out, [3.0, 4.0]);
        let mut out = [0.0; 3];
        reduce_min_f32(
            &rows([false, false, false, false, true, false]),
            &x,
            &mut out,
        )
        .unwrap();
        assert_eq!(out, [1.0, -2.0, -6.0]);
        let mut out = [0.0; 1];
        sum_f32(
            &rows([false, false, false, false, true, true]),
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            &mut out,
        )
        .unwrap();
        assert_eq!(out, [21.0]);
        let mut out = [0.0; 1];
        reduce_max_f32(
            &rows([false, false, false, false, true, true]),
            &[f32::NEG_INFINITY; 6],
            &mut out,
        )
        .unwrap();
        assert_eq!(out, [f32::MIN]);
    }

    #[test]
    fn reduce_all_is_true_where_every_input_is() {
        // [2, 3]: rows [1, 1, 1] and [1, 0, 2]; over columns, over rows, over nothing.
        let input = [1, 1, 1, 1, 0, 2];
        let mut out = [9_u8; 2];
        reduce_all(
            &rows([false, false, false, false, false, true]),
            &input,
            &mut out,
        )
        .unwrap();
        assert_eq!(out, [1, 0]);
        let mut out = [9_u8; 3];
        reduce_all(
            &rows([false, false, false, false, true, false]),
            &input,
            &mut out,
        )
        .unwrap();
        assert_eq!(out, [1, 0, 1]);
        let mut out = [9_u8; 6];
        reduce_all(&rows([false; 6]), &input, &mut out).unwrap();
        assert_eq!(out, [1, 1, 1, 1, 0, 1]);
    }

    #[test]
    fn quantized_sum_rescales() {
        // Sum of (x - 1) over 3 values at multiplier 0.5: (2 + 3 + 4 - 3) * 0.5 = 3, + 5.
        let p = SumQuantized {
            input: [1, 1, 1, 1, 1, 3],
            axes: [false, false, false, false, false, true],
            input_zero_point: 1,
            output_zero_point: 5,
            input_scale: 1.0,
            output_scale: 2.0,
            requant: Requant {
                multiplier: 1 << 30,
                shift: 0,
            },
        };
        let mut out = [0_i8; 1];
        sum_s8(&p, &[2, 3, 4], &mut out).unwrap();
        assert_eq!(out, [8]);
        let mut out = [0_i16; 1];
        sum_s16(&p, &[2, 3, 4], &mut out).unwrap();
        assert_eq!(out, [8]);
    }

    #[test]
    fn int16_mean_rescales_and_saturates() {
        // The mean of 4 values with equal scales (multiplier 1.0 = (2^30, 1)): 1/4 folded in.
        let p = MeanS16 {
            input: [1, 1, 1, 4],
            axes: [false, false, false, true],
            input_zero_point: 0,
            output_zero_point: 10,
            input_scale: 1.0,
            output_scale: 1.0,
            requant: Requant {
                multiplier: 1 << 30,
                shift: 1,
            },
        };
        let mut out = [0i16; 1];
        // 10001 / 4 = 2500.25, rounded twice (TFLM's default build): 10001 / 2 -> 5001, then
        // 5001 / 2 -> 2501; plus the zero point.
        mean_s16(&p, &[1000, 2000, 3000, 4001], &mut out).unwrap();
        assert_eq!(out, [2511]);
        // Saturates at the int16 maximum (the sum needs more than 16 bits).
        let p = MeanS16 {
            output_zero_point: 32000,
            ..p
        };
        mean_s16(&p, &[32767, 32767, 32767, 32767], &mut out).unwrap();
        assert_eq!(out, [32767]);
    }
}
