//! LOGISTIC: TFLM's `reference_integer_ops::Logistic` (int8 and int16) and
//! `reference_ops::Logistic` (float).

pub(crate) mod in_place;

use stowplan_math::expf;

use super::shared::fixed;
use super::shared::unary::elementwise_kernels;

/// Parameters of an int8 LOGISTIC (TFLM's `OpDataLogistic`; the output's zero point is -128
/// and its scale 1/256).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogisticS8 {
    /// The input zero point.
    pub input_zero_point: i32,
    /// Inputs this far from the zero point or further saturate.
    pub input_range_radius: i32,
    /// Multiplier to Q4.27.
    pub input_multiplier: i32,
    /// Its shift.
    pub input_left_shift: i32,
}

elementwise_kernels! {
    /// int8 LOGISTIC: TFLM's `reference_integer_ops::Logistic`: inputs at or beyond the radius
    /// saturate to -128 / 127; the others are scaled to Q4.27
    /// (`MultiplyByQuantizedMultiplier`), passed through gemmlowp's `logistic` and rounded to
    /// 8 fractional bits, minus 128, saturated.
    pub fn logistic_s8 / check_logistic_s8(p: &LogisticS8, input: &[i8], output: &mut [i8]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = logistic_s8_one(p, x);
        }
    }

    /// float LOGISTIC: TFLM's `reference_ops::Logistic` (float): 1 above 16.619047, `exp(x)` below
    /// -9, else `1 / (1 + exp(-x))`, with `expf` (see `softmax_f32`).
    pub fn logistic_f32 / check_logistic_f32(input: &[f32], output: &mut [f32]) {
        const CUTOFF_UPPER: f32 = 16.619_047;
        const CUTOFF_LOWER: f32 = -9.0;
        for (o, &x) in output.iter_mut().zip(input) {
            *o = if x > CUTOFF_UPPER {
                1.0
            } else if x < CUTOFF_LOWER {
                expf(x)
            } else {
                1.0 / (1.0 + expf(-x))
            };
        }
    }

    /// int16 LOGISTIC: TFLM's `reference_integer_ops::Logistic` for int16: the input scaled to
    /// 1/(3 * 4096) steps (`(x * multiplier + round) >> shift`), then the sigmoid table interpolated over 9
    /// fractional bits on the absolute value (saturating from 255 * 512 on), mirrored for
    /// negative inputs, in `uint32` arithmetic, and shifted to Q0.15.
    pub fn logistic_s16 / check_logistic_s16(p: &LogisticS16, input: &[i16], output: &mut [i16]) {
        for (o, &x) in output.iter_mut().zip(input) {
            *o = sigmoid_s16_scaled(scale_s16_input(x, p.input_multiplier, p.input_left_shift));
        }
    }
}

/// One element of [`logistic_s8`].
#[inline(always)]
pub(super) fn logistic_s8_one(p: &LogisticS8, x: i8) -> i8 {
    let value = i32::from(x).wrapping_sub(p.input_zero_point);
    if value <= p.input_range_radius.wrapping_neg() {
        i8::MIN
    } else if value >= p.input_range_radius {
        i8::MAX
    } else {
        let input_in_q4 =
            fixed::multiply_by_quantized_multiplier(value, p.input_multiplier, p.input_left_shift);
        let output_in_q0 = fixed::logistic::<4>(input_in_q4);
        let output_in_q23 = fixed::rounding_divide_by_pot(output_in_q0, 31 - 8);
        output_in_q23
            .wrapping_add(-128)
            .clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8
    }
}

/// TFLM's `sigmoid_table_uint16` (`internal/common.h`): `sigmoid(i / 24)` in Q0.16 for `i` in
/// `0..256`, shared by the int16 LOGISTIC and TANH.
pub(super) const SIGMOID_TABLE_UINT16: [u16; 256] = [
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794,
    41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443,
    48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169, 53581, 53983, 54374,
    54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544,
    58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279,
    61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990,
    63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030,
    64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652,
    64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019,
    65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234,
    65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
    65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476,
    65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498, 65500, 65501,
    65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516,
    65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529,
    65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532,
    65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65534, 65534,
    65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535,
];

