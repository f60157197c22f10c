//! Pipelines: models of a group where one reads another's output, planned on one timeline.
//!
//! The models of a group run in the order given. A [`Pipe`] says that an input of a later model
//! is an output of an earlier one, left in place: the two tensors become one buffer, live from
//! the output's first time to the input's last, and every other buffer is shared as the timeline
//! allows. [`plan_pipeline`] builds that one problem (each model's buffers on its own stretch of
//! time, one after the other), plans it, and keeps the smallest of three plans, each verified:
//!
//! - the plan of the joint problem (the planner asked for);
//! - each model's own plan, every handed-over buffer moved above the largest arena: at most the
//!   larger arena plus the bytes handed over;
//! - the models' own plans side by side, each input at the output it reads: at most the sum of
//!   the arenas.
//!
//! So the arena is at most min(sum of the arenas, larger arena + handed-over bytes), and smaller
//! where the timeline allows. Each model then gets its part of the plan: its buffers at the
//! joint offsets (verified against its own problem), so its slots, ops and `invoke` work on the
//! shared arena unchanged.

use crate::ModelPlan;
use crate::plan::{self, Buffer, Plan, Planner, Problem, Settings};
use crate::tflite::{SubgraphIndex, TensorId};
use crate::verify;

/// An input of model `to` that is output `output` of the earlier model `from` (models by their
/// position in the group; `output` and `input` by position in subgraph 0's lists).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pipe {
    /// The model that writes.
    pub from: usize,
    /// Its output, by position.
    pub output: usize,
    /// The model that reads.
    pub to: usize,
    /// Its input, by position.
    pub input: usize,
}

/// What [`plan_pipeline`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Joint {
    /// The arena of the joint plan.
    pub arena_bytes: u64,
    /// The sum of the models' own arenas.
    pub separate_bytes: u64,
    /// The largest own arena plus the bytes handed over.
    pub larger_plus_handover_bytes: u64,
    /// Bytes handed over (aligned).
    pub handover_bytes: u64,
    /// Which of the three plans was kept: `"joint"`, `"larger + handover"` or `"side by side"`.
    pub kept: &'static str,
}

fn io_tensor(plan: &ModelPlan, output: bool, position: usize) -> Option<TensorId> {
    let sg = plan.model.subgraphs.first()?;
    let index = *if output { &sg.outputs } else { &sg.inputs }.get(position)?;
    Some(plan.model.tensor(SubgraphIndex(0), index)?.id)
}

