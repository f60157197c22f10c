//! What each tensor is for planning: its effective shape, its size, its kind, and whether it is
//! planned in the arena, kept in the persistent region, or left out.
//!
//! The rules are TensorFlow Lite Micro's (`InitializeAllocationInfo`): a tensor is planned if it
//! has no constant data, is not a variable, and has a non-zero size. Variable tensors (state kept
//! across invocations) go to the persistent region, unless an offline plan gives them an offset.
//! Outputs of `VAR_HANDLE` (resource handles) are not planned at all: TFLM points them at
//! persistent memory before planning. Sizes use `shape` (not `shape_signature`) times the element
//! size, with checked arithmetic; a `-1` left in `shape` is an error unless overridden.

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use crate::error::ReadModelError;
use crate::tflite::{BuiltinOp, Model, Opcode, SubgraphIndex, TensorId, TensorIndex};

/// Largest tensor planned: 4 GiB - 1, what a 32-bit target can address at all.
pub const MAX_TENSOR_BYTES: u64 = u32::MAX as u64;

/// What a tensor is, for reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TensorKind {
    /// An input of its subgraph.
    Input,
    /// An output of its subgraph.
    Output,
    /// Written and read by ops of its subgraph.
    Intermediate,
    /// State kept across invocations (a variable tensor or a `VAR_HANDLE` resource handle).
    Variable,
    /// Data stored in the model (weights, biases, shapes).
    Constant,
}

impl TensorKind {
    /// The lowercase name used in reports and JSON.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Input => "input",
            Self::Output => "output",
            Self::Intermediate => "intermediate",
            Self::Variable => "variable",
            Self::Constant => "constant",
        }
    }
}

impl fmt::Display for TensorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a tensor's bytes live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Placement {
    /// Planned in the arena.
    Arena,
    /// A variable tensor, kept in the persistent region for the whole run.
    Persistent,
    /// Not in RAM planned by us: constants (in the model), zero-size tensors, resource handles.
    None,
    /// A size known only at run time (a `-1` in `shape` or `shape_signature`), left out of the
    /// plan and served by a buffer cache at run time (`dynamic = "cache"`).
    Dynamic,
}

/// The planning view of one tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorInfo {
    /// The shape used: the model's, or the override.
    pub shape: Vec<i32>,
    /// Bytes: elements times element size. `None` for a constant whose size is not computable.
    pub bytes: Option<u64>,
    /// Its kind.
    pub kind: TensorKind,
    /// Where its bytes live.
    pub placement: Placement,
    /// A fixed offset from the offline plan, when it is honoured.
    pub fixed_offset: Option<u64>,
}

/// Which tensor a [`ShapeOverride`] is for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TensorRef {
    /// A tensor index in subgraph 0.
    Index(u32),
    /// A tensor name; it must name exactly one tensor of the model.
    Name(String),
}

impl fmt::Display for TensorRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Index(i) => write!(f, "tensor {i}"),
            Self::Name(n) => write!(f, "tensor {n:?}"),
        }
    }
}

/// A shape given by the user for a tensor whose `shape` has unknown (`-1`) dimensions.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShapeOverride {
    /// The tensor.
    pub tensor: TensorRef,
    /// Its shape.
    pub shape: Vec<i32>,
}

impl FromStr for ShapeOverride {
    type Err = ReadModelError;

    /// Parses `T=1x96x96x1`: `T` is a tensor index in subgraph 0 or a tensor name, split from
    /// the dimensions at the last `=` (so names may contain `=`); dimensions are separated by `x`
    /// or `,`; an empty list is a scalar.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |reason: String| ReadModelError::BadShapeOverride { reason };
        let (tensor, dims) = s.rsplit_once('=').ok_or_else(|| {
            bad(format!(
                "{s:?} is not of the form TENSOR=DIMS, for example 0=1x96x96x1"
            ))
        })?;
        if tensor.is_empty() {
            return Err(bad(format!("{s:?} names no tensor")));
        }
        let tensor = match tensor.parse::<u32>() {
            Ok(i) => TensorRef::Index(i),
            Err(_) => TensorRef::Name(tensor.to_owned()),
        };
        let shape = if dims.is_empty() {
            Vec::new()
        } else {
            dims.split(['x', ','])
                .map(|d| {
                    d.trim()
                        .parse::<i32>()
                        .ok()
                        .filter(|&d| d >= 0)
                        .ok_or_else(|| {
                            bad(format!(
                                "dimension {d:?} in {s:?} is not a non-negative integer"
                            ))
                        })
                })
                .collect::<Result<Vec<_>, _>>()?
        };
        Ok(Self { tensor, shape })
    }
}

