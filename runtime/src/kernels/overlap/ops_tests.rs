//! The elementwise, widening, binary and FULLY_CONNECTED entries of [`super`] on one buffer:
//! each gives what its kernel gives on two buffers at every layout it accepts, refuses the
//! first one it does not, and reads every element before anything is written over it.

extern crate std;
use std::fmt::Debug;
use std::vec;
use std::vec::Vec;

use super::super::simd_elementwise::one_buffer_walk;
use super::super::{BinaryShape, Requant};
use super::tests::{CASES, Rng};
use super::*;

/// A cell of an instrumented buffer: free, an input element not yet written over, or an
/// output element.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
enum Cell {
    #[default]
    Free,
    Input(usize),
    Output(usize),
}

/// An elementwise entry `run(buf, input_at, output_at)` (width 1, `x.len()` elements) at a full
/// alias, the input above the output, disjoint both ways, and the input one element below the
/// output, overlapping it (refused): `want` where it runs, nothing written where it refuses.
fn unary_layouts<T: Copy + PartialEq + Debug>(
    rng: &mut Rng,
    name: &str,
    x: &[T],
    want: &[T],
    fill: T,
    run: &dyn Fn(&mut [T], usize, usize) -> bool,
) {
    let len = x.len();
    let gap = rng.below(3);
    for (ia, oa) in [(0, 0), (gap + 1, 0), (len + gap, 0), (0, len + gap), (0, 1)] {
        let refused = (ia, oa) == (0, 1) && len > 1;
        let mut buf = vec![fill; 2 * (ia + oa + len + 1)];
        buf[ia..ia + len].copy_from_slice(x);
        let before = buf.clone();
        assert_eq!(run(&mut buf, ia, oa), !refused, "{name} at {ia} {oa}");
        if refused {
            assert_eq!(buf, before, "{name}: refused, yet written");
        } else {
            assert_eq!(buf[oa..oa + len], *want, "{name} at {ia} {oa}");
        }
        assert_eq!(elementwise_fits(ia, oa, len, 1), !refused);
    }
}

/// A requantisation of the models' form.
fn requant(rng: &mut Rng) -> Requant {
    Requant {
        multiplier: (1 << 30) + rng.below(1 << 30) as i32,
        shift: rng.below(8) as i32 - 6,
    }
}

