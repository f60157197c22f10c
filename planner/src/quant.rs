//! TensorFlow Lite Micro's "prepare" arithmetic, computed at build time: the multipliers,
//! shifts, radii, activation ranges and paddings its kernels' `Prepare` functions compute from
//! the tensors' quantisation, bit-exact (same precision, same rounding, same order), for the
//! parameters of `stowplan::kernels`.
//!
//! Where TFLM aborts (`TFLITE_CHECK`) or fails `Prepare` (`TF_LITE_ENSURE`), the function
//! returns `None`; where TFLM's C++ has undefined behaviour (a float converted to an
//! out-of-range integer), the result is what the x86-64 host build computes, and the docs say
//! so. Nothing here panics.
//!
//! TFLM has two builds: double rounding (the default) and single rounding
//! (`TFLITE_SINGLE_ROUNDING=1`), which also changes `QuantizeMultiplier` and
//! `PreprocessSoftmaxScaling`. [`SINGLE_ROUNDING`] selects the build here and must agree with
//! `stowplan::kernels::fixed::SINGLE_ROUNDING` in the runtime.

/// The TFLM build mirrored: `false` is the default (double rounding), `true` a build with
/// `TFLITE_SINGLE_ROUNDING=1`. Must equal `stowplan::kernels::fixed::SINGLE_ROUNDING`.
pub const SINGLE_ROUNDING: bool = false;

/// C's `frexp`: `(q, e)` with `x = q * 2^e` and `0.5 <= |q| < 1`; `(x, 0)` for zero, NaN and
/// infinities.
#[must_use]
pub fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    if exponent == 0 {
        // Subnormal: scale into the normal range first (exact).
        let (q, e) = frexp(x * 2_f64.powi(54));
        return (q, e - 54);
    }
    // Replace the exponent with the one of [0.5, 1).
    let q = f64::from_bits((bits & !(0x7ff_u64 << 52)) | (1022_u64 << 52));
    (q, exponent - 1022)
}

/// `static_cast<int32_t>(x)` for a double as the x86-64 host build of TFLM computes it
/// (`cvttsd2si`): truncation, `INT32_MIN` for NaN and out-of-range values.
fn to_i32_like_x86(x: f64) -> i32 {
    if x.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        i32::MIN
    } else {
        x as i32
    }
}

/// TFLM's `QuantizeMultiplier(double)`: `(quantized_multiplier, shift)` with `real ~=
/// quantized_multiplier * 2^(shift - 31)`, `shift > 0` a left shift, in the build
/// [`SINGLE_ROUNDING`] selects.
///
/// `frexp`, then `round(q * 2^31)` (half away from zero); a `q` that rounds up to `2^31`
/// becomes `2^30` with the shift one higher; a shift below -31 flushes to `(0, 0)`; single
/// rounding saturates a shift above 30 to `(2^31 - 1, 30)`. `0.0` (and, where TFLM's result
/// is undefined, NaN and infinities) give `(0, 0)`.
#[must_use]
pub fn quantize_multiplier(real: f64) -> (i32, i32) {
    quantize_multiplier_with(real, SINGLE_ROUNDING)
}

/// [`quantize_multiplier`] for an explicit build: `single_rounding` mirrors
/// `TFLITE_SINGLE_ROUNDING=1`.
#[must_use]
pub fn quantize_multiplier_with(real: f64, single_rounding: bool) -> (i32, i32) {
    if real == 0.0 || !real.is_finite() {
        return (0, 0);
    }
    let (q, mut shift) = frexp(real);
    // |q| < 1, so |q_fixed| <= 2^31: TFLM's TFLITE_CHECK(q_fixed <= 2^31) holds.
    let mut q_fixed = (q * 2_147_483_648.0).round() as i64;
    if q_fixed == 1 << 31 {
        q_fixed /= 2;
        shift += 1;
    }
    if shift < -31 {
        shift = 0;
        q_fixed = 0;
    }
    if single_rounding && shift > 30 {
        shift = 30;
        q_fixed = (1 << 31) - 1;
    }
    (q_fixed as i32, shift)
}

/// TFLM's `QuantizeMultiplierSmallerThanOneExp`: [`quantize_multiplier`] of a `real` in
/// `(0, 1)`; `None` where TFLM's checks abort (`real` outside `(0, 1)`, or a positive shift).
#[must_use]
pub fn quantize_multiplier_smaller_than_one_exp(real: f64) -> Option<(i32, i32)> {
    quantize_multiplier_smaller_than_one_exp_with(real, SINGLE_ROUNDING)
}

/// [`quantize_multiplier_smaller_than_one_exp`] for an explicit build.
#[must_use]
pub fn quantize_multiplier_smaller_than_one_exp_with(
    real: f64,
    single_rounding: bool,
) -> Option<(i32, i32)> {
    if real.is_nan() || real <= 0.0 || real >= 1.0 {
        return None;
    }
    let (multiplier, shift) = quantize_multiplier_with(real, single_rounding);
    (shift <= 0).then_some((multiplier, shift))
}

/// TFLM's `QuantizeMultiplierGreaterThanOne`: [`quantize_multiplier`] of a `real > 1`; `None`
/// where TFLM's checks abort.
#[must_use]
pub fn quantize_multiplier_greater_than_one(real: f64) -> Option<(i32, i32)> {
    quantize_multiplier_greater_than_one_with(real, SINGLE_ROUNDING)
}

/// [`quantize_multiplier_greater_than_one`] for an explicit build.
#[must_use]
pub fn quantize_multiplier_greater_than_one_with(
    real: f64,
    single_rounding: bool,
) -> Option<(i32, i32)> {
    if real.is_nan() || real <= 1.0 {
        return None;
    }
    let (multiplier, shift) = quantize_multiplier_with(real, single_rounding);
    (shift >= 0).then_some((multiplier, shift))
}

