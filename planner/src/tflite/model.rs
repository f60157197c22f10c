//! The model as stowplan reads it: owned, validated types (subgraphs, tensors, ops, buffers,
//! the offline plan), made by [`super::read_model`] and written by [`super::builder`].

use std::fmt;
use std::ops::Range;

use super::schema::tflite as fb;

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

    /// The values of an integer type, `min..=max`; `None` for floats, booleans and types
    /// without values (a quantised tensor's zero point must lie in this range).
    #[must_use]
    pub const fn integer_range(self) -> Option<(i64, i64)> {
        Some(match self {
            Self::Int8 => (i8::MIN as i64, i8::MAX as i64),
            Self::Uint8 => (0, u8::MAX as i64),
            Self::Int16 => (i16::MIN as i64, i16::MAX as i64),
            Self::Uint16 => (0, u16::MAX as i64),
            Self::Int32 => (i32::MIN as i64, i32::MAX as i64),
            Self::Uint32 => (0, u32::MAX as i64),
            Self::Int64 | Self::Uint64 => (i64::MIN, i64::MAX),
            Self::Int4 => (-8, 7),
            Self::Uint4 => (0, 15),
            Self::Int2 => (-2, 1),
            _ => return None,
        })
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

/// One constant per builtin code of the schema, named as the format names it.
macro_rules! builtin_codes {
    ($($name:ident = $code:literal,)*) => {
        impl BuiltinOp {
            $(
                #[doc = concat!("`", stringify!($name), "`.")]
                pub const $name: Self = Self($code);
            )*
        }

        #[cfg(test)]
        const BUILTIN_CODES: &[(&str, BuiltinOp)] = &[$((stringify!($name), BuiltinOp::$name)),*];
    };
}

builtin_codes! {
    ADD = 0,
    AVERAGE_POOL_2D = 1,
    CONCATENATION = 2,
    CONV_2D = 3,
    DEPTHWISE_CONV_2D = 4,
    DEPTH_TO_SPACE = 5,
    DEQUANTIZE = 6,
    EMBEDDING_LOOKUP = 7,
    FLOOR = 8,
    FULLY_CONNECTED = 9,
    HASHTABLE_LOOKUP = 10,
    L2_NORMALIZATION = 11,
    L2_POOL_2D = 12,
    LOCAL_RESPONSE_NORMALIZATION = 13,
    LOGISTIC = 14,
    LSH_PROJECTION = 15,
    LSTM = 16,
    MAX_POOL_2D = 17,
    MUL = 18,
    RELU = 19,
    RELU_N1_TO_1 = 20,
    RELU6 = 21,
    RESHAPE = 22,
    RESIZE_BILINEAR = 23,
    RNN = 24,
    SOFTMAX = 25,
    SPACE_TO_DEPTH = 26,
    SVDF = 27,
    TANH = 28,
    CONCAT_EMBEDDINGS = 29,
    SKIP_GRAM = 30,
    CALL = 31,
    CUSTOM = 32,
    EMBEDDING_LOOKUP_SPARSE = 33,
    PAD = 34,
    UNIDIRECTIONAL_SEQUENCE_RNN = 35,
    GATHER = 36,
    BATCH_TO_SPACE_ND = 37,
    SPACE_TO_BATCH_ND = 38,
    TRANSPOSE = 39,
    MEAN = 40,
    SUB = 41,
    DIV = 42,
    SQUEEZE = 43,
    UNIDIRECTIONAL_SEQUENCE_LSTM = 44,
    STRIDED_SLICE = 45,
    BIDIRECTIONAL_SEQUENCE_RNN = 46,
    EXP = 47,
    TOPK_V2 = 48,
    SPLIT = 49,
    LOG_SOFTMAX = 50,
    DELEGATE = 51,
    BIDIRECTIONAL_SEQUENCE_LSTM = 52,
    CAST = 53,
    PRELU = 54,
    MAXIMUM = 55,
    ARG_MAX = 56,
    MINIMUM = 57,
    LESS = 58,
    NEG = 59,
    PADV2 = 60,
    GREATER = 61,
    GREATER_EQUAL = 62,
    LESS_EQUAL = 63,
    SELECT = 64,
    SLICE = 65,
    SIN = 66,
    TRANSPOSE_CONV = 67,
    SPARSE_TO_DENSE = 68,
    TILE = 69,
    EXPAND_DIMS = 70,
    EQUAL = 71,
    NOT_EQUAL = 72,
    LOG = 73,
    SUM = 74,
    SQRT = 75,
    RSQRT = 76,
    SHAPE = 77,
    POW = 78,
    ARG_MIN = 79,
    FAKE_QUANT = 80,
    REDUCE_PROD = 81,
    REDUCE_MAX = 82,
    PACK = 83,
    LOGICAL_OR = 84,
    ONE_HOT = 85,
    LOGICAL_AND = 86,
    LOGICAL_NOT = 87,
    UNPACK = 88,
    REDUCE_MIN = 89,
    FLOOR_DIV = 90,
    REDUCE_ANY = 91,
    SQUARE = 92,
    ZEROS_LIKE = 93,
    FILL = 94,
    FLOOR_MOD = 95,
    RANGE = 96,
    RESIZE_NEAREST_NEIGHBOR = 97,
    LEAKY_RELU = 98,
    SQUARED_DIFFERENCE = 99,
    MIRROR_PAD = 100,
    ABS = 101,
    SPLIT_V = 102,
    UNIQUE = 103,
    CEIL = 104,
    REVERSE_V2 = 105,
    ADD_N = 106,
    GATHER_ND = 107,
    COS = 108,
    WHERE = 109,
    RANK = 110,
    ELU = 111,
    REVERSE_SEQUENCE = 112,
    MATRIX_DIAG = 113,
    QUANTIZE = 114,
    MATRIX_SET_DIAG = 115,
    ROUND = 116,
    HARD_SWISH = 117,
    IF = 118,
    WHILE = 119,
    NON_MAX_SUPPRESSION_V4 = 120,
    NON_MAX_SUPPRESSION_V5 = 121,
    SCATTER_ND = 122,
    SELECT_V2 = 123,
    DENSIFY = 124,
    SEGMENT_SUM = 125,
    BATCH_MATMUL = 126,
    PLACEHOLDER_FOR_GREATER_OP_CODES = 127,
    CUMSUM = 128,
    CALL_ONCE = 129,
    BROADCAST_TO = 130,
    RFFT2D = 131,
    CONV_3D = 132,
    IMAG = 133,
    REAL = 134,
    COMPLEX_ABS = 135,
    HASHTABLE = 136,
    HASHTABLE_FIND = 137,
    HASHTABLE_IMPORT = 138,
    HASHTABLE_SIZE = 139,
    REDUCE_ALL = 140,
    CONV_3D_TRANSPOSE = 141,
    VAR_HANDLE = 142,
    READ_VARIABLE = 143,
    ASSIGN_VARIABLE = 144,
    BROADCAST_ARGS = 145,
    RANDOM_STANDARD_NORMAL = 146,
    BUCKETIZE = 147,
    RANDOM_UNIFORM = 148,
    MULTINOMIAL = 149,
    GELU = 150,
    DYNAMIC_UPDATE_SLICE = 151,
    RELU_0_TO_1 = 152,
    UNSORTED_SEGMENT_PROD = 153,
    UNSORTED_SEGMENT_MAX = 154,
    UNSORTED_SEGMENT_SUM = 155,
    ATAN2 = 156,
    UNSORTED_SEGMENT_MIN = 157,
    SIGN = 158,
    BITCAST = 159,
    BITWISE_XOR = 160,
    RIGHT_SHIFT = 161,
    STABLEHLO_LOGISTIC = 162,
    STABLEHLO_ADD = 163,
    STABLEHLO_DIVIDE = 164,
    STABLEHLO_MULTIPLY = 165,
    STABLEHLO_MAXIMUM = 166,
    STABLEHLO_RESHAPE = 167,
    STABLEHLO_CLAMP = 168,
    STABLEHLO_CONCATENATE = 169,
    STABLEHLO_BROADCAST_IN_DIM = 170,
    STABLEHLO_CONVOLUTION = 171,
    STABLEHLO_SLICE = 172,
    STABLEHLO_CUSTOM_CALL = 173,
    STABLEHLO_REDUCE = 174,
    STABLEHLO_ABS = 175,
    STABLEHLO_AND = 176,
    STABLEHLO_COSINE = 177,
    STABLEHLO_EXPONENTIAL = 178,
    STABLEHLO_FLOOR = 179,
    STABLEHLO_LOG = 180,
    STABLEHLO_MINIMUM = 181,
    STABLEHLO_NEGATE = 182,
    STABLEHLO_OR = 183,
    STABLEHLO_POWER = 184,
    STABLEHLO_REMAINDER = 185,
    STABLEHLO_RSQRT = 186,
    STABLEHLO_SELECT = 187,
    STABLEHLO_SUBTRACT = 188,
    STABLEHLO_TANH = 189,
    STABLEHLO_SCATTER = 190,
    STABLEHLO_COMPARE = 191,
    STABLEHLO_CONVERT = 192,
    STABLEHLO_DYNAMIC_SLICE = 193,
    STABLEHLO_DYNAMIC_UPDATE_SLICE = 194,
    STABLEHLO_PAD = 195,
    STABLEHLO_IOTA = 196,
    STABLEHLO_DOT_GENERAL = 197,
    STABLEHLO_REDUCE_WINDOW = 198,
    STABLEHLO_SORT = 199,
    STABLEHLO_WHILE = 200,
    STABLEHLO_GATHER = 201,
    STABLEHLO_TRANSPOSE = 202,
    DILATE = 203,
    STABLEHLO_RNG_BIT_GENERATOR = 204,
    REDUCE_WINDOW = 205,
    STABLEHLO_COMPOSITE = 206,
    STABLEHLO_SHIFT_LEFT = 207,
    STABLEHLO_CBRT = 208,
    STABLEHLO_CASE = 209,
}

impl BuiltinOp {
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
    /// Its sparse encoding, if its data holds only some values of its shape (`DENSIFY` reads
    /// such a tensor and writes the dense one).
    pub sparsity: Option<Sparsity>,
}

/// How one dimension of a sparse tensor is stored (`DimensionType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DimensionFormat {
    /// Every index is present: only the size is stored.
    Dense,
    /// Compressed sparse row: per element of the previous dimension a segment of the indices
    /// present in this one.
    SparseCsr,
}

