//! The body of the `in_place` target: one op of a kind whose kernels run on one buffer, its
//! least displacement as the planner declares it, and the runtime's one-buffer entry at it.
//!
//! The bytes choose a kind of the planner's registry ([`ops::overwrites`]), one of its runtime
//! entries (`stowplan::kernels::overlap::<entry>`), a small geometry and parameters, and a seed
//! for the data. The op goes into a one-op model, whose declared pairing (the kind's
//! [`ops::Pairing`]) gives the least displacement `D` in bytes. Then:
//!
//! * the two-buffer kernel gives the reference output;
//! * the entry, the input `D` bytes above the output in one buffer (and, for some inputs, further
//!   up: `D` plus a drawn amount, and the pairing's preferred displacement), runs and writes the
//!   reference byte for byte, and nothing outside the two tensors;
//! * the plan's check ([`stowplan_planner::check_overlap`], which derives `D` again with
//!   arithmetic of its own) accepts `D` and every displacement above, and refuses `D − 1` byte;
//! * one buffer element below `D` (a displacement the planner never plans), where the two
//!   tensors still share an element, the entry's own check (`kernels::overlap::*_fits`, which
//!   generated code asserts) refuses, and the entry refuses to run on each input of a
//!   constructed set (the drawn data, a ramp of distinct values, and a second draw). An entry
//!   that ran there would be a finding either way: with the reference bytes on every input, `D`
//!   is not the least displacement; with other bytes, the entry ran a layout it computes wrongly.
//!
//! Where `D` is exact: the entries refuse every layout closer than `D` in which the tensors
//! share an element, so the property checked one below is the refusal. That `D` is also where
//! the data stops surviving is not checked here, and it does not hold for every kind, by
//! design: QUANTIZE from int16 to int8 (an output element half as wide as its input's) would
//! give the same bytes one byte below `D = 0`, and so would a CONCATENATION with one outer
//! position (`D = 0`, its first input moved with `copy_within`) one element below. There the
//! entries refuse all the same (an output never starts above its input).
//!
//! Geometries are small (a few pixels, channels and rows) so that a campaign runs thousands of
//! inputs a second.

use std::fmt::Debug;
use std::sync::OnceLock;

use stowplan::kernels::{self as k, overlap as ov};
use stowplan::kernels::{BinaryShape, ConvGeometry, PoolGeometry, Requant};
use stowplan_planner::check_overlap;
use stowplan_planner::graph::{TensorInfo, tensor_infos};
use stowplan_planner::ops::{self, Pairing, WriteOrder};
use stowplan_planner::tflite::builder::ModelBuilder;
use stowplan_planner::tflite::{
    Activation, BuiltinOp, DType, Model, OpOptions, Opcode, Padding, TensorId, read_model,
};

use super::Input;

/// One runtime entry of the planner's registry of kinds that run on one buffer.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The kind's name (the builtin op's, or the custom code).
    pub kind: String,
    /// Its op code.
    pub opcode: Opcode,
    /// Its write order.
    pub order: WriteOrder,
    /// The entry, `stowplan::kernels::overlap::<name>`.
    pub name: &'static str,
}

/// Every kind of the registry with its entries, in table order.
#[must_use]
pub fn kinds() -> &'static [(String, Vec<Entry>)] {
    static KINDS: OnceLock<Vec<(String, Vec<Entry>)>> = OnceLock::new();
    KINDS.get_or_init(|| {
        ops::overwrites()
            .into_iter()
            .map(|(name, _, o)| {
                let opcode = BuiltinOp::from_name(&name)
                    .map_or_else(|| Opcode::Custom(name.clone()), Opcode::Builtin);
                let entries = o
                    .entries
                    .iter()
                    .map(|&e| Entry {
                        kind: name.clone(),
                        opcode: opcode.clone(),
                        order: o.order,
                        name: e,
                    })
                    .collect();
                (name, entries)
            })
            .collect()
    })
}

/// What one input exercised: the kind and entry, and what happened one element below `D`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The kind's name.
    pub kind: String,
    /// The entry's name.
    pub entry: &'static str,
    /// One element below `D`.
    pub below: Below,
}

/// What happened one buffer element below the least displacement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Below {
    /// The tensors share an element there, and the entry refused to run on every input of the
    /// constructed set.
    Refused,
    /// The tensors share no element there (a displacement that is no overlap): the entry ran
    /// and gave the reference.
    Disjoint,
    /// The op has no pairing (a window whose output row reads only padding): the planner
    /// declares none, and the runtime's driver has no walk either.
    NoPairing,
}

/// The body of the `in_place` target (see the [module docs](self)).
pub fn in_place(data: &[u8]) {
    in_place_outcome(data);
}

/// `in_place`, saying what the input exercised.
///
/// # Panics
///
/// On a finding (see the module docs).
pub fn in_place_outcome(data: &[u8]) -> Outcome {
    let mut input = Input(data);
    let all = kinds();
    let (_, entries) = &all[usize::from(input.byte()) % all.len()];
    let entry = &entries[usize::from(input.byte()) % entries.len()];
    let seed = (u64::from(input.u16()) << 16) | u64::from(input.u16());
    let mut c = Cx {
        input,
        rng: Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1),
        entry,
    };
    let below = case(&mut c);
    Outcome {
        kind: entry.kind.clone(),
        entry: entry.name,
        below,
    }
}

/// What a case draws from.
struct Cx<'a, 'e> {
    input: Input<'a>,
    rng: Rng,
    entry: &'e Entry,
}

impl Cx<'_, '_> {
    /// A value in `lo..=hi` from the fuzz bytes.
    fn pick(&mut self, lo: usize, hi: usize) -> usize {
        lo + usize::from(self.input.byte()) % (hi - lo + 1)
    }

    fn flag(&mut self) -> bool {
        self.input.byte() % 2 == 1
    }

    /// The builtin op of the entry's kind.
    fn op(&self) -> BuiltinOp {
        match &self.entry.opcode {
            Opcode::Builtin(b) => *b,
            Opcode::Custom(c) => panic!("no in-place case for the custom kind {c}"),
        }
    }

    /// `n` values from the seeded generator.
    fn values<T: Elem>(&mut self, n: usize) -> Vec<T> {
        (0..n).map(|_| T::draw(self.rng.next())).collect()
    }
}

/// xorshift64: the data's source, seeded from the fuzz bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A buffer element type of the entries.
trait Elem: Copy + Default + Debug + 'static {
    /// Its size in bytes.
    const BYTES: usize;
    /// A value from random bits: any value for the integer types of at most 16 bits (the
    /// kernels take every value), small ones for int32 (sums and products stay in range) and
    /// exact, finite ones for float32 (sums do not depend on their order).
    fn draw(bits: u64) -> Self;
    /// Its bits, for a byte-for-byte comparison.
    fn bits(self) -> u64;
}

impl Elem for i8 {
    const BYTES: usize = 1;
    fn draw(bits: u64) -> Self {
        (bits >> 24) as Self
    }
    fn bits(self) -> u64 {
        u64::from(self as u8)
    }
}

impl Elem for u8 {
    const BYTES: usize = 1;
    fn draw(bits: u64) -> Self {
        (bits >> 24) as Self
    }
    fn bits(self) -> u64 {
        u64::from(self)
    }
}

impl Elem for i16 {
    const BYTES: usize = 2;
    fn draw(bits: u64) -> Self {
        (bits >> 24) as Self
    }
    fn bits(self) -> u64 {
        u64::from(self as u16)
    }
}

impl Elem for i32 {
    const BYTES: usize = 4;
    fn draw(bits: u64) -> Self {
        i32::from((bits >> 24) as i16) >> 4
    }
    fn bits(self) -> u64 {
        u64::from(self as u32)
    }
}

impl Elem for f32 {
    const BYTES: usize = 4;
    fn draw(bits: u64) -> Self {
        f32::from((bits >> 24) as i8) / 8.0
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}

/// Per-channel multipliers of the layers' form (a multiplier in `[2^30, 2^31)`, mostly a
/// right shift), for the kernels that take a `'static` slice.
static REQUANTS: [Requant; 40] = {
    let mut r = [Requant {
        multiplier: 0,
        shift: 0,
    }; 40];
    let mut i = 0;
    while i < 40 {
        r[i] = Requant {
            multiplier: (1 << 30) + (i as i32) * 26_000_017,
            shift: if i % 7 == 3 { 1 } else { -5 - (i as i32 % 6) },
        };
        i += 1;
    }
    r
};

/// An int8 ELU's table (any table: the kernel looks each input up).
static ELU_TABLE: [i8; 256] = {
    let mut t = [0_i8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = ((i * 97 + 13) % 256) as u8 as i8;
        i += 1;
    }
    t
};

/// `n` multipliers of [`REQUANTS`] from a drawn start.
fn requants(c: &mut Cx<'_, '_>, n: usize) -> &'static [Requant] {
    let start = c.pick(0, REQUANTS.len() - n);
    &REQUANTS[start..start + n]
}

