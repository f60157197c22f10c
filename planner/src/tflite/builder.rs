//! A model builder for synthetic test graphs.
//!
//! It writes real `.tflite` flatbuffers (with the same generated code the reader uses) and
//! checks nothing: indices, shapes and types are written as given, so tests can also build
//! malformed models on purpose.
//!
//! ```
//! use stowplan_planner::tflite::builder::{ModelBuilder, ops};
//! use stowplan_planner::tflite::{read_model, DType};
//!
//! let mut b = ModelBuilder::new();
//! let sg = b.subgraph("main");
//! let x = b.tensor(sg, "x", DType::Float32, &[1, 4]);
//! let w = b.constant(sg, "w", DType::Float32, &[4, 4], &[0; 64]);
//! let y = b.tensor(sg, "y", DType::Float32, &[1, 4]);
//! b.op(sg, ops::FULLY_CONNECTED, &[x, w, -1], &[y]);
//! b.io(sg, &[x], &[y]);
//! let model = read_model(&b.finish())?;
//! assert_eq!(model.tensors.len(), 3);
//! assert!(model.tensors[1].is_constant);
//! # Ok::<(), stowplan_planner::ReadModelError>(())
//! ```

use super::model::{
    Activation, BuiltinOp, DType, DimensionFormat, OFFLINE_PLAN_METADATA, OpOptions, Padding,
    Sparsity,
};
use super::schema::tflite as fb;

/// Builtin op codes for [`ModelBuilder::op`].
pub mod ops {
    use crate::tflite::BuiltinOp;

    /// `ADD`.
    pub const ADD: BuiltinOp = BuiltinOp::ADD;
    /// `CONCATENATION`.
    pub const CONCATENATION: BuiltinOp = BuiltinOp::CONCATENATION;
    /// `CONV_2D`.
    pub const CONV_2D: BuiltinOp = BuiltinOp::CONV_2D;
    /// `FULLY_CONNECTED`.
    pub const FULLY_CONNECTED: BuiltinOp = BuiltinOp::FULLY_CONNECTED;
    /// `RELU`.
    pub const RELU: BuiltinOp = BuiltinOp::RELU;
    /// `RESHAPE`.
    pub const RESHAPE: BuiltinOp = BuiltinOp::RESHAPE;
    /// `LESS`.
    pub const LESS: BuiltinOp = BuiltinOp(58);
    /// `READ_VARIABLE`.
    pub const READ_VARIABLE: BuiltinOp = BuiltinOp::READ_VARIABLE;
    /// `ASSIGN_VARIABLE`.
    pub const ASSIGN_VARIABLE: BuiltinOp = BuiltinOp::ASSIGN_VARIABLE;
    /// `VAR_HANDLE`.
    pub const VAR_HANDLE: BuiltinOp = BuiltinOp::VAR_HANDLE;
    /// `SVDF` (reads a variable state tensor).
    pub const SVDF: BuiltinOp = BuiltinOp(27);
}

/// A tensor, fully specified (for cases the short constructors do not cover).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TensorSpec {
    /// Name.
    pub name: String,
    /// `TensorType` code, written as is (so unknown codes can be tested).
    pub type_code: i8,
    /// `shape`; `None` writes no shape vector (a scalar).
    pub shape: Option<Vec<i32>>,
    /// `shape_signature`, if any.
    pub shape_signature: Option<Vec<i32>>,
    /// Buffer index, written as is.
    pub buffer: u32,
    /// `is_variable`.
    pub is_variable: bool,
    /// `quantization`: scales, zero points and the quantized dimension.
    pub quantization: Option<(Vec<f32>, Vec<i64>, i32)>,
}

/// The subgraphs a control-flow op runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callees {
    /// `IF` with then and else subgraphs.
    If {
        /// Run when the condition holds.
        then: i32,
        /// Run otherwise.
        otherwise: i32,
    },
    /// `WHILE` with cond and body subgraphs.
    While {
        /// The condition.
        cond: i32,
        /// The body.
        body: i32,
    },
    /// `CALL_ONCE` with its init subgraph.
    CallOnce {
        /// Run on the first invocation.
        init: i32,
    },
}

#[derive(Clone, Debug, Default)]
struct OpSpec {
    opcode: usize,
    inputs: Vec<i32>,
    outputs: Vec<i32>,
    intermediates: Vec<i32>,
    callees: Option<Callees>,
    options: OpOptions,
    custom_options: Vec<u8>,
}

#[derive(Clone, Debug, Default)]
struct SubgraphSpec {
    name: String,
    tensors: Vec<TensorSpec>,
    inputs: Vec<i32>,
    outputs: Vec<i32>,
    ops: Vec<OpSpec>,
    /// Extra entries of the tensors vector that all point at the last tensor's table.
    repeat_last_tensor: usize,
}

/// Builds a `.tflite` model in memory; see the [module docs](self).
#[derive(Clone, Debug)]
pub struct ModelBuilder {
    subgraphs: Vec<SubgraphSpec>,
    /// Buffer 0 is the empty sentinel.
    buffers: Vec<Vec<u8>>,
    /// (builtin code, custom code).
    opcodes: Vec<(i32, Option<String>)>,
    metadata: Vec<(String, u32)>,
    description: Option<String>,
    /// Sparse encodings: (subgraph, tensor, parameters, index width).
    sparsity: Vec<(usize, i32, Sparsity, IndexWidth)>,
    /// Buffers whose data is stored after the flatbuffer: (buffer, `offset`, `size`).
    external: Vec<(u32, u64, u64)>,
}

/// The union member a sparse dimension's segments and indices are written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum IndexWidth {
    /// `Int32Vector` (values above `i32::MAX` wrap, for malformed models).
    #[default]
    Int32,
    /// `Uint16Vector` (values truncated to 16 bits).
    Uint16,
    /// `Uint8Vector` (values truncated to 8 bits).
    Uint8,
}

impl Default for ModelBuilder {
    fn default() -> Self {
        Self::new()
    }
}

fn sg_mut(subgraphs: &mut [SubgraphSpec], sg: usize) -> &mut SubgraphSpec {
    match subgraphs.get_mut(sg) {
        Some(s) => s,
        None => panic!("ModelBuilder: subgraph {sg} was not created with ModelBuilder::subgraph"),
    }
}

