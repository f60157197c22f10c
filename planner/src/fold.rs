//! Constant folding: ops whose inputs are all constants, evaluated when the crate compiles.
//!
//! With generated `invoke` ([`crate::Options::fold_cap`]), every op whose present inputs are
//! all constants (in the file, or made by an earlier folded op) and whose module can evaluate
//! it ([`crate::ops::Folding`]: the runtime's own kernel, compiled into the planner from the
//! same source) is run here, in execution order: its outputs become constants in flash, take no
//! arena and no time on the device, and its step in `invoke` is empty. A model's weights stored
//! as float16 (`DEQUANTIZE` to float32) or sparse (`DENSIFY`) become the dense float32 weights
//! the next op reads.
//!
//! Ops the device has no kernel for (`DENSIFY`) are folded first, so that the cap is spent on
//! them before any op `invoke` could run instead. Folding never creates more than the cap's
//! bytes in all: an op whose outputs would pass it
//! runs on the device, and [`Folding::not_folded`] says so (a `FILL` or `BROADCAST_TO` of tiny
//! constants must not emit gigabytes). The size is known from the output shapes before
//! anything is computed. Ops that are not folded although their inputs are constants are
//! listed with the reason; ops that read a tensor the device writes are not candidates.

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::OpDesc;
use crate::graph::TensorInfo;
use crate::ops::{self, FoldedData, Lower, Refusal};
use crate::tflite::{Model, TensorId, TensorIndex};

/// The default cap on the bytes folding may create: 256 KiB.
pub const DEFAULT_CAP: u64 = 256 * 1024;

/// One folded op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoldedOp {
    /// The op.
    pub op: OpDesc,
    /// Its position in [`Model::ops`].
    pub position: usize,
    /// Its outputs, now constants.
    pub outputs: Vec<TensorId>,
    /// The bytes its outputs take in flash.
    pub bytes: u64,
    /// The bytes of the model's constants it read that no op left to the device reads: they
    /// no longer reach the binary (generated code copies out only the constants it uses).
    pub freed: u64,
}

/// An op whose inputs are all constants but that runs on the device, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotFolded {
    /// The op.
    pub op: OpDesc,
    /// Why it was not folded.
    pub reason: String,
}

/// What folding did to a model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Folding {
    /// The cap it ran under (0: folding was off).
    pub cap: u64,
    /// The bytes of every folded tensor.
    pub data: FoldedData,
    /// The folded ops, in execution order.
    pub folded: Vec<FoldedOp>,
    /// Ops with only constant inputs left to the device, in execution order.
    pub not_folded: Vec<NotFolded>,
}

impl Folding {
    /// The bytes folding added to flash.
    #[must_use]
    pub fn flash_bytes(&self) -> u64 {
        self.folded.iter().map(|f| f.bytes).sum()
    }

    /// The bytes of model constants folding left unread ([`FoldedOp::freed`]).
    #[must_use]
    pub fn freed_bytes(&self) -> u64 {
        self.folded.iter().map(|f| f.freed).sum()
    }

    /// Whether the op at `position` in [`Model::ops`] was folded.
    #[must_use]
    pub fn is_folded(&self, position: usize) -> bool {
        self.folded.iter().any(|f| f.position == position)
    }

    /// Whether anything is worth reporting.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.folded.is_empty() && self.not_folded.is_empty()
    }
}

/// Folds `model` (read from `bytes`, its tensors sized as `tensors`) under a cap of `cap` bytes:
/// each folded op's outputs are marked constant in `model` (plan its tensors again), their
/// bytes returned.
pub fn fold(model: &mut Model, tensors: &[TensorInfo], bytes: &[u8], cap: u64) -> Folding {
    let mut out = Folding {
        cap,
        ..Folding::default()
    };
    let mut made: u64 = 0;
    let mut misses = Vec::new();
    // First the ops the device cannot run (DENSIFY): they must fold for `invoke` to exist;
    // then every other, in execution order.
    for last in [false, true] {
        misses.clear();
        for position in 0..model.ops.len() {
            if out.is_folded(position) {
                continue;
            }
            fold_one(
                model,
                tensors,
                bytes,
                cap,
                position,
                last,
                &mut made,
                &mut out,
                &mut misses,
            );
        }
    }
    out.not_folded = misses;
    out.folded.sort_by_key(|f| f.position);
    freed(model, &mut out);
    out
}