/// One multiplier of the layers' form.
fn requant(c: &mut Cx<'_, '_>) -> Requant {
    Requant {
        multiplier: (1 << 30) + (c.rng.below(1 << 30) as i32),
        shift: c.rng.below(8) as i32 - 6,
    }
}

/// A value in `-r..=r` from the generator.
fn small(c: &mut Cx<'_, '_>, r: i32) -> i32 {
    c.rng.below(2 * r as u64 + 1) as i32 - r
}

/// The one-op model of a case.
struct OneOp {
    b: ModelBuilder,
    sg: usize,
    names: usize,
    inputs: Vec<i32>,
}

impl OneOp {
    fn new() -> Self {
        let mut b = ModelBuilder::new();
        let sg = b.subgraph("main");
        Self {
            b,
            sg,
            names: 0,
            inputs: Vec::new(),
        }
    }

    fn name(&mut self) -> String {
        self.names += 1;
        format!("t{}", self.names)
    }

    /// An activation; with `input`, a model input.
    fn tensor(&mut self, dtype: DType, shape: &[usize], input: bool) -> i32 {
        let name = self.name();
        let shape = dims(shape);
        let t = self.b.tensor(self.sg, &name, dtype, &shape);
        if input {
            self.inputs.push(t);
        }
        t
    }

    fn constant(&mut self, dtype: DType, shape: &[usize], data: &[u8]) -> i32 {
        let name = self.name();
        let shape = dims(shape);
        self.b.constant(self.sg, &name, dtype, &shape, data)
    }

    fn finish(mut self, op: BuiltinOp, inputs: &[i32], output: i32, options: OpOptions) -> Vec<u8> {
        self.b
            .op_with_options(self.sg, op, inputs, &[output], options);
        self.b.io(self.sg, &self.inputs, &[output]);
        self.b.finish()
    }
}

fn dims(shape: &[usize]) -> Vec<i32> {
    shape
        .iter()
        .map(|&d| i32::try_from(d).expect("a small dimension"))
        .collect()
}

/// The bytes of a slice of numbers, little-endian.
fn le<T: Elem>(v: &[T]) -> Vec<u8> {
    v.iter()
        .flat_map(|x| x.bits().to_le_bytes().into_iter().take(T::BYTES))
        .collect()
}

/// The planner's side of a case: the one-op model read back, its planned shapes, the tensors
/// of the pair and the kind's pairing.
struct Declared {
    file: Vec<u8>,
    model: Model,
    tensors: Vec<TensorInfo>,
    input: TensorId,
    output: TensorId,
    pairing: Option<Pairing>,
}

fn declare(entry: &Entry, file: Vec<u8>) -> Declared {
    let model = read_model(&file).expect("the one-op model reads");
    let tensors = tensor_infos(&model, &[], false, false).expect("the one-op model has shapes");
    let op = model.ops.first().expect("the one-op model has its op");
    assert_eq!(op.opcode, entry.opcode);
    let o = ops::overwrite_of(&op.opcode).expect("the kind is in the registry");
    assert!(o.entries.contains(&entry.name), "{}", entry.name);
    assert_eq!(o.order, entry.order);
    let tensor = |t| model.tensor(op.subgraph, t).expect("the op's tensor").id;
    let input = tensor(op.inputs[o.input].expect("the overwritten input"));
    let output = tensor(op.outputs[0]);
    let pairing = (o.pairing)(&model, &file, &tensors, op);
    Declared {
        input,
        output,
        pairing,
        file,
        tensors,
        model,
    }
}

impl Declared {
    fn proof(&self, displacement: i64) -> Result<(), String> {
        check_overlap(
            &self.model,
            &self.file,
            &self.tensors,
            self.input,
            self.output,
            displacement,
        )
    }
}

/// What a kernel entry returns: `Ok` when it ran, an error (nothing written) when it refused.
type Ran = Result<(), k::KernelError>;

/// The runtime's side of a case, in buffer elements of `T`: the two tensors' lengths, the
/// two-buffer kernel (input to output), the one-buffer entry (`buf`, input at, output at) and
/// its check of the offsets.
struct Runtime<'a, T> {
    in_len: usize,
    out_len: usize,
    reference: &'a dyn Fn(&[T]) -> Vec<T>,
    entry: &'a dyn Fn(&mut [T], usize, usize) -> Ran,
    fits: &'a dyn Fn(usize, usize) -> bool,
}

/// The checks of the [module docs](self) on one case.
fn check<T: Elem>(c: &mut Cx<'_, '_>, d: &Declared, r: &Runtime<'_, T>) -> Below {
    let name = c.entry.name;
    let Some(pairing) = d.pairing else {
        return Below::NoPairing;
    };
    let least = pairing.least;
    let width = i64::try_from(T::BYTES).expect("a small element");
    assert!(least >= 0, "{name}: a negative least displacement {least}");
    assert_eq!(
        least % width,
        0,
        "{name}: {least} bytes is not a whole number of elements"
    );
    // The plan's check: from `least` on, never one byte below.
    for disp in [least, least + 1 + c.rng.below(64) as i64] {
        if let Err(e) = d.proof(disp) {
            panic!("{name}: the plan's check refuses {disp} bytes (declared {least}): {e}");
        }
    }
    assert!(
        d.proof(least - 1).is_err(),
        "{name}: the plan's check accepts {} bytes, below the declared {least}",
        least - 1
    );
    let least = usize::try_from(least / width).expect("a small displacement");
    let x: Vec<T> = c.values(r.in_len);
    let want = (r.reference)(&x);
    assert_eq!(want.len(), r.out_len, "{name}: the reference's length");
    // The output's offset: at least 1, so that one below a full alias is a layout too.
    let at = c.pick(1, 3);
    let mut displacements = vec![least, least + c.pick(1, r.out_len + 2)];
    let preferred = usize::try_from(pairing.preferred / width).unwrap_or(0);
    if preferred > least {
        displacements.push(preferred);
    }
    for disp in displacements {
        let (ran, got) = run_at(r, &x, at + disp, at);
        assert!(
            ran,
            "{name} refuses its displacement {disp} (least {least})"
        );
        assert!(
            (r.fits)(at + disp, at),
            "{name}: its check refuses {disp} (least {least})"
        );
        if let Some(k) = first_difference(&got, &want) {
            panic!(
                "{name} at displacement {disp} (least {least}): output element {k} is {:?}, two buffers give {:?}",
                got[k], want[k]
            );
        }
    }
    // One element below.
    let input_at = at + least - 1;
    let shared = input_at < at + r.out_len && at < input_at + r.in_len;
    if !shared {
        let (ran, got) = run_at(r, &x, input_at, at);
        assert!(
            ran && (r.fits)(input_at, at),
            "{name}: disjoint tensors refused"
        );
        assert_eq!(
            first_difference(&got, &want),
            None,
            "{name}: disjoint tensors"
        );
        return Below::Disjoint;
    }
    assert!(
        !(r.fits)(input_at, at),
        "{name}: its check accepts one element below its least displacement {least}"
    );
    // Distinct values in the low bits the types draw from.
    let ramp: Vec<T> = (0..r.in_len)
        .map(|i| T::draw(((i as u64).wrapping_mul(0x9e37_79b9) & 0xffff) << 24))
        .collect();
    let set = [x.clone(), ramp, c.values(r.in_len)];
    let (mut ran, mut differed) = (false, false);
    for x in &set {
        let (r_ran, got) = run_at(r, x, input_at, at);
        if r_ran {
            ran = true;
            differed |= first_difference(&got, &(r.reference)(x)).is_some();
        }
    }
    assert!(
        !ran || differed,
        "{name} runs one element below its least displacement {least} and gives the reference on every constructed input: the least displacement is not least"
    );
    assert!(
        !ran,
        "{name} runs one element below its least displacement {least}, where its output is wrong"
    );
    Below::Refused
}

