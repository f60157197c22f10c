//! int8 FULLY_CONNECTED with the DSP extension (cfg `stowplan_dsp`; compiled on the host for
//! its tests, with the instructions' portable twins): each input row widened once for three
//! output channels at a time ([`dot_1x3`]), then two or one for the last, and the epilogue in
//! the form the kernel constant names. The sums are the portable kernel's, in another order
//! (exact modulo 2^32, as TFLM's accumulator wraps); the epilogue is
//! [`Epilogue::finish`]'s, which equals TFLM's requantisation in every form.

use super::FullyConnectedS8;
use super::kernel::{ANY, KERNEL_BITS, ROWS, form_for};
use crate::dsp::{rows3_folded, splat16};
use crate::kernels::shared::Requant;
use crate::kernels::shared::blocked::{Epilogue, dot_1x2, dot_1x3, dot_offset_s8};
use crate::kernels::shared::requant::epilogue_in;

/// Runs `p` with kernel constant `K` and returns `true`, or returns `false` (nothing written)
/// for a kernel this module does not run ([`PORTABLE`](super::kernel::PORTABLE)). The slices
/// hold the sizes `p` gives (the entry's check).
#[inline(always)]
pub(super) fn fully_connected_s8<const K: u8>(
    p: &FullyConnectedS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) -> bool {
    match K & KERNEL_BITS {
        ANY | ROWS => {}
        _ => return false,
    }
    // With a constant's epilogue bits the form is a constant too (`computed` is then unused).
    let computed = form_for(p.requant, p.output_depth, p.act_min, p.act_max);
    match epilogue_in(K, computed) {
        6 => rows::<6>(p, input, filter, bias, output),
        5 => rows::<5>(p, input, filter, bias, output),
        _ => rows::<0>(p, input, filter, bias, output),
    }
    true
}

