//! Reading a `.tflite` file: a verified flatbuffer view, then validation of its meaning.
//!
//! [`read_model`] first runs the flatbuffers verifier with explicit limits (so no accessor can
//! read out of bounds and nothing is allocated in proportion to a count the bytes do not hold),
//! then copies what planning needs into owned types, checking every index on the way: opcode,
//! tensor, buffer and subgraph indices, control-flow options, the offline plan. Shapes, types
//! and sizes are checked by [`crate::graph`], where shape overrides apply.

use std::fmt;
use std::ops::Range;

use crate::error::{OpDesc, ReadModelError, TensorDesc};
use crate::schema::tflite as fb;

/// Largest model file read: 2 GiB, the limit of the flatbuffer format.
pub const MAX_MODEL_BYTES: usize = (1 << 31) - 1;

/// Name of the metadata entry holding an offline plan.
pub const OFFLINE_PLAN_METADATA: &str = "OfflineMemoryAllocation";

macro_rules! index_newtype {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            /// The index as a `usize`.
            #[must_use]
            pub const fn get(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
    };
}

index_newtype!(
    /// Index of a subgraph in `Model.subgraphs`; 0 is the main subgraph.
    SubgraphIndex
);
index_newtype!(
    /// Index of a tensor within its subgraph's `tensors`.
    TensorIndex
);
index_newtype!(
    /// Index of an op within its subgraph's `operators` (execution order).
    OpIndex
);
index_newtype!(
    /// Index of a buffer in `Model.buffers`; 0 is the empty sentinel.
    BufferIndex
);
index_newtype!(
    /// Index of a tensor over all subgraphs, in subgraph order (the order of TFLite Micro's
    /// allocation info and of an offline plan).
    TensorId
);

/// The element type of a tensor (`TensorType` in the format).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
#[allow(missing_docs)]
pub enum DType {
    Float32,
    Float16,
    Int32,
    Uint8,
    Int64,
    String,
    Bool,
    Int16,
    Complex64,
    Int8,
    Float64,
    Complex128,
    Uint64,
    Resource,
    Variant,
    Uint32,
    Uint16,
    Int4,
    Bfloat16,
    Int2,
    Uint4,
    Float8E4m3fn,
    Float8E5m2,
    /// A type code this version does not know.
    Unknown(i8),
}

impl DType {
    /// The type for a `TensorType` code.
    #[must_use]
    pub const fn from_code(code: i8) -> Self {
        match code {
            0 => Self::Float32,
            1 => Self::Float16,
            2 => Self::Int32,
            3 => Self::Uint8,
            4 => Self::Int64,
            5 => Self::String,
            6 => Self::Bool,
            7 => Self::Int16,
            8 => Self::Complex64,
            9 => Self::Int8,
            10 => Self::Float64,
            11 => Self::Complex128,
            12 => Self::Uint64,
            13 => Self::Resource,
            14 => Self::Variant,
            15 => Self::Uint32,
            16 => Self::Uint16,
            17 => Self::Int4,
            18 => Self::Bfloat16,
            19 => Self::Int2,
            20 => Self::Uint4,
            21 => Self::Float8E4m3fn,
            22 => Self::Float8E5m2,
            other => Self::Unknown(other),
        }
    }

    /// Bytes per element in the arena, as TensorFlow Lite Micro counts them: packed 4- and 2-bit
    /// types are unpacked to one byte per element (TFLM does this for INT4), a RESOURCE handle is
    /// 4 bytes. `None` for types with no fixed size (STRING, VARIANT, unknown codes).
    #[must_use]
    pub const fn element_bytes(self) -> Option<u64> {
        Some(match self {
            Self::Bool | Self::Int8 | Self::Uint8 | Self::Int4 | Self::Int2 | Self::Uint4 => 1,
            Self::Float8E4m3fn | Self::Float8E5m2 => 1,
            Self::Float16 | Self::Bfloat16 | Self::Int16 | Self::Uint16 => 2,
            Self::Float32 | Self::Int32 | Self::Uint32 | Self::Resource => 4,
            Self::Int64 | Self::Uint64 | Self::Float64 | Self::Complex64 => 8,
            Self::Complex128 => 16,
            Self::String | Self::Variant | Self::Unknown(_) => return None,
        })
    }