/// Runs the entry with the input at `input_at` and the output at `output_at` of a buffer that
/// holds both and a sentinel elsewhere; whether it ran and its output. Elements outside both
/// tensors must keep the sentinel.
fn run_at<T: Elem>(
    r: &Runtime<'_, T>,
    x: &[T],
    input_at: usize,
    output_at: usize,
) -> (bool, Vec<T>) {
    let end = (input_at + r.in_len).max(output_at + r.out_len) + 2;
    let sentinel = T::draw(0x5a5a_5a5a_5a5a);
    let mut buf = vec![sentinel; end];
    buf[input_at..input_at + r.in_len].copy_from_slice(x);
    let ran = (r.entry)(&mut buf, input_at, output_at).is_ok();
    for (i, v) in buf.iter().enumerate() {
        let inside = (input_at..input_at + r.in_len).contains(&i)
            || (output_at..output_at + r.out_len).contains(&i);
        assert!(
            inside || v.bits() == sentinel.bits(),
            "the entry wrote element {i}, outside both tensors"
        );
    }
    (ran, buf[output_at..output_at + r.out_len].to_vec())
}

fn first_difference<T: Elem>(a: &[T], b: &[T]) -> Option<usize> {
    (0..a.len().max(b.len())).find(|&i| a.get(i).map(|v| v.bits()) != b.get(i).map(|v| v.bits()))
}

/// The case of the entry `c.entry`.
fn case(c: &mut Cx<'_, '_>) -> Below {
    match c.entry.name {
        "conv2d_s8"
        | "conv2d_s8_i4"
        | "conv2d_s16"
        | "conv2d_s16_acc32"
        | "conv2d_f32"
        | "depthwise_conv2d_s8"
        | "depthwise_conv2d_s8_i4"
        | "depthwise_conv2d_s16"
        | "depthwise_conv2d_f32" => conv(c),
        "average_pool_s8" | "average_pool_s16" | "average_pool_f32" | "max_pool_s8"
        | "max_pool_s16" | "max_pool_f32" => pool(c),
        "fully_connected_s8"
        | "fully_connected_s8_i4"
        | "fully_connected_s16"
        | "fully_connected_s16_acc32"
        | "fully_connected_f32" => fully_connected(c),
        "dequantize_s8_f32" | "dequantize_s16_f32" | "dequantize_u8_f32" => dequantize(c),
        "requantize_s16_s8" => requantize_s16_s8(c),
        "add_s8" | "add_s16" | "add_i32" | "add_f32" | "mul_s8" | "mul_s16" | "mul_i32"
        | "mul_f32" => binary(c),
        "pad" => match c.pick(0, 3) {
            0 => pad::<i8>(c, DType::Int8),
            1 => pad::<i16>(c, DType::Int16),
            2 => pad::<i32>(c, DType::Int32),
            _ => pad::<f32>(c, DType::Float32),
        },
        "concatenation" => match c.pick(0, 3) {
            0 => concatenation::<i8>(c, DType::Int8),
            1 => concatenation::<i16>(c, DType::Int16),
            2 => concatenation::<i32>(c, DType::Int32),
            _ => concatenation::<f32>(c, DType::Float32),
        },
        _ => elementwise(c),
    }
}

/// A small shape of rank 1 to 4 with at most 48 elements.
fn shape(c: &mut Cx<'_, '_>) -> Vec<usize> {
    let rank = c.pick(1, 4);
    let mut s: Vec<usize> = (0..rank).map(|_| c.pick(1, 4)).collect();
    while s.iter().product::<usize>() > 48 {
        let i = s.iter().position(|&d| d > 1).expect("a dimension above 1");
        s[i] -= 1;
    }
    s
}

/// TFLite's output size and leading padding of one spatial dimension, `None` for an empty
/// output.
fn window_dim(
    padding: Padding,
    input: usize,
    filter: usize,
    stride: usize,
    dilation: usize,
) -> Option<(usize, usize)> {
    let extent = (filter - 1) * dilation + 1;
    let out = match padding {
        Padding::Valid => (input + stride).checked_sub(extent)? / stride,
        _ => input.div_ceil(stride),
    };
    if out == 0 {
        return None;
    }
    let total = ((out - 1) * stride + extent).saturating_sub(input);
    Some((out, total / 2))
}

/// A window op's geometry: `(geometry, padding, depth multiplier)`.
fn window(c: &mut Cx<'_, '_>, depthwise: bool, dilated: bool) -> (ConvGeometry, Padding) {
    let (n, h, w, ch) = (c.pick(1, 2), c.pick(1, 6), c.pick(1, 6), c.pick(1, 4));
    let (fh, fw) = (c.pick(1, 3), c.pick(1, 3));
    let (sh, sw) = (c.pick(1, 2), c.pick(1, 2));
    let (dh, dw) = if dilated {
        (c.pick(1, 2), c.pick(1, 2))
    } else {
        (1, 1)
    };
    let mut padding = if c.flag() {
        Padding::Same
    } else {
        Padding::Valid
    };
    let dims = |padding| {
        Some((
            window_dim(padding, h, fh, sh, dh)?,
            window_dim(padding, w, fw, sw, dw)?,
        ))
    };
    let ((oh, pad_h), (ow, pad_w)) = dims(padding).unwrap_or_else(|| {
        padding = Padding::Same;
        dims(padding).expect("SAME padding has an output")
    });
    let (oc, filter, multiplier) = if depthwise {
        let m = c.pick(1, 2);
        (ch * m, [1, fh, fw, ch * m], m)
    } else {
        let oc = c.pick(1, 4);
        (oc, [oc, fh, fw, ch], 1)
    };
    let g = ConvGeometry {
        input: [n, h, w, ch],
        filter,
        output: [n, oh, ow, oc],
        stride_h: sh,
        stride_w: sw,
        dilation_h: dh,
        dilation_w: dw,
        pad_h,
        pad_w,
        depth_multiplier: multiplier,
    };
    (g, padding)
}

/// A window op's two-buffer kernel: parameters, input, filter, bias, output.
type ConvKernel<P, T, F, B> =
    fn(&P, &[T], &[F], Option<&[B]>, &mut [T]) -> Result<(), k::KernelError>;
/// Its one-buffer entry: parameters, buffer, input at, output at, filter, bias.
type ConvEntry<P, T, F, B> =
    fn(&P, &mut [T], usize, usize, &[F], Option<&[B]>) -> Result<(), k::KernelError>;
/// A pool's two-buffer kernel.
type PoolKernel<P, T> = fn(&P, &[T], &mut [T]) -> Result<(), k::KernelError>;
/// A pool's one-buffer entry.
type PoolEntry<P, T> = fn(&P, &mut [T], usize, usize) -> Result<(), k::KernelError>;
/// A binary op's two-buffer kernel: parameters, first input, second input, output.
type BinaryKernel<P, T> = fn(&P, &[T], &[T], &mut [T]) -> Result<(), k::KernelError>;
/// Its one-buffer entry: parameters, buffer, first input at, output at, second input.
type BinaryEntry<P, T> = fn(&P, &mut [T], usize, usize, &[T]) -> Result<(), k::KernelError>;

/// The element count of a four-dimensional shape.
fn count(shape: [usize; 4]) -> usize {
    shape.iter().product()
}

