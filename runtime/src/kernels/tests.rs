//! Small hand-checked cases for every kernel (kept tiny: CI runs them under miri).
//!
//! Expected values are derived by hand from the C++ reference kernels; the comments show the
//! arithmetic. Whole-model bit-exactness against the TFLM interpreter is checked elsewhere.

use super::fixed::*;
use super::*;

/// A multiplier of exactly 1.0 (`2^30 * 2^(1 - 31)`).
const ONE: Requant = Requant {
    multiplier: 1 << 30,
    shift: 1,
};
/// A multiplier of exactly 0.5.
const HALF: Requant = Requant {
    multiplier: 1 << 30,
    shift: 0,
};

// ---- fixed-point -------------------------------------------------------------------------

#[test]
fn doubling_high_mul_rounds_ties_up_and_saturates() {
    assert_eq!(
        saturating_rounding_doubling_high_mul(1 << 30, 1 << 30),
        1 << 29
    );
    // 3 * 0.5 = 1.5 -> 2, -3 * 0.5 = -1.5 -> -1, -5 * 0.5 = -2.5 -> -2 (VQRDMULH).
    assert_eq!(saturating_rounding_doubling_high_mul(3, 1 << 30), 2);
    assert_eq!(saturating_rounding_doubling_high_mul(-3, 1 << 30), -1);
    assert_eq!(saturating_rounding_doubling_high_mul(-5, 1 << 30), -2);
    assert_eq!(
        saturating_rounding_doubling_high_mul(i32::MIN, i32::MIN),
        i32::MAX
    );
    assert_eq!(
        saturating_rounding_doubling_high_mul(i32::MIN, i32::MAX),
        -i32::MAX
    );
}

#[test]
fn rounding_divide_by_pot_rounds_half_away_from_zero() {
    assert_eq!(rounding_divide_by_pot(5, 1), 3);
    assert_eq!(rounding_divide_by_pot(-5, 1), -3);
    assert_eq!(rounding_divide_by_pot(-3, 1), -2);
    assert_eq!(rounding_divide_by_pot(4, 1), 2);
    assert_eq!(rounding_divide_by_pot(501, 2), 125);
    assert_eq!(rounding_divide_by_pot(502, 2), 126);
    assert_eq!(rounding_divide_by_pot(-502, 2), -126);
    assert_eq!(rounding_divide_by_pot(7, 0), 7);
    assert_eq!(rounding_divide_by_pot(i32::MAX, 31), 1);
    assert_eq!(rounding_divide_by_pot(i32::MIN, 31), -1);
}

#[test]
fn saturating_multiply_by_pot() {
    assert_eq!(saturating_rounding_multiply_by_pot(3, 2), 12);
    assert_eq!(saturating_rounding_multiply_by_pot(1 << 29, 2), i32::MAX);
    assert_eq!(saturating_rounding_multiply_by_pot(-(1 << 29), 2), i32::MIN);
    assert_eq!(saturating_rounding_multiply_by_pot(6, -2), 2);
    assert_eq!(rounding_half_sum(3, 4), 4);
    assert_eq!(rounding_half_sum(-3, -4), -4);
    assert_eq!(rounding_half_sum(i32::MAX, i32::MAX), i32::MAX);
}

#[test]
fn quantized_multiplier_double_and_single_rounding() {
    // 1000 * 0.5 * 2^-2 = 125.
    assert_eq!(
        multiply_by_quantized_multiplier_double(1000, 1 << 30, -2),
        125
    );
    assert_eq!(
        multiply_by_quantized_multiplier_single(1000, 1 << 30, -2),
        125
    );
    // 5 * 0.25 = 1.25: double rounding rounds 2.5 -> 3, then 1.5 -> 2; single rounding -> 1.
    assert_eq!(multiply_by_quantized_multiplier_double(5, 1 << 30, -1), 2);
    assert_eq!(multiply_by_quantized_multiplier_single(5, 1 << 30, -1), 1);
    // Left shifts: 3 * 0.5 * 2^2 = 6.
    assert_eq!(multiply_by_quantized_multiplier_double(3, 1 << 30, 2), 6);
    assert_eq!(multiply_by_quantized_multiplier_single(3, 1 << 30, 2), 6);
    // The selected build.
    assert_eq!(ONE.apply(-77), -77);
    assert_eq!(HALF.apply(13), 7);
    assert_eq!(HALF.apply(-13), -6);
    assert_eq!(
        multiply_by_quantized_multiplier_greater_than_one(3, 1 << 30, 2),
        6
    );
    assert_eq!(
        multiply_by_quantized_multiplier_smaller_than_one_exp(1000, 1 << 30, -2),
        125
    );
    // Wrapping instead of panicking outside TFLM's contract.
    let _ = multiply_by_quantized_multiplier_double(i32::MAX, i32::MAX, 31);
    let _ = multiply_by_quantized_multiplier_single(i32::MIN, i32::MAX, 40);
}

/// `|got - want * 2^31| <= tolerance` for a Q0.31 result.
fn assert_q31(got: i32, want: f64, tolerance: f64) {
    let got = f64::from(got) / 2_147_483_648.0;
    assert!(
        (got - want).abs() <= tolerance,
        "got {got}, want {want} within {tolerance}"
    );
}

#[test]
fn gemmlowp_transcendentals() {
    assert_eq!(exp_on_negative_values::<5>(0), i32::MAX);
    // exp(-1) and exp(-2.5) from Q5.26, exp(-0.5) from Q4.27.
    assert_q31(exp_on_negative_values::<5>(-(1 << 26)), 0.367_879_44, 2e-7);
    assert_q31(exp_on_negative_values::<5>(-(5 << 25)), 0.082_084_998, 2e-7);
    assert_q31(exp_on_negative_values::<4>(-(1 << 26)), 0.606_530_66, 2e-7);
    // Below -32 in Q5.26 is out of range of the barrel shifter but still small.
    assert_q31(exp_on_negative_values::<5>(i32::MIN + 1), 0.0, 1e-9);
    // 1 / (1 + 0.5), 1 / (1 + 0).
    assert_q31(one_over_one_plus_x_for_x_in_0_1(1 << 30), 2.0 / 3.0, 2e-9);
    assert_q31(one_over_one_plus_x_for_x_in_0_1(0), 1.0, 2e-9);
    // logistic(0) = 1/2 exactly; logistic(2) and logistic(-2) from Q4.27.
    assert_eq!(logistic::<4>(0), 1 << 30);
    assert_q31(logistic::<4>(2 << 27), 0.880_797_08, 2e-7);
    assert_q31(logistic::<4>(-(2 << 27)), 0.119_202_92, 2e-7);
    // 1 / 1.25 with one integer bit above the unit: (0.8 in Q0.31, 0 bits over unit).
    let (reciprocal, bits) = get_reciprocal(5 << 27, 2);
    assert_eq!(bits, 0);
    assert_q31(reciprocal, 0.8, 5e-9);
}

// ---- CONV_2D -------------------------------------------------------------------------------

/// 1x3x3x1 input 1..=9.
const IMAGE: [i8; 9] = [1, 2, 3, 4, 5, 6, 7, 8, 9];

fn geometry(input: [usize; 4], filter: [usize; 4], output: [usize; 4]) -> ConvGeometry {
    ConvGeometry {
        input,
        filter,
        output,
        stride_h: 1,
        stride_w: 1,
        dilation_h: 1,
        dilation_w: 1,
        pad_h: 0,
        pad_w: 0,
        depth_multiplier: 1,
    }
}

