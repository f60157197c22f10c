//! What the build knows about each op kind, one module per kind: which tensors it reads and
//! writes, its options, the checks of its shapes, types and quantisation, TensorFlow Lite
//! Micro's `Prepare` computed at build time, and the tokens of its kernel call.
//!
//! [`kind`] maps every builtin code and custom op name stowplan knows to its module's
//! [`OpKind`]. A module is named as its kernel in `stowplan::kernels` (`runtime/src/kernels/`)
//! and its proof in `tests/conformance/`, after TFLM's kernel file (`conv.cc`, `pooling.cc`):
//! adding an op is adding those modules and one line of the table (`BUILTINS` or `CUSTOM`). The
//! driver, `codegen::invoke`, knows no op by name.
//!
//! Every formula of TFLM's (multiplier quantisation, activation ranges, padding, tables) lives
//! once, in [`crate::quant`] or in the module of the op that owns it, and is called from there.
//! Lowering an op checks what it reads before it computes anything: shapes against the data
//! that backs them, zero points before they are negated, channel counts against the filter
//! before a multiplier is made; arithmetic on model values is checked, and every failure is a
//! [`Refusal`] that names the tensor and the value.

mod activations;
mod add;
mod batch_matmul;
mod concatenation;
mod conv;
mod depthwise_conv;
mod dequantize;
mod detection_postprocess;
mod fully_connected;
mod logistic;
mod mul;
mod pad;
mod pooling;
mod quantize;
mod reduce;
mod reshape;
mod signal;
mod softmax;
mod svdf;
mod transpose;
mod transpose_conv;
mod unidirectional_sequence_lstm;

use std::fmt;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::graph::TensorInfo;
use crate::quant;
use crate::tflite::{Activation, BuiltinOp, DType, Model, Op, Opcode, Padding, Tensor};

/// Lowers an op to its kernel call.
pub type Lowering = fn(&Lower<'_>) -> Result<Call, Refusal>;

/// Everything the build knows about one op kind.
#[derive(Clone, Copy)]
pub struct OpKind {
    /// The module's name (`conv`): its kernel's in `stowplan::kernels`, its conformance file's.
    pub module: &'static str,
    /// The output is the input's bytes reinterpreted (RESHAPE and the like): generated `invoke`
    /// may give it its input's buffer when the input has no later reader.
    pub in_place: bool,
    /// The scratch buffers TFLM's reference kernel requests in its `Prepare`, in request order,
    /// in bytes (`None`: none, or shapes that kernel would refuse).
    pub tflm_scratch: fn(&Model, &Op) -> Option<Vec<u64>>,
    /// Lowers the op to its kernel call; `None` while the runtime has no kernel for the kind.
    pub lower: Option<Lowering>,
}

impl fmt::Debug for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpKind")
            .field("module", &self.module)
            .field("in_place", &self.in_place)
            .field("lower", &self.lower.is_some())
            .finish_non_exhaustive()
    }
}

/// No scratch.
fn no_scratch(_: &Model, _: &Op) -> Option<Vec<u64>> {
    None
}

/// An op kind with a kernel and no scratch.
const fn kernel(module: &'static str, lower: Lowering) -> OpKind {
    OpKind {
        module,
        in_place: false,
        tflm_scratch: no_scratch,
        lower: Some(lower),
    }
}

/// Builtin ops by code, each with its module.
const BUILTINS: &[(BuiltinOp, OpKind)] = &[
    (BuiltinOp::ADD, add::ADD),
    (BuiltinOp::AVERAGE_POOL_2D, pooling::AVERAGE_POOL_2D),
    (BuiltinOp::CONCATENATION, concatenation::CONCATENATION),
    (BuiltinOp::CONV_2D, conv::CONV_2D),
    (
        BuiltinOp::DEPTHWISE_CONV_2D,
        depthwise_conv::DEPTHWISE_CONV_2D,
    ),
    (BuiltinOp::DEQUANTIZE, dequantize::DEQUANTIZE),
    (BuiltinOp::FULLY_CONNECTED, fully_connected::FULLY_CONNECTED),
    (BuiltinOp::LOGISTIC, logistic::LOGISTIC),
    (BuiltinOp::MAX_POOL_2D, pooling::MAX_POOL_2D),
    (BuiltinOp::MUL, mul::MUL),
    (BuiltinOp::RELU, activations::RELU),
    (BuiltinOp::RESHAPE, reshape::RESHAPE),
    (BuiltinOp::SOFTMAX, softmax::SOFTMAX),
    (BuiltinOp::SVDF, svdf::SVDF),
    (BuiltinOp::PAD, pad::PAD),
    (BuiltinOp::TRANSPOSE, transpose::TRANSPOSE),
    (BuiltinOp::MEAN, reduce::MEAN),
    (BuiltinOp::SQUEEZE, reshape::SQUEEZE),
    (BuiltinOp::EXPAND_DIMS, reshape::EXPAND_DIMS),
    (BuiltinOp::RELU6, activations::RELU6),
    (BuiltinOp::QUANTIZE, quantize::QUANTIZE),
    (
        BuiltinOp::UNIDIRECTIONAL_SEQUENCE_LSTM,
        unidirectional_sequence_lstm::UNIDIRECTIONAL_SEQUENCE_LSTM,
    ),
    (BuiltinOp::BATCH_MATMUL, batch_matmul::BATCH_MATMUL),
    (BuiltinOp::TRANSPOSE_CONV, transpose_conv::TRANSPOSE_CONV),
];