/// CONV_2D and DEPTHWISE_CONV_2D.
fn conv(c: &mut Cx<'_, '_>) -> Below {
    let name = c.entry.name;
    let depthwise = name.starts_with("depthwise");
    let (g, padding) = window(c, depthwise, true);
    let options = if depthwise {
        OpOptions::DepthwiseConv2D {
            padding,
            stride_w: g.stride_w as i32,
            stride_h: g.stride_h as i32,
            depth_multiplier: g.depth_multiplier as i32,
            dilation_w: g.dilation_w as i32,
            dilation_h: g.dilation_h as i32,
            activation: Activation::None,
        }
    } else {
        OpOptions::Conv2D {
            padding,
            stride_w: g.stride_w as i32,
            stride_h: g.stride_h as i32,
            dilation_w: g.dilation_w as i32,
            dilation_h: g.dilation_h as i32,
            activation: Activation::None,
        }
    };
    let oc = g.output[3];
    let filter_n = count(g.filter);
    let with_bias = !c.input.byte().is_multiple_of(4);
    let (in_type, filter_type, bias_type) = if name.ends_with("_f32") {
        (DType::Float32, DType::Float32, DType::Float32)
    } else if name.ends_with("_s16") {
        (DType::Int16, DType::Int8, DType::Int64)
    } else if name.ends_with("_s16_acc32") {
        (DType::Int16, DType::Int8, DType::Int32)
    } else if name.ends_with("_i4") {
        (DType::Int8, DType::Int4, DType::Int32)
    } else {
        (DType::Int8, DType::Int8, DType::Int32)
    };
    let filter_bytes = if filter_type == DType::Int4 {
        filter_n.div_ceil(2)
    } else {
        filter_n * filter_type.element_bytes().expect("a size") as usize
    };
    let mut m = OneOp::new();
    let x = m.tensor(in_type, &g.input, true);
    let f = m.constant(filter_type, &g.filter, &vec![1; filter_bytes]);
    let bias_bytes = oc * bias_type.element_bytes().expect("a size") as usize;
    let b = m.constant(bias_type, &[oc], &vec![0; bias_bytes]);
    let y = m.tensor(in_type, &g.output, false);
    let op = c.op();
    let d = declare(c.entry, m.finish(op, &[x, f, b], y, options));
    // The planner's pairing is the runtime driver's, on the geometry of this case.
    let element = in_type.element_bytes().expect("a size") as usize;
    assert_eq!(
        d.pairing.map(|p| p.least),
        ov::min_displacement(&g).map(|v| (v * element) as i64),
        "{name}: the planner's least displacement is not the driver's for {g:?}"
    );
    let (in_len, out_len) = (count(g.input), count(g.output));
    let fits = |i, o| ov::fits(&g, i, o);
    let quantized = |c: &mut Cx<'_, '_>, lo: i32, hi: i32| {
        let a = lo + small(c, 20).abs();
        (a, hi - small(c, 20).abs())
    };
    match name {
        "conv2d_f32" | "depthwise_conv2d_f32" => {
            let p = k::ConvF32 {
                geometry: g,
                act_min: if c.flag() { f32::MIN } else { -2.0 },
                act_max: if c.flag() { f32::MAX } else { 3.5 },
            };
            let filter: Vec<f32> = c.values(filter_n);
            let bias: Option<Vec<f32>> = with_bias.then(|| c.values(oc));
            let (kernel, entry): (ConvKernel<_, f32, f32, f32>, ConvEntry<_, f32, f32, f32>) =
                if depthwise {
                    (k::depthwise_conv2d_f32, ov::depthwise_conv2d_f32)
                } else {
                    (k::conv2d_f32, ov::conv2d_f32)
                };
            check(
                c,
                &d,
                &Runtime {
                    in_len,
                    out_len,
                    reference: &|x| {
                        let mut o = vec![0.0; out_len];
                        kernel(&p, x, &filter, bias.as_deref(), &mut o)
                            .expect("the two-buffer kernel takes the case");
                        o
                    },
                    entry: &|buf, i, o| entry(&p, buf, i, o, &filter, bias.as_deref()),
                    fits: &fits,
                },
            )
        }
        "conv2d_s16" | "depthwise_conv2d_s16" | "conv2d_s16_acc32" => {
            let (act_min, act_max) = quantized(c, -32768, 32767);
            let p = k::ConvS16 {
                geometry: g,
                requant: requants(c, oc),
                act_min,
                act_max,
            };
            let filter: Vec<i8> = c.values(filter_n);
            if name == "conv2d_s16_acc32" {
                let bias: Option<Vec<i32>> = with_bias.then(|| c.values(oc));
                check(
                    c,
                    &d,
                    &Runtime {
                        in_len,
                        out_len,
                        reference: &|x| {
                            let mut o = vec![0; out_len];
                            k::conv2d_s16_acc32(&p, x, &filter, bias.as_deref(), &mut o)
                                .expect("the two-buffer kernel takes the case");
                            o
                        },
                        entry: &|buf, i, o| {
                            ov::conv2d_s16_acc32(&p, buf, i, o, &filter, bias.as_deref())
                        },
                        fits: &fits,
                    },
                )
            } else {
                let bias: Option<Vec<i64>> =
                    with_bias.then(|| (0..oc).map(|_| i64::from(small(c, 1 << 20))).collect());
                let (kernel, entry): (ConvKernel<_, i16, i8, i64>, ConvEntry<_, i16, i8, i64>) =
                    if depthwise {
                        (k::depthwise_conv2d_s16, ov::depthwise_conv2d_s16)
                    } else {
                        (k::conv2d_s16, ov::conv2d_s16)
                    };
                check(
                    c,
                    &d,
                    &Runtime {
                        in_len,
                        out_len,
                        reference: &|x| {
                            let mut o = vec![0; out_len];
                            kernel(&p, x, &filter, bias.as_deref(), &mut o)
                                .expect("the two-buffer kernel takes the case");
                            o
                        },
                        entry: &|buf, i, o| entry(&p, buf, i, o, &filter, bias.as_deref()),
                        fits: &fits,
                    },
                )
            }
        }
        _ => {
            let (act_min, act_max) = quantized(c, -128, 127);
            let p = k::ConvS8 {
                geometry: g,
                input_offset: small(c, 127) + 1,
                output_offset: small(c, 10),
                requant: requants(c, oc),
                act_min,
                act_max,
            };
            let bias: Option<Vec<i32>> =
                with_bias.then(|| (0..oc).map(|_| small(c, 2000)).collect());
            if name.ends_with("_i4") {
                let filter: Vec<u8> = c.values(filter_n.div_ceil(2));
                let (kernel, entry): (ConvKernel<_, i8, u8, i32>, ConvEntry<_, i8, u8, i32>) =
                    if depthwise {
                        (k::depthwise_conv2d_s8_i4, ov::depthwise_conv2d_s8_i4)
                    } else {
                        (k::conv2d_s8_i4, ov::conv2d_s8_i4)
                    };
                check(
                    c,
                    &d,
                    &Runtime {
                        in_len,
                        out_len,
                        reference: &|x| {
                            let mut o = vec![0; out_len];
                            kernel(&p, x, &filter, bias.as_deref(), &mut o)
                                .expect("the two-buffer kernel takes the case");
                            o
                        },
                        entry: &|buf, i, o| entry(&p, buf, i, o, &filter, bias.as_deref()),
                        fits: &fits,
                    },
                )
            } else {
                let filter: Vec<i8> = c.values(filter_n);
                let (kernel, entry): (ConvKernel<_, i8, i8, i32>, ConvEntry<_, i8, i8, i32>) =
                    if depthwise {
                        (k::depthwise_conv2d_s8, ov::depthwise_conv2d_s8)
                    } else {
                        (k::conv2d_s8, ov::conv2d_s8)
                    };
                check(
                    c,
                    &d,
                    &Runtime {
                        in_len,
                        out_len,
                        reference: &|x| {
                            let mut o = vec![0; out_len];
                            kernel(&p, x, &filter, bias.as_deref(), &mut o)
                                .expect("the two-buffer kernel takes the case");
                            o
                        },
                        entry: &|buf, i, o| entry(&p, buf, i, o, &filter, bias.as_deref()),
                        fits: &fits,
                    },
                )
            }
        }
    }
}

/// AVERAGE_POOL_2D and MAX_POOL_2D.
fn pool(c: &mut Cx<'_, '_>) -> Below {
    let name = c.entry.name;
    let (w, padding) = window(c, true, false);
    let g = PoolGeometry {
        input: w.input,
        output: [w.output[0], w.output[1], w.output[2], w.input[3]],
        filter_h: w.filter[1],
        filter_w: w.filter[2],
        stride_h: w.stride_h,
        stride_w: w.stride_w,
        pad_h: w.pad_h,
        pad_w: w.pad_w,
    };
    let options = OpOptions::Pool2D {
        padding,
        stride_w: g.stride_w as i32,
        stride_h: g.stride_h as i32,
        filter_w: g.filter_w as i32,
        filter_h: g.filter_h as i32,
        activation: Activation::None,
    };
    let dtype = if name.ends_with("_f32") {
        DType::Float32
    } else if name.ends_with("_s16") {
        DType::Int16
    } else {
        DType::Int8
    };
    let mut m = OneOp::new();
    let x = m.tensor(dtype, &g.input, true);
    let y = m.tensor(dtype, &g.output, false);
    let op = c.op();
    let d = declare(c.entry, m.finish(op, &[x], y, options));
    let element = dtype.element_bytes().expect("a size") as usize;
    let walk = ov::pool_walk(&g);
    assert_eq!(
        d.pairing.map(|p| p.least),
        ov::min_displacement(&walk).map(|v| (v * element) as i64),
        "{name}: the planner's least displacement is not the driver's for {g:?}"
    );
    let (in_len, out_len) = (count(g.input), count(g.output));
    let fits = |i, o| ov::pool_fits(&g, i, o);
    let average = name.starts_with("average");
    match dtype {
        DType::Float32 => {
            let p = k::PoolF32 {
                geometry: g,
                act_min: -3.0,
                act_max: if c.flag() { f32::MAX } else { 2.5 },
            };
            let (kernel, entry): (PoolKernel<_, f32>, PoolEntry<_, f32>) = if average {
                (k::average_pool_f32, ov::average_pool_f32)
            } else {
                (k::max_pool_f32, ov::max_pool_f32)
            };
            check(
                c,
                &d,
                &Runtime {
                    in_len,
                    out_len,
                    reference: &|x| {
                        let mut o = vec![0.0; out_len];
                        kernel(&p, x, &mut o).expect("the two-buffer kernel takes the case");
                        o
                    },
                    entry: &|buf, i, o| entry(&p, buf, i, o),
                    fits: &fits,
                },
            )
        }
        DType::Int16 => {
            let p = k::PoolS16 {
                geometry: g,
                act_min: -32768 + small(c, 100).abs(),
                act_max: 32767 - small(c, 100).abs(),
            };
            let (kernel, entry): (PoolKernel<_, i16>, PoolEntry<_, i16>) = if average {
                (k::average_pool_s16, ov::average_pool_s16)
            } else {
                (k::max_pool_s16, ov::max_pool_s16)
            };
            check(
                c,
                &d,
                &Runtime {
                    in_len,
                    out_len,
                    reference: &|x| {
                        let mut o = vec![0; out_len];
                        kernel(&p, x, &mut o).expect("the two-buffer kernel takes the case");
                        o
                    },
                    entry: &|buf, i, o| entry(&p, buf, i, o),
                    fits: &fits,
                },
            )
        }
        _ => {
            let p = k::PoolS8 {
                geometry: g,
                act_min: -128 + small(c, 20).abs(),
                act_max: 127 - small(c, 20).abs(),
            };
            let (kernel, entry): (PoolKernel<_, i8>, PoolEntry<_, i8>) = if average {
                (k::average_pool_s8, ov::average_pool_s8)
            } else {
                (k::max_pool_s8, ov::max_pool_s8)
            };
            check(
                c,
                &d,
                &Runtime {
                    in_len,
                    out_len,
                    reference: &|x| {
                        let mut o = vec![0; out_len];
                        kernel(&p, x, &mut o).expect("the two-buffer kernel takes the case");
                        o
                    },
                    entry: &|buf, i, o| entry(&p, buf, i, o),
                    fits: &fits,
                },
            )
        }
    }
}

