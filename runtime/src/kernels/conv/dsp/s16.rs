//! int16 CONV_2D blocked for the Cortex-M DSP extension (cfg `stowplan_dsp`): output channels
//! in pairs, two multiply-accumulates per `SMLALD` (see [`conv2d_s16`]).

use crate::kernels::shared::blocked_s16::{Acc, dot1, dot2};
use crate::kernels::shared::{
    ConvGeometry, Part, inside, origin, product, run, sized_mut, valid_taps,
};

/// CONV_2D's groups as its portable loop nest takes them (`conv_groups` of [`super::conv`]):
/// `(filter input depth, filters per group)`, or `None` for a zero dimension or a group past
/// the input's channels.
fn groups(g: &ConvGeometry) -> Option<(usize, usize)> {
    let filter_input_depth = g.filter[3];
    let groups = g.input[3].checked_div(filter_input_depth)?;
    let filters_per_group = g.filter[0].checked_div(groups)?;
    if filters_per_group == 0 {
        return None;
    }
    let last_group = (g.filter[0] - 1) / filters_per_group;
    if (last_group + 1).checked_mul(filter_input_depth)? > g.input[3] {
        return None;
    }
    Some((filter_input_depth, filters_per_group))
}

/// The input run `x` against the filter runs of output channel `c` (from `f`) and, `paired`,
/// of channel `c + 1` (`filter_size` further), into `acc`: [`dot2`] when both filter runs are
/// whole, else each channel on its own as the portable kernel sums it (a filter run past the
/// filter's end is empty, [`run`]).
#[inline(always)]
fn window_run<A: Acc>(
    acc: [A; 2],
    paired: bool,
    x: &[i16],
    filter: &[i8],
    f: usize,
    filter_size: usize,
) -> [A; 2] {
    let [a0, a1] = acc;
    let f0 = run(filter, f, x.len());
    if !paired {
        return [dot1::<A, false>(x, f0, 0, 0, a0), a1];
    }
    let f1 = run(filter, f.wrapping_add(filter_size), x.len());
    if f0.len() == x.len() && f1.len() == x.len() {
        dot2::<A, false>(x, f0, f1, 0, 0, acc)
    } else {
        [
            dot1::<A, false>(x, f0, 0, 0, a0),
            dot1::<A, false>(x, f1, 0, 0, a1),
        ]
    }
}