/// Plans `members` (in run order) with `pipes` on one timeline, and gives each its part of the
/// kept plan (`members[i].plan`); see the [module docs](self). `names` name the models in
/// messages.
///
/// # Errors
///
/// A message naming the models and tensors: a pipe between unknown models or tensors, backwards
/// in time, into an input another pipe fills, between tensors of other types, sizes or
/// quantisation, or not both in the arena; models with other alignments; a plan that fails
/// verification (a bug).
pub fn plan_pipeline(
    members: &mut [ModelPlan],
    names: &[String],
    pipes: &[Pipe],
    settings: &Settings,
) -> Result<Joint, String> {
    let name = |i: usize| names.get(i).map_or("?", String::as_str);
    let alignment = members.first().map_or(16, |m| m.problem.alignment());
    if let Some(i) = members
        .iter()
        .position(|m| m.problem.alignment() != alignment)
    {
        return Err(format!(
            "models `{}` and `{}` of a pipeline have other alignments ({} and {}): give them the same `align`",
            name(0),
            name(i),
            alignment,
            members.get(i).map_or(0, |m| m.problem.alignment())
        ));
    }
    // Each model's buffers, on its own stretch of time.
    let mut base = Vec::with_capacity(members.len());
    let mut shift = Vec::with_capacity(members.len());
    let mut buffers: Vec<Buffer> = Vec::new();
    let mut time: u64 = 0;
    for m in members.iter() {
        base.push(buffers.len());
        let s = u32::try_from(time).map_err(|_| "the models' timelines are too long together")?;
        shift.push(s);
        let mut end: u64 = 0;
        for b in m.problem.buffers() {
            let first = b.lifetime.first.checked_add(s);
            let last = b.lifetime.last.checked_add(s);
            let (Some(first), Some(last)) = (first, last) else {
                return Err("the models' timelines are too long together".into());
            };
            buffers.push(Buffer {
                lifetime: plan::Lifetime::new(first, last),
                ..*b
            });
            end = end.max(u64::from(b.lifetime.last) + 1);
        }
        time += end + 1;
    }
    // Each pipe: the input's buffer becomes the output's, live until the input's last time.
    let mut merged: Vec<Option<usize>> = vec![None; buffers.len()];
    let mut handover: u64 = 0;
    for p in pipes {
        let what = format!(
            "`{}`'s output {} -> `{}`'s input {}",
            name(p.from),
            p.output,
            name(p.to),
            p.input
        );
        let (Some(a), Some(b)) = (members.get(p.from), members.get(p.to)) else {
            return Err(format!("pipe {what}: no such model"));
        };
        if p.from >= p.to {
            return Err(format!(
                "pipe {what}: a model can only read the output of a model that runs before it (an earlier `model` of the group)"
            ));
        }
        let (Some(out), Some(inp)) = (io_tensor(a, true, p.output), io_tensor(b, false, p.input))
        else {
            return Err(format!(
                "pipe {what}: `{}` has {} outputs and `{}` {} inputs",
                name(p.from),
                a.model.subgraphs.first().map_or(0, |s| s.outputs.len()),
                name(p.to),
                b.model.subgraphs.first().map_or(0, |s| s.inputs.len())
            ));
        };
        let (Some(ot), Some(it)) = (
            a.model.tensors.get(out.get()),
            b.model.tensors.get(inp.get()),
        ) else {
            return Err(format!("pipe {what}: no such tensor"));
        };
        if ot.dtype != it.dtype
            || a.tensors.get(out.get()).and_then(|t| t.bytes)
                != b.tensors.get(inp.get()).and_then(|t| t.bytes)
        {
            return Err(format!(
                "pipe {what}: {} is {} of {} bytes but {} is {} of {} bytes",
                ot.desc(),
                ot.dtype.name(),
                a.tensors.get(out.get()).and_then(|t| t.bytes).unwrap_or(0),
                it.desc(),
                it.dtype.name(),
                b.tensors.get(inp.get()).and_then(|t| t.bytes).unwrap_or(0)
            ));
        }
        if ot.quantization != it.quantization {
            return Err(format!(
                "pipe {what}: {} and {} are quantised differently, so the bytes would mean other values: convert between them in a model",
                ot.desc(),
                it.desc()
            ));
        }
        let buffer = |m: &ModelPlan, t: TensorId| m.tensor_buffers.get(t.get()).copied().flatten();
        let (Some(ob), Some(ib)) = (buffer(a, out), buffer(b, inp)) else {
            return Err(format!(
                "pipe {what}: both tensors must be planned in the arena (not constant, folded, dynamic or in the persistent region)"
            ));
        };
        let ob = base.get(p.from).map_or(0, |b| b + ob as usize);
        let ib = base.get(p.to).map_or(0, |b| b + ib as usize);
        if merged.get(ib).copied().flatten().is_some() {
            return Err(format!(
                "pipe {what}: another pipe already fills that input"
            ));
        }
        let root = merged.get(ob).copied().flatten().unwrap_or(ob);
        let (Some(&o), Some(&i)) = (buffers.get(root), buffers.get(ib)) else {
            return Err(format!("pipe {what}: no such buffer"));
        };
        if o.fixed_offset.is_some() || i.fixed_offset.is_some() {
            return Err(format!(
                "pipe {what}: a tensor with an offline offset cannot be handed over: plan it with `offline = \"replan\"`"
            ));
        }
        if let Some(r) = buffers.get_mut(root) {
            r.lifetime =
                plan::Lifetime::new(r.lifetime.first, r.lifetime.last.max(i.lifetime.last));
            r.size = r.size.max(i.size);
        }
        if let Some(m) = merged.get_mut(ib) {
            *m = Some(root);
        }
        handover = handover.saturating_add(i.size.div_ceil(alignment) * alignment);
    }
    // The joint problem: merged inputs become empty buffers (their bytes are the output's).
    let index = |k: usize| merged.get(k).copied().flatten().unwrap_or(k);
    let joint_buffers: Vec<Buffer> = buffers
        .iter()
        .enumerate()
        .map(|(k, b)| {
            if index(k) == k {
                *b
            } else {
                Buffer { size: 0, ..*b }
            }
        })
        .collect();
    // The members' pairs (an op's output over the input it consumes) hold in the joint problem
    // too, except where a pipe changed a buffer: a merged input is empty (its bytes are the
    // output's, kept apart from the next model's tensors), and an output handed over lives on
    // past its own model, so it cannot be the input of a pair; as the output of one its
    // lifetime still begins where the pair's input ends.
    let mut pairs = Vec::new();
    for (i, m) in members.iter().enumerate() {
        let b0 = base.get(i).copied().unwrap_or(0);
        for o in m.problem.overlaps() {
            let (out, inp) = (b0 + o.output, b0 + o.input);
            let merged_away = |k: usize| merged.get(k).copied().flatten().is_some();
            if merged_away(out) || merged_away(inp) || merged.contains(&Some(inp)) {
                continue;
            }
            pairs.push(plan::Overlap::new(out, inp, o.min_displacement));
        }
    }
    let problem = if pairs.is_empty() {
        Problem::new(joint_buffers, alignment)
    } else {
        Problem::with_overlaps(joint_buffers, alignment, pairs)
    }
    .map_err(|e| e.to_string())?;
    let offsets_of = |plan: &Plan| -> Vec<u64> {
        (0..buffers.len())
            .map(|k| plan.offsets().get(index(k)).copied().unwrap_or(0))
            .collect()
    };
    let own = |i: usize, k: usize| -> u64 {
        members
            .get(i)
            .and_then(|m| m.plan.offsets().get(k).copied())
            .unwrap_or(0)
    };
    let largest = members
        .iter()
        .map(ModelPlan::arena_bytes)
        .max()
        .unwrap_or(0);
    let separate = members
        .iter()
        .fold(0u64, |s, m| s.saturating_add(m.arena_bytes()));
    let owner = |k: usize| base.partition_point(|&b| b <= k).saturating_sub(1);
    // Candidate 2: own plans, handed-over buffers stacked above the largest arena.
    let mut next = largest;
    let above: Vec<u64> = buffers
        .iter()
        .enumerate()
        .map(|(k, b)| {
            if merged.contains(&Some(k)) {
                let at = next;
                next += b.size.div_ceil(alignment) * alignment;
                at
            } else {
                let i = owner(k);
                own(i, k - base.get(i).copied().unwrap_or(0))
            }
        })
        .collect();
    // Candidate 3: own plans side by side.
    let mut side = vec![0u64; buffers.len()];
    let mut start = 0u64;
    for (i, m) in members.iter().enumerate() {
        for local in 0..m.problem.buffers().len() {
            if let Some(s) = side.get_mut(base.get(i).copied().unwrap_or(0) + local) {
                *s = start + own(i, local);
            }
        }
        start += m.arena_bytes();
    }
    let joint = plan::run_with(&problem, settings);
    let mut candidates: Vec<(&'static str, Vec<u64>)> = vec![("joint", joint.offsets().to_vec())];
    for (label, mut offsets) in [("larger + handover", above), ("side by side", side)] {
        for k in 0..buffers.len() {
            if index(k) != k {
                let root = offsets.get(index(k)).copied().unwrap_or(0);
                if let Some(o) = offsets.get_mut(k) {
                    *o = root;
                }
            }
        }
        candidates.push((label, offsets));
    }
    let mut best: Option<(&'static str, Plan)> = None;
    for (label, offsets) in candidates {
        let plan =
            Plan::from_offsets(&problem, offsets, Planner::Linear).map_err(|e| e.to_string())?;
        verify::verify(&problem, &plan, false)
            .map_err(|e| format!("the pipeline's {label} plan fails verification (a bug): {e}"))?;
        if best
            .as_ref()
            .is_none_or(|(_, b)| plan.arena_bytes() < b.arena_bytes())
        {
            best = Some((label, plan));
        }
    }
    let Some((kept, plan)) = best else {
        return Err("no plan".into());
    };
    let offsets = offsets_of(&plan);
    for (i, m) in members.iter_mut().enumerate() {
        let b0 = base.get(i).copied().unwrap_or(0);
        let mine: Vec<u64> = (0..m.problem.buffers().len())
            .map(|local| offsets.get(b0 + local).copied().unwrap_or(0))
            .collect();
        let part =
            Plan::from_offsets(&m.problem, mine, m.plan.planner()).map_err(|e| e.to_string())?;
        verify::verify(&m.problem, &part, false).map_err(|e| {
            format!(
                "model `{}`'s part of the pipeline's plan fails verification (a bug): {e}",
                name(i)
            )
        })?;
        m.plan = part;
    }
    Ok(Joint {
        arena_bytes: plan.arena_bytes(),
        separate_bytes: separate,
        larger_plus_handover_bytes: largest.saturating_add(handover),
        handover_bytes: handover,
        kept,
    })
}

/// Reads a pipe as written in a group: `"a.output_0 -> b.input_1"` (models by their module
/// names in `names`, in run order).
///
/// # Errors
///
/// A message saying what is wrong with `spec`.
pub fn parse_pipe(spec: &str, names: &[String]) -> Result<Pipe, String> {
    let usage = || {
        format!(
            "pipe {spec:?} is not `model.output_N -> model.input_N` (for example \"kws.output_0 -> cmd.input_0\")"
        )
    };
    let (left, right) = spec.split_once("->").ok_or_else(usage)?;
    let side = |s: &str, what: &str| -> Result<(usize, usize), String> {
        let (model, port) = s.trim().split_once('.').ok_or_else(usage)?;
        let n: usize = port
            .strip_prefix(what)
            .and_then(|n| n.strip_prefix('_'))
            .and_then(|n| n.parse().ok())
            .ok_or_else(usage)?;
        let m = names.iter().position(|x| x == model).ok_or_else(|| {
            format!(
                "pipe {spec:?}: no model `{model}` in the group (its models: {})",
                names.join(", ")
            )
        })?;
        Ok((m, n))
    };
    let (from, output) = side(left, "output")?;
    let (to, input) = side(right, "input")?;
    Ok(Pipe {
        from,
        output,
        to,
        input,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipes_are_read_by_model_name() {
        let names = ["kws".to_owned(), "cmd".to_owned()];
        assert_eq!(
            parse_pipe("kws.output_0 -> cmd.input_1", &names),
            Ok(Pipe {
                from: 0,
                output: 0,
                to: 1,
                input: 1
            })
        );
        for bad in [
            "kws.output_0",
            "kws.out_0 -> cmd.input_0",
            "kws.output_x -> cmd.input_0",
        ] {
            assert!(
                parse_pipe(bad, &names)
                    .unwrap_err()
                    .contains("is not `model.output_N")
            );
        }
        assert!(
            parse_pipe("vad.output_0 -> cmd.input_0", &names)
                .unwrap_err()
                .contains("no model `vad` in the group (its models: kws, cmd)")
        );
    }
}