/// TFLM's `PreprocessSoftmaxScaling`: `(input_multiplier, input_left_shift)` for an int8
/// SOFTMAX, from `min(beta * input_scale * 2^(31 - input_integer_bits), max)` with `max = 2^31
/// - 1` (double rounding) or `2^30 - 1` (single rounding), through
/// `QuantizeMultiplierGreaterThanOne`.
///
/// TFLM passes `beta` and the input scale converted from `float` to `double`, and
/// `input_integer_bits = 5`. Where TFLM's checks would abort (a product not above 1) this
/// returns [`quantize_multiplier`]'s result instead.
#[must_use]
pub fn preprocess_softmax_scaling(
    beta: f64,
    input_scale: f64,
    input_integer_bits: i32,
) -> (i32, i32) {
    preprocess_softmax_scaling_with(beta, input_scale, input_integer_bits, SINGLE_ROUNDING)
}

/// [`preprocess_softmax_scaling`] for an explicit build.
#[must_use]
pub fn preprocess_softmax_scaling_with(
    beta: f64,
    input_scale: f64,
    input_integer_bits: i32,
    single_rounding: bool,
) -> (i32, i32) {
    let max_real_multiplier = if single_rounding {
        f64::from((1_i32 << 30) - 1)
    } else {
        f64::from(i32::MAX)
    };
    // `1 << (31 - input_integer_bits)` is an int in TFLM: exact as a power of two.
    let input_beta_real_multiplier =
        (beta * input_scale * 2_f64.powi(31 - input_integer_bits)).min(max_real_multiplier);
    quantize_multiplier_greater_than_one_with(input_beta_real_multiplier, single_rounding)
        .unwrap_or_else(|| quantize_multiplier_with(input_beta_real_multiplier, single_rounding))
}

/// TFLM's `CalculateInputRadius`: `floor((2^input_integer_bits - 1) * 2^(total_signed_bits -
/// input_integer_bits) / 2^input_left_shift)` in double. SOFTMAX uses `(5, left_shift, 31)`
/// and `diff_min = -radius`; LOGISTIC `(4, left_shift, 31)`.
#[must_use]
pub fn calculate_input_radius(
    input_integer_bits: i32,
    input_left_shift: i32,
    total_signed_bits: i32,
) -> i32 {
    let max_input_rescaled = (2_f64.powi(input_integer_bits) - 1.0)
        * 2_f64.powi(total_signed_bits - input_integer_bits)
        / 2_f64.powi(input_left_shift);
    // Saturating: TFLM's cast is undefined beyond the int range.
    max_input_rescaled.floor() as i32
}

/// A fused activation function (TFLite's `ActivationFunctionType` that kernels clamp with).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FusedActivation {
    /// No clamp.
    None,
    /// `max(0, x)`.
    Relu,
    /// `min(max(-1, x), 1)`.
    ReluN1To1,
    /// `min(max(0, x), 6)`.
    Relu6,
}

/// TFLM's `Quantize` in `kernel_util.cc`: `zero_point + (int32)round(f / scale)` in `float`;
/// `None` where TFLM's overflow check fails.
fn quantize_for_activation(scale: f32, zero_point: i32, f: f32) -> Option<i32> {
    let tmp = (f / scale).round();
    // TFLM compares with the limits converted to float: 2^31 passes, then converts to
    // INT32_MIN on x86-64.
    if !(-2_147_483_648.0_f32..=2_147_483_648.0_f32).contains(&tmp) {
        return None;
    }
    Some(zero_point.wrapping_add(to_i32_like_x86(f64::from(tmp))))
}

/// TFLM's `CalculateActivationRangeQuantized` for an output of range `qmin..=qmax` (int8:
/// `-128..=127`) with scale `scale` and zero point `zero_point`: `(act_min, act_max)`.
///
/// RELU: `(max(qmin, Q(0)), qmax)`; RELU6: `(max(qmin, Q(0)), min(qmax, Q(6)))`;
/// RELU_N1_TO_1: `(max(qmin, Q(-1)), min(qmax, Q(1)))`; none: `(qmin, qmax)`, with `Q(f) =
/// zero_point + round(f / scale)` in float. `None` where TFLM's `Prepare` fails.
#[must_use]
pub fn activation_range_quantized(
    activation: FusedActivation,
    scale: f32,
    zero_point: i32,
    qmin: i32,
    qmax: i32,
) -> Option<(i32, i32)> {
    let q = |f: f32| quantize_for_activation(scale, zero_point, f);
    Some(match activation {
        FusedActivation::None => (qmin, qmax),
        FusedActivation::Relu => (qmin.max(q(0.0)?), qmax),
        FusedActivation::Relu6 => (qmin.max(q(0.0)?), qmax.min(q(6.0)?)),
        FusedActivation::ReluN1To1 => (qmin.max(q(-1.0)?), qmax.min(q(1.0)?)),
    })
}

/// [`activation_range_quantized`] for an int8 output.
#[must_use]
pub fn activation_range_s8(
    activation: FusedActivation,
    scale: f32,
    zero_point: i32,
) -> Option<(i32, i32)> {
    activation_range_quantized(
        activation,
        scale,
        zero_point,
        i32::from(i8::MIN),
        i32::from(i8::MAX),
    )
}

/// TFLM's `CalculateActivationRange` (`GetActivationMinMax`) for floats.
#[must_use]
pub fn activation_range_f32(activation: FusedActivation) -> (f32, f32) {
    match activation {
        FusedActivation::None => (f32::MIN, f32::MAX),
        FusedActivation::Relu => (0.0, f32::MAX),
        FusedActivation::ReluN1To1 => (-1.0, 1.0),
        FusedActivation::Relu6 => (0.0, 6.0),
    }
}

/// TFLite's padding scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaddingKind {
    /// Output size `ceil(input / stride)`, zeros around.
    Same,
    /// Only windows inside the input.
    Valid,
}

