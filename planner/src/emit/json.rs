//! The JSON report; its schema is documented in docs/cli.md ("JSON output").

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::graph::Placement;
use crate::plan::{LiveProfile, Plan, Problem};
use crate::tflite::{Opcode, TensorId};
use crate::{ModelPlan, OfflinePolicy};

fn scope_json(scope: Option<u32>) -> Value {
    scope.map_or(json!(-1), |s| json!(s))
}

/// The JSON report of a model plan. `model` is how the report names the model (its path).
///
/// The whole report as one value: on models of many tensors prefer [`write_model_json`], which
/// writes the same bytes without holding every tensor's object at once.
#[must_use]
pub fn model_json(plan: &ModelPlan, model: &str) -> Value {
    let variables = variable_offsets(plan);
    let mut out = report_head(plan, model);
    if let Some(obj) = out.as_object_mut() {
        let tensors: Vec<Value> = (0..plan.model.tensors.len().min(plan.tensors.len()))
            .filter_map(|i| tensor_json(plan, &variables, i))
            .collect();
        let ops: Vec<Value> = (0..plan.model.ops.len().min(plan.lifetimes.op_times.len()))
            .filter_map(|i| op_json(plan, i))
            .collect();
        obj.insert(TENSORS.to_owned(), Value::Array(tensors));
        obj.insert(OPS.to_owned(), Value::Array(ops));
    }
    out
}

/// Writes the JSON report of a model plan to `out`: the bytes of
/// `model_json(plan, model).to_string()`, one tensor's and one op's object at a time, so memory
/// stays that of the plan (a chain of a million ops: hundreds of megabytes of text, where the
/// whole [`Value`] once took gigabytes). Pass a buffered writer.
///
/// # Errors
///
/// Any error of `out`.
pub fn write_model_json<W: Write>(plan: &ModelPlan, model: &str, mut out: W) -> io::Result<()> {
    let variables = variable_offsets(plan);
    let head = report_head(plan, model);
    let Value::Object(head) = head else {
        return serde_json::to_writer(out, &head).map_err(io::Error::from);
    };
    out.write_all(b"{")?;
    for (k, (key, value)) in head.iter().enumerate() {
        if k > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut out, key)?;
        out.write_all(b":")?;
        match key.as_str() {
            TENSORS => write_array(
                &mut out,
                (0..plan.model.tensors.len().min(plan.tensors.len()))
                    .filter_map(|i| tensor_json(plan, &variables, i)),
            )?,
            OPS => write_array(
                &mut out,
                (0..plan.model.ops.len().min(plan.lifetimes.op_times.len()))
                    .filter_map(|i| op_json(plan, i)),
            )?,
            _ => serde_json::to_writer(&mut out, value)?,
        }
    }
    out.write_all(b"}")
}

/// The keys of the two arrays that grow with the model (`null` in [`report_head`]).
const TENSORS: &str = "tensors";
const OPS: &str = "ops";

/// `[a,b,...]` as `serde_json` writes an array, one item at a time.
fn write_array<W: Write>(out: &mut W, items: impl Iterator<Item = Value>) -> io::Result<()> {
    out.write_all(b"[")?;
    for (k, item) in items.enumerate() {
        if k > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, &item)?;
    }
    out.write_all(b"]")
}

/// The state offset of each variable tensor, sorted by tensor id (found by binary search: a
/// model of many variables is not walked once per tensor).
fn variable_offsets(plan: &ModelPlan) -> Vec<(TensorId, u64)> {
    let mut v: Vec<(TensorId, u64)> = plan
        .state
        .variables
        .iter()
        .map(|v| (v.tensor, v.offset))
        .collect();
    // The first variable of a tensor wins, as a search from the front finds it.
    v.sort_by_key(|&(t, _)| t.0);
    v.dedup_by_key(|&mut (t, _)| t.0);
    v
}