/// The metadata of one dimension of a sparse tensor, in traversal order (`DimensionMetadata`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DimensionMetadata {
    /// How it is stored.
    pub format: DimensionFormat,
    /// Its size, for a dense dimension (`dense_size`).
    pub dense_size: i32,
    /// `array_segments` of a sparse dimension (empty for a dense one), each value checked to be
    /// non-negative.
    pub segments: Vec<u32>,
    /// `array_indices` of a sparse dimension (empty for a dense one), each value checked to be
    /// non-negative.
    pub indices: Vec<u32>,
}

/// A sparse tensor's encoding (`SparsityParameters`): the values its data holds and where
/// they go in the dense tensor. Read as the file gives it; [`crate::ops`]' DENSIFY checks it
/// against the tensor's shape and data.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Sparsity {
    /// The dense dimensions in storage order, then the block dimensions (`traversal_order`).
    pub traversal_order: Vec<i32>,
    /// For each block dimension, the dense dimension it splits (`block_map`).
    pub block_map: Vec<i32>,
    /// One entry per element of `traversal_order` (`dim_metadata`).
    pub dim_metadata: Vec<DimensionMetadata>,
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
        pot_scale_int16: bool,
    },
    Mul {
        activation: Activation,
    },
    Reducer {
        keep_dims: bool,
    },
    Reshape {
        /// `None` when the table has no `new_shape`.
        new_shape: Option<Vec<i32>>,
    },
    Squeeze {
        squeeze_dims: Vec<i32>,
    },
    Svdf {
        rank: i32,
        activation: Activation,
        asymmetric_quantize_inputs: bool,
    },
    L2Norm {
        activation: Activation,
    },
    ResizeBilinear {
        align_corners: bool,
        half_pixel_centers: bool,
    },
    SpaceToDepth {
        block_size: i32,
    },
    Gather {
        axis: i32,
        batch_dims: i32,
    },
    Sub {
        activation: Activation,
        pot_scale_int16: bool,
    },
    Div {
        activation: Activation,
    },
    StridedSlice {
        begin_mask: i32,
        end_mask: i32,
        ellipsis_mask: i32,
        new_axis_mask: i32,
        shrink_axis_mask: i32,
        offset: bool,
    },
    Split {
        num_splits: i32,
    },
    Cast {
        in_data_type: DType,
        out_data_type: DType,
    },
    ArgMax {
        output_type: DType,
    },
    TransposeConv {
        padding: Padding,
        stride_w: i32,
        stride_h: i32,
        activation: Activation,
        quantized_bias_type: DType,
    },
    Shape {
        out_type: DType,
    },
    ArgMin {
        output_type: DType,
    },
    Pack {
        values_count: i32,
        axis: i32,
    },
    Unpack {
        num: i32,
        axis: i32,
    },
    UnidirectionalSequenceLstm {
        activation: Activation,
        cell_clip: f32,
        proj_clip: f32,
        time_major: bool,
        asymmetric_quantize_inputs: bool,
        diagonal_recurrent_tensors: bool,
    },
    ResizeNearestNeighbor {
        align_corners: bool,
        half_pixel_centers: bool,
    },
    LeakyRelu {
        alpha: f32,
    },
    MirrorPad {
        /// `SYMMETRIC` (borders included); `REFLECT` otherwise.
        symmetric: bool,
    },
    SplitV {
        num_splits: i32,
    },
    DepthToSpace {
        block_size: i32,
    },
    BatchMatMul {
        adj_x: bool,
        adj_y: bool,
        asymmetric_quantize_inputs: bool,
    },
    Cumsum {
        exclusive: bool,
        reverse: bool,
    },
    VarHandle {
        container: String,
        shared_name: String,
    },
}

