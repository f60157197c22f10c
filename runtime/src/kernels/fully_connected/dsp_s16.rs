//! int16 FULLY_CONNECTED blocked for the Cortex-M DSP extension (cfg `stowplan_dsp`): output
//! channels in pairs over each batch row (see [`fully_connected_s16`]).

use super::FullyConnectedS16;
use crate::dsp::splat16;
use crate::kernels::shared::blocked_s16::{Acc, dot1, dot2, widen_even, widen_odd, word4};
use crate::kernels::shared::{clamp_to_i16, sized, sized_mut};

/// int16 FULLY_CONNECTED (TFLM's `FullyConnected` / `FullyConnectedPerChannel` with an
/// `int64_t` accumulator for `A = i64`, `int32_t` for `A = i32`): per batch row, output
/// channels in pairs ([`dot2`]: the row's inputs loaded and packed once for both), an odd last
/// one alone, then `finish(acc, channel)` (bias and requantisation), the output offset and
/// the clamp, as the portable kernel. TFLM's `sum((w + filter_offset) * (x + input_offset))`
/// is summed as `sum((w + filter_offset) * x)` (the offset added to the widened weights by
/// `SXTAB16`) plus, for a non-zero input offset, `input_offset * sum(w + filter_offset)` (the
/// weights summed once more): equal by [`Acc::exact_with`].
///
/// Returns `false`, having written nothing, for a zero depth or output depth, a filter offset
/// outside `-32640..=32640` (then `w + filter_offset` is no halfword), offsets whose 64-bit sum
/// might differ ([`Acc::exact_with`]) or slices shorter than the parameters say (the caller
/// runs the portable kernel then).
#[inline(always)]
pub(crate) fn fully_connected_s16<A: Acc>(
    p: &FullyConnectedS16,
    input: &[i16],
    filter: &[i8],
    output: &mut [i16],
    finish: impl Fn(A, usize) -> i32,
) -> bool {
    let per_channel = p.requant.len() > 1;
    let filter_offset = if per_channel { 0 } else { p.filter_offset };
    let (depth, output_d, input_offset) = (p.accum_depth, p.output_depth, p.input_offset);
    if depth == 0
        || output_d == 0
        || !(-32640..=32640).contains(&filter_offset)
        || !A::exact_with(filter_offset, input_offset)
    {
        return false;
    }
    let (Some(input), Some(filter), Some(output)) = (
        sized(input, &[p.batches, depth]),
        sized(filter, &[output_d, depth]),
        sized_mut(output, &[p.batches, output_d]),
    ) else {
        return false;
    };
    let off = splat16(filter_offset);
    // Plus `input_offset * sum(w + filter_offset)` for a non-zero input offset: the row's
    // weights summed as a dot product with ones.
    let sum = |f: &[i8], acc: A| {
        if input_offset == 0 {
            acc
        } else {
            let (words, rest) = f.as_chunks::<4>();
            let mut weights = A::ZERO;
            for w in words {
                let w = word4(w);
                weights = weights.mac(splat16(1), widen_even::<true>(off, w));
                weights = weights.mac(splat16(1), widen_odd::<true>(off, w));
            }
            for &w in rest {
                weights = weights.add(i32::from(w).wrapping_add(filter_offset));
            }
            acc.add_offset(input_offset, weights)
        }
    };
    let store = |acc: A, c: usize| {
        let acc = finish(acc, c).wrapping_add(p.output_offset);
        clamp_to_i16(acc, p.act_min, p.act_max)
    };
    for (row, out) in input
        .chunks_exact(depth)
        .zip(output.chunks_exact_mut(output_d))
    {
        let mut rows = filter.chunks_exact(2 * depth);
        let mut c = 0;
        let (pairs, last) = out.as_chunks_mut::<2>();
        for (f2, y2) in (&mut rows).zip(pairs) {
            let (f0, f1) = f2.split_at(depth);
            let [a0, a1] = if filter_offset == 0 {
                dot2::<A, false>(row, f0, f1, off, 0, [A::ZERO; 2])
            } else {
                dot2::<A, true>(row, f0, f1, off, filter_offset, [A::ZERO; 2])
            };
            *y2 = [store(sum(f0, a0), c), store(sum(f1, a1), c + 1)];
            c += 2;
        }
        let f = rows.remainder();
        if let Some(y) = last.first_mut() {
            let a = if filter_offset == 0 {
                dot1::<A, false>(row, f, off, 0, A::ZERO)
            } else {
                dot1::<A, true>(row, f, off, filter_offset, A::ZERO)
            };
            *y = store(sum(f, a), c);
        }
    }
    true
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::fully_connected::proven::fully_connected_s16_acc32;
    use crate::kernels::fully_connected::{finish_s16, finish_s16_acc32};
    use crate::kernels::shared::testing::s16::{REQUANT, Rng, act, varied};

    #[test]
    fn fully_connected_equals_the_portable_kernel() {
        let mut rng = Rng(9);
        let cases = if cfg!(miri) { 12 } else { 1500 };
        let mut varied_cases = 0;
        for case in 0..cases {
            let batches = rng.range(1, 3);
            let depth = rng.range(1, if cfg!(miri) { 12 } else { 45 });
            let out_d = rng.range(1, 9);
            // Per channel: one multiplier per output channel (one alone is per tensor).
            let per_channel = rng.next().is_multiple_of(2) && out_d > 1;
            // Offsets: mostly none (int16 is symmetric), the extremes of an int16 zero point
            // and past them (declined for the 64-bit sum when a product could wrap).
            let input_offset = match rng.next() % 8 {
                0 => 7,
                1 => -32767,
                2 => 32768,
                3 => i32::MAX,
                _ => 0,
            };
            let filter_offset = match rng.next() % 6 {
                0 => 5,
                1 => -127,
                2 => 128,
                3 => 40_000,
                _ => 0,
            };
            let (act_min, act_max) = act(&mut rng);
            let p = FullyConnectedS16 {
                batches,
                accum_depth: depth,
                output_depth: out_d,
                input_offset,
                filter_offset,
                output_offset: (rng.next() % 201) as i32 - 100,
                requant: if per_channel {
                    &REQUANT[..out_d]
                } else {
                    &REQUANT[case % 24..case % 24 + 1]
                },
                act_min,
                act_max,
            };
            let mut input = [0i16; 3 * 45];
            let mut filter = [0i8; 9 * 45];
            rng.fill16(&mut input[..batches * depth]);
            rng.fill8(&mut filter[..out_d * depth]);
            let bias64: [i64; 9] = core::array::from_fn(|_| i64::from(rng.next() as i32 >> 4));
            let bias32: [i32; 9] = core::array::from_fn(|_| rng.next() as i32 >> 4);
            let with_bias = !rng.next().is_multiple_of(4);
            let b64 = with_bias.then_some(&bias64[..out_d]);
            let b32 = with_bias.then_some(&bias32[..out_d]);
            let (input, filter) = (&input[..batches * depth], &filter[..out_d * depth]);
            let len = batches * out_d;
            let ctx = (
                batches,
                depth,
                out_d,
                input_offset,
                filter_offset,
                per_channel,
            );
            let (mut fast, mut slow) = ([7i16; 27], [7i16; 27]);
            let finish = |acc, c| finish_s16(&p, b64, acc, c);
            let taken = fully_connected_s16::<i64>(&p, input, filter, &mut fast[..len], finish);
            let fo = if per_channel { 0 } else { filter_offset };
            let exact = fo.abs() <= 128 && (input_offset == 0 || input_offset.abs() <= 32768);
            assert_eq!(taken, exact, "{ctx:?}");
            crate::kernels::fully_connected::proven::fully_connected_s16(
                &p,
                input,
                filter,
                b64,
                &mut slow[..len],
            );
            if taken {
                assert_eq!(fast[..len], slow[..len], "{ctx:?}");
            } else {
                assert_eq!(fast[..len], [7; 27][..len], "{ctx:?}");
            }
            let mut fast = [7i16; 27];
            let finish = |acc, c| finish_s16_acc32(&p, b32, acc, c);
            let taken = fully_connected_s16::<i32>(&p, input, filter, &mut fast[..len], finish);
            assert_eq!(taken, fo.abs() <= 128, "{ctx:?}");
            fully_connected_s16_acc32(&p, input, filter, b32, &mut slow[..len]);
            if taken {
                assert_eq!(fast[..len], slow[..len], "acc32 {ctx:?}");
                varied_cases += usize::from(varied(&fast[..len]));
            }
        }
        assert!(
            cfg!(miri) || varied_cases * 3 > cases,
            "{varied_cases} of {cases}"
        );
    }
}