    /// The lowercase name used in reports and JSON (`int8`, `float32`, ...).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Float32 => "float32",
            Self::Float16 => "float16",
            Self::Int32 => "int32",
            Self::Uint8 => "uint8",
            Self::Int64 => "int64",
            Self::String => "string",
            Self::Bool => "bool",
            Self::Int16 => "int16",
            Self::Complex64 => "complex64",
            Self::Int8 => "int8",
            Self::Float64 => "float64",
            Self::Complex128 => "complex128",
            Self::Uint64 => "uint64",
            Self::Resource => "resource",
            Self::Variant => "variant",
            Self::Uint32 => "uint32",
            Self::Uint16 => "uint16",
            Self::Int4 => "int4",
            Self::Bfloat16 => "bfloat16",
            Self::Int2 => "int2",
            Self::Uint4 => "uint4",
            Self::Float8E4m3fn => "float8_e4m3fn",
            Self::Float8E5m2 => "float8_e5m2",
            Self::Unknown(_) => "unknown",
        }
    }

    /// Every known type, in code order.
    pub const ALL: [DType; 23] = [
        Self::Float32,
        Self::Float16,
        Self::Int32,
        Self::Uint8,
        Self::Int64,
        Self::String,
        Self::Bool,
        Self::Int16,
        Self::Complex64,
        Self::Int8,
        Self::Float64,
        Self::Complex128,
        Self::Uint64,
        Self::Resource,
        Self::Variant,
        Self::Uint32,
        Self::Uint16,
        Self::Int4,
        Self::Bfloat16,
        Self::Int2,
        Self::Uint4,
        Self::Float8E4m3fn,
        Self::Float8E5m2,
    ];

    /// The `TensorType` code.
    #[must_use]
    pub fn code(self) -> i8 {
        match self {
            Self::Unknown(code) => code,
            known => Self::ALL
                .iter()
                .position(|d| *d == known)
                .and_then(|i| i8::try_from(i).ok())
                .unwrap_or(-1),
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unknown(code) => write!(f, "unknown type {code}"),
            known => f.write_str(known.name()),
        }
    }
}

/// A builtin op code (`BuiltinOperator` in the format).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BuiltinOp(pub i32);

impl BuiltinOp {
    /// `ADD`.
    pub const ADD: Self = Self(0);
    /// `CONCATENATION`.
    pub const CONCATENATION: Self = Self(2);
    /// `CONV_2D`.
    pub const CONV_2D: Self = Self(3);
    /// `FULLY_CONNECTED`.
    pub const FULLY_CONNECTED: Self = Self(9);
    /// `RELU`.
    pub const RELU: Self = Self(19);
    /// `RESHAPE`.
    pub const RESHAPE: Self = Self(22);
    /// `CUSTOM`: the op is named by its `custom_code`.
    pub const CUSTOM: Self = Self(32);
    /// `IF`: runs its then or else subgraph.
    pub const IF: Self = Self(118);
    /// `WHILE`: runs its cond and body subgraphs.
    pub const WHILE: Self = Self(119);
    /// `CALL_ONCE`: runs its init subgraph once.
    pub const CALL_ONCE: Self = Self(129);
    /// `VAR_HANDLE`: its output is a resource handle, never planned.
    pub const VAR_HANDLE: Self = Self(142);
    /// `READ_VARIABLE`.
    pub const READ_VARIABLE: Self = Self(143);
    /// `ASSIGN_VARIABLE`.
    pub const ASSIGN_VARIABLE: Self = Self(144);

    /// The format's name for the code (`CONV_2D`), if this version knows it.
    #[must_use]
    pub fn name(self) -> Option<&'static str> {
        fb::BuiltinOperator(self.0).variant_name()
    }

    /// The code for a name such as `CONV_2D`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        fb::BuiltinOperator::ENUM_VALUES
            .iter()
            .find(|op| op.variant_name() == Some(name))
            .map(|op| Self(op.0))
    }
}