fn conv_s8(geometry: ConvGeometry, requant: &'static [Requant]) -> ConvS8 {
    ConvS8 {
        geometry,
        input_offset: 0,
        output_offset: 0,
        requant,
        act_min: -128,
        act_max: 127,
    }
}

#[test]
fn conv2d_valid_bias_and_clamp() {
    // 2x2 filter [1 2; 3 4] over 1..=9: (0,0) = 1 + 4 + 12 + 20 = 37, then 47, 67, 77; bias 3.
    let mut p = conv_s8(geometry([1, 3, 3, 1], [1, 2, 2, 1], [1, 2, 2, 1]), &[ONE]);
    let mut out = [0_i8; 4];
    conv2d_s8(&p, &IMAGE, &[1, 2, 3, 4], Some(&[3]), &mut out).unwrap();
    assert_eq!(out, [40, 50, 70, 80]);
    // A fused activation clamps after the output offset: 80 + 5 -> 75.
    p.output_offset = 5;
    p.act_min = 46;
    p.act_max = 75;
    conv2d_s8(&p, &IMAGE, &[1, 2, 3, 4], Some(&[3]), &mut out).unwrap();
    assert_eq!(out, [46, 55, 75, 75]);
    // The input offset (zero point 1) applies to every product: 37 - (1 + 2 + 3 + 4) = 27.
    let p = ConvS8 {
        input_offset: -1,
        ..conv_s8(p.geometry, &[ONE])
    };
    conv2d_s8(&p, &IMAGE, &[1, 2, 3, 4], None, &mut out).unwrap();
    assert_eq!(out, [27, 37, 57, 67]);
}

#[test]
fn conv2d_stride_and_same_padding() {
    // SAME, stride 2, 2x2 filter on 3x3: output 2x2, total padding 1 -> pad 0 (the extra row
    // and column are at the bottom and right, outside the image).
    let mut g = geometry([1, 3, 3, 1], [1, 2, 2, 1], [1, 2, 2, 1]);
    g.stride_h = 2;
    g.stride_w = 2;
    let mut out = [0_i8; 4];
    conv2d_s8(&conv_s8(g, &[ONE]), &IMAGE, &[1, 2, 3, 4], None, &mut out).unwrap();
    // (0,2): 3*1 + 6*3; (2,0): 7*1 + 8*2; (2,2): 9*1.
    assert_eq!(out, [37, 21, 23, 9]);

    // SAME, 3x3 ones, stride 1: pad 1, every output is its 3x3 neighbourhood's sum.
    let mut g = geometry([1, 3, 3, 1], [1, 3, 3, 1], [1, 3, 3, 1]);
    g.pad_h = 1;
    g.pad_w = 1;
    let mut out = [0_i8; 9];
    conv2d_s8(&conv_s8(g, &[ONE]), &IMAGE, &[1; 9], None, &mut out).unwrap();
    assert_eq!(out, [12, 21, 16, 27, 45, 33, 24, 39, 28]);
}

#[test]
fn conv2d_dilation() {
    // 2x2 filter dilated by 2 reads the corners: 1*1 + 3*2 + 7*3 + 9*4 = 64.
    let mut g = geometry([1, 3, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1]);
    g.dilation_h = 2;
    g.dilation_w = 2;
    let mut out = [0_i8; 1];
    conv2d_s8(&conv_s8(g, &[ONE]), &IMAGE, &[1, 2, 3, 4], None, &mut out).unwrap();
    assert_eq!(out, [64]);
}

#[test]
fn conv2d_per_channel_requant_and_saturation() {
    // Two output channels: [1 2; 3 4] at 1.0 and ones at 0.5 (12 * 0.5 = 6, 16 -> 8, 24 ->
    // 12, 28 -> 14); OHWI filter layout.
    let g = geometry([1, 3, 3, 1], [2, 2, 2, 1], [1, 2, 2, 2]);
    let mut out = [0_i8; 8];
    conv2d_s8(
        &conv_s8(g, &[ONE, HALF]),
        &IMAGE,
        &[1, 2, 3, 4, 1, 1, 1, 1],
        None,
        &mut out,
    )
    .unwrap();
    assert_eq!(out, [37, 6, 47, 8, 67, 12, 77, 14]);
    // Ties of the 0.5 multiplier round up: 13 * 0.5 -> 7, -13 * 0.5 -> -6.
    let g = geometry([1, 1, 1, 1], [2, 1, 1, 1], [1, 1, 1, 2]);
    conv2d_s8(
        &conv_s8(g, &[HALF, HALF]),
        &[13],
        &[1, -1],
        None,
        &mut out[..2],
    )
    .unwrap();
    assert_eq!(out[..2], [7, -6]);
    // Saturation at the int8 range: 127 * 127 = 16129 -> 127, -16129 -> -128.
    conv2d_s8(
        &conv_s8(g, &[ONE, ONE]),
        &[127],
        &[127, -127],
        None,
        &mut out[..2],
    )
    .unwrap();
    assert_eq!(out[..2], [127, -128]);
}

#[test]
fn conv2d_grouped() {
    // Two groups: C = 2, I = 1, O = 2; output channel g reads input channel g only.
    let g = geometry([1, 1, 2, 2], [2, 1, 2, 1], [1, 1, 1, 2]);
    let mut out = [0_i8; 2];
    // Input (x, c): (0,0)=1 (0,1)=10 (1,0)=2 (1,1)=20; filters [1 1] and [1 -1].
    conv2d_s8(
        &conv_s8(g, &[ONE, ONE]),
        &[1, 10, 2, 20],
        &[1, 1, 1, -1],
        None,
        &mut out,
    )
    .unwrap();
    assert_eq!(out, [3, -10]);
}

#[test]
fn conv2d_f32_sums_in_tflm_order() {
    let g = geometry([1, 3, 3, 1], [1, 2, 2, 1], [1, 2, 2, 1]);
    let p = ConvF32 {
        geometry: g,
        act_min: f32::MIN,
        act_max: 60.0,
    };
    let image: [f32; 9] = core::array::from_fn(|i| i as f32 + 1.0);
    let mut out = [0.0_f32; 4];
    conv2d_f32(&p, &image, &[1.0, 2.0, 3.0, 4.0], Some(&[0.5]), &mut out).unwrap();
    assert_eq!(out, [37.5, 47.5, 60.0, 60.0]);
    // Order matters in float: ((1e8 + 1) + -1e8) + 1 = 1 in f32 (1e8 + 1 rounds to 1e8).
    let g = geometry([1, 1, 1, 4], [1, 1, 1, 4], [1, 1, 1, 1]);
    let p = ConvF32 {
        geometry: g,
        act_min: f32::MIN,
        act_max: f32::MAX,
    };
    conv2d_f32(&p, &[1e8, 1.0, -1e8, 1.0], &[1.0; 4], None, &mut out[..1]).unwrap();
    assert_eq!(out[0], 1.0);
}

// ---- DEPTHWISE_CONV_2D ---------------------------------------------------------------------