/// int16 CONV_2D (TFLM's `ConvPerChannel<int64_t>` with `A = i64`, `<int32_t>` with `A = i32`)
/// on part `part` of its geometry, every shape: per output pixel, its output channels in pairs
/// of one group (an odd last one, or one whose neighbour is in another group, alone), each
/// pair summed over the window's runs of input (as the portable loop nest walks them: a filter
/// row's valid taps as one run when there is one group and no horizontal dilation, else a tap
/// at a time) by [`dot2`], both sums in registers, then `finish(acc, channel)` for each.
/// Writes in memory order (batch, y, x, channel).
///
/// Returns `false`, having written nothing, for groups the portable kernel refuses or slices
/// shorter than the geometry says (the portable kernel then writes nothing either).
#[inline(always)]
pub(crate) fn conv2d_s16<A: Acc>(
    g: &ConvGeometry,
    part: Part,
    input: &[i16],
    filter: &[i8],
    output: &mut [i16],
    finish: impl Fn(A, usize) -> i16,
) -> bool {
    let Some((filter_input_depth, filters_per_group)) = groups(g) else {
        return false;
    };
    let [batches, input_h, input_w, input_d] = g.input;
    let [output_d, filter_h, filter_w, _] = g.filter;
    let [_, output_h, output_w, _] = g.output;
    let (Some(input), Some(filter_size), Some(output)) = (
        part.input(input, g),
        product(&[output_d, filter_h, filter_w, filter_input_depth])
            .filter(|&n| n <= filter.len())
            .map(|_| filter_h * filter_w * filter_input_depth),
        sized_mut(output, &[batches, output_h, output_w, output_d]),
    ) else {
        return false;
    };
    // Sizes below are at most the slices' lengths, so no index arithmetic overflows; the
    // input indices wrap as the portable kernel's do (past the slice for a skipped pixel).
    let whole_rows = filter_input_depth == input_d && g.dilation_w == 1;
    let mut pixels = output.chunks_exact_mut(output_d);
    for batch in 0..batches {
        for out_y in 0..output_h {
            let in_y_origin = origin(out_y, g.stride_h, g.pad_h);
            for out_x in 0..output_w {
                let in_x_origin = part.origin_x(out_x, g.stride_w, g.pad_w);
                let (x_start, x_end) = valid_taps(in_x_origin, filter_w, input_w);
                let Some(pixel) = pixels.next() else {
                    return true;
                };
                let mut c = 0;
                while c < output_d {
                    let group = c / filters_per_group;
                    let paired = c + 1 < output_d && (c + 1) / filters_per_group == group;
                    let group_base = group * filter_input_depth;
                    let out_filter = c * filter_size;
                    let mut acc = [A::ZERO; 2];
                    for filter_y in 0..filter_h {
                        let Some(in_y) = inside(in_y_origin, g.dilation_h, filter_y, input_h)
                        else {
                            continue;
                        };
                        let row = part.pixel((batch * input_h + in_y) * input_w);
                        let filter_row = filter_y * filter_w;
                        if whole_rows {
                            if x_start == x_end {
                                continue;
                            }
                            let in_x = in_x_origin.wrapping_add(x_start as isize) as usize;
                            let len = (x_end - x_start) * input_d;
                            let i = row.wrapping_add(in_x).wrapping_mul(input_d);
                            let f = out_filter + (filter_row + x_start) * filter_input_depth;
                            if let Some(x) = input.get(i..i.wrapping_add(len)) {
                                acc = window_run(acc, paired, x, filter, f, filter_size);
                            }
                            continue;
                        }
                        for filter_x in 0..filter_w {
                            let Some(in_x) = inside(in_x_origin, g.dilation_w, filter_x, input_w)
                            else {
                                continue;
                            };
                            let i = row
                                .wrapping_add(in_x)
                                .wrapping_mul(input_d)
                                .wrapping_add(group_base);
                            let f = out_filter + (filter_row + filter_x) * filter_input_depth;
                            if let Some(x) = input.get(i..i.wrapping_add(filter_input_depth)) {
                                acc = window_run(acc, paired, x, filter, f, filter_size);
                            }
                        }
                    }
                    let [a0, a1] = acc;
                    if let Some(y) = pixel.get_mut(c) {
                        *y = finish(a0, c);
                    }
                    if paired {
                        if let Some(y) = pixel.get_mut(c + 1) {
                            *y = finish(a1, c + 1);
                        }
                        c += 2;
                    } else {
                        c += 1;
                    }
                }
            }
        }
    }
    true
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::conv::{conv2d_s16_acc32_part, conv2d_s16_part};
    use crate::kernels::shared::testing::geometry;
    use crate::kernels::shared::testing::s16::{REQUANT, Rng, act, dim, part, varied};
    use crate::kernels::shared::{ConvS16, requantize_channel_s16, requantize_channel_s16_acc32};

    #[test]
    fn conv_equals_the_portable_kernel() {
        let mut rng = Rng(11);
        let cases = if cfg!(miri) { 6 } else { 600 };
        // Smaller images under miri.
        let side = if cfg!(miri) { 4 } else { 7 };
        let (mut done, mut varied_cases) = (0, 0);
        while done < cases {
            let (n, h, w) = (rng.range(1, 2), rng.range(1, side - 1), rng.range(1, side));
            let (kh, kw) = (rng.range(1, 3), rng.range(1, 3));
            // One group mostly; two or three now and then.
            let groups = [1, 1, 1, 2, 3][rng.next() as usize % 5];
            let fin = rng.range(1, if cfg!(miri) { 5 } else { 11 });
            let per_group = rng.range(1, 5);
            let (cin, cout) = (fin * groups, per_group * groups);
            let (Some((sh, dh, ph, oh)), Some((sw, dw, pw, ow))) =
                (dim(&mut rng, h, kh), dim(&mut rng, w, kw))
            else {
                continue;
            };
            if n * oh * ow * cout > 4000 {
                continue;
            }
            let g = ConvGeometry {
                stride_h: sh,
                stride_w: sw,
                dilation_h: dh,
                dilation_w: dw,
                pad_h: ph,
                pad_w: pw,
                ..geometry([n, h, w, cin], [cout, kh, kw, fin], [n, oh, ow, cout])
            };
            let (act_min, act_max) = act(&mut rng);
            let p = ConvS16 {
                geometry: g,
                requant: &REQUANT,
                act_min,
                act_max,
            };
            let mut input = [0i16; 2 * 6 * 7 * 33];
            let mut filter = [0i8; 15 * 9 * 11];
            rng.fill16(&mut input[..n * h * w * cin]);
            rng.fill8(&mut filter[..cout * kh * kw * fin]);
            let bias64: [i64; 15] = core::array::from_fn(|_| i64::from(rng.next() as i32 >> 8));
            let bias32: [i32; 15] = core::array::from_fn(|_| rng.next() as i32 >> 10);
            let with_bias = !rng.next().is_multiple_of(4);
            let (b64, b32) = if with_bias {
                (Some(&bias64[..cout]), Some(&bias32[..cout]))
            } else {
                (None, None)
            };
            let part = part(&mut rng, &g);
            let input = &input[part.skip * cin..n * h * w * cin];
            let filter = &filter[..cout * kh * kw * fin];
            let len = n * oh * ow * cout;
            let (mut fast, mut slow) = ([7i16; 4000], [7i16; 4000]);
            let finish = |acc, c| requantize_channel_s16(acc, c, b64, &REQUANT, act_min, act_max);
            assert!(conv2d_s16::<i64>(
                &g,
                part,
                input,
                filter,
                &mut fast[..len],
                finish
            ));
            conv2d_s16_part(&p, part, input, filter, b64, &mut slow[..len]);
            let ctx = (g, part, with_bias);
            assert_eq!(fast[..len], slow[..len], "{ctx:?}");
            let finish =
                |acc, c| requantize_channel_s16_acc32(acc, c, b32, &REQUANT, act_min, act_max);
            assert!(conv2d_s16::<i32>(
                &g,
                part,
                input,
                filter,
                &mut fast[..len],
                finish
            ));
            conv2d_s16_acc32_part(&p, part, input, filter, b32, &mut slow[..len]);
            assert_eq!(fast[..len], slow[..len], "acc32 {ctx:?}");
            varied_cases += usize::from(varied(&fast[..len]));
            done += 1;
        }
        // Outputs that reached values (not all clamped): the sums were tested (the few small
        // cases under miri are not counted).
        assert!(
            cfg!(miri) || varied_cases * 2 > cases,
            "{varied_cases} of {cases}"
        );
    }

    #[test]
    fn conv_sums_wrap_in_32_bits_and_not_in_64() {
        // One output per channel over 1 x 1 x 700 inputs of -32768 against weights of -128:
        // 700 * 2^22 overflows an int32 (wrapping, as TFLM's does) but not an int64; and
        // 127 against 32767, the other sign.
        let depth = if cfg!(miri) { 520 } else { 700 };
        let g = geometry([1, 1, 1, depth], [3, 1, 1, depth], [1, 1, 1, 3]);
        let p = ConvS16 {
            geometry: g,
            requant: &REQUANT,
            act_min: -32768,
            act_max: 32767,
        };
        let input = [i16::MIN; 700];
        let mut filter = [-128i8; 3 * 700];
        filter[depth..2 * depth].fill(127);
        filter[2 * depth + 1] = 0;
        let (input, filter) = (&input[..depth], &filter[..3 * depth]);
        for bias in [None, Some(&[i64::MAX, i64::MIN, 1][..])] {
            let (mut fast, mut slow) = ([0i16; 3], [0i16; 3]);
            let finish = |acc, c| requantize_channel_s16(acc, c, bias, &REQUANT, -32768, 32767);
            assert!(conv2d_s16::<i64>(
                &g,
                Part::WHOLE,
                input,
                filter,
                &mut fast,
                finish
            ));
            conv2d_s16_part(&p, Part::WHOLE, input, filter, bias, &mut slow);
            assert_eq!(fast, slow);
        }
        let bias = Some(&[i32::MAX, i32::MIN, -1][..]);
        let (mut fast, mut slow) = ([0i16; 3], [0i16; 3]);
        let finish = |acc, c| requantize_channel_s16_acc32(acc, c, bias, &REQUANT, -32768, 32767);
        assert!(conv2d_s16::<i32>(
            &g,
            Part::WHOLE,
            input,
            filter,
            &mut fast,
            finish
        ));
        conv2d_s16_acc32_part(&p, Part::WHOLE, input, filter, bias, &mut slow);
        assert_eq!(fast, slow);
        // Groups the portable kernel refuses (two groups of two input channels, three filters:
        // the last one's group past the input's channels): declined, with nothing written.
        let g = geometry([1, 1, 1, 4], [3, 1, 1, 2], [1, 1, 1, 3]);
        let mut out = [5i16; 3];
        let finish = |acc, c| requantize_channel_s16(acc, c, None, &REQUANT, -32768, 32767);
        assert!(!conv2d_s16::<i64>(
            &g,
            Part::WHOLE,
            &[1; 4],
            &[1; 6],
            &mut out,
            finish
        ));
        assert_eq!(out, [5; 3]);
    }

    #[test]
    fn huge_strides_pads_and_dilations_equal_the_portable_kernel() {
        // Coordinates past `isize`: CONV_2D walks them as the portable kernel does (wrapping),
        // without a panic.
        let finish = |acc, c| requantize_channel_s16(acc, c, None, &REQUANT, -32768, 32767);
        for (stride, pad, dilation) in [
            (usize::MAX, 0, 1),
            (1, usize::MAX / 2, 1),
            (1, 1, usize::MAX),
            (usize::MAX / 3, 7, usize::MAX / 5),
        ] {
            // A filter of 4 x 2 x 2 x 4, four output channels of 2 x 2 pixels.
            let p = ConvS16 {
                geometry: ConvGeometry {
                    stride_h: stride,
                    stride_w: stride,
                    pad_h: pad,
                    pad_w: pad,
                    dilation_h: dilation,
                    dilation_w: dilation,
                    ..geometry([1, 3, 3, 4], [4, 2, 2, 4], [1, 2, 2, 4])
                },
                requant: &REQUANT,
                act_min: -32768,
                act_max: 32767,
            };
            let input: [i16; 36] = core::array::from_fn(|i| (i as i16 - 17) * 911);
            let filter: [i8; 64] = core::array::from_fn(|i| (i as i8).wrapping_mul(37));
            let (g, ctx) = (&p.geometry, (stride, pad, dilation));
            let (mut fast, mut slow) = ([1i16; 16], [1i16; 16]);
            assert!(conv2d_s16::<i64>(
                g,
                Part::WHOLE,
                &input,
                &filter,
                &mut fast,
                finish
            ));
            conv2d_s16_part(&p, Part::WHOLE, &input, &filter, None, &mut slow);
            assert_eq!(fast, slow, "{ctx:?}");
        }
    }
}