impl fmt::Display for BuiltinOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "BUILTIN_{}", self.0),
        }
    }
}

/// What an op does: a builtin code, or a custom op named by its custom code.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Opcode {
    /// A builtin op.
    Builtin(BuiltinOp),
    /// A custom op (`CUSTOM` with a `custom_code`), such as `ethos-u` or `SignalRfft`.
    Custom(String),
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Builtin(op) => op.fmt(f),
            Self::Custom(code) => f.write_str(code),
        }
    }
}

/// A subgraph: a list of tensors and ops in execution order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subgraph {
    /// Its index.
    pub index: SubgraphIndex,
    /// Its name (may be empty).
    pub name: String,
    /// Global id of its tensor 0; its tensors are `first_tensor .. first_tensor + tensor_count`.
    pub first_tensor: usize,
    /// Number of tensors.
    pub tensor_count: usize,
    /// Position of its op 0 in [`Model::ops`].
    pub first_op: usize,
    /// Number of ops.
    pub op_count: usize,
    /// Its input tensors.
    pub inputs: Vec<TensorIndex>,
    /// Its output tensors.
    pub outputs: Vec<TensorIndex>,
}

/// A tensor as the file declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    /// Its index over all subgraphs.
    pub id: TensorId,
    /// Its subgraph.
    pub subgraph: SubgraphIndex,
    /// Its index within the subgraph.
    pub index: TensorIndex,
    /// Its name (may be empty).
    pub name: String,
    /// Its element type.
    pub dtype: DType,
    /// `shape` (a scalar has none); `-1` marks an unknown dimension.
    pub shape: Vec<i32>,
    /// `shape_signature`, if present: `-1` marks a dimension unknown at conversion.
    pub shape_signature: Option<Vec<i32>>,
    /// Its buffer.
    pub buffer: BufferIndex,
    /// Whether it holds state kept across invocations.
    pub is_variable: bool,
    /// Whether its buffer holds data (a weight or other constant): constants are never planned.
    pub is_constant: bool,
    /// Its affine quantisation, if the file gives scales.
    pub quantization: Option<Quantization>,
}

/// A tensor's affine quantisation: `real = scale × (q − zero_point)`, one pair per tensor or
/// one per channel along `quantized_dimension`.
#[derive(Clone, Debug, Default)]
pub struct Quantization {
    /// Scales.
    pub scale: Vec<f32>,
    /// Zero points (as many as scales, or none for 0).
    pub zero_point: Vec<i64>,
    /// The channel dimension of per-channel quantisation.
    pub quantized_dimension: i32,
}

impl PartialEq for Quantization {
    fn eq(&self, other: &Self) -> bool {
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        bits(&self.scale) == bits(&other.scale)
            && self.zero_point == other.zero_point
            && self.quantized_dimension == other.quantized_dimension
    }
}

impl Eq for Quantization {}

/// `Padding` of convolutions and pools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Padding {
    /// Output size `ceil(in / stride)`, padded evenly (the extra row/column at the end).
    Same,
    /// No padding.
    Valid,
    /// A code this version does not know.
    Unknown(i8),
}

/// A fused activation function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// None.
    None,
    /// `max(0, x)`.
    Relu,
    /// Clamp to `[-1, 1]`.
    ReluN1To1,
    /// Clamp to `[0, 6]`.
    Relu6,
    /// `tanh`.
    Tanh,
    /// Sign bit.
    SignBit,
    /// A code this version does not know.
    Unknown(i8),
}

