//! LOG_SOFTMAX: TFLM's `log_softmax.cc` (`CalculateOpData`), for the kernels
//! `stowplan::kernels::{log_softmax_s8, log_softmax_f32}`.

use quote::quote;

use super::unary::{one_input_one_output, same_shape, with_params};
use super::{Call, Lower, OpKind, Refusal, i32_lit, invalid, kernel, unsupported};
use crate::quant;
use crate::tflite::DType;

/// LOG_SOFTMAX.
pub const LOG_SOFTMAX: OpKind = kernel("log_softmax", lower);

/// TFLM's `kScaledDiffIntegerBits`.
const SCALED_DIFF_INTEGER_BITS: i32 = 5;

fn lower(cx: &Lower<'_>) -> Result<Call, Refusal> {
    one_input_one_output(cx)?;
    let (input, out) = same_shape(cx)?;
    let shape = cx.shape(input)?;
    let Some(&depth) = shape.last() else {
        return invalid(format!(
            "{} is a scalar; LOG_SOFTMAX needs a dimension",
            input.desc()
        ));
    };
    let rows = cx.elements(input)?.checked_div(depth).unwrap_or(0);
    match input.dtype {
        DType::Int8 => {
            // log_softmax.cc: the output is quantised (16/256, 127).
            let (so, zo) = cx.quant(out)?;
            if so != 16.0 / 256.0 || zo != 127 {
                return invalid(format!(
                    "{} is quantised ({so}, {zo}); an int8 LOG_SOFTMAX output must be (16/256, 127)",
                    out.desc()
                ));
            }
            let (si, _) = cx.quant(input)?;
            let Some((m, ls, rd, rs)) = quant::preprocess_log_softmax_scaling_exp(
                1.0,
                f64::from(si),
                SCALED_DIFF_INTEGER_BITS,
            ) else {
                return invalid(format!(
                    "{} has scale {si}: TFLM's PreprocessLogSoftmaxScalingExp aborts for it",
                    input.desc()
                ));
            };
            let diff_min =
                quant::calculate_input_radius(SCALED_DIFF_INTEGER_BITS, ls, 31).wrapping_neg();
            let (m, ls, rd, rrs, dm) = (
                i32_lit(m),
                i32_lit(ls),
                i32_lit(rd),
                i32_lit(rs.wrapping_neg()),
                i32_lit(diff_min),
            );
            Ok(with_params(
                cx,
                quote!(LogSoftmaxS8),
                quote!(
                    rows: #rows, depth: #depth, input_multiplier: #m, input_left_shift: #ls,
                    reverse_scaling_divisor: #rd, reverse_scaling_right_shift: #rrs, diff_min: #dm,
                ),
                quote!(log_softmax_s8),
            ))
        }
        DType::Float32 => Ok(with_params(
            cx,
            quote!(LogSoftmaxF32),
            quote!(rows: #rows, depth: #depth),
            quote!(log_softmax_f32),
        )),
        other => unsupported(format!("the runtime has no LOG_SOFTMAX kernel for {other}")),
    }
}

#[cfg(test)]
mod tests {
    use crate::quant;

    #[test]
    fn scaling_and_its_reverse() {
        // Input scale 1/16: 2^26 / 16 = 2^22 = 0.5 * 2^23.
        let (m, s, d, ds) = quant::preprocess_log_softmax_scaling_exp(1.0, 1.0 / 16.0, 5)
            .unwrap_or_else(|| unreachable!());
        assert_eq!((m, s), (1 << 30, 23));
        // (1 << 8) / 2^30 = 2^-22 = 0.5 * 2^-21.
        assert_eq!((d, ds), (1 << 30, -21));
        // A scale too small: TFLM aborts.
        assert!(quant::preprocess_log_softmax_scaling_exp(1.0, 1e-9, 5).is_none());
    }
}
