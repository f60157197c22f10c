//! The entries of the kernels that read one input slice and write one output slice (the
//! elementwise ops, the row ops such as SOFTMAX, the reductions): from one definition of each
//! kernel, its checked entry (`Result`, nothing written on error), its proven twin in the
//! module's `pub mod proven` (what generated code calls once it has asserted the check when the
//! crate compiled) and, for the elementwise kernels, its check (the two slices equally long).

use super::check::{KernelError, check, length};

/// The check of an elementwise kernel: the output as long as the input.
///
/// # Errors
///
/// [`KernelError::Length`] (the output's) otherwise.
pub(crate) const fn same_length(input: usize, output: usize) -> Result<(), KernelError> {
    length("output", Some(input), output)
}

/// The check of a kernel over `rows` rows of `depth` elements (SOFTMAX, LOG_SOFTMAX,
/// L2_NORMALIZATION): the input and the output `rows * depth` long.
///
/// # Errors
///
/// [`KernelError::Length`] of the first that is not (`expected` `None` when the product
/// overflows).
pub(crate) const fn rows(
    rows: usize,
    depth: usize,
    input: usize,
    output: usize,
) -> Result<(), KernelError> {
    let n = rows.checked_mul(depth);
    check!(length("input", n, input));
    length("output", n, output)
}

/// Each kernel `$name` of a module, given as its body on the slices (`$input`, `$output`, and
/// the parameters `$p` if it has any), and the name of its check (`$check`, a `const fn` taking
/// the parameters if any and the two slices' lengths, written beside it): the public entry
/// (its docs, then `# Errors`; it checks, then runs the proven entry) and, in the module's
/// `pub mod proven`, the proven entry (the check asserted in debug builds, then the body). The
/// proven entries are not inlined into generated code: an op stays one call of a kernel
/// function, as the instruction counter's per-op table takes it.
macro_rules! one_input_kernels {
    ($(
        $(#[$doc:meta])*
        pub fn $name:ident / $check:ident $args:tt $body:block
    )*) => {
        $(
            $crate::kernels::shared::unary::one_input_kernels!(
                @sig entry [$(#[$doc])*] $name $check $args {}
            );
        )*

        /// The entries generated code calls after asserting the kernel's check when the crate
        /// compiled: the public entries without their run-time check (in debug builds it is
        /// asserted).
        pub mod proven {
            #[allow(unused_imports)]
            use super::*;
            $(
                $crate::kernels::shared::unary::one_input_kernels!(
                    @sig proven [] $name $check $args $body
                );
            )*
        }
    };
    // The check of an elementwise kernel (`elementwise_kernels`).
    (@sig check $docs:tt $name:ident $check:ident (
        $p:ident: &$params:ty, $input:ident: &[$ti:ty], $output:ident: &mut [$to:ty] $(,)?
    ) $body:tt) => {
        $crate::kernels::shared::unary::one_input_kernels!(@check $name $check [_: &$params,]);
    };
    (@sig check $docs:tt $name:ident $check:ident (
        $input:ident: &[$ti:ty], $output:ident: &mut [$to:ty] $(,)?
    ) $body:tt) => {
        $crate::kernels::shared::unary::one_input_kernels!(@check $name $check []);
    };
    // The signature with parameters or without: `[declaration] [argument]` of the parameters.
    (@sig $what:ident $docs:tt $name:ident $check:ident (
        $p:ident: &$params:ty, $input:ident: &[$ti:ty], $output:ident: &mut [$to:ty] $(,)?
    ) $body:tt) => {
        $crate::kernels::shared::unary::one_input_kernels!(
            @$what $docs $name $check [$p: &$params,] [$p,] $input $ti, $output $to, $body
        );
    };
    (@sig $what:ident $docs:tt $name:ident $check:ident (
        $input:ident: &[$ti:ty], $output:ident: &mut [$to:ty] $(,)?
    ) $body:tt) => {
        $crate::kernels::shared::unary::one_input_kernels!(
            @$what $docs $name $check [] [] $input $ti, $output $to, $body
        );
    };
    (@entry [$(#[$doc:meta])*] $name:ident $check:ident [$($decl:tt)*] [$($arg:tt)*]
        $input:ident $ti:ty, $output:ident $to:ty, $body:tt) => {
        $(#[$doc])*
        ///
        /// # Errors
        ///
        #[doc = concat!(
            "[`KernelError`](crate::kernels::KernelError), with nothing written, unless [`",
            stringify!($check),
            "`] holds for the slices' lengths."
        )]
        #[must_use = "the kernel writes nothing when it returns an error"]
        pub fn $name(
            $($decl)* $input: &[$ti], $output: &mut [$to]
        ) -> ::core::result::Result<(), $crate::kernels::KernelError> {
            $check($($arg)* $input.len(), $output.len())?;
            proven::$name($($arg)* $input, $output);
            Ok(())
        }
    };
    (@proven [] $name:ident $check:ident [$($decl:tt)*] [$($arg:tt)*]
        $input:ident $ti:ty, $output:ident $to:ty, $body:block) => {
        #[doc = concat!(
            "[`", stringify!($name), "`](super::", stringify!($name),
            "), its [check](super::", stringify!($check), ") proven."
        )]
        pub fn $name($($decl)* $input: &[$ti], $output: &mut [$to]) {
            debug_assert!(super::$check($($arg)* $input.len(), $output.len()).is_ok());
            $body
        }
    };
    (@check $name:ident $check:ident [$($decl:tt)*]) => {
        #[doc = concat!(
            "[`", stringify!($name), "`]'s preconditions, on the lengths of its slices: the ",
            "output as long as the input (what the entry checks before it runs, and what ",
            "generated code asserts when the crate compiles)."
        )]
        ///
        /// # Errors
        ///
        /// [`KernelError::Length`](crate::kernels::KernelError::Length) of the output otherwise.
        pub const fn $check(
            $($decl)* input: usize, output: usize
        ) -> ::core::result::Result<(), $crate::kernels::KernelError> {
            $crate::kernels::shared::unary::same_length(input, output)
        }
    };
}
pub(crate) use one_input_kernels;

