//! Multiply-accumulates per op: the work figure instruction counts are divided by.
//!
//! An op's MACs are its output elements × kernel height × kernel width × input channels per
//! group for CONV_2D (the filter is `[output channels, height, width, input channels per
//! group]`) and DEPTHWISE_CONV_2D (one input channel per group: the filter is `[1, height,
//! width, output channels]`), and its output elements × accumulation depth (the weights' last
//! dimension) for FULLY_CONNECTED. Other ops count none: their cost is not a multiply-accumulate
//! per weight.

use std::fmt;

use crate::graph::{ShapeOverride, tensor_infos};
use crate::tflite::{BuiltinOp, Model, Op, OpIndex, Opcode, SubgraphIndex, read_model};
use crate::{OpDesc, ReadModelError};

/// One op's MACs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpMacs {
    /// Its subgraph.
    pub subgraph: SubgraphIndex,
    /// Its index in the subgraph.
    pub index: OpIndex,
    /// What it does.
    pub opcode: Opcode,
    /// Its multiply-accumulates; `None` for an op that counts none (see the module's rule).
    pub macs: Option<u64>,
}

/// Why a model's MACs cannot be counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MacsError {
    /// The model cannot be read, or a shape is unknown or bad.
    Model(ReadModelError),
    /// An op's tensors do not have the shapes its kind needs.
    BadOp {
        /// The op.
        op: OpDesc,
        /// What is wrong.
        reason: String,
    },
}

impl fmt::Display for MacsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Model(e) => e.fmt(f),
            Self::BadOp { op, reason } => write!(f, "{op}: {reason}"),
        }
    }
}

impl std::error::Error for MacsError {}

impl From<ReadModelError> for MacsError {
    fn from(e: ReadModelError) -> Self {
        Self::Model(e)
    }
}

/// The MACs of every op of the model in `bytes`, in model order (subgraph by subgraph), with
/// `shapes` for tensors whose shape has `-1` dimensions (as for planning).
///
/// # Errors
///
/// [`MacsError::Model`] when the model cannot be read or a tensor's shape is unknown,
/// [`MacsError::BadOp`] when a counted op lacks an input or has shapes its kind cannot have,
/// or when its count does not fit in 64 bits.
pub fn model_macs(bytes: &[u8], shapes: &[ShapeOverride]) -> Result<Vec<OpMacs>, MacsError> {
    let model = read_model(bytes)?;
    let infos = tensor_infos(&model, shapes, false, false)?;
    model
        .ops
        .iter()
        .map(|op| {
            Ok(OpMacs {
                subgraph: op.subgraph,
                index: op.index,
                opcode: op.opcode.clone(),
                macs: op_macs(&model, &infos, op)?,
            })
        })
        .collect()
}