/// The int16 and float RELU, RELU6, LOGISTIC and TANH, and HARD_SWISH, LEAKY_RELU and ELU, on
/// one buffer give what their kernels give on two.
#[test]
fn activations_of_every_type_on_one_buffer_equal_two_buffers() {
    use super::super::{activations, elu, hard_swish, leaky_relu, logistic, tanh};
    let mut rng = Rng(0x0ac7_0016);
    for _ in 0..CASES / 4 {
        let len = 1 + rng.below(48);
        let x8: Vec<i8> = (0..len).map(|_| rng.next() as i8).collect();
        let x16: Vec<i16> = (0..len).map(|_| rng.next() as i16).collect();
        let xf: Vec<f32> = (0..len)
            .map(|_| (rng.below(2001) as f32 - 1000.0) / 97.0)
            .collect();
        // Each kernel on two buffers, then on one.
        macro_rules! check {
            ($name:literal, $x:expr, $fill:expr, $two:expr, $one:expr) => {{
                let x = $x;
                let mut want = vec![$fill; x.len()];
                $two(&x[..], &mut want[..]);
                unary_layouts(&mut rng, $name, &x, &want, $fill, &|b, ia, oa| {
                    $one(b, ia, oa, x.len())
                });
            }};
        }
        let r16 = activations::ReluS16 {
            input_offset: 0,
            output_offset: 0,
            requant: requant(&mut rng),
            act_min: -32768 + rng.below(1000) as i32,
            act_max: 32767,
        };
        check!(
            "relu_s16",
            &x16,
            0_i16,
            |i, o| activations::relu_s16(&r16, i, o),
            |b, ia, oa, n| relu_s16(&r16, b, ia, oa, n)
        );
        let r6 = activations::Relu6S16 {
            zero: rng.below(100) as i16 - 50,
            six: 1000 + rng.below(20000) as i16,
        };
        check!(
            "relu6_s16",
            &x16,
            0_i16,
            |i, o| activations::relu6_s16(&r6, i, o),
            |b, ia, oa, n| relu6_s16(&r6, b, ia, oa, n)
        );
        check!(
            "relu_f32",
            &xf,
            0.0_f32,
            super::super::relu_f32,
            |b, ia, oa, n| relu_f32(&(), b, ia, oa, n)
        );
        check!(
            "relu6_f32",
            &xf,
            0.0_f32,
            super::super::relu6_f32,
            |b, ia, oa, n| relu6_f32(&(), b, ia, oa, n)
        );
        let l16 = logistic::LogisticS16 {
            input_multiplier: if rng.below(2) == 0 {
                0
            } else {
                16384 + rng.below(16384) as i32
            },
            input_left_shift: rng.below(4) as i32,
        };
        check!(
            "logistic_s16",
            &x16,
            0_i16,
            |i, o| logistic::logistic_s16(&l16, i, o),
            |b, ia, oa, n| logistic_s16(&l16, b, ia, oa, n)
        );
        check!(
            "logistic_f32",
            &xf,
            0.0_f32,
            logistic::logistic_f32,
            |b, ia, oa, n| logistic_f32(&(), b, ia, oa, n)
        );
        let t16 = tanh::TanhS16 {
            input_multiplier: l16.input_multiplier,
            input_left_shift: l16.input_left_shift,
        };
        check!(
            "tanh_s16",
            &x16,
            0_i16,
            |i, o| tanh::tanh_s16(&t16, i, o),
            |b, ia, oa, n| tanh_s16(&t16, b, ia, oa, n)
        );
        check!("tanh_f32", &xf, 0.0_f32, tanh::tanh_f32, |b, ia, oa, n| {
            tanh_f32(&(), b, ia, oa, n)
        });
        let hs = hard_swish::HardSwishS8 {
            input_zero_point: rng.below(41) as i16 - 20,
            output_zero_point: rng.below(41) as i16 - 20,
            reluish_multiplier_fixedpoint_int16: 8192 + rng.below(24000) as i16,
            reluish_multiplier_exponent: rng.below(6) as i32 - 2,
            output_multiplier_fixedpoint_int16: 8192 + rng.below(24000) as i16,
            output_multiplier_exponent: -(rng.below(8) as i32),
        };
        check!(
            "hard_swish_s8",
            &x8,
            0_i8,
            |i, o| hard_swish::hard_swish_s8(&hs, i, o),
            |b, ia, oa, n| hard_swish_s8(&hs, b, ia, oa, n)
        );
        check!(
            "hard_swish_f32",
            &xf,
            0.0_f32,
            hard_swish::hard_swish_f32,
            |b, ia, oa, n| hard_swish_f32(&(), b, ia, oa, n)
        );
        let lr = leaky_relu::LeakyReluQuantized {
            input_zero_point: rng.below(41) as i32 - 20,
            output_zero_point: rng.below(41) as i32 - 20,
            alpha: requant(&mut rng),
            identity: requant(&mut rng),
        };
        check!(
            "leaky_relu_s8",
            &x8,
            0_i8,
            |i, o| leaky_relu::leaky_relu_s8(&lr, i, o),
            |b, ia, oa, n| leaky_relu_s8(&lr, b, ia, oa, n)
        );
        check!(
            "leaky_relu_s16",
            &x16,
            0_i16,
            |i, o| leaky_relu::leaky_relu_s16(&lr, i, o),
            |b, ia, oa, n| leaky_relu_s16(&lr, b, ia, oa, n)
        );
        let lf = leaky_relu::LeakyReluF32 {
            alpha: rng.below(100) as f32 / 64.0,
        };
        check!(
            "leaky_relu_f32",
            &xf,
            0.0_f32,
            |i, o| leaky_relu::leaky_relu_f32(&lf, i, o),
            |b, ia, oa, n| leaky_relu_f32(&lf, b, ia, oa, n)
        );
        let e8 = elu::EluS8 { table: &ELU_TABLE };
        check!(
            "elu_s8",
            &x8,
            0_i8,
            |i, o| elu::elu_s8(&e8, i, o),
            |b, ia, oa, n| elu_s8(&e8, b, ia, oa, n)
        );
        check!("elu_f32", &xf, 0.0_f32, elu::elu_f32, |b, ia, oa, n| {
            elu_f32(&(), b, ia, oa, n)
        });
    }
}