/// [`one_input_kernels`] for elementwise kernels (output element `k` from input element `k`),
/// with each one's check too: `$check(params if any, input, output)`, the two lengths equal.
macro_rules! elementwise_kernels {
    ($(
        $(#[$doc:meta])*
        pub fn $name:ident / $check:ident $args:tt $body:block
    )*) => {
        $(
            $crate::kernels::shared::unary::one_input_kernels!(
                @sig check [] $name $check $args {}
            );
        )*
        $crate::kernels::shared::unary::one_input_kernels! {$(
            $(#[$doc])*
            pub fn $name / $check $args $body
        )*}
    };
}
pub(crate) use elementwise_kernels;

#[cfg(test)]
mod tests {
    use crate::kernels::*;

    const R: Requant = Requant {
        multiplier: 1 << 30,
        shift: 0,
    };

    /// `$call` on slices `i` (of `$x`) and `o` (of `$fill`): with `$n_in` and `$n_out`
    /// elements it runs; one element fewer or more in either slice, it returns a length error
    /// and leaves the output as it was.
    macro_rules! refuses_lengths {
        ($name:literal, $n_in:expr, $n_out:expr, $x:expr, $fill:expr, |$i:ident, $o:ident| $call:expr) => {{
            let (n_in, n_out): (usize, usize) = ($n_in, $n_out);
            let input = [$x; 16];
            let run = |ni: usize, no: usize| {
                let mut out = [$fill; 16];
                let r = {
                    let $i = &input[..ni];
                    let $o = &mut out[..no];
                    $call
                };
                (r, out)
            };
            assert_eq!(run(n_in, n_out).0, Ok(()), "{}", $name);
            for (ni, no) in [
                (n_in, n_out + 1),
                (n_in + 1, n_out),
                (n_in, n_out.wrapping_sub(1)),
                (n_in.wrapping_sub(1), n_out),
            ] {
                if ni > 16 || no > 16 {
                    continue;
                }
                let (r, out) = run(ni, no);
                assert!(
                    matches!(r, Err(KernelError::Length { .. })),
                    "{} with {ni} and {no}: {r:?}",
                    $name
                );
                assert!(out == [$fill; 16], "{} with {ni} and {no} wrote", $name);
            }
        }};
    }

    #[test]
    fn elementwise_kernels_refuse_unequal_lengths() {
        static ELU: [i8; 256] = [3; 256];
        let relu = ReluS8 {
            input_offset: 0,
            output_offset: 0,
            requant: R,
            act_min: -128,
            act_max: 127,
        };
        let relu16 = ReluS16 {
            input_offset: 0,
            output_offset: 0,
            requant: R,
            act_min: -32768,
            act_max: 32767,
        };
        let six = Relu6S8 { zero: 0, six: 60 };
        let six16 = Relu6S16 { zero: 0, six: 600 };
        let sig = LogisticS8 {
            input_zero_point: 0,
            input_range_radius: 100,
            input_multiplier: 1 << 30,
            input_left_shift: 20,
        };
        let sig16 = LogisticS16 {
            input_multiplier: 0,
            input_left_shift: 0,
        };
        let tanh8 = TanhS8 {
            input_zero_point: 0,
            input_range_radius: 100,
            input_multiplier: 1 << 30,
            input_left_shift: 20,
        };
        let tanh16 = TanhS16 {
            input_multiplier: 0,
            input_left_shift: 0,
        };
        let hs = HardSwishS8 {
            input_zero_point: 0,
            output_zero_point: 0,
            reluish_multiplier_fixedpoint_int16: 1 << 14,
            reluish_multiplier_exponent: 0,
            output_multiplier_fixedpoint_int16: 1 << 14,
            output_multiplier_exponent: 0,
        };
        let lr = LeakyReluQuantized {
            input_zero_point: 0,
            output_zero_point: 0,
            alpha: R,
            identity: R,
        };
        let lrf = LeakyReluF32 { alpha: 0.5 };
        let elu = EluS8 { table: &ELU };
        let q8 = QuantizeF32S8 {
            scale: 0.5,
            zero_point: 0,
        };
        let q16 = QuantizeF32S16 {
            scale: 0.5,
            zero_point: 0,
        };
        let rq = Requantize {
            input_offset: 0,
            output_offset: 0,
            requant: R,
        };
        let dq8 = DequantizeS8F32 {
            scale: 0.5,
            zero_point: 0,
        };
        let dq = Dequantize {
            scale: 0.5,
            zero_point: 0,
        };
        let abs = AbsQuantized {
            input_offset: 0,
            output_offset: 0,
            needs_rescale: false,
            requant: R,
        };
        let rsqrt = RsqrtS8 {
            input_offset: 0,
            output_offset: 0,
            requant: R,
        };
        let n = 4;
        refuses_lengths!("relu_s8", n, n, 5_i8, 9_i8, |i, o| relu_s8(&relu, i, o));
        refuses_lengths!("relu6_s8", n, n, 5_i8, 9_i8, |i, o| relu6_s8(&six, i, o));
        refuses_lengths!("relu_s16", n, n, 5_i16, 9_i16, |i, o| relu_s16(
            &relu16, i, o
        ));
        refuses_lengths!("relu6_s16", n, n, 5_i16, 9_i16, |i, o| relu6_s16(
            &six16, i, o
        ));
        refuses_lengths!("relu_f32", n, n, 5.0_f32, 9.0_f32, |i, o| relu_f32(i, o));
        refuses_lengths!("relu6_f32", n, n, 5.0_f32, 9.0_f32, |i, o| relu6_f32(i, o));
        refuses_lengths!("logistic_s8", n, n, 5_i8, 9_i8, |i, o| logistic_s8(
            &sig, i, o
        ));
        refuses_lengths!("logistic_s16", n, n, 5_i16, 9_i16, |i, o| logistic_s16(
            &sig16, i, o
        ));
        refuses_lengths!("logistic_f32", n, n, 5.0_f32, 9.0_f32, |i, o| logistic_f32(
            i, o
        ));
        refuses_lengths!("tanh_s8", n, n, 5_i8, 9_i8, |i, o| tanh_s8(&tanh8, i, o));
        refuses_lengths!("tanh_s16", n, n, 5_i16, 9_i16, |i, o| tanh_s16(
            &tanh16, i, o
        ));
        refuses_lengths!("tanh_f32", n, n, 5.0_f32, 9.0_f32, |i, o| tanh_f32(i, o));
        refuses_lengths!("hard_swish_s8", n, n, 5_i8, 9_i8, |i, o| hard_swish_s8(
            &hs, i, o
        ));
        refuses_lengths!("hard_swish_f32", n, n, 5.0_f32, 9.0_f32, |i, o| {
            hard_swish_f32(i, o)
        });
        refuses_lengths!("leaky_relu_s8", n, n, 5_i8, 9_i8, |i, o| leaky_relu_s8(
            &lr, i, o
        ));
        refuses_lengths!("leaky_relu_s16", n, n, 5_i16, 9_i16, |i, o| leaky_relu_s16(
            &lr, i, o
        ));
        refuses_lengths!("leaky_relu_f32", n, n, 5.0_f32, 9.0_f32, |i, o| {
            leaky_relu_f32(&lrf, i, o)
        });
        refuses_lengths!("elu_s8", n, n, 5_i8, 9_i8, |i, o| elu_s8(&elu, i, o));
        refuses_lengths!("elu_f32", n, n, 5.0_f32, 9.0_f32, |i, o| elu_f32(i, o));
        refuses_lengths!("quantize_f32_s8", n, n, 5.0_f32, 9_i8, |i, o| {
            quantize_f32_s8(&q8, i, o)
        });
        refuses_lengths!("quantize_f32_s16", n, n, 5.0_f32, 9_i16, |i, o| {
            quantize_f32_s16(&q16, i, o)
        });
        refuses_lengths!("requantize_s8", n, n, 5_i8, 9_i8, |i, o| requantize_s8(
            &rq, i, o
        ));
        refuses_lengths!("requantize_s8_u8", n, n, 5_i8, 9_u8, |i, o| {
            requantize_s8_u8(&rq, i, o)
        });
        refuses_lengths!("requantize_u8_s8", n, n, 5_u8, 9_i8, |i, o| {
            requantize_u8_s8(&rq, i, o)
        });
        refuses_lengths!("requantize_s8_s16", n, n, 5_i8, 9_i16, |i, o| {
            requantize_s8_s16(&rq, i, o)
        });
        refuses_lengths!("requantize_s8_s32", n, n, 5_i8, 9_i32, |i, o| {
            requantize_s8_s32(&rq, i, o)
        });
        refuses_lengths!("requantize_s16_s8", n, n, 5_i16, 9_i8, |i, o| {
            requantize_s16_s8(&rq, i, o)
        });
        refuses_lengths!("requantize_s16", n, n, 5_i16, 9_i16, |i, o| requantize_s16(
            &rq, i, o
        ));
        refuses_lengths!("requantize_s16_s32", n, n, 5_i16, 9_i32, |i, o| {
            requantize_s16_s32(&rq, i, o)
        });
        refuses_lengths!("requantize_s32_s8", n, n, 5_i32, 9_i8, |i, o| {
            requantize_s32_s8(&rq, i, o)
        });
        refuses_lengths!("requantize_s32_s16", n, n, 5_i32, 9_i16, |i, o| {
            requantize_s32_s16(&rq, i, o)
        });
        refuses_lengths!("dequantize_s8_f32", n, n, 5_i8, 9.0_f32, |i, o| {
            dequantize_s8_f32(&dq8, i, o)
        });
        refuses_lengths!("dequantize_s16_f32", n, n, 5_i16, 9.0_f32, |i, o| {
            dequantize_s16_f32(&dq, i, o)
        });
        refuses_lengths!("dequantize_u8_f32", n, n, 5_u8, 9.0_f32, |i, o| {
            dequantize_u8_f32(&dq, i, o)
        });
        refuses_lengths!("dequantize_f16_f32", n, n, 5_u16, 9.0_f32, |i, o| {
            dequantize_f16_f32(i, o)
        });
        refuses_lengths!("ceil_f32", n, n, 5.5_f32, 9.0_f32, |i, o| ceil_f32(i, o));
        refuses_lengths!("floor_f32", n, n, 5.5_f32, 9.0_f32, |i, o| floor_f32(i, o));
        refuses_lengths!("round_f32", n, n, 5.5_f32, 9.0_f32, |i, o| round_f32(i, o));
        refuses_lengths!("neg_f32", n, n, 5.5_f32, 9.0_f32, |i, o| neg_f32(i, o));
        refuses_lengths!("exp_f32", n, n, 5.5_f32, 9.0_f32, |i, o| exp_f32(i, o));
        refuses_lengths!("abs_f32", n, n, 5.5_f32, 9.0_f32, |i, o| abs_f32(i, o));
        refuses_lengths!("sin_f32", n, n, 5.5_f32, 9.0_f32, |i, o| sin_f32(i, o));
        refuses_lengths!("cos_f32", n, n, 5.5_f32, 9.0_f32, |i, o| cos_f32(i, o));
        refuses_lengths!("log_f32", n, n, 5.5_f32, 9.0_f32, |i, o| log_f32(i, o));
        refuses_lengths!("sqrt_f32", n, n, 5.5_f32, 9.0_f32, |i, o| sqrt_f32(i, o));
        refuses_lengths!("rsqrt_f32", n, n, 5.5_f32, 9.0_f32, |i, o| rsqrt_f32(i, o));
        refuses_lengths!("square_f32", n, n, 5.5_f32, 9.0_f32, |i, o| square_f32(
            i, o
        ));
        refuses_lengths!("abs_s8", n, n, 5_i8, 9_i8, |i, o| abs_s8(&abs, i, o));
        refuses_lengths!("abs_s16", n, n, 5_i16, 9_i16, |i, o| abs_s16(&abs, i, o));
        refuses_lengths!("abs_s16_plain", n, n, 5_i16, 9_i16, |i, o| abs_s16_plain(
            i, o
        ));
        refuses_lengths!("rsqrt_s8", n, n, 5_i8, 9_i8, |i, o| rsqrt_s8(&rsqrt, i, o));
        refuses_lengths!("cast", n, n, 5_i8, 9.0_f32, |i, o| cast(i, o));
    }

    #[test]
    fn row_kernels_refuse_lengths_other_than_rows_times_depth() {
        static LUT: [i16; 513] = [0; 513];
        let s8 = SoftmaxS8 {
            rows: 2,
            depth: 3,
            input_multiplier: 1 << 30,
            input_left_shift: 20,
            diff_min: -100,
        };
        let s16 = SoftmaxS16 {
            rows: 2,
            depth: 3,
            input_multiplier: 1 << 30,
            input_left_shift: 1,
            exp_lut: &LUT,
            one_over_one_plus_x_lut: &LUT,
        };
        let f = SoftmaxF32 {
            rows: 2,
            depth: 3,
            beta: 1.0,
        };
        let ls8 = LogSoftmaxS8 {
            rows: 2,
            depth: 3,
            input_multiplier: 1 << 30,
            input_left_shift: 20,
            reverse_scaling_divisor: 1 << 30,
            reverse_scaling_right_shift: 1,
            diff_min: -100,
        };
        let lsf = LogSoftmaxF32 { rows: 2, depth: 3 };
        let l2 = L2Norm {
            rows: 2,
            depth: 3,
            input_zero_point: 0,
        };
        let n = 6;
        refuses_lengths!("softmax_s8", n, n, 5_i8, 9_i8, |i, o| softmax_s8(&s8, i, o));
        refuses_lengths!("softmax_s8_s16", n, n, 5_i8, 9_i16, |i, o| softmax_s8_s16(
            &s8, i, o
        ));
        refuses_lengths!("softmax_s16", n, n, 5_i16, 9_i16, |i, o| softmax_s16(
            &s16, i, o
        ));
        refuses_lengths!("softmax_f32", n, n, 5.0_f32, 9.0_f32, |i, o| softmax_f32(
            &f, i, o
        ));
        refuses_lengths!("log_softmax_s8", n, n, 5_i8, 9_i8, |i, o| log_softmax_s8(
            &ls8, i, o
        ));
        refuses_lengths!("log_softmax_f32", n, n, 5.0_f32, 9.0_f32, |i, o| {
            log_softmax_f32(&lsf, i, o)
        });
        refuses_lengths!("l2norm_s8", n, n, 5_i8, 9_i8, |i, o| l2norm_s8(&l2, i, o));
        refuses_lengths!("l2norm_f32", n, n, 5.0_f32, 9.0_f32, |i, o| l2norm_f32(
            &l2, i, o
        ));
        // A table not of 513 entries.
        let short = SoftmaxS16 {
            exp_lut: &LUT[..512],
            ..s16
        };
        let mut out = [9_i16; 6];
        let r = softmax_s16(&short, &[5; 6], &mut out);
        assert!(matches!(
            r,
            Err(KernelError::Length {
                operand: "exp_lut",
                ..
            })
        ));
        assert_eq!(out, [9; 6]);
        // Sizes that overflow.
        let huge = SoftmaxF32 {
            rows: usize::MAX,
            ..f
        };
        let mut out = [9.0_f32; 6];
        let r = softmax_f32(&huge, &[5.0; 6], &mut out);
        assert!(matches!(r, Err(KernelError::Length { expected: None, .. })));
        assert_eq!(out, [9.0; 6]);
    }

    #[test]
    fn reductions_refuse_lengths_other_than_their_shapes() {
        // [2, 3] reduced over its last dimension: 6 in, 2 out.
        let r = Reduce {
            input: [1, 1, 1, 1, 2, 3],
            axes: [false, false, false, false, false, true],
        };
        let sq = SumQuantized {
            input: r.input,
            axes: r.axes,
            input_zero_point: 0,
            output_zero_point: 0,
            input_scale: 1.0,
            output_scale: 1.0,
            requant: R,
        };
        let m8 = MeanS8 {
            input: [1, 1, 2, 3],
            axes: [false, false, false, true],
            input_zero_point: 0,
            output_zero_point: 0,
            input_scale: 1.0,
            output_scale: 1.0,
            requant: R,
        };
        let m16 = MeanS16 {
            input: m8.input,
            axes: m8.axes,
            input_zero_point: 0,
            output_zero_point: 0,
            input_scale: 1.0,
            output_scale: 1.0,
            requant: R,
        };
        let mf = MeanF32 {
            input: m8.input,
            axes: m8.axes,
        };
        let am = ArgMinMax {
            outer: 2,
            axis: 3,
            inner: 1,
        };
        let cs = Cumsum {
            inner: 2,
            depth: 3,
            outer: 1,
            exclusive: false,
            reverse: false,
        };
        let cs8 = CumsumS8 {
            shape: cs,
            input_offset: 0,
            output_offset: 0,
            left_shift: 20,
            input_requant: R,
            output_requant: R,
            act_min: -128,
            act_max: 127,
        };
        refuses_lengths!("mean_s8", 6, 2, 5_i8, 9_i8, |i, o| mean_s8(&m8, i, o));
        refuses_lengths!("mean_s16", 6, 2, 5_i16, 9_i16, |i, o| mean_s16(&m16, i, o));
        refuses_lengths!("mean_f32", 6, 2, 5.0_f32, 9.0_f32, |i, o| mean_f32(
            &mf, i, o
        ));
        refuses_lengths!("reduce_max_f32", 6, 2, 5.0_f32, 9.0_f32, |i, o| {
            reduce_max_f32(&r, i, o)
        });
        refuses_lengths!("reduce_min_f32", 6, 2, 5.0_f32, 9.0_f32, |i, o| {
            reduce_min_f32(&r, i, o)
        });
        refuses_lengths!("reduce_max_s8", 6, 2, 5_i8, 9_i8, |i, o| reduce_max_s8(
            &r, i, o
        ));
        refuses_lengths!("reduce_min_s8", 6, 2, 5_i8, 9_i8, |i, o| reduce_min_s8(
            &r, i, o
        ));
        refuses_lengths!("reduce_all", 6, 2, 1_u8, 9_u8, |i, o| reduce_all(&r, i, o));
        refuses_lengths!("sum_f32", 6, 2, 5.0_f32, 9.0_f32, |i, o| sum_f32(&r, i, o));
        refuses_lengths!("sum_s8", 6, 2, 5_i8, 9_i8, |i, o| sum_s8(&sq, i, o));
        refuses_lengths!("sum_s16", 6, 2, 5_i16, 9_i16, |i, o| sum_s16(&sq, i, o));
        refuses_lengths!("arg_max", 6, 2, 5_i8, 9_i32, |i, o| arg_max(&am, i, o));
        refuses_lengths!("arg_min", 6, 2, 5.0_f32, 9_i32, |i, o| arg_min(&am, i, o));
        refuses_lengths!("cumsum_f32", 6, 6, 5.0_f32, 9.0_f32, |i, o| cumsum_f32(
            &cs, i, o
        ));
        refuses_lengths!("cumsum_s8", 6, 6, 5_i8, 9_i8, |i, o| cumsum_s8(&cs8, i, o));

        // The parameters' other preconditions: an empty axis with outputs to index it, a
        // MEAN whose strides or shift overflow.
        let empty = ArgMinMax {
            outer: 1,
            axis: 0,
            inner: 1,
        };
        let mut out = [9_i32; 1];
        assert!(matches!(
            arg_max::<i8>(&empty, &[], &mut out),
            Err(KernelError::Parameters(_))
        ));
        assert_eq!(out, [9]);
        let strides = MeanF32 {
            input: [0, usize::MAX, 2, 1],
            axes: [true; 4],
        };
        let mut out = [9.0_f32; 1];
        assert!(matches!(
            mean_f32(&strides, &[], &mut out),
            Err(KernelError::Parameters(_))
        ));
        assert_eq!(out, [9.0]);
        let shift = MeanS8 {
            requant: Requant {
                multiplier: 1 << 30,
                shift: i32::MAX,
            },
            ..m8
        };
        let mut out = [9_i8; 2];
        assert!(matches!(
            mean_s8(&shift, &[5; 6], &mut out),
            Err(KernelError::Parameters(_))
        ));
        assert_eq!(out, [9; 2]);
    }

    #[test]
    fn fill_refuses_a_value_not_of_one_element() {
        let mut out = [9_i8; 3];
        assert!(fill(&[1, 2], &mut out).is_err());
        assert!(fill::<i8>(&[], &mut out).is_err());
        assert_eq!(out, [9; 3]);
        assert_eq!(fill(&[4], &mut out), Ok(()));
        assert_eq!(out, [4; 3]);
    }

    #[test]
    fn one_buffer_entries_refuse_a_short_buffer() {
        let relu = ReluS8 {
            input_offset: 0,
            output_offset: 0,
            requant: R,
            act_min: -128,
            act_max: 127,
        };
        let mut buf = [9_i8; 4];
        for (ia, oa) in [(0, 0), (1, 0), (0, 1)] {
            assert_eq!(
                overlap::relu_s8(&relu, &mut buf, ia, oa, 4 - ia.max(oa) + 1),
                Err(KernelError::Placement)
            );
        }
        assert_eq!(
            overlap::relu_f32(&(), &mut [9.0; 4], 0, 0, 5),
            Err(KernelError::Placement)
        );
        let rq = Requantize {
            input_offset: 0,
            output_offset: 0,
            requant: R,
        };
        // int16 to int8 on bytes: 3 elements need 6 bytes of input.
        assert_eq!(
            overlap::requantize_s16_s8(&rq, &mut buf, 0, 0, 3),
            Err(KernelError::Placement)
        );
        assert_eq!(buf, [9; 4]);
        assert_eq!(overlap::requantize_s16_s8(&rq, &mut buf, 0, 0, 2), Ok(()));
    }
}