fn op_macs(
    model: &Model,
    infos: &[crate::graph::TensorInfo],
    op: &Op,
) -> Result<Option<u64>, MacsError> {
    let bad = |reason: String| MacsError::BadOp {
        op: op.desc(),
        reason,
    };
    let Opcode::Builtin(code) = &op.opcode else {
        return Ok(None);
    };
    let kind = match *code {
        BuiltinOp::CONV_2D => Kind::Conv,
        BuiltinOp::DEPTHWISE_CONV_2D => Kind::Depthwise,
        BuiltinOp::FULLY_CONNECTED => Kind::FullyConnected,
        _ => return Ok(None),
    };
    // The shape of the op's input `i` (or, with `output`, its output), as unsigned dimensions.
    let shape = |output: bool, i: usize| -> Result<Vec<u64>, MacsError> {
        let which = if output { "output" } else { "input" };
        let index = if output {
            op.outputs.get(i).copied()
        } else {
            op.inputs.get(i).copied().flatten()
        }
        .ok_or_else(|| bad(format!("it has no {which} {i}")))?;
        let tensor = model.tensor(op.subgraph, index).ok_or_else(|| {
            bad(format!(
                "its {which} {i} is tensor {index}, which is absent"
            ))
        })?;
        let dims = infos
            .get(tensor.id.get())
            .map_or(&tensor.shape, |info| &info.shape);
        dims.iter()
            .map(|&d| u64::try_from(d))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| bad(format!("{} has the unknown shape {dims:?}", tensor.desc())))
    };
    let overflow = || bad("its multiply-accumulates do not fit in 64 bits".into());
    let product = |dims: &[u64]| {
        dims.iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d))
            .ok_or_else(overflow)
    };
    let outputs = product(&shape(true, 0)?)?;
    let filter = shape(false, 1)?;
    let per_output = match (kind, filter.as_slice()) {
        (Kind::Conv, &[_, h, w, c]) => [h, w, c],
        (Kind::Depthwise, &[_, h, w, _]) => [h, w, 1],
        (Kind::FullyConnected, [.., depth]) => [*depth, 1, 1],
        (Kind::Conv | Kind::Depthwise, _) => {
            return Err(bad(format!(
                "its filter has shape {filter:?}; {code} needs [channels, height, width, channels]"
            )));
        }
        (Kind::FullyConnected, []) => {
            return Err(bad("its weights are a scalar".into()));
        }
    };
    product(&per_output)?
        .checked_mul(outputs)
        .map(Some)
        .ok_or_else(overflow)
}

#[derive(Clone, Copy)]
enum Kind {
    Conv,
    Depthwise,
    FullyConnected,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tflite::builder::{ModelBuilder, ops};
    use crate::tflite::{DType, OpIndex};

    fn only(m: &[OpMacs], index: u32) -> Option<u64> {
        m.iter()
            .find(|o| o.index == OpIndex(index))
            .and_then(|o| o.macs)
    }

    #[test]
    fn conv_depthwise_and_fully_connected() {
        let mut b = ModelBuilder::new();
        let sg = b.subgraph("main");
        let x = b.tensor(sg, "x", DType::Int8, &[1, 8, 8, 3]);
        // CONV_2D 3x3, 3 -> 4 channels, output 6x6: 6*6*4 outputs x 3*3*3.
        let f = b.constant(sg, "f", DType::Int8, &[4, 3, 3, 3], &[0; 108]);
        let y = b.tensor(sg, "y", DType::Int8, &[1, 6, 6, 4]);
        b.op(sg, ops::CONV_2D, &[x, f], &[y]);
        // DEPTHWISE_CONV_2D 3x3, 4 -> 8 channels (multiplier 2), output 4x4: 4*4*8 x 3*3.
        let d = b.constant(sg, "d", DType::Int8, &[1, 3, 3, 8], &[0; 72]);
        let z = b.tensor(sg, "z", DType::Int8, &[1, 4, 4, 8]);
        b.op(sg, BuiltinOp::DEPTHWISE_CONV_2D, &[y, d], &[z]);
        // FULLY_CONNECTED 128 -> 5: 5 outputs x 128.
        let w = b.constant(sg, "w", DType::Int8, &[5, 128], &[0; 640]);
        let o = b.tensor(sg, "o", DType::Int8, &[1, 5]);
        b.op(sg, ops::FULLY_CONNECTED, &[z, w], &[o]);
        let r = b.tensor(sg, "r", DType::Int8, &[1, 5]);
        b.op(sg, ops::RELU, &[o], &[r]);
        b.io(sg, &[x], &[r]);
        let m = model_macs(&b.finish(), &[]).unwrap();
        assert_eq!(m.len(), 4);
        assert_eq!(only(&m, 0), Some(6 * 6 * 4 * 27));
        assert_eq!(only(&m, 1), Some(4 * 4 * 8 * 9));
        assert_eq!(only(&m, 2), Some(5 * 128));
        assert_eq!(only(&m, 3), None);
        assert_eq!(m[3].opcode, Opcode::Builtin(BuiltinOp::RELU));
    }