/// An int8 ELU table for the tests: a permutation of the 256 values (every input bit pattern
/// maps to a different output), in static memory (a leaked allocation would fail miri's leak
/// check).
static ELU_TABLE: [i8; 256] = {
    let mut table = [0_i8; 256];
    let mut k = 0;
    while k < 256 {
        table[k] = (k as u8).wrapping_mul(167).wrapping_add(13) as i8;
        k += 1;
    }
    table
};

/// DEQUANTIZE to float32 on one buffer gives what it gives on two from its least displacement
/// on (and disjoint), refuses one element closer, and there its order would write over an
/// input element it has still to read.
#[test]
fn dequantize_on_one_buffer_equals_two_buffers_from_its_least_displacement() {
    let mut rng = Rng(0xde9a_0001);
    for _ in 0..CASES / 2 {
        let len = 1 + rng.below(40);
        let scale = (1 + rng.below(1000)) as f32 / 4096.0;
        let zero_point = rng.below(41) as i32 - 20;
        let p8 = super::super::DequantizeS8F32 { scale, zero_point };
        let p = super::super::dequantize::Dequantize { scale, zero_point };
        let x8: Vec<i8> = (0..len).map(|_| rng.next() as i8).collect();
        let x16: Vec<i16> = (0..len).map(|_| rng.next() as i16).collect();
        let xu: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let mut want = (vec![0.0_f32; len], vec![0.0_f32; len], vec![0.0_f32; len]);
        super::super::dequantize_s8_f32(&p8, &x8, &mut want.0);
        super::super::dequantize::dequantize_s16_f32(&p, &x16, &mut want.1);
        super::super::dequantize::dequantize_u8_f32(&p, &xu, &mut want.2);
        let floats = |bytes: &[u8]| -> Vec<f32> {
            bytes
                .chunks_exact(4)
                .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
                .collect()
        };
        for width in [4_usize, 2] {
            let least = widening_min_displacement(len, width).unwrap();
            assert_eq!(least, (width - 1) * (len - 1));
            let out = len * width;
            let layouts = [
                (least, 0),
                (least + 1, 0),
                (least + rng.below(out + 1), 0),
                (0, len + rng.below(3)),
            ];
            for (ia, oa) in layouts {
                let n = ia + oa + out + len + 1;
                assert!(widening_fits(ia, oa, len, width));
                if width == 4 {
                    let mut b8 = vec![0x55_i8; n];
                    b8[ia..ia + len].copy_from_slice(&x8);
                    assert!(dequantize_s8_f32(&p8, &mut b8, ia, oa, len));
                    let bytes: Vec<u8> = b8[oa..oa + out].iter().map(|&b| b as u8).collect();
                    assert_eq!(floats(&bytes), want.0, "s8 at {ia} {oa}");
                    let mut bu = vec![0x55_u8; n];
                    bu[ia..ia + len].copy_from_slice(&xu);
                    assert!(dequantize_u8_f32(&p, &mut bu, ia, oa, len));
                    assert_eq!(floats(&bu[oa..oa + out]), want.2, "u8 at {ia} {oa}");
                } else {
                    let mut b16 = vec![0x55_i16; n];
                    b16[ia..ia + len].copy_from_slice(&x16);
                    assert!(dequantize_s16_f32(&p, &mut b16, ia, oa, len));
                    let bytes: Vec<u8> = b16[oa..oa + out]
                        .iter()
                        .flat_map(|h| h.to_ne_bytes())
                        .collect();
                    assert_eq!(floats(&bytes), want.1, "s16 at {ia} {oa}");
                }
            }
            if least > 0 {
                // One closer: refused, nothing written; and the order itself would write
                // output element `len − 2` over input element `len − 1` before reading it.
                let ia = least - 1;
                assert!(!widening_fits(ia, 0, len, width));
                let mut b = vec![Cell::Free; ia + out + len];
                for k in 0..len {
                    b[ia + k] = Cell::Input(k);
                }
                let before = b.clone();
                let ok = widening(&mut b, ia, 0, len, |_| [Cell::Output(0); 4]);
                assert!(!ok && b == before);
                let mut clobbered = false;
                for k in 0..len {
                    clobbered |= b[ia + k] != Cell::Input(k);
                    for c in &mut b[k * width..(k + 1) * width] {
                        *c = Cell::Output(k);
                    }
                }
                assert!(clobbered, "D − 1 = {ia} runs for {len} × {width}");
            }
        }
    }
}