impl ModelBuilder {
    /// An empty model (no subgraphs yet).
    #[must_use]
    pub fn new() -> Self {
        Self {
            subgraphs: Vec::new(),
            buffers: vec![Vec::new()],
            opcodes: Vec::new(),
            metadata: Vec::new(),
            description: None,
            sparsity: Vec::new(),
            external: Vec::new(),
        }
    }

    /// Sets the model's description.
    pub fn description(&mut self, text: &str) -> &mut Self {
        self.description = Some(text.to_owned());
        self
    }

    /// Adds a subgraph and returns its index (the first one is the main subgraph).
    pub fn subgraph(&mut self, name: &str) -> usize {
        self.subgraphs.push(SubgraphSpec {
            name: name.to_owned(),
            ..SubgraphSpec::default()
        });
        self.subgraphs.len() - 1
    }

    /// Adds a tensor without data and returns its index.
    ///
    /// # Panics
    ///
    /// If `sg` was not returned by [`Self::subgraph`].
    pub fn tensor(&mut self, sg: usize, name: &str, dtype: DType, shape: &[i32]) -> i32 {
        self.tensor_spec(
            sg,
            TensorSpec {
                name: name.to_owned(),
                type_code: dtype.code(),
                shape: Some(shape.to_vec()),
                ..TensorSpec::default()
            },
        )
    }

    /// Adds a variable tensor (state kept across invocations).
    ///
    /// # Panics
    ///
    /// If `sg` was not returned by [`Self::subgraph`].
    pub fn variable(&mut self, sg: usize, name: &str, dtype: DType, shape: &[i32]) -> i32 {
        self.tensor_spec(
            sg,
            TensorSpec {
                name: name.to_owned(),
                type_code: dtype.code(),
                shape: Some(shape.to_vec()),
                is_variable: true,
                ..TensorSpec::default()
            },
        )
    }

    /// Adds a constant tensor with `data` in a new buffer.
    ///
    /// # Panics
    ///
    /// If `sg` was not returned by [`Self::subgraph`].
    pub fn constant(
        &mut self,
        sg: usize,
        name: &str,
        dtype: DType,
        shape: &[i32],
        data: &[u8],
    ) -> i32 {
        let buffer = self.buffer(data);
        self.tensor_spec(
            sg,
            TensorSpec {
                name: name.to_owned(),
                type_code: dtype.code(),
                shape: Some(shape.to_vec()),
                buffer,
                ..TensorSpec::default()
            },
        )
    }

    /// Adds a tensor without data with affine quantisation: `scale` and `zero_point` per
    /// tensor (one each) or per channel along `quantized_dimension`.
    ///
    /// # Panics
    ///
    /// If `sg` was not returned by [`Self::subgraph`].
    pub fn quantized(
        &mut self,
        sg: usize,
        name: &str,
        dtype: DType,
        shape: &[i32],
        (scale, zero_point, quantized_dimension): (&[f32], &[i64], i32),
    ) -> i32 {
        self.tensor_spec(
            sg,
            TensorSpec {
                name: name.to_owned(),
                type_code: dtype.code(),
                shape: Some(shape.to_vec()),
                quantization: Some((scale.to_vec(), zero_point.to_vec(), quantized_dimension)),
                ..TensorSpec::default()
            },
        )
    }

    /// Adds a constant tensor with `data` in a new buffer and affine quantisation (as in
    /// [`Self::quantized`]).
    ///
    /// # Panics
    ///
    /// If `sg` was not returned by [`Self::subgraph`].
    pub fn quantized_constant(
        &mut self,
        sg: usize,
        name: &str,
        dtype: DType,
        shape: &[i32],
        quantization: (&[f32], &[i64], i32),
        data: &[u8],
    ) -> i32 {
        let buffer = self.buffer(data);
        let t = self.quantized(sg, name, dtype, shape, quantization);
        if let Some(spec) = sg_mut(&mut self.subgraphs, sg)
            .tensors
            .get_mut(usize::try_from(t).unwrap_or(usize::MAX))
        {
            spec.buffer = buffer;
        }
        t
    }

    /// Gives tensor `tensor` of subgraph `sg` the sparse encoding `sparsity`, its segments and
    /// indices written as `width` (its buffer should then hold only the values the encoding
    /// locates, in traversal order).
    pub fn sparsity(&mut self, sg: usize, tensor: i32, sparsity: &Sparsity, width: IndexWidth) {
        self.sparsity.push((sg, tensor, sparsity.clone(), width));
    }

    /// Adds a tensor exactly as specified.
    ///
    /// # Panics
    ///
    /// If `sg` was not returned by [`Self::subgraph`].
    pub fn tensor_spec(&mut self, sg: usize, spec: TensorSpec) -> i32 {
        let s = sg_mut(&mut self.subgraphs, sg);
        s.tensors.push(spec);
        i32::try_from(s.tensors.len() - 1).unwrap_or(i32::MAX)
    }

    /// Adds a buffer holding `data` and returns its index.
    pub fn buffer(&mut self, data: &[u8]) -> u32 {
        self.buffers.push(data.to_vec());
        u32::try_from(self.buffers.len() - 1).unwrap_or(u32::MAX)
    }

    /// Adds a buffer that has no `data` but claims `size` bytes stored after the flatbuffer at
    /// `offset` from the file start (the converter's form for models over 2 GB; nothing is
    /// written there), and returns its index.
    pub fn external_buffer(&mut self, offset: u64, size: u64) -> u32 {
        let index = self.buffer(&[]);
        self.external.push((index, offset, size));
        index
    }

    fn opcode(&mut self, code: i32, custom: Option<&str>) -> usize {
        let key = (code, custom.map(str::to_owned));
        if let Some(i) = self.opcodes.iter().position(|k| *k == key) {
            return i;
        }
        self.opcodes.push(key);
        self.opcodes.len() - 1
    }

    fn push_op(&mut self, sg: usize, op: OpSpec) -> usize {
        let s = sg_mut(&mut self.subgraphs, sg);
        s.ops.push(op);
        s.ops.len() - 1
    }