#[test]
fn depthwise_conv2d_depth_multiplier() {
    // 2x2x2 input, depth multiplier 2 -> 4 output channels, out_c = m + in_c * 2.
    let mut g = geometry([1, 2, 2, 2], [1, 2, 2, 4], [1, 1, 1, 4]);
    g.depth_multiplier = 2;
    let input = [1, 10, 2, 20, 3, 30, 4, 40];
    // 1HWO: per (y, x) the 4 output channels.
    let filter = [1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1];
    let mut out = [0_i8; 4];
    depthwise_conv2d_s8(&conv_s8(g, &[ONE; 4]), &input, &filter, None, &mut out).unwrap();
    // oc0 = 1+2+3+4, oc1 = 3+4, oc2 = 10+40, oc3 = 20+40.
    assert_eq!(out, [10, 7, 50, 60]);
    // Per-channel multipliers, bias and offsets: (10 + 1) * 0.5 -> 6 (5.5 rounds up), + 1.
    let p = ConvS8 {
        output_offset: 1,
        ..conv_s8(g, &[HALF, ONE, ONE, ONE])
    };
    depthwise_conv2d_s8(&p, &input, &filter, Some(&[1, 0, 0, 100]), &mut out).unwrap();
    assert_eq!(out, [7, 8, 51, 127]);
}

#[test]
fn depthwise_conv2d_padding_stride_dilation() {
    // 3x3 image, 2x2 ones filter dilated by 2, SAME-like padding 1, stride 2: windows at
    // origins (-1,-1), (-1,1), (1,-1), (1,1) read taps at offsets 0 and 2.
    let mut g = geometry([1, 3, 3, 1], [1, 2, 2, 1], [1, 2, 2, 1]);
    g.stride_h = 2;
    g.stride_w = 2;
    g.dilation_h = 2;
    g.dilation_w = 2;
    g.pad_h = 1;
    g.pad_w = 1;
    let mut out = [0_i8; 4];
    depthwise_conv2d_s8(&conv_s8(g, &[ONE]), &IMAGE, &[1; 4], None, &mut out).unwrap();
    // (-1,-1): only (1,1) = 5; (-1,1): (1,1)=5 and (1,3) outside -> 5; (1,-1): 5; (1,1): 5.
    assert_eq!(out, [5, 5, 5, 5]);
    let p = ConvF32 {
        geometry: g,
        act_min: 0.0,
        act_max: 6.0,
    };
    let image: [f32; 9] = core::array::from_fn(|i| i as f32 + 1.0);
    let mut out = [0.0_f32; 4];
    depthwise_conv2d_f32(&p, &image, &[1.5; 4], Some(&[-1.0]), &mut out).unwrap();
    assert_eq!(out, [6.0, 6.0, 6.0, 6.0]);
}

// ---- FULLY_CONNECTED -----------------------------------------------------------------------

fn fc(requant: &'static [Requant]) -> FullyConnectedS8 {
    FullyConnectedS8 {
        batches: 2,
        accum_depth: 3,
        output_depth: 2,
        input_offset: 0,
        filter_offset: 0,
        output_offset: 0,
        requant,
        act_min: -128,
        act_max: 127,
    }
}

#[test]
fn fully_connected_per_tensor_and_per_channel() {
    let input = [1, 2, 3, 4, 5, 6];
    let filter = [1, 0, -1, 2, 2, 2];
    let mut out = [0_i8; 4];
    // b0: 1 - 3 = -2, 2 + 4 + 6 = 12; b1: -2, 30; bias [1, -1].
    fully_connected_s8(&fc(&[ONE]), &input, &filter, Some(&[1, -1]), &mut out).unwrap();
    assert_eq!(out, [-1, 11, -1, 29]);
    // Per-tensor filter offset (zero point -1): filter + 1 = [2 1 0; 3 3 3].
    let p = FullyConnectedS8 {
        filter_offset: 1,
        input_offset: 0,
        ..fc(&[ONE])
    };
    fully_connected_s8(&p, &input, &filter, None, &mut out).unwrap();
    assert_eq!(out, [4, 18, 13, 45]);
    // Per-channel: the filter offset is not applied; channel 1 at 0.5; offsets and clamp.
    let p = FullyConnectedS8 {
        filter_offset: 1,
        input_offset: -1,
        output_offset: -3,
        act_min: -4,
        ..fc(&[ONE, HALF])
    };
    // input - 1: [0 1 2; 3 4 5]: b0: 0 - 2 = -2, (0+2+4) * 0.5 = 3; b1: 3-5 = -2, 24*0.5 = 12.
    fully_connected_s8(&p, &input, &filter, None, &mut out).unwrap();
    assert_eq!(out, [-4, 0, -4, 9]);
}

#[test]
fn fully_connected_f32_clamps() {
    let p = FullyConnectedF32 {
        batches: 1,
        accum_depth: 2,
        output_depth: 2,
        act_min: 0.0,
        act_max: f32::MAX,
    };
    let mut out = [0.0_f32; 2];
    fully_connected_f32(
        &p,
        &[1.0, 2.0],
        &[0.5, 0.25, -1.0, 0.0],
        Some(&[0.0, 0.5]),
        &mut out,
    )
    .unwrap();
    assert_eq!(out, [1.0, 0.0]);
}

// ---- pooling -------------------------------------------------------------------------------

fn pool(input: [usize; 4], output: [usize; 4], filter: usize, stride: usize) -> PoolS8 {
    PoolS8 {
        geometry: PoolGeometry {
            input,
            output,
            filter_h: filter,
            filter_w: filter,
            stride_h: stride,
            stride_w: stride,
            pad_h: 0,
            pad_w: 0,
        },
        act_min: -128,
        act_max: 127,
    }
}

#[test]
fn average_pool_rounds_half_away_from_zero() {
    let mut out = [0_i8; 4];
    // 2x2 windows over 1..=9: 12/4, 16/4, 24/4, 28/4.
    average_pool_s8(&pool([1, 3, 3, 1], [1, 2, 2, 1], 2, 1), &IMAGE, &mut out).unwrap();
    assert_eq!(out, [3, 4, 6, 7]);
    // SAME, stride 2: edge windows shrink to the input: [3 6] -> 4.5 -> 5, [7 8] -> 8, [9].
    average_pool_s8(&pool([1, 3, 3, 1], [1, 2, 2, 1], 2, 2), &IMAGE, &mut out).unwrap();
    assert_eq!(out, [3, 5, 8, 9]);
    // 7/4 = 1.75 -> 2, -7/4 -> -2, and the activation clamp.
    let mut p = pool([1, 2, 2, 2], [1, 1, 1, 2], 2, 1);
    average_pool_s8(&p, &[1, -1, 2, -2, 2, -2, 2, -2], &mut out[..2]).unwrap();
    assert_eq!(out[..2], [2, -2]);
    p.act_min = 0;
    average_pool_s8(&p, &[1, -1, 2, -2, 2, -2, 2, -2], &mut out[..2]).unwrap();
    assert_eq!(out[..2], [2, 0]);
    // Padding above and left: a 2x2 window at origin (-1, -1) holds only element (0, 0).
    p = pool([1, 2, 2, 1], [1, 1, 1, 1], 2, 1);
    p.geometry.pad_h = 1;
    p.geometry.pad_w = 1;
    average_pool_s8(&p, &[-9, 100, 100, 100], &mut out[..1]).unwrap();
    assert_eq!(out[0], -9);
}

#[test]
fn max_pool_and_float_pools() {
    let mut out = [0_i8; 4];
    max_pool_s8(&pool([1, 3, 3, 1], [1, 2, 2, 1], 2, 1), &IMAGE, &mut out).unwrap();
    assert_eq!(out, [5, 6, 8, 9]);
    let mut p = pool([1, 3, 3, 1], [1, 2, 2, 1], 2, 2);
    p.act_max = 7;
    max_pool_s8(&p, &IMAGE, &mut out).unwrap();
    assert_eq!(out, [5, 6, 7, 7]);

    let image: [f32; 9] = core::array::from_fn(|i| i as f32 + 1.0);
    let pf = PoolF32 {
        geometry: pool([1, 3, 3, 1], [1, 2, 2, 1], 2, 2).geometry,
        act_min: f32::MIN,
        act_max: f32::MAX,
    };
    let mut out = [0.0_f32; 4];
    average_pool_f32(&pf, &image, &mut out).unwrap();
    assert_eq!(out, [3.0, 4.5, 7.5, 9.0]);
    max_pool_f32(&pf, &image, &mut out).unwrap();
    assert_eq!(out, [5.0, 6.0, 8.0, 9.0]);
}

