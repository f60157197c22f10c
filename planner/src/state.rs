//! The persistent region: what a model keeps across invocations, with its offsets, planned at
//! build time.
//!
//! - **Variable tensors** (`is_variable`: SVDF and LSTM state), TFLM's
//!   `ResetVariableTensors` value: the zero point for int8 tensors, 0 otherwise; and
//!   `CIRCULAR_BUFFER`'s output (its window), which TFLM's reset leaves as it is (`kept`).
//! - **Resource variables**: each `VAR_HANDLE` names one by container and shared name (the
//!   same name in several subgraphs is one variable, as TFLM's `MicroResourceVariables` finds
//!   it); its bytes are those of the value its `ASSIGN_VARIABLE`s write (all must agree, and one
//!   must exist: a size known only at run time is an error naming the variable); TFLM's reset
//!   value is the int8 cast of that value's zero point (`memset`).
//! - **Kernel state**: what an op's kernel keeps from one invocation to the next outside any
//!   tensor (TFLM's persistent buffers that its `Reset` clears: `SignalFilterBankSpectralSubtraction`'s
//!   noise estimate), sized by [`crate::ops::kernel_state`]; TFLM's reset value is 0.
//! - **Flags**, when the model needs them: one byte saying the region was reset once (TFLM's
//!   `AllocateTensors` resets every variable; a zeroed region is that state unless some reset
//!   value is not 0), and one per `CALL_ONCE` op saying its subgraph has run (TFLM's `Reset`
//!   keeps it).
//!
//! Handles reach `READ_VARIABLE` and `ASSIGN_VARIABLE` from a `VAR_HANDLE` in their subgraph or
//! through the inputs of the IF or WHILE that calls it; [`State::variable_of`] resolves them.
//!
//! Every item starts at a multiple of the alignment and of its element size (kernel state: 4);
//! the region's size is [`State::bytes`].

use crate::error::ReadModelError;
use crate::graph::{Placement, TensorInfo};
pub use crate::persistent::{
    KernelState, ResourceVariable, State, StateItem, StateItemKind, VariableTensor,
};
use crate::tflite::{BuiltinOp, DType, Model, OpOptions, Opcode, TensorId};

fn align_up(n: u64, alignment: u64) -> u64 {
    n.div_ceil(alignment).saturating_mul(alignment)
}

/// Where an item of `bytes` whose elements are `element` bytes wide goes after `end`: its
/// offset, a multiple of the alignment and of its element size (a power of two, so the larger
/// of the two), and the region's new end (the item rounded up to the alignment). With an
/// alignment below the element size (`align = 1`) a `u32` word or an int16 value still lands
/// on its own boundary, as the typed views over the region need.
fn place(end: u64, bytes: u64, element: u64, alignment: u64) -> (u64, u64) {
    let offset = align_up(end, alignment.max(element));
    (offset, offset.saturating_add(align_up(bytes, alignment)))
}

/// The width of `dtype`'s elements the region's typed views align to: its size when a power
/// of two, else 1.
fn element_align(dtype: DType) -> u64 {
    dtype
        .element_bytes()
        .filter(|b| b.is_power_of_two())
        .unwrap_or(1)
}

/// The int8 zero point TFLM's resets write (`memset` with it): the first zero point, cast to
/// `int8_t`.
fn reset_byte(model: &Model, tensor: TensorId, int8_only: bool) -> u8 {
    let Some(t) = model.tensors.get(tensor.get()) else {
        return 0;
    };
    if int8_only && t.dtype != DType::Int8 {
        return 0;
    }
    let zp = t
        .quantization
        .as_ref()
        .and_then(|q| q.zero_point.first().copied())
        .unwrap_or(0);
    zp as i8 as u8
}