    /// Adds a builtin op; `-1` in `inputs` is an omitted optional input. Returns its index.
    ///
    /// # Panics
    ///
    /// If `sg` was not returned by [`Self::subgraph`].
    pub fn op(&mut self, sg: usize, op: BuiltinOp, inputs: &[i32], outputs: &[i32]) -> usize {
        let opcode = self.opcode(op.0, None);
        self.push_op(
            sg,
            OpSpec {
                opcode,
                inputs: inputs.to_vec(),
                outputs: outputs.to_vec(),
                ..OpSpec::default()
            },
        )
    }

    /// Adds a builtin op with its builtin options (the table [`OpOptions`] names), written as
    /// given. Returns its index.
    ///
    /// # Panics
    ///
    /// If `sg` was not returned by [`Self::subgraph`].
    pub fn op_with_options(
        &mut self,
        sg: usize,
        op: BuiltinOp,
        inputs: &[i32],
        outputs: &[i32],
        options: OpOptions,
    ) -> usize {
        let opcode = self.opcode(op.0, None);
        self.push_op(
            sg,
            OpSpec {
                opcode,
                inputs: inputs.to_vec(),
                outputs: outputs.to_vec(),
                options,
                ..OpSpec::default()
            },
        )
    }

    /// Adds a builtin op with intermediate tensors.
    ///
    /// # Panics
    ///
    /// If `sg` was not returned by [`Self::subgraph`].
    pub fn op_with_intermediates(
        &mut self,
        sg: usize,
        op: BuiltinOp,
        inputs: &[i32],
        outputs: &[i32],
        intermediates: &[i32],
    ) -> usize {
        let opcode = self.opcode(op.0, None);
        self.push_op(
            sg,
            OpSpec {
                opcode,
                inputs: inputs.to_vec(),
                outputs: outputs.to_vec(),
                intermediates: intermediates.to_vec(),
                ..OpSpec::default()
            },
        )
    }

    /// Adds an op with a raw operator-code index, written as is (for malformed models).
    ///
    /// # Panics
    ///
    /// If `sg` was not returned by [`Self::subgraph`].
    pub fn raw_op(
        &mut self,
        sg: usize,
        opcode_index: u32,
        inputs: &[i32],
        outputs: &[i32],
    ) -> usize {
        let opcode = usize::try_from(opcode_index).unwrap_or(usize::MAX);
        self.push_op(
            sg,
            OpSpec {
                opcode,
                inputs: inputs.to_vec(),
                outputs: outputs.to_vec(),
                ..OpSpec::default()
            },
        )
    }

    /// Makes the subgraph's tensors vector point `times` more times at its last tensor's table
    /// (tables shared by many vector entries: a model whose apparent size blows up).
    ///
    /// # Panics
    ///
    /// If `sg` was not returned by [`Self::subgraph`].
    pub fn repeat_last_tensor(&mut self, sg: usize, times: usize) {
        sg_mut(&mut self.subgraphs, sg).repeat_last_tensor = times;
    }

    /// Adds a custom op named `code` (planned like any op).
    ///
    /// # Panics
    ///
    /// If `sg` was not returned by [`Self::subgraph`].
    pub fn custom(&mut self, sg: usize, code: &str, inputs: &[i32], outputs: &[i32]) -> usize {
        let opcode = self.opcode(BuiltinOp::CUSTOM.0, Some(code));
        self.push_op(
            sg,
            OpSpec {
                opcode,
                inputs: inputs.to_vec(),
                outputs: outputs.to_vec(),
                ..OpSpec::default()
            },
        )
    }

    /// Adds a custom op named `code` with `options` as its `custom_options` (a flexbuffer, for
    /// the custom ops TFLite Micro registers).
    ///
    /// # Panics
    ///
    /// If `sg` was not returned by [`Self::subgraph`].
    pub fn custom_with_options(
        &mut self,
        sg: usize,
        code: &str,
        inputs: &[i32],
        outputs: &[i32],
        options: &[u8],
    ) -> usize {
        let opcode = self.opcode(BuiltinOp::CUSTOM.0, Some(code));
        self.push_op(
            sg,
            OpSpec {
                opcode,
                inputs: inputs.to_vec(),
                outputs: outputs.to_vec(),
                custom_options: options.to_vec(),
                ..OpSpec::default()
            },
        )
    }

    /// Adds an IF, WHILE or CALL_ONCE op running `callees`.
    ///
    /// # Panics
    ///
    /// If `sg` was not returned by [`Self::subgraph`].
    pub fn control_flow(
        &mut self,
        sg: usize,
        callees: Callees,
        inputs: &[i32],
        outputs: &[i32],
    ) -> usize {
        let code = match callees {
            Callees::If { .. } => BuiltinOp::IF,
            Callees::While { .. } => BuiltinOp::WHILE,
            Callees::CallOnce { .. } => BuiltinOp::CALL_ONCE,
        };
        let opcode = self.opcode(code.0, None);
        self.push_op(
            sg,
            OpSpec {
                opcode,
                inputs: inputs.to_vec(),
                outputs: outputs.to_vec(),
                callees: Some(callees),
                ..OpSpec::default()
            },
        )
    }

    /// Adds a control-flow op code without its options (a malformed model).
    ///
    /// # Panics
    ///
    /// If `sg` was not returned by [`Self::subgraph`].
    pub fn control_flow_without_options(
        &mut self,
        sg: usize,
        op: BuiltinOp,
        inputs: &[i32],
        outputs: &[i32],
    ) -> usize {
        self.op(sg, op, inputs, outputs)
    }

    /// Sets a subgraph's inputs and outputs.
    ///
    /// # Panics
    ///
    /// If `sg` was not returned by [`Self::subgraph`].
    pub fn io(&mut self, sg: usize, inputs: &[i32], outputs: &[i32]) {
        let s = sg_mut(&mut self.subgraphs, sg);
        s.inputs = inputs.to_vec();
        s.outputs = outputs.to_vec();
    }

    /// Adds a metadata entry with `data` in a new buffer.
    pub fn metadata(&mut self, name: &str, data: &[u8]) {
        let buffer = self.buffer(data);
        self.metadata.push((name.to_owned(), buffer));
    }

