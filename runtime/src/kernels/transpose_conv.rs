//! TRANSPOSE_CONV: TFLM's `transpose_conv.cc` with `reference_ops::TransposeConv` (float) and
//! `reference_integer_ops::TransposeConv` (int8, and int16 with int8 filters and a 64-bit
//! accumulator).
//!
//! TFLM's reference kernels scatter: for each input element (batch, in_y, in_x, in_channel)
//! they add its products with the filter into every output it reaches, in a zeroed buffer (the
//! output for floats, a scratch buffer of int32 or int64 accumulators otherwise, which its
//! `Prepare` requests), then apply bias, requantisation and clamp per output. Here each output
//! gathers its products instead, so no buffer is needed: for output (batch, out_y, out_x,
//! out_channel) the products come in the order the scatter adds them, increasing (in_y, in_x,
//! in_channel) with `filter_y = out_y + pad_h - in_y * stride_h` (and likewise `x`) inside the
//! filter, so float sums round identically; integer sums wrap as TFLM's accumulators do.
//! Outputs are written in memory order.

use super::shared::check::{KernelError, check, elements, length, optional_length, require};
use super::shared::clamp_to_i16;
use super::shared::{Requant, activation_f32, clamp_to_i8, fixed, sized, sized_mut};

/// NHWC geometry of a TRANSPOSE_CONV.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransposeConvGeometry {
    /// Input shape `[N, H, W, C]`.
    pub input: [usize; 4],
    /// Filter shape `[O, FH, FW, C]`.
    pub filter: [usize; 4],
    /// Output shape `[N, OH, OW, O]`.
    pub output: [usize; 4],
    /// Vertical stride.
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// TFLM's `padding_values.height` (from the output's size: the rows the input's first
    /// product lands above the output).
    pub pad_h: usize,
    /// TFLM's `padding_values.width`.
    pub pad_w: usize,
}

/// Parameters of an int8 TRANSPOSE_CONV (per-channel quantised filter).
#[derive(Clone, Copy, Debug)]
pub struct TransposeConvS8 {
    /// The geometry.
    pub geometry: TransposeConvGeometry,
    /// Minus the input zero point.
    pub input_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// One multiplier per output channel.
    pub requant: &'static [Requant],
    /// Lower clamp of the quantised output (fused activation).
    pub act_min: i32,
    /// Upper clamp of the quantised output (fused activation).
    pub act_max: i32,
}

/// Parameters of an int16 TRANSPOSE_CONV (int8 per-channel filter; no zero points).
#[derive(Clone, Copy, Debug)]
pub struct TransposeConvS16 {
    /// The geometry.
    pub geometry: TransposeConvGeometry,
    /// One multiplier per output channel.
    pub requant: &'static [Requant],
    /// Lower clamp of the quantised output (fused activation).
    pub act_min: i32,
    /// Upper clamp of the quantised output (fused activation).
    pub act_max: i32,
}

/// Parameters of a float TRANSPOSE_CONV.
#[derive(Clone, Copy, Debug)]
pub struct TransposeConvF32 {
    /// The geometry.
    pub geometry: TransposeConvGeometry,
    /// Lower clamp of the output (fused activation).
    pub act_min: f32,
    /// Upper clamp of the output (fused activation).
    pub act_max: f32,
}

/// The input positions `start..end` along one axis whose products reach output position
/// `out`: `in * stride` in `(out + pad - filter, out + pad]`, within `0..size`.
#[inline(always)]
fn reaching(out: usize, pad: usize, filter: usize, stride: usize, size: usize) -> (usize, usize) {
    // `t = out + pad`; a padding so large that it overflows reaches no input.
    let Some(t) = out.checked_add(pad) else {
        return (0, 0);
    };
    let end = (t / stride).saturating_add(1).min(size);
    let start = match (t + 1).checked_sub(filter) {
        Some(low) => low.div_ceil(stride),
        None => 0,
    };
    (start, end.max(start))
}

