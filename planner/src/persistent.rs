//! The persistent region's layout: what a model keeps across invocations ([`State`]: variable
//! tensors, resource variables, kernel state, flags) and where each item lies. [`crate::state`]
//! plans it; lowering reads it (a resource variable's offset by its handle), and so do the
//! reports and the generated code.

use std::collections::BTreeMap;

use crate::graph::TensorInfo;
use crate::tflite::{DType, Model, TensorId};

/// A resource variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceVariable {
    /// `VarHandleOptions.container`.
    pub container: String,
    /// `VarHandleOptions.shared_name`.
    pub shared_name: String,
    /// The element type of the values assigned to it.
    pub dtype: DType,
    /// Its bytes.
    pub bytes: u64,
    /// The byte TFLM's reset writes over it.
    pub reset_byte: u8,
    /// Its offset in the persistent region.
    pub offset: u64,
}

/// A variable tensor in the persistent region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VariableTensor {
    /// The tensor.
    pub tensor: TensorId,
    /// Its offset in the persistent region.
    pub offset: u64,
    /// Its bytes.
    pub bytes: u64,
    /// The byte TFLM's reset writes over it.
    pub reset_byte: u8,
    /// Whether TFLM's reset leaves it as it is: `CIRCULAR_BUFFER`'s output, an ordinary tensor
    /// in TFLM that its kernel keeps (0 in a new region, as in TFLM's zeroed arena).
    pub kept: bool,
}

/// The state an op's kernel keeps across invocations, in the persistent region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelState {
    /// The op (position in [`Model::ops`]).
    pub op: usize,
    /// Its offset in the persistent region.
    pub offset: u64,
    /// Its bytes (a multiple of 4: the kernel sees `u32` words).
    pub bytes: u64,
}

/// The persistent region of a model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    /// Variable tensors, in tensor id order.
    pub variables: Vec<VariableTensor>,
    /// Resource variables, in the order their first `VAR_HANDLE` appears.
    pub resources: Vec<ResourceVariable>,
    /// Kernel state, by op position.
    pub kernels: Vec<KernelState>,
    /// The `CALL_ONCE` ops (positions in [`Model::ops`]), each with a flag byte.
    pub call_once: Vec<usize>,
    /// Offset of the flags (the "reset once" byte, then one per `CALL_ONCE`), if any.
    pub flags: Option<u64>,
    /// Bytes of the region (every item aligned).
    pub bytes: u64,
    /// Bytes of the items without alignment padding.
    pub raw_bytes: u64,
    /// Which resource variable each handle tensor (a `VAR_HANDLE` output, or a subgraph input
    /// it flows into) refers to, by index into `resources`.
    pub(crate) handles: BTreeMap<TensorId, usize>,
}

impl State {
    /// The resource variable a handle tensor refers to.
    #[must_use]
    pub fn variable_of(&self, handle: TensorId) -> Option<&ResourceVariable> {
        self.handles
            .get(&handle)
            .and_then(|&i| self.resources.get(i))
    }

    /// Whether the model keeps anything across invocations.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// Whether the region needs its "reset once" flag: some reset value is not 0, so a zeroed
    /// region is not the reset state.
    #[must_use]
    pub fn needs_reset(&self) -> bool {
        self.variables.iter().any(|v| v.reset_byte != 0)
            || self.resources.iter().any(|r| r.reset_byte != 0)
    }
}

/// What one item of the persistent region holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateItemKind {
    /// A variable tensor.
    Variable(TensorId),
    /// A resource variable, by index into [`State::resources`].
    Resource(usize),
    /// An op's kernel state, by op position.
    Kernel(usize),
    /// The flags: the "reset once" byte, then one per `CALL_ONCE` op.
    Flags,
}

/// One item of the persistent region, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateItem {
    /// What it holds.
    pub kind: StateItemKind,
    /// Its offset in the persistent region.
    pub offset: u64,
    /// Its bytes (without alignment padding).
    pub bytes: u64,
    /// How reports name it: `tensor 7 "h" int8[1,40]`, `resource variable "ring" int8`,
    /// `flags (reset once, 1 CALL_ONCE)`.
    pub label: String,
}

impl State {
    /// Every item of the region with bytes, in offset order (variable tensors, resource
    /// variables, flags), labelled with `model`'s names.
    #[must_use]
    pub fn items(&self, model: &Model, tensors: &[TensorInfo]) -> Vec<StateItem> {
        let mut items = Vec::new();
        for v in &self.variables {
            let label = model.tensors.get(v.tensor.get()).map_or_else(
                || format!("tensor {}", v.tensor),
                |t| {
                    let shape = tensors
                        .get(v.tensor.get())
                        .map_or_else(String::new, |i| crate::tflite::format_shape(&i.shape));
                    format!(
                        "{} {} {:?} {}{shape}",
                        if v.kept {
                            "circular buffer tensor"
                        } else {
                            "variable tensor"
                        },
                        t.id,
                        t.name,
                        t.dtype.name()
                    )
                },
            );
            items.push(StateItem {
                kind: StateItemKind::Variable(v.tensor),
                offset: v.offset,
                bytes: v.bytes,
                label,
            });
        }
        for (i, r) in self.resources.iter().enumerate() {
            if r.bytes == 0 {
                continue;
            }
            let container = if r.container.is_empty() {
                String::new()
            } else {
                format!(" in {:?}", r.container)
            };
            items.push(StateItem {
                kind: StateItemKind::Resource(i),
                offset: r.offset,
                bytes: r.bytes,
                label: format!(
                    "resource variable {:?}{container} {}",
                    r.shared_name,
                    r.dtype.name()
                ),
            });
        }
        for k in &self.kernels {
            items.push(StateItem {
                kind: StateItemKind::Kernel(k.op),
                offset: k.offset,
                bytes: k.bytes,
                label: model.ops.get(k.op).map_or_else(
                    || format!("kernel state of op {}", k.op),
                    |op| format!("kernel state of {}", op.desc()),
                ),
            });
        }
        if let Some(offset) = self.flags {
            let n = self.call_once.len();
            let plural = if n == 1 { "" } else { "s" };
            items.push(StateItem {
                kind: StateItemKind::Flags,
                offset,
                bytes: 1 + n as u64,
                label: format!("flags (reset once, {n} CALL_ONCE op{plural})"),
            });
        }
        items
    }
}