/// Tensor `i`'s object in the report.
fn tensor_json(plan: &ModelPlan, variables: &[(TensorId, u64)], i: usize) -> Option<Value> {
    let t = plan.model.tensors.get(i)?;
    let info = plan.tensors.get(i)?;
    let life = plan
        .lifetimes
        .tensors
        .get(t.id.get())
        .copied()
        .unwrap_or_default();
    let mut v = json!({
        "id": t.id.0,
        "subgraph": t.subgraph.0,
        "index": t.index.0,
        "name": t.name,
        "dtype": t.dtype.name(),
        "shape": info.shape,
        "bytes": info.bytes,
        "first": scope_json(life.first),
        "last": scope_json(life.last),
        "kind": info.kind.name(),
        "placement": match info.placement {
            Placement::Arena => "arena",
            Placement::Persistent => "persistent",
            Placement::None => "none",
            Placement::Dynamic => "dynamic",
        },
    });
    let var = variables
        .binary_search_by_key(&t.id.0, |&(t, _)| t.0)
        .ok()
        .and_then(|k| variables.get(k));
    if let (Some(&(_, offset)), Some(obj)) = (var, v.as_object_mut()) {
        obj.insert("state_offset".into(), json!(offset));
    }
    if let (Some(offset), Some(obj)) = (plan.offset(t.id), v.as_object_mut()) {
        obj.insert("offset".into(), json!(offset));
        obj.insert("fixed".into(), json!(info.fixed_offset.is_some()));
    }
    Some(v)
}

/// Op `i`'s object in the report.
fn op_json(plan: &ModelPlan, i: usize) -> Option<Value> {
    let op = plan.model.ops.get(i)?;
    let times = plan.lifetimes.op_times.get(i)?;
    Some(json!({
        "subgraph": op.subgraph.0,
        "index": op.index.0,
        "time": times.first(),
        "times": times,
        "opcode": op.opcode.to_string(),
        "custom": matches!(op.opcode, Opcode::Custom(_)),
        "inputs": op.inputs.iter().map(|t| t.map_or(-1, |t| i64::from(t.0))).collect::<Vec<_>>(),
        "outputs": op.outputs.iter().map(|t| t.0).collect::<Vec<_>>(),
        "callees": op.callees.iter().map(|s| s.0).collect::<Vec<_>>(),
    }))
}

