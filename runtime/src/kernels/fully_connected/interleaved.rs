//! int8 FULLY_CONNECTED as [`INTERLEAVED`](super::kernel::INTERLEAVED): a filter re-laid when
//! the crate compiled (blocks of four rows, their words interleaved:
//! [`interleaved_word`](super::kernel::interleaved_word)) and a bias with the input offset folded
//! in ([`folded_bias`](super::kernel::folded_bias)), so that each output channel's sum is
//! `bias + sum(filter × input)` without an offset. With the DSP extension a block's four sums
//! come from one `asm!` loop ([`crate::dsp::smlad_4x1_interleaved`]) and the epilogue is
//! [`Epilogue`]'s in the form the kernel constant names; elsewhere a plain loop on the same
//! layout and TFLM's requantisation. The last `units % 4` rows keep the model's layout.

use super::FullyConnectedS8;
use super::kernel::{INTERLEAVED, INTERLEAVED_FOLDED, KERNEL_BITS};
use crate::kernels::shared::Requant;

/// Runs `p` with kernel constant `K` ([`INTERLEAVED`] with its epilogue bits, or
/// [`INTERLEAVED_FOLDED`]) on the re-laid `filter` and the folded `bias` (for [`INTERLEAVED`]
/// `None` means every channel's is 0, the offset's term included, which only a zero input offset
/// or a zero filter gives; [`INTERLEAVED_FOLDED`]'s check requires one), and returns `true`; or
/// returns `false` (nothing written) for another kernel. The slices hold the sizes `p` gives
/// (the entry's check).
#[inline(always)]
pub(super) fn fully_connected_s8<const K: u8>(
    p: &FullyConnectedS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> bool {
    match K & KERNEL_BITS {
        INTERLEAVED_FOLDED => {
            blocks::<6, true>(p, input, filter, bias, output);
            return true;
        }
        INTERLEAVED => {}
        _ => return false,
    }
    #[cfg(stowplan_dsp)]
    {
        use super::kernel::form_for;
        use crate::kernels::shared::requant::epilogue_in;
        let computed = form_for(p.requant, p.output_depth, p.act_min, p.act_max);
        match epilogue_in(K, computed) {
            6 => blocks::<6, false>(p, input, filter, bias, output),
            5 => blocks::<5, false>(p, input, filter, bias, output),
            _ => blocks::<0, false>(p, input, filter, bias, output),
        }
    }
    #[cfg(not(stowplan_dsp))]
    blocks::<0, false>(p, input, filter, bias, output);
    true
}

/// The kernel in epilogue form `F` (with the DSP extension; elsewhere the general form), its
/// blocks with the DSP extension in one `asm!` block per input row with the folded epilogue
/// when `FOLDED` ([`INTERLEAVED_FOLDED`]'s layers).
#[inline(never)]
fn blocks<const F: u8, const FOLDED: bool>(
    p: &FullyConnectedS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) {
    let (depth, units) = (p.accum_depth, p.output_depth);
    let words = depth / 4;
    if units == 0 || words == 0 || !depth.is_multiple_of(4) {
        return;
    }
    let tensor = match p.requant.first() {
        Some(&r) => r,
        None => Requant {
            multiplier: 0,
            shift: 0,
        },
    };
    let per_channel = p.requant.len() > 1;
    let requant = |c: usize| match p.requant.get(c) {
        Some(&r) if per_channel => r,
        _ => tensor,
    };
    let bias = bias.unwrap_or(&[]);
    // Each block's filter words, biases and multipliers, walked together.
    let (filter_words, _) = filter.as_chunks::<4>();
    let full = filter_words.len().min(units / 4 * 4 * words);
    let block_filters = filter_words.get(..full).unwrap_or(&[]);
    let (block_biases, _) = bias.as_chunks::<4>();
    let (block_requants, _) = p.requant.as_chunks::<4>();
    let outputs = output.chunks_exact_mut(units).take(p.batches);
    for (b, out) in outputs.enumerate() {
        let row = input.get(b * depth..(b + 1) * depth).unwrap_or(&[]);
        let (x, _) = row.as_chunks::<4>();
        let (out_blocks, _) = out.as_chunks_mut::<4>();
        // The folded epilogue's layers (form 6, right shifts of 2 to 23, an int8 output zero
        // point, a bias: the kernel's check): the row's blocks in one block with their
        // epilogue. It runs unless a slice is shorter than the blocks need, which the entry's
        // check rules out.
        #[cfg(stowplan_dsp)]
        let out_blocks = if FOLDED {
            let constants = (p.requant, bias, 2 * p.output_offset + 1);
            crate::dsp::interleaved_folded(x, block_filters, constants, out_blocks);
            &mut []
        } else {
            out_blocks
        };
        let filters = block_filters.chunks_exact(4 * words);
        for (k, (y, f)) in out_blocks.iter_mut().zip(filters).enumerate() {
            let acc = block_biases.get(k).copied().unwrap_or([0; 4]);
            let r = match block_requants.get(k) {
                Some(r) if per_channel => *r,
                _ => [tensor; 4],
            };
            *y = finish4::<F>(p, &r, dot4(x, f, acc));
        }
        // The last rows, in the model's layout.
        let last = units / 4 * 4;
        let sums = last_rows(row, filter.get(last * depth..).unwrap_or(&[]), depth);
        for (c, sum) in (last..units).zip(sums) {
            let acc = bias.get(c).copied().unwrap_or(0).wrapping_add(sum);
            if let Some(y) = out.get_mut(c) {
                *y = finish1::<F>(p, requant(c), acc);
            }
        }
    }
}

/// `acc[r] + sum(f_r × x)` for the block's four interleaved rows: with the DSP extension
/// [`crate::dsp::smlad_4x1_interleaved`], elsewhere a plain loop.
#[inline(always)]
fn dot4(x: &[[i8; 4]], block: &[[i8; 4]], acc: [i32; 4]) -> [i32; 4] {
    #[cfg(stowplan_dsp)]
    {
        crate::dsp::smlad_4x1_interleaved(x, block, acc)
    }
    #[cfg(not(stowplan_dsp))]
    {
        let mut acc = acc;
        for (xw, fw) in x.iter().zip(block.chunks_exact(4)) {
            for (a, w) in acc.iter_mut().zip(fw) {
                let s = xw
                    .iter()
                    .zip(w)
                    .fold(0_i32, |s, (&xv, &wv)| s + i32::from(xv) * i32::from(wv));
                *a = a.wrapping_add(s);
            }
        }
        acc
    }
}

/// The sums `sum(w × x)` (modulo 2^32) of the last rows (0 to 3, `f.len() / depth`), in the
/// model's layout: with the DSP extension the first two at once (the input widened once for
/// both, as the [`ROWS`](super::kernel::ROWS) kernel's pairs) and an odd last one alone,
/// elsewhere one by one; unused entries are 0.
#[inline(always)]
fn last_rows(x: &[i8], f: &[i8], depth: usize) -> [i32; 3] {
    let rows = f.len() / depth;
    let row = |r: usize| f.get(r * depth..(r + 1) * depth).unwrap_or(&[]);
    #[cfg(stowplan_dsp)]
    {
        use crate::kernels::shared::blocked::{dot_1x2, dot_offset_s8};
        let [a, b] = if rows >= 2 {
            dot_1x2(x, row(0), row(1), 0, 0, [0; 2])
        } else {
            [0; 2]
        };
        let c = if rows % 2 == 1 {
            dot_offset_s8(x, row(rows - 1), 0)
        } else {
            0
        };
        match rows {
            3 => [a, b, c],
            2 => [a, b, 0],
            _ => [c, 0, 0],
        }
    }
    #[cfg(not(stowplan_dsp))]
    {
        let mut sums = [0; 3];
        for (r, s) in sums.iter_mut().enumerate().take(rows) {
            *s = crate::kernels::shared::dot_s8(x, row(r)).0;
        }
        sums
    }
}

/// One sum (with its bias) requantised, offset and clamped, as [`finish4`] does each.
#[inline(always)]
fn finish1<const F: u8>(p: &FullyConnectedS8, r: Requant, acc: i32) -> i8 {
    #[cfg(stowplan_dsp)]
    {
        let e = epilogue(p);
        e.finish::<F>(acc, e.of::<F>(r, 0))
    }
    #[cfg(not(stowplan_dsp))]
    {
        requantise(p, acc, r)
    }
}

/// The layer's [`Epilogue`](crate::kernels::shared::blocked::Epilogue), without a bias (the
/// sums hold theirs).
#[cfg(stowplan_dsp)]
#[inline(always)]
fn epilogue(p: &FullyConnectedS8) -> crate::kernels::shared::blocked::Epilogue<'static> {
    crate::kernels::shared::blocked::Epilogue {
        bias: None,
        requant: p.requant,
        output_offset: p.output_offset,
        act_min: p.act_min,
        act_max: p.act_max,
    }
}

