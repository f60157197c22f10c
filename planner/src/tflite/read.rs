//! Reading a `.tflite` file: a verified flatbuffer view, then validation of its meaning.
//!
//! [`read_model`] first runs the flatbuffers verifier with explicit limits (so no accessor can
//! read out of bounds and nothing is allocated in proportion to a count the bytes do not hold),
//! then copies what planning needs into owned types, checking every index on the way: opcode,
//! tensor, buffer and subgraph indices, control-flow options, the offline plan. Shapes, types
//! and sizes are checked by [`crate::graph`], where shape overrides apply.

use super::error::{ReadModelError, describe_invalid};
use super::model::{
    Activation, BufferIndex, BufferInfo, BuiltinOp, DType, DimensionFormat, DimensionMetadata,
    MAX_MODEL_BYTES, MetadataEntry, Model, OFFLINE_PLAN_METADATA, Op, OpIndex, OpOptions, Opcode,
    Padding, Quantization, Sparsity, Subgraph, SubgraphIndex, Tensor, TensorId, TensorIndex,
};
use super::model::{OpDesc, TensorDesc};
use super::schema::tflite as fb;

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
            pot_scale_int16: x.pot_scale_int16(),
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
    more_options(o)
}

/// The options of the ops beyond the first kernels'.
#[allow(clippy::too_many_lines)]
fn more_options(o: &fb::Operator<'_>) -> OpOptions {
    let act = Activation::from_fb;
    let dtype = |t: fb::TensorType| DType::from_code(t.0);
    if let Some(x) = o.builtin_options_as_reshape_options() {
        return OpOptions::Reshape {
            new_shape: x.new_shape().map(|v| v.iter().collect()),
        };
    }
    if let Some(x) = o.builtin_options_as_squeeze_options() {
        return OpOptions::Squeeze {
            squeeze_dims: x
                .squeeze_dims()
                .map(|v| v.iter().collect())
                .unwrap_or_default(),
        };
    }
    if let Some(x) = o.builtin_options_as_svdfoptions() {
        return OpOptions::Svdf {
            rank: x.rank(),
            activation: act(x.fused_activation_function()),
            asymmetric_quantize_inputs: x.asymmetric_quantize_inputs(),
        };
    }
    if let Some(x) = o.builtin_options_as_l2_norm_options() {
        return OpOptions::L2Norm {
            activation: act(x.fused_activation_function()),
        };
    }
    if let Some(x) = o.builtin_options_as_resize_bilinear_options() {
        return OpOptions::ResizeBilinear {
            align_corners: x.align_corners(),
            half_pixel_centers: x.half_pixel_centers(),
        };
    }
    if let Some(x) = o.builtin_options_as_space_to_depth_options() {
        return OpOptions::SpaceToDepth {
            block_size: x.block_size(),
        };
    }
    if let Some(x) = o.builtin_options_as_gather_options() {
        return OpOptions::Gather {
            axis: x.axis(),
            batch_dims: x.batch_dims(),
        };
    }
    if let Some(x) = o.builtin_options_as_sub_options() {
        return OpOptions::Sub {
            activation: act(x.fused_activation_function()),
            pot_scale_int16: x.pot_scale_int16(),
        };
    }
    if let Some(x) = o.builtin_options_as_div_options() {
        return OpOptions::Div {
            activation: act(x.fused_activation_function()),
        };
    }
    if let Some(x) = o.builtin_options_as_strided_slice_options() {
        return OpOptions::StridedSlice {
            begin_mask: x.begin_mask(),
            end_mask: x.end_mask(),
            ellipsis_mask: x.ellipsis_mask(),
            new_axis_mask: x.new_axis_mask(),
            shrink_axis_mask: x.shrink_axis_mask(),
            offset: x.offset(),
        };
    }
    if let Some(x) = o.builtin_options_as_split_options() {
        return OpOptions::Split {
            num_splits: x.num_splits(),
        };
    }
    if let Some(x) = o.builtin_options_as_cast_options() {
        return OpOptions::Cast {
            in_data_type: dtype(x.in_data_type()),
            out_data_type: dtype(x.out_data_type()),
        };
    }
    if let Some(x) = o.builtin_options_as_arg_max_options() {
        return OpOptions::ArgMax {
            output_type: dtype(x.output_type()),
        };
    }
    if let Some(x) = o.builtin_options_as_transpose_conv_options() {
        return OpOptions::TransposeConv {
            padding: Padding::from_fb(x.padding()),
            stride_w: x.stride_w(),
            stride_h: x.stride_h(),
            activation: act(x.fused_activation_function()),
            quantized_bias_type: dtype(x.quantized_bias_type()),
        };
    }
    if let Some(x) = o.builtin_options_as_shape_options() {
        return OpOptions::Shape {
            out_type: dtype(x.out_type()),
        };
    }
    if let Some(x) = o.builtin_options_as_arg_min_options() {
        return OpOptions::ArgMin {
            output_type: dtype(x.output_type()),
        };
    }
    if let Some(x) = o.builtin_options_as_pack_options() {
        return OpOptions::Pack {
            values_count: x.values_count(),
            axis: x.axis(),
        };
    }
    if let Some(x) = o.builtin_options_as_unpack_options() {
        return OpOptions::Unpack {
            num: x.num(),
            axis: x.axis(),
        };
    }
    if let Some(x) = o.builtin_options_as_unidirectional_sequence_lstmoptions() {
        return OpOptions::UnidirectionalSequenceLstm {
            activation: act(x.fused_activation_function()),
            cell_clip: x.cell_clip(),
            proj_clip: x.proj_clip(),
            time_major: x.time_major(),
            asymmetric_quantize_inputs: x.asymmetric_quantize_inputs(),
            diagonal_recurrent_tensors: x.diagonal_recurrent_tensors(),
        };
    }
    if let Some(x) = o.builtin_options_as_resize_nearest_neighbor_options() {
        return OpOptions::ResizeNearestNeighbor {
            align_corners: x.align_corners(),
            half_pixel_centers: x.half_pixel_centers(),
        };
    }
    if let Some(x) = o.builtin_options_as_leaky_relu_options() {
        return OpOptions::LeakyRelu { alpha: x.alpha() };
    }
    if let Some(x) = o.builtin_options_as_mirror_pad_options() {
        return OpOptions::MirrorPad {
            symmetric: x.mode() == fb::MirrorPadMode::SYMMETRIC,
        };
    }
    if let Some(x) = o.builtin_options_as_split_voptions() {
        return OpOptions::SplitV {
            num_splits: x.num_splits(),
        };
    }
    if let Some(x) = o.builtin_options_as_depth_to_space_options() {
        return OpOptions::DepthToSpace {
            block_size: x.block_size(),
        };
    }
    if let Some(x) = o.builtin_options_as_batch_mat_mul_options() {
        return OpOptions::BatchMatMul {
            adj_x: x.adj_x(),
            adj_y: x.adj_y(),
            asymmetric_quantize_inputs: x.asymmetric_quantize_inputs(),
        };
    }
    if let Some(x) = o.builtin_options_as_cumsum_options() {
        return OpOptions::Cumsum {
            exclusive: x.exclusive(),
            reverse: x.reverse(),
        };
    }
    if let Some(x) = o.builtin_options_as_var_handle_options() {
        return OpOptions::VarHandle {
            container: x.container().unwrap_or_default().to_owned(),
            shared_name: x.shared_name().unwrap_or_default().to_owned(),
        };
    }
    OpOptions::None
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
                reason: describe_invalid(&e),
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
    // Every subgraph's tensors and ops, reserved at once: grown by doubling, the two vectors
    // of a model of a million ops held up to twice their size, and both copies while they grew.
    let (tensor_total, op_total) = fb_subgraphs.iter().fold((0usize, 0usize), |(t, o), sg| {
        (
            t.saturating_add(sg.tensors().map_or(0, |v| v.len())),
            o.saturating_add(sg.operators().map_or(0, |v| v.len())),
        )
    });
    let mut tensors = Vec::with_capacity(tensor_total);
    let mut ops = Vec::with_capacity(op_total);

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
            let sparsity = t
                .sparsity()
                .map(|sp| {
                    read_sparsity(&sp).map_err(|reason| ReadModelError::BadSparsity {
                        tensor: TensorDesc {
                            subgraph,
                            index,
                            name: name.clone(),
                        },
                        reason,
                    })
                })
                .transpose()?;
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
                sparsity,
            });
            check_zero_points(tensors.last())?;
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
                custom_options: o.custom_options().filter(|d| !d.is_empty()).map(|d| {
                    let start = d.bytes().as_ptr() as usize - base;
                    start..start + d.len()
                }),
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
        file_len: bytes.len(),
    })
}