/// The report without its tensors and ops (`null` in their places, in the order the report
/// lists its keys).
fn report_head(plan: &ModelPlan, model: &str) -> Value {
    let m = &plan.model;
    let subgraphs: Vec<Value> = m
        .subgraphs
        .iter()
        .map(|s| {
            json!({
                "index": s.index.0,
                "name": s.name,
                "tensors": s.tensor_count,
                "ops": s.op_count,
                "inputs": s.inputs.iter().map(|t| t.0).collect::<Vec<_>>(),
                "outputs": s.outputs.iter().map(|t| t.0).collect::<Vec<_>>(),
            })
        })
        .collect();
    let peak = plan.peak_scope().map(|scope| {
        json!({
            "time": scope_json(scope),
            "at": plan.describe_scope(scope),
            "tensors": plan.peak_tensors().iter().map(|t| t.0).collect::<Vec<_>>(),
        })
    });
    let aliases: Vec<Value> = plan
        .declared_aliases
        .iter()
        .map(|a| json!({ "a": a.a.0, "b": a.b.0, "time": scope_json(a.scope) }))
        .collect();
    let state = &plan.state;
    let state_json = json!({
        "bytes": state.bytes,
        "raw_bytes": state.raw_bytes,
        "variables": state.variables.iter().map(|v| json!({
            "tensor": v.tensor.0,
            "offset": v.offset,
            "bytes": v.bytes,
            "reset_byte": v.reset_byte,
        })).collect::<Vec<_>>(),
        "resources": state.resources.iter().map(|r| json!({
            "container": r.container,
            "shared_name": r.shared_name,
            "dtype": r.dtype.name(),
            "offset": r.offset,
            "bytes": r.bytes,
            "reset_byte": r.reset_byte,
        })).collect::<Vec<_>>(),
        "flags": state.flags.map(|offset| json!({
            "offset": offset,
            "bytes": 1 + state.call_once.len(),
            "call_once_ops": state.call_once.iter().filter_map(|&i| m.ops.get(i)).map(|op| json!({
                "subgraph": op.subgraph.0,
                "index": op.index.0,
            })).collect::<Vec<_>>(),
        })),
    });
    let offline = match (&m.offline_plan, plan.offline) {
        (None, _) => "none",
        (Some(_), OfflinePolicy::Honour) => "honoured",
        (Some(_), OfflinePolicy::Replan) => "replanned",
    };
    // Kernel scratch: each op's working memory, live while the op runs.
    let scratch: Vec<Value> = plan
        .scratch_offsets()
        .map(|(s, offset)| {
            let op = plan.model.ops.get(s.op);
            json!({
                "subgraph": op.map(|o| o.subgraph.0),
                "op": op.map(|o| o.index.0),
                "opcode": op.map(|o| o.opcode.to_string()),
                "bytes": s.bytes,
                "offset": offset,
            })
        })
        .collect();
    let mut out = json!({
        "model": model,
        "planner": plan.plan.planner().name(),
        "winner": plan.plan.winner().name(),
        "proven_optimal": plan.plan.proven_optimal(),
        "search_steps": plan.plan.search_steps(),
        "best_bound_bytes": plan.plan.best_bound(),
        "alignment": plan.problem.alignment(),
        "arena_bytes": plan.arena_bytes(),
        "persistent_bytes": plan.persistent_bytes,
        "persistent_raw_bytes": plan.persistent_raw_bytes,
        "ram_bytes": plan.arena_bytes().saturating_add(plan.persistent_bytes),
        "state": state_json,
        "lower_bound_bytes": plan.lower_bound_bytes(),
        "lower_bound_raw_bytes": plan.profile.raw_bytes,
        "tensor_bound_bytes": plan.tensor_bound_bytes(),
        "overlapped_pairs": plan.overlapped().len(),
        "naive_bytes": plan.naive_bytes(),
        "saving_bytes": plan.naive_bytes().saturating_sub(plan.arena_bytes()),
        "gap_percent": (plan.gap_percent() * 100.0).round() / 100.0,
        "planned_tensors": plan.buffer_tensors.len(),
        "peak": peak,
        "offline_plan": offline,
        "declared_aliases": aliases,
        "scratch": scratch,
        "subgraphs": subgraphs,
        "tensors": Value::Null,
        "ops": Value::Null,
    });
    if plan.folding.cap > 0 {
        let f = &plan.folding;
        let folded: Vec<Value> = f
            .folded
            .iter()
            .map(|o| {
                json!({
                    "subgraph": o.op.subgraph.0,
                    "op": o.op.index.0,
                    "opcode": o.op.opcode,
                    "outputs": o.outputs.iter().map(|t| t.0).collect::<Vec<_>>(),
                    "flash_bytes": o.bytes,
                    "freed_bytes": o.freed,
                })
            })
            .collect();
        let not_folded: Vec<Value> = f
            .not_folded
            .iter()
            .map(|o| {
                json!({
                    "subgraph": o.op.subgraph.0,
                    "op": o.op.index.0,
                    "opcode": o.op.opcode,
                    "reason": o.reason,
                })
            })
            .collect();
        if let Some(obj) = out.as_object_mut() {
            obj.insert(
                "folding".to_owned(),
                json!({
                    "cap_bytes": f.cap,
                    "flash_bytes": f.flash_bytes(),
                    "freed_bytes": f.freed_bytes(),
                    "folded": folded,
                    "not_folded": not_folded,
                }),
            );
        }
    }
    out
}

/// The JSON report of an abstract problem's plan; `ids` names each buffer (from the CSV).
#[must_use]
pub fn problem_json(
    problem: &Problem,
    plan: &Plan,
    profile: &LiveProfile,
    ids: &[String],
    source: &str,
) -> Value {
    let offsets: serde_json::Map<String, Value> = ids
        .iter()
        .zip(plan.offsets())
        .map(|(id, &o)| (id.clone(), json!(o)))
        .collect();
    let lb = profile.aligned_bytes;
    let gap = if lb == 0 {
        0.0
    } else {
        (plan.arena_bytes() as f64 - lb as f64) * 100.0 / lb as f64
    };
    json!({
        "problem": source,
        "planner": plan.planner().name(),
        "winner": plan.winner().name(),
        "proven_optimal": plan.proven_optimal(),
        "search_steps": plan.search_steps(),
        "best_bound_bytes": plan.best_bound(),
        "alignment": problem.alignment(),
        "buffers": problem.buffers().len(),
        "arena_bytes": plan.arena_bytes(),
        "lower_bound_bytes": lb,
        "lower_bound_raw_bytes": profile.raw_bytes,
        "naive_bytes": problem.naive_bytes(),
        "gap_percent": (gap * 100.0).round() / 100.0,
        "offsets": offsets,
    })
}