// ---- SOFTMAX -------------------------------------------------------------------------------

/// TFLM's prepare for input scale 0.1 and beta 1: `PreprocessSoftmaxScaling(1.0, 0.1f, 5)`
/// = `QuantizeMultiplier(0.1f * 2^26 = 6710886.5)` = (6710886.5 * 2^8, 23), and
/// `diff_min = -floor(31 * 2^26 / 2^23) = -248`.
const SOFTMAX_SCALE_0_1: SoftmaxS8 = SoftmaxS8 {
    rows: 1,
    depth: 5,
    input_multiplier: 1_717_986_944,
    input_left_shift: 23,
    diff_min: -248,
};

#[test]
fn softmax_s8_exact_cases() {
    let mut out = [0_i8; 5];
    // Equal entries: 1/2 each -> 0.5 * 256 - 128 = 0.
    let p = SoftmaxS8 {
        depth: 2,
        ..SOFTMAX_SCALE_0_1
    };
    softmax_s8(&p, &[7, 7], &mut out[..2]).unwrap();
    assert_eq!(out[..2], [0, 0]);
    // One entry: 1.0 -> 256 - 128, saturated to 127.
    let p = SoftmaxS8 {
        depth: 1,
        ..SOFTMAX_SCALE_0_1
    };
    softmax_s8(&p, &[-50], &mut out[..1]).unwrap();
    assert_eq!(out[0], 127);
    // Below diff_min: -128 and left out of the sum.
    let p = SoftmaxS8 {
        depth: 2,
        diff_min: -50,
        ..SOFTMAX_SCALE_0_1
    };
    softmax_s8(&p, &[100, 0], &mut out[..2]).unwrap();
    assert_eq!(out[..2], [127, -128]);
}

#[test]
fn softmax_s8_matches_tflm_exactly() {
    // TFLM's softmax_test case (input 1..=5 at scale 0.1, output at 1/256 and -128; its test
    // allows 1 off): the pinned tflite-micro interpreter gives exactly these, and so must we.
    let tflm = [-125, -120, -106, -68, 35];
    let rows = SoftmaxS8 {
        rows: 2,
        ..SOFTMAX_SCALE_0_1
    };
    let mut out = [0_i8; 10];
    softmax_s8(
        &rows,
        &[10, 20, 30, 40, 50, -10, -20, -30, -40, -50],
        &mut out,
    )
    .unwrap();
    assert_eq!(out[..5], tflm);
    assert!(out[5..].iter().eq(tflm.iter().rev()));
}

#[test]
fn softmax_f32_rows() {
    let p = SoftmaxF32 {
        rows: 2,
        depth: 2,
        beta: 1.0,
    };
    let mut out = [0.0_f32; 4];
    softmax_f32(&p, &[3.0, 3.0, 0.0, f32::NEG_INFINITY], &mut out).unwrap();
    assert_eq!(out, [0.5, 0.5, 1.0, 0.0]);
    // e^0 / (e^0 + e^-1) with e^-1 = expf(-1) = 0x3ebc5ab2.
    softmax_f32(&p, &[1.0, 0.0, 0.0, 0.0], &mut out).unwrap();
    let e = f32::from_bits(0x3ebc_5ab2);
    assert_eq!(out[0], 1.0 / (1.0 + e));
    assert_eq!(out[1], e / (1.0 + e));
}

// ---- data movement -------------------------------------------------------------------------

#[test]
fn copy_copies() {
    let mut out = [0_i8; 3];
    copy(&[1, 2, 3], &mut out).unwrap();
    assert_eq!(out, [1, 2, 3]);
}

// ---- ADD, MUL -------------------------------------------------------------------------------

/// `[1, 1, 1, 1, h, w]`.
const fn shape2(h: usize, w: usize) -> [usize; 6] {
    [1, 1, 1, 1, h, w]
}

/// Inputs at scales 0.5 (zero point 1) and 0.25 (zero point -2), output at 0.5 (zero point 3),
/// RELU: the planner's `quant::add_params` (input multipliers 0.5 and 0.25, output 2^-19).
fn add_params(shape: BinaryShape) -> AddS8 {
    AddS8 {
        shape,
        left_shift: 20,
        input1_offset: -1,
        input1: HALF,
        input2_offset: 2,
        input2: Requant {
            multiplier: 1 << 30,
            shift: -1,
        },
        output_offset: 3,
        output: Requant {
            multiplier: 1 << 30,
            shift: -18,
        },
        act_min: 3,
        act_max: 127,
    }
}

#[test]
fn add_s8_elementwise_and_broadcast() {
    let same = BinaryShape {
        input1: shape2(1, 2),
        input2: shape2(1, 2),
        output: shape2(1, 2),
    };
    let mut out = [0_i8; 4];
    // 0.5 * (5 - 1) + 0.25 * (6 + 2) = 4.0 -> 4 / 0.5 + 3 = 11; -64.5 - 31.5 -> clamped to 3.
    add_s8(&add_params(same), &[5, -128], &[6, -128], &mut out[..2]).unwrap();
    assert_eq!(out[..2], [11, 3]);
    // input2 [6 2] broadcast over the rows of input1 [5 7; 9 11]: reals [2 3; 4 5] + [2 1].
    let rows = BinaryShape {
        input1: shape2(2, 2),
        input2: shape2(1, 2),
        output: shape2(2, 2),
    };
    add_s8(&add_params(rows), &[5, 7, 9, 11], &[6, 2], &mut out).unwrap();
    assert_eq!(out, [11, 11, 15, 15]);
    // And a scalar first input: 2.0 + [2 1 2 1].
    let scalar = BinaryShape {
        input1: shape2(1, 1),
        input2: shape2(2, 2),
        output: shape2(2, 2),
    };
    add_s8(&add_params(scalar), &[5], &[6, 2, 6, 2], &mut out).unwrap();
    assert_eq!(out, [11, 9, 11, 9]);
}

#[test]
fn mul_s8_and_float_binaries() {
    // 0.5 * 0.25 / 0.5 = 0.25 = (2^30, -1).
    let p = MulS8 {
        shape: BinaryShape {
            input1: shape2(2, 2),
            input2: shape2(2, 1),
            output: shape2(2, 2),
        },
        input1_offset: -1,
        input2_offset: 2,
        output_offset: 3,
        output: Requant {
            multiplier: 1 << 30,
            shift: -1,
        },
        act_min: -128,
        act_max: 20,
    };
    let mut out = [0_i8; 4];
    // Rows of input1 - 1 = [4 5; 8 9] times columns of input2 + 2 = [8; 12], * 0.25, + 3:
    // 8 + 3, 10 + 3, 24 + 3 -> 20, 27 + 3 -> 20.
    mul_s8(&p, &[5, 6, 9, 10], &[6, 10], &mut out).unwrap();
    assert_eq!(out, [11, 13, 20, 20]);

    let mut p = BinaryF32 {
        shape: BinaryShape {
            input1: shape2(2, 2),
            input2: shape2(1, 1),
            output: shape2(2, 2),
        },
        act_min: f32::MIN,
        act_max: 13.0,
    };
    let mut out = [0.0_f32; 4];
    add_f32(&p, &[1.0, 2.0, 3.0, 4.0], &[10.0], &mut out).unwrap();
    assert_eq!(out, [11.0, 12.0, 13.0, 13.0]);
    p.shape.input2 = shape2(1, 2);
    p.act_min = -3.0;
    p.act_max = f32::MAX;
    mul_f32(&p, &[1.0, 2.0, 3.0, 4.0], &[2.0, -1.0], &mut out).unwrap();
    assert_eq!(out, [2.0, -2.0, 6.0, -3.0]);
}