/// FULLY_CONNECTED of several batch rows.
fn fully_connected(c: &mut Cx<'_, '_>) -> Below {
    let name = c.entry.name;
    let (batches, depth, units) = (c.pick(2, 5), c.pick(1, 8), c.pick(1, 8));
    let (in_type, filter_type, bias_type) = if name.ends_with("_f32") {
        (DType::Float32, DType::Float32, DType::Float32)
    } else if name.ends_with("_s16") {
        (DType::Int16, DType::Int8, DType::Int64)
    } else if name.ends_with("_s16_acc32") {
        (DType::Int16, DType::Int8, DType::Int32)
    } else if name.ends_with("_i4") {
        (DType::Int8, DType::Int4, DType::Int32)
    } else {
        (DType::Int8, DType::Int8, DType::Int32)
    };
    let filter_n = units * depth;
    let filter_bytes = if filter_type == DType::Int4 {
        filter_n.div_ceil(2)
    } else {
        filter_n * filter_type.element_bytes().expect("a size") as usize
    };
    let mut m = OneOp::new();
    let x = m.tensor(in_type, &[batches, depth], true);
    let f = m.constant(filter_type, &[units, depth], &vec![1; filter_bytes]);
    let bias_bytes = units * bias_type.element_bytes().expect("a size") as usize;
    let b = m.constant(bias_type, &[units], &vec![0; bias_bytes]);
    let y = m.tensor(in_type, &[batches, units], false);
    let options = OpOptions::FullyConnected {
        activation: Activation::None,
        keep_num_dims: false,
        shuffled_weights: false,
    };
    let op = c.op();
    let d = declare(c.entry, m.finish(op, &[x, f, b], y, options));
    let element = in_type.element_bytes().expect("a size") as usize;
    assert_eq!(
        d.pairing.map(|p| p.least),
        ov::fully_connected_min_displacement(batches, depth, units).map(|v| (v * element) as i64),
        "{name}: the planner's least displacement is not the runtime's"
    );
    let (in_len, out_len) = (batches * depth, batches * units);
    let fits = |i, o| ov::fully_connected_fits(batches, depth, units, i, o);
    let with_bias = c.flag();
    match name {
        "fully_connected_f32" => {
            let p = k::FullyConnectedF32 {
                batches,
                accum_depth: depth,
                output_depth: units,
                act_min: -4.0,
                act_max: if c.flag() { f32::MAX } else { 5.0 },
            };
            let filter: Vec<f32> = c.values(filter_n);
            let bias: Option<Vec<f32>> = with_bias.then(|| c.values(units));
            check(
                c,
                &d,
                &Runtime {
                    in_len,
                    out_len,
                    reference: &|x| {
                        let mut o = vec![0.0; out_len];
                        k::fully_connected_f32(&p, x, &filter, bias.as_deref(), &mut o)
                            .expect("the two-buffer kernel takes the case");
                        o
                    },
                    entry: &|buf, i, o| {
                        ov::fully_connected_f32(&p, buf, i, o, &filter, bias.as_deref())
                    },
                    fits: &fits,
                },
            )
        }
        "fully_connected_s16" | "fully_connected_s16_acc32" => {
            let channels = if c.flag() { units } else { 1 };
            let p = k::FullyConnectedS16 {
                batches,
                accum_depth: depth,
                output_depth: units,
                input_offset: 0,
                filter_offset: 0,
                output_offset: 0,
                requant: requants(c, channels),
                act_min: -32768 + small(c, 100).abs(),
                act_max: 32767 - small(c, 100).abs(),
            };
            let filter: Vec<i8> = c.values(filter_n);
            if name == "fully_connected_s16" {
                let bias: Option<Vec<i64>> =
                    with_bias.then(|| (0..units).map(|_| i64::from(small(c, 1 << 20))).collect());
                check(
                    c,
                    &d,
                    &Runtime {
                        in_len,
                        out_len,
                        reference: &|x| {
                            let mut o = vec![0; out_len];
                            k::fully_connected_s16(&p, x, &filter, bias.as_deref(), &mut o)
                                .expect("the two-buffer kernel takes the case");
                            o
                        },
                        entry: &|buf, i, o| {
                            ov::fully_connected_s16(&p, buf, i, o, &filter, bias.as_deref())
                        },
                        fits: &fits,
                    },
                )
            } else {
                let bias: Option<Vec<i32>> =
                    with_bias.then(|| (0..units).map(|_| small(c, 1 << 16)).collect());
                check(
                    c,
                    &d,
                    &Runtime {
                        in_len,
                        out_len,
                        reference: &|x| {
                            let mut o = vec![0; out_len];
                            k::fully_connected_s16_acc32(&p, x, &filter, bias.as_deref(), &mut o)
                                .expect("the two-buffer kernel takes the case");
                            o
                        },
                        entry: &|buf, i, o| {
                            ov::fully_connected_s16_acc32(&p, buf, i, o, &filter, bias.as_deref())
                        },
                        fits: &fits,
                    },
                )
            }
        }
        _ => {
            // The int4 kernel takes one multiplier (TFLM's per-tensor int4 path).
            let per_channel = c.flag() && name != "fully_connected_s8_i4";
            let p = k::FullyConnectedS8 {
                batches,
                accum_depth: depth,
                output_depth: units,
                input_offset: small(c, 127) + 1,
                // The per-channel kernel takes symmetric filters.
                filter_offset: if per_channel { 0 } else { small(c, 10) },
                output_offset: small(c, 10),
                requant: requants(c, if per_channel { units } else { 1 }),
                act_min: -128 + small(c, 20).abs(),
                act_max: 127 - small(c, 20).abs(),
            };
            let bias: Option<Vec<i32>> =
                with_bias.then(|| (0..units).map(|_| small(c, 2000)).collect());
            if name == "fully_connected_s8_i4" {
                let filter: Vec<u8> = c.values(filter_n.div_ceil(2));
                check(
                    c,
                    &d,
                    &Runtime {
                        in_len,
                        out_len,
                        reference: &|x| {
                            let mut o = vec![0; out_len];
                            k::fully_connected_s8_i4(&p, x, &filter, bias.as_deref(), &mut o)
                                .expect("the two-buffer kernel takes the case");
                            o
                        },
                        entry: &|buf, i, o| {
                            ov::fully_connected_s8_i4(&p, buf, i, o, &filter, bias.as_deref())
                        },
                        fits: &fits,
                    },
                )
            } else {
                let filter: Vec<i8> = c.values(filter_n);
                check(
                    c,
                    &d,
                    &Runtime {
                        in_len,
                        out_len,
                        reference: &|x| {
                            let mut o = vec![0; out_len];
                            k::fully_connected_s8(&p, x, &filter, bias.as_deref(), &mut o)
                                .expect("the two-buffer kernel takes the case");
                            o
                        },
                        entry: &|buf, i, o| {
                            ov::fully_connected_s8(&p, buf, i, o, &filter, bias.as_deref())
                        },
                        fits: &fits,
                    },
                )
            }
        }
    }
}

