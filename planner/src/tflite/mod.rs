//! The TensorFlow Lite format: everything stowplan knows of `.tflite` files, and nothing else.
//!
//! - [`schema`](self) (private): the flatc output for `planner/schema/tflite.fbs`, the subset of
//!   TFLite's schema stowplan reads and writes;
//! - [`read_model`]: the verified flatbuffer view and the validation of every index, into the
//!   owned types of [`model`] (re-exported here);
//! - [`builder`]: writing models (synthetic test graphs, single-op conformance models);
//! - [`flexbuffer`]: custom ops' FlexBuffers options, read (checked) and written;
//! - [`mod@write`]: rewriting a model's root to add or replace a metadata entry (how
//!   [`crate::embed`] writes a plan into a model).
//!
//! Nothing here plans or generates code; every later layer reads the model through these types.

pub mod builder;
mod error;
pub mod flexbuffer;
pub mod model;
mod read;
mod schema;
pub mod write;

pub use error::ReadModelError;
pub use model::{
    Activation, BufferIndex, BufferInfo, BuiltinOp, CIRCULAR_BUFFER, DType, DimensionFormat,
    DimensionMetadata, MAX_MODEL_BYTES, MetadataEntry, Model, OFFLINE_PLAN_METADATA, Op, OpDesc,
    OpIndex, OpOptions, Opcode, Padding, Quantization, Sparsity, Subgraph, SubgraphIndex, Tensor,
    TensorDesc, TensorId, TensorIndex, format_shape,
};
pub use read::read_model;
