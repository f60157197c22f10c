//! ADD (and, through [`binary`], MUL): int8 and float32, every fused activation, four shape
//! classes (same shapes; one input a scalar, `[1]` or all ones; a row `[.., C]` against a
//! full shape; general broadcasts with 1s on both sides and ranks that differ) over ranks 1 to
//! 6, quantisation over the suite's whole range.
//!
//! A device sweep ([`crate::device::shapes`]) gives the int8 variants a fifth class,
//! `blocked`: same shapes with one tensor as both inputs (`x + x`, `x * x`). Otherwise a
//! same-shape model's first input is always planned under its output, and the op runs element
//! by element through the overlapped entry (`overlap::add_s8`, `overlap::mul_s8`); a tensor
//! read twice cannot be, so these models run the DSP kernels' same-shape blocks.

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{Activation, BuiltinOp, DType, OpOptions};

use crate::suite::{
    self, ACTIVATIONS, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, elements, shape_within,
};

/// The shape classes.
pub const SHAPES: [&str; 4] = ["same", "scalar", "row", "general"];

/// The variants of ADD: [`binary`]'s int8 and float32 ones, and int16 (the general path,
/// left shift 15) and int32 (no clamp, whatever the activation) drawn by
/// [`crate::sub::binary_variant`].
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = binary(seed, target, "add", "ADD");
    for (label, dtype) in [("int16", DType::Int16), ("int32", DType::Int32)] {
        for (aname, activation) in ACTIVATIONS {
            let quants = move |rng: &mut Rng, index: usize| {
                if dtype == DType::Int16 {
                    crate::sub::add_quants(rng, index, dtype)
                } else {
                    crate::sub::no_quants(rng, index)
                }
            };
            out.push(crate::sub::binary_variant(
                seed,
                target,
                ("add", "ADD"),
                crate::sub::Types::same(label, dtype),
                (aname, crate::sub::options("ADD", activation)),
                &quants,
                None,
            ));
        }
    }
    out
}

/// The variants of a binary elementwise op (`add`/`ADD` or `mul`/`MUL`).
pub fn binary(seed: u64, target: Target, op: &'static str, builtin: &'static str) -> Vec<Variant> {
    // Seven models at least, so that every variant sees every rank (0 to 6 for scalars).
    let target = Target {
        values: target.values,
        models: target.models.max(7),
    };
    let mut out = Vec::new();
    for types in ["int8", "float32"] {
        // `SHAPES`, and in a device sweep `blocked` after them.
        let [same, scalar, row, general] = SHAPES;
        let mut classes = crate::device::shapes([same, scalar, row], types);
        classes.insert(3, general);
        for (aname, activation) in ACTIVATIONS {
            for &shape in &classes {
                let spec = Spec {
                    op,
                    builtin,
                    types: types.to_owned(),
                    options: aname.to_owned(),
                    shape,
                };
                out.push(suite::fill_with_sets(seed, spec, target, |rng, index| {
                    draw(rng, index, builtin, types == "int8", shape, activation)
                }));
            }
        }
    }
    out
}

/// The shapes of the two inputs and the output for shape class `class`, model `index`.
pub fn shapes(rng: &mut Rng, index: usize, class: &str) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    const LIMIT: usize = 3000;
    let wide = rng.chance(0.2);
    let (a, b, o) = match class {
        "same" => {
            let rank = 1 + index % 6;
            let s = shape_within(rng, rank, LIMIT, wide);
            (s.clone(), s.clone(), s)
        }
        "scalar" => {
            // Rank 0 too: a scalar with a scalar or a `[1]`.
            let rank = index % 7;
            let big = shape_within(rng, rank, LIMIT, wide);
            let small = match rng.below(3) {
                0 => Vec::new(),
                1 => vec![1],
                _ => vec![1; rng.size(1, rank.max(1))],
            };
            let out = if small.len() > big.len() {
                small.clone()
            } else {
                big.clone()
            };
            (big, small, out)
        }
        "row" => {
            let rank = 2 + index % 5;
            let mut big = shape_within(rng, rank, LIMIT, wide);
            // A row needs something to broadcast over.
            if elements(&big[..rank - 1]) == 1 {
                big[0] = rng.size(2, 5);
            }
            // A row of one element is the scalar class.
            if big[rank - 1] == 1 {
                big[rank - 1] = 2 * rng.size(1, 4) + 1;
            }
            let c = big[rank - 1];
            let small_rank = rng.size(1, rank);
            let mut small = vec![1; small_rank];
            small[small_rank - 1] = c;
            (big.clone(), small, big)
        }
        _ => {
            let rank = [4, 5, 6, 2, 3, 4, 5, 6][index % 8];
            let mut o: Vec<usize> = (0..rank)
                .map(|_| match rng.below(8) {
                    0 => 1,
                    1..=4 => 2 * rng.size(1, 3) + 1,
                    _ => rng.size(2, 6),
                })
                .collect();
            if wide {
                o[rank - 1] = rng.size(16, 200);
            }
            // Keep the output small: halve the largest dimension until it fits.
            while elements(&o) > LIMIT {
                if let Some(d) = o.iter_mut().max() {
                    *d = (*d / 2).max(1);
                }
            }
            // Per dimension: both the output's, or one of them 1.
            let mut a = o.clone();
            let mut b = o.clone();
            for d in 0..rank {
                if o[d] == 1 {
                    continue;
                }
                match rng.below(3) {
                    0 => a[d] = 1,
                    1 => b[d] = 1,
                    _ => {}
                }
            }
            // 1s on both sides: the first non-1 dimension is 1 in `a`, the last in `b`.
            let big: Vec<usize> = (0..rank).filter(|&d| o[d] > 1).collect();
            if let (Some(&first), Some(&last)) = (big.first(), big.last())
                && first != last
            {
                a[first] = 1;
                b[first] = o[first];
                b[last] = 1;
                a[last] = o[last];
            }
            // Now and then an input of lower rank (its leading 1s dropped).
            for s in [&mut a, &mut b] {
                if rng.chance(0.3) {
                    let lead = s.iter().take_while(|&&d| d == 1).count();
                    let drop = rng.size(0, lead);
                    s.drain(..drop);
                }
            }
            (a, b, o)
        }
    };
    if rng.chance(0.5) {
        (b, a, o)
    } else {
        (a, b, o)
    }
}

