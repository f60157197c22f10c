//! The one-buffer entries of `kernels::overlap`, op by op, against their two-buffer kernels:
//! equal at every layout they accept, refused one element closer than their least
//! displacement.

extern crate std;
use std::fmt::Debug;
use std::vec;
use std::vec::Vec;

use super::KernelError;
use super::conv::{conv2d_f32_part, conv2d_s8_portable};
use super::depthwise_conv::depthwise_conv2d_s8_portable;
use super::dequantize::in_place::widening;
use super::overlap::*;
use super::pad::in_place::elements5;
use super::pooling::{PoolF32, PoolGeometry, PoolS8, PoolS16};
use super::shared::binary_walk::one_buffer_walk;
use super::shared::broadcast::BinaryShape;
use super::shared::in_place::{binary, elementwise, overlapped};
use super::shared::testing::REQUANT;
use super::shared::testing::window::Cell;
use super::shared::testing::window::{
    CASES, Rng, dimension, displacements, elements, random_binary, random_geometry,
};
use super::shared::{ConvF32, ConvGeometry, ConvS8, Part, Requant};

/// The int8 kernels on one buffer give what they give on two, at every displacement tried,
/// and refuse one element closer (their output then differs). The DSP build's blocked
/// kernels run in the host build too (with portable instruction semantics): each chunk
/// runs one of them where it takes the shape.
#[test]
fn int8_kernels_on_one_buffer_equal_two_buffers() {
    let mut rng = Rng(0x0e1a_9500);
    for case in 0..CASES {
        let depthwise = case % 2 == 1;
        let g = random_geometry(&mut rng, depthwise);
        let least = min_displacement(&g).expect("a walk");
        let (input, output) = (elements(g.input), elements(g.output));
        let values =
            |rng: &mut Rng, n: usize| -> Vec<i8> { (0..n).map(|_| rng.next() as i8).collect() };
        let x = values(&mut rng, input);
        let filter = values(&mut rng, elements(g.filter));
        let bias: Vec<i32> = (0..g.output[3])
            .map(|_| (rng.next() % 4001) as i32 - 2000)
            .collect();
        let p = ConvS8 {
            geometry: g,
            input_offset: (rng.next() % 256) as i32 - 127,
            output_offset: (rng.next() % 21) as i32 - 10,
            requant: &REQUANT[..g.output[3]],
            act_min: -128,
            act_max: 127,
        };
        let blocked = rng.below(2) == 0;
        let kernel = |sub: &ConvGeometry, part: Part, i: &[i8], o: &mut [i8]| {
            let p = ConvS8 {
                geometry: *sub,
                ..p
            };
            let bias = Some(&bias[..]);
            let simd = super::conv::dsp::pointwise::conv1x1_s8::<0>;
            match (depthwise, blocked) {
                (false, true) if part == Part::WHOLE && simd(&p, i, &filter, bias, o) => {}
                (true, true)
                    if super::depthwise_conv::dsp::depthwise_s8::<
                        { super::depthwise_conv::kernel::ANY },
                    >(&p, part, i, &filter, bias, o) => {}
                (false, _) => conv2d_s8_portable(&p, part, i, &filter, bias, o),
                (true, _) => depthwise_conv2d_s8_portable(&p, part, i, &filter, bias, o),
            }
        };
        let mut expected = vec![0_i8; output];
        kernel(&g, Part::WHOLE, &x, &mut expected);
        for d in displacements(&mut rng, least, output) {
            let mut buf = vec![0x55_i8; (d + input).max(output)];
            buf[d..d + input].copy_from_slice(&x);
            assert!(overlapped(&g, &mut buf, d, 0, &kernel), "{g:?} d {d}");
            assert_eq!(
                buf[..output],
                expected[..],
                "{g:?} at d = {d} (D = {least})"
            );
            // The entry point generated code calls (its loop of its own).
            let mut buf = vec![0x55_i8; (d + input).max(output)];
            buf[d..d + input].copy_from_slice(&x);
            let entry = if depthwise {
                depthwise_conv2d_s8
            } else {
                conv2d_s8
            };
            assert_eq!(
                entry(&p, &mut buf, d, 0, &filter, Some(&bias)),
                Ok(()),
                "{g:?} d {d}"
            );
            assert_eq!(buf[..output], expected[..], "entry, {g:?} at d = {d}");
        }
        // The input wholly below the output: one run.
        let mut buf = vec![0_i8; input + output];
        buf[..input].copy_from_slice(&x);
        assert!(overlapped(&g, &mut buf, 0, input, &kernel));
        assert_eq!(buf[input..], expected[..], "{g:?} below");
        if least > 0 && least < output {
            let mut buf = vec![0x55_i8; (least - 1 + input).max(output)];
            buf[least - 1..least - 1 + input].copy_from_slice(&x);
            assert!(
                !overlapped(&g, &mut buf, least - 1, 0, &kernel),
                "{g:?} D − 1"
            );
            let entry = if depthwise {
                depthwise_conv2d_s8
            } else {
                conv2d_s8
            };
            // Refused, with nothing written.
            let before = buf.clone();
            assert_eq!(
                entry(&p, &mut buf, least - 1, 0, &filter, Some(&bias)),
                Err(super::KernelError::Placement)
            );
            assert_eq!(buf, before, "{g:?} D − 1 wrote");
        }
    }
}