/// The builtin options stowplan reads, by op.
#[derive(Clone, Debug, PartialEq, Default)]
#[allow(missing_docs)] // the fields are the format's, named as there
pub enum OpOptions {
    /// No options, or options of a type stowplan does not read.
    #[default]
    None,
    Conv2D {
        padding: Padding,
        stride_w: i32,
        stride_h: i32,
        dilation_w: i32,
        dilation_h: i32,
        activation: Activation,
    },
    DepthwiseConv2D {
        padding: Padding,
        stride_w: i32,
        stride_h: i32,
        depth_multiplier: i32,
        dilation_w: i32,
        dilation_h: i32,
        activation: Activation,
    },
    Pool2D {
        padding: Padding,
        stride_w: i32,
        stride_h: i32,
        filter_w: i32,
        filter_h: i32,
        activation: Activation,
    },
    FullyConnected {
        activation: Activation,
        keep_num_dims: bool,
        /// `weights_format` other than `DEFAULT`.
        shuffled_weights: bool,
    },
    Softmax {
        beta: f32,
    },
    Concatenation {
        axis: i32,
        activation: Activation,
    },
    Add {
        activation: Activation,
    },
    Mul {
        activation: Activation,
    },
    Reducer {
        keep_dims: bool,
    },
}

// Only `Softmax::beta` is a float; a NaN beta is a model no kernel runs.
impl Eq for OpOptions {}

impl Padding {
    fn from_fb(p: fb::Padding) -> Self {
        match p {
            fb::Padding::SAME => Self::Same,
            fb::Padding::VALID => Self::Valid,
            other => Self::Unknown(other.0),
        }
    }
}

impl Activation {
    fn from_fb(a: fb::ActivationFunctionType) -> Self {
        match a.0 {
            0 => Self::None,
            1 => Self::Relu,
            2 => Self::ReluN1To1,
            3 => Self::Relu6,
            4 => Self::Tanh,
            5 => Self::SignBit,
            other => Self::Unknown(other),
        }
    }
}

fn op_options(o: &fb::Operator<'_>) -> OpOptions {
    if let Some(x) = o.builtin_options_as_conv_2_doptions() {
        return OpOptions::Conv2D {
            padding: Padding::from_fb(x.padding()),
            stride_w: x.stride_w(),
            stride_h: x.stride_h(),
            dilation_w: x.dilation_w_factor(),
            dilation_h: x.dilation_h_factor(),
            activation: Activation::from_fb(x.fused_activation_function()),
        };
    }
    if let Some(x) = o.builtin_options_as_depthwise_conv_2_doptions() {
        return OpOptions::DepthwiseConv2D {
            padding: Padding::from_fb(x.padding()),
            stride_w: x.stride_w(),
            stride_h: x.stride_h(),
            depth_multiplier: x.depth_multiplier(),
            dilation_w: x.dilation_w_factor(),
            dilation_h: x.dilation_h_factor(),
            activation: Activation::from_fb(x.fused_activation_function()),
        };
    }
    if let Some(x) = o.builtin_options_as_pool_2_doptions() {
        return OpOptions::Pool2D {
            padding: Padding::from_fb(x.padding()),
            stride_w: x.stride_w(),
            stride_h: x.stride_h(),
            filter_w: x.filter_width(),
            filter_h: x.filter_height(),
            activation: Activation::from_fb(x.fused_activation_function()),
        };
    }
    if let Some(x) = o.builtin_options_as_fully_connected_options() {
        return OpOptions::FullyConnected {
            activation: Activation::from_fb(x.fused_activation_function()),
            keep_num_dims: x.keep_num_dims(),
            shuffled_weights: x.weights_format() != fb::FullyConnectedOptionsWeightsFormat::DEFAULT,
        };
    }
    if let Some(x) = o.builtin_options_as_softmax_options() {
        return OpOptions::Softmax { beta: x.beta() };
    }
    if let Some(x) = o.builtin_options_as_concatenation_options() {
        return OpOptions::Concatenation {
            axis: x.axis(),
            activation: Activation::from_fb(x.fused_activation_function()),
        };
    }
    if let Some(x) = o.builtin_options_as_add_options() {
        return OpOptions::Add {
            activation: Activation::from_fb(x.fused_activation_function()),
        };
    }
    if let Some(x) = o.builtin_options_as_mul_options() {
        return OpOptions::Mul {
            activation: Activation::from_fb(x.fused_activation_function()),
        };
    }
    if let Some(x) = o.builtin_options_as_reducer_options() {
        return OpOptions::Reducer {
            keep_dims: x.keep_dims(),
        };
    }
    OpOptions::None
}

