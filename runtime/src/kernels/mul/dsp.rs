//! int8 and int16 MUL blocked for the Cortex-M DSP extension (cfg `stowplan_dsp`), on two
//! slices and on one buffer (the one-buffer entries'), through the blocked walk of
//! [`binary_walk`](crate::kernels::shared::binary_walk): the products of two lanes by
//! `SMULBB`/`SMULTT`, then each element's requantisation by `mul_quantized`'s own functions.

use super::{MulS8, MulS16, mul_product, mul_s8_one, mul_s16_one};
use crate::dsp::{smulbb, smultt, splat16, sxtab16, sxtab16_ror8};
use crate::kernels::shared::at;
use crate::kernels::shared::binary_walk::{
    Apart, FirstAndOutput, OneBuffer, Pairs, four_at, offset_fits, pairs,
};
use crate::kernels::shared::blocked::{load4, word2};

/// int8 MUL ([`mul_s8`](super::mul::mul_s8)) blocked for the same shapes and a scalar input
/// (module docs): the products of the offset values by `SMULBB` (lanes 0 and 1) and `SMULTT`
/// (lanes 2 and 3), exact (two halfwords' product fits 31 bits), then `mul_quantized`'s
/// requantisation. Returns `false`, having written nothing, as [`add_s8`].
#[inline(always)]
pub(crate) fn mul_s8(p: &MulS8, input1: &[i8], input2: &[i8], output: &mut [i8]) -> bool {
    mul_blocked(p, &mut Apart { input1, output }, input2)
}

/// [`mul_s8`] on one buffer ([`overlap::mul_s8`](crate::kernels::overlap::mul_s8)), walked and
/// declined as [`add_s8_on_one_buffer`].
#[inline(always)]
pub(crate) fn mul_s8_on_one_buffer(
    p: &MulS8,
    buf: &mut [i8],
    input_at: usize,
    output_at: usize,
    input2: &[i8],
) -> bool {
    match OneBuffer::new(&p.shape, buf, input_at, output_at) {
        Some(mut io) => mul_blocked(p, &mut io, input2),
        None => false,
    }
}

/// The blocked MUL on `io`'s first input and output and the slice `input2` ([`mul_s8`]).
#[inline(always)]
fn mul_blocked(p: &MulS8, io: &mut impl FirstAndOutput<i8>, input2: &[i8]) -> bool {
    if !offset_fits(p.input1_offset) || !offset_fits(p.input2_offset) {
        return false;
    }
    let len = io.len();
    let Some(pairs) = pairs(&p.shape, len) else {
        return false;
    };
    let (off1, off2) = (splat16(p.input1_offset), splat16(p.input2_offset));
    // The narrowing of `mul_s8_one`, from the product of the two offset values.
    let one = |product: i32| mul_product(p, product) as i8;
    // Four products of the offset values of `x` (offset `ox`) and `y` (offset `oy`), in the
    // elements' order.
    let four = |x: u32, ox: u32, y: u32, oy: u32| {
        let (x02, x13) = (sxtab16(ox, x), sxtab16_ror8(ox, x));
        let (y02, y13) = (sxtab16(oy, y), sxtab16_ror8(oy, y));
        [
            one(smulbb(x02, y02)),
            one(smulbb(x13, y13)),
            one(smultt(x02, y02)),
            one(smultt(x13, y13)),
        ]
    };
    match pairs {
        Pairs::Same => io.walk(
            len,
            |k, x| four(load4(&x), off1, load4(&four_at(input2, k)), off2),
            |k, x| mul_s8_one(p, x, at(input2, k)),
        ),
        // The scalar with its offset value in both halfwords of `c`: it fits a halfword
        // ([`offset_fits`]), so as the offset of a word of zeros it is the value of all four
        // lanes (a product's factors commute).
        Pairs::SecondScalar(n) => {
            let y = at(input2, 0);
            let c = splat16(p.input2_offset.wrapping_add(i32::from(y)));
            io.walk(
                n,
                |_, x| four(load4(&x), off1, 0, c),
                |_, x| mul_s8_one(p, x, y),
            );
        }
        Pairs::FirstScalar(n) => {
            // Read before anything is written.
            let x = io.first(0);
            let c = splat16(p.input1_offset.wrapping_add(i32::from(x)));
            io.walk(
                n,
                |k, _| four(load4(&four_at(input2, k)), off2, 0, c),
                |k, _| mul_s8_one(p, x, at(input2, k)),
            );
        }
    }
    true
}