/// A random pool geometry (windows up to 3 x 3, strides up to 2, SAME or VALID).
fn random_pool(rng: &mut Rng) -> PoolGeometry {
    loop {
        let n = 1 + rng.below(2);
        let (h, w, c) = (1 + rng.below(9), 1 + rng.below(8), 1 + rng.below(5));
        let (fh, fw) = (1 + rng.below(3), 1 + rng.below(3));
        let (sh, sw) = (1 + rng.below(2), 1 + rng.below(2));
        let same = rng.below(2) == 0;
        let (Some((oh, ph)), Some((ow, pw))) =
            (dimension(h, fh, sh, 1, same), dimension(w, fw, sw, 1, same))
        else {
            continue;
        };
        return PoolGeometry {
            input: [n, h, w, c],
            output: [n, oh, ow, c],
            filter_h: fh,
            filter_w: fw,
            stride_h: sh,
            stride_w: sw,
            pad_h: ph,
            pad_w: pw,
        };
    }
}

/// The int8, int16 and float pools on one buffer give what they give on two, at `D` and
/// above, disjoint, and refuse one element closer.
#[test]
fn pools_on_one_buffer_equal_two_buffers() {
    let mut rng = Rng(0x0b00_1500);
    for case in 0..CASES {
        let g = random_pool(&mut rng);
        let least = min_displacement(&pool_walk(&g)).expect("a walk");
        let (input, output) = (elements(g.input), elements(g.output));
        let x: Vec<i8> = (0..input).map(|_| rng.next() as i8).collect();
        let (act_min, act_max) = (-100 + rng.below(20) as i32, 100 - rng.below(20) as i32);
        let p8 = PoolS8 {
            geometry: g,
            act_min,
            act_max,
        };
        let p16 = PoolS16 {
            geometry: g,
            act_min: act_min * 200,
            act_max: act_max * 200,
        };
        let pf = PoolF32 {
            geometry: g,
            act_min: -1.5,
            act_max: 1.5,
        };
        let avg = case % 2 == 0;
        let mut want8 = vec![0_i8; output];
        let mut want16 = vec![0_i16; output];
        let mut wantf = vec![0.0_f32; output];
        let x16: Vec<i16> = x.iter().map(|&v| i16::from(v) * 251).collect();
        let xf: Vec<f32> = x.iter().map(|&v| f32::from(v) / 64.0).collect();
        if avg {
            super::average_pool_s8(&p8, &x, &mut want8).unwrap();
            super::average_pool_s16(&p16, &x16, &mut want16).unwrap();
            super::average_pool_f32(&pf, &xf, &mut wantf).unwrap();
        } else {
            super::max_pool_s8(&p8, &x, &mut want8).unwrap();
            super::max_pool_s16(&p16, &x16, &mut want16).unwrap();
            super::max_pool_f32(&pf, &xf, &mut wantf).unwrap();
        }
        let ds = displacements(&mut rng, least, output);
        for (k, d) in ds.into_iter().chain([least.wrapping_sub(1)]).enumerate() {
            // The last: one element closer than `D` (refused where it shares elements).
            let refused = k == ds.len();
            if refused && (least == 0 || least >= output) {
                continue;
            }
            let len = (d + input).max(output);
            let mut b8 = vec![0x55_i8; len];
            b8[d..d + input].copy_from_slice(&x);
            let mut b16 = vec![0x5555_i16; len];
            b16[d..d + input].copy_from_slice(&x16);
            let mut bf = vec![7.0_f32; len];
            bf[d..d + input].copy_from_slice(&xf);
            let before = (b8.clone(), b16.clone(), bf.clone());
            let runs = if avg {
                [
                    average_pool_s8(&p8, &mut b8, d, 0).is_ok(),
                    average_pool_s16(&p16, &mut b16, d, 0).is_ok(),
                    average_pool_f32(&pf, &mut bf, d, 0).is_ok(),
                ]
            } else {
                [
                    max_pool_s8(&p8, &mut b8, d, 0).is_ok(),
                    max_pool_s16(&p16, &mut b16, d, 0).is_ok(),
                    max_pool_f32(&pf, &mut bf, d, 0).is_ok(),
                ]
            };
            assert_eq!(runs, [!refused; 3], "{g:?} d {d} (D = {least})");
            assert_eq!(pool_fits(&g, d, 0), !refused, "{g:?} d {d}");
            if refused {
                // Refused: nothing written.
                assert_eq!(b8, before.0, "{g:?} d {d}");
                assert_eq!(b16, before.1, "{g:?} d {d}");
                assert!(
                    bf.iter()
                        .zip(&before.2)
                        .all(|(a, b)| a.to_bits() == b.to_bits())
                );
            }
            if !refused {
                assert_eq!(b8[..output], want8[..], "{g:?} d {d}");
                assert_eq!(b16[..output], want16[..], "{g:?} d {d}");
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&bf[..output]), bits(&wantf), "{g:?} d {d}");
            }
        }
    }
}