/// TFLM's `TfLitePaddingValues` with the output size `ComputePaddingHeightWidth` computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Padding2D {
    /// Rows of padding above (the kernels' `pad_h`).
    pub height: i32,
    /// Columns of padding left (the kernels' `pad_w`).
    pub width: i32,
    /// Extra row below when the total is odd.
    pub height_offset: i32,
    /// Extra column right when the total is odd.
    pub width_offset: i32,
    /// Output height.
    pub out_height: i32,
    /// Output width.
    pub out_width: i32,
}

/// TFLM's `ComputeOutSizeChecked` (`padding.h`): SAME `(size + stride - 1) / stride`, VALID
/// `(size + stride - effective_filter) / stride` in 64 bits (C division, truncating); `None`
/// where TFLM returns an error: a stride, dilation or filter size that is not positive, a
/// negative image size, or an output size below 0 or above `i32::MAX`.
#[must_use]
pub fn compute_out_size(
    padding: PaddingKind,
    image_size: i32,
    filter_size: i32,
    stride: i32,
    dilation: i32,
) -> Option<i32> {
    if image_size < 0 || filter_size <= 0 || stride <= 0 || dilation <= 0 {
        return None;
    }
    let (image, filter, stride, dilation) = (
        i64::from(image_size),
        i64::from(filter_size),
        i64::from(stride),
        i64::from(dilation),
    );
    let effective_filter_size = (filter - 1) * dilation + 1;
    let out = match padding {
        PaddingKind::Same => (image + stride - 1) / stride,
        PaddingKind::Valid => (image + stride - effective_filter_size) / stride,
    };
    if out < 0 {
        return None;
    }
    i32::try_from(out).ok()
}

/// TFLM's `ComputePaddingWithOffsetChecked`: `(total / 2, total % 2)` with `total = max(0,
/// (out - 1) * stride + effective_filter - in)` in 64 bits; `None` where TFLM returns an error
/// (arguments out of range, or a padding above `i32::MAX`).
#[must_use]
pub fn compute_padding_with_offset(
    stride: i32,
    dilation: i32,
    in_size: i32,
    filter_size: i32,
    out_size: i32,
) -> Option<(i32, i32)> {
    if in_size < 0 || filter_size <= 0 || out_size < 0 || stride <= 0 || dilation <= 0 {
        return None;
    }
    let effective_filter_size = (i64::from(filter_size) - 1) * i64::from(dilation) + 1;
    let total = ((i64::from(out_size) - 1) * i64::from(stride) + effective_filter_size
        - i64::from(in_size))
    .max(0);
    Some((i32::try_from(total / 2).ok()?, (total % 2) as i32))
}

/// TFLM's `ComputePaddingHeightWidth` (CONV_2D, DEPTHWISE_CONV_2D with their dilations;
/// pools with dilation 1): the checked steps of `ComputePaddingHeightWidthChecked` in its order
/// (output width, output height, padding height, padding width), stopping at the first that
/// fails and leaving what it did not reach 0, as TFLM does.
#[allow(clippy::too_many_arguments)]
#[must_use]
pub fn compute_padding_height_width(
    stride_height: i32,
    stride_width: i32,
    dilation_height: i32,
    dilation_width: i32,
    in_height: i32,
    in_width: i32,
    filter_height: i32,
    filter_width: i32,
    padding: PaddingKind,
) -> Padding2D {
    let mut p = Padding2D {
        height: 0,
        width: 0,
        height_offset: 0,
        width_offset: 0,
        out_height: 0,
        out_width: 0,
    };
    let Some(out_width) = compute_out_size(
        padding,
        in_width,
        filter_width,
        stride_width,
        dilation_width,
    ) else {
        return p;
    };
    p.out_width = out_width;
    let Some(out_height) = compute_out_size(
        padding,
        in_height,
        filter_height,
        stride_height,
        dilation_height,
    ) else {
        return p;
    };
    p.out_height = out_height;
    let Some((height, height_offset)) = compute_padding_with_offset(
        stride_height,
        dilation_height,
        in_height,
        filter_height,
        out_height,
    ) else {
        return p;
    };
    (p.height, p.height_offset) = (height, height_offset);
    if let Some((width, width_offset)) = compute_padding_with_offset(
        stride_width,
        dilation_width,
        in_width,
        filter_width,
        out_width,
    ) {
        (p.width, p.width_offset) = (width, width_offset);
    }
    p
}

/// TFLM's `PopulateConvolutionQuantizationParams` per-channel multipliers for CONV_2D and
/// DEPTHWISE_CONV_2D: for each of `channels` output channels, `QuantizeMultiplier((double)
/// input_scale * (double)filter_scale[c] / (double)output_scale)`, in double; one filter scale
/// (per-tensor) is broadcast to every channel. `None` if there are neither 1 nor `channels`
/// filter scales.
#[must_use]
pub fn conv_multipliers(
    input_scale: f32,
    filter_scales: &[f32],
    output_scale: f32,
    channels: usize,
) -> Option<Vec<(i32, i32)>> {
    let per_channel = filter_scales.len() > 1;
    if per_channel && filter_scales.len() != channels {
        return None;
    }
    let first = *filter_scales.first()?;
    let mut out = Vec::with_capacity(channels);
    for c in 0..channels {
        let scale = if per_channel {
            *filter_scales.get(c)?
        } else {
            first
        };
        let effective_output_scale =
            f64::from(input_scale) * f64::from(scale) / f64::from(output_scale);
        out.push(quantize_multiplier(effective_output_scale));
    }
    Some(out)
}