/// Every entry of an instrumented buffer: each elementwise, widening and binary entry reads
/// input element `k` untouched (`Cell::Input(k)`) when it computes output element `k`, at its
/// least displacement and above.
#[test]
fn elementwise_entries_read_every_element_before_writing_over_it() {
    let mut rng = Rng(0xce11_0001);
    for _ in 0..CASES {
        let len = 1 + rng.below(30);
        for width in [1_usize, 2, 4] {
            let least = widening_min_displacement(len, width).unwrap();
            for d in [least, least + 1 + rng.below(len + 1)] {
                let mut b = vec![Cell::Free; d + len + len * width];
                for k in 0..len {
                    b[d + k] = Cell::Input(k);
                }
                let mut next = 0;
                let ok = widening::<Cell, 4>(&mut b, d, 0, if width == 4 { len } else { 0 }, |x| {
                    assert_eq!(x, Cell::Input(next), "width 4, d {d}");
                    next += 1;
                    [Cell::Output(next - 1); 4]
                });
                assert!(ok);
                let mut next = 0;
                let ok = widening::<Cell, 2>(&mut b, d, 0, if width == 2 { len } else { 0 }, |x| {
                    assert_eq!(x, Cell::Input(next), "width 2, d {d}");
                    next += 1;
                    [Cell::Output(next - 1); 2]
                });
                assert!(ok);
                if width == 1 {
                    let mut next = 0;
                    assert!(elementwise(&mut b, d, 0, len, 1, |x| {
                        assert_eq!(x, [Cell::Input(next)], "d {d}");
                        next += 1;
                        Cell::Output(next - 1)
                    }));
                    assert!((0..len).all(|k| b[k] == Cell::Output(k)));
                }
            }
        }
        // A binary op: the first input over the output, the second broadcast along a random
        // dimension.
        let mut dims = [1_usize; 6];
        for d in &mut dims[3..] {
            *d = 1 + rng.below(4);
        }
        let mut second = dims;
        second[3 + rng.below(3)] = 1;
        let shape = BinaryShape {
            input1: dims,
            input2: second,
            output: dims,
        };
        let n: usize = dims.iter().product();
        let m: usize = second.iter().product();
        let d = rng.below(3);
        let mut b = vec![Cell::Free; d + n];
        for k in 0..n {
            b[d + k] = Cell::Input(k);
        }
        let other: Vec<Cell> = (0..m).map(Cell::Output).collect();
        let mut next = 0;
        assert!(binary(&shape, &mut b, d, 0, &other, |x, _| {
            assert_eq!(x, Cell::Input(next));
            next += 1;
            Cell::Output(next - 1)
        }));
        assert_eq!(next, n);
        // The first input broadcast: refused.
        let flipped = BinaryShape {
            input1: second,
            input2: dims,
            output: dims,
        };
        assert_eq!(binary_fits(&flipped, d, 0), second == dims);
        // The int8 and int16 ADD and MUL blocked for the DSP extension (their one-buffer walk,
        // as `simd_elementwise::add_s8_on_one_buffer`, `mul_s8_on_one_buffer`,
        // `add_s16_on_one_buffer` and `mul_s16_on_one_buffer` run it): blocks of four, then the
        // rest, at displacements 0 to 5 and more.
        let n = rng.below(31);
        let far = 6 + rng.below(n + 3);
        for d in [0, 1, 2, 3, 4, 5, far] {
            let mut b = vec![Cell::Free; d + n];
            for k in 0..n {
                b[d + k] = Cell::Input(k);
            }
            // The next element to read, shared by the two closures.
            let next = core::cell::Cell::new(0);
            one_buffer_walk(
                &mut b,
                d,
                0,
                n,
                |k, x| {
                    assert_eq!(k, next.get(), "blocks in order, d {d}");
                    let want = [0, 1, 2, 3].map(|j| Cell::Input(k + j));
                    assert_eq!(x, want, "block {k}, d {d}");
                    next.set(k + 4);
                    [0, 1, 2, 3].map(|j| Cell::Output(k + j))
                },
                |k, x| {
                    assert_eq!(k, next.get(), "the rest in order, d {d}");
                    assert_eq!(x, Cell::Input(k), "element {k}, d {d}");
                    next.set(k + 1);
                    Cell::Output(k)
                },
            );
            assert_eq!(next.get(), n, "d {d}");
            assert!((0..n).all(|k| b[k] == Cell::Output(k)), "d {d}");
        }
    }
}

