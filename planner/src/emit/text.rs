//! The text report: a table of tensors and a summary.

use std::fmt::Write as _;

use super::{shape, thousands};
use crate::graph::{Placement, TensorKind};
use crate::plan::{LiveProfile, Plan, Problem};
use crate::{ModelPlan, OfflinePolicy};

fn scope_str(scope: Option<u32>) -> String {
    scope.map_or_else(|| "-1".to_owned(), |s| s.to_string())
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// The text report of a model plan: one row per tensor that is not a constant, then a summary.
#[must_use]
pub fn model_text(plan: &ModelPlan, model: &str) -> String {
    let m = &plan.model;
    let mut out = String::new();
    let offline = match (&m.offline_plan, plan.offline) {
        (None, _) => "none",
        (Some(_), OfflinePolicy::Honour) => "honoured (OfflineMemoryAllocation)",
        (Some(_), OfflinePolicy::Replan) => "ignored, replanned",
    };
    let _ = writeln!(
        out,
        "model {model}: {} subgraphs, {} ops, {} tensors; planner {}, alignment {}, offline plan {offline}",
        m.subgraphs.len(),
        m.ops.len(),
        m.tensors.len(),
        plan.plan.planner(),
        plan.problem.alignment()
    );
    let name_width = m
        .tensors
        .iter()
        .map(|t| t.name.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 48);
    let _ = writeln!(
        out,
        "{:>5} {:>3} {:>5}  {:<name_width$}  {:<8} {:<16} {:>11}  {:<12} {:<12} {:>11}",
        "id", "sg", "index", "name", "dtype", "shape", "bytes", "lifetime", "kind", "offset"
    );
    let mut constants = 0usize;
    for (t, info) in m.tensors.iter().zip(&plan.tensors) {
        if info.kind == TensorKind::Constant {
            constants += 1;
            continue;
        }
        let life = plan
            .lifetimes
            .tensors
            .get(t.id.get())
            .copied()
            .unwrap_or_default();
        let offset = match info.placement {
            Placement::Arena => {
                let o = plan.offset(t.id).map_or_else(|| "?".to_owned(), thousands);
                if info.fixed_offset.is_some() {
                    format!("{o} fixed")
                } else {
                    o
                }
            }
            Placement::Persistent => plan
                .state
                .variables
                .iter()
                .find(|v| v.tensor == t.id)
                .map_or_else(
                    || "state".to_owned(),
                    |v| format!("state+{}", thousands(v.offset)),
                ),
            // A resource handle points at its variable's bytes in the state.
            Placement::None => plan.state.variable_of(t.id).map_or_else(
                || "-".to_owned(),
                |r| format!("state+{}", thousands(r.offset)),
            ),
            Placement::Dynamic => "dynamic".to_owned(),
        };
        let name: String = t.name.chars().take(name_width).collect();
        let _ = writeln!(
            out,
            "{:>5} {:>3} {:>5}  {:<name_width$}  {:<8} {:<16} {:>11}  {:<12} {:<12} {:>11}",
            t.id.0,
            t.subgraph.0,
            t.index.0,
            name,
            t.dtype.name(),
            shape(&info.shape),
            info.bytes.map_or_else(|| "?".to_owned(), thousands),
            format!("{}..={}", scope_str(life.first), scope_str(life.last)),
            info.kind.name(),
            offset
        );
    }
    if constants > 0 {
        let _ = writeln!(
            out,
            "({constants} constant tensors not shown: their data stays in the model)"
        );
    }
    // Kernel scratch: each op's working memory, live while the op runs.
    for (s, offset) in plan.scratch_offsets() {
        let op = m
            .ops
            .get(s.op)
            .map_or_else(|| format!("op {}", s.op), |op| op.desc().to_string());
        let _ = writeln!(
            out,
            "scratch of {op}: {} B at offset {}",
            thousands(s.bytes),
            offset.map_or_else(|| "?".to_owned(), thousands)
        );
    }
    out.push('\n');
    let arena = plan.arena_bytes();
    let lb = plan.lower_bound_bytes();
    let naive = plan.naive_bytes();
    let _ = writeln!(
        out,
        "arena        {:>13} B  ({} tensors planned)",
        thousands(arena),
        plan.buffer_tensors.len()
    );
    let _ = writeln!(
        out,
        "lower bound  {:>13} B  (raw {} B); gap {:.2} %",
        thousands(lb),
        thousands(plan.profile.raw_bytes),
        plan.gap_percent()
    );
    if !plan.problem.overlaps().is_empty() {
        // Three figures: the bound above counts outputs over the inputs they consume.
        let _ = writeln!(
            out,
            "tensor-level {:>13} B  (every tensor in bytes of its own; {} of {} outputs over the input they consume)",
            thousands(plan.tensor_bound_bytes()),
            plan.overlapped().len(),
            plan.problem.overlaps().len()
        );
    }
    let _ = writeln!(
        out,
        "naive        {:>13} B  saving {} B ({:.1} %)",
        thousands(naive),
        thousands(naive.saturating_sub(arena)),
        percent(naive.saturating_sub(arena), naive)
    );
    let state = &plan.state;
    let resources = state.resources.iter().filter(|r| r.bytes > 0).count();
    // Every RESOURCE tensor of the table (a VAR_HANDLE's output, or a subgraph's input that
    // carries one) is a handle to one of the resource variables.
    let handles = m
        .tensors
        .iter()
        .filter(|t| state.variable_of(t.id).is_some())
        .count();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let handles_note = if handles > 0 {
        format!(
            " behind {}",
            plural(handles, "resource handle tensor", "resource handle tensors")
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "state        {:>13} B  (raw {} B; {}, {}{handles_note}{}), kept apart",
        thousands(plan.persistent_bytes),
        thousands(plan.persistent_raw_bytes),
        plural(state.variables.len(), "variable tensor", "variable tensors"),
        plural(resources, "resource variable", "resource variables"),
        if state.flags.is_some() { ", flags" } else { "" }
    );
    let _ = writeln!(
        out,
        "RAM          {:>13} B  (arena + state)",
        thousands(arena.saturating_add(plan.persistent_bytes))
    );
    for item in state.items(m, &plan.tensors) {
        let _ = writeln!(
            out,
            "  state+{:<6} {:>11} B  {}",
            thousands(item.offset),
            thousands(item.bytes),
            item.label
        );
    }
    let _ = writeln!(out, "{}", quality(&plan.plan));
    if let Some(scope) = plan.peak_scope() {
        let live: Vec<String> = plan
            .peak_tensors()
            .iter()
            .filter_map(|id| {
                let t = m.tensors.get(id.get())?;
                let bytes = plan.tensors.get(id.get())?.bytes?;
                Some(format!("{} {:?} {} B", t.id, t.name, thousands(bytes)))
            })
            .collect();
        let _ = writeln!(
            out,
            "peak at {} (time {}): {}",
            plan.describe_scope(scope),
            scope_str(scope),
            live.join(", ")
        );
    }
    for a in &plan.declared_aliases {
        let name = |id: crate::tflite::TensorId| {
            m.tensors
                .get(id.get())
                .map_or_else(String::new, |t| t.desc().to_string())
        };
        let _ = writeln!(
            out,
            "declared by the offline plan: {} and {} share bytes while both are live at {}",
            name(a.a),
            name(a.b),
            plan.describe_scope(a.scope)
        );
    }
    let f = &plan.folding;
    if f.cap > 0 {
        let n = f.folded.len();
        let _ = writeln!(
            out,
            "folded       {:>13} B  in flash: {n} op{} evaluated when built, {} B of constants no longer read (cap {} B)",
            thousands(f.flash_bytes()),
            if n == 1 { "" } else { "s" },
            thousands(f.freed_bytes()),
            thousands(f.cap)
        );
        for o in &f.folded {
            let _ = writeln!(
                out,
                "  folded {}: {} B in flash, {} B of its inputs no longer read; no arena, no time on the device",
                o.op,
                thousands(o.bytes),
                thousands(o.freed)
            );
        }
        for o in &f.not_folded {
            let _ = writeln!(out, "  not folded {}: {}", o.op, o.reason);
        }
    }
    out
}

/// The text report of an abstract problem's plan.
#[must_use]
pub fn problem_text(problem: &Problem, plan: &Plan, profile: &LiveProfile, source: &str) -> String {
    let naive = problem.naive_bytes();
    let arena = plan.arena_bytes();
    let lb = profile.aligned_bytes;
    let gap = if lb == 0 {
        0.0
    } else {
        (arena as f64 - lb as f64) * 100.0 / lb as f64
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "problem {source}: {} buffers; planner {}, alignment {}",
        problem.buffers().len(),
        plan.planner(),
        problem.alignment()
    );
    let _ = writeln!(out, "arena        {:>13} B", thousands(arena));
    let _ = writeln!(
        out,
        "lower bound  {:>13} B  (raw {} B); gap {gap:.2} %",
        thousands(lb),
        thousands(profile.raw_bytes)
    );
    let _ = writeln!(
        out,
        "naive        {:>13} B  saving {} B ({:.1} %)",
        thousands(naive),
        thousands(naive.saturating_sub(arena)),
        percent(naive.saturating_sub(arena), naive)
    );
    let _ = writeln!(out, "{}", quality(plan));
    out
}

/// `planner      auto: search won; proven optimal (1,234 search steps)`.
fn quality(plan: &Plan) -> String {
    let winner = if plan.winner() == plan.planner() {
        plan.planner().to_string()
    } else {
        format!("{}: {} won", plan.planner(), plan.winner())
    };
    let proof = if plan.proven_optimal() {
        "proven optimal".to_owned()
    } else {
        format!(
            "not proven optimal (best bound {} B)",
            thousands(plan.best_bound())
        )
    };
    let steps = match plan.search_steps() {
        0 => String::new(),
        1 => " (1 search step)".to_owned(),
        n => format!(" ({} search steps)", thousands(n)),
    };
    format!("planner      {winner}; {proof}{steps}")
}