    /// Adds an `OfflineMemoryAllocation` entry in TFLite Micro's format: version 0, the number
    /// of subgraphs, the number of offsets, then `offsets` (one per tensor over all subgraphs,
    /// `-1` = plan online).
    pub fn offline_plan(&mut self, offsets: &[i32]) {
        let count = i32::try_from(offsets.len()).unwrap_or(i32::MAX);
        let subgraphs = i32::try_from(self.subgraphs.len()).unwrap_or(i32::MAX);
        let words: Vec<u8> = [0, subgraphs, count]
            .iter()
            .chain(offsets)
            .flat_map(|w| w.to_le_bytes())
            .collect();
        self.metadata(OFFLINE_PLAN_METADATA, &words);
    }

    /// Writes the model.
    #[must_use]
    pub fn finish(&self) -> Vec<u8> {
        let mut fbb = flatbuffers::FlatBufferBuilder::new();
        let opcodes: Vec<_> = self
            .opcodes
            .iter()
            .map(|(code, custom)| {
                let custom_code = custom.as_deref().map(|c| fbb.create_string(c));
                fb::OperatorCode::create(
                    &mut fbb,
                    &fb::OperatorCodeArgs {
                        deprecated_builtin_code: i8::try_from(*code).unwrap_or(127),
                        custom_code,
                        version: 1,
                        builtin_code: fb::BuiltinOperator(*code),
                    },
                )
            })
            .collect();
        let subgraphs: Vec<_> = self
            .subgraphs
            .iter()
            .enumerate()
            .map(|(sg_pos, s)| {
                let tensors: Vec<_> = s
                    .tensors
                    .iter()
                    .enumerate()
                    .map(|(ti, t)| {
                        let sparsity = self
                            .sparsity
                            .iter()
                            .find(|(g, i, _, _)| {
                                *g == sg_pos && usize::try_from(*i).ok() == Some(ti)
                            })
                            .map(|(_, _, sp, width)| write_sparsity(&mut fbb, sp, *width));
                        let shape = t.shape.as_deref().map(|v| fbb.create_vector(v));
                        let shape_signature =
                            t.shape_signature.as_deref().map(|v| fbb.create_vector(v));
                        let name = Some(fbb.create_string(&t.name));
                        let quantization = t.quantization.as_ref().map(|(scale, zp, dim)| {
                            let scale = Some(fbb.create_vector(scale));
                            let zero_point = Some(fbb.create_vector(zp));
                            fb::QuantizationParameters::create(
                                &mut fbb,
                                &fb::QuantizationParametersArgs {
                                    scale,
                                    zero_point,
                                    quantized_dimension: *dim,
                                    ..Default::default()
                                },
                            )
                        });
                        fb::Tensor::create(
                            &mut fbb,
                            &fb::TensorArgs {
                                shape,
                                type_: fb::TensorType(t.type_code),
                                buffer: t.buffer,
                                name,
                                is_variable: t.is_variable,
                                quantization,
                                sparsity,
                                shape_signature,
                            },
                        )
                    })
                    .collect();
                let ops: Vec<_> = s
                    .ops
                    .iter()
                    .map(|o| {
                        let inputs = Some(fbb.create_vector(&o.inputs));
                        let outputs = Some(fbb.create_vector(&o.outputs));
                        let intermediates = (!o.intermediates.is_empty())
                            .then(|| fbb.create_vector(&o.intermediates));
                        let (builtin_options_type, builtin_options) = match o.callees {
                            None => builtin_options(&mut fbb, &o.options),
                            Some(Callees::If { then, otherwise }) => (
                                fb::BuiltinOptions::IfOptions,
                                Some(
                                    fb::IfOptions::create(
                                        &mut fbb,
                                        &fb::IfOptionsArgs {
                                            then_subgraph_index: then,
                                            else_subgraph_index: otherwise,
                                        },
                                    )
                                    .as_union_value(),
                                ),
                            ),
                            Some(Callees::While { cond, body }) => (
                                fb::BuiltinOptions::WhileOptions,
                                Some(
                                    fb::WhileOptions::create(
                                        &mut fbb,
                                        &fb::WhileOptionsArgs {
                                            cond_subgraph_index: cond,
                                            body_subgraph_index: body,
                                        },
                                    )
                                    .as_union_value(),
                                ),
                            ),
                            Some(Callees::CallOnce { init }) => (
                                fb::BuiltinOptions::CallOnceOptions,
                                Some(
                                    fb::CallOnceOptions::create(
                                        &mut fbb,
                                        &fb::CallOnceOptionsArgs {
                                            init_subgraph_index: init,
                                        },
                                    )
                                    .as_union_value(),
                                ),
                            ),
                        };
                        let custom_options = (!o.custom_options.is_empty())
                            .then(|| fbb.create_vector(&o.custom_options));
                        fb::Operator::create(
                            &mut fbb,
                            &fb::OperatorArgs {
                                opcode_index: u32::try_from(o.opcode).unwrap_or(u32::MAX),
                                inputs,
                                outputs,
                                builtin_options_type,
                                builtin_options,
                                custom_options,
                                mutating_variable_inputs: None,
                                intermediates,
                            },
                        )
                    })
                    .collect();
                let mut tensors = tensors;
                if let Some(&last) = tensors.last() {
                    tensors.extend(std::iter::repeat_n(last, s.repeat_last_tensor));
                }
                let tensors = Some(fbb.create_vector(&tensors));
                let inputs = Some(fbb.create_vector(&s.inputs));
                let outputs = Some(fbb.create_vector(&s.outputs));
                let operators = Some(fbb.create_vector(&ops));
                let name = Some(fbb.create_string(&s.name));
                fb::SubGraph::create(
                    &mut fbb,
                    &fb::SubGraphArgs {
                        tensors,
                        inputs,
                        outputs,
                        operators,
                        name,
                    },
                )
            })
            .collect();
        let buffers: Vec<_> = self
            .buffers
            .iter()
            .enumerate()
            .map(|(i, data)| {
                let data = (!data.is_empty()).then(|| fbb.create_vector(data));
                let (offset, size) = self
                    .external
                    .iter()
                    .find(|e| usize::try_from(e.0).is_ok_and(|b| b == i))
                    .map_or((0, 0), |e| (e.1, e.2));
                fb::Buffer::create(&mut fbb, &fb::BufferArgs { data, offset, size })
            })
            .collect();
        let metadata: Vec<_> = self
            .metadata
            .iter()
            .map(|(name, buffer)| {
                let name = Some(fbb.create_string(name));
                fb::Metadata::create(
                    &mut fbb,
                    &fb::MetadataArgs {
                        name,
                        buffer: *buffer,
                    },
                )
            })
            .collect();
        let description = self.description.as_deref().map(|d| fbb.create_string(d));
        let args = fb::ModelArgs {
            version: 3,
            operator_codes: Some(fbb.create_vector(&opcodes)),
            subgraphs: Some(fbb.create_vector(&subgraphs)),
            description,
            buffers: Some(fbb.create_vector(&buffers)),
            metadata: (!metadata.is_empty()).then(|| fbb.create_vector(&metadata)),
        };
        let root = fb::Model::create(&mut fbb, &args);
        fb::finish_model_buffer(&mut fbb, root);
        fbb.finished_data().to_vec()
    }
}