/// int16 MUL ([`mul_s16`](super::mul::mul_s16)) blocked for the same shapes and a scalar input
/// with both offsets 0 (TFLM's int16 MUL: zero points 0): blocks of four elements of each
/// input (two words), the products of two lanes by `SMULBB` and `SMULTT` (exact: two
/// halfwords' product fits 31 bits), then `mul_quantized`'s requantisation. Returns `false`,
/// having written nothing, for other offsets (an int16 plus an offset need not fit a
/// halfword) and other broadcasts (the caller runs the portable walk).
#[inline(always)]
pub(crate) fn mul_s16(p: &MulS16, input1: &[i16], input2: &[i16], output: &mut [i16]) -> bool {
    mul16_blocked(p, &mut Apart { input1, output }, input2)
}

/// [`mul_s16`] on one buffer ([`overlap::mul_s16`](crate::kernels::overlap::mul_s16)), walked and
/// declined as [`add_s8_on_one_buffer`].
#[inline(always)]
pub(crate) fn mul_s16_on_one_buffer(
    p: &MulS16,
    buf: &mut [i16],
    input_at: usize,
    output_at: usize,
    input2: &[i16],
) -> bool {
    match OneBuffer::new(&p.shape, buf, input_at, output_at) {
        Some(mut io) => mul16_blocked(p, &mut io, input2),
        None => false,
    }
}