/// TFLM's FULLY_CONNECTED multipliers (`CalculateOpDataFullyConnected`): more than one filter
/// scale is per-channel, like [`conv_multipliers`]; one is per-tensor,
/// `GetQuantizedConvolutionMultipler`: `QuantizeMultiplier((double)input_scale *
/// (double)filter_scale / (double)output_scale)`. One entry per filter scale. BATCH_MATMUL's
/// multiplier is the per-tensor one (the left-hand side's scale as the input's, the
/// right-hand side's as the filter's).
///
/// The source at commit 90b983c2 writes the per-tensor product as
/// `static_cast<double>(input->params.scale * filter->params.scale)`, in float; the pinned
/// wheel's `GetQuantizedConvolutionMultipler` (`kernel_util.cc`, disassembled: `cvtss2sd` of
/// both scales, then `mulsd`) multiplies in double, and its outputs are the judge: an int16
/// FULLY_CONNECTED whose multiplier's two products differ by 67 units in the last place
/// reduces to different 16-bit multipliers and differs in output (found by the conformance
/// suite).
#[must_use]
pub fn fully_connected_multipliers(
    input_scale: f32,
    filter_scales: &[f32],
    output_scale: f32,
) -> Vec<(i32, i32)> {
    filter_scales
        .iter()
        .map(|&scale| {
            quantize_multiplier(f64::from(input_scale) * f64::from(scale) / f64::from(output_scale))
        })
        .collect()
}

/// An int8 ADD's parameters (TFLM's `OpDataAdd`), for `stowplan::kernels::AddS8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddParams {
    /// 20 for int8.
    pub left_shift: i32,
    /// Minus the first input's zero point.
    pub input1_offset: i32,
    /// First input's `(multiplier, shift)`.
    pub input1: (i32, i32),
    /// Minus the second input's zero point.
    pub input2_offset: i32,
    /// Second input's `(multiplier, shift)`.
    pub input2: (i32, i32),
    /// The output zero point.
    pub output_offset: i32,
    /// Output `(multiplier, shift)`.
    pub output: (i32, i32),
    /// Lower clamp.
    pub act_min: i32,
    /// Upper clamp.
    pub act_max: i32,
}

/// TFLM's `CalculateOpDataAdd` for int8: `twice_max_input_scale = 2 * (double)max(s1, s2)`,
/// input multipliers `(double)s_i / twice_max_input_scale`, output multiplier
/// `twice_max_input_scale / ((1 << 20) * (double)output_scale)`, each through
/// `QuantizeMultiplierSmallerThanOneExp`; `None` where TFLM's checks abort.
#[must_use]
pub fn add_params(
    input1: (f32, i32),
    input2: (f32, i32),
    output: (f32, i32),
    activation: FusedActivation,
) -> Option<AddParams> {
    add_params_with(
        20,
        (i32::from(i8::MIN), i32::from(i8::MAX)),
        input1,
        input2,
        output,
        activation,
    )
}

/// TFLM's `CalculateOpDataAdd` for an int8 (`left_shift` 20, range `-128..=127`) or int16
/// (`left_shift` 15, range `-32768..=32767`) output: [`add_params`] with the left shift and the
/// output range of the type.
#[must_use]
pub fn add_params_with(
    left_shift: i32,
    (qmin, qmax): (i32, i32),
    input1: (f32, i32),
    input2: (f32, i32),
    output: (f32, i32),
    activation: FusedActivation,
) -> Option<AddParams> {
    let twice_max_input_scale = 2.0 * f64::from(input1.0.max(input2.0));
    let real_input1_multiplier = f64::from(input1.0) / twice_max_input_scale;
    let real_input2_multiplier = f64::from(input2.0) / twice_max_input_scale;
    let real_output_multiplier =
        twice_max_input_scale / (f64::from(1_i32 << left_shift) * f64::from(output.0));
    let (act_min, act_max) =
        activation_range_quantized(activation, output.0, output.1, qmin, qmax)?;
    Some(AddParams {
        left_shift,
        input1_offset: input1.1.wrapping_neg(),
        input1: quantize_multiplier_smaller_than_one_exp(real_input1_multiplier)?,
        input2_offset: input2.1.wrapping_neg(),
        input2: quantize_multiplier_smaller_than_one_exp(real_input2_multiplier)?,
        output_offset: output.1,
        output: quantize_multiplier_smaller_than_one_exp(real_output_multiplier)?,
        act_min,
        act_max,
    })
}

/// TFLM's `CalculateOpDataMul` multiplier for int8: `QuantizeMultiplier((double)s1 *
/// (double)s2 / (double)output_scale)`.
#[must_use]
pub fn mul_multiplier(input1_scale: f32, input2_scale: f32, output_scale: f32) -> (i32, i32) {
    quantize_multiplier(f64::from(input1_scale) * f64::from(input2_scale) / f64::from(output_scale))
}

/// The multiplier of an op that rescales from the input's to the output's scale:
/// `QuantizeMultiplier((double)input_scale / (double)output_scale)`. TFLM's MEAN
/// (`reduce_common.cc`), int8 QUANTIZE (requantisation) and RELU use it.
#[must_use]
pub fn rescale_multiplier(input_scale: f32, output_scale: f32) -> (i32, i32) {
    quantize_multiplier(f64::from(input_scale) / f64::from(output_scale))
}

/// An int8 LOGISTIC's parameters (TFLM's `OpDataLogistic`), for
/// `stowplan::kernels::LogisticS8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogisticParams {
    /// The input zero point.
    pub input_zero_point: i32,
    /// `CalculateInputRadius(4, input_left_shift, 31)`.
    pub input_range_radius: i32,
    /// `round(q * 2^31)` of `frexp(input_scale * 2^27)`.
    pub input_multiplier: i32,
    /// The exponent of that `frexp`.
    pub input_left_shift: i32,
}

/// TFLM's `CalculateArithmeticOpDataLogistic` for int8 (`kInputIntegerBits = 4`): not
/// `QuantizeMultiplier` but a bare `frexp` of `(double)input_scale * (1 << 27)` and
/// `(int32)round(q * 2^31)` (a `q` rounding to `2^31` converts to `INT32_MIN` on x86-64, as
/// the host build does).
#[must_use]
pub fn logistic_params(input_scale: f32, input_zero_point: i32) -> LogisticParams {
    let input_real_multiplier = f64::from(input_scale) * f64::from(1_i32 << (31 - 4));
    let (q, input_left_shift) = frexp(input_real_multiplier);
    let input_multiplier = to_i32_like_x86((q * 2_147_483_648.0).round());
    LogisticParams {
        input_zero_point,
        input_range_radius: calculate_input_radius(4, input_left_shift, 31),
        input_multiplier,
        input_left_shift,
    }
}

