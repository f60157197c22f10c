//! The kernel chosen at build time ([`super::kernel`]) against the run-time choice.

extern crate std;
use std::vec;

use crate::kernels::check_depthwise_conv2d_s8_with;
use crate::kernels::depthwise_conv::dsp::depthwise_s8;
use crate::kernels::depthwise_conv::kernel::*;
use crate::kernels::shared::check::KernelError;
use crate::kernels::shared::testing::{Rng, driver_chunks, padded, params, with_kernel_constant};
use crate::kernels::shared::{ConvS8, Part};

/// The DSP DEPTHWISE_CONV_2D of kernel constant `k` on `part`, as generated code calls it with
/// `k` a constant: every kernel with each epilogue form, and [`ANY`] and [`PORTABLE`].
fn run(k: u8, p: &ConvS8, part: Part, input: &[i8], filter: &[i8], output: &mut [i8]) -> bool {
    let bias = None;
    with_kernel_constant!(
        k,
        depthwise_s8,
        [ONE_TO_EIGHT, TAPS, BLOCKS, BLOCKS_MULTIPLIER],
        (p, part, input, filter, bias, output)
    )
}

/// The kernel and epilogue bits of a kernel constant.
fn split(k: u8) -> (u8, u8) {
    (k & 0x0f, k & 0x30)
}

/// On random geometries (one channel to eight, depth multiplier 1 with small and large
/// windows, multipliers of four and others, dilated, channel counts that are not multiples
/// of four): the chosen kernel takes the geometry and no other does; it runs it (the DSP
/// kernel writes, no portable fallback) with the run-time choice's outputs, whole and in the
/// in-place driver's chunks; every other kernel fails its entry's check.
#[test]
fn the_choice_is_the_run_time_choice() {
    let mut rng = Rng(0x6b3_0002);
    let cases = if cfg!(miri) { 6 } else { 600 };
    let mut seen = [0_usize; 6];
    let mut drawn = 0;
    while drawn < cases {
        let (c, multiplier, k) = match rng.below(5) {
            0 => (1, 8, [3, 3]),
            1 => (4 * rng.range(1, 6), 1, [rng.range(1, 3), rng.range(1, 3)]),
            2 => (4 * rng.range(1, 4), 1, [rng.range(3, 5), rng.range(4, 5)]),
            3 => (
                rng.range(1, 3),
                4 * rng.range(1, 2),
                [rng.range(1, 4), rng.range(1, 4)],
            ),
            _ => (
                rng.range(1, 8),
                rng.range(1, 3),
                [rng.range(1, 4), rng.range(1, 4)],
            ),
        };
        let s = [rng.range(1, 2), rng.range(1, 2)];
        let dilation = if rng.below(6) == 0 { [2, 1] } else { [1, 1] };
        let pad = rng.pick(&[None, Some(0), Some(1)]);
        let Some(mut g) = padded(
            [rng.range(1, 2), rng.range(2, 9), rng.range(1, 9), c],
            1,
            k,
            s,
            dilation,
            pad,
        ) else {
            continue;
        };
        let depth = c * multiplier;
        g.filter = [1, k[0], k[1], depth];
        g.output[3] = depth;
        g.depth_multiplier = multiplier;
        drawn += 1;
        let mut p = params(g, &mut rng);
        p.requant = &p.requant[..depth];
        let chosen = depthwise_conv2d_s8_kernel(&p);
        let (kernel, bits) = split(chosen);
        seen[usize::from(kernel)] += 1;
        // A DSP kernel names the layer's epilogue form, the portable loop none; the kernel
        // with another form's bits is refused.
        assert_eq!(bits == 0, kernel == PORTABLE, "{chosen:#x}");
        for other in [EPILOGUE_GENERAL, EPILOGUE_SHIFT1, EPILOGUE_SHIFT2] {
            assert_eq!(
                depthwise_conv2d_s8_takes(kernel | other, &p),
                kernel != PORTABLE && other == bits,
                "{chosen:#x} with {other:#x}"
            );
        }
        let (input_len, filter_len, output_len) = (
            g.input.iter().product::<usize>(),
            g.filter.iter().product::<usize>(),
            g.output.iter().product::<usize>(),
        );
        for other in [ONE_TO_EIGHT, TAPS, BLOCKS, BLOCKS_MULTIPLIER, PORTABLE] {
            assert_eq!(
                depthwise_conv2d_s8_takes(other, &p),
                other == kernel || other == PORTABLE
            );
            let check = match other {
                ONE_TO_EIGHT => check_depthwise_conv2d_s8_with::<ONE_TO_EIGHT>,
                TAPS => check_depthwise_conv2d_s8_with::<TAPS>,
                BLOCKS => check_depthwise_conv2d_s8_with::<BLOCKS>,
                BLOCKS_MULTIPLIER => check_depthwise_conv2d_s8_with::<BLOCKS_MULTIPLIER>,
                _ => check_depthwise_conv2d_s8_with::<PORTABLE>,
            };
            let result = check(&p, input_len, filter_len, None, output_len);
            if other == kernel || other == PORTABLE {
                assert_eq!(result, Ok(()), "{g:?}");
            } else {
                assert!(matches!(result, Err(KernelError::Parameters(_))), "{g:?}");
            }
        }
        let input = rng.values(input_len);
        let filter = rng.values(filter_len);
        let mut expected = vec![0_i8; output_len];
        let mut got = vec![0_i8; output_len];
        let ran = run(ANY, &p, Part::WHOLE, &input, &filter, &mut expected);
        assert_eq!(
            run(chosen, &p, Part::WHOLE, &input, &filter, &mut got),
            ran,
            "{g:?}"
        );
        assert_eq!(ran, kernel != PORTABLE, "{} on {g:?}", name(kernel));
        if ran {
            assert_eq!(got, expected, "{} on {g:?}", name(kernel));
            // The kernel finding the form at run time: the same bytes.
            let mut found = vec![0_i8; output_len];
            assert!(run(kernel, &p, Part::WHOLE, &input, &filter, &mut found));
            assert_eq!(found, expected, "{} on {g:?}", name(kernel));
        }
        for (sub, part, [i0, i1], [o0, o1]) in driver_chunks(&g, &mut rng) {
            let q = ConvS8 { geometry: sub, ..p };
            let mut expected = vec![0_i8; o1 - o0];
            let mut got = vec![0_i8; o1 - o0];
            let ran = run(ANY, &q, part, &input[i0..i1], &filter, &mut expected);
            assert_eq!(
                run(chosen, &q, part, &input[i0..i1], &filter, &mut got),
                ran
            );
            if ran {
                assert_eq!(got, expected, "{} on a chunk of {g:?}", name(kernel));
            }
        }
    }
    if !cfg!(miri) {
        assert!(seen[1..].iter().all(|&n| n > 10), "kernels drawn: {seen:?}");
    }
}