// The float options (`beta`, `alpha`, clips) are compared as floats; a NaN is a model no
// kernel runs.
impl Eq for OpOptions {}

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
    /// Where its `custom_options` (a custom op's flexbuffer) lie in the file, if it has any.
    pub custom_options: Option<Range<usize>>,
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

    /// Whether the op is TFLM's `CIRCULAR_BUFFER` (custom code [`CIRCULAR_BUFFER`]), whose
    /// output is a window kept from one invocation to the next and which may stop an
    /// invocation early: facts of TFLM's planning that the tensors' kinds and the lifetimes
    /// follow.
    #[must_use]
    pub fn is_circular_buffer(&self) -> bool {
        matches!(&self.opcode, Opcode::Custom(code) if code == CIRCULAR_BUFFER)
    }
}

/// The custom code of TFLM's `CIRCULAR_BUFFER` op.
pub const CIRCULAR_BUFFER: &str = "CIRCULAR_BUFFER";

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
    /// The length of the file in bytes.
    pub file_len: usize,
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

/// How messages name a tensor: `tensor 7 "conv/out" of subgraph 0`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorDesc {
    /// Its subgraph.
    pub subgraph: SubgraphIndex,
    /// Its index in the subgraph.
    pub index: TensorIndex,
    /// Its name (may be empty).
    pub name: String,
}

impl fmt::Display for TensorDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tensor {} {:?} of subgraph {}",
            self.index, self.name, self.subgraph
        )
    }
}

/// How messages name an op: `op 3 (CONV_2D) of subgraph 0`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OpDesc {
    /// Its subgraph.
    pub subgraph: SubgraphIndex,
    /// Its index in the subgraph.
    pub index: OpIndex,
    /// Its opcode name (builtin name or custom code).
    pub opcode: String,
}

impl fmt::Display for OpDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "op {} ({}) of subgraph {}",
            self.index, self.opcode, self.subgraph
        )
    }
}

/// A shape as messages and reports write it: `[1,96,96,1]`.
#[must_use]
pub fn format_shape(dims: &[i32]) -> String {
    let dims: Vec<String> = dims.iter().map(i32::to_string).collect();
    format!("[{}]", dims.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_constants_are_the_schema_codes() {
        assert!(BUILTIN_CODES.len() > 200);
        for &(name, op) in BUILTIN_CODES {
            assert_eq!(op.name(), Some(name));
            assert_eq!(BuiltinOp::from_name(name), Some(op));
        }
    }
}