/// The gather loop nest: for each output in memory order, `acc` from `zero` takes
/// `mac(acc, input_index, filter_index)` for each reaching input element in TFLM's scatter
/// order; `finish(acc, out_channel)` makes the output value.
///
/// Returns without writing if a slice is shorter than its shape, the shapes disagree or a
/// stride is 0.
#[inline(always)]
fn transpose_conv_loops<I, F, A: Copy, O>(
    g: &TransposeConvGeometry,
    input: &[I],
    filter: &[F],
    output: &mut [O],
    zero: A,
    mut mac: impl FnMut(A, &I, &F) -> A,
    mut finish: impl FnMut(A, usize) -> O,
) {
    let [batches, input_h, input_w, input_d] = g.input;
    let [output_d, filter_h, filter_w, filter_d] = g.filter;
    let [out_batches, output_h, output_w, out_d] = g.output;
    if batches != out_batches
        || input_d != filter_d
        || output_d != out_d
        || g.stride_h == 0
        || g.stride_w == 0
    {
        return;
    }
    let (Some(input), Some(filter), Some(output)) = (
        sized(input, &g.input),
        sized(filter, &g.filter),
        sized_mut(output, &g.output),
    ) else {
        return;
    };
    let mut out = output.iter_mut();
    for batch in 0..batches {
        for out_y in 0..output_h {
            let (y_start, y_end) = reaching(out_y, g.pad_h, filter_h, g.stride_h, input_h);
            for out_x in 0..output_w {
                let (x_start, x_end) = reaching(out_x, g.pad_w, filter_w, g.stride_w, input_w);
                for out_c in 0..output_d {
                    let mut acc = zero;
                    for in_y in y_start..y_end {
                        let filter_y = out_y + g.pad_h - in_y * g.stride_h;
                        for in_x in x_start..x_end {
                            let filter_x = out_x + g.pad_w - in_x * g.stride_w;
                            let i = ((batch * input_h + in_y) * input_w + in_x) * input_d;
                            let f = ((out_c * filter_h + filter_y) * filter_w + filter_x) * input_d;
                            if let (Some(i), Some(f)) =
                                (input.get(i..i + input_d), filter.get(f..f + input_d))
                            {
                                for (x, w) in i.iter().zip(f) {
                                    acc = mac(acc, x, w);
                                }
                            }
                        }
                    }
                    if let Some(o) = out.next() {
                        *o = finish(acc, out_c);
                    }
                }
            }
        }
    }
}

/// The multiplier of output channel `out_c` (`(0, 0)` past the end).
#[inline(always)]
fn channel(requant: &[Requant], out_c: usize) -> (i32, i32) {
    match requant.get(out_c) {
        Some(r) => (r.multiplier, r.shift),
        None => (0, 0),
    }
}

/// What every TRANSPOSE_CONV kernel needs of its geometry and its slices' lengths.
const fn check_transpose_conv(
    g: &TransposeConvGeometry,
    input: usize,
    filter: usize,
    output: usize,
) -> Result<(), KernelError> {
    check!(length("input", elements(&g.input), input));
    check!(length("filter", elements(&g.filter), filter));
    check!(length("output", elements(&g.output), output));
    check!(require(
        g.output[0] == g.input[0],
        "the output's batches are not the input's"
    ));
    check!(require(
        g.filter[3] == g.input[3],
        "the filter's depth is not the input's channels"
    ));
    check!(require(
        g.output[3] == g.filter[0],
        "the output's channels are not the filter's output channels"
    ));
    require(g.stride_h >= 1 && g.stride_w >= 1, "a stride is 0")
}

/// [`transpose_conv_f32`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_transpose_conv_f32(
    p: &TransposeConvF32,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    check!(check_transpose_conv(&p.geometry, input, filter, output));
    optional_length("bias", Some(p.geometry.filter[0]), bias)
}

