//! int8 and int16 ADD blocked for the Cortex-M DSP extension (cfg `stowplan_dsp`), on two
//! slices and on one buffer (the one-buffer entries'), through the blocked walk of
//! [`binary_walk`](crate::kernels::shared::binary_walk).
//!
//! - ADD and MUL (int8) with the same shapes, or one input a single element broadcast over
//!   the other: four elements of each input per load, the input offset added to two lanes at
//!   once (`SXTAB16` with the offset in both halfwords), MUL's products of two lanes by
//!   `SMULBB`/`SMULTT`; then each element's requantisation by `add_quantized`'s and
//!   `mul_quantized`'s own functions (a scalar input's ADD term computed once). The offset
//!   values are exact when `x + offset` fits a halfword for every int8 `x` (TFLM's offsets,
//!   minus a zero point, lie in `-127..=128`); other offsets and the other broadcasts take the
//!   portable walk, and so do the last one to three elements. The same loop runs on two
//!   slices ([`add_s8`], [`mul_s8`]) and on one buffer holding the first input and the output
//!   ([`add_s8_on_one_buffer`], [`mul_s8_on_one_buffer`], for the overlapped entries): each
//!   block reads its four first-input elements before it writes its four outputs, blocks in
//!   increasing order, so a first input at or above the output is never written over before
//!   it is read ([`one_buffer_walk`]).
//! - ADD and MUL (int16), the same shapes or a scalar input: blocks of four elements (two
//!   words) of each input, walked as the int8 ones on two slices ([`add_s16`], [`mul_s16`])
//!   and on one buffer ([`add_s16_on_one_buffer`], [`mul_s16_on_one_buffer`]: the same
//!   [`one_buffer_walk`], each block reading its four first-input elements before it writes
//!   its four outputs, blocks in increasing order). ADD's offset values are computed in 32
//!   bits from each halfword, then `add_quantized`'s requantisation (a scalar input's term
//!   computed once): every offset runs. MUL's products of two lanes by `SMULBB`/`SMULTT`,

use super::{AddS8, AddS16, add_s8_one, add_s16_one, kernel};
use crate::dsp::{splat16, sxtab16, sxtab16_ror8};
use crate::kernels::shared::at;
use crate::kernels::shared::binary_walk::{
    Apart, FirstAndOutput, OneBuffer, Pairs, four_at, pairs,
};
use crate::kernels::shared::blocked::{Scale, hi, lo, load4, word2};
use crate::kernels::shared::broadcast::clamp_i32;

/// int8 ADD ([`add_s8`](super::add_s8)) blocked for the same shapes and a scalar input (module
/// docs). Returns `false`, having written nothing, for other broadcasts and for offsets out of
/// [`offset_fits`](crate::kernels::shared::broadcast::offset_fits)'s range (the caller runs
/// the portable walk).
///
/// With kernel constant `K` ([`kernel`](super::kernel)) other than `ANY`, the loop it names
/// (the entries' check proved it is the layer's), so that only that loop is linked.
#[inline(always)]
pub(crate) fn add_s8<const K: u8>(
    p: &AddS8,
    input1: &[i8],
    input2: &[i8],
    output: &mut [i8],
) -> bool {
    add_blocked::<K>(p, &mut Apart { input1, output }, input2)
}

/// [`add_s8`] on one buffer ([`overlap::add_s8`](crate::kernels::overlap::add_s8)): the first input at
/// `buf[input_at..]`, the output at `buf[output_at..]`, the second input in `input2`, walked
/// as [`one_buffer_walk`] walks them (each block reads its first-input elements before it
/// writes, blocks in increasing order: correct for every displacement
/// `input_at − output_at ≥ 0`). Returns `false`, having written nothing, for what [`add_s8`]
/// declines and unless [`binary_fits`](crate::kernels::overlap::binary_fits) and both tensors lie inside
/// `buf`.
#[inline(always)]
pub(crate) fn add_s8_on_one_buffer<const K: u8>(
    p: &AddS8,
    buf: &mut [i8],
    input_at: usize,
    output_at: usize,
    input2: &[i8],
) -> bool {
    match OneBuffer::new(&p.shape, buf, input_at, output_at) {
        Some(mut io) => add_blocked::<K>(p, &mut io, input2),
        None => false,
    }
}

/// [`add_s8_on_one_buffer`] choosing its loop at every call (the run-time entry's).
#[inline(always)]
pub(crate) fn add_s8_on_one_buffer_any(
    p: &AddS8,
    buf: &mut [i8],
    input_at: usize,
    output_at: usize,
    input2: &[i8],
) -> bool {
    add_s8_on_one_buffer::<{ kernel::ANY }>(p, buf, input_at, output_at, input2)
}

