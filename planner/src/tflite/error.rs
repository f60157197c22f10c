//! Why a model cannot be read or planned ([`ReadModelError`]), with messages that name the
//! subgraph, op and tensor involved ([`super::TensorDesc`], [`super::OpDesc`]).

use std::fmt;

use super::model::{
    DType, OFFLINE_PLAN_METADATA, OpDesc, OpIndex, SubgraphIndex, TensorDesc, format_shape,
};

/// A model that cannot be planned, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadModelError {
    /// The file is too large for the flatbuffer format (or for this reader).
    TooLarge {
        /// Its size.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// Too short to hold a flatbuffer header.
    TooShort {
        /// Its size.
        bytes: usize,
    },
    /// Bytes 4..8 are not the TFLite file identifier `TFL3`.
    WrongIdentifier {
        /// The bytes found there.
        found: [u8; 4],
    },
    /// The flatbuffer verifier rejected the file.
    Malformed {
        /// What the verifier found, and where.
        reason: String,
    },
    /// The model has no subgraph.
    NoSubgraphs,
    /// An op names an operator code that does not exist.
    OpcodeIndexOutOfRange {
        /// The subgraph.
        subgraph: SubgraphIndex,
        /// The op.
        op: OpIndex,
        /// The index found.
        index: u32,
        /// How many operator codes there are.
        count: usize,
    },
    /// A tensor index out of range.
    TensorIndexOutOfRange {
        /// The subgraph.
        subgraph: SubgraphIndex,
        /// The op that uses it, if it is an op's tensor.
        op: Option<OpDesc>,
        /// Its role: `input`, `output`, `intermediate`, `subgraph input` or `subgraph output`.
        role: &'static str,
        /// The index found.
        index: i32,
        /// How many tensors the subgraph has.
        count: usize,
    },
    /// A tensor names a buffer that does not exist.
    BufferIndexOutOfRange {
        /// The tensor.
        tensor: TensorDesc,
        /// The index found.
        index: u32,
        /// How many buffers there are.
        count: usize,
    },
    /// A control-flow op names a subgraph that does not exist.
    SubgraphIndexOutOfRange {
        /// The op.
        op: OpDesc,
        /// The index found.
        index: i32,
        /// How many subgraphs there are.
        count: usize,
    },
    /// A control-flow op without the options that name its subgraphs.
    MissingOptions {
        /// The op.
        op: OpDesc,
        /// The options table expected.
        options: &'static str,
    },
    /// A control-flow op calls a subgraph that is already running (directly or not).
    RecursiveCall {
        /// The op.
        op: OpDesc,
        /// The subgraph it calls.
        callee: SubgraphIndex,
    },
    /// Control flow calls subgraphs so often that the timeline would grow beyond one walk of
    /// every subgraph by more than the limit.
    TimelineTooLong {
        /// The limit on the extra steps.
        limit: usize,
    },
    /// Control-flow calls nest deeper than the limit.
    CallsTooDeep {
        /// The op making the call that is one too deep.
        op: OpDesc,
        /// The limit.
        limit: usize,
    },
    /// An op reads a tensor that no earlier op wrote and that is not an input, constant or
    /// variable of its subgraph.
    ReadBeforeWrite {
        /// The op.
        op: OpDesc,
        /// The tensor.
        tensor: TensorDesc,
    },
    /// An op reads a tensor whose data the file stores after the flatbuffer (`Buffer.offset`
    /// and `size`, the converter's form for models over 2 GB), which TFLite Micro never reads.
    ExternalBufferData {
        /// The op.
        op: OpDesc,
        /// The tensor.
        tensor: TensorDesc,
        /// The buffer's `offset`.
        offset: u64,
        /// The buffer's `size`.
        size: u64,
        /// The file's length in bytes.
        file_len: usize,
    },
    /// A negative dimension other than `-1`.
    NegativeDimension {
        /// The tensor.
        tensor: TensorDesc,
        /// Its shape.
        shape: Vec<i32>,
    },
    /// A `-1` (unknown) dimension in a tensor that must be planned, and no override for it.
    DynamicShape {
        /// The tensor.
        tensor: TensorDesc,
        /// Its shape.
        shape: Vec<i32>,
    },
    /// A tensor that must be planned has a type with no fixed size (STRING, VARIANT, unknown).
    UnsizedType {
        /// The tensor.
        tensor: TensorDesc,
        /// Its type.
        dtype: DType,
    },
    /// A tensor's size overflows, or exceeds the per-tensor limit.
    TensorTooLarge {
        /// The tensor.
        tensor: TensorDesc,
        /// Its shape.
        shape: Vec<i32>,
        /// Its type.
        dtype: DType,
        /// The limit in bytes.
        limit: u64,
    },
    /// The `OfflineMemoryAllocation` metadata is malformed.
    BadOfflinePlan {
        /// What is wrong.
        reason: String,
    },
    /// A shape override names no tensor, names several, or does not fit the tensor.
    BadShapeOverride {
        /// What is wrong.
        reason: String,
    },
    /// A resource variable whose size or identity cannot be known at build time.
    ResourceVariable {
        /// The op that uses it.
        op: OpDesc,
        /// What is wrong.
        reason: String,
    },
    /// A tensor's `SparsityParameters` are malformed.
    BadSparsity {
        /// The tensor.
        tensor: TensorDesc,
        /// What is wrong.
        reason: String,
    },
    /// A kernel asks for more scratch than the per-tensor limit.
    ScratchTooLarge {
        /// The op.
        op: OpDesc,
        /// The bytes it asks for.
        bytes: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// A quantised integer tensor has a zero point that is not a value of its type.
    ZeroPointOutOfRange {
        /// The tensor.
        tensor: TensorDesc,
        /// Its type.
        dtype: DType,
        /// The zero point.
        zero_point: i64,
    },
}

impl fmt::Display for ReadModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLarge { bytes, limit } => {
                write!(f, "model has {bytes} bytes, more than the limit of {limit}")
            }
            Self::TooShort { bytes } => {
                write!(
                    f,
                    "not a TFLite model: {bytes} bytes is too short for a flatbuffer header"
                )
            }
            Self::WrongIdentifier { found } => write!(
                f,
                "not a TFLite model: file identifier is {:?}, expected \"TFL3\"",
                String::from_utf8_lossy(found)
            ),
            Self::Malformed { reason } => write!(f, "malformed TFLite flatbuffer: {reason}"),
            Self::NoSubgraphs => f.write_str("model has no subgraphs"),
            Self::OpcodeIndexOutOfRange {
                subgraph,
                op,
                index,
                count,
            } => write!(
                f,
                "op {op} of subgraph {subgraph} uses operator code {index}, but the model has {count}"
            ),
            Self::TensorIndexOutOfRange {
                subgraph,
                op,
                role,
                index,
                count,
            } => match op {
                Some(op) => write!(
                    f,
                    "{op} has {role} tensor {index}, but the subgraph has {count} tensors"
                ),
                None => write!(
                    f,
                    "subgraph {subgraph} has {role} tensor {index}, but it has {count} tensors"
                ),
            },
            Self::BufferIndexOutOfRange {
                tensor,
                index,
                count,
            } => {
                write!(
                    f,
                    "{tensor} uses buffer {index}, but the model has {count} buffers"
                )
            }
            Self::SubgraphIndexOutOfRange { op, index, count } => {
                write!(
                    f,
                    "{op} calls subgraph {index}, but the model has {count} subgraphs"
                )
            }
            Self::MissingOptions { op, options } => {
                write!(f, "{op} has no {options}, so its subgraphs are unknown")
            }
            Self::RecursiveCall { op, callee } => write!(
                f,
                "{op} calls subgraph {callee}, which is already running: recursive control flow cannot be planned"
            ),
            Self::TimelineTooLong { limit } => write!(
                f,
                "control flow calls subgraphs so often that the timeline grows by more than {limit} steps beyond one walk of every subgraph"
            ),
            Self::CallsTooDeep { op, limit } => {
                write!(f, "{op} nests control flow deeper than {limit} calls")
            }
            Self::ReadBeforeWrite { op, tensor } => write!(
                f,
                "{op} reads {tensor}, which no earlier op writes and which is not an input, constant or variable"
            ),
            Self::ExternalBufferData {
                op,
                tensor,
                offset,
                size,
                file_len,
            } => {
                write!(
                    f,
                    "{op} reads {tensor}, whose data is stored after the flatbuffer (Buffer.offset {offset}, size {size}"
                )?;
                if offset
                    .checked_add(*size)
                    .is_none_or(|end| end > *file_len as u64)
                {
                    write!(f, ", beyond the file's {file_len} bytes")?;
                }
                write!(
                    f,
                    "): TFLite Micro reads constants only from Buffer.data; convert the model without external buffers"
                )
            }
            Self::NegativeDimension { tensor, shape } => {
                write!(
                    f,
                    "{tensor} has a negative dimension in shape {}",
                    format_shape(shape)
                )
            }
            Self::DynamicShape { tensor, shape } => write!(
                f,
                "{tensor} has a dynamic shape {}; give its shape (for example --shape {}=1x96x96x1), or serve it from a buffer cache at run time (dynamic = \"cache\")",
                format_shape(shape),
                if tensor.name.is_empty() || tensor.name.contains('=') {
                    tensor.index.to_string()
                } else {
                    tensor.name.clone()
                }
            ),
            Self::UnsizedType { tensor, dtype } => {
                write!(
                    f,
                    "{tensor} has type {dtype}, which has no fixed size and cannot be planned"
                )
            }
            Self::TensorTooLarge {
                tensor,
                shape,
                dtype,
                limit,
            } => write!(
                f,
                "{tensor} of shape {} and type {dtype} needs more than {limit} bytes",
                format_shape(shape)
            ),
            Self::BadOfflinePlan { reason } => {
                write!(f, "bad {} metadata: {reason}", OFFLINE_PLAN_METADATA)
            }
            Self::BadShapeOverride { reason } => write!(f, "bad shape override: {reason}"),
            Self::ResourceVariable { op, reason } => write!(f, "{op}: {reason}"),
            Self::BadSparsity { tensor, reason } => {
                write!(f, "{tensor} has malformed sparsity parameters: {reason}")
            }
            Self::ScratchTooLarge { op, bytes, limit } => write!(
                f,
                "{op} asks for {bytes} bytes of kernel scratch, more than the limit of {limit}"
            ),
            Self::ZeroPointOutOfRange {
                tensor,
                dtype,
                zero_point,
            } => {
                let (min, max) = dtype.integer_range().unwrap_or((0, 0));
                write!(
                    f,
                    "{tensor} of type {dtype} has zero point {zero_point}, outside {dtype}'s range {min}..={max}"
                )
            }
        }
    }
}