/// Custom ops by custom code, each with its module.
const CUSTOM: &[(&str, OpKind)] = &[
    ("SignalRfft", signal::RFFT),
    (
        "TFLite_Detection_PostProcess",
        detection_postprocess::DETECTION_POSTPROCESS,
    ),
];

/// The module of an op kind, if stowplan knows it.
#[must_use]
pub fn kind(opcode: &Opcode) -> Option<&'static OpKind> {
    match opcode {
        Opcode::Builtin(b) => BUILTINS.iter().find(|(c, _)| c == b).map(|(_, k)| k),
        Opcode::Custom(name) => CUSTOM.iter().find(|(c, _)| c == name).map(|(_, k)| k),
    }
}

/// Why an op has no kernel call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The runtime has no kernel for this op, or for these types or options: a fallback can run
    /// it.
    Unsupported(String),
    /// The op cannot run as the model has it (TFLM's `Prepare` fails too, or the file does not
    /// back what the op needs); the message names the tensor or option and the value.
    Invalid(String),
}

impl Refusal {
    /// The message.
    #[must_use]
    pub fn message(&self) -> &str {
        match self {
            Self::Unsupported(m) | Self::Invalid(m) => m,
        }
    }
}

/// `Err(Refusal::Unsupported(..))`.
fn unsupported<T>(why: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::Unsupported(why.into()))
}

/// `Err(Refusal::Invalid(..))`.
fn invalid<T>(why: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::Invalid(why.into()))
}

/// An op's kernel call, for the driver: the parameter constant (if any) and the statement that
/// runs it, given the names of its views (`i0`.., `o0`..).
#[derive(Clone, Debug)]
pub struct Call {
    /// `pub const OP_N: .. = ..;`, TFLM's `Prepare` as constants.
    pub params: Option<TokenStream>,
    /// The kernel call.
    pub body: TokenStream,
    /// Inputs the call reads (the others are bound to `_`).
    pub reads: Vec<usize>,
}

/// What lowering an op can see: the model, every tensor's planned shape, the file, the op.
#[derive(Clone, Copy, Debug)]
pub struct Lower<'a> {
    /// The model.
    pub model: &'a Model,
    /// Every tensor's planning view (shapes with overrides), by tensor id.
    pub tensors: &'a [TensorInfo],
    /// The model file (constant data).
    pub bytes: &'a [u8],
    /// The op.
    pub op: &'a Op,
    /// The runtime crate's path.
    pub rt: &'a TokenStream,
    /// The name of the op's parameter constant (`OP_3`).
    pub params: &'a syn::Ident,
}

impl<'a> Lower<'a> {
    /// `#rt::kernels`.
    fn k(&self) -> TokenStream {
        let rt = self.rt;
        quote!(#rt::kernels)
    }

    /// The builtin's name (`CONV_2D`), or the custom code.
    fn name(&self) -> String {
        self.op.opcode.to_string()
    }

    fn tensor(&self, index: Option<crate::tflite::TensorIndex>) -> Option<&'a Tensor> {
        self.model.tensor(self.op.subgraph, index?)
    }