/// A random binary shape: the output's dimensions, the first input's the same, the second's
/// some of them 1.
fn random_binary(rng: &mut Rng) -> (BinaryShape, usize, usize) {
    let mut dims = [1_usize; 6];
    for d in &mut dims[2..] {
        *d = 1 + rng.below(4);
    }
    let mut second = dims;
    for d in &mut second {
        if rng.below(3) == 0 {
            *d = 1;
        }
    }
    let shape = BinaryShape {
        input1: dims,
        input2: second,
        output: dims,
    };
    (shape, dims.iter().product(), second.iter().product())
}

/// ADD and MUL of every type on one buffer (the first input over the output, the second
/// broadcast) give what they give on two.
#[test]
fn add_and_mul_on_one_buffer_equal_two_buffers() {
    use super::super::{add, broadcast, mul};
    let mut rng = Rng(0xadd0_0001);
    for _ in 0..CASES / 4 {
        let (shape, n, m) = random_binary(&mut rng);
        let a = add::AddS8 {
            shape,
            left_shift: 20,
            input1_offset: rng.below(41) as i32 - 20,
            input1: Requant {
                multiplier: (1 << 30) + rng.below(1 << 29) as i32,
                shift: -1,
            },
            input2_offset: rng.below(41) as i32 - 20,
            input2: Requant {
                multiplier: (1 << 30) + rng.below(1 << 29) as i32,
                shift: -1,
            },
            output_offset: rng.below(41) as i32 - 20,
            output: Requant {
                multiplier: (1 << 30) + rng.below(1 << 29) as i32,
                shift: -18,
            },
            act_min: -128,
            act_max: 127,
        };
        let a16 = add::AddS8 {
            left_shift: 15,
            act_min: -32768,
            act_max: 32767,
            input1_offset: 0,
            input2_offset: 0,
            output_offset: 0,
            ..a
        };
        let mu = mul::MulS8 {
            shape,
            input1_offset: rng.below(41) as i32 - 20,
            input2_offset: rng.below(41) as i32 - 20,
            output_offset: rng.below(41) as i32 - 20,
            output: requant(&mut rng),
            act_min: -128,
            act_max: 127,
        };
        let mu16 = mul::MulS8 {
            input1_offset: 0,
            input2_offset: 0,
            output_offset: 0,
            act_min: -32768,
            act_max: 32767,
            ..mu
        };
        let fp = broadcast::BinaryF32 {
            shape,
            act_min: -50.0,
            act_max: 50.0,
        };
        let ip = broadcast::BinaryI32 {
            shape,
            act_min: i32::MIN,
            act_max: i32::MAX,
        };
        macro_rules! check {
            ($name:literal, $gen:expr, $fill:expr, $two:expr, $one:expr) => {{
                let x: Vec<_> = (0..n).map(|_| $gen(&mut rng)).collect();
                let y: Vec<_> = (0..m).map(|_| $gen(&mut rng)).collect();
                let mut want = vec![$fill; n];
                $two(&x[..], &y[..], &mut want[..]);
                unary_layouts(&mut rng, $name, &x, &want, $fill, &|b, ia, oa| {
                    $one(b, ia, oa, &y[..])
                });
            }};
        }
        let s8 = |r: &mut Rng| r.next() as i8;
        let s16 = |r: &mut Rng| r.next() as i16;
        let i32v = |r: &mut Rng| (r.next() >> 40) as i32 - (1 << 23);
        let f = |r: &mut Rng| (r.below(2001) as f32 - 1000.0) / 64.0;
        check!(
            "add_s8",
            s8,
            0_i8,
            |x, y, o| add::add_s8(&a, x, y, o),
            |b, ia, oa, y| add_s8(&a, b, ia, oa, y)
        );
        check!(
            "add_s16",
            s16,
            0_i16,
            |x, y, o| add::add_s16(&a16, x, y, o),
            |b, ia, oa, y| add_s16(&a16, b, ia, oa, y)
        );
        check!(
            "add_i32",
            i32v,
            0_i32,
            |x, y, o| add::add_i32(&ip, x, y, o),
            |b, ia, oa, y| add_i32(&ip, b, ia, oa, y)
        );
        check!(
            "add_f32",
            f,
            0.0_f32,
            |x, y, o| add::add_f32(&fp, x, y, o),
            |b, ia, oa, y| add_f32(&fp, b, ia, oa, y)
        );
        check!(
            "mul_s8",
            s8,
            0_i8,
            |x, y, o| mul::mul_s8(&mu, x, y, o),
            |b, ia, oa, y| mul_s8(&mu, b, ia, oa, y)
        );
        check!(
            "mul_s16",
            s16,
            0_i16,
            |x, y, o| mul::mul_s16(&mu16, x, y, o),
            |b, ia, oa, y| mul_s16(&mu16, b, ia, oa, y)
        );
        check!(
            "mul_i32",
            i32v,
            0_i32,
            |x, y, o| mul::mul_i32(&ip, x, y, o),
            |b, ia, oa, y| mul_i32(&ip, b, ia, oa, y)
        );
        check!(
            "mul_f32",
            f,
            0.0_f32,
            |x, y, o| mul::mul_f32(&fp, x, y, o),
            |b, ia, oa, y| mul_f32(&fp, b, ia, oa, y)
        );
    }
}