fn draw(
    rng: &mut Rng,
    index: usize,
    builtin: &str,
    int8: bool,
    class: &str,
    activation: Activation,
) -> Option<(Draft, Vec<Vec<u8>>)> {
    // The device sweeps' `blocked` class: the same shapes, one tensor as both inputs.
    let twice = class == "blocked";
    let (s1, s2, so) = shapes(rng, index, if twice { "same" } else { class });
    let op = BuiltinOp::from_name(builtin)?;
    let options = if builtin == "ADD" {
        OpOptions::Add {
            activation,
            pot_scale_int16: true,
        }
    } else {
        OpOptions::Mul { activation }
    };
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let (n1, n2, no) = (elements(&s1), elements(&s2), elements(&so));
    let note;
    let inputs = if int8 {
        let (q1, q2, qo) = quants(rng, index, builtin);
        let x = suite::activation(&mut b, sg, "input1", DType::Int8, &s1, Some(&q1));
        // The tensors in the order of the other classes: input1, input2, output.
        let y =
            (!twice).then(|| suite::activation(&mut b, sg, "input2", DType::Int8, &s2, Some(&q2)));
        let z = suite::activation(&mut b, sg, "output", DType::Int8, &so, Some(&qo));
        if let Some(y) = y {
            b.op_with_options(sg, op, &[x, y], &[z], options);
            b.io(sg, &[x, y], &[z]);
            note = format!(
                "in1 {s1:?} q {:?} in2 {s2:?} q {:?} out {so:?} q {:?}",
                (q1.s(), q1.z()),
                (q2.s(), q2.z()),
                (qo.s(), qo.z())
            );
            vec![
                InputSpec::int(DType::Int8, n1, q1.z()),
                InputSpec::int(DType::Int8, n2, q2.z()),
            ]
        } else {
            b.op_with_options(sg, op, &[x, x], &[z], options);
            b.io(sg, &[x], &[z]);
            note = format!(
                "in1 = in2 {s1:?} q {:?} out {so:?} q {:?}",
                (q1.s(), q1.z()),
                (qo.s(), qo.z())
            );
            vec![InputSpec::int(DType::Int8, n1, q1.z())]
        }
    } else {
        let m1 = suite::float_magnitude(rng, index);
        let m2 = if rng.chance(0.7) {
            m1
        } else {
            suite::float_magnitude(rng, index + 3)
        };
        let x = suite::activation(&mut b, sg, "input1", DType::Float32, &s1, None);
        let y = suite::activation(&mut b, sg, "input2", DType::Float32, &s2, None);
        let z = suite::activation(&mut b, sg, "output", DType::Float32, &so, None);
        b.op_with_options(sg, op, &[x, y], &[z], options);
        b.io(sg, &[x, y], &[z]);
        note = format!("in1 {s1:?} magnitude {m1:e} in2 {s2:?} magnitude {m2:e} out {so:?}");
        vec![InputSpec::float(n1, m1), InputSpec::float(n2, m2)]
    };
    let sets = if twice {
        // Every int8 value once over the sets (at most four of them).
        let sets = 256_usize.div_ceil(n1.max(1)).min(4);
        (0..sets)
            .map(|t| {
                (0..n1)
                    .map(|j| (((t * n1 + j) % 256) as i64 - 128) as u8)
                    .collect()
            })
            .collect()
    } else {
        special_sets(int8, class, n1, n2, no)
    };
    Some((Draft::new(&b, inputs, no, note), sets))
}