    /// Input `i`, which the op requires.
    fn input(&self, i: usize) -> Result<&'a Tensor, Refusal> {
        match self.op.inputs.get(i) {
            Some(Some(t)) => self
                .tensor(Some(*t))
                .ok_or_else(|| Refusal::Invalid(format!("input {i} does not exist"))),
            Some(None) => invalid(format!(
                "input {i} is omitted, and {} needs it",
                self.name()
            )),
            None => invalid(format!(
                "{} has {} inputs, {} needs input {i}",
                self.name(),
                self.op.inputs.len(),
                self.name()
            )),
        }
    }

    /// Input `i` if present (optional inputs, such as a bias).
    fn optional_input(&self, i: usize) -> Option<&'a Tensor> {
        self.tensor(self.op.inputs.get(i).copied().flatten())
    }

    /// `Some(i<i>)` or `None` for an optional input's view.
    fn optional_view(&self, i: usize) -> TokenStream {
        if self.optional_input(i).is_some() {
            let v = format_ident!("i{i}");
            quote!(::core::option::Option::Some(#v))
        } else {
            quote!(::core::option::Option::None)
        }
    }

    /// Output `i`.
    fn output(&self, i: usize) -> Result<&'a Tensor, Refusal> {
        self.tensor(self.op.outputs.get(i).copied())
            .ok_or_else(|| Refusal::Invalid(format!("{} has no output {i}", self.name())))
    }

    /// The planned shape (overrides applied) of a tensor.
    fn shape(&self, t: &Tensor) -> Result<Vec<usize>, Refusal> {
        let info = self
            .tensors
            .get(t.id.get())
            .ok_or_else(|| Refusal::Invalid(format!("{} has no planning view", t.desc())))?;
        info.shape
            .iter()
            .map(|&d| {
                usize::try_from(d).map_err(|_| {
                    Refusal::Unsupported(format!(
                        "{} has a dynamic shape, which the kernels do not take",
                        t.desc()
                    ))
                })
            })
            .collect()
    }

    /// The shape right-aligned into `N` dimensions, padded with leading 1s.
    fn shape_n<const N: usize>(&self, t: &Tensor) -> Result<[usize; N], Refusal> {
        let s = self.shape(t)?;
        if s.len() > N {
            return unsupported(format!(
                "{} has {} dimensions; {} takes at most {N}",
                t.desc(),
                s.len(),
                self.name()
            ));
        }
        let mut out = [1usize; N];
        for (o, d) in out.iter_mut().skip(N - s.len()).zip(&s) {
            *o = *d;
        }
        Ok(out)
    }

    /// The element count of a tensor, checked.
    fn elements(&self, t: &Tensor) -> Result<usize, Refusal> {
        product(&self.shape(t)?)
            .ok_or_else(|| Refusal::Invalid(format!("{}'s element count overflows", t.desc())))
    }

    /// Per-tensor scale and zero point (TFLM's `params.scale` and `params.zero_point`: the
    /// first of each). The zero point is a value of the tensor's type (checked when the model
    /// was read), so it fits `i32`.
    fn quant(&self, t: &Tensor) -> Result<(f32, i32), Refusal> {
        let q = t
            .quantization
            .as_ref()
            .filter(|q| !q.scale.is_empty())
            .ok_or_else(|| {
                Refusal::Invalid(format!(
                    "{} has no quantisation, and {} on {} needs it",
                    t.desc(),
                    self.name(),
                    t.dtype
                ))
            })?;
        let scale = q.scale.first().copied().unwrap_or(0.0);
        let zp = q.zero_point.first().copied().unwrap_or(0);
        let zp = i32::try_from(zp).map_err(|_| {
            Refusal::Invalid(format!("{} has zero point {zp}, outside int32", t.desc()))
        })?;
        if !(scale.is_finite() && scale > 0.0) {
            return invalid(format!(
                "{} has scale {scale}; a scale must be positive and finite",
                t.desc()
            ));
        }
        Ok((scale, zp))
    }

    /// Minus a tensor's zero point (TFLM's `input_offset`), checked.
    fn offset(&self, t: &Tensor) -> Result<i32, Refusal> {
        let (_, zp) = self.quant(t)?;
        zp.checked_neg().ok_or_else(|| {
            Refusal::Invalid(format!(
                "{} has zero point {zp}, whose negation overflows int32",
                t.desc()
            ))
        })
    }

    /// All scales of a tensor (per-channel or one), each positive and finite.
    fn scales(&self, t: &'a Tensor) -> Result<&'a [f32], Refusal> {
        let q = t
            .quantization
            .as_ref()
            .ok_or_else(|| Refusal::Invalid(format!("{} has no quantisation", t.desc())))?;
        if q.scale.is_empty() {
            return invalid(format!("{} has no scales", t.desc()));
        }
        if let Some(s) = q.scale.iter().find(|s| !(s.is_finite() && **s > 0.0)) {
            return invalid(format!(
                "{} has scale {s}; a scale must be positive and finite",
                t.desc()
            ));
        }
        Ok(&q.scale)
    }

    /// The data of a constant tensor, checked to hold its whole shape.
    fn constant_data(&self, t: &Tensor) -> Result<&'a [u8], Refusal> {
        self.backed(t)?.ok_or_else(|| {
            Refusal::Unsupported(format!(
                "{} must be a constant for the kernel; it has no data",
                t.desc()
            ))
        })
    }

    /// A constant's data (`None` for a tensor in the arena, whose slot the plan sizes from its
    /// shape), checked to hold exactly its shape: a kernel is never given a shape its data does
    /// not back.
    fn backed(&self, t: &Tensor) -> Result<Option<&'a [u8]>, Refusal> {
        let Some(range) = self
            .model
            .buffers
            .get(t.buffer.get())
            .and_then(|b| b.data.clone())
        else {
            return Ok(None);
        };
        let data = self.bytes.get(range).ok_or_else(|| {
            Refusal::Invalid(format!("{}'s data lies outside the file", t.desc()))
        })?;
        let need = if t.dtype == DType::Int4 {
            // TFLM packs int4 constants two to a byte (low nibble first), the last byte
            // half-used for an odd count.
            self.elements(t)
                .ok()
                .and_then(|n| u64::try_from(n.div_ceil(2)).ok())
        } else {
            t.dtype
                .element_bytes()
                .and_then(|e| u64::try_from(self.elements(t).ok()?).ok()?.checked_mul(e))
        };
        match need {
            Some(n) if n == data.len() as u64 => Ok(Some(data)),
            _ => invalid(format!(
                "{} has shape {:?} of {} but its buffer holds {} bytes",
                t.desc(),
                t.shape,
                t.dtype,
                data.len()
            )),
        }
    }

    /// A tensor must have type `dtype`.
    fn expect_type(&self, t: &Tensor, dtype: DType, role: &str) -> Result<(), Refusal> {
        if t.dtype == dtype {
            Ok(())
        } else {
            invalid(format!(
                "{} ({role} of {}) is {}; {} with these inputs needs {dtype}",
                t.desc(),
                self.name(),
                t.dtype,
                self.name()
            ))
        }
    }

    /// The constant data of an int32 or int64 tensor, as integers.
    fn const_ints(&self, t: &Tensor) -> Result<Vec<i64>, Refusal> {
        let data = self.constant_data(t)?;
        Ok(match t.dtype {
            DType::Int32 => data
                .chunks_exact(4)
                .filter_map(|c| <[u8; 4]>::try_from(c).ok())
                .map(|c| i64::from(i32::from_le_bytes(c)))
                .collect(),
            DType::Int64 => data
                .chunks_exact(8)
                .filter_map(|c| <[u8; 8]>::try_from(c).ok())
                .map(i64::from_le_bytes)
                .collect(),
            other => {
                return invalid(format!("{} is {other}, not int32 or int64", t.desc()));
            }
        })
    }

    /// The input and output types must be the same.
    fn same_type(&self, a: &Tensor, b: &Tensor) -> Result<(), Refusal> {
        if a.dtype == b.dtype {
            Ok(())
        } else {
            invalid(format!(
                "{} is {} but {} is {}; {} needs the same type",
                a.desc(),
                a.dtype,
                b.desc(),
                b.dtype,
                self.name()
            ))
        }
    }

    /// The types this op's kernel does not take.
    fn no_kernel_for(&self, t: &Tensor) -> Refusal {
        Refusal::Unsupported(format!(
            "the runtime has no {} kernel for {} ({})",
            self.name(),
            t.dtype,
            t.desc()
        ))
    }
}