/// float TRANSPOSE_CONV: TFLM's `reference_ops::TransposeConv` (float): each output the sum
/// of its products from 0 in the scatter's order, plus the bias, then
/// `ActivationFunctionWithMinMax`.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_transpose_conv_f32`]) hold: `input.len() == N*H*W*C`, `filter.len() == O*FH*FW*C`,
/// `output.len() == N*OH*OW*O` with the geometry's shapes (the output's batches the input's);
/// `bias`, if any, has `O` entries; strides positive.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn transpose_conv_f32(
    p: &TransposeConvF32,
    input: &[f32],
    filter: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
) -> Result<(), KernelError> {
    check_transpose_conv_f32(
        p,
        input.len(),
        filter.len(),
        bias.map(<[f32]>::len),
        output.len(),
    )?;
    proven::transpose_conv_f32(p, input, filter, bias, output);
    Ok(())
}

/// [`transpose_conv_s8`]'s preconditions, on the lengths of its slices: what the entry checks
/// before it runs, and what generated code asserts when the crate compiles.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_transpose_conv_s8(
    p: &TransposeConvS8,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    check!(check_transpose_conv(&p.geometry, input, filter, output));
    check!(length(
        "requant",
        Some(p.geometry.filter[0]),
        p.requant.len()
    ));
    optional_length("bias", Some(p.geometry.filter[0]), bias)
}

/// int8 TRANSPOSE_CONV: TFLM's `reference_integer_ops::TransposeConv` (int8): `acc += (input +
/// input_offset) * filter` in a wrapping int32 accumulator, the int32 bias,
/// `MultiplyByQuantizedMultiplier` with the channel's multiplier, the output offset, clamp.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_transpose_conv_s8`]) hold: as [`transpose_conv_f32`]'s, and `requant` has `O`
/// entries.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn transpose_conv_s8(
    p: &TransposeConvS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> Result<(), KernelError> {
    check_transpose_conv_s8(
        p,
        input.len(),
        filter.len(),
        bias.map(<[i32]>::len),
        output.len(),
    )?;
    proven::transpose_conv_s8(p, input, filter, bias, output);
    Ok(())
}

/// The int16 kernel with the bias as `bias_at(out_c)`.
#[inline(always)]
fn transpose_conv_s16_with(
    p: &TransposeConvS16,
    input: &[i16],
    filter: &[i8],
    bias_at: impl Fn(usize) -> Option<i64>,
    output: &mut [i16],
) {
    transpose_conv_loops(
        &p.geometry,
        input,
        filter,
        output,
        0_i64,
        |acc, &x, &w| acc.wrapping_add(i64::from(i32::from(x) * i32::from(w))),
        |acc, out_c| {
            let acc = match bias_at(out_c) {
                Some(b) => acc.wrapping_add(b),
                None => acc,
            };
            let (multiplier, shift) = channel(p.requant, out_c);
            let acc = fixed::multiply_by_quantized_multiplier_i64(acc, multiplier, shift);
            clamp_to_i16(acc, p.act_min, p.act_max)
        },
    );
}

/// [`transpose_conv_s16`]'s preconditions, as [`check_transpose_conv_s8`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_transpose_conv_s16(
    p: &TransposeConvS16,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    check!(check_transpose_conv(&p.geometry, input, filter, output));
    check!(length(
        "requant",
        Some(p.geometry.filter[0]),
        p.requant.len()
    ));
    optional_length("bias", Some(p.geometry.filter[0]), bias)
}