/// An int8 RELU's parameters (TFLM's `CalculateReluOpData<int8_t>`), for
/// `stowplan::kernels::ReluS8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReluParams {
    /// Minus the input zero point.
    pub input_offset: i32,
    /// The output zero point.
    pub output_offset: i32,
    /// `QuantizeMultiplier((double)input_scale / (double)output_scale)`.
    pub requant: (i32, i32),
    /// `max(-128, output_zero_point + roundf(0 / output_scale))`.
    pub act_min: i32,
    /// 127.
    pub act_max: i32,
}

/// TFLM's `CalculateReluOpData<int8_t>` (RELU; TFLM's RELU6 is [`relu6_params`]): the
/// multiplier is [`rescale_multiplier`]'s, the quotient in double, as the pinned
/// `tflite-micro` wheel computes it (its `ReluPrepare` converts both scales to double before
/// dividing; the conformance suite has a model whose outputs tell the two apart).
#[must_use]
pub fn relu_params(input: (f32, i32), output: (f32, i32)) -> ReluParams {
    let zero = to_i32_like_x86(f64::from((0.0_f32 / output.0).round()));
    ReluParams {
        input_offset: input.1.wrapping_neg(),
        output_offset: output.1,
        requant: rescale_multiplier(input.0, output.0),
        act_min: i32::from(i8::MIN).max(output.1.wrapping_add(zero)),
        act_max: i32::from(i8::MAX),
    }
}

/// TFLM's `Relu6Prepare` for int8: `(zero, six)` = `(input_zero_point,
/// FloatToQuantizedType<int8_t>(6.0f, input_scale, input_zero_point))`, i.e. `round(6 /
/// scale) + zero_point` saturated to int8. TFLM's int8 RELU6 clamps in the input's
/// quantisation and does not requantise.
#[must_use]
pub fn relu6_params(input_scale: f32, input_zero_point: i32) -> (i32, i32) {
    let six = f64::from((6.0_f32 / input_scale).round()) + f64::from(input_zero_point);
    let six = to_i32_like_x86(six).clamp(i32::from(i8::MIN), i32::from(i8::MAX));
    (input_zero_point, six)
}

/// `static_cast<int32_t>(x)` for a float as the x86-64 host build of TFLM computes it
/// (`cvttss2si`): truncation, `INT32_MIN` for NaN and out-of-range values.
#[must_use]
pub fn f32_to_i32_like_x86(x: f32) -> i32 {
    to_i32_like_x86(f64::from(x))
}

/// TFLM's `FloatToQuantizedType<T>(value, scale, zero_point)` (`micro_utils.h`) for a type of
/// range `[min, max]`: `round(value / scale)` in float (`roundf`), plus the zero point in
/// double, converted as x86-64 does, clamped.
#[must_use]
pub fn float_to_quantized(value: f32, scale: f32, zero_point: i32, min: i32, max: i32) -> i32 {
    let q = f64::from(stowplan_math::roundf(value / scale)) + f64::from(zero_point);
    to_i32_like_x86(q).clamp(min, max)
}

/// An int16 RELU's parameters (TFLM's `CalculateReluOpData<int16_t>`, after its `Prepare`
/// checked both zero points are 0): as [`relu_params`] with the int16 range.
#[must_use]
pub fn relu_params_s16(input: (f32, i32), output: (f32, i32)) -> ReluParams {
    let zero = f32_to_i32_like_x86(stowplan_math::roundf(0.0_f32 / output.0));
    ReluParams {
        act_min: i32::from(i16::MIN).max(output.1.wrapping_add(zero)),
        act_max: i32::from(i16::MAX),
        ..relu_params(input, output)
    }
}

/// TFLM's `Relu6Prepare` for int16: `(zero, six)` = `(input_zero_point,
/// FloatToQuantizedType<int16_t>(6.0f, input_scale, input_zero_point))`.
#[must_use]
pub fn relu6_params_s16(input_scale: f32, input_zero_point: i32) -> (i32, i32) {
    (
        input_zero_point,
        float_to_quantized(
            6.0,
            input_scale,
            input_zero_point,
            i32::from(i16::MIN),
            i32::from(i16::MAX),
        ),
    )
}

/// TFLM's `CheckedLog2(float)` (`quantization_util.cc`): `(is a power of two, log2 rounded)`
/// from `logf(x) * (1.0f / logf(2.0f))` in float, rounded with `roundf`, the fraction below
/// `1e-3f`; the conversion to int as x86-64 does it.
#[must_use]
pub fn checked_log2(x: f32) -> (bool, i32) {
    // 1.0f / std::log(2.0f), folded by the compiler: 0x3fb8aa3b.
    let inv_ln2 = f32::from_bits(0x3fb8_aa3b);
    let x_log2 = stowplan_math::logf(x) * inv_ln2;
    let x_log2_rounded = stowplan_math::roundf(x_log2);
    let x_log2_fracpart = x_log2 - x_log2_rounded;
    let abs = f32::from_bits(x_log2_fracpart.to_bits() & 0x7fff_ffff);
    (abs < 1e-3_f32, f32_to_i32_like_x86(x_log2_rounded))
}

