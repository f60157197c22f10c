//! The kernel chosen at build time ([`super::kernel`]) against the run-time choice.

extern crate std;
use std::vec;
use std::vec::Vec;

use crate::kernels::check_conv2d_s8_with;
use crate::kernels::conv::dsp::conv2d_s8_part;
use crate::kernels::conv::kernel::*;
use crate::kernels::shared::check::KernelError;
use crate::kernels::shared::testing::{Rng, driver_chunks, padded, params, with_kernel_constant};
use crate::kernels::shared::{ConvS8, Part};

/// The DSP CONV_2D of kernel constant `k` on `part`, as generated code calls it with `k` a
/// constant: every kernel with each epilogue form, and [`ANY`] and [`PORTABLE`].
fn run(
    k: u8,
    p: &ConvS8,
    part: Part,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> bool {
    with_kernel_constant!(
        k,
        conv2d_s8_part,
        [
            POINTWISE,
            GATHERED,
            WINDOW,
            WIDENED_64,
            WIDENED,
            WIDENED_336
        ],
        (p, part, input, filter, bias, output)
    )
}

/// The DSP CONV_2D of kernel constant `k` with its working memory in `scratch`, as generated
/// code calls its entry with scratch.
fn run_scratch(
    k: u8,
    p: &ConvS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
    scratch: &mut [u32],
) -> bool {
    use crate::kernels::conv::dsp::conv2d_s8_scratch_s8;
    with_kernel_constant!(
        k,
        conv2d_s8_scratch_s8,
        [WINDOW, WIDENED_64, WIDENED, WIDENED_336],
        (p, input, filter, bias, output, scratch)
    )
}

/// The kernel and epilogue bits of a kernel constant.
fn split(k: u8) -> (u8, u8) {
    (k & 0x0f, k & 0x30)
}

/// The widened pixel pairs' kernels, one per buffer size.
const WIDENED_KERNELS: [u8; 3] = [WIDENED_64, WIDENED, WIDENED_336];

/// On random geometries (pointwise layers, among them those of each widened buffer's sizes,
/// first layers of few channels, 3 x 3 and other windows, 1-D convolutions, grouped ones), with
/// and without a bias: the kernel chosen is the first one, in the order the run-time entry
/// tries them, that takes the geometry (a pointwise layer's widened pixel pairs before the
/// other kernels); it runs it (the DSP kernel
/// writes, no portable fallback); its outputs are the run-time choice's, whole and in the
/// in-place driver's chunks; a kernel that does not take the geometry, or another epilogue
/// form, fails its entry's check.
#[test]
fn the_choice_is_the_run_time_choice() {
    let mut rng = Rng(0x6b3_0001);
    let cases = if cfg!(miri) { 4 } else { 700 };
    let mut seen = [0_usize; 14];
    let mut scratched = 0;
    let mut drawn = 0;
    while drawn < cases {
        // Shapes 5 and 6: 1 x 1 layers of whole words, at and past each widened buffer's end
        // (under miri as often as the others, and at most 64 channels: CI time).
        let shape = if cfg!(miri) {
            rng.below(6)
        } else {
            rng.below(7).min(5)
        };
        let (c, k, s) = match shape {
            0 => (rng.range(1, 24), [1, 1], [1, 1]),
            1 => (rng.range(1, 4), [rng.range(2, 5), rng.range(1, 5)], [2, 2]),
            2 => (rng.range(1, 20), [3, 3], [rng.range(1, 2), rng.range(1, 2)]),
            3 => (rng.range(1, 12), [rng.range(2, 5), 1], [rng.range(1, 2), 1]),
            4 => (rng.range(1, 40), [rng.range(1, 5), rng.range(1, 5)], [1, 2]),
            _ if cfg!(miri) => (rng.pick(&[8, 16, 32, 64]), [1, 1], [1, 1]),
            _ => (
                rng.pick(&[8, 16, 32, 64, 68, 144, 148, 256, 336]),
                [1, 1],
                [1, 1],
            ),
        };
        // Under miri, small images (every kernel still drawn over the seeds; CI time).
        let side = if cfg!(miri) { 5 } else { 9 };
        let w = if shape == 3 { 1 } else { rng.range(1, side) };
        let (dilation, pad, o) = if shape == 5 {
            ([1, 1], None, 2 * rng.range(1, 4))
        } else {
            (
                [rng.range(1, 2), rng.range(1, 2)],
                rng.pick(&[None, Some(0), Some(1)]),
                rng.range(1, 9),
            )
        };
        let h = if shape == 5 {
            rng.range(1, 3)
        } else {
            rng.range(2, side)
        };
        let Some(mut g) = padded([rng.range(1, 2), h, w, c], o, k, s, dilation, pad) else {
            continue;
        };
        if rng.below(10) == 0 && c.is_multiple_of(2) && o.is_multiple_of(2) {
            // Two groups.
            g.filter[3] = c / 2;
        }
        drawn += 1;
        let mut p = params(g, &mut rng);
        p.requant = &p.requant[..o];
        if shape == 5 && rng.below(4) != 0 {
            // The whole int8 range, as most 1 x 1 layers have.
            (p.act_min, p.act_max) = (-128, 127);
        }
        if rng.below(8) == 0 {
            p.input_offset = rng.pick(&[200, -40_000]);
        }
        let bias: Option<Vec<i32>> = (shape == 5 || rng.below(4) != 0).then(|| {
            (0..o)
                .map(|_| rng.range(0, 40_000) as i32 - 20_000)
                .collect()
        });
        let bias = bias.as_deref();
        let with_bias = bias.is_some();
        let chosen = conv2d_s8_kernel(&p, with_bias);
        let (kernel, bits) = split(chosen);
        seen[usize::from(kernel)] += 1;
        assert!(conv2d_s8_takes(chosen, &p, with_bias), "{g:?}");
        assert!(conv2d_s8_takes(kernel, &p, with_bias), "{g:?}");
        // A DSP kernel names the layer's epilogue form, the portable loop none; the kernel
        // with another form's bits is refused.
        assert_eq!(bits == 0, kernel == PORTABLE, "{chosen:#x}");
        for other in [EPILOGUE_GENERAL, EPILOGUE_SHIFT1, EPILOGUE_SHIFT2] {
            assert_eq!(
                conv2d_s8_takes(kernel | other, &p, with_bias),
                kernel != PORTABLE && other == bits,
                "{chosen:#x} with {other:#x}"
            );
        }
        // The widened pixel pairs: at most one buffer size takes the layer (the chosen one if
        // one was chosen), and never without a bias.
        let widened = widened_channels(kernel).is_some();
        let taking: Vec<u8> = WIDENED_KERNELS
            .iter()
            .copied()
            .filter(|&k| conv2d_s8_takes(k, &p, with_bias))
            .collect();
        assert!(taking.len() <= 1, "{taking:?}: {g:?}");
        if widened {
            assert_eq!(taking, [kernel], "{g:?}");
        }
        for other in WIDENED_KERNELS {
            assert!(!conv2d_s8_takes(other, &p, false), "{g:?}");
        }
        // The numbers between the portable loop and the widened kernels name none.
        for unnamed in PORTABLE + 1..WIDENED_64 {
            assert_eq!(name(unnamed), "unknown");
            assert!(!conv2d_s8_takes(unnamed, &p, with_bias), "{unnamed}: {g:?}");
        }
        let family = if widened { POINTWISE } else { kernel };
        // The order of the choice: no kernel before the chosen one takes the layer.
        let order = [
            WIDENED_64,
            WIDENED,
            WIDENED_336,
            GATHERED,
            WINDOW,
            POINTWISE,
        ];
        let at = order
            .iter()
            .position(|&k| k == kernel)
            .unwrap_or(order.len());
        for &earlier in &order[..at] {
            assert!(
                !conv2d_s8_takes(earlier, &p, with_bias),
                "{} before {}: {g:?}",
                name(earlier),
                name(kernel)
            );
        }
        let (input_len, filter_len, output_len) = (
            g.input.iter().product::<usize>(),
            g.filter.iter().product::<usize>(),
            g.output.iter().product::<usize>(),
        );
        let bias_len = bias.map(<[i32]>::len);
        for other in [POINTWISE, GATHERED, WINDOW] {
            let check = match other {
                POINTWISE => check_conv2d_s8_with::<POINTWISE>,
                GATHERED => check_conv2d_s8_with::<GATHERED>,
                _ => check_conv2d_s8_with::<WINDOW>,
            };
            let result = check(&p, input_len, filter_len, bias_len, output_len);
            if conv2d_s8_takes(other, &p, with_bias) {
                assert_eq!(result, Ok(()), "{g:?}");
            } else {
                assert!(matches!(result, Err(KernelError::Parameters(_))), "{g:?}");
            }
        }
        let input = rng.values(input_len);
        let filter = rng.values(filter_len);
        let mut expected = vec![0_i8; output_len];
        let mut got = vec![0_i8; output_len];
        let ran = run(ANY, &p, Part::WHOLE, &input, &filter, bias, &mut expected);
        assert_eq!(
            run(chosen, &p, Part::WHOLE, &input, &filter, bias, &mut got),
            ran,
            "{g:?}"
        );
        assert_eq!(ran, kernel != PORTABLE, "{} on {g:?}", name(kernel));
        // The kernels that take scratch for the geometry: the same bytes with it (its words
        // not zeroed, as the arena's).
        let words = conv2d_s8_scratch(chosen, &g);
        if words > 0 {
            scratched += 1;
            let mut scratch = vec![0x5555_5555_u32; words];
            let mut with = vec![0_i8; output_len];
            let took = run_scratch(chosen, &p, &input, &filter, bias, &mut with, &mut scratch);
            assert!(took, "{} on {g:?}", name(kernel));
            assert_eq!(with, expected, "{} with scratch on {g:?}", name(kernel));
        }
        if ran {
            assert_eq!(got, expected, "{} on {g:?}", name(kernel));
            // The kernel finding the form at run time and a pointwise layer's pixel pairs: the
            // same bytes.
            for other in [kernel, family] {
                let mut found = vec![0_i8; output_len];
                assert!(run(
                    other,
                    &p,
                    Part::WHOLE,
                    &input,
                    &filter,
                    bias,
                    &mut found
                ));
                assert_eq!(found, expected, "{} on {g:?}", name(other));
            }
        }
        for (sub, part, [i0, i1], [o0, o1]) in driver_chunks(&g, &mut rng) {
            let q = ConvS8 { geometry: sub, ..p };
            let mut expected = vec![0_i8; o1 - o0];
            let mut got = vec![0_i8; o1 - o0];
            let x = &input[i0..i1];
            if family == POINTWISE && !(part == Part::WHOLE && pointwise_takes(&sub)) {
                // The driver gives a pointwise op whole runs of pixels only (images of
                // their own); the kernel declines any other part, writing nothing (the
                // portable loop runs it).
                assert!(!run(chosen, &q, part, x, &filter, bias, &mut got));
                assert!(got.iter().all(|&v| v == 0));
                continue;
            }
            let ran = run(ANY, &q, part, x, &filter, bias, &mut expected);
            assert_eq!(
                run(chosen, &q, part, x, &filter, bias, &mut got),
                ran,
                "{} on {sub:?} {part:?} of {g:?}",
                name(kernel)
            );
            if ran {
                assert_eq!(got, expected, "{} on a chunk of {g:?}", name(kernel));
            }
        }
    }
    if !cfg!(miri) {
        assert!(scratched > 50, "{scratched} with scratch");
        // The pixel pairs (1 x 1 layers of an input offset past the window kernel's lanes) and
        // the widened kernels are drawn the least.
        let few = [POINTWISE, WIDENED_64, WIDENED, WIDENED_336];
        for k in [GATHERED, WINDOW, PORTABLE].into_iter().chain(few) {
            let least = if few.contains(&k) { 2 } else { 10 };
            assert!(seen[usize::from(k)] > least, "{}: {seen:?}", name(k));
        }
    }
}

/// The widened kernels' entries with scratch: their checks take scratch of at least one word
/// per input channel (`conv2d_s8_scratch`) and a widened kernel only, on two buffers and on one;
/// the other kernels need no scratch.
#[test]
fn scratch_entries_check_the_kernel_and_the_scratch() {
    use crate::kernels::check_conv2d_s8_with_scratch;
    use crate::kernels::conv::in_place as overlap;
    use crate::kernels::shared::in_place::min_displacement;
    use crate::kernels::shared::testing::{REQUANT_TWO, geometry};
    let g = geometry([1, 2, 3, 32], [8, 1, 1, 32], [1, 2, 3, 8]);
    let p = ConvS8 {
        geometry: g,
        input_offset: 3,
        output_offset: -1,
        requant: &REQUANT_TWO[..8],
        act_min: -128,
        act_max: 127,
    };
    let k = conv2d_s8_kernel(&p, true);
    assert_eq!(k & 0x0f, WIDENED_64, "{}", name(k));
    assert_eq!(conv2d_s8_scratch(k, &g), 32);
    for kernel in [WINDOW, POINTWISE, PORTABLE, ANY] {
        assert_eq!(conv2d_s8_scratch(kernel, &g), 0, "{}", name(kernel));
    }
    let (input, filter, output) = (6 * 32, 8 * 32, 6 * 8);
    let two = |scratch| {
        check_conv2d_s8_with_scratch::<{ WIDENED_64 | EPILOGUE_SHIFT2 }>(
            &p,
            input,
            filter,
            Some(8),
            output,
            scratch,
        )
    };
    assert_eq!(two(32), Ok(()));
    assert_eq!(two(40), Ok(()));
    assert!(matches!(two(31), Err(KernelError::Parameters(_))));
    // A kernel that is not widened, with any scratch.
    let window = check_conv2d_s8_with_scratch::<{ WINDOW | EPILOGUE_SHIFT2 }>(
        &p,
        input,
        filter,
        Some(8),
        output,
        64,
    );
    assert!(matches!(window, Err(KernelError::Parameters(_))));
    // On one buffer: the output over the input from the least displacement on.
    let at = min_displacement(&g).unwrap();
    let one = |scratch| {
        overlap::check_conv2d_s8_with_scratch::<{ WIDENED_64 | EPILOGUE_SHIFT2 }>(
            &p,
            at + input,
            at,
            0,
            filter,
            Some(8),
            scratch,
        )
    };
    assert_eq!(one(32), Ok(()));
    assert!(matches!(one(31), Err(KernelError::Parameters(_))));
}