/// QUANTIZE (int8, int16, int16 to int8) and the int8 LOGISTIC on one buffer give what
/// they give on two, with the input at the output's start (a full alias), above it,
/// disjoint on either side; the input below the output and overlapping it is refused.
#[test]
fn elementwise_on_one_buffer_equals_two_buffers() {
    let mut rng = Rng(0x0e1e_0001);
    for case in 0..CASES {
        let len = 1 + rng.below(40);
        let p = super::Requantize {
            input_offset: (rng.next() % 256) as i32 - 128,
            output_offset: (rng.next() % 21) as i32 - 10,
            requant: REQUANT[case % REQUANT.len()],
        };
        let l = super::LogisticS8 {
            input_zero_point: (rng.next() % 41) as i32 - 20,
            input_range_radius: 90 + rng.below(40) as i32,
            input_multiplier: 1_500_000_000 + rng.below(500_000_000) as i32,
            input_left_shift: 18 + rng.below(6) as i32,
        };
        let x8: Vec<i8> = (0..len).map(|_| rng.next() as i8).collect();
        let x16: Vec<i16> = (0..len).map(|_| rng.next() as i16).collect();
        let mut want = (
            vec![0_i8; len],
            vec![0_i16; len],
            vec![0_i8; len],
            vec![0_i8; len],
        );
        super::requantize_s8(&p, &x8, &mut want.0).unwrap();
        super::requantize_s16(&p, &x16, &mut want.1).unwrap();
        super::requantize_s16_s8(&p, &x16, &mut want.2).unwrap();
        super::logistic_s8(&l, &x8, &mut want.3).unwrap();
        // (input at, output at): a full alias, the input above, disjoint both ways, and
        // the input one element below the output (refused).
        let gap = rng.below(3);
        for (at, (ia, oa)) in [
            (0, 0),
            (gap + 1, 0),
            (2 * len + gap, 0),
            (0, 2 * len + gap),
            (0, 1),
        ]
        .into_iter()
        .enumerate()
        {
            let refused = at == 4 && len > 1;
            let n = 2 * (ia + oa + 2 * len + 1);
            let mut b8 = vec![0x55_i8; n];
            b8[ia..ia + len].copy_from_slice(&x8);
            let before = b8.clone();
            assert_eq!(requantize_s8(&p, &mut b8, ia, oa, len).is_ok(), !refused);
            if refused {
                assert_eq!(b8, before, "a refused call writes nothing");
            } else {
                assert_eq!(b8[oa..oa + len], want.0[..], "requantize_s8 {ia} {oa}");
            }
            let mut b16 = vec![0x55_i16; n];
            b16[ia..ia + len].copy_from_slice(&x16);
            let before = b16.clone();
            assert_eq!(requantize_s16(&p, &mut b16, ia, oa, len).is_ok(), !refused);
            if refused {
                assert_eq!(b16, before, "a refused call writes nothing");
            } else {
                assert_eq!(b16[oa..oa + len], want.1[..], "requantize_s16 {ia} {oa}");
            }
            // int16 to int8 on bytes: the input's two bytes per element.
            let mut bytes = vec![0x55_i8; n];
            for (k, v) in x16.iter().enumerate() {
                let [b0, b1] = v.to_ne_bytes();
                (bytes[ia + 2 * k], bytes[ia + 2 * k + 1]) = (b0 as i8, b1 as i8);
            }
            let oa2 = if oa == 0 { 0 } else { oa + len };
            let before = bytes.clone();
            let ok = requantize_s16_s8(&p, &mut bytes, ia, oa2, len).is_ok();
            assert_eq!(ok, !refused, "requantize_s16_s8 {ia} {oa2}");
            if refused {
                assert_eq!(bytes, before, "a refused call writes nothing");
            } else {
                assert_eq!(
                    bytes[oa2..oa2 + len],
                    want.2[..],
                    "requantize_s16_s8 {ia} {oa2}"
                );
            }
            let mut b8 = vec![0x55_i8; n];
            b8[ia..ia + len].copy_from_slice(&x8);
            let before = b8.clone();
            assert_eq!(logistic_s8(&l, &mut b8, ia, oa, len).is_ok(), !refused);
            if refused {
                assert_eq!(b8, before, "a refused call writes nothing");
            } else {
                assert_eq!(b8[oa..oa + len], want.3[..], "logistic_s8 {ia} {oa}");
            }
            assert_eq!(elementwise_fits(ia, oa, len, 1), !refused);
        }
        assert!(want.3.iter().any(|&v| v != want.3[0]) || len < 8);
    }
}