impl Tensor {
    /// How errors and reports name the tensor.
    #[must_use]
    pub fn desc(&self) -> TensorDesc {
        TensorDesc {
            subgraph: self.subgraph,
            index: self.index,
            name: self.name.clone(),
        }
    }
}

/// An op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    /// Its subgraph.
    pub subgraph: SubgraphIndex,
    /// Its index in the subgraph (execution order).
    pub index: OpIndex,
    /// What it does.
    pub opcode: Opcode,
    /// Input tensors of its subgraph; `None` for an omitted optional input (`-1`).
    pub inputs: Vec<Option<TensorIndex>>,
    /// Output tensors of its subgraph.
    pub outputs: Vec<TensorIndex>,
    /// Intermediate tensors (used by some LSTM kernels; TFLite Micro gives them no lifetime).
    pub intermediates: Vec<TensorIndex>,
    /// Subgraphs the op runs, in TFLite Micro's order: IF then, else; WHILE cond, body;
    /// CALL_ONCE init.
    pub callees: Vec<SubgraphIndex>,
    /// Its builtin options, where stowplan reads them.
    pub options: OpOptions,
}

impl Op {
    /// How errors and reports name the op.
    #[must_use]
    pub fn desc(&self) -> OpDesc {
        OpDesc {
            subgraph: self.subgraph,
            index: self.index,
            opcode: self.opcode.to_string(),
        }
    }
}

/// A buffer of the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferInfo {
    /// Where its `data` lies in the file, if it has any.
    pub data: Option<Range<usize>>,
    /// `offset`: position of data stored after the flatbuffer (large models), 0 if unused.
    pub offset: u64,
    /// `size` of data stored after the flatbuffer, 0 if unused.
    pub size: u64,
}

/// A metadata entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetadataEntry {
    /// Its name.
    pub name: String,
    /// Its buffer.
    pub buffer: BufferIndex,
}

/// A model, read and validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    /// The schema version the file declares.
    pub version: u32,
    /// Its description, if any.
    pub description: Option<String>,
    /// Its subgraphs; there is at least one.
    pub subgraphs: Vec<Subgraph>,
    /// Tensors of all subgraphs, in subgraph order: `tensors[id]` has id `id`.
    pub tensors: Vec<Tensor>,
    /// Ops of all subgraphs, in subgraph order.
    pub ops: Vec<Op>,
    /// Its buffers.
    pub buffers: Vec<BufferInfo>,
    /// Its metadata entries.
    pub metadata: Vec<MetadataEntry>,
    /// The `OfflineMemoryAllocation` plan: one entry per tensor id, `None` = plan online.
    pub offline_plan: Option<Vec<Option<u64>>>,
}

impl Model {
    /// The tensors of subgraph `subgraph`.
    #[must_use]
    pub fn subgraph_tensors(&self, subgraph: &Subgraph) -> &[Tensor] {
        self.tensors
            .get(subgraph.first_tensor..subgraph.first_tensor + subgraph.tensor_count)
            .unwrap_or(&[])
    }

    /// The ops of subgraph `subgraph`, in execution order.
    #[must_use]
    pub fn subgraph_ops(&self, subgraph: &Subgraph) -> &[Op] {
        self.ops
            .get(subgraph.first_op..subgraph.first_op + subgraph.op_count)
            .unwrap_or(&[])
    }

    /// The tensor `index` of `subgraph`, if both exist.
    #[must_use]
    pub fn tensor(&self, subgraph: SubgraphIndex, index: TensorIndex) -> Option<&Tensor> {
        let sg = self.subgraphs.get(subgraph.get())?;
        self.subgraph_tensors(sg).get(index.get())
    }
}