/// The blocked ADD on `io`'s first input and output and the slice `input2` ([`add_s8`]): the
/// loop kernel constant `K` names, or with `ANY` the one [`kernel::add_s8_kernel`] chooses now.
#[inline(always)]
fn add_blocked<const K: u8>(p: &AddS8, io: &mut impl FirstAndOutput<i8>, input2: &[i8]) -> bool {
    // A constant `K` makes `chosen` a constant: the other arms are not compiled in.
    let chosen = if K == kernel::ANY {
        kernel::add_s8_kernel(p)
    } else {
        K
    };
    let len = io.len();
    let (off1, off2) = (splat16(p.input1_offset), splat16(p.input2_offset));
    let s = Scales::new(p);
    let (t1, t2) = (|v: i32| s.term1(v), |v: i32| s.term2(v));
    let sum = |a: i32, b: i32| s.sum(a, b) as i8;
    // The narrowing of `add_s8_one`, from the two offset values.
    let one = |v1: i32, v2: i32| s.sum(s.term1(v1), s.term2(v2)) as i8;
    // The residual connections' form: one input's multiplier 1/2 (form 4), the other's and the
    // output's of a right shift (the terms summed in either order: the sum wraps, so it is the
    // same).
    let half_first = s.input1.form() == 4;
    match chosen {
        kernel::SAME_HALVES => add_same::<4>(p, io, input2, &s, half_first),
        kernel::SAME_HALF_SHIFT2 => add_same::<2>(p, io, input2, &s, half_first),
        kernel::SAME_HALF_SHIFT1 => add_same::<1>(p, io, input2, &s, half_first),
        kernel::SAME => {
            io.walk(
                len,
                |k, x| {
                    let (x, y) = (load4(&x), load4(&four_at(input2, k)));
                    let (x02, x13) = (sxtab16(off1, x), sxtab16_ror8(off1, x));
                    let (y02, y13) = (sxtab16(off2, y), sxtab16_ror8(off2, y));
                    [
                        one(lo(x02), lo(y02)),
                        one(lo(x13), lo(y13)),
                        one(hi(x02), hi(y02)),
                        one(hi(x13), hi(y13)),
                    ]
                },
                |k, x| add_s8_one(p, x, at(input2, k)),
            );
            true
        }
        kernel::SECOND_SCALAR => {
            let Some(Pairs::SecondScalar(n)) = pairs(&p.shape, len) else {
                return false;
            };
            let y = at(input2, 0);
            // The scalar's term, computed once.
            let c = t2(p.input2_offset.wrapping_add(i32::from(y)));
            let term = |v1: i32| sum(t1(v1), c);
            io.walk(
                n,
                |_, x| {
                    let x = load4(&x);
                    let (x02, x13) = (sxtab16(off1, x), sxtab16_ror8(off1, x));
                    [term(lo(x02)), term(lo(x13)), term(hi(x02)), term(hi(x13))]
                },
                |_, x| add_s8_one(p, x, y),
            );
            true
        }
        kernel::FIRST_SCALAR => {
            let Some(Pairs::FirstScalar(n)) = pairs(&p.shape, len) else {
                return false;
            };
            // Read before anything is written.
            let x = io.first(0);
            let c = t1(p.input1_offset.wrapping_add(i32::from(x)));
            let term = |v2: i32| sum(c, t2(v2));
            io.walk(
                n,
                |k, _| {
                    let y = load4(&four_at(input2, k));
                    let (y02, y13) = (sxtab16(off2, y), sxtab16_ror8(off2, y));
                    [term(lo(y02)), term(lo(y13)), term(hi(y02)), term(hi(y13))]
                },
                |k, _| add_s8_one(p, x, at(input2, k)),
            );
            true
        }
        _ => false,
    }
}