/// The one-op model of an elementwise op of `shape` from `from` to `to`, declared.
fn elementwise_model(
    c: &mut Cx<'_, '_>,
    shape: &[usize],
    from: DType,
    to: DType,
    options: OpOptions,
) -> Declared {
    let mut m = OneOp::new();
    let x = m.tensor(from, shape, true);
    let y = m.tensor(to, shape, false);
    let op = c.op();
    declare(c.entry, m.finish(op, &[x], y, options))
}

/// An elementwise entry: buffer, input at, output at, elements.
type ElementwiseEntry<'a, T> =
    dyn Fn(&mut [T], usize, usize, usize) -> Result<(), k::KernelError> + 'a;

/// An elementwise entry of one type: `kernel` on two buffers, `entry` on one.
fn same_type<T: Elem>(
    c: &mut Cx<'_, '_>,
    d: &Declared,
    len: usize,
    kernel: &dyn Fn(&[T], &mut [T]) -> Ran,
    entry: &ElementwiseEntry<'_, T>,
) -> Below {
    let declared = d.pairing.map(|p| p.least);
    assert_eq!(
        declared,
        Some(0),
        "{}: an elementwise op's least displacement",
        c.entry.name
    );
    check(
        c,
        d,
        &Runtime {
            in_len: len,
            out_len: len,
            reference: &|x| {
                let mut o = vec![T::default(); len];
                kernel(x, &mut o).expect("the two-buffer kernel takes the case");
                o
            },
            entry: &|buf, i, o| entry(buf, i, o, len),
            fits: &|i, o| ov::elementwise_fits(i, o, len, 1),
        },
    )
}

/// The elementwise entries whose input and output are of one type: QUANTIZE (int8 and int16)
/// and the activations.
fn elementwise(c: &mut Cx<'_, '_>) -> Below {
    let name = c.entry.name;
    let shape = shape(c);
    let len: usize = shape.iter().product();
    let dtype = if name.ends_with("_f32") {
        DType::Float32
    } else if name.ends_with("_s16") {
        DType::Int16
    } else {
        DType::Int8
    };
    let options = if c.op() == BuiltinOp::LEAKY_RELU {
        OpOptions::LeakyRelu { alpha: 0.25 }
    } else {
        OpOptions::None
    };
    let d = elementwise_model(c, &shape, dtype, dtype, options);
    let requantize = k::Requantize {
        input_offset: small(c, 128),
        output_offset: small(c, 10),
        requant: requant(c),
    };
    let relu = k::ReluS8 {
        input_offset: small(c, 20),
        output_offset: small(c, 10),
        requant: requant(c),
        act_min: -128 + c.rng.below(100) as i32,
        act_max: 127,
    };
    let relu16 = k::ReluS16 {
        input_offset: 0,
        output_offset: 0,
        requant: requant(c),
        act_min: -32768 + c.rng.below(1000) as i32,
        act_max: 32767,
    };
    let relu6 = k::Relu6S8 {
        zero: small(c, 20) as i8,
        six: 60 + small(c, 40) as i8,
    };
    let relu6_16 = k::Relu6S16 {
        zero: small(c, 200) as i16,
        six: 6000 + small(c, 4000) as i16,
    };
    let logistic = k::LogisticS8 {
        input_zero_point: small(c, 20),
        input_range_radius: 90 + c.rng.below(40) as i32,
        input_multiplier: 1_500_000_000 + c.rng.below(500_000_000) as i32,
        input_left_shift: 18 + c.rng.below(6) as i32,
    };
    let tanh = k::TanhS8 {
        input_zero_point: logistic.input_zero_point,
        input_range_radius: logistic.input_range_radius,
        input_multiplier: logistic.input_multiplier,
        input_left_shift: logistic.input_left_shift,
    };
    let multiplier16 = if c.flag() {
        0
    } else {
        16384 + c.rng.below(16384) as i32
    };
    let shift16 = c.rng.below(4) as i32;
    let logistic16 = k::LogisticS16 {
        input_multiplier: multiplier16,
        input_left_shift: shift16,
    };
    let tanh16 = k::TanhS16 {
        input_multiplier: multiplier16,
        input_left_shift: shift16,
    };
    let elu = k::EluS8 { table: &ELU_TABLE };
    let hard_swish = k::HardSwishS8 {
        input_zero_point: small(c, 20) as i16,
        output_zero_point: small(c, 20) as i16,
        reluish_multiplier_fixedpoint_int16: 8192 + c.rng.below(24000) as i16,
        reluish_multiplier_exponent: c.rng.below(6) as i32 - 2,
        output_multiplier_fixedpoint_int16: 8192 + c.rng.below(24000) as i16,
        output_multiplier_exponent: -(c.rng.below(8) as i32),
    };
    let leaky = k::LeakyReluQuantized {
        input_zero_point: small(c, 20),
        output_zero_point: small(c, 20),
        alpha: requant(c),
        identity: requant(c),
    };
    let leaky16 = k::LeakyReluQuantized {
        input_zero_point: 0,
        output_zero_point: 0,
        ..leaky
    };
    let leaky_f32 = k::LeakyReluF32 { alpha: 0.25 };
    match name {
        "requantize_s8" => same_type::<i8>(
            c,
            &d,
            len,
            &|x, o| k::requantize_s8(&requantize, x, o),
            &|b, i, o, n| ov::requantize_s8(&requantize, b, i, o, n),
        ),
        "requantize_s16" => same_type::<i16>(
            c,
            &d,
            len,
            &|x, o| k::requantize_s16(&requantize, x, o),
            &|b, i, o, n| ov::requantize_s16(&requantize, b, i, o, n),
        ),
        "relu_s8" => same_type::<i8>(
            c,
            &d,
            len,
            &|x, o| k::relu_s8(&relu, x, o),
            &|b, i, o, n| ov::relu_s8(&relu, b, i, o, n),
        ),
        "relu_s16" => same_type::<i16>(
            c,
            &d,
            len,
            &|x, o| k::relu_s16(&relu16, x, o),
            &|b, i, o, n| ov::relu_s16(&relu16, b, i, o, n),
        ),
        "relu_f32" => same_type::<f32>(c, &d, len, &k::relu_f32, &|b, i, o, n| {
            ov::relu_f32(&(), b, i, o, n)
        }),
        "relu6_s8" => same_type::<i8>(
            c,
            &d,
            len,
            &|x, o| k::relu6_s8(&relu6, x, o),
            &|b, i, o, n| ov::relu6_s8(&relu6, b, i, o, n),
        ),
        "relu6_s16" => same_type::<i16>(
            c,
            &d,
            len,
            &|x, o| k::relu6_s16(&relu6_16, x, o),
            &|b, i, o, n| ov::relu6_s16(&relu6_16, b, i, o, n),
        ),
        "relu6_f32" => same_type::<f32>(c, &d, len, &k::relu6_f32, &|b, i, o, n| {
            ov::relu6_f32(&(), b, i, o, n)
        }),
        "logistic_s8" => same_type::<i8>(
            c,
            &d,
            len,
            &|x, o| k::logistic_s8(&logistic, x, o),
            &|b, i, o, n| ov::logistic_s8(&logistic, b, i, o, n),
        ),
        "logistic_s16" => same_type::<i16>(
            c,
            &d,
            len,
            &|x, o| k::logistic_s16(&logistic16, x, o),
            &|b, i, o, n| ov::logistic_s16(&logistic16, b, i, o, n),
        ),
        "logistic_f32" => same_type::<f32>(c, &d, len, &k::logistic_f32, &|b, i, o, n| {
            ov::logistic_f32(&(), b, i, o, n)
        }),
        "tanh_s8" => same_type::<i8>(
            c,
            &d,
            len,
            &|x, o| k::tanh_s8(&tanh, x, o),
            &|b, i, o, n| ov::tanh_s8(&tanh, b, i, o, n),
        ),
        "tanh_s16" => same_type::<i16>(
            c,
            &d,
            len,
            &|x, o| k::tanh_s16(&tanh16, x, o),
            &|b, i, o, n| ov::tanh_s16(&tanh16, b, i, o, n),
        ),
        "tanh_f32" => same_type::<f32>(c, &d, len, &k::tanh_f32, &|b, i, o, n| {
            ov::tanh_f32(&(), b, i, o, n)
        }),
        "elu_s8" => same_type::<i8>(c, &d, len, &|x, o| k::elu_s8(&elu, x, o), &|b, i, o, n| {
            ov::elu_s8(&elu, b, i, o, n)
        }),
        "elu_f32" => same_type::<f32>(c, &d, len, &k::elu_f32, &|b, i, o, n| {
            ov::elu_f32(&(), b, i, o, n)
        }),
        "hard_swish_s8" => same_type::<i8>(
            c,
            &d,
            len,
            &|x, o| k::hard_swish_s8(&hard_swish, x, o),
            &|b, i, o, n| ov::hard_swish_s8(&hard_swish, b, i, o, n),
        ),
        "hard_swish_f32" => same_type::<f32>(c, &d, len, &k::hard_swish_f32, &|b, i, o, n| {
            ov::hard_swish_f32(&(), b, i, o, n)
        }),
        "leaky_relu_s8" => same_type::<i8>(
            c,
            &d,
            len,
            &|x, o| k::leaky_relu_s8(&leaky, x, o),
            &|b, i, o, n| ov::leaky_relu_s8(&leaky, b, i, o, n),
        ),
        "leaky_relu_s16" => same_type::<i16>(
            c,
            &d,
            len,
            &|x, o| k::leaky_relu_s16(&leaky16, x, o),
            &|b, i, o, n| ov::leaky_relu_s16(&leaky16, b, i, o, n),
        ),
        "leaky_relu_f32" => same_type::<f32>(
            c,
            &d,
            len,
            &|x, o| k::leaky_relu_f32(&leaky_f32, x, o),
            &|b, i, o, n| ov::leaky_relu_f32(&leaky_f32, b, i, o, n),
        ),
        other => panic!(
            "no in-place case for the entry `{other}` of {}: add one",
            c.entry.kind
        ),
    }
}