/// The blocked int16 MUL on `io`'s first input and output and the slice `input2`
/// ([`mul_s16`]).
#[inline(always)]
fn mul16_blocked(p: &MulS16, io: &mut impl FirstAndOutput<i16>, input2: &[i16]) -> bool {
    if p.input1_offset != 0 || p.input2_offset != 0 {
        return false;
    }
    let len = io.len();
    let Some(pairs) = pairs(&p.shape, len) else {
        return false;
    };
    let one = |product: i32| mul_product(p, product) as i16;
    // The four products of the elements of two words of each input.
    let four = |xa: u32, xb: u32, ya: u32, yb: u32| {
        [
            one(smulbb(xa, ya)),
            one(smultt(xa, ya)),
            one(smulbb(xb, yb)),
            one(smultt(xb, yb)),
        ]
    };
    match pairs {
        Pairs::Same => io.walk(
            len,
            |k, [x0, x1, x2, x3]| {
                let [y0, y1, y2, y3] = four_at(input2, k);
                four(word2(x0, x1), word2(x2, x3), word2(y0, y1), word2(y2, y3))
            },
            |k, x| mul_s16_one(p, x, at(input2, k)),
        ),
        // The scalar in both halfwords of `c` (a product's factors commute).
        Pairs::SecondScalar(n) => {
            let y = at(input2, 0);
            let c = splat16(i32::from(y));
            io.walk(
                n,
                |_, [x0, x1, x2, x3]| four(word2(x0, x1), word2(x2, x3), c, c),
                |_, x| mul_s16_one(p, x, y),
            );
        }
        Pairs::FirstScalar(n) => {
            // Read before anything is written.
            let x = io.first(0);
            let c = splat16(i32::from(x));
            io.walk(
                n,
                |k, _| {
                    let [y0, y1, y2, y3] = four_at(input2, k);
                    four(word2(y0, y1), word2(y2, y3), c, c)
                },
                |k, _| mul_s16_one(p, x, at(input2, k)),
            );
        }
    }
    true
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    /// The portable kernel's loop (what [`super::super::mul_s8`] runs off Armv7E-M), on slices
    /// of any length (the cases here try lengths off by a few).
    fn mul_s8_portable(p: &super::super::MulS8, x1: &[i8], x2: &[i8], out: &mut [i8]) {
        crate::kernels::shared::broadcast::broadcast(&p.shape, x1, x2, out, |x, y| {
            super::super::mul_s8_one(p, x, y)
        });
    }

    /// As [`mul_s8_portable`], int16.
    fn mul_s16_portable(p: &super::super::MulS16, x1: &[i16], x2: &[i16], out: &mut [i16]) {
        crate::kernels::shared::broadcast::broadcast(&p.shape, x1, x2, out, |x, y| {
            super::super::mul_s16_one(p, x, y)
        });
    }
    use super::*;
    use crate::kernels::add::dsp::tests::{add_params, add16_params, binary16_case};
    use crate::kernels::shared::Requant;
    use crate::kernels::shared::broadcast::BinaryShape;
    use crate::kernels::shared::testing::Rng;
    use crate::kernels::shared::testing::binary::{
        CASES, binary_case, check_one_buffer, edge_pairs16, on_one_buffer, one_buffer_case,
    };

    /// Random int8 MUL parameters: ADD's offsets, output multiplier and activation ranges
    /// (`add_params`), the output shift now and then to the left (the product of the scales
    /// may exceed the output's).
    fn mul_params(rng: &mut Rng, shape: BinaryShape) -> MulS8 {
        let a = add_params(rng, shape);
        MulS8 {
            shape,
            input1_offset: a.input1_offset,
            input2_offset: a.input2_offset,
            output_offset: a.output_offset,
            output: Requant {
                multiplier: a.output.multiplier,
                shift: a.output.shift + rng.pick(&[0, 0, 8, 20]),
            },
            act_min: a.act_min,
            act_max: a.act_max,
        }
    }

    /// Random int16 MUL parameters: mostly both offsets 0 (TFLM's int16 MUL; blocked), now and
    /// then one not (declined), [`mul_params`]' multipliers and shifts.
    fn mul16_params(rng: &mut Rng, shape: BinaryShape) -> MulS16 {
        let a = add16_params(rng, shape);
        let m = mul_params(rng, shape);
        let (input1_offset, input2_offset) = match rng.below(8) {
            0 => (a.input1_offset, 0),
            1 => (0, rng.pick(&[1, -1, 32768])),
            _ => (0, 0),
        };
        MulS16 {
            input1_offset,
            input2_offset,
            output_offset: a.output_offset,
            act_min: a.act_min,
            act_max: a.act_max,
            ..m
        }
    }

    #[test]
    fn mul_equals_the_portable_kernel() {
        let mut rng = Rng(0x5eed_0013);
        let (mut blocked, mut declined) = (0, 0);
        for _ in 0..CASES {
            let (shape, x1, x2, len) = binary_case(&mut rng);
            let (mut fast, mut slow) = (vec![0x55_i8; len], vec![0x55_i8; len]);
            let p = mul_params(&mut rng, shape);
            if mul_s8(&p, &x1, &x2, &mut fast) {
                blocked += 1;
            } else {
                declined += 1;
                assert!(fast.iter().all(|&v| v == 0x55), "declined, yet written");
                mul_s8_portable(&p, &x1, &x2, &mut fast);
            }
            mul_s8_portable(&p, &x1, &x2, &mut slow);
            assert_eq!(fast, slow, "MUL {p:?} {} {}", x1.len(), x2.len());
        }
        assert!(blocked > declined, "{blocked} blocked, {declined} declined");
        assert!(cfg!(miri) || declined > 0);
    }

    /// Every pair of int8 values at TFLM's extreme offsets (-127 and 128), with the products'
    /// extremes.
    #[test]
    fn mul_over_every_pair_at_extreme_offsets() {
        let step = if cfg!(miri) { 37 } else { 1 };
        let xs: Vec<i8> = (-128..=127).step_by(step).collect();
        let n = xs.len();
        let shape = BinaryShape {
            input1: [1, 1, 1, 1, n, n],
            input2: [1, 1, 1, 1, n, n],
            output: [1, 1, 1, 1, n, n],
        };
        let x1: Vec<i8> = xs.iter().flat_map(|&a| xs.iter().map(move |_| a)).collect();
        let x2: Vec<i8> = xs.iter().flat_map(|_| xs.iter().copied()).collect();
        for (o1, o2) in [(-127, -127), (128, 128), (-127, 128), (128, -127), (0, 0)] {
            let mul = MulS8 {
                shape,
                input1_offset: o1,
                input2_offset: o2,
                output_offset: -3,
                output: Requant {
                    multiplier: 1_500_000_000,
                    shift: -9,
                },
                act_min: -128,
                act_max: 127,
            };
            let (mut fast, mut slow) = (vec![0_i8; n * n], vec![0_i8; n * n]);
            assert!(mul_s8(&mul, &x1, &x2, &mut fast));
            mul_s8_portable(&mul, &x1, &x2, &mut slow);
            assert_eq!(fast, slow, "MUL offsets {o1} {o2}");
            for d in [0, 1, 3] {
                assert_eq!(
                    on_one_buffer(&x1, d, |b, ia, oa| mul_s8_on_one_buffer(
                        &mul, b, ia, oa, &x2
                    )),
                    slow,
                    "MUL on one buffer, d {d}, offsets {o1} {o2}"
                );
            }
        }
    }

    /// The blocked MUL on one buffer (the one-buffer entry's) equals the portable kernel on
    /// two, as ADD's (`add_on_one_buffer_equals_the_portable_kernel`).
    #[test]
    fn mul_on_one_buffer_equals_the_portable_kernel() {
        let mut rng = Rng(0x5eed_0014);
        let (mut ran, mut declined) = (0, 0);
        for _ in 0..CASES {
            let (shape, x1, x2, len) = one_buffer_case(&mut rng);
            let mut want = vec![0_i8; len];
            let p = mul_params(&mut rng, shape);
            mul_s8_portable(&p, &x1, &x2, &mut want);
            let blocked = mul_s8(&p, &x1, &x2, &mut vec![0; len]);
            let run = |b: &mut [i8], ia, oa| mul_s8_on_one_buffer(&p, b, ia, oa, &x2);
            if check_one_buffer(&mut rng, "MUL", &x1, &want, blocked, run) == 0 {
                declined += 1;
            } else {
                ran += 1;
            }
        }
        assert!(ran > declined, "{ran} ran, {declined} declined");
        assert!(cfg!(miri) || declined > 0);
    }

    /// The blocked int16 MUL on two slices and on one buffer equals the portable kernel;
    /// declined, with nothing written, for other broadcasts and offsets other than 0.
    #[test]
    fn int16_mul_equals_the_portable_kernel() {
        let mut rng = Rng(0x5eed_0026);
        let (mut blocked, mut declined, mut ran) = (0, 0, 0);
        for _ in 0..CASES {
            let (shape, x1, x2, len) = binary16_case(&mut rng);
            let (mut fast, mut slow) = (vec![0x55_i16; len], vec![0x55_i16; len]);
            let p = mul16_params(&mut rng, shape);
            let ok = mul_s16(&p, &x1, &x2, &mut fast);
            if !ok {
                assert!(fast.iter().all(|&v| v == 0x55), "declined, yet written");
                mul_s16_portable(&p, &x1, &x2, &mut fast);
            }
            mul_s16_portable(&p, &x1, &x2, &mut slow);
            assert_eq!(fast, slow, "MUL {p:?} {} {}", x1.len(), x2.len());
            if ok {
                blocked += 1;
            } else {
                declined += 1;
            }
            if shape.input1 != shape.output {
                continue;
            }
            let n = shape.output.iter().product::<usize>();
            let x1: Vec<i16> = (0..n).map(|_| rng.s16()).collect();
            let mut want = vec![0_i16; n];
            let p = mul16_params(&mut rng, shape);
            mul_s16_portable(&p, &x1, &x2, &mut want);
            let b = mul_s16(&p, &x1, &x2, &mut vec![0; n]);
            let run = |buf: &mut [i16], ia, oa| mul_s16_on_one_buffer(&p, buf, ia, oa, &x2);
            ran += usize::from(check_one_buffer(&mut rng, "MUL int16", &x1, &want, b, run) > 0);
        }
        // Under miri the few cases may decline more often than they block.
        assert!(
            cfg!(miri) || blocked > declined,
            "{blocked} blocked, {declined} declined"
        );
        assert!(
            cfg!(miri) || (declined > 0 && ran > CASES / 4),
            "{declined} {ran}"
        );
    }

    /// Every pair of int16 edge values, the same shapes and each input a scalar, at extreme
    /// multipliers.
    #[test]
    fn int16_mul_over_edge_pairs() {
        let (x1, x2, n) = edge_pairs16();
        let full = [1, 1, 1, 1, n, n];
        for (s1, s2) in [(full, full), (full, [1; 6]), ([1; 6], full)] {
            let shape = BinaryShape {
                input1: s1,
                input2: s2,
                output: full,
            };
            let a1 = if s1 == full {
                &x1[..]
            } else {
                &x1[n * n - 1..]
            };
            let a2 = if s2 == full { &x2[..] } else { &x2[..1] };
            for (multiplier, shift) in [(i32::MAX, 0), (1 << 30, -15), (1_500_000_000, 14)] {
                let mul = MulS16 {
                    shape,
                    input1_offset: 0,
                    input2_offset: 0,
                    output_offset: 0,
                    output: Requant { multiplier, shift },
                    act_min: -32768,
                    act_max: 32767,
                };
                let (mut fast, mut slow) = (vec![0_i16; n * n], vec![0_i16; n * n]);
                assert!(mul_s16(&mul, a1, a2, &mut fast));
                mul_s16_portable(&mul, a1, a2, &mut slow);
                assert_eq!(fast, slow, "MUL {multiplier} {shift}");
            }
        }
    }

    /// Broadcasts other than a scalar are declined, with nothing written.
    #[test]
    fn other_broadcasts_are_declined() {
        let shape = BinaryShape {
            input1: [1, 1, 1, 1, 3, 4],
            input2: [1, 1, 1, 1, 1, 4],
            output: [1, 1, 1, 1, 3, 4],
        };
        let mut rng = Rng(9);
        let q = mul_params(&mut rng, shape);
        let mut out = [3_i8; 12];
        assert!(!mul_s8(&q, &[1; 12], &[2; 4], &mut out));
        assert_eq!(out, [3; 12]);
        let mut buf = [1_i8; 12];
        assert!(!mul_s8_on_one_buffer(&q, &mut buf, 0, 0, &[2; 4]));
        assert_eq!(buf, [1; 12]);
    }
}