/// [`add_blocked`] for the same shapes with one input's multiplier 1/2 (form 4: the first
/// input's if `half_first`), the other's in form `F` and the output's in form 2: each
/// element's three scalings written out, no choice made per element. Returns `true`.
#[inline(never)]
fn add_same<const F: u8>(
    p: &AddS8,
    io: &mut impl FirstAndOutput<i8>,
    input2: &[i8],
    s: &Scales,
    half_first: bool,
) -> bool {
    let (off1, off2) = (splat16(p.input1_offset), splat16(p.input2_offset));
    let (half, other) = if half_first {
        (s.input1, s.input2)
    } else {
        (s.input2, s.input1)
    };
    let one = |h: i32, o: i32| {
        let th = half.apply_in::<4>(h.wrapping_mul(s.left));
        let to = other.apply_in::<F>(o.wrapping_mul(s.left));
        let raw = s.output.apply_in::<2>(th.wrapping_add(to));
        clamp_i32(raw.wrapping_add(s.output_offset), s.act_min, s.act_max) as i8
    };
    io.walk(
        io.len(),
        |k, x| {
            let (x, y) = (load4(&x), load4(&four_at(input2, k)));
            let (x02, x13) = (sxtab16(off1, x), sxtab16_ror8(off1, x));
            let (y02, y13) = (sxtab16(off2, y), sxtab16_ror8(off2, y));
            let (h02, h13, o02, o13) = if half_first {
                (x02, x13, y02, y13)
            } else {
                (y02, y13, x02, x13)
            };
            [
                one(lo(h02), lo(o02)),
                one(lo(h13), lo(o13)),
                one(hi(h02), hi(o02)),
                one(hi(h13), hi(o13)),
            ]
        },
        |k, x| add_s8_one(p, x, at(input2, k)),
    );
    true
}

/// `add_scale_input` and `add_scaled` (the quantised sum of [`add_quantized`](super::add_quantized))
/// with each of the op's three multipliers in its shortest form ([`Scale`], chosen once per
/// call), every function written out where it is used.
struct Scales {
    input1: Scale,
    input2: Scale,
    output: Scale,
    /// `2^left_shift` (wrapping, as `add_scale_input` multiplies by it).
    left: i32,
    output_offset: i32,
    act_min: i32,
    act_max: i32,
}

impl Scales {
    #[inline(always)]
    fn new(p: &AddS8) -> Self {
        Scales {
            input1: Scale::new(p.input1),
            input2: Scale::new(p.input2),
            output: Scale::new(p.output),
            left: 1_i32.wrapping_shl(p.left_shift as u32),
            output_offset: p.output_offset,
            act_min: p.act_min,
            act_max: p.act_max,
        }
    }

    /// The first input's term of its offset value `v` (`add_scale_input`).
    #[inline(always)]
    fn term1(&self, v: i32) -> i32 {
        self.input1.apply(v.wrapping_mul(self.left))
    }

    /// The second input's term of its offset value `v`.
    #[inline(always)]
    fn term2(&self, v: i32) -> i32 {
        self.input2.apply(v.wrapping_mul(self.left))
    }

    /// The clamped output of two terms (`add_scaled`).
    #[inline(always)]
    fn sum(&self, a: i32, b: i32) -> i32 {
        let raw = self.output.apply(a.wrapping_add(b));
        clamp_i32(
            raw.wrapping_add(self.output_offset),
            self.act_min,
            self.act_max,
        )
    }
}

/// int16 ADD ([`add_s16`](super::add::add_s16)) blocked for the same shapes and a scalar input
/// (module docs): blocks of four elements of each input (two words), each element's
/// requantisation by `add_quantized`'s own functions, a scalar input's term computed once.
/// Returns `false`, having written nothing, for other broadcasts (the caller runs the portable
/// walk); every offset runs (the offset values are computed in 32 bits, as the portable
/// kernel's).
#[inline(always)]
pub(crate) fn add_s16(p: &AddS16, input1: &[i16], input2: &[i16], output: &mut [i16]) -> bool {
    add16_blocked(p, &mut Apart { input1, output }, input2)
}

/// [`add_s16`] on one buffer ([`overlap::add_s16`](crate::kernels::overlap::add_s16)), walked and
/// declined as [`add_s8_on_one_buffer`].
#[inline(always)]
pub(crate) fn add_s16_on_one_buffer(
    p: &AddS16,
    buf: &mut [i16],
    input_at: usize,
    output_at: usize,
    input2: &[i16],
) -> bool {
    match OneBuffer::new(&p.shape, buf, input_at, output_at) {
        Some(mut io) => add16_blocked(p, &mut io, input2),
        None => false,
    }
}