/// The int8 TANH, RELU and RELU6 on one buffer give what they give on two, aliased, above,
/// disjoint; the input one element below the output (and overlapping it) is refused.
#[test]
fn activations_on_one_buffer_equal_two_buffers() {
    let mut rng = Rng(0x0ac7_0001);
    for case in 0..CASES {
        let len = 2 + rng.below(40);
        let t = super::TanhS8 {
            input_zero_point: (rng.next() % 41) as i32 - 20,
            input_range_radius: 90 + rng.below(40) as i32,
            input_multiplier: 1_500_000_000 + rng.below(500_000_000) as i32,
            input_left_shift: 18 + rng.below(6) as i32,
        };
        let r = super::ReluS8 {
            input_offset: (rng.next() % 41) as i32 - 20,
            output_offset: (rng.next() % 21) as i32 - 10,
            requant: REQUANT[case % REQUANT.len()],
            act_min: -128 + rng.below(100) as i32,
            act_max: 127,
        };
        let r6 = super::Relu6S8 {
            zero: (rng.next() % 41) as i8 - 20,
            six: 60 + (rng.next() % 60) as i8,
        };
        let x: Vec<i8> = (0..len).map(|_| rng.next() as i8).collect();
        let mut want = (vec![0_i8; len], vec![0_i8; len], vec![0_i8; len]);
        super::tanh_s8(&t, &x, &mut want.0).unwrap();
        super::relu_s8(&r, &x, &mut want.1).unwrap();
        super::relu6_s8(&r6, &x, &mut want.2).unwrap();
        let gap = rng.below(3);
        for (ia, oa) in [(0, 0), (gap + 1, 0), (len + gap, 0), (0, len + gap), (0, 1)] {
            let refused = (ia, oa) == (0, 1);
            let n = 2 * (ia + oa + len + 1);
            let run = |f: &dyn Fn(&mut [i8]) -> Result<(), KernelError>, want: &[i8]| {
                let mut buf = vec![0x55_i8; n];
                buf[ia..ia + len].copy_from_slice(&x);
                let before = buf.clone();
                let ran = f(&mut buf);
                assert_eq!(ran.is_ok(), !refused, "{ia} {oa}");
                if refused {
                    assert_eq!(ran, Err(KernelError::Placement));
                    assert_eq!(buf, before, "a refused call writes nothing");
                } else {
                    assert_eq!(buf[oa..oa + len], *want, "{ia} {oa}");
                }
            };
            run(&|b| tanh_s8(&t, b, ia, oa, len), &want.0);
            run(&|b| relu_s8(&r, b, ia, oa, len), &want.1);
            run(&|b| relu6_s8(&r6, b, ia, oa, len), &want.2);
        }
    }
}

/// PAD on one buffer gives what it gives on two at its least displacement (the most any
/// input element's output index exceeds its own, found by walking the output), above it
/// and disjoint, and refuses one element closer.
#[test]
fn pad_on_one_buffer_equals_two_buffers() {
    let mut rng = Rng(0x9ad0_0001);
    for _ in 0..CASES {
        let mut p = super::Pad {
            input: [1; 5],
            output: [1; 5],
            before: [0; 5],
        };
        for d in 5 - (1 + rng.below(4))..5 {
            p.input[d] = 1 + rng.below(4);
            p.before[d] = rng.below(3);
            p.output[d] = p.input[d] + p.before[d] + rng.below(3);
        }
        let (i, o) = (elements5(&p.input).unwrap(), elements5(&p.output).unwrap());
        let mut q = Vec::new();
        let mut k = 0;
        super::pad::pad_walk(&p, |j| {
            if j.is_some() {
                q.push(k);
            }
            k += 1;
        });
        let least = q.iter().enumerate().map(|(j, &q)| q - j).max().unwrap();
        assert_eq!(pad_min_displacement(&p), Some(least), "{p:?}");
        let x: Vec<i16> = (0..i).map(|_| rng.next() as i16).collect();
        let mut want = vec![0_i16; o];
        super::pad(&p, &x, -7, &mut want).unwrap();
        for d in [least, least + 1, o + rng.below(3)] {
            let mut buf = vec![0x5555_i16; (d + i).max(o)];
            buf[d..d + i].copy_from_slice(&x);
            pad(&p, &mut buf, d, 0, -7).unwrap();
            assert_eq!(buf[..o], want[..], "{p:?} d {d} (D = {least})");
        }
        // The input wholly below the output.
        let mut buf = vec![0_i16; i + o];
        buf[..i].copy_from_slice(&x);
        pad(&p, &mut buf, 0, i, -7).unwrap();
        assert_eq!(buf[i..], want[..], "{p:?} below");
        if least > 0 && least < o {
            let mut buf = vec![0x5555_i16; least - 1 + i + o];
            assert_eq!(
                pad(&p, &mut buf, least - 1, 0, -7),
                Err(KernelError::Placement),
                "{p:?} D − 1"
            );
            assert!(
                buf.iter().all(|&v| v == 0x5555),
                "{p:?} D − 1: nothing written"
            );
            assert!(!pad_fits(&p, least - 1, 0));
        }
    }
}

/// The float CONV_2D too, on `f32` buffers: bit for bit.
#[test]
fn float_conv_on_one_buffer_equals_two_buffers() {
    let mut rng = Rng(0x00f1_0a70);
    for _ in 0..CASES / 4 {
        let g = random_geometry(&mut rng, false);
        let least = min_displacement(&g).expect("a walk");
        let (input, output) = (elements(g.input), elements(g.output));
        let values = |rng: &mut Rng, n: usize| -> Vec<f32> {
            (0..n)
                .map(|_| (rng.next() % 2001) as f32 / 1000.0 - 1.0)
                .collect()
        };
        let x = values(&mut rng, input);
        let filter = values(&mut rng, elements(g.filter));
        let p = ConvF32 {
            geometry: g,
            act_min: f32::NEG_INFINITY,
            act_max: f32::INFINITY,
        };
        let kernel = |sub: &ConvGeometry, part: Part, i: &[f32], o: &mut [f32]| {
            conv2d_f32_part(
                &ConvF32 {
                    geometry: *sub,
                    ..p
                },
                part,
                i,
                &filter,
                None,
                o,
            );
        };
        let mut expected = vec![0.0_f32; output];
        kernel(&g, Part::WHOLE, &x, &mut expected);
        let mut buf = vec![0.0_f32; (least + input).max(output)];
        buf[least..least + input].copy_from_slice(&x);
        assert!(overlapped(&g, &mut buf, least, 0, &kernel));
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&buf[..output]), bits(&expected), "{g:?}");
    }
}