/// [`ROWS`] in epilogue form `F`; in form 6 with the folded epilogue's constants, rows
/// of whole words and no filter offset, the channel triples in one block with their epilogue
/// ([`rows3_folded`]).
#[inline(never)]
pub(super) fn rows<const F: u8>(
    p: &FullyConnectedS8,
    input: &[i8],
    filter: &[i8],
    bias: Option<&[i32]>,
    output: &mut [i8],
) {
    let (depth, units) = (p.accum_depth, p.output_depth);
    if units == 0 {
        return;
    }
    let per_channel = p.requant.len() > 1;
    // The per-channel kernel has no filter offset (filters are symmetric).
    let filter_offset = if per_channel { 0 } else { p.filter_offset };
    // TFLM's `sum((filter + filter_offset) * (input + input_offset))` expanded, equal modulo
    // 2^32: `sum(filter * (input + input_offset)) + filter_offset * sum(input) + depth *
    // filter_offset * input_offset`.
    let constant = (depth as i32)
        .wrapping_mul(filter_offset)
        .wrapping_mul(p.input_offset);
    let e = Epilogue {
        bias,
        requant: p.requant,
        output_offset: p.output_offset,
        act_min: p.act_min,
        act_max: p.act_max,
    };
    let tensor = match p.requant.first() {
        Some(&r) => r,
        None => Requant {
            multiplier: 0,
            shift: 0,
        },
    };
    let (off, offset) = (splat16(p.input_offset), p.input_offset);
    // The folded epilogue's constants (form 6: multipliers `>= 0` and right shifts of 2 or
    // more; none past 23, an int8 output zero point; a bias or none) and rows of whole words
    // without a filter offset: the channel triples in one block ([`rows3_folded`]).
    let folded = F == 6
        && constant == 0
        && filter_offset == 0
        && depth.is_multiple_of(4)
        && bias.is_none_or(|b| b.len() >= units)
        && (-128..=127).contains(&p.output_offset)
        && deepest(p.requant, units) >= -23;
    let outputs = output.chunks_exact_mut(units).take(p.batches);
    for (b, out) in outputs.enumerate() {
        let row = input.get(b * depth..(b + 1) * depth).unwrap_or(&[]);
        let row_constant = if filter_offset == 0 {
            constant
        } else {
            let sum = row.iter().fold(0_i32, |s, &x| s.wrapping_add(i32::from(x)));
            constant.wrapping_add(filter_offset.wrapping_mul(sum))
        };
        // Output channel `c` from `sum(filter * (input + input_offset))`, its multiplier `r`
        // and bias `b`.
        let finish = |dot: i32, r: Requant, b: i32| {
            e.finish::<F>(dot.wrapping_add(row_constant), e.of::<F>(r, b))
        };
        // The multipliers and biases of channels `c..c + 3`, with one bounds check each.
        let constants = |c: usize| -> ([Requant; 3], [i32; 3]) {
            let r = if per_channel {
                match p.requant.get(c..c + 3) {
                    Some(&[r0, r1, r2]) => [r0, r1, r2],
                    _ => [tensor; 3],
                }
            } else {
                [tensor; 3]
            };
            let b = match bias.and_then(|b| b.get(c..c + 3)) {
                Some(&[b0, b1, b2]) => [b0, b1, b2],
                _ => [0; 3],
            };
            (r, b)
        };
        let one = |c: usize| -> (Requant, i32) {
            let r = match p.requant.get(c) {
                Some(&r) if per_channel => r,
                _ => tensor,
            };
            let b = match bias.and_then(|b| b.get(c)) {
                Some(&b) => b,
                None => 0,
            };
            (r, b)
        };
        let filter_at = |c: usize| filter.get(c * depth..).unwrap_or(&[]);
        let mut c = 0;
        if folded {
            let triples = 3 * (units / 3);
            let constants = (p.requant, bias, 2 * p.output_offset + 1);
            let words = row.as_chunks::<4>().0;
            let y = out.get_mut(..triples).unwrap_or(&mut []);
            c = 3 * rows3_folded(words, filter, depth, off, constants, y);
        }
        while c + 3 <= units {
            let [s0, s1, s2] = dot_1x3(row, filter_at(c), depth, off, offset);
            let ([r0, r1, r2], [b0, b1, b2]) = constants(c);
            if let Some([o0, o1, o2]) = out.get_mut(c..c + 3) {
                (*o0, *o1, *o2) = (finish(s0, r0, b0), finish(s1, r1, b1), finish(s2, r2, b2));
            }
            c += 3;
        }
        match out.get_mut(c..) {
            Some([o0, o1]) => {
                let fb = filter_at(c + 1);
                let fa = filter_at(c).get(..depth).unwrap_or(&[]);
                let [s0, s1] = dot_1x2(row, fa, fb, off, offset, [0, 0]);
                let ((r0, b0), (r1, b1)) = (one(c), one(c + 1));
                (*o0, *o1) = (finish(s0, r0, b0), finish(s1, r1, b1));
            }
            Some([o0]) => {
                let (r0, b0) = one(c);
                *o0 = finish(dot_offset_s8(row, filter_at(c), offset), r0, b0);
            }
            _ => {}
        }
    }
}

