//! What every op's variants are made of: a seeded generator, quantisation draws, input sets at
//! random and at the edges, and the loop that fills a variant up to its output values.

use stowplan_planner::tflite::DType;
use stowplan_planner::tflite::builder::ModelBuilder;

/// splitmix64: small, fast and the same on every machine and Rust version.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    /// A generator for one variant: the suite's seed mixed with the variant's key, so that a
    /// variant's models are the same whatever else is drawn (the CI slice is a subset of the
    /// full sweep, model for model).
    pub fn for_key(seed: u64, key: &str) -> Self {
        // FNV-1a over the key, then mixed with the seed.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in key.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        let mut r = Self::new(seed ^ h.rotate_left(17));
        r.next_u64();
        r
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 for `n == 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi as i128 - lo as i128 + 1) as u128;
        if span > u128::from(u64::MAX) {
            return self.next_u64() as i64;
        }
        (lo as i128 + i128::from(self.below(span as u64))) as i64
    }

    /// Uniform in `lo..=hi`, as `usize`.
    pub fn size(&mut self, lo: usize, hi: usize) -> usize {
        self.range(lo as i64, hi as i64) as usize
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Log-uniform in `[lo, hi)`, as `f32`.
    pub fn log_uniform(&mut self, lo: f64, hi: f64) -> f32 {
        self.uniform(lo.ln(), hi.ln()).exp() as f32
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }

    /// An approximately normal value (sum of uniforms), mean 0, deviation `sd`.
    pub fn normal(&mut self, sd: f64) -> f64 {
        let s: f64 = (0..4).map(|_| self.unit()).sum::<f64>() - 2.0;
        s * sd * 3f64.sqrt()
    }
}

/// The range of an integer tensor type.
pub fn int_range(dtype: DType) -> (i64, i64) {
    match dtype {
        DType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        DType::Uint8 => (0, u8::MAX.into()),
        DType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        DType::Uint16 => (0, u16::MAX.into()),
        DType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        DType::Uint32 => (0, u32::MAX.into()),
        DType::Int64 => (i64::MIN, i64::MAX),
        DType::Bool => (0, 1),
        _ => (0, 0),
    }
}

/// Bytes per element of the types the suite writes.
pub fn element_bytes(dtype: DType) -> usize {
    match dtype {
        DType::Int8 | DType::Uint8 | DType::Bool => 1,
        DType::Int16 | DType::Uint16 | DType::Float16 => 2,
        DType::Int64 | DType::Float64 => 8,
        _ => 4,
    }
}

/// Little-endian bytes of integer `values` as `dtype`.
pub fn int_bytes(dtype: DType, values: &[i64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * element_bytes(dtype));
    for &v in values {
        match element_bytes(dtype) {
            1 => out.push(v as u8),
            2 => out.extend_from_slice(&(v as i16).to_le_bytes()),
            8 => out.extend_from_slice(&v.to_le_bytes()),
            _ => out.extend_from_slice(&(v as i32).to_le_bytes()),
        }
    }
    out
}

/// Little-endian bytes of `values`.
pub fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// An affine quantisation: scales, zero points, quantized dimension.
#[derive(Clone, Debug, PartialEq)]
pub struct Quant {
    /// One scale, or one per channel.
    pub scale: Vec<f32>,
    /// As many zero points as scales.
    pub zero_point: Vec<i64>,
    /// The channel dimension (per-channel quantisation).
    pub dim: i32,
}

impl Quant {
    /// Per-tensor.
    pub fn tensor(scale: f32, zero_point: i64) -> Self {
        Self {
            scale: vec![scale],
            zero_point: vec![zero_point],
            dim: 0,
        }
    }

    /// Per-channel along `dim`, zero points 0.
    pub fn channels(scales: Vec<f32>, dim: i32) -> Self {
        let n = scales.len();
        Self {
            scale: scales,
            zero_point: vec![0; n],
            dim,
        }
    }

    /// The builder's form.
    pub fn spec(&self) -> (&[f32], &[i64], i32) {
        (&self.scale, &self.zero_point, self.dim)
    }

    /// The first scale.
    pub fn s(&self) -> f32 {
        self.scale[0]
    }

    /// The first zero point.
    pub fn z(&self) -> i64 {
        self.zero_point[0]
    }
}

/// A zero point over the type's whole range: both extremes, 0 and random values.
pub fn zero_point(rng: &mut Rng, dtype: DType) -> i64 {
    let (lo, hi) = int_range(dtype);
    match rng.below(6) {
        0 => lo,
        1 => hi,
        2 => 0,
        _ => rng.range(lo, hi),
    }
}

/// A scale log-uniform in `[1e-6, 1e2]`, the suite's range, with both ends drawn now and then.
pub fn scale(rng: &mut Rng) -> f32 {
    match rng.below(12) {
        0 => 1e-6,
        1 => 100.0,
        _ => rng.log_uniform(1e-6, 1e2),
    }
}

/// One model input, for making input sets.
#[derive(Clone, Debug)]
pub struct InputSpec {
    /// Its type.
    pub dtype: DType,
    /// Its element count.
    pub len: usize,
    /// Its zero point (0 if unquantised).
    pub zero_point: i64,
    /// For floats: a typical magnitude.
    pub magnitude: f64,
}

impl InputSpec {
    /// An integer input with its zero point.
    pub fn int(dtype: DType, len: usize, zero_point: i64) -> Self {
        Self {
            dtype,
            len,
            zero_point,
            magnitude: 1.0,
        }
    }

    /// A float input of typical magnitude `magnitude`.
    pub fn float(len: usize, magnitude: f64) -> Self {
        Self {
            dtype: DType::Float32,
            len,
            zero_point: 0,
            magnitude,
        }
    }
}

/// The kinds of input set, in the order a model gets them: the edges first, then random sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// Every element the type's minimum (floats: minus a large value).
    Min,
    /// Every element the type's maximum (floats: a large value).
    Max,
    /// Every element the zero point (floats: 0).
    ZeroPoint,
    /// Minimum and maximum alternating.
    Alternate,
    /// At random over the type's whole range (floats: normal with a random magnitude).
    Random,
}

/// The edge sets every model runs on before its random ones.
pub const EDGES: [Fill; 4] = [Fill::Min, Fill::Max, Fill::ZeroPoint, Fill::Alternate];

/// The bytes of one input filled as `fill`.
pub fn input_bytes(rng: &mut Rng, spec: &InputSpec, fill: Fill) -> Vec<u8> {
    if spec.dtype == DType::Float32 {
        let big = spec.magnitude * 1e3;
        let values: Vec<f32> = match fill {
            Fill::Min => vec![-big as f32; spec.len],
            Fill::Max => vec![big as f32; spec.len],
            Fill::ZeroPoint => vec![0.0; spec.len],
            Fill::Alternate => (0..spec.len)
                .map(|i| if i % 2 == 0 { -big } else { big } as f32)
                .collect(),
            Fill::Random => {
                let m = spec.magnitude * f64::from(rng.log_uniform(1e-2, 1e2));
                (0..spec.len).map(|_| rng.normal(m) as f32).collect()
            }
        };
        return f32_bytes(&values);
    }
    let (lo, hi) = int_range(spec.dtype);
    let values: Vec<i64> = match fill {
        Fill::Min => vec![lo; spec.len],
        Fill::Max => vec![hi; spec.len],
        Fill::ZeroPoint => vec![spec.zero_point.clamp(lo, hi); spec.len],
        Fill::Alternate => (0..spec.len)
            .map(|i| if i % 2 == 0 { lo } else { hi })
            .collect(),
        Fill::Random => (0..spec.len).map(|_| rng.range(lo, hi)).collect(),
    };
    int_bytes(spec.dtype, &values)
}

/// One model of a variant and the input sets it runs on.
#[derive(Clone, Debug)]
pub struct Case {
    /// The `.tflite` file.
    pub model: Vec<u8>,
    /// Input sets: each the bytes of every model input, in order.
    pub inputs: Vec<Vec<u8>>,
    /// Output values (elements) one run writes.
    pub output_values: usize,
    /// What was drawn (shapes, options, quantisation), for a reader of a failure.
    pub note: String,
    /// Whether it is planned with outputs over inputs where the planner puts them (`Some(false)`:
    /// never, its ops take the kernels chosen for two buffers); `None`: as the sweep decides.
    pub overlap: Option<bool>,
}

/// A model drawn for a variant, before its input sets.
#[derive(Clone, Debug)]
pub struct Draft {
    /// The `.tflite` file.
    pub model: Vec<u8>,
    /// Its inputs.
    pub inputs: Vec<InputSpec>,
    /// Output values one run writes.
    pub output_values: usize,
    /// What was drawn.
    pub note: String,
    /// Whether it is planned with outputs over inputs ([`Draft::overlap`]; `None`: as the
    /// sweep decides).
    pub overlap: Option<bool>,
}

impl Draft {
    /// A draft from a finished builder.
    pub fn new(
        b: &ModelBuilder,
        inputs: Vec<InputSpec>,
        output_values: usize,
        note: String,
    ) -> Self {
        Self {
            model: b.finish(),
            inputs,
            output_values,
            note,
            overlap: None,
        }
    }

    /// The draft planned with outputs over inputs where the planner puts them (`true`), or
    /// never (`false`: its ops take the kernels chosen for two buffers), whatever the sweep's
    /// rule.
    #[must_use]
    pub fn overlap(self, overlap: bool) -> Self {
        Self {
            overlap: Some(overlap),
            ..self
        }
    }
}

/// A variant: an op, its input and output types, its options and a shape class, with the
/// models drawn for it.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The op's module name (`conv`), as in `planner/src/ops/` and `runtime/src/kernels/`.
    pub op: &'static str,
    /// The builtin (`CONV_2D`).
    pub builtin: &'static str,
    /// Input and output types (`int8`, `float32`, `float32->int8`).
    pub types: String,
    /// The options that define it (`SAME RELU6`).
    pub options: String,
    /// The shape class (`ones`, `odd`, `wide`, ...).
    pub shape: &'static str,
    /// Its models.
    pub cases: Vec<Case>,
}

impl Variant {
    /// `op/types/options/shape`: unique in the suite, and the seed of its models.
    pub fn key(&self) -> String {
        key(self.op, &self.types, &self.options, self.shape)
    }

    /// The output values all its runs write.
    pub fn values(&self) -> usize {
        self.cases
            .iter()
            .map(|c| c.output_values * c.inputs.len())
            .sum()
    }
}

/// A variant's key.
pub fn key(op: &str, types: &str, options: &str, shape: &str) -> String {
    format!("{op}/{types}/{options}/{shape}")
}

/// Which variants [`fill`] draws models for: all, none (a dry run that lists the variants), or
/// those of the given keys (a slice).
#[derive(Clone, Debug, Default)]
pub enum Draw {
    /// Every variant.
    #[default]
    All,
    /// None: variants come back without models.
    Dry,
    /// Only these keys.
    Only(std::collections::BTreeSet<String>),
}

static DRAW: std::sync::Mutex<Draw> = std::sync::Mutex::new(Draw::All);

/// Sets which variants are drawn from now on.
pub fn set_draw(d: Draw) {
    if let Ok(mut g) = DRAW.lock() {
        *g = d;
    }
}

fn wanted(spec: &Spec) -> bool {
    match DRAW.lock().as_deref() {
        Ok(Draw::All) | Err(_) => true,
        Ok(Draw::Dry) => false,
        Ok(Draw::Only(keys)) => {
            keys.contains(&key(spec.op, &spec.types, &spec.options, spec.shape))
        }
    }
}

fn empty(spec: Spec) -> Variant {
    Variant {
        op: spec.op,
        builtin: spec.builtin,
        types: spec.types,
        options: spec.options,
        shape: spec.shape,
        cases: Vec::new(),
    }
}

/// What a variant needs besides its models.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The op's module name.
    pub op: &'static str,
    /// The builtin.
    pub builtin: &'static str,
    /// Input and output types.
    pub types: String,
    /// Options.
    pub options: String,
    /// Shape class.
    pub shape: &'static str,
}

/// How many output values a variant compares at least, and how many models it has at least.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// Output values over all its runs.
    pub values: usize,
    /// Models.
    pub models: usize,
}

/// The suite's bar: 10,000 output values per variant, from at least 3 models.
pub const TARGET: Target = Target {
    values: 10_000,
    models: 3,
};

/// Draws models for `spec` with `draw(rng, model_index)` until the variant has `target`
/// output values from at least `target.models` models; each model runs on the edge sets, then
/// on random sets (at most a third of the target per model, so that a variant has several
/// models). A draw may return `None` (a shape that does not work out): it is drawn again, up to
/// a limit.
pub fn fill(
    seed: u64,
    spec: Spec,
    target: Target,
    mut draw: impl FnMut(&mut Rng, usize) -> Option<Draft>,
) -> Variant {
    if !wanted(&spec) {
        return empty(spec);
    }
    let mut rng = Rng::for_key(seed, &key(spec.op, &spec.types, &spec.options, spec.shape));
    let mut cases = Vec::new();
    let mut values = 0usize;
    let mut attempts = 0usize;
    while (values < target.values || cases.len() < target.models) && attempts < 1000 {
        attempts += 1;
        let Some(d) = draw(&mut rng, cases.len()) else {
            continue;
        };
        let per_run = d.output_values.max(1);
        let share = (target.values / target.models.max(1)).max(1);
        let random_runs = share
            .div_ceil(per_run)
            .saturating_sub(EDGES.len())
            .clamp(1, 2000);
        let mut inputs = Vec::new();
        for fill in EDGES
            .iter()
            .copied()
            .chain(std::iter::repeat_n(Fill::Random, random_runs))
        {
            let set: Vec<u8> = d
                .inputs
                .iter()
                .flat_map(|spec| input_bytes(&mut rng, spec, fill))
                .collect();
            inputs.push(set);
        }
        // Mixed sets: each input drawn with its own fill (min of one, max of another, ...).
        if d.inputs.len() > 1 {
            for _ in 0..4 {
                let set: Vec<u8> = d
                    .inputs
                    .iter()
                    .flat_map(|spec| {
                        let fill = rng.pick(&[Fill::Min, Fill::Max, Fill::ZeroPoint, Fill::Random]);
                        input_bytes(&mut rng, spec, fill)
                    })
                    .collect();
                inputs.push(set);
            }
        }
        values += d.output_values * inputs.len();
        cases.push(Case {
            model: d.model,
            inputs,
            output_values: d.output_values,
            note: d.note,
            overlap: d.overlap,
        });
    }
    Variant {
        op: spec.op,
        builtin: spec.builtin,
        types: spec.types,
        options: spec.options,
        shape: spec.shape,
        cases,
    }
}

/// Int8 weights for model `index` of a variant: model 1 all at the extremes (127 and -127 at
/// random, so that accumulators reach their largest magnitudes), the others random over
/// `-127..=127` with now and then a -128.
pub fn weights_for(rng: &mut Rng, n: usize, index: usize) -> Vec<i64> {
    match index {
        1 => (0..n)
            .map(|_| if rng.chance(0.5) { 127 } else { -127 })
            .collect(),
        2 => vec![127; n],
        _ => (0..n)
            .map(|_| {
                if rng.chance(0.01) {
                    -128
                } else {
                    rng.range(-127, 127)
                }
            })
            .collect(),
    }
}

/// Float weights, normal with deviation `sd`.
pub fn weights_f32(rng: &mut Rng, n: usize, sd: f64) -> Vec<f32> {
    (0..n).map(|_| rng.normal(sd) as f32).collect()
}

/// The fused activation names the suite draws, with the format's codes.
pub const ACTIVATIONS: [(&str, stowplan_planner::tflite::Activation); 4] = {
    use stowplan_planner::tflite::Activation;
    [
        ("NONE", Activation::None),
        ("RELU", Activation::Relu),
        ("RELU6", Activation::Relu6),
        ("RELU_N1_TO_1", Activation::ReluN1To1),
    ]
};

/// An output scale for a sum of `terms` products of magnitude `product_scale` each, so that
/// outputs spread over tens of steps: most models; one in five takes a scale at random over the
/// whole range instead (multipliers far above and below 1, outputs that saturate).
pub fn output_scale_for(rng: &mut Rng, product_scale: f64, terms: usize) -> f32 {
    if rng.chance(0.2) {
        return scale(rng);
    }
    let typical = product_scale * 127.0 * 127.0 * (terms.max(1) as f64).sqrt() / 40.0;
    (typical * f64::from(rng.log_uniform(0.1, 10.0))) as f32
}

/// `usize` dimensions as the format's `i32`s.
pub fn dims(shape: &[usize]) -> Vec<i32> {
    shape
        .iter()
        .map(|&d| i32::try_from(d).unwrap_or(i32::MAX))
        .collect()
}

/// The element count of `shape` (1 for a scalar).
pub fn elements(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// An activation tensor of `dtype`: quantised if `q` is given, plain otherwise.
pub fn activation(
    b: &mut ModelBuilder,
    sg: usize,
    name: &str,
    dtype: DType,
    shape: &[usize],
    q: Option<&Quant>,
) -> i32 {
    match q {
        Some(q) => b.quantized(sg, name, dtype, &dims(shape), q.spec()),
        None => b.tensor(sg, name, dtype, &dims(shape)),
    }
}

/// A shape of `rank` dimensions with at most about `limit` elements: sizes of 1, odd sizes and
/// small even ones; `wide` makes the last dimension a large channel count (16 to 300). Too
/// many elements halve the largest other dimension until the shape fits.
pub fn shape_within(rng: &mut Rng, rank: usize, limit: usize, wide: bool) -> Vec<usize> {
    let mut shape: Vec<usize> = (0..rank)
        .map(|_| match rng.below(10) {
            0..=2 => 1,
            3..=6 => 2 * rng.size(1, 4) + 1,
            _ => rng.size(2, 8),
        })
        .collect();
    if wide && let Some(last) = shape.last_mut() {
        *last = rng.size(16, 300);
    }
    while elements(&shape) > limit.max(1) {
        let skip = usize::from(wide);
        let Some((i, _)) = shape
            .iter()
            .enumerate()
            .take(rank.saturating_sub(skip).max(1))
            .max_by_key(|&(_, &d)| d)
        else {
            break;
        };
        if shape[i] == 1 {
            // Only the channels are left to shrink.
            if let Some(last) = shape.last_mut() {
                *last = (*last / 2).max(1);
            }
        } else {
            shape[i] = (shape[i] / 2).max(1);
        }
    }
    shape
}

/// A typical magnitude for float inputs: mostly 1, sometimes tiny, large, or so large that
/// the edge sets (1000 times the magnitude) overflow to infinity.
pub fn float_magnitude(rng: &mut Rng, index: usize) -> f64 {
    match index {
        0 => 1.0,
        1 => 1e36,
        2 => 1e-3,
        _ => rng.pick(&[1.0, 1.0, 10.0, 1e-3, 1e3, 1e20, 1e36]),
    }
}

/// [`fill`], with input sets of the draw's own appended to each model's edge and random ones
/// (special values: NaN, infinities, signed zeros, ties, every int8 value): `draw` returns
/// them with its draft, each set the bytes of every model input, in order.
pub fn fill_with_sets(
    seed: u64,
    spec: Spec,
    target: Target,
    mut draw: impl FnMut(&mut Rng, usize) -> Option<(Draft, Vec<Vec<u8>>)>,
) -> Variant {
    if !wanted(&spec) {
        return empty(spec);
    }
    let mut extra = Vec::new();
    let mut v = fill(seed, spec, target, |rng, index| {
        let (draft, sets) = draw(rng, index)?;
        extra.push(sets);
        Some(draft)
    });
    for (case, sets) in v.cases.iter_mut().zip(extra) {
        case.inputs.extend(sets);
    }
    v
}

/// Float values where kernels differ if they differ anywhere: NaN, infinities, signed zeros,
/// the largest and smallest (subnormal) magnitudes, ties of rounding, and values next to the
/// clamps of the activations.
pub const F32_SPECIALS: [f32; 24] = [
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    0.0,
    -0.0,
    f32::MAX,
    f32::MIN,
    1e-45,
    -1e-45,
    f32::MIN_POSITIVE,
    0.5,
    -0.5,
    1.5,
    -2.5,
    0.499_999_97,
    -0.499_999_97,
    6.0,
    6.000_000_5,
    5.999_999_5,
    1.0,
    -1.0,
    1.000_000_1,
    -1.000_000_1,
    8_388_607.5,
];

/// `len` floats cycling through `values` from `offset`, as bytes.
pub fn cycle_f32(len: usize, values: &[f32], offset: usize) -> Vec<u8> {
    let v: Vec<f32> = (0..len)
        .map(|i| values[(i + offset) % values.len().max(1)])
        .collect();
    f32_bytes(&v)
}

/// `len` int8 values cycling through -128..=127 from `offset`, each `stride` steps apart (for
/// stride 1, every value in turn), as bytes.
pub fn cycle_i8(len: usize, offset: usize, stride: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (((i * stride + offset) % 256) as i64 - 128) as u8)
        .collect()
}

/// Bounds on the values of one model input, for [`fill_bounded`]: none (the type's whole
/// range), one inclusive range for every element, or one per element (cycled).
pub type Bounds = Vec<(i64, i64)>;

/// The bytes of one input filled as `fill` with its integer values kept within `bounds`: the
/// edges are the bounds' ends (per element), the zero point is clamped into them, random values
/// are uniform between them. Floats and inputs without bounds are as [`input_bytes`].
pub fn bounded_bytes(
    rng: &mut Rng,
    spec: &InputSpec,
    bounds: &[(i64, i64)],
    fill: Fill,
) -> Vec<u8> {
    if bounds.is_empty() || spec.dtype == DType::Float32 {
        return input_bytes(rng, spec, fill);
    }
    let values: Vec<i64> = (0..spec.len)
        .map(|i| {
            let (lo, hi) = bounds[i % bounds.len()];
            match fill {
                Fill::Min => lo,
                Fill::Max => hi,
                Fill::ZeroPoint => spec.zero_point.clamp(lo, hi),
                Fill::Alternate => {
                    if i % 2 == 0 {
                        lo
                    } else {
                        hi
                    }
                }
                Fill::Random => rng.range(lo, hi),
            }
        })
        .collect();
    int_bytes(spec.dtype, &values)
}

/// [`fill`] for models whose integer inputs must hold values the op accepts (GATHER's
/// coordinates, EMBEDDING_LOOKUP's ids, shapes that must broadcast): `draw` returns the draft
/// with the [`Bounds`] of each of its inputs, in order, and every input set (the edge sets, the
/// random ones and the mixed ones, as [`fill`] makes them) keeps each input within its bounds.
pub fn fill_bounded(
    seed: u64,
    spec: Spec,
    target: Target,
    mut draw: impl FnMut(&mut Rng, usize) -> Option<(Draft, Vec<Bounds>)>,
) -> Variant {
    let mut rng = Rng::for_key(seed, &key(spec.op, &spec.types, &spec.options, spec.shape));
    let mut cases = Vec::new();
    let mut values = 0usize;
    let mut attempts = 0usize;
    while (values < target.values || cases.len() < target.models) && attempts < 1000 {
        attempts += 1;
        let Some((d, bounds)) = draw(&mut rng, cases.len()) else {
            continue;
        };
        let bound = |i: usize| bounds.get(i).map_or(&[][..], Vec::as_slice);
        let per_run = d.output_values.max(1);
        let share = (target.values / target.models.max(1)).max(1);
        let random_runs = share
            .div_ceil(per_run)
            .saturating_sub(EDGES.len())
            .clamp(1, 2000);
        let mut inputs = Vec::new();
        for fill in EDGES
            .iter()
            .copied()
            .chain(std::iter::repeat_n(Fill::Random, random_runs))
        {
            let set: Vec<u8> = d
                .inputs
                .iter()
                .enumerate()
                .flat_map(|(i, spec)| bounded_bytes(&mut rng, spec, bound(i), fill))
                .collect();
            inputs.push(set);
        }
        if d.inputs.len() > 1 {
            for _ in 0..4 {
                let set: Vec<u8> = d
                    .inputs
                    .iter()
                    .enumerate()
                    .flat_map(|(i, spec)| {
                        let fill = rng.pick(&[Fill::Min, Fill::Max, Fill::ZeroPoint, Fill::Random]);
                        bounded_bytes(&mut rng, spec, bound(i), fill)
                    })
                    .collect();
                inputs.push(set);
            }
        }
        values += d.output_values * inputs.len();
        cases.push(Case {
            model: d.model,
            inputs,
            output_values: d.output_values,
            note: d.note,
            overlap: d.overlap,
        });
    }
    Variant {
        op: spec.op,
        builtin: spec.builtin,
        types: spec.types,
        options: spec.options,
        shape: spec.shape,
        cases,
    }
}

/// A data tensor of `dtype` for the data-movement ops: int8 and int16 quantised (`q`, drawn by
/// the caller), the others plain.
pub fn data_tensor(
    b: &mut ModelBuilder,
    sg: usize,
    name: &str,
    dtype: DType,
    shape: &[usize],
    q: Option<&Quant>,
) -> i32 {
    match dtype {
        DType::Int8 | DType::Int16 => activation(b, sg, name, dtype, shape, q),
        _ => activation(b, sg, name, dtype, shape, None),
    }
}

/// A per-tensor quantisation for a data tensor of `dtype` (int8: any zero point; int16: zero
/// point 0), `None` for the other types.
pub fn data_quant(rng: &mut Rng, dtype: DType) -> Option<Quant> {
    match dtype {
        DType::Int8 => Some(Quant::tensor(scale(rng), zero_point(rng, DType::Int8))),
        DType::Int16 => Some(Quant::tensor(scale(rng), 0)),
        _ => None,
    }
}

/// The input spec of a data tensor of `dtype` with `n` elements.
pub fn data_input(dtype: DType, n: usize, q: Option<&Quant>) -> InputSpec {
    if dtype == DType::Float32 {
        InputSpec::float(n, 1.0)
    } else {
        InputSpec::int(dtype, n, q.map_or(0, Quant::z))
    }
}