/// An elementwise entry `run(buf, input_at, output_at)` (width 1, `x.len()` elements) at a full
/// alias, the input above the output, disjoint both ways, and the input one element below the
/// output, overlapping it (refused): `want` where it runs, nothing written where it refuses.
/// What a one-buffer entry returns: the binary entries' `bool` (whether it ran), or the
/// elementwise entries' `Result`.
trait Ran {
    /// It ran.
    fn ran(&self) -> bool;
    /// It refused for the placement.
    fn refused_placement(&self) -> bool;
}

impl Ran for bool {
    fn ran(&self) -> bool {
        *self
    }
    fn refused_placement(&self) -> bool {
        !*self
    }
}

impl Ran for Result<(), KernelError> {
    fn ran(&self) -> bool {
        self.is_ok()
    }
    fn refused_placement(&self) -> bool {
        *self == Err(KernelError::Placement)
    }
}

fn unary_layouts<T: Copy + PartialEq + Debug, R: Ran>(
    rng: &mut Rng,
    name: &str,
    x: &[T],
    want: &[T],
    fill: T,
    run: &dyn Fn(&mut [T], usize, usize) -> R,
) {
    let len = x.len();
    let gap = rng.below(3);
    for (ia, oa) in [(0, 0), (gap + 1, 0), (len + gap, 0), (0, len + gap), (0, 1)] {
        let refused = (ia, oa) == (0, 1) && len > 1;
        let mut buf = vec![fill; 2 * (ia + oa + len + 1)];
        buf[ia..ia + len].copy_from_slice(x);
        let before = buf.clone();
        let ran = run(&mut buf, ia, oa);
        assert_eq!(ran.ran(), !refused, "{name} at {ia} {oa}");
        if refused {
            assert!(ran.refused_placement(), "{name} at {ia} {oa}");
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
    use super::{activations, elu, hard_swish, leaky_relu, logistic, tanh};
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
                $two(&x[..], &mut want[..]).unwrap();
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
        check!("relu_f32", &xf, 0.0_f32, super::relu_f32, |b, ia, oa, n| {
            relu_f32(&(), b, ia, oa, n)
        });
        check!(
            "relu6_f32",
            &xf,
            0.0_f32,
            super::relu6_f32,
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
        let p8 = super::DequantizeS8F32 { scale, zero_point };
        let p = super::dequantize::Dequantize { scale, zero_point };
        let x8: Vec<i8> = (0..len).map(|_| rng.next() as i8).collect();
        let x16: Vec<i16> = (0..len).map(|_| rng.next() as i16).collect();
        let xu: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let mut want = (vec![0.0_f32; len], vec![0.0_f32; len], vec![0.0_f32; len]);
        super::dequantize_s8_f32(&p8, &x8, &mut want.0).unwrap();
        super::dequantize::dequantize_s16_f32(&p, &x16, &mut want.1).unwrap();
        super::dequantize::dequantize_u8_f32(&p, &xu, &mut want.2).unwrap();
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
                    assert!(dequantize_s8_f32(&p8, &mut b8, ia, oa, len).is_ok());
                    let bytes: Vec<u8> = b8[oa..oa + out].iter().map(|&b| b as u8).collect();
                    assert_eq!(floats(&bytes), want.0, "s8 at {ia} {oa}");
                    let mut bu = vec![0x55_u8; n];
                    bu[ia..ia + len].copy_from_slice(&xu);
                    assert!(dequantize_u8_f32(&p, &mut bu, ia, oa, len).is_ok());
                    assert_eq!(floats(&bu[oa..oa + out]), want.2, "u8 at {ia} {oa}");
                } else {
                    let mut b16 = vec![0x55_i16; n];
                    b16[ia..ia + len].copy_from_slice(&x16);
                    assert!(dequantize_s16_f32(&p, &mut b16, ia, oa, len).is_ok());
                    let bytes: Vec<u8> = b16[oa..oa + out]
                        .iter()
                        .flat_map(|h| h.to_ne_bytes())
                        .collect();
                    assert_eq!(floats(&bytes), want.1, "s16 at {ia} {oa}");
                }
            }
            // The entries refuse a buffer one element short, and (below) one element closer,
            // writing nothing.
            let (ia, n) = (least, (least + len).max(out));
            let mut b8 = vec![0x55_i8; n - 1];
            let mut b16 = vec![0x55_i16; n - 1];
            if width == 4 {
                let r = dequantize_s8_f32(&p8, &mut b8, ia, 0, len);
                assert_eq!(r, Err(KernelError::Placement));
                assert!(b8.iter().all(|&b| b == 0x55));
            } else {
                let r = dequantize_s16_f32(&p, &mut b16, ia, 0, len);
                assert_eq!(r, Err(KernelError::Placement));
                assert!(b16.iter().all(|&b| b == 0x55));
            }
            if least > 0 {
                let mut b8 = vec![0x55_i8; n];
                let mut b16 = vec![0x55_i16; n];
                if width == 4 {
                    let r = dequantize_s8_f32(&p8, &mut b8, least - 1, 0, len);
                    assert_eq!(r, Err(KernelError::Placement));
                    assert!(b8.iter().all(|&b| b == 0x55));
                } else {
                    let r = dequantize_s16_f32(&p, &mut b16, least - 1, 0, len);
                    assert_eq!(r, Err(KernelError::Placement));
                    assert!(b16.iter().all(|&b| b == 0x55));
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

/// ADD and MUL of every type on one buffer (the first input over the output, the second
/// broadcast) give what they give on two.
#[test]
fn add_and_mul_on_one_buffer_equal_two_buffers() {
    use super::shared::broadcast;
    use super::{add, mul};
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
                $two(&x[..], &y[..], &mut want[..]).unwrap();
                unary_layouts(&mut rng, $name, &x, &want, $fill, &|b, ia, oa| {
                    $one(b, ia, oa, &y[..]).is_ok()
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
        let p = super::FullyConnectedS8 {
            batches,
            accum_depth: depth,
            output_depth: units,
            input_offset: rng.below(41) as i32 - 20,
            filter_offset: 0,
            output_offset: rng.below(41) as i32 - 20,
            requant: &REQUANT[..1],
            act_min: -128,
            act_max: 127,
        };
        let x: Vec<i8> = (0..i).map(|_| rng.next() as i8).collect();
        let filter: Vec<i8> = (0..units * depth).map(|_| rng.next() as i8).collect();
        let bias: Vec<i32> = (0..units).map(|_| rng.below(2001) as i32 - 1000).collect();
        let mut want = vec![0_i8; o];
        super::fully_connected_s8(&p, &x, &filter, Some(&bias), &mut want).unwrap();
        let pf = super::FullyConnectedF32 {
            batches,
            accum_depth: depth,
            output_depth: units,
            act_min: f32::MIN,
            act_max: f32::MAX,
        };
        let xf: Vec<f32> = x.iter().map(|&v| f32::from(v) / 8.0).collect();
        let ff: Vec<f32> = filter.iter().map(|&v| f32::from(v) / 16.0).collect();
        let mut wantf = vec![0.0_f32; o];
        super::fully_connected_f32(&pf, &xf, &ff, None, &mut wantf).unwrap();
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
            fully_connected_s8(&p, &mut b, ia, oa, &filter, Some(&bias)).unwrap();
            assert_eq!(
                b[oa..oa + o],
                want[..],
                "{batches}×{depth}→{units} at {ia} {oa}"
            );
            let mut bf = vec![0.0_f32; n];
            bf[ia..ia + i].copy_from_slice(&xf);
            fully_connected_f32(&pf, &mut bf, ia, oa, &ff, None).unwrap();
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
            assert_eq!(
                fully_connected_s8(&p, &mut b, ia, 0, &filter, Some(&bias)),
                Err(KernelError::Placement)
            );
            assert!(b.iter().all(|&v| v == 0), "refused, yet written");
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
        super::concatenation(outer, &inners, &refs, &mut want).unwrap();
        let (n_in, n_out) = (outer * inners[0], outer * row);
        for (ia, oa) in [
            (least, 0),
            (least + 1 + rng.below(n_out + 1), 0),
            (n_out + rng.below(3), 0),
            (0, n_in + rng.below(3)),
        ] {
            let mut buf = vec![Cell::Free; ia + oa + n_in + n_out];
            buf[ia..ia + n_in].copy_from_slice(&values[0]);
            concatenation(&(), &mut buf, ia, oa, outer, &inners, &refs[1..]).unwrap();
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
            super::concatenation(outer, &inners, &brefs, &mut bwant).unwrap();
            let mut b = vec![0x55_i8; ia + oa + n_in + n_out];
            b[ia..ia + n_in].copy_from_slice(&bytes[0]);
            concatenation(&(), &mut b, ia, oa, outer, &inners, &brefs[1..]).unwrap();
            assert_eq!(b[oa..oa + n_out], bwant[..]);
        }
        if least > 0 && least < n_out {
            let ia = least - 1;
            assert!(!concatenation_fits(outer, &inners, ia, 0));
            let mut buf = vec![Cell::Free; ia + n_in + n_out];
            buf[ia..ia + n_in].copy_from_slice(&values[0]);
            let before = buf.clone();
            assert_eq!(
                concatenation(&(), &mut buf, ia, 0, outer, &inners, &refs[1..]),
                Err(KernelError::Placement)
            );
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

/// The loops the Cortex-M DSP extension runs (each op's `dsp` module, with the instructions'
/// portable twins here), on the in-place driver's chunks, as the device runs them: each
/// chunk through the op's blocked kernel where it takes the part (the portable one where it
/// declines), at the least displacement, one element above, above and disjoint, against the
/// portable kernel on two buffers. int8 and int16 CONV_2D (both accumulators) and
/// DEPTHWISE_CONV_2D, and the int8 and int16 pools. The chunks the blocked kernels take must
/// include many parts of one row, with skipped pixels among them.
#[test]
fn dsp_kernels_on_chunks_equal_the_portable_kernels() {
    use super::conv::dsp::conv2d_s8_part as conv_s8_dsp;
    use super::conv::dsp::s16::conv2d_s16 as conv_s16_dsp;
    use super::conv::{conv2d_s16_acc32_part, conv2d_s16_part};
    use super::depthwise_conv::depthwise_conv2d_s16_part;
    use super::depthwise_conv::dsp::depthwise_s8 as depthwise_s8_dsp;
    use super::depthwise_conv::dsp_s16::depthwise_conv2d_s16 as depthwise_s16_dsp;
    use super::pooling::dsp as pool_dsp;
    use super::pooling::{
        average_pool_s8_portable, average_pool_s16_portable, max_pool_s8_portable,
        max_pool_s16_portable,
    };
    use super::shared::{ConvS16, requantize_channel_s16, requantize_channel_s16_acc32};

    /// How often the blocked kernels took a chunk: whole, a part, a part with pixels skipped.
    #[derive(Default, Debug)]
    struct Taken {
        whole: usize,
        part: usize,
        skipping: usize,
    }
    impl Taken {
        fn note(&mut self, part: Part) {
            if part == Part::WHOLE {
                self.whole += 1;
            } else {
                self.part += 1;
                self.skipping += usize::from(part.skip > 0);
            }
        }
    }

    /// A kernel on one chunk: its geometry, part, input and output.
    type ChunkKernel<'a, T> = dyn FnMut(&ConvGeometry, Part, &[T], &mut [T]) + 'a;

    /// `kernel` on one buffer through the driver at each displacement of `ds` (and with the
    /// input wholly below the output) equals `want`.
    fn on_chunks<T: Copy + PartialEq + Debug>(
        g: &ConvGeometry,
        x: &[T],
        fill: T,
        want: &[T],
        ds: &[usize],
        kernel: &mut ChunkKernel<'_, T>,
    ) {
        let (input, output) = (x.len(), want.len());
        for &d in ds {
            let mut buf = vec![fill; (d + input).max(output)];
            buf[d..d + input].copy_from_slice(x);
            assert!(overlapped(g, &mut buf, d, 0, &mut *kernel), "{g:?} d {d}");
            assert_eq!(buf[..output], *want, "{g:?} at d = {d}");
        }
        let mut buf = vec![fill; input + output];
        buf[..input].copy_from_slice(x);
        assert!(overlapped(g, &mut buf, 0, input, &mut *kernel));
        assert_eq!(buf[input..], *want, "{g:?} below");
    }

    let mut rng = Rng(0xd5b_c4a2);
    let (mut conv, mut dw, mut pool) = (Taken::default(), Taken::default(), Taken::default());
    let requant16 = &super::shared::testing::s16::REQUANT;
    for case in 0..CASES {
        let depthwise = case % 2 == 1;
        let g = random_geometry(&mut rng, depthwise);
        let least = min_displacement(&g).expect("a walk");
        let (input, output) = (elements(g.input), elements(g.output));
        let mut ds = vec![least, least + 1];
        ds.extend(displacements(&mut rng, least, output));
        let x: Vec<i8> = (0..input).map(|_| rng.next() as i8).collect();
        let x16: Vec<i16> = x.iter().map(|&v| i16::from(v) * 255).collect();
        let filter: Vec<i8> = (0..elements(g.filter)).map(|_| rng.next() as i8).collect();
        let bias: Vec<i32> = (0..g.output[3])
            .map(|_| (rng.next() % 4001) as i32 - 2000)
            .collect();
        let p = ConvS8 {
            geometry: g,
            input_offset: (rng.next() % 256) as i32 - 127,
            output_offset: (rng.next() % 21) as i32 - 10,
            requant: &REQUANT,
            act_min: -128,
            act_max: 127,
        };
        let p16 = ConvS16 {
            geometry: g,
            requant: requant16,
            act_min: -32768,
            act_max: 32767,
        };
        // int8: the device's dispatch on every chunk.
        let bias8 = Some(&bias[..]);
        let mut want = vec![0_i8; output];
        if depthwise {
            depthwise_conv2d_s8_portable(&p, Part::WHOLE, &x, &filter, bias8, &mut want);
        } else {
            conv2d_s8_portable(&p, Part::WHOLE, &x, &filter, bias8, &mut want);
        }
        let taken = if depthwise { &mut dw } else { &mut conv };
        on_chunks(&g, &x, 0x55, &want, &ds, &mut |sub, part, i, o| {
            let q = ConvS8 {
                geometry: *sub,
                ..p
            };
            let blocked = if depthwise {
                depthwise_s8_dsp::<{ super::depthwise_conv::kernel::ANY }>(
                    &q, part, i, &filter, bias8, o,
                )
            } else {
                conv_s8_dsp::<{ super::conv::kernel::ANY }>(&q, part, i, &filter, bias8, o)
            };
            if blocked {
                taken.note(part);
            } else if depthwise {
                depthwise_conv2d_s8_portable(&q, part, i, &filter, bias8, o);
            } else {
                conv2d_s8_portable(&q, part, i, &filter, bias8, o);
            }
        });
        // int16 (TFLM's 64-bit accumulator; and CONV_2D's 32-bit one).
        let finish64 =
            |acc: i64, c: usize| requantize_channel_s16(acc, c, None, requant16, -32768, 32767);
        let mut want16 = vec![0_i16; output];
        if depthwise {
            depthwise_conv2d_s16_part(&p16, Part::WHOLE, &x16, &filter, None, &mut want16);
            on_chunks(&g, &x16, 0x5555, &want16, &ds, &mut |sub, part, i, o| {
                let q = ConvS16 {
                    geometry: *sub,
                    ..p16
                };
                if depthwise_s16_dsp(&q, part, i, &filter, o, finish64) {
                    dw.note(part);
                } else {
                    depthwise_conv2d_s16_part(&q, part, i, &filter, None, o);
                }
            });
        } else {
            conv2d_s16_part(&p16, Part::WHOLE, &x16, &filter, None, &mut want16);
            on_chunks(&g, &x16, 0x5555, &want16, &ds, &mut |sub, part, i, o| {
                let q = ConvS16 {
                    geometry: *sub,
                    ..p16
                };
                if conv_s16_dsp::<i64>(sub, part, i, &filter, o, finish64) {
                    conv.note(part);
                } else {
                    conv2d_s16_part(&q, part, i, &filter, None, o);
                }
            });
            let finish32 = |acc: i32, c: usize| {
                requantize_channel_s16_acc32(acc, c, Some(&bias), requant16, -32768, 32767)
            };
            conv2d_s16_acc32_part(&p16, Part::WHOLE, &x16, &filter, Some(&bias), &mut want16);
            on_chunks(&g, &x16, 0x5555, &want16, &ds, &mut |sub, part, i, o| {
                let q = ConvS16 {
                    geometry: *sub,
                    ..p16
                };
                if conv_s16_dsp::<i32>(sub, part, i, &filter, o, finish32) {
                    conv.note(part);
                } else {
                    conv2d_s16_acc32_part(&q, part, i, &filter, Some(&bias), o);
                }
            });
        }
        // The pools, int8 and int16, through the walk of their window.
        let pg = random_pool(&mut rng);
        let walk = pool_walk(&pg);
        let least = min_displacement(&walk).expect("a walk");
        let (input, output) = (elements(pg.input), elements(pg.output));
        let mut ds = vec![least, least + 1];
        ds.extend(displacements(&mut rng, least, output));
        let x: Vec<i8> = (0..input).map(|_| rng.next() as i8).collect();
        let x16: Vec<i16> = x.iter().map(|&v| i16::from(v) * 251).collect();
        let p8 = PoolS8 {
            geometry: pg,
            act_min: -100,
            act_max: 110,
        };
        let p16 = PoolS16 {
            geometry: pg,
            act_min: -30000,
            act_max: 31000,
        };
        let sub8 = |sub: &ConvGeometry| PoolS8 {
            geometry: PoolGeometry {
                input: sub.input,
                output: sub.output,
                pad_h: sub.pad_h,
                ..pg
            },
            ..p8
        };
        let sub16 = |sub: &ConvGeometry| PoolS16 {
            geometry: PoolGeometry {
                input: sub.input,
                output: sub.output,
                pad_h: sub.pad_h,
                ..pg
            },
            ..p16
        };
        let average = case % 4 < 2;
        let mut want = vec![0_i8; output];
        let mut want16 = vec![0_i16; output];
        if average {
            average_pool_s8_portable(&p8, Part::WHOLE, &x, &mut want);
            average_pool_s16_portable(&p16, Part::WHOLE, &x16, &mut want16);
        } else {
            max_pool_s8_portable(&p8, Part::WHOLE, &x, &mut want);
            max_pool_s16_portable(&p16, Part::WHOLE, &x16, &mut want16);
        }
        on_chunks(&walk, &x, 0x55, &want, &ds, &mut |sub, part, i, o| {
            let q = sub8(sub);
            let blocked = if average {
                pool_dsp::average_pool_s8(&q, part, i, o)
            } else {
                pool_dsp::max_pool_s8(&q, part, i, o)
            };
            if blocked {
                pool.note(part);
            } else if average {
                average_pool_s8_portable(&q, part, i, o);
            } else {
                max_pool_s8_portable(&q, part, i, o);
            }
        });
        on_chunks(&walk, &x16, 0x5555, &want16, &ds, &mut |sub, part, i, o| {
            let q = sub16(sub);
            let blocked = if average {
                pool_dsp::average_pool_s16(&q, part, i, o)
            } else {
                pool_dsp::max_pool_s16(&q, part, i, o)
            };
            assert!(blocked, "the int16 pools take every part");
            pool.note(part);
        });
    }
    // The blocked kernels ran on parts of rows, with skipped pixels, not only whole tensors.
    for (what, t) in [
        ("CONV_2D", &conv),
        ("DEPTHWISE_CONV_2D", &dw),
        ("pools", &pool),
    ] {
        assert!(
            cfg!(miri) || (t.whole > CASES / 4 && t.part > CASES && t.skipping > CASES / 4),
            "{what}: {t:?}"
        );
    }
}