/// The blocked int16 ADD on `io`'s first input and output and the slice `input2`
/// ([`add_s16`]).
#[inline(always)]
fn add16_blocked(p: &AddS16, io: &mut impl FirstAndOutput<i16>, input2: &[i16]) -> bool {
    let len = io.len();
    let Some(pairs) = pairs(&p.shape, len) else {
        return false;
    };
    // One input's term from a halfword of a word, and the sum's.
    let s = Scales::new(p);
    let t1 = |v: i32| s.term1(p.input1_offset.wrapping_add(v));
    let t2 = |v: i32| s.term2(p.input2_offset.wrapping_add(v));
    let sum = |a: i32, b: i32| s.sum(a, b) as i16;
    match pairs {
        Pairs::Same => io.walk(
            len,
            |k, [x0, x1, x2, x3]| {
                let [y0, y1, y2, y3] = four_at(input2, k);
                let (xa, xb, ya, yb) = (word2(x0, x1), word2(x2, x3), word2(y0, y1), word2(y2, y3));
                [
                    sum(t1(lo(xa)), t2(lo(ya))),
                    sum(t1(hi(xa)), t2(hi(ya))),
                    sum(t1(lo(xb)), t2(lo(yb))),
                    sum(t1(hi(xb)), t2(hi(yb))),
                ]
            },
            |k, x| add_s16_one(p, x, at(input2, k)),
        ),
        Pairs::SecondScalar(n) => {
            let y = at(input2, 0);
            // The scalar's term, computed once.
            let c = t2(i32::from(y));
            io.walk(
                n,
                |_, [x0, x1, x2, x3]| {
                    let (xa, xb) = (word2(x0, x1), word2(x2, x3));
                    [
                        sum(t1(lo(xa)), c),
                        sum(t1(hi(xa)), c),
                        sum(t1(lo(xb)), c),
                        sum(t1(hi(xb)), c),
                    ]
                },
                |_, x| add_s16_one(p, x, y),
            );
        }
        Pairs::FirstScalar(n) => {
            // Read before anything is written.
            let x = io.first(0);
            let c = t1(i32::from(x));
            io.walk(
                n,
                |k, _| {
                    let [y0, y1, y2, y3] = four_at(input2, k);
                    let (ya, yb) = (word2(y0, y1), word2(y2, y3));
                    [
                        sum(c, t2(lo(ya))),
                        sum(c, t2(hi(ya))),
                        sum(c, t2(lo(yb))),
                        sum(c, t2(hi(yb))),
                    ]
                },
                |k, _| add_s16_one(p, x, at(input2, k)),
            );
        }
    }
    true
}