fn verifier_options(len: usize) -> flatbuffers::VerifierOptions {
    flatbuffers::VerifierOptions {
        max_depth: 64,
        // Every table takes at least 4 bytes; a model cannot hold more tables than that.
        max_tables: (len / 4).max(64),
        // Tables and vectors reached twice count twice: allow some sharing, not a blow-up.
        max_apparent_size: len.saturating_mul(4).clamp(1 << 20, 1 << 31),
        ignore_missing_null_terminator: false,
    }
}

/// Reads and validates a model.
///
/// # Errors
///
/// [`ReadModelError`] for a file that is not a TFLite flatbuffer, is malformed, or has an index
/// out of range (tensor, buffer, opcode, subgraph), a control-flow op without its options, or a
/// bad offline plan.
pub fn read_model(bytes: &[u8]) -> Result<Model, ReadModelError> {
    if bytes.len() > MAX_MODEL_BYTES {
        return Err(ReadModelError::TooLarge {
            bytes: bytes.len() as u64,
            limit: MAX_MODEL_BYTES as u64,
        });
    }
    if bytes.len() < 8 {
        return Err(ReadModelError::TooShort { bytes: bytes.len() });
    }
    if !fb::model_buffer_has_identifier(bytes) {
        let mut found = [0u8; 4];
        found.copy_from_slice(bytes.get(4..8).unwrap_or(&[0; 4]));
        return Err(ReadModelError::WrongIdentifier { found });
    }
    let model =
        fb::root_as_model_with_opts(&verifier_options(bytes.len()), bytes).map_err(|e| {
            ReadModelError::Malformed {
                reason: crate::error::describe_invalid(&e),
            }
        })?;

    let base = bytes.as_ptr() as usize;
    let buffers: Vec<BufferInfo> = model
        .buffers()
        .map(|v| {
            v.iter()
                .map(|b| BufferInfo {
                    data: b.data().filter(|d| !d.is_empty()).map(|d| {
                        let start = d.bytes().as_ptr() as usize - base;
                        start..start + d.len()
                    }),
                    offset: b.offset(),
                    size: b.size(),
                })
                .collect()
        })
        .unwrap_or_default();

    let opcodes: Vec<Opcode> = model
        .operator_codes()
        .map(|v| {
            v.iter()
                .map(|c| {
                    let code = c
                        .builtin_code()
                        .0
                        .max(i32::from(c.deprecated_builtin_code()));
                    match (BuiltinOp(code), c.custom_code()) {
                        (BuiltinOp::CUSTOM, Some(name)) => Opcode::Custom(name.to_owned()),
                        (op, _) => Opcode::Builtin(op),
                    }
                })
                .collect()
        })
        .unwrap_or_default();

    let fb_subgraphs = model
        .subgraphs()
        .filter(|s| !s.is_empty())
        .ok_or(ReadModelError::NoSubgraphs)?;
    let subgraph_count = fb_subgraphs.len();
    let mut subgraphs = Vec::with_capacity(subgraph_count);
    let mut tensors = Vec::new();
    let mut ops = Vec::new();

    for (sg_pos, sg) in fb_subgraphs.iter().enumerate() {
        let subgraph = SubgraphIndex(index_u32(sg_pos)?);
        let first_tensor = tensors.len();
        let fb_tensors = sg.tensors();
        let tensor_count = fb_tensors.map_or(0, |t| t.len());
        for (t_pos, t) in fb_tensors.iter().flatten().enumerate() {
            let index = TensorIndex(index_u32(t_pos)?);
            let name = t.name().unwrap_or_default().to_owned();
            let buffer = t.buffer();
            let info = match buffers.get(buffer as usize) {
                Some(info) => Some(info),
                None if buffer == 0 => None,
                None => {
                    return Err(ReadModelError::BufferIndexOutOfRange {
                        tensor: TensorDesc {
                            subgraph,
                            index,
                            name,
                        },
                        index: buffer,
                        count: buffers.len(),
                    });
                }
            };
            tensors.push(Tensor {
                id: TensorId(index_u32(tensors.len())?),
                subgraph,
                index,
                name,
                dtype: DType::from_code(t.type_().0),
                shape: t.shape().map(|s| s.iter().collect()).unwrap_or_default(),
                shape_signature: t.shape_signature().map(|s| s.iter().collect()),
                buffer: BufferIndex(buffer),
                is_variable: t.is_variable(),
                is_constant: info.is_some_and(|b| b.data.is_some()),
                quantization: t.quantization().and_then(|q| {
                    let scale: Vec<f32> = q.scale()?.iter().collect();
                    Some(Quantization {
                        scale,
                        zero_point: q
                            .zero_point()
                            .map(|z| z.iter().collect())
                            .unwrap_or_default(),
                        quantized_dimension: q.quantized_dimension(),
                    })
                }),
            });
        }

        let check_tensor = |raw: i32,
                            role: &'static str,
                            op: Option<OpDesc>|
         -> Result<TensorIndex, ReadModelError> {
            match usize::try_from(raw) {
                Ok(i) if i < tensor_count => Ok(TensorIndex(i as u32)),
                _ => Err(ReadModelError::TensorIndexOutOfRange {
                    subgraph,
                    op,
                    role,
                    index: raw,
                    count: tensor_count,
                }),
            }
        };
        let inputs = sg
            .inputs()
            .iter()
            .flatten()
            .map(|t| check_tensor(t, "subgraph input", None))
            .collect::<Result<Vec<_>, _>>()?;
        let outputs = sg
            .outputs()
            .iter()
            .flatten()
            .map(|t| check_tensor(t, "subgraph output", None))
            .collect::<Result<Vec<_>, _>>()?;

        let first_op = ops.len();
        let fb_ops = sg.operators();
        for (o_pos, o) in fb_ops.iter().flatten().enumerate() {
            let index = OpIndex(index_u32(o_pos)?);
            let opcode = opcodes.get(o.opcode_index() as usize).cloned().ok_or(
                ReadModelError::OpcodeIndexOutOfRange {
                    subgraph,
                    op: index,
                    index: o.opcode_index(),
                    count: opcodes.len(),
                },
            )?;
            let desc = OpDesc {
                subgraph,
                index,
                opcode: opcode.to_string(),
            };
            let op_inputs = o
                .inputs()
                .iter()
                .flatten()
                .map(|t| {
                    if t == -1 {
                        Ok(None)
                    } else {
                        check_tensor(t, "input", Some(desc.clone())).map(Some)
                    }
                })
                .collect::<Result<Vec<_>, _>>()?;
            let op_outputs = o
                .outputs()
                .iter()
                .flatten()
                .map(|t| check_tensor(t, "output", Some(desc.clone())))
                .collect::<Result<Vec<_>, _>>()?;
            let intermediates = o
                .intermediates()
                .iter()
                .flatten()
                .map(|t| check_tensor(t, "intermediate", Some(desc.clone())))
                .collect::<Result<Vec<_>, _>>()?;
            let raw_callees: Vec<i32> = match &opcode {
                Opcode::Builtin(BuiltinOp::IF) => o
                    .builtin_options_as_if_options()
                    .map(|x| vec![x.then_subgraph_index(), x.else_subgraph_index()])
                    .ok_or_else(|| ReadModelError::MissingOptions {
                        op: desc.clone(),
                        options: "IfOptions",
                    })?,
                Opcode::Builtin(BuiltinOp::WHILE) => o
                    .builtin_options_as_while_options()
                    .map(|x| vec![x.cond_subgraph_index(), x.body_subgraph_index()])
                    .ok_or_else(|| ReadModelError::MissingOptions {
                        op: desc.clone(),
                        options: "WhileOptions",
                    })?,
                Opcode::Builtin(BuiltinOp::CALL_ONCE) => o
                    .builtin_options_as_call_once_options()
                    .map(|x| vec![x.init_subgraph_index()])
                    .ok_or_else(|| ReadModelError::MissingOptions {
                        op: desc.clone(),
                        options: "CallOnceOptions",
                    })?,
                _ => Vec::new(),
            };
            let callees = raw_callees
                .into_iter()
                .map(|c| match usize::try_from(c) {
                    Ok(i) if i < subgraph_count => Ok(SubgraphIndex(i as u32)),
                    _ => Err(ReadModelError::SubgraphIndexOutOfRange {
                        op: desc.clone(),
                        index: c,
                        count: subgraph_count,
                    }),
                })
                .collect::<Result<Vec<_>, _>>()?;
            ops.push(Op {
                subgraph,
                index,
                opcode,
                inputs: op_inputs,
                outputs: op_outputs,
                intermediates,
                callees,
                options: op_options(&o),
            });
        }

        subgraphs.push(Subgraph {
            index: subgraph,
            name: sg.name().unwrap_or_default().to_owned(),
            first_tensor,
            tensor_count,
            first_op,
            op_count: ops.len() - first_op,
            inputs,
            outputs,
        });
    }

    let metadata: Vec<MetadataEntry> = model
        .metadata()
        .iter()
        .flatten()
        .map(|m| MetadataEntry {
            name: m.name().unwrap_or_default().to_owned(),
            buffer: BufferIndex(m.buffer()),
        })
        .collect();

    let offline_plan = read_offline_plan(bytes, &metadata, &buffers, tensors.len())?;

    Ok(Model {
        version: model.version(),
        description: model.description().map(str::to_owned),
        subgraphs,
        tensors,
        ops,
        buffers,
        metadata,
        offline_plan,
    })
}