/// Every zero point of a quantised integer tensor must be a value of its type: an `int8`
/// tensor's in `-128..=127` (so that no kernel's offset can overflow, and `i32::MIN` never
/// reaches the arithmetic of code generation).
fn check_zero_points(tensor: Option<&Tensor>) -> Result<(), ReadModelError> {
    let Some(t) = tensor else {
        return Ok(());
    };
    let (Some(q), Some((min, max))) = (&t.quantization, t.dtype.integer_range()) else {
        return Ok(());
    };
    match q.zero_point.iter().find(|&&z| z < min || z > max) {
        Some(&zero_point) => Err(ReadModelError::ZeroPointOutOfRange {
            tensor: t.desc(),
            dtype: t.dtype,
            zero_point,
        }),
        None => Ok(()),
    }
}

/// A tensor's `SparsityParameters`, as the file gives them: every dimension's format known,
/// a sparse dimension with both its segments and its indices, every value of them
/// non-negative. Whether they fit the tensor's shape and data is DENSIFY's to check. The work
/// is linear in the vectors' lengths, which the verifier bounded by the file.
fn read_sparsity(sp: &fb::SparsityParameters<'_>) -> Result<Sparsity, String> {
    let traversal_order: Vec<i32> = sp
        .traversal_order()
        .map(|v| v.iter().collect())
        .unwrap_or_default();
    let block_map: Vec<i32> = sp
        .block_map()
        .map(|v| v.iter().collect())
        .unwrap_or_default();
    let mut dim_metadata = Vec::new();
    for (i, d) in sp.dim_metadata().iter().flatten().enumerate() {
        let format = match d.format() {
            fb::DimensionType::DENSE => DimensionFormat::Dense,
            fb::DimensionType::SPARSE_CSR => DimensionFormat::SparseCsr,
            other => {
                return Err(format!(
                    "dimension {i} has format code {}, neither DENSE nor SPARSE_CSR",
                    other.0
                ));
            }
        };
        let (segments, indices) = if format == DimensionFormat::SparseCsr {
            (
                index_vector(&d, true).map_err(|e| format!("dimension {i}'s segments {e}"))?,
                index_vector(&d, false).map_err(|e| format!("dimension {i}'s indices {e}"))?,
            )
        } else {
            (Vec::new(), Vec::new())
        };
        dim_metadata.push(DimensionMetadata {
            format,
            dense_size: d.dense_size(),
            segments,
            indices,
        });
    }
    Ok(Sparsity {
        traversal_order,
        block_map,
        dim_metadata,
    })
}