/// QUANTIZE from int16 to int8 on a buffer of bytes: each int16 input element two bytes (in
/// the machine's order), each output element one.
fn requantize_s16_s8(c: &mut Cx<'_, '_>) -> Below {
    let shape = shape(c);
    let len: usize = shape.iter().product();
    let d = elementwise_model(c, &shape, DType::Int16, DType::Int8, OpOptions::None);
    assert_eq!(d.pairing.map(|p| p.least), Some(0), "requantize_s16_s8");
    let p = k::Requantize {
        input_offset: small(c, 128),
        output_offset: small(c, 10),
        requant: requant(c),
    };
    check(
        c,
        &d,
        &Runtime {
            in_len: 2 * len,
            out_len: len,
            reference: &|x: &[i8]| {
                let x16: Vec<i16> = x
                    .chunks_exact(2)
                    .map(|b| i16::from_ne_bytes([b[0] as u8, b[1] as u8]))
                    .collect();
                let mut o = vec![0; len];
                k::requantize_s16_s8(&p, &x16, &mut o)
                    .expect("the two-buffer kernel takes the case");
                o
            },
            entry: &|buf, i, o| ov::requantize_s16_s8(&p, buf, i, o, len),
            fits: &|i, o| ov::elementwise_fits(i, o, len, 2),
        },
    )
}

/// DEQUANTIZE to float32 on a buffer of the input's type: each float32 output element the
/// buffer elements holding its bytes in the machine's order.
fn dequantize(c: &mut Cx<'_, '_>) -> Below {
    let name = c.entry.name;
    let shape = shape(c);
    let len: usize = shape.iter().product();
    let from = match name {
        "dequantize_s8_f32" => DType::Int8,
        "dequantize_u8_f32" => DType::Uint8,
        _ => DType::Int16,
    };
    let d = elementwise_model(c, &shape, from, DType::Float32, OpOptions::None);
    let scale = [0.5, 0.125, 0.1, 1.0 / 256.0][c.pick(0, 3)];
    let zero_point = small(c, 20);
    let width = 4 / from.element_bytes().expect("a size") as usize;
    assert_eq!(
        d.pairing.map(|p| p.least),
        ov::widening_min_displacement(len, width).map(|v| (v * (4 / width)) as i64),
        "{name}: the planner's least displacement is not the runtime's"
    );
    let fits = |i, o| ov::widening_fits(i, o, len, width);
    match from {
        DType::Int8 => {
            let p = k::DequantizeS8F32 { scale, zero_point };
            check(
                c,
                &d,
                &Runtime {
                    in_len: len,
                    out_len: 4 * len,
                    reference: &|x: &[i8]| {
                        let mut o = vec![0.0; len];
                        k::dequantize_s8_f32(&p, x, &mut o)
                            .expect("the two-buffer kernel takes the case");
                        o.iter()
                            .flat_map(|v| v.to_ne_bytes().map(|b| b as i8))
                            .collect()
                    },
                    entry: &|buf, i, o| ov::dequantize_s8_f32(&p, buf, i, o, len),
                    fits: &fits,
                },
            )
        }
        DType::Uint8 => {
            let p = k::Dequantize { scale, zero_point };
            check(
                c,
                &d,
                &Runtime {
                    in_len: len,
                    out_len: 4 * len,
                    reference: &|x: &[u8]| {
                        let mut o = vec![0.0; len];
                        k::dequantize_u8_f32(&p, x, &mut o)
                            .expect("the two-buffer kernel takes the case");
                        o.iter().flat_map(|v| v.to_ne_bytes()).collect()
                    },
                    entry: &|buf, i, o| ov::dequantize_u8_f32(&p, buf, i, o, len),
                    fits: &fits,
                },
            )
        }
        _ => {
            let p = k::Dequantize { scale, zero_point };
            check(
                c,
                &d,
                &Runtime {
                    in_len: len,
                    out_len: 2 * len,
                    reference: &|x: &[i16]| {
                        let mut o = vec![0.0; len];
                        k::dequantize_s16_f32(&p, x, &mut o)
                            .expect("the two-buffer kernel takes the case");
                        o.iter()
                            .flat_map(|v| {
                                let [a, b, c, d] = v.to_ne_bytes();
                                [i16::from_ne_bytes([a, b]), i16::from_ne_bytes([c, d])]
                            })
                            .collect()
                    },
                    entry: &|buf, i, o| ov::dequantize_s16_f32(&p, buf, i, o, len),
                    fits: &fits,
                },
            )
        }
    }
}