// ---- MEAN ----------------------------------------------------------------------------------

/// 1x2x2x2, pixels (0,0) (0,1) (1,0) (1,1) with channels [1 -1] [2 -2] [2 -2] [2 -2].
const MEAN_INPUT: [i8; 8] = [1, -1, 2, -2, 2, -2, 2, -2];

#[test]
fn mean_s8_same_quantization_rescales_and_rounds() {
    // Equal scales and zero points still take QuantizedMeanOrSum (TFLM's old plain-mean path
    // truncated 7 / 4 and -7 / 4 to [1, -1]; the interpreter gives [2, -2]). 1.0 = (2^30, 1);
    // 4 elements: s = 2, (2^30 << 2) / 4 = 2^30, shift 1 - 2 = -1.
    let p = MeanS8 {
        input: [1, 2, 2, 2],
        axes: [false, true, true, false],
        input_zero_point: 1,
        output_zero_point: 1,
        input_scale: 0.5,
        output_scale: 0.5,
        requant: ONE,
    };
    let mut out = [0_i8; 2];
    // 7 - 1 * 4 = 3: 3 * 2^30 doubled-high -> 1.5 -> 2, /2 -> 1, + 1 = 2.
    // -7 - 4 = -11: -5.5 -> -5, /2 = -2.5 -> -3 (ties up after the first rounding), + 1 = -2.
    mean_s8(&p, &MEAN_INPUT, &mut out).unwrap();
    assert_eq!(out, [2, -2]);
}

#[test]
fn mean_s8_global_average_pool_7x7() {
    // MobileNet v2's last MEAN: 1x7x7xC over H,W, input and output quantised alike (zero
    // point -9). 49 elements: s = 5, multiplier (2^30 << 5) / 49 = 701_219_150 (truncated),
    // shift 1 - 5 = -4. Channel 0: thirty 10s and nineteen -9s, sum 129 (mean 2.63: TFLM 3,
    // truncation 2); channel 1: twenty -100s, sum -2261 (mean -46.1: -46). Checked against
    // the TFLM interpreter.
    let mut input = [-9_i8; 98];
    for (px, pair) in input.chunks_exact_mut(2).enumerate() {
        if px < 30 {
            pair[0] = 10;
        }
        if px < 20 {
            pair[1] = -100;
        }
    }
    let p = MeanS8 {
        input: [1, 7, 7, 2],
        axes: [false, true, true, false],
        input_zero_point: -9,
        output_zero_point: -9,
        input_scale: 0.070_547_886,
        output_scale: 0.070_547_886,
        requant: ONE,
    };
    let mut out = [0_i8; 2];
    mean_s8(&p, &input, &mut out).unwrap();
    assert_eq!(out, [3, -46]);
}

#[test]
fn mean_s8_requantizes() {
    // Scales 0.5 -> 0.25, zero points 1 -> -2: multiplier 2.0 = (2^30, 2); with the 4
    // elements folded in: (2^30 << 2) / 4 = 2^30, shift 0 (0.5).
    let p = MeanS8 {
        input: [1, 2, 2, 2],
        axes: [false, true, true, false],
        input_zero_point: 1,
        output_zero_point: -2,
        input_scale: 0.5,
        output_scale: 0.25,
        requant: Requant {
            multiplier: 1 << 30,
            shift: 2,
        },
    };
    let mut out = [0_i8; 2];
    // (7 - 1 * 4) * 0.5 = 1.5 -> 2, - 2 = 0; (-7 - 4) * 0.5 = -5.5 -> -5 (ties up), - 2 = -7.
    mean_s8(&p, &MEAN_INPUT, &mut out).unwrap();
    assert_eq!(out, [0, -7]);
}

#[test]
fn mean_f32_any_axes() {
    let input = [1.0, 10.0, 2.0, 20.0, 3.0, 30.0, 4.0, 40.0];
    let mut out = [0.0_f32; 4];
    let hw = MeanF32 {
        input: [1, 2, 2, 2],
        axes: [false, true, true, false],
    };
    mean_f32(&hw, &input, &mut out[..2]).unwrap();
    assert_eq!(out[..2], [2.5, 25.0]);
    let channels = MeanF32 {
        input: [1, 2, 2, 2],
        axes: [false, false, false, true],
    };
    mean_f32(&channels, &input, &mut out).unwrap();
    assert_eq!(out, [5.5, 11.0, 16.5, 22.0]);
}

// ---- PAD, TRANSPOSE, CONCATENATION ---------------------------------------------------------

#[test]
fn pad_before_and_after() {
    // 2x2 -> 3x3 with one row above and one column after.
    let p = Pad {
        input: [1, 1, 1, 2, 2],
        output: [1, 1, 1, 3, 3],
        before: [0, 0, 0, 1, 0],
    };
    let mut out = [9_i8; 9];
    pad(&p, &[1, 2, 3, 4], -5, &mut out).unwrap();
    assert_eq!(out, [-5, -5, -5, 1, 2, -5, 3, 4, -5]);
}

#[test]
fn transpose_permutes() {
    // 2x3 -> 3x2.
    let p = Transpose {
        input: [1, 1, 1, 1, 2, 3],
        perm: [0, 1, 2, 3, 5, 4],
    };
    let mut out = [0_u8; 6];
    transpose(&p, &[0, 1, 2, 3, 4, 5], &mut out).unwrap();
    assert_eq!(out, [0, 3, 1, 4, 2, 5]);
    // 2x3x2 with perm (2, 0, 1): out[c][a][b] = in[a][b][c] = 6a + 2b + c.
    let p = Transpose {
        input: [1, 1, 1, 2, 3, 2],
        perm: [0, 1, 2, 5, 3, 4],
    };
    let input: [u8; 12] = core::array::from_fn(|i| i as u8);
    let mut out = [0_u8; 12];
    transpose(&p, &input, &mut out).unwrap();
    assert_eq!(out, [0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11]);
}

#[test]
fn concatenation_interleaves_chunks() {
    let mut out = [0_i8; 6];
    concatenation(2, &[2, 1], &[&[1, 2, 3, 4], &[9, 8]], &mut out).unwrap();
    assert_eq!(out, [1, 2, 9, 3, 4, 8]);
    // A short input is refused, the output untouched.
    assert_eq!(
        concatenation(2, &[2, 1], &[&[1, 2, 3, 4], &[7]], &mut out),
        Err(KernelError::Length {
            operand: "inputs",
            expected: Some(2),
            found: 1
        })
    );
    assert_eq!(out, [1, 2, 9, 3, 4, 8]);
}

// ---- QUANTIZE, DEQUANTIZE, activations -----------------------------------------------------