/// FULLY_CONNECTED on one buffer: at its least displacement and above (and disjoint) each chunk
/// reads untouched input rows and the result is the two-buffer one; one element closer it is
/// refused, and there the last row's output would cover the input row it reads.
#[test]
fn fully_connected_on_one_buffer_equals_two_buffers() {
    let mut rng = Rng(0xfc00_0001);
    let (mut chunks, mut calls) = (0, 0);
    for _ in 0..CASES / 2 {
        let (batches, depth, units) = (1 + rng.below(6), 1 + rng.below(9), 1 + rng.below(9));
        let least = fully_connected_min_displacement(batches, depth, units).unwrap();
        // The formula against every row's own requirement.
        let most = (0..batches)
            .map(|b| ((b + 1) * units) as i64 - (b * depth) as i64)
            .max()
            .unwrap();
        assert_eq!(least as i64, most);
        let (i, o) = (batches * depth, batches * units);
        let p = super::super::FullyConnectedS8 {
            batches,
            accum_depth: depth,
            output_depth: units,
            input_offset: rng.below(41) as i32 - 20,
            filter_offset: 0,
            output_offset: rng.below(41) as i32 - 20,
            requant: &super::tests::REQUANT[..1],
            act_min: -128,
            act_max: 127,
        };
        let x: Vec<i8> = (0..i).map(|_| rng.next() as i8).collect();
        let filter: Vec<i8> = (0..units * depth).map(|_| rng.next() as i8).collect();
        let bias: Vec<i32> = (0..units).map(|_| rng.below(2001) as i32 - 1000).collect();
        let mut want = vec![0_i8; o];
        super::super::fully_connected_s8(&p, &x, &filter, Some(&bias), &mut want);
        let pf = super::super::FullyConnectedF32 {
            batches,
            accum_depth: depth,
            output_depth: units,
            act_min: f32::MIN,
            act_max: f32::MAX,
        };
        let xf: Vec<f32> = x.iter().map(|&v| f32::from(v) / 8.0).collect();
        let ff: Vec<f32> = filter.iter().map(|&v| f32::from(v) / 16.0).collect();
        let mut wantf = vec![0.0_f32; o];
        super::super::fully_connected_f32(&pf, &xf, &ff, None, &mut wantf);
        for (ia, oa) in [
            (least, 0),
            (least + 1 + rng.below(i + 1), 0),
            (o + rng.below(3), 0),
            (0, i + rng.below(3)),
        ] {
            assert!(fully_connected_fits(batches, depth, units, ia, oa));
            let n = ia + oa + i + o;
            let mut b = vec![0x55_i8; n];
            b[ia..ia + i].copy_from_slice(&x);
            assert!(fully_connected_s8(&p, &mut b, ia, oa, &filter, Some(&bias)));
            assert_eq!(
                b[oa..oa + o],
                want[..],
                "{batches}×{depth}→{units} at {ia} {oa}"
            );
            let mut bf = vec![0.0_f32; n];
            bf[ia..ia + i].copy_from_slice(&xf);
            assert!(fully_connected_f32(&pf, &mut bf, ia, oa, &ff, None));
            assert_eq!(
                bf[oa..oa + o],
                wantf[..],
                "f32 {batches}×{depth}→{units} at {ia} {oa}"
            );
            // Instrumented: every chunk's input rows untouched, in order.
            let mut cells = vec![Cell::Free; n];
            for k in 0..i {
                cells[ia + k] = Cell::Input(k);
            }
            let (mut row, mut written) = (0, 0);
            assert!(rows(
                (batches, depth, units),
                &mut cells,
                ia,
                oa,
                |r, input, output| {
                    calls += 1;
                    chunks += usize::from(r < batches);
                    assert_eq!(input.len(), r * depth);
                    for (k, c) in input.iter().enumerate() {
                        assert_eq!(*c, Cell::Input(row * depth + k));
                    }
                    for c in output.iter_mut() {
                        *c = Cell::Output(written);
                        written += 1;
                    }
                    row += r;
                }
            ));
            assert_eq!((row, written), (batches, o));
        }
        if least > 0 && least < o {
            let ia = least - 1;
            assert!(!fully_connected_fits(batches, depth, units, ia, 0));
            let mut b = vec![0_i8; ia + i + o];
            assert!(!fully_connected_s8(&p, &mut b, ia, 0, &filter, Some(&bias)));
            // The row attaining `D`: its output ends one element into its own input row.
            let b_max = (0..batches)
                .find(|&b| (b + 1) * units == b * depth + least)
                .unwrap();
            assert!((b_max + 1) * units > ia + b_max * depth);
        }
    }
    assert!(
        chunks > CASES / 8,
        "{chunks} of {calls} chunks short of all rows"
    );
}