    #[test]
    fn grouped_conv_counts_the_channels_of_a_group() {
        // 8 input channels in 2 groups: the filter holds 4 per output channel.
        let mut b = ModelBuilder::new();
        let sg = b.subgraph("main");
        let x = b.tensor(sg, "x", DType::Int8, &[1, 2, 2, 8]);
        let f = b.constant(sg, "f", DType::Int8, &[6, 1, 1, 4], &[0; 24]);
        let y = b.tensor(sg, "y", DType::Int8, &[1, 2, 2, 6]);
        b.op(sg, ops::CONV_2D, &[x, f], &[y]);
        b.io(sg, &[x], &[y]);
        assert_eq!(
            only(&model_macs(&b.finish(), &[]).unwrap(), 0),
            Some(24 * 4)
        );
    }

    #[test]
    fn bad_shapes_are_errors_naming_the_op() {
        let mut b = ModelBuilder::new();
        let sg = b.subgraph("main");
        let x = b.tensor(sg, "x", DType::Int8, &[1, 4, 4, 2]);
        let f = b.constant(sg, "f", DType::Int8, &[2, 2], &[0; 4]);
        let y = b.tensor(sg, "y", DType::Int8, &[1, 4, 4, 2]);
        b.op(sg, ops::CONV_2D, &[x, f], &[y]);
        b.io(sg, &[x], &[y]);
        let e = model_macs(&b.finish(), &[]).unwrap_err().to_string();
        assert_eq!(
            e,
            "op 0 (CONV_2D) of subgraph 0: its filter has shape [2, 2]; CONV_2D needs [channels, height, width, channels]"
        );

        // A FULLY_CONNECTED without weights.
        let mut b = ModelBuilder::new();
        let sg = b.subgraph("main");
        let x = b.tensor(sg, "x", DType::Int8, &[1, 4]);
        let y = b.tensor(sg, "y", DType::Int8, &[1, 4]);
        b.op(sg, ops::FULLY_CONNECTED, &[x], &[y]);
        b.io(sg, &[x], &[y]);
        let e = model_macs(&b.finish(), &[]).unwrap_err().to_string();
        assert_eq!(e, "op 0 (FULLY_CONNECTED) of subgraph 0: it has no input 1");
    }

    #[test]
    fn a_count_beyond_64_bits_is_an_error() {
        // A constant filter's shape is not bounded by the arena's limits.
        let big = i32::MAX;
        let mut b = ModelBuilder::new();
        let sg = b.subgraph("main");
        let x = b.tensor(sg, "x", DType::Int8, &[1, 1, 1, 1]);
        let f = b.constant(sg, "f", DType::Int8, &[1, big, big, big], &[0]);
        let y = b.tensor(sg, "y", DType::Int8, &[1, 1, 1, 1]);
        b.op(sg, ops::CONV_2D, &[x, f], &[y]);
        b.io(sg, &[x], &[y]);
        let e = model_macs(&b.finish(), &[]).unwrap_err().to_string();
        assert_eq!(
            e,
            "op 0 (CONV_2D) of subgraph 0: its multiply-accumulates do not fit in 64 bits"
        );
    }

    #[test]
    fn dynamic_shapes_need_an_override() {
        let mut b = ModelBuilder::new();
        let sg = b.subgraph("main");
        let x = b.tensor(sg, "x", DType::Int8, &[-1, 4]);
        let w = b.constant(sg, "w", DType::Int8, &[3, 4], &[0; 12]);
        let y = b.tensor(sg, "y", DType::Int8, &[-1, 3]);
        b.op(sg, ops::FULLY_CONNECTED, &[x, w], &[y]);
        b.io(sg, &[x], &[y]);
        let bytes = b.finish();
        assert!(model_macs(&bytes, &[]).is_err());
        let shapes: Vec<ShapeOverride> = ["x=2x4", "y=2x3"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        assert_eq!(
            only(&model_macs(&bytes, &shapes).unwrap(), 0),
            Some(2 * 3 * 4)
        );
    }
}