fn resolve(model: &Model, r: &TensorRef) -> Result<TensorId, ReadModelError> {
    let bad = |reason: String| ReadModelError::BadShapeOverride { reason };
    match r {
        TensorRef::Index(i) => model
            .tensor(SubgraphIndex(0), TensorIndex(*i))
            .map(|t| t.id)
            .ok_or_else(|| bad(format!("subgraph 0 has no tensor {i}"))),
        TensorRef::Name(name) => {
            let mut found = model.tensors.iter().filter(|t| &t.name == name);
            match (found.next(), found.next()) {
                (Some(t), None) => Ok(t.id),
                (None, _) => Err(bad(format!("no tensor is named {name:?}"))),
                (Some(a), Some(b)) => Err(bad(format!(
                    "{name:?} names several tensors ({} and {}); use a tensor index",
                    a.desc(),
                    b.desc()
                ))),
            }
        }
    }
}

/// Computes the [`TensorInfo`] of every tensor (indexed by [`TensorId`]).
///
/// `honour_offline` says whether offsets from the model's offline plan are used.
///
/// # Errors
///
/// [`ReadModelError`] for a bad override, a negative dimension, a `-1` left in the shape of a
/// tensor that needs memory, a type without a fixed size, a size above [`MAX_TENSOR_BYTES`], or
/// an op reading a tensor before anything wrote it.
pub fn tensor_infos(
    model: &Model,
    overrides: &[ShapeOverride],
    honour_offline: bool,
    dynamic_cache: bool,
) -> Result<Vec<TensorInfo>, ReadModelError> {
    let mut shapes: Vec<Option<&[i32]>> = vec![None; model.tensors.len()];
    for o in overrides {
        let id = resolve(model, &o.tensor)?;
        let Some(tensor) = model.tensors.get(id.get()) else {
            continue;
        };
        if tensor.shape.len() != o.shape.len() {
            return Err(ReadModelError::BadShapeOverride {
                reason: format!(
                    "{} has rank {}, the override gives rank {}",
                    tensor.desc(),
                    tensor.shape.len(),
                    o.shape.len()
                ),
            });
        }
        if let Some((axis, (&model_dim, &given))) = tensor
            .shape
            .iter()
            .zip(&o.shape)
            .enumerate()
            .find(|(_, (m, g))| **m != -1 && m != g)
        {
            return Err(ReadModelError::BadShapeOverride {
                reason: format!(
                    "{} has dimension {axis} = {model_dim}, the override gives {given}; only -1 dimensions can be set",
                    tensor.desc()
                ),
            });
        }
        if let Some(slot) = shapes.get_mut(id.get()) {
            *slot = Some(&o.shape);
        }
    }

    let resource_handles: HashSet<(SubgraphIndex, TensorIndex)> = model
        .ops
        .iter()
        .filter(|op| op.opcode == Opcode::Builtin(BuiltinOp::VAR_HANDLE))
        .flat_map(|op| op.outputs.iter().map(move |&t| (op.subgraph, t)))
        .collect();

    // CIRCULAR_BUFFER's output is its window, kept from one invocation to the next.
    let windows: HashSet<(SubgraphIndex, TensorIndex)> = model
        .ops
        .iter()
        .filter(|op| op.is_circular_buffer())
        .filter_map(|op| op.outputs.first().map(|&t| (op.subgraph, t)))
        .collect();

    let mut infos = Vec::with_capacity(model.tensors.len());
    for subgraph in &model.subgraphs {
        let inputs: HashSet<TensorIndex> = subgraph.inputs.iter().copied().collect();
        let outputs: HashSet<TensorIndex> = subgraph.outputs.iter().copied().collect();
        for tensor in model.subgraph_tensors(subgraph) {
            let shape: Vec<i32> = shapes
                .get(tensor.id.get())
                .copied()
                .flatten()
                .unwrap_or(&tensor.shape)
                .to_vec();
            if shape.iter().any(|&d| d < -1) {
                return Err(ReadModelError::NegativeDimension {
                    tensor: tensor.desc(),
                    shape,
                });
            }
            let handle = resource_handles.contains(&(tensor.subgraph, tensor.index));
            let kind = if tensor.is_constant {
                TensorKind::Constant
            } else if tensor.is_variable || handle {
                TensorKind::Variable
            } else if inputs.contains(&tensor.index) {
                TensorKind::Input
            } else if outputs.contains(&tensor.index) {
                TensorKind::Output
            } else {
                TensorKind::Intermediate
            };
            let needs_memory = !tensor.is_constant && !handle;
            let overridden = shapes.get(tensor.id.get()).copied().flatten().is_some();
            let signature_dynamic = tensor
                .shape_signature
                .as_ref()
                .is_some_and(|s| s.contains(&-1));
            if dynamic_cache
                && needs_memory
                && !overridden
                && (shape.contains(&-1) || signature_dynamic)
            {
                // Sized at run time: the shape keeps its -1s (the signature's where it has them).
                let shape = match &tensor.shape_signature {
                    Some(sig) if signature_dynamic && sig.len() == shape.len() => sig.clone(),
                    _ => shape,
                };
                infos.push(TensorInfo {
                    shape,
                    bytes: None,
                    kind,
                    placement: Placement::Dynamic,
                    fixed_offset: None,
                });
                continue;
            }
            let bytes =
                if needs_memory {
                    if shape.contains(&-1) {
                        return Err(ReadModelError::DynamicShape {
                            tensor: tensor.desc(),
                            shape,
                        });
                    }
                    let element = tensor.dtype.element_bytes().ok_or_else(|| {
                        ReadModelError::UnsizedType {
                            tensor: tensor.desc(),
                            dtype: tensor.dtype,
                        }
                    })?;
                    let bytes = tensor_bytes(&shape, element)
                        .filter(|&b| b <= MAX_TENSOR_BYTES)
                        .ok_or_else(|| ReadModelError::TensorTooLarge {
                            tensor: tensor.desc(),
                            shape: shape.clone(),
                            dtype: tensor.dtype,
                            limit: MAX_TENSOR_BYTES,
                        })?;
                    Some(bytes)
                } else {
                    tensor
                        .dtype
                        .element_bytes()
                        .and_then(|e| tensor_bytes(&shape, e))
                };
            let fixed_offset = if honour_offline {
                model
                    .offline_plan
                    .as_ref()
                    .and_then(|p| p.get(tensor.id.get()).copied().flatten())
            } else {
                None
            };
            let placement = match bytes {
                Some(b) if b > 0 && needs_memory => {
                    if (tensor.is_variable && fixed_offset.is_none())
                        || windows.contains(&(tensor.subgraph, tensor.index))
                    {
                        Placement::Persistent
                    } else {
                        Placement::Arena
                    }
                }
                _ => Placement::None,
            };
            infos.push(TensorInfo {
                shape,
                bytes,
                kind,
                placement,
                fixed_offset: if placement == Placement::Arena {
                    fixed_offset
                } else {
                    None
                },
            });
        }
    }
    check_reads(model, &infos)?;
    Ok(infos)
}