#[test]
fn quantize_dequantize_requantize() {
    let mut out = [0_i8; 6];
    let p = QuantizeF32S8 {
        scale: 0.5,
        zero_point: -1,
    };
    // 2.5 -> 3, -2.5 -> -3 (half away from zero), then saturation.
    quantize_f32_s8(&p, &[1.25, -1.25, 100.0, -100.0, 0.2, -0.2], &mut out).unwrap();
    assert_eq!(out, [2, -4, 127, -128, -1, -1]);
    // Infinities convert to INT32_MIN as on x86-64.
    let p = QuantizeF32S8 {
        scale: 0.5,
        zero_point: 0,
    };
    quantize_f32_s8(&p, &[f32::INFINITY, f32::NEG_INFINITY], &mut out[..2]).unwrap();
    assert_eq!(out[..2], [-128, -128]);

    let mut f = [0.0_f32; 2];
    let p = DequantizeS8F32 {
        scale: 0.5,
        zero_point: -1,
    };
    dequantize_s8_f32(&p, &[3, -128], &mut f).unwrap();
    assert_eq!(f, [2.0, -63.5]);

    let p = Requantize {
        input_offset: -1,
        output_offset: 3,
        requant: Requant {
            multiplier: 1 << 30,
            shift: 2,
        },
    };
    requantize_s8(&p, &[5, 127, -128], &mut out[..3]).unwrap();
    assert_eq!(out[..3], [11, 127, -128]);
}

#[test]
fn logistic_s8_saturates_and_interpolates() {
    // The planner's `quant::logistic_params(1/16, -3)`.
    let p = LogisticS8 {
        input_zero_point: -3,
        input_range_radius: 120,
        input_multiplier: 1 << 30,
        input_left_shift: 24,
    };
    let mut out = [0_i8; 4];
    // 0 -> 0.5 -> 0; 130 and -125 are beyond the radius; 2.0 -> 0.8808 * 256 = 225.5 -> 225.
    logistic_s8(&p, &[-3, 127, -128, 29], &mut out).unwrap();
    assert_eq!(out, [0, 127, -128, 97]);
}

#[test]
fn logistic_f32_branches() {
    use stowplan_math::expf;
    let mut out = [0.0_f32; 4];
    logistic_f32(&[0.0, 20.0, -10.0, 2.0], &mut out).unwrap();
    assert_eq!(out[0], 0.5);
    assert_eq!(out[1], 1.0);
    assert_eq!(out[2], expf(-10.0));
    assert_eq!(out[3], 1.0 / (1.0 + expf(-2.0)));
    // TFLM's cutoff is the float nearest 16.619047164916992.
    assert_eq!(16.619_047_f32.to_bits(), 0x4184_f3cf);
}

#[test]
fn relu_variants() {
    // The planner's `quant::relu_params((0.5, 4), (0.25, -7))`.
    let p = ReluS8 {
        input_offset: -4,
        output_offset: -7,
        requant: Requant {
            multiplier: 1 << 30,
            shift: 2,
        },
        act_min: -7,
        act_max: 127,
    };
    let mut out = [0_i8; 4];
    relu_s8(&p, &[4, 10, 0, 100], &mut out).unwrap();
    assert_eq!(out, [-7, 5, -7, 127]);
    let p = Relu6S8 {
        zero: -10,
        six: 110,
    };
    relu6_s8(&p, &[-128, 50, 120], &mut out[..3]).unwrap();
    assert_eq!(out[..3], [-10, 50, 110]);

    let mut f = [0.0_f32; 4];
    relu_f32(&[-1.0, 0.0, 2.0, f32::NAN], &mut f).unwrap();
    assert_eq!(f[..3], [0.0, 0.0, 2.0]);
    assert!(f[3].is_nan());
    relu6_f32(&[-1.0, 7.0, 3.0, -0.0], &mut f).unwrap();
    assert_eq!(f[..3], [0.0, 6.0, 3.0]);
    assert!(f[3] == 0.0 && f[3].is_sign_negative());
}

// ---- no panics -----------------------------------------------------------------------------

#[test]
fn inconsistent_parameters_do_not_panic() {
    // Zero dimensions TFLM would divide by, slices shorter than the shapes.
    let g = geometry([1, 3, 3, 0], [1, 2, 2, 0], [1, 2, 2, 1]);
    let mut out = [0_i8; 4];
    assert!(conv2d_s8(&conv_s8(g, &[]), &IMAGE, &[], None, &mut out).is_err());
    let g = geometry([1, 3, 3, 1], [1, 2, 2, 1], [1, 2, 2, 1]);
    assert!(
        conv2d_s8(
            &conv_s8(g, &[]),
            &IMAGE[..2],
            &[1],
            Some(&[]),
            &mut out[..1],
        )
        .is_err()
    );
    assert!(depthwise_conv2d_s8(&conv_s8(g, &[]), &[], &[], None, &mut out).is_err());
    let before = out;
    assert!(fully_connected_s8(&fc(&[]), &[], &[], None, &mut out).is_err());
    assert!(average_pool_s8(&pool([1, 3, 3, 1], [1, 2, 2, 1], 0, 1), &IMAGE, &mut out).is_err());
    assert_eq!(out, before);
    // Refused, nothing written: the output is not rows * depth long.
    out = [9; 4];
    assert!(softmax_s8(&SOFTMAX_SCALE_0_1, &[], &mut out).is_err());
    assert_eq!(out, [9; 4]);
    let shape = BinaryShape {
        input1: shape2(2, 2),
        input2: shape2(1, 2),
        output: shape2(2, 2),
    };
    assert!(add_s8(&add_params(shape), &[1], &[], &mut out).is_err());
    let p = MeanS8 {
        input: [1, 2, 2, 0],
        axes: [false, true, true, false],
        input_zero_point: 0,
        output_zero_point: 0,
        input_scale: 1.0,
        output_scale: 0.5,
        requant: ONE,
    };
    // Refused, nothing written: a zero dimension kept leaves no output element.
    out = [9; 4];
    assert!(mean_s8(&p, &[], &mut out).is_err());
    assert_eq!(out, [9; 4]);
    let p = Transpose {
        input: [1, 1, 1, 1, 2, 3],
        perm: [9, 9, 9, 9, 9, 9],
    };
    let before = out;
    assert!(transpose(&p, &IMAGE, &mut out).is_err());
    assert_eq!(out, before);
    assert!(
        pad(
            &Pad {
                input: [1, 1, 1, 9, 9],
                output: [1, 1, 1, 2, 2],
                before: [0, 0, 0, usize::MAX, 0],
            },
            &IMAGE,
            0,
            &mut out,
        )
        .is_err()
    );
    assert_eq!(out, before);
}

// ---- against TFLM's loops, written out ------------------------------------------------------
//
// The kernels restructure TFLM's loops (runs of channels, blocks of channels, sums with the
// offsets taken out); these references are TFLM's loop nests transcribed index for index, and
// every case must agree bit for bit, floats included (values of mixed magnitudes, so the order
// of additions shows).

/// xorshift32: deterministic test data.
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }

    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }

    fn i8(&mut self) -> i8 {
        self.next() as i8
    }

    /// `±(1 + k/8) * 2^e`, `e` in `-12..12`: sums of these round differently in another order.
    fn f32(&mut self) -> f32 {
        let r = self.next();
        let (sign, mantissa, exponent) = (r >> 31, (r >> 8) & 7, 115 + (r & 0xff) % 24);
        f32::from_bits(sign << 31 | exponent << 23 | mantissa << 20)
    }
}

/// Per-channel multipliers in `[2^30, 2^31)` with shifts from -9 to 0.
static REQUANTS: [Requant; 64] = {
    let mut r = [ONE; 64];
    let mut i = 0;
    while i < 64 {
        r[i] = Requant {
            multiplier: (1 << 30) + (i as i32) * 16_777_215,
            shift: -((i % 10) as i32),
        };
        i += 1;
    }
    r
};

