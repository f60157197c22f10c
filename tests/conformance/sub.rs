//! SUB: int8, int16, int32 and float32, every fused activation, the shape classes of ADD
//! ([`crate::add::SHAPES`], one per model in turn) over ranks 0 to 6. Also the machinery the
//! other binary elementwise ops' variants share: [`draw_binary`] draws a model of two inputs
//! and one output of given types and quantisation, with special input sets; [`variant`] fills
//! a variant with it and fixes input values TFLM cannot take (divisors of 0).

use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{Activation, BuiltinOp, DType, OpOptions};

use crate::suite::{
    self, ACTIVATIONS, Draft, InputSpec, Quant, Rng, Spec, Target, Variant, element_bytes,
    elements, int_range,
};

/// The types of a binary op's model: the two inputs' and the output's.
#[derive(Clone, Copy, Debug)]
pub struct Types {
    /// The label in the table (`int8`, `int8->bool`).
    pub label: &'static str,
    /// The first input's type.
    pub input1: DType,
    /// The second input's type.
    pub input2: DType,
    /// The output's type.
    pub output: DType,
}

impl Types {
    /// All three of one type.
    pub const fn same(label: &'static str, dtype: DType) -> Self {
        Self {
            label,
            input1: dtype,
            input2: dtype,
            output: dtype,
        }
    }
}

/// The quantisation of the two inputs and the output of model `index`.
pub type Quants<'a> = &'a dyn Fn(&mut Rng, usize) -> [Option<Quant>; 3];

/// A model of one binary op: shapes of class `crate::add::SHAPES[index % 4]`, tensors typed
/// and quantised as given, plain inputs (the edges and random sets come from `suite::fill`)
/// and special sets: every pair of int8 values, or of float specials, or of the other types'
/// extremes.
pub fn draw_binary(
    rng: &mut Rng,
    index: usize,
    builtin: &str,
    types: Types,
    options: &OpOptions,
    quants: Quants<'_>,
) -> Option<(Draft, Vec<Vec<u8>>)> {
    let class = crate::add::SHAPES[index % crate::add::SHAPES.len()];
    let (s1, s2, so) = crate::add::shapes(rng, index, class);
    let op = BuiltinOp::from_name(builtin)?;
    let [q1, q2, qo] = quants(rng, index);
    let mut b = ModelBuilder::new();
    let sg = b.subgraph("main");
    let (n1, n2, no) = (elements(&s1), elements(&s2), elements(&so));
    let x = suite::activation(&mut b, sg, "input1", types.input1, &s1, q1.as_ref());
    let y = suite::activation(&mut b, sg, "input2", types.input2, &s2, q2.as_ref());
    let z = suite::activation(&mut b, sg, "output", types.output, &so, qo.as_ref());
    b.op_with_options(sg, op, &[x, y], &[z], options.clone());
    b.io(sg, &[x, y], &[z]);
    let q = |q: &Option<Quant>| q.as_ref().map(|q| (q.s(), q.z()));
    let m1 = suite::float_magnitude(rng, index);
    let m2 = if rng.chance(0.7) {
        m1
    } else {
        suite::float_magnitude(rng, index + 3)
    };
    let spec = |dtype: DType, n: usize, q: &Option<Quant>, m: f64| {
        if dtype == DType::Float32 {
            InputSpec::float(n, m)
        } else {
            InputSpec::int(dtype, n, q.as_ref().map_or(0, Quant::z))
        }
    };
    let inputs = vec![
        spec(types.input1, n1, &q1, m1),
        spec(types.input2, n2, &q2, m2),
    ];
    let note = format!(
        "{class}: in1 {s1:?} q {:?} in2 {s2:?} q {:?} out {so:?} q {:?} magnitudes {m1:e} {m2:e}",
        q(&q1),
        q(&q2),
        q(&qo)
    );
    let sets = special_sets(types, class, n1, n2, no);
    Some((Draft::new(&b, inputs, no, note), sets))
}

/// Values of `dtype` where integer kernels differ if they differ anywhere.
fn int_specials(dtype: DType) -> Vec<i64> {
    let (lo, hi) = int_range(dtype);
    let mut v = vec![
        lo,
        hi,
        0,
        1,
        -1,
        2,
        -2,
        3,
        7,
        -7,
        lo + 1,
        hi - 1,
        hi / 2,
        lo / 2,
    ];
    if dtype == DType::Bool {
        v = vec![0, 1];
    }
    v.retain(|&x| (lo..=hi).contains(&x));
    v
}

/// The special input sets of a binary op's model (see [`draw_binary`]).
fn special_sets(types: Types, class: &str, n1: usize, n2: usize, no: usize) -> Vec<Vec<u8>> {
    if types.input1 == DType::Int8 && types.input2 == DType::Int8 {
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
        return (0..sets)
            .map(|t| {
                let mut set = pairs(n1, t, false);
                set.extend(pairs(n2, t, true));
                set
            })
            .collect();
    }
    let cycle = |dtype: DType, n: usize, offset: usize| -> Vec<u8> {
        if dtype == DType::Float32 {
            return suite::cycle_f32(n, &suite::F32_SPECIALS, offset);
        }
        let values = int_specials(dtype);
        let v: Vec<i64> = (0..n)
            .map(|i| values[(i + offset) % values.len()])
            .collect();
        suite::int_bytes(dtype, &v)
    };
    let count = if types.input1 == DType::Float32 {
        suite::F32_SPECIALS.len()
    } else {
        int_specials(types.input1).len()
    };
    let offsets = if class == "same" { count } else { 4 };
    (0..offsets)
        .map(|o| {
            let mut set = cycle(types.input1, n1, 0);
            set.extend(cycle(types.input2, n2, o));
            set
        })
        .collect()
}