/// Plans the persistent region of `model`, read from `file` (see the [module docs](self)).
///
/// # Errors
///
/// [`ReadModelError::ResourceVariable`] for a `VAR_HANDLE` without a shared name, a resource
/// variable never assigned (its size is unknown at build time), assigned or read with values of
/// different sizes, or a handle whose variable cannot be known at build time.
pub fn plan_state(
    model: &Model,
    file: &[u8],
    tensors: &[TensorInfo],
    alignment: u64,
) -> Result<State, ReadModelError> {
    let mut state = State::default();
    let mut end: u64 = 0;
    let mut raw: u64 = 0;
    for (tensor, info) in model.tensors.iter().zip(tensors) {
        if info.placement == Placement::Persistent {
            let bytes = info.bytes.unwrap_or(0);
            let kept = !tensor.is_variable;
            let offset;
            (offset, end) = place(end, bytes, element_align(tensor.dtype), alignment);
            state.variables.push(VariableTensor {
                tensor: tensor.id,
                offset,
                bytes,
                reset_byte: if kept {
                    0
                } else {
                    reset_byte(model, tensor.id, true)
                },
                kept,
            });
            raw = raw.saturating_add(bytes);
        }
    }

    // Resource variables: one per (container, shared name), handles resolved.
    let id = |sg: usize, t: crate::tflite::TensorIndex| {
        model
            .subgraphs
            .get(sg)
            .map(|s| TensorId(u32::try_from(s.first_tensor + t.get()).unwrap_or(u32::MAX)))
    };
    let mut names: Vec<(String, String)> = Vec::new();
    for op in &model.ops {
        if op.opcode != Opcode::Builtin(BuiltinOp::VAR_HANDLE) {
            continue;
        }
        let OpOptions::VarHandle {
            container,
            shared_name,
        } = &op.options
        else {
            return Err(ReadModelError::ResourceVariable {
                op: op.desc(),
                reason: "it has no VarHandleOptions, so the variable it names is unknown".into(),
            });
        };
        // TFLM's FindId: a variable with the same shared name and container (an empty
        // container matches any).
        let index = match names
            .iter()
            .position(|(c, s)| s == shared_name && (c == container || container.is_empty()))
        {
            Some(i) => i,
            None => {
                names.push((container.clone(), shared_name.clone()));
                names.len() - 1
            }
        };
        for &o in &op.outputs {
            if let Some(t) = id(op.subgraph.get(), o) {
                state.handles.insert(t, index);
            }
        }
    }
    // Handles flow into the subgraphs IF and WHILE call, and out of WHILE.
    for _ in 0..=model.subgraphs.len() {
        let mut changed = false;
        for op in &model.ops {
            let (skip, out_follows) = match op.opcode {
                Opcode::Builtin(BuiltinOp::IF) => (1, false),
                Opcode::Builtin(BuiltinOp::WHILE) => (0, true),
                _ => continue,
            };
            for (j, input) in op.inputs.iter().enumerate().skip(skip) {
                let Some(from) = input.and_then(|t| id(op.subgraph.get(), t)) else {
                    continue;
                };
                let Some(&var) = state.handles.get(&from) else {
                    continue;
                };
                let k = j - skip;
                let mut targets = Vec::new();
                for callee in &op.callees {
                    if let Some(sg) = model.subgraphs.get(callee.get())
                        && let Some(&t) = sg.inputs.get(k)
                    {
                        targets.extend(id(callee.get(), t));
                    }
                }
                if out_follows && let Some(&o) = op.outputs.get(k) {
                    targets.extend(id(op.subgraph.get(), o));
                }
                for t in targets {
                    if state.handles.insert(t, var) != Some(var) {
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Sizes from the values assigned, checked against every read.
    let mut sized: Vec<Option<(u64, DType, u8)>> = vec![None; names.len()];
    let mut first_read: Vec<Option<crate::OpDesc>> = vec![None; names.len()];
    for op in &model.ops {
        let is_assign = op.opcode == Opcode::Builtin(BuiltinOp::ASSIGN_VARIABLE);
        let is_read = op.opcode == Opcode::Builtin(BuiltinOp::READ_VARIABLE);
        if !is_assign && !is_read {
            continue;
        }
        let handle = op
            .inputs
            .first()
            .copied()
            .flatten()
            .and_then(|t| id(op.subgraph.get(), t));
        let Some(&var) = handle.and_then(|h| state.handles.get(&h)) else {
            return Err(ReadModelError::ResourceVariable {
                op: op.desc(),
                reason: "its handle does not come from a VAR_HANDLE stowplan can follow (one in its subgraph, or passed in by IF or WHILE)".into(),
            });
        };
        let value = if is_assign {
            op.inputs.get(1).copied().flatten()
        } else {
            op.outputs.first().copied()
        }
        .and_then(|t| id(op.subgraph.get(), t));
        let Some(value) = value else {
            return Err(ReadModelError::ResourceVariable {
                op: op.desc(),
                reason: "it has no value tensor".into(),
            });
        };
        let bytes = tensors.get(value.get()).and_then(|i| i.bytes).unwrap_or(0);
        let dtype = model
            .tensors
            .get(value.get())
            .map_or(DType::Int8, |t| t.dtype);
        let name = names.get(var).map_or("", |(_, s)| s.as_str());
        if is_read && let Some(slot @ None) = first_read.get_mut(var) {
            *slot = Some(op.desc());
        }
        match sized.get_mut(var) {
            Some(slot @ None) if is_assign => {
                *slot = Some((bytes, dtype, reset_byte(model, value, false)));
            }
            Some(Some((b, _, _))) if *b != bytes => {
                return Err(ReadModelError::ResourceVariable {
                    op: op.desc(),
                    reason: format!(
                        "it {} {bytes} bytes of resource variable {name:?}, which holds {b}",
                        if is_assign { "assigns" } else { "reads" }
                    ),
                });
            }
            _ => {}
        }
    }
    for (i, ((container, shared_name), size)) in names.into_iter().zip(sized).enumerate() {
        let Some((bytes, dtype, reset)) = size else {
            // A variable no op assigns needs no room, unless it is read: then its size is not
            // known at build time.
            if let Some(op) = first_read.get_mut(i).and_then(Option::take) {
                return Err(ReadModelError::ResourceVariable {
                    op,
                    reason: format!(
                        "resource variable {shared_name:?} is read but never assigned, so its size is not known at build time"
                    ),
                });
            }
            state.resources.push(ResourceVariable {
                container,
                shared_name,
                dtype: DType::Int8,
                bytes: 0,
                reset_byte: 0,
                offset: end,
            });
            continue;
        };
        let offset;
        (offset, end) = place(end, bytes, element_align(dtype), alignment);
        state.resources.push(ResourceVariable {
            container,
            shared_name,
            dtype,
            bytes,
            reset_byte: reset,
            offset,
        });
        raw = raw.saturating_add(bytes);
    }

    for (position, op) in model.ops.iter().enumerate() {
        let bytes = crate::ops::kernel_state(model, file, op);
        if bytes > 0 {
            // Kernel state is `u32` words.
            let offset;
            (offset, end) = place(end, bytes, 4, alignment);
            state.kernels.push(KernelState {
                op: position,
                offset,
                bytes,
            });
            raw = raw.saturating_add(bytes);
        }
    }

    state.call_once = model
        .ops
        .iter()
        .enumerate()
        .filter(|(_, op)| op.opcode == Opcode::Builtin(BuiltinOp::CALL_ONCE))
        .map(|(i, _)| i)
        .collect();
    if state.needs_reset() || !state.call_once.is_empty() {
        let flags = 1 + state.call_once.len() as u64;
        state.flags = Some(end);
        end = end.saturating_add(align_up(flags, alignment));
        raw = raw.saturating_add(flags);
    }
    state.bytes = end;
    state.raw_bytes = raw;
    Ok(state)
}