/// The least shift of the first `channels` multipliers (0 without one), in one pass without a
/// branch per channel: in form 6 (multipliers `>= 0`, right shifts of 2 or more) the folded
/// epilogue takes the layer when it is `-23` or more.
#[inline(always)]
fn deepest(requant: &[Requant], channels: usize) -> i32 {
    requant
        .iter()
        .take(channels)
        .fold(0, |least, r| least.min(r.shift))
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;

    use super::super::check_fully_connected_s8_with;
    use super::super::kernel::{
        EPILOGUE_GENERAL, EPILOGUE_SHIFT1, EPILOGUE_SHIFT2, PORTABLE, fully_connected_s8_kernel,
    };
    use super::super::testing::Layer;
    use super::*;
    use crate::kernels::shared::testing::{Rng, with_kernel_constant};

    /// A multiplier in `[2^30, 2^31)` with shift `shift`.
    const fn r(k: i32, shift: i32) -> Requant {
        Requant {
            multiplier: (1 << 30) + k * 48_271_231 % (1 << 30),
            shift,
        }
    }

    /// Per-channel tables whose first `n` entries take each epilogue form: right shifts of 2 and
    /// more; with one of 1; with a left shift and a shift of 0 (the general form).
    const TABLES: [[Requant; 16]; 3] = {
        let mut t = [[r(0, -2); 16]; 3];
        let mut c = 0;
        while c < 16 {
            let k = c as i32 + 1;
            t[0][c] = r(k, -2 - k % 10);
            t[1][c] = r(k, if c % 3 == 0 { -1 } else { -3 - k % 7 });
            t[2][c] = r(k, if c % 3 == 0 { 1 - k % 2 } else { -4 - k % 5 });
            c += 1;
        }
        t
    };
    static TABLE_SHIFT2: [Requant; 16] = TABLES[0];
    static TABLE_SHIFT1: [Requant; 16] = TABLES[1];
    static TABLE_GENERAL: [Requant; 16] = TABLES[2];

    /// The DSP FULLY_CONNECTED of kernel constant `k`, as generated code calls it.
    fn run(
        k: u8,
        p: &FullyConnectedS8,
        input: &[i8],
        filter: &[i8],
        bias: Option<&[i32]>,
        output: &mut [i8],
    ) -> bool {
        with_kernel_constant!(
            k,
            fully_connected_s8,
            [ROWS],
            (p, input, filter, bias, output)
        )
    }

    /// On random layers (one to three rows, depths 0 to 70 that are and are not multiples of
    /// four, channel counts 1 to 16 so that each block remainder occurs, per-tensor with and
    /// without a filter offset and per-channel multipliers of each epilogue form, the whole int8
    /// range and a narrower clamp, with and without a bias; the folded epilogue's channel
    /// triples among them): the chosen kernel takes the layer
    /// and runs it with the portable loop's outputs, byte for byte, and so does the run-time
    /// choice ([`ANY`]); a constant naming another form fails the entry's check.
    #[test]
    fn rows_equal_the_portable_loop() {
        let mut rng = Rng(0x0fc_0003);
        let cases = if cfg!(miri) { 4 } else { 1500 };
        let mut forms = [0_usize; 3];
        let mut folded = 0;
        for _ in 0..cases {
            let (batches, depth, units) = (rng.range(1, 3), rng.range(0, 70), rng.range(1, 16));
            let table: &'static [Requant; 16] =
                rng.pick(&[&TABLE_SHIFT2, &TABLE_SHIFT1, &TABLE_GENERAL]);
            let per_channel = rng.below(3) != 0;
            let requant = if per_channel {
                &table[..units]
            } else {
                &table[..1]
            };
            let filter_offset = if per_channel {
                0
            } else {
                rng.pick(&[0, 0, 3, -7])
            };
            let offsets = (
                &[-127, 128, 0, 5, -3][..],
                filter_offset,
                rng.range(0, 20) as i32 - 10,
            );
            let layer = Layer::draw(&mut rng, (batches, depth, units), requant, offsets);
            let Layer {
                p,
                input,
                filter,
                want,
                ..
            } = &layer;
            let bias = layer.bias.as_deref();
            let k = fully_connected_s8_kernel(p);
            forms[usize::from((k >> 4) - 1)] += 1;
            // The folded epilogue's triples: form `shift2` (its shifts are 2 to 11), no filter
            // offset, rows of whole words, three channels or more (with a bias and without).
            folded += usize::from(
                k & !KERNEL_BITS == EPILOGUE_SHIFT2
                    && p.filter_offset == 0
                    && depth > 0
                    && depth.is_multiple_of(4)
                    && units >= 3,
            );
            let lengths = (
                input.len(),
                filter.len(),
                bias.map(<[i32]>::len),
                want.len(),
            );
            let checks = |k: u8| {
                let (i, f, b, o) = lengths;
                with_kernel_constant!(k, check, [ROWS], (&p, i, f, b, o))
            };
            fn check<const K: u8>(
                p: &FullyConnectedS8,
                i: usize,
                f: usize,
                b: Option<usize>,
                o: usize,
            ) -> bool {
                check_fully_connected_s8_with::<K>(p, i, f, b, o).is_ok()
            }
            for other in [EPILOGUE_GENERAL, EPILOGUE_SHIFT1, EPILOGUE_SHIFT2] {
                let candidate = ROWS | other;
                assert_eq!(checks(candidate), candidate == k, "{p:?}: {candidate:#x}");
            }
            assert!(checks(ROWS) && checks(ANY) && checks(PORTABLE), "{p:?}");
            for kernel in [k, ANY] {
                let mut got = vec![0_i8; want.len()];
                assert!(run(kernel, p, input, filter, bias, &mut got));
                assert_eq!(&got, want, "{p:?} kernel {kernel:#x}");
            }
            assert!(!run(PORTABLE, p, input, filter, bias, &mut [0; 0]));
        }
        // Every form was drawn, and the folded triples ran (miri's few draws cover fewer).
        assert!(cfg!(miri) || forms.iter().all(|&n| n > 0), "{forms:?}");
        assert!(cfg!(miri) || folded > 40, "{folded}");
    }
}