/// Input sets of special values. int8: the flat index `g` of every element over the sets gives
/// `(g mod 256, g / 256 mod 256)`: with equal shapes of 256 elements or more, every pair of
/// int8 values once. float32: both inputs cycle through [`suite::F32_SPECIALS`], the second
/// shifted by each offset in turn (equal shapes: every pair of specials).
fn special_sets(int8: bool, class: &str, n1: usize, n2: usize, no: usize) -> Vec<Vec<u8>> {
    let specials = suite::F32_SPECIALS.len();
    if int8 {
        if no < 256 {
            return Vec::new();
        }
        let sets = 65_536_usize
            .div_ceil(no)
            .min(if class == "same" { 256 } else { 32 });
        let pairs = |n: usize, t: usize, high: bool| -> Vec<u8> {
            (0..n)
                .map(|j| {
                    let g = t * n + j;
                    (if high { (g / 256) % 256 } else { g % 256 } as i64 - 128) as u8
                })
                .collect()
        };
        (0..sets)
            .map(|t| {
                let mut set = pairs(n1, t, false);
                set.extend(pairs(n2, t, true));
                set
            })
            .collect()
    } else {
        let offsets = if class == "same" { specials } else { 4 };
        (0..offsets)
            .map(|o| {
                let mut set = suite::cycle_f32(n1, &suite::F32_SPECIALS, 0);
                set.extend(suite::cycle_f32(n2, &suite::F32_SPECIALS, o));
                set
            })
            .collect()
    }
}

/// The quantisation of both inputs and the output: scales at random over the suite's range
/// (model 4 at its extremes: output multipliers that flush to zero; model 5 the other way: a
/// MUL multiplier above 2^31, whose shift is above 31, an ADD one just below 1; model 6 equal
/// input scales), zero points
/// over the whole int8 range.
fn quants(rng: &mut Rng, index: usize, builtin: &str) -> (Quant, Quant, Quant) {
    let (s1, s2, so) = match index {
        4 => (
            rng.log_uniform(1e-6, 1e-5),
            rng.log_uniform(1e-6, 1e-5),
            rng.log_uniform(10.0, 100.0),
        ),
        5 if builtin == "MUL" => (
            rng.log_uniform(10.0, 100.0),
            rng.log_uniform(10.0, 100.0),
            rng.log_uniform(1e-6, 2e-6),
        ),
        _ => {
            let s1 = suite::scale(rng);
            // Model 6: equal input scales (input multipliers exactly 1/2).
            let s2 = if index == 6 { s1 } else { suite::scale(rng) };
            let so = if index == 5 {
                // The smallest output scale ADD's Prepare accepts (and a little above).
                (2.0 * f64::from(s1.max(s2)) / f64::from(1_u32 << 20) * 1.001).max(1e-6) as f32
            } else {
                output_scale(rng, builtin, s1, s2)
            };
            (s1, s2, so)
        }
    };
    let z = |rng: &mut Rng| suite::zero_point(rng, DType::Int8);
    (
        Quant::tensor(s1, z(rng)),
        Quant::tensor(s2, z(rng)),
        Quant::tensor(so, z(rng)),
    )
}

/// An output scale TFLM accepts. ADD: `QuantizeMultiplierSmallerThanOneExp` aborts unless
/// `2 max(s1, s2) / (2^20 so) < 1` (add_common.cc:49-66), so the output scale stays above
/// `2 max(s1, s2) / 2^20`; mostly near the larger input scale, now and then anywhere above the
/// bound (and right at it). MUL: any scale; mostly the one that spreads a product of two
/// int8 values over the output, now and then anywhere in the suite's range.
fn output_scale(rng: &mut Rng, builtin: &str, s1: f32, s2: f32) -> f32 {
    let (lo_range, hi_range) = (1e-6_f64, 1e2_f64);
    if builtin == "ADD" {
        let smax = f64::from(s1.max(s2));
        let lo = (2.0 * smax / f64::from(1_u32 << 20) * 1.001).max(lo_range);
        let s = match rng.below(10) {
            0 => lo,
            1..=3 => f64::from(rng.log_uniform(lo, hi_range)),
            _ => (smax * f64::from(rng.log_uniform(0.25, 8.0))).clamp(lo, hi_range),
        };
        s as f32
    } else {
        let product = f64::from(s1) * f64::from(s2);
        let s = if rng.chance(0.3) {
            f64::from(suite::scale(rng))
        } else {
            product * 127.0 * 127.0 / 40.0 * f64::from(rng.log_uniform(0.1, 10.0))
        };
        s.clamp(lo_range, hi_range) as f32
    }
}