/// Rewrites the values of one input of every set that TFLM cannot take.
pub type Fix = fn(input: usize, dtype: DType, bytes: &mut [u8]);

/// [`suite::fill_with_sets`] with `draw`, then `fix` applied to every input of every set.
pub fn variant(
    seed: u64,
    spec: Spec,
    target: Target,
    mut draw: impl FnMut(&mut Rng, usize) -> Option<(Draft, Vec<Vec<u8>>)>,
    fix: Option<Fix>,
) -> Variant {
    let mut layouts: Vec<Vec<(DType, usize)>> = Vec::new();
    let mut v = suite::fill_with_sets(seed, spec, target, |rng, index| {
        let (d, sets) = draw(rng, index)?;
        layouts.push(d.inputs.iter().map(|s| (s.dtype, s.len)).collect());
        Some((d, sets))
    });
    if let Some(fix) = fix {
        for (case, layout) in v.cases.iter_mut().zip(&layouts) {
            for set in &mut case.inputs {
                let mut at = 0;
                for (i, &(dtype, len)) in layout.iter().enumerate() {
                    let n = len * element_bytes(dtype);
                    if let Some(bytes) = set.get_mut(at..at + n) {
                        fix(i, dtype, bytes);
                    }
                    at += n;
                }
            }
        }
    }
    v
}

/// A variant of a binary op: `models` models at least (every shape class twice), each drawn
/// by [`draw_binary`].
#[allow(clippy::too_many_arguments)]
pub fn binary_variant(
    seed: u64,
    target: Target,
    (op, builtin): (&'static str, &'static str),
    types: Types,
    (options_name, options): (&str, OpOptions),
    quants: Quants<'_>,
    fix: Option<Fix>,
) -> Variant {
    let target = Target {
        values: target.values,
        models: target.models.max(8),
    };
    let spec = Spec {
        op,
        builtin,
        types: types.label.to_owned(),
        options: options_name.to_owned(),
        shape: "classes",
    };
    variant(
        seed,
        spec,
        target,
        |rng, index| draw_binary(rng, index, builtin, types, &options, quants),
        fix,
    )
}

/// A zero point of int16: mostly 0 (symmetric), now and then anywhere in the type.
pub fn zero_point_s16(rng: &mut Rng) -> i64 {
    if rng.chance(0.7) {
        0
    } else {
        suite::zero_point(rng, DType::Int16)
    }
}

/// Quantisations for ADD or SUB of `dtype` (int8: `left_shift` 20, int16: 15): scales over the
/// suite's range, the output's above the bound `QuantizeMultiplierSmallerThanOneExp` needs
/// (`2 max(s1, s2) / (2^left_shift so) < 1`), now and then right at it; model 6 with equal
/// input scales.
pub fn add_quants(rng: &mut Rng, index: usize, dtype: DType) -> [Option<Quant>; 3] {
    let left_shift = if dtype == DType::Int16 { 15 } else { 20 };
    let s1 = suite::scale(rng);
    let s2 = if index == 6 { s1 } else { suite::scale(rng) };
    let smax = f64::from(s1.max(s2));
    let lo = (2.0 * smax / f64::from(1_u32 << left_shift) * 1.001).max(1e-6);
    let so = match rng.below(10) {
        0 => lo,
        1..=3 => f64::from(rng.log_uniform(lo, 1e2)),
        _ => (smax * f64::from(rng.log_uniform(0.25, 8.0))).clamp(lo, 1e2),
    } as f32;
    let z = |rng: &mut Rng| {
        if dtype == DType::Int16 {
            zero_point_s16(rng)
        } else {
            suite::zero_point(rng, dtype)
        }
    };
    [
        Some(Quant::tensor(s1, z(rng))),
        Some(Quant::tensor(s2, z(rng))),
        Some(Quant::tensor(so, z(rng))),
    ]
}

/// No quantisation (float32, int32, bool).
pub fn no_quants(_: &mut Rng, _: usize) -> [Option<Quant>; 3] {
    [None, None, None]
}

/// The options table of `builtin` with `activation`.
pub fn options(builtin: &str, activation: Activation) -> OpOptions {
    match builtin {
        "ADD" => OpOptions::Add {
            activation,
            pot_scale_int16: false,
        },
        "SUB" => OpOptions::Sub {
            activation,
            pot_scale_int16: false,
        },
        "MUL" => OpOptions::Mul { activation },
        "DIV" => OpOptions::Div { activation },
        _ => OpOptions::None,
    }
}

/// The variants of SUB.
pub fn variants(seed: u64, target: Target) -> Vec<Variant> {
    let mut out = Vec::new();
    for (label, dtype) in [
        ("int8", DType::Int8),
        ("int16", DType::Int16),
        ("int32", DType::Int32),
        ("float32", DType::Float32),
    ] {
        for (aname, activation) in ACTIVATIONS {
            let quants = move |rng: &mut Rng, index: usize| {
                if matches!(dtype, DType::Int8 | DType::Int16) {
                    add_quants(rng, index, dtype)
                } else {
                    no_quants(rng, index)
                }
            };
            out.push(binary_variant(
                seed,
                target,
                ("sub", "SUB"),
                Types::same(label, dtype),
                (aname, options("SUB", activation)),
                &quants,
                None,
            ));
        }
    }
    out
}