/// `array_segments` (`segments`) or `array_indices` of a sparse dimension, in any of the
/// union's widths, each value checked to be non-negative.
fn index_vector(d: &fb::DimensionMetadata<'_>, segments: bool) -> Result<Vec<u32>, String> {
    let (kind, int32, uint16, uint8) = if segments {
        (
            d.array_segments_type(),
            d.array_segments_as_int_32_vector(),
            d.array_segments_as_uint_16_vector(),
            d.array_segments_as_uint_8_vector(),
        )
    } else {
        (
            d.array_indices_type(),
            d.array_indices_as_int_32_vector(),
            d.array_indices_as_uint_16_vector(),
            d.array_indices_as_uint_8_vector(),
        )
    };
    if let Some(v) = int32 {
        return v
            .values()
            .iter()
            .flatten()
            .map(|x| u32::try_from(x).map_err(|_| format!("hold {x}, a negative index")))
            .collect();
    }
    if let Some(v) = uint16 {
        return Ok(v.values().iter().flatten().map(u32::from).collect());
    }
    if let Some(v) = uint8 {
        return Ok(v.values().iter().flatten().map(u32::from).collect());
    }
    Err(match kind {
        fb::SparseIndexVector::NONE => "are missing".to_owned(),
        other => format!(
            "have union type {}, not Int32Vector, Uint16Vector or Uint8Vector",
            other.0
        ),
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