/// The input scaling of TFLM's int16 LOGISTIC and TANH (`CalculateArithmeticOpDataLogistic`,
/// tanh's `CalculateArithmeticOpData`, `kInputIntegerBits = 3`): `(input_multiplier,
/// input_left_shift)`. For a power-of-two input scale whose shift `12 + log2(scale)` is one
/// `pot_shift_ok` accepts (LOGISTIC: 0; TANH: 0 or 1), `(0, shift)`; otherwise `scale * 4096
/// * 3` in double, doubled while at most `32767 / 2` (at most 31 times), truncated.
#[must_use]
pub fn s16_sigmoid_input_scaling(input_scale: f32, pot_shift_ok: fn(i32) -> bool) -> (i32, i32) {
    let (pot, log2) = checked_log2(input_scale);
    let shift = (15 - 3_i32).wrapping_add(log2);
    if pot && pot_shift_ok(shift) {
        return (0, shift);
    }
    let mut multiplier = f64::from(input_scale) * 4096.0 * 3.0;
    let mut shift = 0;
    while multiplier <= 32767.0 / 2.0 && shift <= 30 {
        shift += 1;
        multiplier *= 2.0;
    }
    (to_i32_like_x86(multiplier), shift)
}

/// TFLM's `DownScaleInt32ToInt16Multiplier`: the Q0.31 multiplier rounded to Q0.15,
/// saturating at `i16::MAX`.
#[must_use]
pub fn down_scale_int32_to_int16_multiplier(multiplier: i32) -> i16 {
    const ROUNDING_OFFSET: i32 = 1 << 15;
    if multiplier >= i32::MAX - ROUNDING_OFFSET {
        return i16::MAX;
    }
    (multiplier.wrapping_add(ROUNDING_OFFSET) >> 16) as i16
}

/// TFLM's `PreprocessLogSoftmaxScalingExp(beta, input_scale, input_integer_bits)`:
/// `(input_multiplier, input_left_shift, reverse_scaling_divisor,
/// reverse_scaling_left_shift)`: [`preprocess_softmax_scaling`], then
/// `QuantizeMultiplierSmallerThanOneExp((1 << (31 - left_shift)) / (double)multiplier)` (the
/// power an int, wrapping as x86-64 computes it). `None` where TFLM's checks abort: the scaled
/// input multiplier not above 1, or the reverse scaling not in `(0, 1)`.
#[must_use]
pub fn preprocess_log_softmax_scaling_exp(
    beta: f64,
    input_scale: f64,
    input_integer_bits: i32,
) -> Option<(i32, i32, i32, i32)> {
    let real = beta * input_scale * 2_f64.powi(31 - input_integer_bits);
    if real.is_nan() || real <= 1.0 {
        return None;
    }
    let (multiplier, left_shift) =
        preprocess_softmax_scaling(beta, input_scale, input_integer_bits);
    let power = 1_i32.wrapping_shl(31_i32.wrapping_sub(left_shift) as u32);
    let real_reverse_scaling_divisor = f64::from(power) / f64::from(multiplier);
    let (divisor, shift) = quantize_multiplier_smaller_than_one_exp(real_reverse_scaling_divisor)?;
    Some((multiplier, left_shift, divisor, shift))
}