/// TFLM's `MultiplyByQuantizedMultiplier`, the output offset and the clamp, on one sum.
#[cfg(not(stowplan_dsp))]
#[inline(always)]
fn requantise(p: &FullyConnectedS8, acc: i32, r: Requant) -> i8 {
    use crate::kernels::shared::{clamp_to_i8, fixed};
    let v = fixed::multiply_by_quantized_multiplier(acc, r.multiplier, r.shift);
    clamp_to_i8(v.wrapping_add(p.output_offset), p.act_min, p.act_max)
}

/// Four sums (each with its bias) requantised, offset and clamped: [`Epilogue`]'s block in
/// form `F` with the DSP extension, TFLM's `MultiplyByQuantizedMultiplier` elsewhere.
///
/// [`Epilogue`]: crate::kernels::shared::blocked::Epilogue
#[inline(always)]
fn finish4<const F: u8>(p: &FullyConnectedS8, r: &[Requant; 4], acc: [i32; 4]) -> [i8; 4] {
    #[cfg(stowplan_dsp)]
    {
        epilogue(p).block4_with::<F>(r, [0; 4], acc)
    }
    #[cfg(not(stowplan_dsp))]
    {
        [
            requantise(p, acc[0], r[0]),
            requantise(p, acc[1], r[1]),
            requantise(p, acc[2], r[2]),
            requantise(p, acc[3], r[3]),
        ]
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use super::super::kernel::{
        ANY, EPILOGUE_GENERAL, EPILOGUE_SHIFT1, EPILOGUE_SHIFT2, PORTABLE, folded_bias, folds,
        fully_connected_s8_interleaved_for, interleaved_word, interleaves,
    };
    use super::super::testing::Layer;
    use super::super::{check_fully_connected_s8_with, proven};
    use super::*;
    use crate::kernels::shared::testing::{
        REQUANT, REQUANT_DEEP, REQUANT_GENERAL, REQUANT_TWO, Rng, with_kernel_constant,
    };

    /// The filter re-laid as `interleaved_word` says (the generated constant's layout).
    fn interleave(filter: &[i8], depth: usize, units: usize) -> Vec<i8> {
        let mut out = vec![0_i8; filter.len()];
        for c in 0..units {
            for k in 0..depth / 4 {
                let to = 4 * interleaved_word(c, k, depth, units);
                let from = c * depth + 4 * k;
                out[to..to + 4].copy_from_slice(&filter[from..from + 4]);
            }
        }
        out
    }

    /// `interleaved_word` is a permutation of the filter's words that keeps each block of four
    /// rows in its own words and the last rows in place.
    #[test]
    fn interleaving_permutes_the_words() {
        for (depth, units) in [(4, 1), (4, 4), (8, 5), (12, 7), (64, 8), (20, 11)] {
            let words = depth / 4;
            let mut seen = vec![false; units * words];
            for c in 0..units {
                for k in 0..words {
                    let w = interleaved_word(c, k, depth, units);
                    assert!(!seen[w], "{depth} {units}: word {w} twice");
                    seen[w] = true;
                    let block = c / 4 * 4;
                    if c < units / 4 * 4 {
                        assert!((block * words..(block + 4) * words).contains(&w));
                    } else {
                        assert_eq!(w, c * words + k);
                    }
                }
            }
            assert!(seen.iter().all(|&s| s), "{depth} {units}");
        }
    }

    /// The kernel of kernel constant `k` as generated code calls it.
    fn run(
        k: u8,
        p: &FullyConnectedS8,
        input: &[i8],
        filter: &[i8],
        bias: Option<&[i32]>,
        output: &mut [i8],
    ) {
        fn call<const K: u8>(
            p: &FullyConnectedS8,
            input: &[i8],
            filter: &[i8],
            bias: Option<&[i32]>,
            output: &mut [i8],
        ) {
            proven::fully_connected_s8_with::<K>(p, input, filter, bias, output);
        }
        with_kernel_constant!(
            k,
            call,
            [INTERLEAVED, INTERLEAVED_FOLDED],
            (p, input, filter, bias, output)
        )
    }

    /// On random layers (one to three rows, depths of 1 to 40 words, 1 to 19 channels so that
    /// every count of last rows occurs, per tensor and per channel in each epilogue form and
    /// with right shifts past 23, input offsets from -128 to 128, output zero points inside and
    /// outside int8, with and without a bias and a narrower clamp): the filter re-laid and the
    /// bias folded as generated code makes them, the chosen kernel (the folded one where the
    /// epilogue folds) and the general one write the portable loop's outputs on the model's
    /// filter, byte for byte; the entry's check takes a constant exactly when it is the
    /// layer's.
    #[test]
    fn interleaved_equals_the_portable_loop() {
        let mut rng = Rng(0x1e_a7e5);
        let cases = if cfg!(miri) { 6 } else { 1200 };
        let mut remainders = [0_usize; 4];
        let mut kernels = [0_usize; 2];
        for case in 0..cases {
            let (batches, depth, units) = (rng.range(1, 3), 4 * rng.range(1, 40), rng.range(1, 19));
            let table: &'static [Requant] = rng.pick(&[
                &REQUANT[..],
                &REQUANT_GENERAL[..],
                &REQUANT_TWO[..],
                &REQUANT_DEEP[..],
            ]);
            let per_channel = rng.below(3) != 0;
            let requant = if per_channel {
                &table[case % 7..case % 7 + units]
            } else {
                &table[case % 7..case % 7 + 1]
            };
            let output_offset = if rng.below(8) == 0 {
                rng.pick(&[-129, 128, 300])
            } else {
                rng.range(0, 20) as i32 - 10
            };
            let offsets = (&[-127, 128, 0, 5, -3, 127][..], 0, output_offset);
            let layer = Layer::draw(&mut rng, (batches, depth, units), requant, offsets);
            let Layer {
                p,
                input,
                filter,
                bias,
                want,
            } = &layer;
            let (act_min, act_max) = (p.act_min, p.act_max);
            let relaid = interleave(filter, depth, units);
            let folded: Vec<i32> = (0..units)
                .map(|c| {
                    let b = bias.as_ref().map_or(0, |b| b[c]);
                    folded_bias(b, p.input_offset, &filter[c * depth..(c + 1) * depth])
                })
                .collect();
            let k = fully_connected_s8_interleaved_for(
                requant,
                units,
                (act_min, act_max),
                p.output_offset,
            );
            let folds = folds(requant, units, act_min, act_max, p.output_offset);
            assert_eq!(k & KERNEL_BITS == INTERLEAVED_FOLDED, folds, "{p:?}");
            assert!(interleaves(depth, p.filter_offset, per_channel));
            let checks = |k: u8| {
                fn check<const K: u8>(p: &FullyConnectedS8, i: usize, f: usize, o: usize) -> bool {
                    check_fully_connected_s8_with::<K>(p, i, f, Some(f / p.accum_depth), o).is_ok()
                }
                let (i, f, o) = (input.len(), relaid.len(), want.len());
                with_kernel_constant!(k, check, [INTERLEAVED, INTERLEAVED_FOLDED], (&p, i, f, o))
            };
            // The general kernel in the same form (folding needs form `shift2`).
            let general = INTERLEAVED | (k & !KERNEL_BITS);
            for other in [EPILOGUE_GENERAL, EPILOGUE_SHIFT1, EPILOGUE_SHIFT2] {
                let candidate = INTERLEAVED | other;
                assert_eq!(
                    checks(candidate),
                    candidate == general,
                    "{p:?}: {candidate:#x}"
                );
                let candidate = INTERLEAVED_FOLDED | other;
                assert_eq!(
                    checks(candidate),
                    candidate == k && folds,
                    "{p:?}: {candidate:#x}"
                );
            }
            assert!(checks(INTERLEAVED) && checks(ANY) && checks(PORTABLE));
            assert!(!checks(INTERLEAVED_FOLDED));
            kernels[usize::from(folds)] += 1;
            for kernel in [k, general, INTERLEAVED] {
                let mut got = vec![0_i8; want.len()];
                run(kernel, p, input, &relaid, Some(&folded), &mut got);
                assert_eq!(&got, want, "{p:?} kernel {kernel:#x}");
            }
            remainders[units % 4] += 1;
        }
        assert!(
            cfg!(miri) || remainders.iter().all(|&n| n > 50),
            "{remainders:?}"
        );
    }

    /// The constant refuses a layer with a filter offset (per tensor) or rows of a part word:
    /// the offset's term would depend on the input, and a row would not be whole words.
    #[test]
    fn interleaved_refuses_what_it_cannot_fold() {
        assert!(!interleaves(6, 0, false));
        assert!(!interleaves(0, 0, false));
        assert!(!interleaves(8, 3, false));
        assert!(interleaves(8, 3, true));
        let p = FullyConnectedS8 {
            batches: 1,
            accum_depth: 8,
            output_depth: 4,
            input_offset: 1,
            filter_offset: -2,
            output_offset: 0,
            requant: &REQUANT[..1],
            act_min: -128,
            act_max: 127,
        };
        assert!(check_fully_connected_s8_with::<INTERLEAVED>(&p, 8, 32, Some(4), 4).is_err());
        let q = FullyConnectedS8 {
            filter_offset: 0,
            ..p
        };
        assert!(check_fully_connected_s8_with::<INTERLEAVED>(&q, 8, 32, Some(4), 4).is_ok());
        let r = FullyConnectedS8 {
            accum_depth: 6,
            ..q
        };
        assert!(check_fully_connected_s8_with::<INTERLEAVED>(&r, 6, 24, Some(4), 4).is_err());
        // The folded kernel takes its folded bias only.
        let s = FullyConnectedS8 {
            requant: &REQUANT_TWO[..1],
            ..q
        };
        const FOLDED: u8 = INTERLEAVED_FOLDED | EPILOGUE_SHIFT2;
        assert!(check_fully_connected_s8_with::<FOLDED>(&s, 8, 32, Some(4), 4).is_ok());
        assert!(check_fully_connected_s8_with::<FOLDED>(&s, 8, 32, None, 4).is_err());
        assert!(check_fully_connected_s8_with::<INTERLEAVED>(&s, 8, 32, None, 4).is_ok());
    }
}