/// Folds the op at `position` if it can (on the first pass, `last == false`, only if the
/// device has no kernel for it), or says in `misses` why not.
#[allow(clippy::too_many_arguments, clippy::too_many_lines)]
fn fold_one(
    model: &mut Model,
    tensors: &[TensorInfo],
    bytes: &[u8],
    cap: u64,
    position: usize,
    last: bool,
    made: &mut u64,
    out: &mut Folding,
    misses: &mut Vec<NotFolded>,
) {
    let rt: TokenStream = quote!(stowplan);
    let params = format_ident!("FOLDED");
    let state = crate::persistent::State::default();
    {
        let Some(op) = model.ops.get(position) else {
            return;
        };
        let Some(sg) = model.subgraphs.get(op.subgraph.get()) else {
            return;
        };
        let io: HashSet<TensorIndex> = sg.inputs.iter().chain(&sg.outputs).copied().collect();
        let tensor = |i: TensorIndex| model.tensor(op.subgraph, i);
        let inputs: Vec<_> = op.inputs.iter().flatten().map(|&i| tensor(i)).collect();
        let all_constant = !inputs.is_empty()
            && inputs
                .iter()
                .all(|t| t.is_some_and(|t| t.is_constant && !t.is_variable));
        if !all_constant || !op.callees.is_empty() || op.outputs.is_empty() {
            return;
        }
        let outputs: Vec<_> = op.outputs.iter().map(|&i| tensor(i)).collect();
        let not = |reason: String| NotFolded {
            op: op.desc(),
            reason,
        };
        if let Some(t) = op
            .outputs
            .iter()
            .zip(&outputs)
            .find(|(i, t)| io.contains(i) || t.is_none_or(|t| t.is_variable || t.is_constant))
            .and_then(|(_, t)| *t)
        {
            misses.push(not(format!(
                "its output {} is an input or output of its subgraph, a variable or a constant",
                t.desc()
            )));
            return;
        }
        let Some(fold) = ops::kind(&op.opcode).and_then(|k| k.fold) else {
            misses.push(not(format!(
                "stowplan cannot evaluate {} when it builds",
                op.opcode
            )));
            return;
        };
        if !last {
            // The first pass folds only what the device cannot run.
            let device_runs = ops::kind(&op.opcode)
                .and_then(|k| k.lower)
                .is_some_and(|lower| {
                    let cx = Lower {
                        model,
                        tensors,
                        state: &state,
                        bytes,
                        op,
                        rt: &rt,
                        params: &params,
                        folded: &out.data,
                        overlap: None,
                        overwrite: None,
                        chosen: None,
                        scratch: &[],
                    };
                    !matches!(lower(&cx), Err(Refusal::Unsupported(_)))
                });
            if device_runs {
                return;
            }
        }
        let sizes: Option<Vec<u64>> = outputs
            .iter()
            .map(|t| {
                t.and_then(|t| tensors.get(t.id.get()))
                    .and_then(|i| i.bytes)
            })
            .collect();
        let Some(sizes) = sizes else {
            misses.push(not("an output's size is not known".to_owned()));
            return;
        };
        let total = sizes.iter().try_fold(0u64, |a, &b| a.checked_add(b));
        let after = total.and_then(|t| t.checked_add(*made));
        let Some(after) = after.filter(|&a| a <= cap) else {
            misses.push(not(format!(
                "its outputs take {} bytes; folding them would make {} bytes in all, above the cap of {cap}",
                total.map_or_else(|| "too many".to_owned(), |t| t.to_string()),
                after.map_or_else(|| "too many".to_owned(), |t| t.to_string()),
            )));
            return;
        };
        let cx = Lower {
            model,
            tensors,
            state: &state,
            bytes,
            op,
            rt: &rt,
            params: &params,
            folded: &out.data,
            overlap: None,
            overwrite: None,
            chosen: None,
            scratch: &[],
        };
        let result = match fold(&cx) {
            Ok(values) => {
                let fits = values.len() == sizes.len()
                    && values
                        .iter()
                        .zip(&sizes)
                        .all(|(v, &s)| u64::try_from(v.len()).ok() == Some(s));
                if fits {
                    Ok(values)
                } else {
                    Err("its evaluation did not give its outputs' sizes".to_owned())
                }
            }
            Err(r) => Err(r.message().to_owned()),
        };
        match result {
            Ok(values) => {
                let ids: Vec<TensorId> = outputs.iter().flatten().map(|t| t.id).collect();
                let desc = op.desc();
                for (id, v) in ids.iter().zip(values) {
                    out.data.insert(*id, v);
                }
                for id in &ids {
                    if let Some(t) = model.tensors.get_mut(id.get()) {
                        t.is_constant = true;
                    }
                }
                *made = after;
                out.folded.push(FoldedOp {
                    op: desc,
                    position,
                    outputs: ids,
                    bytes: total.unwrap_or(0),
                    freed: 0,
                });
            }
            Err(reason) => misses.push(not(reason)),
        }
    }
}

/// Fills in [`FoldedOp::freed`]: each model constant read only by folded ops counts once, for
/// the first folded op that reads it.
fn freed(model: &Model, out: &mut Folding) {
    let mut device_reads: HashSet<TensorId> = HashSet::new();
    for (position, op) in model.ops.iter().enumerate() {
        if !out.is_folded(position) {
            for &i in op.inputs.iter().flatten() {
                if let Some(t) = model.tensor(op.subgraph, i) {
                    device_reads.insert(t.id);
                }
            }
        }
    }
    let mut counted: HashSet<TensorId> = HashSet::new();
    for f in &mut out.folded {
        let Some(op) = model.ops.get(f.position) else {
            continue;
        };
        for &i in op.inputs.iter().flatten() {
            let Some(t) = model.tensor(op.subgraph, i) else {
                continue;
            };
            if out.data.contains_key(&t.id) || device_reads.contains(&t.id) || !counted.insert(t.id)
            {
                continue;
            }
            let len = model
                .buffers
                .get(t.buffer.get())
                .and_then(|b| b.data.as_ref())
                .map_or(0, |r| r.len() as u64);
            f.freed = f.freed.saturating_add(len);
        }
    }
}