/// int16 TRANSPOSE_CONV: TFLM's `reference_integer_ops::TransposeConv<int64_t>` (16-bit input,
/// 8-bit filter): `acc += input * filter` in 64 bits (no zero points), the int64 bias, the
/// 64-bit `MultiplyByQuantizedMultiplier`, clamp.
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_transpose_conv_s16`]) hold: as [`transpose_conv_s8`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn transpose_conv_s16(
    p: &TransposeConvS16,
    input: &[i16],
    filter: &[i8],
    bias: Option<&[i64]>,
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_transpose_conv_s16(
        p,
        input.len(),
        filter.len(),
        bias.map(<[i64]>::len),
        output.len(),
    )?;
    proven::transpose_conv_s16(p, input, filter, bias, output);
    Ok(())
}

/// [`transpose_conv_s16_bias16`]'s preconditions, as [`check_transpose_conv_s8`]'s.
///
/// # Errors
///
/// The first precondition that does not hold.
pub const fn check_transpose_conv_s16_bias16(
    p: &TransposeConvS16,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
) -> Result<(), KernelError> {
    check!(check_transpose_conv(&p.geometry, input, filter, output));
    check!(length(
        "requant",
        Some(p.geometry.filter[0]),
        p.requant.len()
    ));
    optional_length("bias", Some(p.geometry.filter[0]), bias)
}

/// int16 TRANSPOSE_CONV with an int16 bias: TFLM's `TransposeConvEval`, which widens the bias to
/// int64 first (into a scratch buffer its `Prepare` requests), then [`transpose_conv_s16`].
///
/// # Errors
///
/// [`KernelError`], with nothing written, unless its preconditions
/// ([`check_transpose_conv_s16_bias16`]) hold: as [`transpose_conv_s8`]'s.
#[must_use = "the kernel writes nothing when it returns an error"]
pub fn transpose_conv_s16_bias16(
    p: &TransposeConvS16,
    input: &[i16],
    filter: &[i8],
    bias: Option<&[i16]>,
    output: &mut [i16],
) -> Result<(), KernelError> {
    check_transpose_conv_s16_bias16(
        p,
        input.len(),
        filter.len(),
        bias.map(<[i16]>::len),
        output.len(),
    )?;
    proven::transpose_conv_s16_bias16(p, input, filter, bias, output);
    Ok(())
}

/// The entries generated code calls after asserting the kernel's check when the crate
/// compiled: the public entries without their run-time check (in debug builds it is asserted).
pub mod proven {
    #[allow(clippy::wildcard_imports)]
    use super::*;

    /// [`transpose_conv_f32`](super::transpose_conv_f32), its [`check`](super::check_transpose_conv_f32) proven.
    #[inline]
    pub fn transpose_conv_f32(
        p: &TransposeConvF32,
        input: &[f32],
        filter: &[f32],
        bias: Option<&[f32]>,
        output: &mut [f32],
    ) {
        debug_assert!(
            super::check_transpose_conv_f32(
                p,
                input.len(),
                filter.len(),
                bias.map(<[f32]>::len),
                output.len()
            )
            .is_ok()
        );
        transpose_conv_loops(
            &p.geometry,
            input,
            filter,
            output,
            0.0_f32,
            |acc, &x, &w| acc + x * w,
            |acc, out_c| {
                let acc = match bias.and_then(|b| b.get(out_c)) {
                    Some(&b) => acc + b,
                    None => acc,
                };
                activation_f32(acc, p.act_min, p.act_max)
            },
        );
    }

    /// [`transpose_conv_s8`](super::transpose_conv_s8), its [`check`](super::check_transpose_conv_s8) proven.
    #[inline]
    pub fn transpose_conv_s8(
        p: &TransposeConvS8,
        input: &[i8],
        filter: &[i8],
        bias: Option<&[i32]>,
        output: &mut [i8],
    ) {
        debug_assert!(
            super::check_transpose_conv_s8(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i32]>::len),
                output.len()
            )
            .is_ok()
        );
        transpose_conv_loops(
            &p.geometry,
            input,
            filter,
            output,
            0_i32,
            |acc, &x, &w| {
                acc.wrapping_add(
                    i32::from(x)
                        .wrapping_add(p.input_offset)
                        .wrapping_mul(i32::from(w)),
                )
            },
            |acc, out_c| {
                let acc = match bias.and_then(|b| b.get(out_c)) {
                    Some(&b) => acc.wrapping_add(b),
                    None => acc,
                };
                let (multiplier, shift) = channel(p.requant, out_c);
                let acc = fixed::multiply_by_quantized_multiplier(acc, multiplier, shift);
                clamp_to_i8(acc.wrapping_add(p.output_offset), p.act_min, p.act_max)
            },
        );
    }

    /// [`transpose_conv_s16`](super::transpose_conv_s16), its [`check`](super::check_transpose_conv_s16) proven.
    #[inline]
    pub fn transpose_conv_s16(
        p: &TransposeConvS16,
        input: &[i16],
        filter: &[i8],
        bias: Option<&[i64]>,
        output: &mut [i16],
    ) {
        debug_assert!(
            super::check_transpose_conv_s16(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i64]>::len),
                output.len()
            )
            .is_ok()
        );
        transpose_conv_s16_with(
            p,
            input,
            filter,
            |c| bias.and_then(|b| b.get(c)).copied(),
            output,
        );
    }

    /// [`transpose_conv_s16_bias16`](super::transpose_conv_s16_bias16), its [`check`](super::check_transpose_conv_s16_bias16) proven.
    #[inline]
    pub fn transpose_conv_s16_bias16(
        p: &TransposeConvS16,
        input: &[i16],
        filter: &[i8],
        bias: Option<&[i16]>,
        output: &mut [i16],
    ) {
        debug_assert!(
            super::check_transpose_conv_s16_bias16(
                p,
                input.len(),
                filter.len(),
                bias.map(<[i16]>::len),
                output.len()
            )
            .is_ok()
        );
        transpose_conv_s16_with(
            p,
            input,
            filter,
            |c| bias.and_then(|b| b.get(c)).map(|&b| i64::from(b)),
            output,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scatters like TFLM's float reference, for comparison.
    fn scatter(g: &TransposeConvGeometry, input: &[f32], filter: &[f32], out: &mut [f32]) {
        let [n, h, w, c] = g.input;
        let [o, fh, fw, _] = g.filter;
        let [_, oh, ow, _] = g.output;
        out.fill(0.0);
        for b in 0..n {
            for iy in 0..h {
                for ix in 0..w {
                    for ic in 0..c {
                        for fy in 0..fh {
                            for fx in 0..fw {
                                for oc in 0..o {
                                    let oy = (iy * g.stride_h + fy) as isize - g.pad_h as isize;
                                    let ox = (ix * g.stride_w + fx) as isize - g.pad_w as isize;
                                    if oy < 0 || ox < 0 || oy >= oh as isize || ox >= ow as isize {
                                        continue;
                                    }
                                    let (oy, ox) = (oy as usize, ox as usize);
                                    out[((b * oh + oy) * ow + ox) * o + oc] += input
                                        [((b * h + iy) * w + ix) * c + ic]
                                        * filter[((oc * fh + fy) * fw + fx) * c + ic];
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn gather_equals_scatter_bit_for_bit() {
        let g = TransposeConvGeometry {
            input: [1, 3, 2, 2],
            filter: [2, 3, 2, 2],
            output: [1, 6, 4, 2],
            stride_h: 2,
            stride_w: 2,
            pad_h: 1,
            pad_w: 0,
        };
        let input: [f32; 12] = core::array::from_fn(|i| 0.1 + i as f32 * 1.7e-3 * (i as f32 - 5.0));
        let filter: [f32; 24] = core::array::from_fn(|i| 1.0 / (1.0 + i as f32) - 0.3);
        let mut want = [0f32; 48];
        scatter(&g, &input, &filter, &mut want);
        let p = TransposeConvF32 {
            geometry: g,
            act_min: f32::MIN,
            act_max: f32::MAX,
        };
        let mut got = [0f32; 48];
        transpose_conv_f32(&p, &input, &filter, None, &mut got).unwrap();
        assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits));
    }

    static ONE: [Requant; 1] = [Requant {
        multiplier: 1 << 30,
        shift: 1,
    }];

    #[test]
    fn integer_kernels_offset_bias_and_clamp() {
        let g = TransposeConvGeometry {
            input: [1, 1, 2, 1],
            filter: [1, 1, 2, 1],
            output: [1, 1, 3, 1],
            stride_h: 1,
            stride_w: 1,
            pad_h: 0,
            pad_w: 0,
        };
        let p = TransposeConvS8 {
            geometry: g,
            input_offset: 1,
            output_offset: -1,
            requant: &ONE,
            act_min: -128,
            act_max: 127,
        };
        // Outputs: x0*w0, x0*w1 + x1*w0, x1*w1 with x = input + 1.
        let mut out = [0i8; 3];
        transpose_conv_s8(&p, &[2, 4], &[3, -2], Some(&[10]), &mut out).unwrap();
        assert_eq!(out, [9 + 10 - 1, -6 + 15 + 10 - 1, -10 + 10 - 1]);
        let p16 = TransposeConvS16 {
            geometry: g,
            requant: &ONE,
            act_min: -32768,
            act_max: 32767,
        };
        let mut out16 = [0i16; 3];
        transpose_conv_s16_bias16(&p16, &[30000, 2], &[3, -2], Some(&[5]), &mut out16).unwrap();
        // 90005, -59989 and 1, clamped to int16.
        assert_eq!(out16, [32767, -32768, 1]);
    }

    #[test]
    fn refuses_inconsistent_arguments() {
        use crate::kernels::shared::testing::refusal::{Len::*, refuses, untouched, vec};
        let g = TransposeConvGeometry {
            input: [1, 2, 2, 1],
            filter: [2, 2, 2, 1],
            output: [1, 3, 3, 2],
            stride_h: 1,
            stride_w: 1,
            pad_h: 0,
            pad_w: 0,
        };
        const R: crate::kernels::Requant = crate::kernels::Requant {
            multiplier: 1 << 30,
            shift: 0,
        };
        let pf = TransposeConvF32 {
            geometry: g,
            act_min: f32::MIN,
            act_max: f32::MAX,
        };
        let p8 = TransposeConvS8 {
            geometry: g,
            input_offset: 0,
            output_offset: 0,
            requant: &[R, R],
            act_min: -128,
            act_max: 127,
        };
        let p16 = TransposeConvS16 {
            geometry: g,
            requant: &[R, R],
            act_min: -32768,
            act_max: 32767,
        };
        refuses([4, 8, 2, 18], [Exact; 4], |[i, f, b, o]| {
            let mut out = vec![7.0; o];
            let r = transpose_conv_f32(
                &pf,
                &vec![0.0; i],
                &vec![0.0; f],
                Some(&vec![0.0; b]),
                &mut out,
            );
            (r, untouched(&out, 7.0))
        });
        refuses([4, 8, 2, 18], [Exact; 4], |[i, f, b, o]| {
            let mut out = vec![7_i8; o];
            let r = transpose_conv_s8(&p8, &vec![0; i], &vec![0; f], Some(&vec![0; b]), &mut out);
            (r, untouched(&out, 7))
        });
        refuses([4, 8, 2, 18], [Exact; 4], |[i, f, b, o]| {
            let mut out = vec![7_i16; o];
            let r = transpose_conv_s16(&p16, &vec![0; i], &vec![0; f], Some(&vec![0; b]), &mut out);
            (r, untouched(&out, 7))
        });
        refuses([4, 8, 2, 18], [Exact; 4], |[i, f, b, o]| {
            let mut out = vec![7_i16; o];
            let r = transpose_conv_s16_bias16(
                &p16,
                &vec![0; i],
                &vec![0; f],
                Some(&vec![0; b]),
                &mut out,
            );
            (r, untouched(&out, 7))
        });
        let mut out = [7_i8; 18];
        let one = TransposeConvS8 {
            requant: &[R],
            ..p8
        };
        assert!(transpose_conv_s8(&one, &[0; 4], &[0; 8], None, &mut out).is_err());
        let still = TransposeConvS8 {
            geometry: TransposeConvGeometry { stride_h: 0, ..g },
            ..p8
        };
        assert!(transpose_conv_s8(&still, &[0; 4], &[0; 8], None, &mut out).is_err());
        assert_eq!(out, [7; 18]);
    }
}