/// Conv geometry cases: `(input, filter, stride, dilation, pad, depth multiplier)` with the
/// output sized to reach past the input (windows partly or wholly in the padding).
fn conv_cases(depthwise: bool, mut visit: impl FnMut(ConvGeometry)) {
    let mut rng = Rng(0x2545_f491);
    for case in 0..20 {
        let input_d = [1, 2, 3, 4, 17][case % 5];
        let (filter_d, output_d, depth_multiplier) = if depthwise {
            let m = [1, 1, 2, 3][(case / 5) % 4].min(if input_d > 4 { 1 } else { 3 });
            (input_d * m, input_d * m, m)
        } else {
            let filter_d = if input_d % 2 == 0 && case % 3 == 0 {
                input_d / 2
            } else {
                input_d
            };
            let groups = input_d / filter_d;
            (filter_d, groups * (1 + rng.below(3) as usize), 1)
        };
        let size = if input_d > 4 { 2 } else { 3 };
        let input = [
            if case == 1 { 2 } else { 1 },
            1 + rng.below(size) as usize,
            1 + rng.below(size) as usize,
            input_d,
        ];
        let (fh, fw) = (1 + rng.below(3) as usize, 1 + rng.below(3) as usize);
        let filter = if depthwise {
            [1, fh, fw, filter_d]
        } else {
            [output_d, fh, fw, filter_d]
        };
        let (stride, dilation, pad) = (
            1 + rng.below(2) as usize,
            1 + rng.below(2) as usize,
            rng.below(2) as usize,
        );
        let out = |size: usize, f: usize| {
            (size + 2 * pad).saturating_sub(dilation * (f - 1)) / stride + 1
        };
        visit(ConvGeometry {
            input,
            filter,
            output: [input[0], out(input[1], fh), out(input[2], fw), output_d],
            stride_h: stride,
            stride_w: stride,
            dilation_h: dilation,
            dilation_w: dilation,
            pad_h: pad,
            pad_w: pad,
            depth_multiplier,
        });
    }
}

/// TFLM's `ConvPerChannel` / `Conv` loop nest; `mac(acc, input_index, filter_index)`.
fn reference_conv<A: Copy>(
    g: &ConvGeometry,
    zero: A,
    mut mac: impl FnMut(A, usize, usize) -> A,
    mut out: impl FnMut(usize, A, usize),
) {
    let [batches, ih, iw, id] = g.input;
    let [od, fh, fw, fid] = g.filter;
    let [_, oh, ow, _] = g.output;
    let per_group = od / (id / fid);
    let mut o = 0;
    for b in 0..batches {
        for oy in 0..oh {
            for ox in 0..ow {
                for oc in 0..od {
                    let group = oc / per_group;
                    let mut acc = zero;
                    for ky in 0..fh {
                        let y = (oy * g.stride_h + ky * g.dilation_h) as isize - g.pad_h as isize;
                        for kx in 0..fw {
                            let x =
                                (ox * g.stride_w + kx * g.dilation_w) as isize - g.pad_w as isize;
                            if y < 0 || x < 0 || y >= ih as isize || x >= iw as isize {
                                continue;
                            }
                            for ic in 0..fid {
                                let i = ((b * ih + y as usize) * iw + x as usize) * id
                                    + group * fid
                                    + ic;
                                let f = ((oc * fh + ky) * fw + kx) * fid + ic;
                                acc = mac(acc, i, f);
                            }
                        }
                    }
                    out(o, acc, oc);
                    o += 1;
                }
            }
        }
    }
}

/// TFLM's `DepthwiseConvPerChannel` / `DepthwiseConv` loop nest.
fn reference_depthwise<A: Copy>(
    g: &ConvGeometry,
    zero: A,
    mut mac: impl FnMut(A, usize, usize) -> A,
    mut out: impl FnMut(usize, A, usize),
) {
    let [batches, ih, iw, id] = g.input;
    let [_, fh, fw, od] = g.filter;
    let [_, oh, ow, _] = g.output;
    let mut o = 0;
    for b in 0..batches {
        for oy in 0..oh {
            for ox in 0..ow {
                for ic in 0..id {
                    for m in 0..g.depth_multiplier {
                        let oc = m + ic * g.depth_multiplier;
                        let mut acc = zero;
                        for ky in 0..fh {
                            for kx in 0..fw {
                                let y = (oy * g.stride_h + ky * g.dilation_h) as isize
                                    - g.pad_h as isize;
                                let x = (ox * g.stride_w + kx * g.dilation_w) as isize
                                    - g.pad_w as isize;
                                if y < 0 || x < 0 || y >= ih as isize || x >= iw as isize {
                                    continue;
                                }
                                let i = ((b * ih + y as usize) * iw + x as usize) * id + ic;
                                acc = mac(acc, i, (ky * fw + kx) * od + oc);
                            }
                        }
                        out(o, acc, oc);
                        o += 1;
                    }
                }
            }
        }
    }
}

fn check_conv(depthwise: bool) {
    let mut rng = Rng(7);
    let (mut input, mut filter, mut bias) = ([0_i8; 512], [0_i8; 512], [0_i32; 64]);
    let (mut input_f, mut filter_f, mut bias_f) = ([0_f32; 512], [0_f32; 512], [0_f32; 64]);
    conv_cases(depthwise, |g| {
        let sizes = [
            g.input.iter().product::<usize>(),
            g.filter.iter().product::<usize>(),
            g.output.iter().product::<usize>(),
        ];
        let od = if depthwise { g.filter[3] } else { g.filter[0] };
        assert!(sizes.iter().all(|&n| n <= 512) && od <= 64, "{g:?}");
        input[..sizes[0]].iter_mut().for_each(|x| *x = rng.i8());
        filter[..sizes[1]].iter_mut().for_each(|x| *x = rng.i8());
        bias[..od]
            .iter_mut()
            .for_each(|x| *x = rng.next() as i32 >> 12);
        input_f[..sizes[0]].iter_mut().for_each(|x| *x = rng.f32());
        filter_f[..sizes[1]].iter_mut().for_each(|x| *x = rng.f32());
        bias_f[..od].iter_mut().for_each(|x| *x = rng.f32());
        let p = ConvS8 {
            geometry: g,
            input_offset: rng.below(256) as i32 - 127,
            output_offset: rng.below(256) as i32 - 128,
            requant: &REQUANTS[..od],
            act_min: -128 + rng.below(20) as i32,
            act_max: 127 - rng.below(20) as i32,
        };
        let (input, filter, bias) = (&input[..sizes[0]], &filter[..sizes[1]], &bias[..od]);
        let mut want = [0_i8; 512];
        let mac = |acc: i32, i: usize, f: usize| {
            acc + i32::from(filter[f]) * (i32::from(input[i]) + p.input_offset)
        };
        let out = |o: usize, acc: i32, oc: usize| {
            let acc = p.requant[oc].apply(acc + bias[oc]) + p.output_offset;
            want[o] = acc.clamp(p.act_min, p.act_max) as i8;
        };
        let mut got = [0_i8; 512];
        if depthwise {
            reference_depthwise(&g, 0, mac, out);
            depthwise_conv2d_s8(&p, input, filter, Some(bias), &mut got[..sizes[2]]).unwrap();
        } else {
            reference_conv(&g, 0, mac, out);
            conv2d_s8(&p, input, filter, Some(bias), &mut got[..sizes[2]]).unwrap();
        }
        assert_eq!(got[..sizes[2]], want[..sizes[2]], "{g:?}");

        let p = ConvF32 {
            geometry: g,
            act_min: -1e3,
            act_max: 1e3,
        };
        let (input, filter, bias) = (&input_f[..sizes[0]], &filter_f[..sizes[1]], &bias_f[..od]);
        let mut want = [0_u32; 512];
        let mac = |total: f32, i: usize, f: usize| total + input[i] * filter[f];
        let out = |o: usize, total: f32, oc: usize| {
            want[o] = (total + bias[oc]).clamp(p.act_min, p.act_max).to_bits();
        };
        let mut got = [0_f32; 512];
        if depthwise {
            reference_depthwise(&g, 0.0, mac, out);
            depthwise_conv2d_f32(&p, input, filter, Some(bias), &mut got[..sizes[2]]).unwrap();
        } else {
            reference_conv(&g, 0.0, mac, out);
            conv2d_f32(&p, input, filter, Some(bias), &mut got[..sizes[2]]).unwrap();
        }
        for (got, want) in got[..sizes[2]].iter().zip(&want[..sizes[2]]) {
            assert_eq!(got.to_bits(), *want, "{g:?}");
        }
    });
}