/// The product of dimensions, checked.
fn product(dims: &[usize]) -> Option<usize> {
    dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

fn usize_lits(v: &[usize]) -> TokenStream {
    let items = v.iter().map(|&d| Literal::usize_unsuffixed(d));
    quote!([#(#items),*])
}

fn i32_lit(v: i32) -> Literal {
    Literal::i32_unsuffixed(v)
}

fn f32_lit(v: f32) -> Result<TokenStream, Refusal> {
    if !v.is_finite() {
        return invalid(format!("a parameter is {v}"));
    }
    let l = Literal::f32_suffixed(v);
    Ok(quote!(#l))
}

/// `Requant { multiplier, shift }` tokens.
fn requant(rt: &TokenStream, (multiplier, shift): (i32, i32)) -> TokenStream {
    let (m, s) = (i32_lit(multiplier), i32_lit(shift));
    quote!(#rt::kernels::Requant { multiplier: #m, shift: #s })
}

/// A fused activation the kernels apply.
fn fused(act: Activation) -> Result<quant::FusedActivation, Refusal> {
    Ok(match act {
        Activation::None => quant::FusedActivation::None,
        Activation::Relu => quant::FusedActivation::Relu,
        Activation::Relu6 => quant::FusedActivation::Relu6,
        Activation::ReluN1To1 => quant::FusedActivation::ReluN1To1,
        other => return unsupported(format!("the fused activation {other:?}")),
    })
}

/// TFLM's `CalculateActivationRangeQuantized` for an int8 output.
fn act_range_s8(act: Activation, scale: f32, zp: i32) -> Result<(i32, i32), Refusal> {
    quant::activation_range_s8(fused(act)?, scale, zp).ok_or_else(|| {
        Refusal::Invalid(format!(
            "the {act:?} range at output scale {scale} overflows int32 (TFLM's Prepare fails)"
        ))
    })
}

/// TFLM's `CalculateActivationRange` for floats.
fn act_range_f32(act: Activation) -> Result<(f32, f32), Refusal> {
    Ok(quant::activation_range_f32(fused(act)?))
}

/// TFLM's `ComputePaddingHeightWidth`: the padding before, `(height, width)`.
fn padding_hw(
    padding: Padding,
    stride: (usize, usize),
    dilation: (usize, usize),
    input: (usize, usize),
    filter: (usize, usize),
) -> Result<(usize, usize), Refusal> {
    let kind = match padding {
        Padding::Same => quant::PaddingKind::Same,
        Padding::Valid => quant::PaddingKind::Valid,
        Padding::Unknown(c) => {
            return invalid(format!("padding code {c} is neither SAME nor VALID"));
        }
    };
    let i32_of = |v: usize| {
        i32::try_from(v).map_err(|_| Refusal::Invalid(format!("dimension {v} exceeds int32")))
    };
    let p = quant::compute_padding_height_width(
        i32_of(stride.0)?,
        i32_of(stride.1)?,
        i32_of(dilation.0)?,
        i32_of(dilation.1)?,
        i32_of(input.0)?,
        i32_of(input.1)?,
        i32_of(filter.0)?,
        i32_of(filter.1)?,
        kind,
    );
    let u = |v: i32| usize::try_from(v).map_err(|_| Refusal::Invalid(format!("padding {v}")));
    Ok((u(p.height)?, u(p.width)?))
}

/// An option that must be a positive integer (strides, dilations, filter sizes).
fn positive(v: i32, what: &str) -> Result<usize, Refusal> {
    usize::try_from(v)
        .ok()
        .filter(|&v| v > 0)
        .ok_or_else(|| Refusal::Invalid(format!("{what} is {v}; it must be positive")))
}

/// An axis of a rank-`rank` tensor, negative counting from the end.
fn axis(axis: i64, rank: usize) -> Result<usize, Refusal> {
    let r = i64::try_from(rank).unwrap_or(i64::MAX);
    let a = if axis < 0 {
        axis.checked_add(r)
    } else {
        Some(axis)
    };
    a.and_then(|a| usize::try_from(a).ok())
        .filter(|&a| a < rank)
        .ok_or_else(|| Refusal::Invalid(format!("axis {axis} of a rank-{rank} tensor")))
}

/// A tensor's dimensions, `None` if one is negative.
fn dims(t: &Tensor) -> Option<Vec<u64>> {
    t.shape.iter().map(|&d| u64::try_from(d).ok()).collect()
}

/// Input `i` of `op`, if present.
fn input<'m>(model: &'m Model, op: &Op, i: usize) -> Option<&'m Tensor> {
    model.tensor(op.subgraph, (*op.inputs.get(i)?)?)
}

/// Output `i` of `op`.
fn output<'m>(model: &'m Model, op: &Op, i: usize) -> Option<&'m Tensor> {
    model.tensor(op.subgraph, *op.outputs.get(i)?)
}

/// The scratch requests of TFLM's reference kernel for `op`, in request order (empty for ops
/// that request none or whose tensors do not have the shapes the kernel requires).
#[must_use]
pub fn tflm_scratch(model: &Model, op: &Op) -> Vec<u64> {
    kind(&op.opcode)
        .and_then(|k| (k.tflm_scratch)(model, op))
        .unwrap_or_default()
}