/// Writes `SparsityParameters`, every segment and index vector as `width`.
fn write_sparsity<'b>(
    fbb: &mut flatbuffers::FlatBufferBuilder<'b>,
    sp: &Sparsity,
    width: IndexWidth,
) -> flatbuffers::WIPOffset<fb::SparsityParameters<'b>> {
    let index_vector = |fbb: &mut flatbuffers::FlatBufferBuilder<'b>, v: &[u32]| match width {
        IndexWidth::Int32 => {
            let values: Vec<i32> = v.iter().map(|&x| x as i32).collect();
            let values = Some(fbb.create_vector(&values));
            (
                fb::SparseIndexVector::Int32Vector,
                fb::Int32Vector::create(fbb, &fb::Int32VectorArgs { values }).as_union_value(),
            )
        }
        IndexWidth::Uint16 => {
            let values: Vec<u16> = v.iter().map(|&x| x as u16).collect();
            let values = Some(fbb.create_vector(&values));
            (
                fb::SparseIndexVector::Uint16Vector,
                fb::Uint16Vector::create(fbb, &fb::Uint16VectorArgs { values }).as_union_value(),
            )
        }
        IndexWidth::Uint8 => {
            let values = Some(fbb.create_vector(&v.iter().map(|&x| x as u8).collect::<Vec<u8>>()));
            (
                fb::SparseIndexVector::Uint8Vector,
                fb::Uint8Vector::create(fbb, &fb::Uint8VectorArgs { values }).as_union_value(),
            )
        }
    };
    let dims: Vec<_> = sp
        .dim_metadata
        .iter()
        .map(|d| {
            let (sparse, format) = match d.format {
                DimensionFormat::Dense => (false, fb::DimensionType::DENSE),
                DimensionFormat::SparseCsr => (true, fb::DimensionType::SPARSE_CSR),
            };
            let (segments, indices) = if sparse {
                (
                    Some(index_vector(fbb, &d.segments)),
                    Some(index_vector(fbb, &d.indices)),
                )
            } else {
                (None, None)
            };
            fb::DimensionMetadata::create(
                fbb,
                &fb::DimensionMetadataArgs {
                    format,
                    dense_size: d.dense_size,
                    array_segments_type: segments.map_or(fb::SparseIndexVector::NONE, |s| s.0),
                    array_segments: segments.map(|s| s.1),
                    array_indices_type: indices.map_or(fb::SparseIndexVector::NONE, |s| s.0),
                    array_indices: indices.map(|s| s.1),
                },
            )
        })
        .collect();
    let traversal_order = Some(fbb.create_vector(&sp.traversal_order));
    let block_map = (!sp.block_map.is_empty()).then(|| fbb.create_vector(&sp.block_map));
    let dim_metadata = Some(fbb.create_vector(&dims));
    fb::SparsityParameters::create(
        fbb,
        &fb::SparsityParametersArgs {
            traversal_order,
            block_map,
            dim_metadata,
        },
    )
}

fn activation_code(a: Activation) -> fb::ActivationFunctionType {
    fb::ActivationFunctionType(match a {
        Activation::None => 0,
        Activation::Relu => 1,
        Activation::ReluN1To1 => 2,
        Activation::Relu6 => 3,
        Activation::Tanh => 4,
        Activation::SignBit => 5,
        Activation::Unknown(code) => code,
    })
}

fn type_code(t: DType) -> fb::TensorType {
    fb::TensorType(t.code())
}

fn padding_code(p: Padding) -> fb::Padding {
    fb::Padding(match p {
        Padding::Same => 0,
        Padding::Valid => 1,
        Padding::Unknown(code) => code,
    })
}