#[test]
fn conv2d_matches_tflm_loops() {
    check_conv(false);
}

#[test]
fn depthwise_conv2d_matches_tflm_loops() {
    check_conv(true);
}

#[test]
fn fully_connected_matches_tflm_loops() {
    let mut rng = Rng(99);
    for case in 0..12 {
        let (batches, depth, outputs) = (1 + case % 3, [0, 1, 7, 8, 33][case % 5], 1 + case % 4);
        let input: [i8; 128] = core::array::from_fn(|_| rng.i8());
        let filter: [i8; 256] = core::array::from_fn(|_| rng.i8());
        let bias: [i32; 4] = core::array::from_fn(|_| rng.next() as i32 >> 14);
        let per_channel = case % 2 == 1;
        let p = FullyConnectedS8 {
            batches,
            accum_depth: depth,
            output_depth: outputs,
            input_offset: rng.below(256) as i32 - 127,
            filter_offset: rng.below(256) as i32 - 127,
            output_offset: rng.below(256) as i32 - 128,
            requant: if per_channel {
                &REQUANTS[5..5 + outputs]
            } else {
                &REQUANTS[3..4]
            },
            act_min: -120,
            act_max: 120,
        };
        let mut got = [0_i8; 12];
        fully_connected_s8(
            &p,
            &input[..batches * depth],
            &filter[..outputs * depth],
            Some(&bias[..outputs]),
            &mut got[..batches * outputs],
        )
        .unwrap();
        let filter_offset = if per_channel { 0 } else { p.filter_offset };
        for b in 0..batches {
            for oc in 0..outputs {
                let mut acc = 0_i32;
                for d in 0..depth {
                    acc += (i32::from(filter[oc * depth + d]) + filter_offset)
                        * (i32::from(input[b * depth + d]) + p.input_offset);
                }
                let r = p.requant[if per_channel { oc } else { 0 }];
                let want = (r.apply(acc + bias[oc]) + p.output_offset).clamp(-120, 120) as i8;
                assert_eq!(got[b * outputs + oc], want, "case {case} b {b} oc {oc}");
            }
        }

        let input: [f32; 128] = core::array::from_fn(|_| rng.f32());
        let filter: [f32; 256] = core::array::from_fn(|_| rng.f32());
        let p = FullyConnectedF32 {
            batches,
            accum_depth: depth,
            output_depth: outputs,
            act_min: f32::MIN,
            act_max: f32::MAX,
        };
        let mut got = [0_f32; 12];
        fully_connected_f32(
            &p,
            &input[..batches * depth],
            &filter[..outputs * depth],
            None,
            &mut got[..batches * outputs],
        )
        .unwrap();
        for b in 0..batches {
            for oc in 0..outputs {
                let mut total = 0.0_f32;
                for d in 0..depth {
                    total += input[b * depth + d] * filter[oc * depth + d];
                }
                assert_eq!(got[b * outputs + oc].to_bits(), total.to_bits());
            }
        }
    }
}

#[test]
fn pools_match_tflm_loops() {
    let mut rng = Rng(3);
    for case in 0..6 {
        let depth = [1, 3, 17][case % 3];
        // Padding less than the window: no window lies wholly in it.
        let (filter, stride) = (1 + case % 3, 1 + case % 2);
        let pad = (case % 2).min(filter - 1);
        let input = [1, 3, 2 + case % 2, depth];
        let out = |size: usize| (size + pad).saturating_sub(filter) / stride + 1;
        let geometry = PoolGeometry {
            input,
            output: [1, out(input[1]), out(input[2]), depth],
            filter_h: filter,
            filter_w: filter,
            stride_h: stride,
            stride_w: stride,
            pad_h: pad,
            pad_w: pad,
        };
        let n_in = input.iter().product::<usize>();
        let n_out = geometry.output.iter().product::<usize>();
        let data: [i8; 160] = core::array::from_fn(|_| rng.i8());
        let data_f: [f32; 160] = core::array::from_fn(|_| rng.f32());
        let p = PoolS8 {
            geometry,
            act_min: -100,
            act_max: 100,
        };
        let pf = PoolF32 {
            geometry,
            act_min: -1e3,
            act_max: 1e3,
        };
        let (mut avg, mut max) = ([0_i8; 160], [0_i8; 160]);
        let (mut avg_f, mut max_f) = ([0_f32; 160], [0_f32; 160]);
        average_pool_s8(&p, &data[..n_in], &mut avg[..n_out]).unwrap();
        max_pool_s8(&p, &data[..n_in], &mut max[..n_out]).unwrap();
        average_pool_f32(&pf, &data_f[..n_in], &mut avg_f[..n_out]).unwrap();
        max_pool_f32(&pf, &data_f[..n_in], &mut max_f[..n_out]).unwrap();
        let mut o = 0;
        for oy in 0..geometry.output[1] {
            for ox in 0..geometry.output[2] {
                for c in 0..depth {
                    let (mut sum, mut count, mut top) = (0_i32, 0_i32, i8::MIN);
                    let (mut total, mut count_f, mut top_f) = (0.0_f32, 0.0_f32, f32::MIN);
                    for ky in 0..filter {
                        for kx in 0..filter {
                            let y = (oy * stride + ky) as isize - pad as isize;
                            let x = (ox * stride + kx) as isize - pad as isize;
                            if y < 0 || x < 0 || y >= input[1] as isize || x >= input[2] as isize {
                                continue;
                            }
                            let i = (y as usize * input[2] + x as usize) * depth + c;
                            sum += i32::from(data[i]);
                            count += 1;
                            top = top.max(data[i]);
                            total += data_f[i];
                            count_f += 1.0;
                            top_f = top_f.max(data_f[i]);
                        }
                    }
                    let rounded = if sum > 0 {
                        (sum + count / 2) / count
                    } else {
                        (sum - count / 2) / count
                    };
                    assert_eq!(avg[o], rounded.clamp(-100, 100) as i8, "case {case}");
                    assert_eq!(max[o], top.clamp(-100, 100));
                    assert_eq!(
                        avg_f[o].to_bits(),
                        (total / count_f).clamp(-1e3, 1e3).to_bits()
                    );
                    assert_eq!(max_f[o].to_bits(), top_f.clamp(-1e3, 1e3).to_bits());
                    o += 1;
                }
            }
        }
    }
}