/// Elements times `element` bytes, `None` on overflow or a negative dimension.
fn tensor_bytes(shape: &[i32], element: u64) -> Option<u64> {
    shape
        .iter()
        .try_fold(element, |acc, &d| acc.checked_mul(u64::try_from(d).ok()?))
}

/// Every tensor an op reads must be an input, constant or variable of its subgraph, written by an
/// earlier op, or placed by the model's offline plan.
fn check_reads(model: &Model, infos: &[TensorInfo]) -> Result<(), ReadModelError> {
    for subgraph in &model.subgraphs {
        let tensors = model.subgraph_tensors(subgraph);
        let mut written: HashSet<TensorIndex> = subgraph.inputs.iter().copied().collect();
        for op in model.subgraph_ops(subgraph) {
            for &t in op.inputs.iter().flatten() {
                let Some(tensor) = tensors.get(t.get()) else {
                    continue;
                };
                let info = infos.get(tensor.id.get());
                // A tensor the model's own offline plan places (Vela's scratch areas) is the
                // offline planner's business.
                let offline = model
                    .offline_plan
                    .as_ref()
                    .and_then(|p| p.get(tensor.id.get()).copied().flatten());
                let readable = written.contains(&t)
                    || tensor.is_constant
                    || tensor.is_variable
                    || offline.is_some()
                    || info.is_some_and(|i| {
                        i.kind == TensorKind::Variable
                            || i.placement == Placement::None
                            || i.placement == Placement::Dynamic
                    });
                if !readable {
                    // TFLite's sentinel: an offset of 0 or 1 means no external data.
                    if let Some(b) = model.buffers.get(tensor.buffer.get())
                        && b.offset > 1
                    {
                        return Err(ReadModelError::ExternalBufferData {
                            op: op.desc(),
                            tensor: tensor.desc(),
                            offset: b.offset,
                            size: b.size,
                            file_len: model.file_len,
                        });
                    }
                    return Err(ReadModelError::ReadBeforeWrite {
                        op: op.desc(),
                        tensor: tensor.desc(),
                    });
                }
            }
            written.extend(op.outputs.iter().copied());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_override_parses_index_and_name() {
        let o: ShapeOverride = "0=1x96x96x1".parse().unwrap();
        assert_eq!(
            o,
            ShapeOverride {
                tensor: TensorRef::Index(0),
                shape: vec![1, 96, 96, 1]
            }
        );
        let o: ShapeOverride = "a=b=2,3".parse().unwrap();
        assert_eq!(
            o,
            ShapeOverride {
                tensor: TensorRef::Name("a=b".into()),
                shape: vec![2, 3]
            }
        );
        let o: ShapeOverride = "x=".parse().unwrap();
        assert_eq!(o.shape, Vec::<i32>::new());
    }

    #[test]
    fn shape_override_rejects_nonsense() {
        for bad in ["1x2", "=1x2", "0=1x-2", "0=1xx2", "0=abc"] {
            let err = bad.parse::<ShapeOverride>().unwrap_err();
            assert!(
                matches!(err, ReadModelError::BadShapeOverride { .. }),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn tensor_bytes_is_checked() {
        assert_eq!(tensor_bytes(&[], 4), Some(4));
        assert_eq!(tensor_bytes(&[2, 3], 2), Some(12));
        assert_eq!(tensor_bytes(&[0, 3], 2), Some(0));
        assert_eq!(tensor_bytes(&[i32::MAX, i32::MAX, i32::MAX], 8), None);
        assert_eq!(tensor_bytes(&[-1], 1), None);
    }
}