/// The builtin options table for `options`, as the union's type and value.
#[allow(clippy::too_many_lines)]
fn builtin_options(
    fbb: &mut flatbuffers::FlatBufferBuilder<'_>,
    options: &OpOptions,
) -> (
    fb::BuiltinOptions,
    Option<flatbuffers::WIPOffset<flatbuffers::UnionWIPOffset>>,
) {
    let (kind, table) = match options.clone() {
        OpOptions::None => return (fb::BuiltinOptions::NONE, None),
        OpOptions::Conv2D {
            padding,
            stride_w,
            stride_h,
            dilation_w,
            dilation_h,
            activation,
        } => (
            fb::BuiltinOptions::Conv2DOptions,
            fb::Conv2DOptions::create(
                fbb,
                &fb::Conv2DOptionsArgs {
                    padding: padding_code(padding),
                    stride_w,
                    stride_h,
                    fused_activation_function: activation_code(activation),
                    dilation_w_factor: dilation_w,
                    dilation_h_factor: dilation_h,
                },
            )
            .as_union_value(),
        ),
        OpOptions::DepthwiseConv2D {
            padding,
            stride_w,
            stride_h,
            depth_multiplier,
            dilation_w,
            dilation_h,
            activation,
        } => (
            fb::BuiltinOptions::DepthwiseConv2DOptions,
            fb::DepthwiseConv2DOptions::create(
                fbb,
                &fb::DepthwiseConv2DOptionsArgs {
                    padding: padding_code(padding),
                    stride_w,
                    stride_h,
                    depth_multiplier,
                    fused_activation_function: activation_code(activation),
                    dilation_w_factor: dilation_w,
                    dilation_h_factor: dilation_h,
                },
            )
            .as_union_value(),
        ),
        OpOptions::Pool2D {
            padding,
            stride_w,
            stride_h,
            filter_w,
            filter_h,
            activation,
        } => (
            fb::BuiltinOptions::Pool2DOptions,
            fb::Pool2DOptions::create(
                fbb,
                &fb::Pool2DOptionsArgs {
                    padding: padding_code(padding),
                    stride_w,
                    stride_h,
                    filter_width: filter_w,
                    filter_height: filter_h,
                    fused_activation_function: activation_code(activation),
                },
            )
            .as_union_value(),
        ),
        OpOptions::FullyConnected {
            activation,
            keep_num_dims,
            shuffled_weights,
        } => (
            fb::BuiltinOptions::FullyConnectedOptions,
            fb::FullyConnectedOptions::create(
                fbb,
                &fb::FullyConnectedOptionsArgs {
                    fused_activation_function: activation_code(activation),
                    weights_format: if shuffled_weights {
                        fb::FullyConnectedOptionsWeightsFormat::SHUFFLED4x16INT8
                    } else {
                        fb::FullyConnectedOptionsWeightsFormat::DEFAULT
                    },
                    keep_num_dims,
                    asymmetric_quantize_inputs: false,
                },
            )
            .as_union_value(),
        ),
        OpOptions::Softmax { beta } => (
            fb::BuiltinOptions::SoftmaxOptions,
            fb::SoftmaxOptions::create(fbb, &fb::SoftmaxOptionsArgs { beta }).as_union_value(),
        ),
        OpOptions::Concatenation { axis, activation } => (
            fb::BuiltinOptions::ConcatenationOptions,
            fb::ConcatenationOptions::create(
                fbb,
                &fb::ConcatenationOptionsArgs {
                    axis,
                    fused_activation_function: activation_code(activation),
                },
            )
            .as_union_value(),
        ),
        OpOptions::Add {
            activation,
            pot_scale_int16,
        } => (
            fb::BuiltinOptions::AddOptions,
            fb::AddOptions::create(
                fbb,
                &fb::AddOptionsArgs {
                    fused_activation_function: activation_code(activation),
                    pot_scale_int16,
                },
            )
            .as_union_value(),
        ),
        OpOptions::Mul { activation } => (
            fb::BuiltinOptions::MulOptions,
            fb::MulOptions::create(
                fbb,
                &fb::MulOptionsArgs {
                    fused_activation_function: activation_code(activation),
                },
            )
            .as_union_value(),
        ),
        OpOptions::Reducer { keep_dims } => (
            fb::BuiltinOptions::ReducerOptions,
            fb::ReducerOptions::create(fbb, &fb::ReducerOptionsArgs { keep_dims }).as_union_value(),
        ),
        OpOptions::Svdf {
            rank,
            activation,
            asymmetric_quantize_inputs,
        } => (
            fb::BuiltinOptions::SVDFOptions,
            fb::SVDFOptions::create(
                fbb,
                &fb::SVDFOptionsArgs {
                    rank,
                    fused_activation_function: activation_code(activation),
                    asymmetric_quantize_inputs,
                },
            )
            .as_union_value(),
        ),
        OpOptions::L2Norm { activation } => (
            fb::BuiltinOptions::L2NormOptions,
            fb::L2NormOptions::create(
                fbb,
                &fb::L2NormOptionsArgs {
                    fused_activation_function: activation_code(activation),
                },
            )
            .as_union_value(),
        ),
        OpOptions::ResizeBilinear {
            align_corners,
            half_pixel_centers,
        } => (
            fb::BuiltinOptions::ResizeBilinearOptions,
            fb::ResizeBilinearOptions::create(
                fbb,
                &fb::ResizeBilinearOptionsArgs {
                    align_corners,
                    half_pixel_centers,
                },
            )
            .as_union_value(),
        ),
        OpOptions::SpaceToDepth { block_size } => (
            fb::BuiltinOptions::SpaceToDepthOptions,
            fb::SpaceToDepthOptions::create(fbb, &fb::SpaceToDepthOptionsArgs { block_size })
                .as_union_value(),
        ),
        OpOptions::Gather { axis, batch_dims } => (
            fb::BuiltinOptions::GatherOptions,
            fb::GatherOptions::create(fbb, &fb::GatherOptionsArgs { axis, batch_dims })
                .as_union_value(),
        ),
        OpOptions::Sub {
            activation,
            pot_scale_int16,
        } => (
            fb::BuiltinOptions::SubOptions,
            fb::SubOptions::create(
                fbb,
                &fb::SubOptionsArgs {
                    fused_activation_function: activation_code(activation),
                    pot_scale_int16,
                },
            )
            .as_union_value(),
        ),
        OpOptions::Div { activation } => (
            fb::BuiltinOptions::DivOptions,
            fb::DivOptions::create(
                fbb,
                &fb::DivOptionsArgs {
                    fused_activation_function: activation_code(activation),
                },
            )
            .as_union_value(),
        ),
        OpOptions::StridedSlice {
            begin_mask,
            end_mask,
            ellipsis_mask,
            new_axis_mask,
            shrink_axis_mask,
            offset,
        } => (
            fb::BuiltinOptions::StridedSliceOptions,
            fb::StridedSliceOptions::create(
                fbb,
                &fb::StridedSliceOptionsArgs {
                    begin_mask,
                    end_mask,
                    ellipsis_mask,
                    new_axis_mask,
                    shrink_axis_mask,
                    offset,
                },
            )
            .as_union_value(),
        ),
        OpOptions::Split { num_splits } => (
            fb::BuiltinOptions::SplitOptions,
            fb::SplitOptions::create(fbb, &fb::SplitOptionsArgs { num_splits }).as_union_value(),
        ),
        OpOptions::Cast {
            in_data_type,
            out_data_type,
        } => (
            fb::BuiltinOptions::CastOptions,
            fb::CastOptions::create(
                fbb,
                &fb::CastOptionsArgs {
                    in_data_type: type_code(in_data_type),
                    out_data_type: type_code(out_data_type),
                },
            )
            .as_union_value(),
        ),
        OpOptions::ArgMax { output_type } => (
            fb::BuiltinOptions::ArgMaxOptions,
            fb::ArgMaxOptions::create(
                fbb,
                &fb::ArgMaxOptionsArgs {
                    output_type: type_code(output_type),
                },
            )
            .as_union_value(),
        ),
        OpOptions::TransposeConv {
            padding,
            stride_w,
            stride_h,
            activation,
            quantized_bias_type,
        } => (
            fb::BuiltinOptions::TransposeConvOptions,
            fb::TransposeConvOptions::create(
                fbb,
                &fb::TransposeConvOptionsArgs {
                    padding: padding_code(padding),
                    stride_w,
                    stride_h,
                    fused_activation_function: activation_code(activation),
                    quantized_bias_type: type_code(quantized_bias_type),
                },
            )
            .as_union_value(),
        ),
        OpOptions::Shape { out_type } => (
            fb::BuiltinOptions::ShapeOptions,
            fb::ShapeOptions::create(
                fbb,
                &fb::ShapeOptionsArgs {
                    out_type: type_code(out_type),
                },
            )
            .as_union_value(),
        ),
        OpOptions::ArgMin { output_type } => (
            fb::BuiltinOptions::ArgMinOptions,
            fb::ArgMinOptions::create(
                fbb,
                &fb::ArgMinOptionsArgs {
                    output_type: type_code(output_type),
                },
            )
            .as_union_value(),
        ),
        OpOptions::Pack { values_count, axis } => (
            fb::BuiltinOptions::PackOptions,
            fb::PackOptions::create(fbb, &fb::PackOptionsArgs { values_count, axis })
                .as_union_value(),
        ),
        OpOptions::Unpack { num, axis } => (
            fb::BuiltinOptions::UnpackOptions,
            fb::UnpackOptions::create(fbb, &fb::UnpackOptionsArgs { num, axis }).as_union_value(),
        ),
        OpOptions::UnidirectionalSequenceLstm {
            activation,
            cell_clip,
            proj_clip,
            time_major,
            asymmetric_quantize_inputs,
            diagonal_recurrent_tensors,
        } => (
            fb::BuiltinOptions::UnidirectionalSequenceLSTMOptions,
            fb::UnidirectionalSequenceLSTMOptions::create(
                fbb,
                &fb::UnidirectionalSequenceLSTMOptionsArgs {
                    fused_activation_function: activation_code(activation),
                    cell_clip,
                    proj_clip,
                    time_major,
                    asymmetric_quantize_inputs,
                    diagonal_recurrent_tensors,
                },
            )
            .as_union_value(),
        ),
        OpOptions::ResizeNearestNeighbor {
            align_corners,
            half_pixel_centers,
        } => (
            fb::BuiltinOptions::ResizeNearestNeighborOptions,
            fb::ResizeNearestNeighborOptions::create(
                fbb,
                &fb::ResizeNearestNeighborOptionsArgs {
                    align_corners,
                    half_pixel_centers,
                },
            )
            .as_union_value(),
        ),
        OpOptions::LeakyRelu { alpha } => (
            fb::BuiltinOptions::LeakyReluOptions,
            fb::LeakyReluOptions::create(fbb, &fb::LeakyReluOptionsArgs { alpha }).as_union_value(),
        ),
        OpOptions::SplitV { num_splits } => (
            fb::BuiltinOptions::SplitVOptions,
            fb::SplitVOptions::create(fbb, &fb::SplitVOptionsArgs { num_splits }).as_union_value(),
        ),
        OpOptions::DepthToSpace { block_size } => (
            fb::BuiltinOptions::DepthToSpaceOptions,
            fb::DepthToSpaceOptions::create(fbb, &fb::DepthToSpaceOptionsArgs { block_size })
                .as_union_value(),
        ),
        OpOptions::BatchMatMul {
            adj_x,
            adj_y,
            asymmetric_quantize_inputs,
        } => (
            fb::BuiltinOptions::BatchMatMulOptions,
            fb::BatchMatMulOptions::create(
                fbb,
                &fb::BatchMatMulOptionsArgs {
                    adj_x,
                    adj_y,
                    asymmetric_quantize_inputs,
                },
            )
            .as_union_value(),
        ),
        OpOptions::Cumsum { exclusive, reverse } => (
            fb::BuiltinOptions::CumsumOptions,
            fb::CumsumOptions::create(fbb, &fb::CumsumOptionsArgs { exclusive, reverse })
                .as_union_value(),
        ),
        OpOptions::MirrorPad { symmetric } => (
            fb::BuiltinOptions::MirrorPadOptions,
            fb::MirrorPadOptions::create(
                fbb,
                &fb::MirrorPadOptionsArgs {
                    mode: if symmetric {
                        fb::MirrorPadMode::SYMMETRIC
                    } else {
                        fb::MirrorPadMode::REFLECT
                    },
                },
            )
            .as_union_value(),
        ),
        OpOptions::Reshape { new_shape } => {
            let new_shape = new_shape.map(|v| fbb.create_vector(&v));
            (
                fb::BuiltinOptions::ReshapeOptions,
                fb::ReshapeOptions::create(fbb, &fb::ReshapeOptionsArgs { new_shape })
                    .as_union_value(),
            )
        }
        OpOptions::Squeeze { squeeze_dims } => {
            let squeeze_dims = Some(fbb.create_vector(&squeeze_dims));
            (
                fb::BuiltinOptions::SqueezeOptions,
                fb::SqueezeOptions::create(fbb, &fb::SqueezeOptionsArgs { squeeze_dims })
                    .as_union_value(),
            )
        }
        OpOptions::VarHandle {
            container,
            shared_name,
        } => {
            let container = Some(fbb.create_string(&container));
            let shared_name = Some(fbb.create_string(&shared_name));
            (
                fb::BuiltinOptions::VarHandleOptions,
                fb::VarHandleOptions::create(
                    fbb,
                    &fb::VarHandleOptionsArgs {
                        container,
                        shared_name,
                    },
                )
                .as_union_value(),
            )
        }
    };
    (kind, Some(table))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tflite::{DimensionMetadata, read_model};

    /// Every options table the reader knows comes back as the builder wrote it.
    #[test]
    fn every_options_table_round_trips() {
        let a = Activation::Relu6;
        let all = vec![
            OpOptions::Conv2D {
                padding: Padding::Valid,
                stride_w: 2,
                stride_h: 3,
                dilation_w: 1,
                dilation_h: 2,
                activation: a,
            },
            OpOptions::DepthwiseConv2D {
                padding: Padding::Same,
                stride_w: 1,
                stride_h: 2,
                depth_multiplier: 3,
                dilation_w: 2,
                dilation_h: 1,
                activation: a,
            },
            OpOptions::Pool2D {
                padding: Padding::Same,
                stride_w: 2,
                stride_h: 2,
                filter_w: 3,
                filter_h: 1,
                activation: a,
            },
            OpOptions::FullyConnected {
                activation: a,
                keep_num_dims: true,
                shuffled_weights: false,
            },
            OpOptions::Softmax { beta: 0.5 },
            OpOptions::Concatenation {
                axis: -1,
                activation: Activation::None,
            },
            OpOptions::Add {
                activation: a,
                pot_scale_int16: false,
            },
            OpOptions::Mul { activation: a },
            OpOptions::Reducer { keep_dims: true },
            OpOptions::Reshape {
                new_shape: Some(vec![1, -1]),
            },
            OpOptions::Squeeze {
                squeeze_dims: vec![0, 2],
            },
            OpOptions::Svdf {
                rank: 2,
                activation: a,
                asymmetric_quantize_inputs: true,
            },
            OpOptions::L2Norm { activation: a },
            OpOptions::ResizeBilinear {
                align_corners: true,
                half_pixel_centers: false,
            },
            OpOptions::SpaceToDepth { block_size: 2 },
            OpOptions::Gather {
                axis: 1,
                batch_dims: 1,
            },
            OpOptions::Sub {
                activation: a,
                pot_scale_int16: false,
            },
            OpOptions::Div { activation: a },
            OpOptions::StridedSlice {
                begin_mask: 1,
                end_mask: 2,
                ellipsis_mask: 4,
                new_axis_mask: 8,
                shrink_axis_mask: 16,
                offset: true,
            },
            OpOptions::Split { num_splits: 3 },
            OpOptions::Cast {
                in_data_type: DType::Int8,
                out_data_type: DType::Float32,
            },
            OpOptions::ArgMax {
                output_type: DType::Int64,
            },
            OpOptions::TransposeConv {
                padding: Padding::Valid,
                stride_w: 2,
                stride_h: 1,
                activation: a,
                quantized_bias_type: DType::Int32,
            },
            OpOptions::Shape {
                out_type: DType::Int64,
            },
            OpOptions::ArgMin {
                output_type: DType::Int32,
            },
            OpOptions::Pack {
                values_count: 3,
                axis: -1,
            },
            OpOptions::Unpack { num: 4, axis: 1 },
            OpOptions::UnidirectionalSequenceLstm {
                activation: Activation::Tanh,
                cell_clip: 10.0,
                proj_clip: 0.5,
                time_major: true,
                asymmetric_quantize_inputs: false,
                diagonal_recurrent_tensors: true,
            },
            OpOptions::ResizeNearestNeighbor {
                align_corners: false,
                half_pixel_centers: true,
            },
            OpOptions::LeakyRelu { alpha: 0.2 },
            OpOptions::MirrorPad { symmetric: true },
            OpOptions::SplitV { num_splits: 2 },
            OpOptions::DepthToSpace { block_size: 4 },
            OpOptions::BatchMatMul {
                adj_x: true,
                adj_y: false,
                asymmetric_quantize_inputs: true,
            },
            OpOptions::Cumsum {
                exclusive: true,
                reverse: true,
            },
            OpOptions::VarHandle {
                container: "c".into(),
                shared_name: "state".into(),
            },
        ];
        let mut b = ModelBuilder::new();
        let sg = b.subgraph("main");
        let x = b.tensor(sg, "x", DType::Int8, &[4]);
        for o in &all {
            b.op_with_options(sg, BuiltinOp::RELU, &[x], &[x], o.clone());
        }
        b.custom_with_options(sg, "SignalRfft", &[x], &[x], &[1, 2, 3]);
        b.io(sg, &[x], &[x]);
        let bytes = b.finish();
        let model = read_model(&bytes).unwrap();
        let read: Vec<OpOptions> = model
            .ops
            .iter()
            .take(all.len())
            .map(|o| o.options.clone())
            .collect();
        assert_eq!(read, all);
        let custom = model.ops.last().unwrap();
        assert_eq!(custom.options, OpOptions::None);
        assert_eq!(&bytes[custom.custom_options.clone().unwrap()], &[1, 2, 3]);
    }

    // The reader's checks of sparse tensors, on models written here.
    /// A 2x4 float matrix in CSR (rows dense, columns sparse) with 3 values.
    fn csr() -> Sparsity {
        Sparsity {
            traversal_order: vec![0, 1],
            block_map: vec![],
            dim_metadata: vec![
                DimensionMetadata {
                    format: DimensionFormat::Dense,
                    dense_size: 2,
                    segments: vec![],
                    indices: vec![],
                },
                DimensionMetadata {
                    format: DimensionFormat::SparseCsr,
                    dense_size: 0,
                    segments: vec![0, 2, 3],
                    indices: vec![1, 3, 0],
                },
            ],
        }
    }

    fn sparse_model(sp: &Sparsity, width: IndexWidth) -> Vec<u8> {
        let mut b = ModelBuilder::new();
        let sg = b.subgraph("main");
        let w = b.constant(sg, "w", DType::Float32, &[2, 4], &[0; 12]);
        b.sparsity(sg, w, sp, width);
        let y = b.tensor(sg, "y", DType::Float32, &[2, 4]);
        b.op(sg, BuiltinOp::DENSIFY, &[w], &[y]);
        b.io(sg, &[], &[y]);
        b.finish()
    }

    #[test]
    fn sparsity_round_trips_in_every_width() {
        for width in [IndexWidth::Int32, IndexWidth::Uint16, IndexWidth::Uint8] {
            let m = read_model(&sparse_model(&csr(), width)).unwrap();
            assert_eq!(m.tensors[0].sparsity.as_ref(), Some(&csr()), "{width:?}");
            assert_eq!(m.tensors[1].sparsity, None);
        }
    }

    #[test]
    fn negative_sparse_indices_are_refused() {
        let mut sp = csr();
        sp.dim_metadata[1].indices[2] = u32::MAX; // written as int32 -1
        let err = read_model(&sparse_model(&sp, IndexWidth::Int32)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "tensor 0 \"w\" of subgraph 0 has malformed sparsity parameters: dimension 1's indices hold -1, a negative index"
        );
    }
}