/// ADD and MUL, the second input broadcast or not.
fn binary(c: &mut Cx<'_, '_>) -> Below {
    let name = c.entry.name;
    let s = shape(c);
    let mut second = s.clone();
    for dim in &mut second {
        if c.input.byte().is_multiple_of(3) {
            *dim = 1;
        }
    }
    let six = |s: &[usize]| {
        let mut d = [1; 6];
        d[6 - s.len()..].copy_from_slice(s);
        d
    };
    let shape = BinaryShape {
        input1: six(&s),
        input2: six(&second),
        output: six(&s),
    };
    let (len, len2): (usize, usize) = (s.iter().product(), second.iter().product());
    let dtype = if name.ends_with("_f32") {
        DType::Float32
    } else if name.ends_with("_i32") {
        DType::Int32
    } else if name.ends_with("_s16") {
        DType::Int16
    } else {
        DType::Int8
    };
    let add = name.starts_with("add");
    let options = if add {
        OpOptions::Add {
            activation: Activation::None,
            pot_scale_int16: false,
        }
    } else {
        OpOptions::Mul {
            activation: Activation::None,
        }
    };
    let mut m = OneOp::new();
    let x = m.tensor(dtype, &s, true);
    let x2 = m.tensor(dtype, &second, true);
    let y = m.tensor(dtype, &s, false);
    let op = c.op();
    let d = declare(c.entry, m.finish(op, &[x, x2], y, options));
    assert_eq!(d.pairing.map(|p| p.least), Some(0), "{name}");
    let fits = |i, o| ov::binary_fits(&shape, i, o);
    match dtype {
        DType::Float32 => {
            let p = k::BinaryF32 {
                shape,
                act_min: -5.0,
                act_max: if c.flag() { f32::MAX } else { 4.0 },
            };
            let y2: Vec<f32> = c.values(len2);
            let (kernel, entry): (BinaryKernel<_, f32>, BinaryEntry<_, f32>) = if add {
                (k::add_f32, ov::add_f32)
            } else {
                (k::mul_f32, ov::mul_f32)
            };
            check(
                c,
                &d,
                &Runtime {
                    in_len: len,
                    out_len: len,
                    reference: &|x| {
                        let mut o = vec![0.0; len];
                        kernel(&p, x, &y2, &mut o).expect("the two-buffer kernel takes the case");
                        o
                    },
                    entry: &|buf, i, o| entry(&p, buf, i, o, &y2),
                    fits: &fits,
                },
            )
        }
        DType::Int32 => {
            let p = k::BinaryI32 {
                shape,
                act_min: if c.flag() { i32::MIN } else { -3000 },
                act_max: i32::MAX,
            };
            let y2: Vec<i32> = c.values(len2);
            let (kernel, entry): (BinaryKernel<_, i32>, BinaryEntry<_, i32>) = if add {
                (k::add_i32, ov::add_i32)
            } else {
                (k::mul_i32, ov::mul_i32)
            };
            check(
                c,
                &d,
                &Runtime {
                    in_len: len,
                    out_len: len,
                    reference: &|x| {
                        let mut o = vec![0; len];
                        kernel(&p, x, &y2, &mut o).expect("the two-buffer kernel takes the case");
                        o
                    },
                    entry: &|buf, i, o| entry(&p, buf, i, o, &y2),
                    fits: &fits,
                },
            )
        }
        DType::Int16 => {
            let y2: Vec<i16> = c.values(len2);
            if add {
                let p = k::AddS16 {
                    shape,
                    left_shift: 15,
                    input1_offset: 0,
                    input1: Requant {
                        multiplier: (1 << 30) + c.rng.below(1 << 29) as i32,
                        shift: -1,
                    },
                    input2_offset: 0,
                    input2: Requant {
                        multiplier: (1 << 30) + c.rng.below(1 << 29) as i32,
                        shift: -1,
                    },
                    output_offset: 0,
                    output: requant(c),
                    act_min: -32768,
                    act_max: 32767,
                };
                check(
                    c,
                    &d,
                    &Runtime {
                        in_len: len,
                        out_len: len,
                        reference: &|x| {
                            let mut o = vec![0; len];
                            k::add_s16(&p, x, &y2, &mut o)
                                .expect("the two-buffer kernel takes the case");
                            o
                        },
                        entry: &|buf, i, o| ov::add_s16(&p, buf, i, o, &y2),
                        fits: &fits,
                    },
                )
            } else {
                let p = k::MulS16 {
                    shape,
                    input1_offset: 0,
                    input2_offset: 0,
                    output_offset: 0,
                    output: requant(c),
                    act_min: -32768,
                    act_max: 32767,
                };
                check(
                    c,
                    &d,
                    &Runtime {
                        in_len: len,
                        out_len: len,
                        reference: &|x| {
                            let mut o = vec![0; len];
                            k::mul_s16(&p, x, &y2, &mut o)
                                .expect("the two-buffer kernel takes the case");
                            o
                        },
                        entry: &|buf, i, o| ov::mul_s16(&p, buf, i, o, &y2),
                        fits: &fits,
                    },
                )
            }
        }
        _ => {
            let y2: Vec<i8> = c.values(len2);
            if add {
                let p = k::AddS8 {
                    shape,
                    left_shift: 20,
                    input1_offset: small(c, 20),
                    input1: Requant {
                        multiplier: (1 << 30) + c.rng.below(1 << 29) as i32,
                        shift: -1,
                    },
                    input2_offset: small(c, 20),
                    input2: Requant {
                        multiplier: (1 << 30) + c.rng.below(1 << 29) as i32,
                        shift: -1,
                    },
                    output_offset: small(c, 20),
                    output: requant(c),
                    act_min: -128,
                    act_max: 127,
                };
                check(
                    c,
                    &d,
                    &Runtime {
                        in_len: len,
                        out_len: len,
                        reference: &|x| {
                            let mut o = vec![0; len];
                            k::add_s8(&p, x, &y2, &mut o)
                                .expect("the two-buffer kernel takes the case");
                            o
                        },
                        entry: &|buf, i, o| ov::add_s8(&p, buf, i, o, &y2),
                        fits: &fits,
                    },
                )
            } else {
                let p = k::MulS8 {
                    shape,
                    input1_offset: small(c, 20),
                    input2_offset: small(c, 20),
                    output_offset: small(c, 20),
                    output: requant(c),
                    act_min: -128,
                    act_max: 127,
                };
                check(
                    c,
                    &d,
                    &Runtime {
                        in_len: len,
                        out_len: len,
                        reference: &|x| {
                            let mut o = vec![0; len];
                            k::mul_s8(&p, x, &y2, &mut o)
                                .expect("the two-buffer kernel takes the case");
                            o
                        },
                        entry: &|buf, i, o| ov::mul_s8(&p, buf, i, o, &y2),
                        fits: &fits,
                    },
                )
            }
        }
    }
}

/// PAD and PADV2 with constant paddings (and, for PADV2, a constant pad value).
fn pad<T: Elem>(c: &mut Cx<'_, '_>, dtype: DType) -> Below {
    let s = shape(c);
    let r = s.len();
    let mut p = k::Pad {
        input: [1; 5],
        output: [1; 5],
        before: [0; 5],
    };
    let mut pads = Vec::with_capacity(2 * r);
    let mut out = Vec::with_capacity(r);
    for (i, &dim) in s.iter().enumerate() {
        let (b, a) = (c.pick(0, 2), c.pick(0, 2));
        pads.extend([b as i32, a as i32]);
        out.push(dim + b + a);
        p.input[5 - r + i] = dim;
        p.output[5 - r + i] = dim + b + a;
        p.before[5 - r + i] = b;
    }
    let value: T = T::draw(c.rng.next());
    let mut m = OneOp::new();
    let x = m.tensor(dtype, &s, true);
    let paddings = m.constant(DType::Int32, &[r, 2], &le(&pads));
    let mut inputs = vec![x, paddings];
    let op = c.op();
    if op == BuiltinOp::PADV2 {
        inputs.push(m.constant(dtype, &[], &le(&[value])));
    }
    let y = m.tensor(dtype, &out, false);
    let d = declare(c.entry, m.finish(op, &inputs, y, OpOptions::None));
    let element = T::BYTES;
    assert_eq!(
        d.pairing.map(|p| p.least),
        ov::pad_min_displacement(&p).map(|v| (v * element) as i64),
        "pad: the planner's least displacement is not the runtime's for {p:?}"
    );
    let (in_len, out_len) = (s.iter().product(), out.iter().product());
    check(
        c,
        &d,
        &Runtime {
            in_len,
            out_len,
            reference: &|x| {
                let mut o = vec![T::default(); out_len];
                k::pad(&p, x, value, &mut o).expect("the two-buffer kernel takes the case");
                o
            },
            entry: &|buf, i, o| ov::pad(&p, buf, i, o, value),
            fits: &|i, o| ov::pad_fits(&p, i, o),
        },
    )
}

/// CONCATENATION of one to three inputs, the first over the output.
fn concatenation<T: Elem>(c: &mut Cx<'_, '_>, dtype: DType) -> Below {
    let s = shape(c);
    let r = s.len();
    let axis = c.pick(0, r - 1);
    let n = c.pick(1, 3);
    let shapes: Vec<Vec<usize>> = (0..n)
        .map(|_| {
            let mut t = s.clone();
            t[axis] = c.pick(1, 3);
            t
        })
        .collect();
    let mut out = s.clone();
    out[axis] = shapes.iter().map(|t| t[axis]).sum();
    let outer: usize = s[..axis].iter().product();
    let inners: Vec<usize> = shapes.iter().map(|t| t[axis..].iter().product()).collect();
    // The axis counted from the end, sometimes.
    let axis_option = if c.flag() {
        axis as i32 - r as i32
    } else {
        axis as i32
    };
    let mut m = OneOp::new();
    let inputs: Vec<i32> = shapes.iter().map(|t| m.tensor(dtype, t, true)).collect();
    let y = m.tensor(dtype, &out, false);
    let op = c.op();
    let d = declare(
        c.entry,
        m.finish(
            op,
            &inputs,
            y,
            OpOptions::Concatenation {
                axis: axis_option,
                activation: Activation::None,
            },
        ),
    );
    assert_eq!(
        d.pairing.map(|p| p.least),
        ov::concatenation_min_displacement(outer, &inners).map(|v| (v * T::BYTES) as i64),
        "concatenation: the planner's least displacement is not the runtime's"
    );
    let rest: Vec<Vec<T>> = inners[1..].iter().map(|&i| c.values(outer * i)).collect();
    let rest: Vec<&[T]> = rest.iter().map(Vec::as_slice).collect();
    let (in_len, out_len) = (outer * inners[0], out.iter().product());
    check(
        c,
        &d,
        &Runtime {
            in_len,
            out_len,
            reference: &|x| {
                let mut all = vec![x];
                all.extend(&rest);
                let mut o = vec![T::default(); out_len];
                k::concatenation(outer, &inners, &all, &mut o)
                    .expect("the two-buffer kernel takes the case");
                o
            },
            entry: &|buf, i, o| ov::concatenation(&(), buf, i, o, outer, &inners, &rest),
            fits: &|i, o| ov::concatenation_fits(outer, &inners, i, o),
        },
    )
}