fn index_u32(i: usize) -> Result<u32, ReadModelError> {
    // Unreachable for files under 2 GiB (an element takes at least 4 bytes), checked anyway.
    u32::try_from(i).map_err(|_| ReadModelError::TooLarge {
        bytes: i as u64,
        limit: u64::from(u32::MAX),
    })
}

/// Reads the `OfflineMemoryAllocation` entry (TFLite Micro's format: int32 little-endian words
/// `version, subgraphs, n, offset_0 .. offset_{n-1}`, `-1` = plan online).
fn read_offline_plan(
    bytes: &[u8],
    metadata: &[MetadataEntry],
    buffers: &[BufferInfo],
    tensor_count: usize,
) -> Result<Option<Vec<Option<u64>>>, ReadModelError> {
    let Some(entry) = metadata.iter().find(|m| m.name == OFFLINE_PLAN_METADATA) else {
        return Ok(None);
    };
    let bad = |reason: String| ReadModelError::BadOfflinePlan { reason };
    let data = buffers
        .get(entry.buffer.get())
        .ok_or_else(|| {
            bad(format!(
                "its buffer {} does not exist ({} buffers)",
                entry.buffer,
                buffers.len()
            ))
        })?
        .data
        .clone()
        .and_then(|range| bytes.get(range))
        .ok_or_else(|| bad(format!("its buffer {} holds no data", entry.buffer)))?;
    if data.len() % 4 != 0 || data.len() < 12 {
        return Err(bad(format!(
            "it has {} bytes, expected a header of 3 int32 words and one word per tensor",
            data.len()
        )));
    }
    let words: Vec<i32> = data
        .chunks_exact(4)
        .filter_map(|w| <[u8; 4]>::try_from(w).ok())
        .map(i32::from_le_bytes)
        .collect();
    let declared = words.get(2).copied().unwrap_or(0);
    if usize::try_from(declared).ok() != Some(tensor_count) {
        return Err(bad(format!(
            "it declares {declared} offsets but the model has {tensor_count} tensors"
        )));
    }
    let offsets = words.get(3..).unwrap_or(&[]);
    if offsets.len() != tensor_count {
        return Err(bad(format!(
            "it holds {} offsets but declares {tensor_count}",
            offsets.len()
        )));
    }
    offsets
        .iter()
        .enumerate()
        .map(|(i, &w)| match w {
            -1 => Ok(None),
            o if o >= 0 => Ok(Some(o as u64)),
            o => Err(bad(format!(
                "tensor id {i} has offset {o}; offsets are non-negative, or -1 to plan online"
            ))),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}