/// TFLM's `LUTPopulate<int16_t>` (`detail::LUTPopulateInt16<float>` in `common.h`): the 513
/// entries of an int16 lookup table of `transform` from the input's quantisation to the
/// output's, in float as TFLM computes them: 512 steps over the input range, each entry the
/// rounded sample minus half the rounded error of the linear interpolation at the step's
/// midpoint, clamped to int16; the last the rounded value at the input's maximum. `round` is
/// `std::round` (`stowplan_math::roundf`); `transform` must compute what TFLM's does (its
/// `std::exp` is `stowplan_math::expf`).
#[must_use]
pub fn lut_populate_int16(
    input_scale: f32,
    input_zero_point: i32,
    output_scale: f32,
    output_zero_point: i32,
    transform: impl Fn(f32) -> f32,
) -> Vec<i16> {
    use stowplan_math::roundf;
    let (min, max) = (i32::from(i16::MIN), i32::from(i16::MAX));
    // `input_scale * (min - zero_point)`: the int difference converted to float.
    let input_min = input_scale * min.wrapping_sub(input_zero_point) as f32;
    let input_max = input_scale * max.wrapping_sub(input_zero_point) as f32;
    let output_min = output_scale * min.wrapping_sub(output_zero_point) as f32;
    let output_max = output_scale * max.wrapping_sub(output_zero_point) as f32;
    let nb_steps = 512_u16;
    let step = (input_max - input_min) / f32::from(nb_steps);
    let half_step = step / 2.0;
    let output_scaling_inv = 65536.0_f32 / (output_max - output_min);
    let (table_min, table_max) = (min as f32, max as f32);
    // std::max<float>(a, b) is `a < b ? b : a`, std::min<float>(a, b) `b < a ? b : a`.
    let clamp = |v: f32| {
        let v = if v < table_min { table_min } else { v };
        let v = if table_max < v { table_max } else { v };
        v as i16
    };
    let mut lut = Vec::with_capacity(usize::from(nb_steps) + 1);
    for i in 0..nb_steps {
        let at = input_min + f32::from(i) * step;
        let val = transform(at);
        let val_midpoint = transform(at + half_step);
        let val_next = transform(input_min + f32::from(i + 1) * step);
        let sample_val = roundf(val * output_scaling_inv);
        let midpoint_interp_val =
            roundf((val_next * output_scaling_inv + roundf(val * output_scaling_inv)) / 2.0);
        let midpoint_val = roundf(val_midpoint * output_scaling_inv);
        let midpoint_err = midpoint_interp_val - midpoint_val;
        let bias = roundf(midpoint_err / 2.0);
        lut.push(clamp(sample_val - bias));
    }
    lut.push(clamp(roundf(transform(input_max) * output_scaling_inv)));
    lut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frexp_matches_c() {
        assert_eq!(frexp(0.5), (0.5, 0));
        assert_eq!(frexp(1.0), (0.5, 1));
        assert_eq!(frexp(6.0), (0.75, 3));
        assert_eq!(frexp(-0.375), (-0.75, -1));
        assert_eq!(frexp(0.0), (0.0, 0));
        // The smallest subnormal, 2^-1074 = 0.5 * 2^-1073.
        assert_eq!(frexp(f64::from_bits(1)), (0.5, -1073));
    }

    #[test]
    fn quantize_multiplier_cases() {
        assert_eq!(quantize_multiplier_with(0.5, false), (1 << 30, 0));
        assert_eq!(quantize_multiplier_with(1.0, false), (1 << 30, 1));
        assert_eq!(quantize_multiplier_with(0.25, false), (1 << 30, -1));
        // 0.75 * 2^31.
        assert_eq!(quantize_multiplier_with(0.75, false), (1_610_612_736, 0));
        assert_eq!(quantize_multiplier_with(-0.5, false), (-(1 << 30), 0));
        assert_eq!(quantize_multiplier_with(0.0, false), (0, 0));
        // q * 2^31 rounds up to 2^31: halved, shift + 1.
        let just_below_one = 1.0 - 2_f64.powi(-40);
        assert_eq!(
            quantize_multiplier_with(just_below_one, false),
            (1 << 30, 1)
        );
        // 2^-32 = 0.5 * 2^-31 still fits; 2^-33 flushes to zero.
        assert_eq!(
            quantize_multiplier_with(2_f64.powi(-32), false),
            (1 << 30, -31)
        );
        assert_eq!(quantize_multiplier_with(2_f64.powi(-33), false), (0, 0));
        // Large multipliers: double rounding keeps the shift, single rounding saturates.
        assert_eq!(
            quantize_multiplier_with(2_f64.powi(40), false),
            (1 << 30, 41)
        );
        assert_eq!(
            quantize_multiplier_with(2_f64.powi(40), true),
            (i32::MAX, 30)
        );
        // Round half away from zero: 0.5 + 2^-32 -> q * 2^31 = 2^30 + 0.5 -> 2^30 + 1.
        assert_eq!(
            quantize_multiplier_with(0.5 + 2_f64.powi(-32), false),
            ((1 << 30) + 1, 0)
        );
        assert_eq!(quantize_multiplier(f64::NAN), (0, 0));
    }

    #[test]
    fn smaller_and_greater_than_one() {
        assert_eq!(
            quantize_multiplier_smaller_than_one_exp(0.5),
            Some((1 << 30, 0))
        );
        assert_eq!(quantize_multiplier_smaller_than_one_exp(1.0), None);
        assert_eq!(quantize_multiplier_smaller_than_one_exp(0.0), None);
        assert_eq!(
            quantize_multiplier_greater_than_one(3.0),
            Some((3 << 29, 2))
        );
        assert_eq!(quantize_multiplier_greater_than_one(1.0), None);
    }

    #[test]
    fn softmax_scaling_and_radius() {
        // beta 1, input scale 0.1f: 0.1f * 2^26 = 6710886.5 = 0.800000011920929 * 2^23,
        // and 6710886.5 * 2^8 = 1717986944 exactly.
        let scale = f64::from(0.1_f32);
        assert_eq!(
            preprocess_softmax_scaling_with(1.0, scale, 5, false),
            (1_717_986_944, 23)
        );
        assert_eq!(calculate_input_radius(5, 23, 31), 248);
        // Capped at 2^31 - 1 (double) or 2^30 - 1 (single rounding).
        assert_eq!(
            preprocess_softmax_scaling_with(1.0, 1e6, 5, false),
            quantize_multiplier_with(f64::from(i32::MAX), false)
        );
        assert_eq!(
            preprocess_softmax_scaling_with(1.0, 1e6, 5, true),
            (i32::MAX - 1, 30)
        );
        // Radius: floor(15 * 2^27 / 2^24) = 120; floor(31 * 2^26 / 2^30) = 1.
        assert_eq!(calculate_input_radius(4, 24, 31), 120);
        assert_eq!(calculate_input_radius(5, 30, 31), 1);
    }

    #[test]
    fn activation_ranges() {
        let s = 0.05_f32;
        assert_eq!(
            activation_range_s8(FusedActivation::None, s, 3),
            Some((-128, 127))
        );
        assert_eq!(
            activation_range_s8(FusedActivation::Relu, s, -5),
            Some((-5, 127))
        );
        // 6 / 0.05 = 120 (in float: 119.99999 rounds to 120), + (-5).
        assert_eq!(
            activation_range_s8(FusedActivation::Relu6, s, -5),
            Some((-5, 115))
        );
        // 1 / 0.05 = 20.
        assert_eq!(
            activation_range_s8(FusedActivation::ReluN1To1, s, 0),
            Some((-20, 20))
        );
        // Clamped to the int8 range.
        assert_eq!(
            activation_range_s8(FusedActivation::Relu6, 0.01, -128),
            Some((-128, 127))
        );
        assert_eq!(activation_range_s8(FusedActivation::Relu6, 1e-40, 0), None);
        assert_eq!(activation_range_f32(FusedActivation::Relu6), (0.0, 6.0));
        assert_eq!(
            activation_range_f32(FusedActivation::None),
            (f32::MIN, f32::MAX)
        );
    }

    #[test]
    fn padding() {
        // SAME 3x3 stride 1 on 5x5: out 5, total 2 -> pad 1, offset 0.
        let p = compute_padding_height_width(1, 1, 1, 1, 5, 5, 3, 3, PaddingKind::Same);
        assert_eq!((p.out_height, p.height, p.height_offset), (5, 1, 0));
        // SAME 2x2 stride 2 on 3x3: out 2, total 1 -> pad 0, offset 1.
        let p = compute_padding_height_width(2, 2, 1, 1, 3, 3, 2, 2, PaddingKind::Same);
        assert_eq!((p.out_width, p.width, p.width_offset), (2, 0, 1));
        // SAME 3x3 dilation 2 on 7: effective 5, out 7, total 4 -> pad 2.
        let p = compute_padding_height_width(1, 1, 2, 2, 7, 7, 3, 3, PaddingKind::Same);
        assert_eq!((p.out_height, p.height, p.height_offset), (7, 2, 0));
        // VALID: out (7 + 1 - 5) / 1 = 3, no padding.
        let p = compute_padding_height_width(1, 1, 2, 2, 7, 7, 3, 3, PaddingKind::Valid);
        assert_eq!((p.out_height, p.height, p.height_offset), (3, 0, 0));
        // SAME 3x3 stride 2 on 224 (MobileNet): out 112, total 1 -> pad 0, offset 1.
        let p = compute_padding_height_width(2, 2, 1, 1, 224, 224, 3, 3, PaddingKind::Same);
        assert_eq!((p.out_height, p.height, p.height_offset), (112, 0, 1));
        assert_eq!(compute_out_size(PaddingKind::Same, 5, 3, 0, 1), None);
        // VALID 5x5 filter on 2: (2 + 1 - 5) / 1 < 0, an error: TFLM leaves every padding 0.
        assert_eq!(compute_out_size(PaddingKind::Valid, 2, 5, 1, 1), None);
        let p = compute_padding_height_width(1, 1, 1, 1, 2, 2, 5, 5, PaddingKind::Valid);
        assert_eq!((p.out_width, p.height, p.width), (0, 0, 0));
        // C division truncates towards zero: (3 + 2 - 6) / 2 = 0, not -1.
        assert_eq!(compute_out_size(PaddingKind::Valid, 3, 6, 2, 1), Some(0));
    }

    #[test]
    fn conv_and_fully_connected_multipliers() {
        // 0.5 * 0.25 / 0.125 = 1.0 and 0.5 * 0.5 / 0.125 = 2.0.
        assert_eq!(
            conv_multipliers(0.5, &[0.25, 0.5], 0.125, 2),
            Some(vec![(1 << 30, 1), (1 << 30, 2)])
        );
        // One scale broadcast to every channel.
        assert_eq!(
            conv_multipliers(0.5, &[0.25], 0.125, 3),
            Some(vec![(1 << 30, 1); 3])
        );
        assert_eq!(conv_multipliers(0.5, &[0.25, 0.5], 0.125, 3), None);
        assert_eq!(conv_multipliers(0.5, &[], 0.125, 3), None);
        // Per-tensor FULLY_CONNECTED multiplies the scales in double in the pinned wheel (not
        // in float as its source reads): 0.1f * 0.3f rounds differently from the double
        // product.
        let (a, b, o) = (0.1_f32, 0.3_f32, 0.7_f32);
        let float_product = f64::from(a * b) / f64::from(o);
        let double_product = f64::from(a) * f64::from(b) / f64::from(o);
        assert_ne!(float_product, double_product);
        assert_eq!(
            fully_connected_multipliers(a, &[b], o),
            vec![quantize_multiplier(double_product)]
        );
        assert_eq!(
            fully_connected_multipliers(a, &[b, b], o),
            vec![quantize_multiplier(double_product); 2]
        );
    }

    #[test]
    fn add_mul_mean_relu_logistic_prepare() {
        // Scales 0.5, 0.25 -> twice max 1.0: input multipliers 0.5, 0.25; output 1 / (2^20
        // * 0.5) = 2^-19 = 0.5 * 2^-18.
        let p = add_params((0.5, 1), (0.25, -2), (0.5, 3), FusedActivation::Relu);
        assert_eq!(
            p,
            Some(AddParams {
                left_shift: 20,
                input1_offset: -1,
                input1: (1 << 30, 0),
                input2_offset: 2,
                input2: (1 << 30, -1),
                output_offset: 3,
                output: (1 << 30, -18),
                act_min: 3,
                act_max: 127,
            })
        );
        // An output multiplier of 1 or more aborts in TFLM.
        assert_eq!(
            add_params((0.5, 0), (0.5, 0), (1e-7, 0), FusedActivation::None),
            None
        );
        assert_eq!(mul_multiplier(0.5, 0.5, 0.5), (1 << 30, 0));
        assert_eq!(rescale_multiplier(0.5, 0.25), (1 << 30, 2));
        // RELU: act_min is the output zero point.
        assert_eq!(
            relu_params((0.5, 4), (0.25, -7)),
            ReluParams {
                input_offset: -4,
                output_offset: -7,
                requant: (1 << 30, 2),
                act_min: -7,
                act_max: 127
            }
        );
        // RELU6: six = round(6 / 0.05) + zp = 120 - 10, saturated at 127.
        assert_eq!(relu6_params(0.05, -10), (-10, 110));
        assert_eq!(relu6_params(0.01, 0), (0, 127));
        // LOGISTIC at input scale 1/16: 2^-4 * 2^27 = 2^23 = 0.5 * 2^24; radius floor(15 * 2^27
        // / 2^24) = 120.
        assert_eq!(
            logistic_params(0.0625, -3),
            LogisticParams {
                input_zero_point: -3,
                input_range_radius: 120,
                input_multiplier: 1 << 30,
                input_left_shift: 24,
            }
        );
    }

    #[test]
    fn int16_lookup_tables() {
        // The softmax exp table: exp on [-10, 0] into Q0.15 (output scale 2/65535, so exp(0)
        // = 1 is 32768, clamped); entry 0 is exp(-10) * 32767.5 = 1.49 rounded to 1, less
        // the rounded midpoint error (-1). The whole table is checked against TFLM's
        // transcription with the C library's expf by the conformance suite.
        let range = 65535.0_f32;
        let exp = lut_populate_int16(10.0 / range, 32767, 2.0 / range, 0, stowplan_math::expf);
        assert_eq!(exp.len(), 513);
        assert_eq!(exp.last(), Some(&32767));
        assert_eq!(exp.first(), Some(&2));
        assert!(exp.windows(2).all(|w| w[0] <= w[1]));
        // 1 / (1 + x) on [0, 1]: 1 at 0 (clamped to 32767), 0.5 at 1.
        let inv = lut_populate_int16(1.0 / range, -32768, 2.0 / range, 0, |x| 1.0 / (1.0 + x));
        assert_eq!(inv.first(), Some(&32767));
        assert_eq!(inv.last(), Some(&16384));
    }
}