impl std::error::Error for ReadModelError {}

/// One line describing what the flatbuffers verifier rejected.
pub(crate) fn describe_invalid(e: &flatbuffers::InvalidFlatbuffer) -> String {
    use flatbuffers::{ErrorTraceDetail, InvalidFlatbuffer as E};
    let (what, trace) = match e {
        E::MissingRequiredField {
            required,
            error_trace,
        } => (
            format!("missing required field {required}"),
            Some(error_trace),
        ),
        E::InconsistentUnion {
            field,
            field_type,
            error_trace,
        } => (
            format!("union {field} and its type {field_type} disagree"),
            Some(error_trace),
        ),
        E::Utf8Error {
            range, error_trace, ..
        } => (
            format!(
                "string at bytes {}..{} is not UTF-8",
                range.start, range.end
            ),
            Some(error_trace),
        ),
        E::MissingNullTerminator { range, error_trace } => (
            format!(
                "string at bytes {}..{} has no terminator",
                range.start, range.end
            ),
            Some(error_trace),
        ),
        E::Unaligned {
            position,
            unaligned_type,
            error_trace,
        } => (
            format!("{unaligned_type} at byte {position} is misaligned"),
            Some(error_trace),
        ),
        E::RangeOutOfBounds { range, error_trace } => (
            format!("bytes {}..{} are outside the file", range.start, range.end),
            Some(error_trace),
        ),
        E::SignedOffsetOutOfBounds {
            soffset,
            position,
            error_trace,
        } => (
            format!("offset {soffset} at byte {position} points outside the file"),
            Some(error_trace),
        ),
        E::TooManyTables => ("more tables than the file size allows".to_owned(), None),
        E::ApparentSizeTooLarge => (
            "tables and vectors overlap too much (apparent size limit)".to_owned(),
            None,
        ),
        E::DepthLimitReached => ("tables nest too deeply".to_owned(), None),
    };
    let path: Vec<String> = trace
        .map(|t| {
            t.as_ref()
                .iter()
                .rev()
                .map(|d| match d {
                    ErrorTraceDetail::VectorElement { index, .. } => format!("[{index}]"),
                    ErrorTraceDetail::TableField { field_name, .. } => format!(".{field_name}"),
                    ErrorTraceDetail::UnionVariant { variant, .. } => format!("<{variant}>"),
                })
                .collect()
        })
        .unwrap_or_default();
    if path.is_empty() {
        what
    } else {
        format!("{what} (in Model{})", path.concat())
    }
}