/// CONCATENATION with its first input over the output: on cells that name every element, the
/// output is the two-buffer concatenation exactly (a chunk written over before it was moved
/// would show) at its least displacement, above it and disjoint; one element closer it is
/// refused, and there the kernel's order would write over the first input's last chunk
/// before moving it.
#[test]
fn concatenation_on_one_buffer_equals_two_buffers() {
    let mut rng = Rng(0xc0ca_0001);
    for _ in 0..CASES {
        let outer = 1 + rng.below(5);
        let inputs = 1 + rng.below(4);
        let inners: Vec<usize> = (0..inputs)
            .map(|_| rng.below(6) + usize::from(inputs == 1))
            .collect();
        let row: usize = inners.iter().sum();
        if inners[0] == 0 || row == 0 {
            continue;
        }
        let least = concatenation_min_displacement(outer, &inners).unwrap();
        assert_eq!(least, (outer - 1) * (row - inners[0]));
        // Input `i`'s element `e` is `Input(1000 · i + e)`.
        let values: Vec<Vec<Cell>> = inners
            .iter()
            .enumerate()
            .map(|(i, &n)| (0..outer * n).map(|e| Cell::Input(1000 * i + e)).collect())
            .collect();
        let refs: Vec<&[Cell]> = values.iter().map(Vec::as_slice).collect();
        let mut want = vec![Cell::Free; outer * row];
        super::super::concatenation(outer, &inners, &refs, &mut want);
        let (n_in, n_out) = (outer * inners[0], outer * row);
        for (ia, oa) in [
            (least, 0),
            (least + 1 + rng.below(n_out + 1), 0),
            (n_out + rng.below(3), 0),
            (0, n_in + rng.below(3)),
        ] {
            let mut buf = vec![Cell::Free; ia + oa + n_in + n_out];
            buf[ia..ia + n_in].copy_from_slice(&values[0]);
            assert!(concatenation(
                &(),
                &mut buf,
                ia,
                oa,
                outer,
                &inners,
                &refs[1..]
            ));
            assert_eq!(
                buf[oa..oa + n_out],
                want[..],
                "{outer} × {inners:?} at {ia} {oa}"
            );
            // The same with values: int8 elements of a random input.
            let bytes: Vec<Vec<i8>> = inners
                .iter()
                .map(|&n| (0..outer * n).map(|_| rng.next() as i8).collect())
                .collect();
            let brefs: Vec<&[i8]> = bytes.iter().map(Vec::as_slice).collect();
            let mut bwant = vec![0_i8; n_out];
            super::super::concatenation(outer, &inners, &brefs, &mut bwant);
            let mut b = vec![0x55_i8; ia + oa + n_in + n_out];
            b[ia..ia + n_in].copy_from_slice(&bytes[0]);
            assert!(concatenation(
                &(),
                &mut b,
                ia,
                oa,
                outer,
                &inners,
                &brefs[1..]
            ));
            assert_eq!(b[oa..oa + n_out], bwant[..]);
        }
        if least > 0 && least < n_out {
            let ia = least - 1;
            assert!(!concatenation_fits(outer, &inners, ia, 0));
            let mut buf = vec![Cell::Free; ia + n_in + n_out];
            buf[ia..ia + n_in].copy_from_slice(&values[0]);
            let before = buf.clone();
            assert!(!concatenation(
                &(),
                &mut buf,
                ia,
                0,
                outer,
                &inners,
                &refs[1..]
            ));
            assert_eq!(buf, before);
            // The kernel's order without the check: the output then differs.
            let mut at = 0;
            for k in 0..outer {
                let from = ia + k * inners[0];
                buf.copy_within(from..from + inners[0], at);
                at += inners[0];
                for (input, &inner) in refs[1..].iter().zip(&inners[1..]) {
                    buf[at..at + inner].copy_from_slice(&input[k * inner..(k + 1) * inner]);
                    at += inner;
                }
            }
            assert_ne!(buf[..n_out], want[..], "{outer} × {inners:?} at D − 1");
        }
    }
}