#[cfg(test)]
pub(crate) mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    /// The portable kernel's loop (what [`super::super::add_s8`] runs off Armv7E-M), on slices
    /// of any length (the cases here try lengths off by a few).
    fn add_s8_portable(p: &super::super::AddS8, x1: &[i8], x2: &[i8], out: &mut [i8]) {
        crate::kernels::shared::broadcast::broadcast(&p.shape, x1, x2, out, |x, y| {
            super::super::add_s8_one(p, x, y)
        });
    }

    /// As [`add_s8_portable`], int16.
    fn add_s16_portable(p: &super::super::AddS16, x1: &[i16], x2: &[i16], out: &mut [i16]) {
        crate::kernels::shared::broadcast::broadcast(&p.shape, x1, x2, out, |x, y| {
            super::super::add_s16_one(p, x, y)
        });
    }
    use super::*;
    use crate::kernels::shared::Requant;
    use crate::kernels::shared::broadcast::BinaryShape;
    use crate::kernels::shared::testing::Rng;
    use crate::kernels::shared::testing::binary::{
        CASES, binary_case, binary_case_of, check_one_buffer, edge_pairs16, on_one_buffer,
        one_buffer_case,
    };

    /// `f::<K>(args)` for the kernel constant `k` (each of [`kernel`]'s), as generated code
    /// calls it with `k` a constant.
    macro_rules! with_add_kernel {
        ($k:expr, $f:ident, $args:tt) => {{
            use super::kernel::*;
            match $k {
                ANY => $f::<ANY>$args,
                SAME => $f::<SAME>$args,
                SAME_HALF_SHIFT1 => $f::<SAME_HALF_SHIFT1>$args,
                SAME_HALF_SHIFT2 => $f::<SAME_HALF_SHIFT2>$args,
                SAME_HALVES => $f::<SAME_HALVES>$args,
                SECOND_SCALAR => $f::<SECOND_SCALAR>$args,
                FIRST_SCALAR => $f::<FIRST_SCALAR>$args,
                PORTABLE => $f::<PORTABLE>$args,
                k => panic!("no ADD kernel constant {k}"),
            }
        }};
    }

    /// [`super::add_s8`] choosing its loop at run time (`ANY`), and with the constant
    /// [`kernel::add_s8_kernel`] chooses for `p` (generated code's call), which must return
    /// the same and write the same outputs: every test of the blocked ADD runs both.
    fn add_s8(p: &AddS8, x1: &[i8], x2: &[i8], out: &mut [i8]) -> bool {
        let k = kernel::add_s8_kernel(p);
        let mut chosen = out.to_vec();
        let ran = with_add_kernel!(k, dsp_add_s8, (p, x1, x2, &mut chosen));
        let any = super::add_s8::<{ kernel::ANY }>(p, x1, x2, out);
        assert_eq!((any, &*out), (ran, &chosen[..]), "{p:?}: kernel {k}");
        any
    }

    /// [`super::add_s8`] with constant `K`.
    fn dsp_add_s8<const K: u8>(p: &AddS8, x1: &[i8], x2: &[i8], out: &mut [i8]) -> bool {
        super::add_s8::<K>(p, x1, x2, out)
    }

    /// [`super::add_s8_on_one_buffer`] as [`add_s8`]: `ANY` and the chosen constant, the same
    /// return and buffer.
    fn add_s8_on_one_buffer(p: &AddS8, b: &mut [i8], ia: usize, oa: usize, x2: &[i8]) -> bool {
        let k = kernel::add_s8_kernel(p);
        let mut chosen = b.to_vec();
        let ran = with_add_kernel!(k, dsp_add_s8_on_one_buffer, (p, &mut chosen, ia, oa, x2));
        let any = super::add_s8_on_one_buffer_any(p, b, ia, oa, x2);
        assert_eq!((any, &*b), (ran, &chosen[..]), "{p:?}: kernel {k}");
        any
    }

    /// [`super::add_s8_on_one_buffer`] with constant `K`.
    fn dsp_add_s8_on_one_buffer<const K: u8>(
        p: &AddS8,
        b: &mut [i8],
        ia: usize,
        oa: usize,
        x2: &[i8],
    ) -> bool {
        super::add_s8_on_one_buffer::<K>(p, b, ia, oa, x2)
    }

    /// Every loop is some layer's choice in the tests' draws, the chosen constant is the only
    /// one (with `ANY` and `PORTABLE`) the entry's check takes, and the choice follows the
    /// shapes and scalings: residual connections' forms, scalar inputs, other broadcasts (the
    /// one-buffer entry's check: `in_place`'s tests).
    #[test]
    fn the_choice_is_checked_and_covers_every_loop() {
        use super::super::check_add_s8_with;
        let mut rng = Rng(0xadd_0007);
        let mut seen = [0_usize; 8];
        let cases = if cfg!(miri) { 10 } else { 4000 };
        for _ in 0..cases {
            let (shape, x1, x2, len) = binary_case(&mut rng);
            let mut p = add_params(&mut rng, shape);
            // Half the draws a residual connection's scalings.
            if rng.below(2) == 0 {
                let half = Requant {
                    multiplier: 1 << 30,
                    shift: 0,
                };
                let other = Requant {
                    multiplier: 1_500_000_000,
                    shift: rng.pick(&[-1, -2, -7, 0]),
                };
                (p.input1, p.input2) = if rng.below(2) == 0 {
                    (half, other)
                } else {
                    (other, half)
                };
                p.output.shift = rng.pick(&[-18, -3, -1]);
                if rng.below(8) == 0 {
                    p.input2 = half;
                    p.input1 = half;
                }
            }
            let k = kernel::add_s8_kernel(&p);
            seen[usize::from(k)] += 1;
            let (n1, n2, no) = (x1.len(), x2.len(), len);
            // The lengths are at times off the shapes: then no kernel's check holds.
            let lengths = super::super::check_add_s8(&p, n1, n2, no).is_ok();
            for other in 0..8_u8 {
                let takes = with_add_kernel!(other, takes, (&p, n1, n2, no));
                assert_eq!(
                    takes,
                    lengths && (other == k || other == kernel::ANY || other == kernel::PORTABLE),
                    "{p:?}: kernel {other}, chosen {k}"
                );
            }
            let mut out = vec![0_i8; len];
            add_s8(&p, &x1, &x2, &mut out);
        }
        // Every loop but the run-time choice was chosen (miri's few draws cover fewer).
        assert!(
            cfg!(miri) || seen.iter().skip(1).all(|&n| n > 0),
            "{seen:?}"
        );

        fn takes<const K: u8>(p: &AddS8, n1: usize, n2: usize, no: usize) -> bool {
            check_add_s8_with::<K>(p, n1, n2, no).is_ok()
        }
    }

    /// Activation ranges: the whole int8 range, RELU-like ones, an empty one (`min > max`) and
    /// ones past int8.
    pub(crate) const RANGES: [(i32, i32); 7] = [
        (-128, 127),
        (-128, 127),
        (-100, 90),
        (0, 127),
        (-5, 6),
        (20, -20),
        (-300, 300),
    ];

    /// Random int8 ADD parameters: offsets over TFLM's range and past what the blocked loop
    /// takes, multipliers and shifts at their extremes, every activation range of [`RANGES`].
    pub(crate) fn add_params(rng: &mut Rng, shape: BinaryShape) -> AddS8 {
        let offset = |rng: &mut Rng| match rng.below(8) {
            0 => -127,
            1 => 128,
            2 => rng.pick(&[-32640, 32640, -32641, 40000, i32::MIN]),
            _ => rng.below(256) as i32 - 127,
        };
        let requant = |rng: &mut Rng| Requant {
            multiplier: match rng.below(6) {
                0 => i32::MAX,
                1 => 1 << 30,
                2 => 0,
                _ => (1 << 30) + (rng.next() >> 2) as i32,
            },
            shift: match rng.below(6) {
                0 => 0,
                1 => -31,
                2 => rng.pick(&[1, 3, -40]),
                _ => -(rng.below(20) as i32),
            },
        };
        let (act_min, act_max) = rng.pick(&RANGES);
        AddS8 {
            shape,
            left_shift: rng.pick(&[20, 20, 20, 15, 0, 31, 32, 40]),
            input1_offset: offset(rng),
            input1: requant(rng),
            input2_offset: offset(rng),
            input2: requant(rng),
            output_offset: rng.below(256) as i32 - 128,
            output: requant(rng),
            act_min,
            act_max,
        }
    }

    /// Random int16 ADD parameters: [`add_params`]' with offsets over TFLM's int16 range
    /// (minus a zero point) and at its extremes, and int16 activation ranges (the whole range,
    /// RELU-like ones, an empty one and one past int16).
    pub(crate) fn add16_params(rng: &mut Rng, shape: BinaryShape) -> AddS16 {
        let offset = |rng: &mut Rng| match rng.below(6) {
            0 => -32767,
            1 => 32768,
            2 => 0,
            3 => rng.pick(&[i32::MIN, i32::MAX, 70000]),
            _ => rng.below(65536) as i32 - 32767,
        };
        let (act_min, act_max) = rng.pick(&[
            (-32768, 32767),
            (-32768, 32767),
            (0, 32767),
            (-1000, 1200),
            (300, -300),
            (-40000, 40000),
        ]);
        AddS16 {
            input1_offset: offset(rng),
            input2_offset: offset(rng),
            output_offset: rng.below(65536) as i32 - 32768,
            act_min,
            act_max,
            ..add_params(rng, shape)
        }
    }

    /// A random int16 binary case: [`binary_case_of`]'s, now and then with the second input
    /// broadcast along rows instead (declined).
    pub(crate) fn binary16_case(rng: &mut Rng) -> (BinaryShape, Vec<i16>, Vec<i16>, usize) {
        let (shape, x1, x2, len) = binary_case_of(rng, Rng::s16);
        if rng.below(6) != 0 {
            return (shape, x1, x2, len);
        }
        let (a, b) = (1 + rng.below(5), 2 + rng.below(6));
        let full = [1, 1, 1, 1, a, b];
        let shape = BinaryShape {
            input1: full,
            input2: [1, 1, 1, 1, 1, b],
            output: full,
        };
        let x1 = (0..a * b).map(|_| rng.s16()).collect();
        let x2 = (0..b).map(|_| rng.s16()).collect();
        (shape, x1, x2, a * b)
    }

    #[test]
    fn add_equals_the_portable_kernel() {
        let mut rng = Rng(0x5eed_0003);
        let (mut blocked, mut declined) = (0, 0);
        for _ in 0..CASES {
            let (shape, x1, x2, len) = binary_case(&mut rng);
            let (mut fast, mut slow) = (vec![0x55_i8; len], vec![0x55_i8; len]);
            let p = add_params(&mut rng, shape);
            if add_s8(&p, &x1, &x2, &mut fast) {
                blocked += 1;
            } else {
                declined += 1;
                assert!(fast.iter().all(|&v| v == 0x55), "declined, yet written");
                add_s8_portable(&p, &x1, &x2, &mut fast);
            }
            add_s8_portable(&p, &x1, &x2, &mut slow);
            assert_eq!(fast, slow, "ADD {p:?} {} {}", x1.len(), x2.len());
        }
        assert!(blocked > declined, "{blocked} blocked, {declined} declined");
        assert!(cfg!(miri) || declined > 0);
    }

    /// The residual connections' forms ([`add_same`]): one input's multiplier 1/2, the
    /// other's of a right shift of 1, of 2 and more, or 1/2 too, either input first, the
    /// output's of a right shift of 2 and more; against the portable kernel.
    #[test]
    fn residual_forms_equal_the_portable_kernel() {
        let mut rng = Rng(0x5eed_0005);
        let half = Requant {
            multiplier: 1 << 30,
            shift: 0,
        };
        let mut seen = [[0_usize; 2]; 3];
        let cases = if cfg!(miri) { 6 } else { 600 };
        for case in 0..cases {
            let (form, half_first) = (case % 3, case / 3 % 2 == 0);
            let len = 1 + rng.below(if cfg!(miri) { 9 } else { 70 });
            let shape = BinaryShape {
                input1: [1, 1, 1, 1, 1, len],
                input2: [1, 1, 1, 1, 1, len],
                output: [1, 1, 1, 1, 1, len],
            };
            let mut p = add_params(&mut rng, shape);
            let other = Requant {
                multiplier: (1 << 30) + (rng.next() >> 2) as i32,
                shift: [0, -1, -(2 + rng.below(20) as i32)][form],
            };
            let other = if form == 0 { half } else { other };
            (p.input1, p.input2) = if half_first {
                (half, other)
            } else {
                (other, half)
            };
            p.output.shift = -(2 + rng.below(25) as i32);
            p.output.multiplier = p.output.multiplier.max(0);
            p.left_shift = 20;
            (p.input1_offset, p.input2_offset) =
                (rng.below(256) as i32 - 127, rng.pick(&[-127, 128, 0, 17]));
            let (x1, x2) = (rng.values(len), rng.values(len));
            let (mut fast, mut slow) = (vec![0x55_i8; len], vec![0x55_i8; len]);
            assert!(add_s8(&p, &x1, &x2, &mut fast), "{p:?}");
            add_s8_portable(&p, &x1, &x2, &mut slow);
            assert_eq!(fast, slow, "ADD {p:?}");
            seen[form][usize::from(half_first)] += 1;
        }
        assert!(seen.iter().flatten().all(|&n| n > 0), "{seen:?}");
    }

    /// Every pair of int8 values at TFLM's extreme offsets (-127 and 128), with the sums'
    /// extremes.
    #[test]
    fn add_over_every_pair_at_extreme_offsets() {
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
            let (mut fast, mut slow) = (vec![0_i8; n * n], vec![0_i8; n * n]);
            let add = AddS8 {
                shape,
                left_shift: 20,
                input1_offset: o1,
                input1: Requant {
                    multiplier: 1_073_741_824,
                    shift: 0,
                },
                input2_offset: o2,
                input2: Requant {
                    multiplier: 2_000_000_000,
                    shift: -1,
                },
                output_offset: 5,
                output: Requant {
                    multiplier: 1_200_000_000,
                    shift: -19,
                },
                act_min: -128,
                act_max: 127,
            };
            assert!(add_s8(&add, &x1, &x2, &mut fast));
            add_s8_portable(&add, &x1, &x2, &mut slow);
            assert_eq!(fast, slow, "ADD offsets {o1} {o2}");
            for d in [0, 1, 3] {
                assert_eq!(
                    on_one_buffer(&x1, d, |b, ia, oa| add_s8_on_one_buffer(
                        &add, b, ia, oa, &x2
                    )),
                    slow,
                    "ADD on one buffer, d {d}, offsets {o1} {o2}"
                );
            }
        }
    }

    /// The blocked ADD on one buffer (the one-buffer entry's) equals the portable kernel on
    /// two: the first input 0 to 5 and more elements above the output, lengths of every
    /// remainder modulo 4, the same shapes and a scalar second input, and [`add_params`]'
    /// extreme parameters; declined, with nothing written, where the two-slice kernel declines
    /// or the layout does not fit.
    #[test]
    fn add_on_one_buffer_equals_the_portable_kernel() {
        let mut rng = Rng(0x5eed_0004);
        let (mut ran, mut declined) = (0, 0);
        for _ in 0..CASES {
            let (shape, x1, x2, len) = one_buffer_case(&mut rng);
            let mut want = vec![0_i8; len];
            let p = add_params(&mut rng, shape);
            add_s8_portable(&p, &x1, &x2, &mut want);
            let blocked = add_s8(&p, &x1, &x2, &mut vec![0; len]);
            let run = |b: &mut [i8], ia, oa| add_s8_on_one_buffer(&p, b, ia, oa, &x2);
            if check_one_buffer(&mut rng, "ADD", &x1, &want, blocked, run) == 0 {
                declined += 1;
            } else {
                ran += 1;
            }
        }
        assert!(ran > declined, "{ran} ran, {declined} declined");
        assert!(cfg!(miri) || declined > 0);
    }

    /// The blocked int16 ADD on two slices and on one buffer equals the portable kernel:
    /// random shapes (same, a scalar input, slices shorter or longer than the shapes) and edge
    /// values; declined, with nothing written, for other broadcasts.
    #[test]
    fn int16_add_equals_the_portable_kernel() {
        let mut rng = Rng(0x5eed_0016);
        let (mut blocked, mut declined, mut ran) = (0, 0, 0);
        for _ in 0..CASES {
            let (shape, x1, x2, len) = binary16_case(&mut rng);
            let (mut fast, mut slow) = (vec![0x55_i16; len], vec![0x55_i16; len]);
            let p = add16_params(&mut rng, shape);
            let ok = add_s16(&p, &x1, &x2, &mut fast);
            if !ok {
                assert!(fast.iter().all(|&v| v == 0x55), "declined, yet written");
                add_s16_portable(&p, &x1, &x2, &mut fast);
            }
            add_s16_portable(&p, &x1, &x2, &mut slow);
            assert_eq!(fast, slow, "ADD {p:?} {} {}", x1.len(), x2.len());
            if ok {
                blocked += 1;
            } else {
                declined += 1;
            }
            // On one buffer: the first input's elements as the shape has them (the output's
            // shape, else the layout is refused), the second input's slice as drawn.
            if shape.input1 != shape.output {
                continue;
            }
            let n = shape.output.iter().product::<usize>();
            let x1: Vec<i16> = (0..n).map(|_| rng.s16()).collect();
            let mut want = vec![0_i16; n];
            let p = add16_params(&mut rng, shape);
            add_s16_portable(&p, &x1, &x2, &mut want);
            let b = add_s16(&p, &x1, &x2, &mut vec![0; n]);
            let run = |buf: &mut [i16], ia, oa| add_s16_on_one_buffer(&p, buf, ia, oa, &x2);
            ran += usize::from(check_one_buffer(&mut rng, "ADD int16", &x1, &want, b, run) > 0);
        }
        assert!(blocked > declined, "{blocked} blocked, {declined} declined");
        assert!(
            cfg!(miri) || (declined > 0 && ran > CASES / 4),
            "{declined} {ran}"
        );
    }

    /// Every pair of int16 edge values (the extremes, 0, ±1, and values whose sums are at
    /// their extremes), the same shapes and each input a scalar, at extreme multipliers.
    #[test]
    fn int16_add_over_edge_pairs() {
        let (x1, x2, n) = edge_pairs16();
        let full = [1, 1, 1, 1, n, n];
        let mut rng = Rng(0x16);
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
                let (mut fast, mut slow) = (vec![0_i16; n * n], vec![0_i16; n * n]);
                for (o1, o2) in [(-32767, 32768), (32768, -32767), (0, 0)] {
                    let add = AddS16 {
                        left_shift: 15,
                        input1_offset: o1,
                        input2_offset: o2,
                        output_offset: rng.below(3) as i32 - 1,
                        output: Requant {
                            multiplier,
                            shift: shift.min(0),
                        },
                        act_min: -32768,
                        act_max: 32767,
                        ..add16_params(&mut rng, shape)
                    };
                    assert!(add_s16(&add, a1, a2, &mut fast));
                    add_s16_portable(&add, a1, a2, &mut slow);
                    assert_eq!(fast, slow, "ADD {add:?}");
                }
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
        let mut p = add_params(&mut rng, shape);
        p.input1_offset = 0;
        p.input2_offset = 0;
        let mut out = [3_i8; 12];
        assert!(!add_s8(&p, &[1; 12], &[2; 4], &mut out));
        assert_eq!(out, [3; 12]);
        // On one buffer too (a full alias), and with the first input broadcast (which no
        // one-buffer layout fits).
        let mut buf = [1_i8; 12];
        assert!(!add_s8_on_one_buffer(&p, &mut buf, 0, 0, &[2; 4]));
        assert_eq!(buf, [1; 12]);
        let flipped = BinaryShape {
            input1: shape.input2,
            input2: shape.input1,
            output: shape.output,
        };
        let p = AddS8 {
            shape: flipped,
            ..p
        };
        let mut buf = [1_i8; 16];
        assert!(!add_s8_on_one_buffer(&p, &mut buf, 12, 0, &[2; 12]));
        assert_eq!(buf, [1; 16]);
    }
}
