//! The JSON report; its schema is documented in docs/cli.md ("JSON output").

use serde_json::{Value, json};

use crate::graph::Placement;
use crate::plan::{LiveProfile, Plan, Problem};
use crate::tflite::Opcode;
use crate::{ModelPlan, OfflinePolicy};

fn scope_json(scope: Option<u32>) -> Value {
    scope.map_or(json!(-1), |s| json!(s))
}

/// The JSON report of a model plan. `model` is how the report names the model (its path).
#[must_use]
pub fn model_json(plan: &ModelPlan, model: &str) -> Value {
    let m = &plan.model;
    let tensors: Vec<Value> = m
        .tensors
        .iter()
        .zip(&plan.tensors)
        .map(|(t, info)| {
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
            if let (Some(var), Some(obj)) = (
                plan.state.variables.iter().find(|v| v.tensor == t.id),
                v.as_object_mut(),
            ) {
                obj.insert("state_offset".into(), json!(var.offset));
            }
            if let (Some(offset), Some(obj)) = (plan.offset(t.id), v.as_object_mut()) {
                obj.insert("offset".into(), json!(offset));
                obj.insert("fixed".into(), json!(info.fixed_offset.is_some()));
            }
            v
        })
        .collect();
    let ops: Vec<Value> = m
        .ops
        .iter()
        .zip(&plan.lifetimes.op_times)
        .map(|(op, times)| {
            json!({
                "subgraph": op.subgraph.0,
                "index": op.index.0,
                "time": times.first(),
                "times": times,
                "opcode": op.opcode.to_string(),
                "custom": matches!(op.opcode, Opcode::Custom(_)),
                "inputs": op.inputs.iter().map(|t| t.map_or(-1, |t| i64::from(t.0))).collect::<Vec<_>>(),
                "outputs": op.outputs.iter().map(|t| t.0).collect::<Vec<_>>(),
                "callees": op.callees.iter().map(|s| s.0).collect::<Vec<_>>(),
            })
        })
        .collect();
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
        "subgraphs": subgraphs,
        "tensors": tensors,
        "ops": ops,
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