/// Parameters of an int16 LOGISTIC (TFLM's `OpDataLogistic` for int16; zero points 0, the
/// output scale 2^-15).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogisticS16 {
    /// 0 for a power-of-two input scale 2^-12 (the kernel then uses 3); otherwise the input
    /// scale times `3 * 4096`, doubled until above 16383.5, truncated.
    pub input_multiplier: i32,
    /// The doublings (or 0).
    pub input_left_shift: i32,
}

/// `(x * multiplier + round) >> shift` with `round = 2^(shift - 1)` (0 for no shift), the
/// input scaling of TFLM's int16 LOGISTIC and TANH, in int32 arithmetic as the x86-64 build
/// does it (the product wraps, shifts are taken modulo 32). A zero multiplier is the
/// power-of-two case: `3 << shift` with no shift.
#[inline(always)]
pub(super) fn scale_s16_input(x: i16, multiplier: i32, shift: i32) -> i32 {
    let (multiplier, shift) = if multiplier == 0 {
        (3_i32.wrapping_shl(shift as u32), 0)
    } else {
        (multiplier, shift)
    };
    let round = if shift > 0 {
        1_i32.wrapping_shl((shift - 1) as u32)
    } else {
        0
    };
    i32::from(x)
        .wrapping_mul(multiplier)
        .wrapping_add(round)
        .wrapping_shr(shift as u32)
}

/// The table entries `sigmoid_table_uint16[i]` and `[i + 1]` for `i < 255`.
#[inline(always)]
pub(super) fn sigmoid_pair(i: u32) -> (u32, u32) {
    let i = i as usize;
    let at = |k: usize| u32::from(SIGMOID_TABLE_UINT16.get(k).copied().unwrap_or(u16::MAX));
    (at(i), at(i + 1))
}

/// The int16 sigmoid of an input already scaled to 1/(3 * 4096) steps
/// ([`scale_s16_input`]): the table interpolated over 9 fractional bits of the absolute value
/// (saturating from 255 * 512 on), mirrored for negative inputs, in `uint32` arithmetic, shifted
/// to Q0.15 (the C++ assigns the `uint32_t` to an `int16_t`: modulo 2^16). Shared by LOGISTIC
/// and the LSTM's gates.
#[inline(always)]
pub(super) fn sigmoid_s16_scaled(input_data: i32) -> i16 {
    let abs_input_data = input_data.unsigned_abs();
    let uh = abs_input_data >> 9;
    let result: u32 = if uh >= 255 {
        0x7fff << 10
    } else {
        let (ua, ub) = sigmoid_pair(uh);
        let ut = abs_input_data & 0x1ff;
        (ua << 9).wrapping_add(ut.wrapping_mul(ub.wrapping_sub(ua)))
    };
    let result = if input_data >= 0 {
        result.wrapping_add(1 << 9)
    } else {
        (1_u32 << (16 + 9))
            .wrapping_sub(result)
            .wrapping_add(1 << 9)
            .wrapping_sub(1)
    };
    (result >> 10) as i16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logistic_s16_is_one_half_at_zero_and_saturates() {
        // Scale 2^-12 (the power-of-two case).
        let p = LogisticS16 {
            input_multiplier: 0,
            input_left_shift: 0,
        };
        let mut out = [0_i16; 3];
        logistic_s16(&p, &[0, i16::MAX, i16::MIN], &mut out).unwrap();
        // 0.5 in Q0.15 is 16384.
        assert_eq!(out[0], 16384);
        assert!(out[1] > 32700);
        assert!(out[2] < 70);
        // A wild multiplier and shift do not panic.
        let p = LogisticS16 {
            input_multiplier: i32::MAX,
            input_left_shift: 40,
        };
        logistic_s16(&p, &[i16::MIN, -1, 1, i16::MAX], &mut [0; 4]).unwrap();
    }
}
