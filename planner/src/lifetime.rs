//! Tensor lifetimes on one timeline for all subgraphs, exactly as TensorFlow Lite Micro computes
//! them (`AllocationInfoBuilder::MarkAllocationLifetimes`).
//!
//! One scope counter starts at 0 and only grows. Walking subgraph 0:
//!
//! - its inputs get the current scope as first (if unset) and last use;
//! - each op takes the next scope; its outputs get it as first use; a control-flow op (IF: then,
//!   else; WHILE: cond, body; CALL_ONCE: init) then walks each callee subgraph in its own scope
//!   block (the counter advances once before each callee); afterwards the op's inputs (except
//!   omitted `-1` ones) and outputs get the current scope as last use;
//! - at the end the subgraph's outputs get the current scope as last use (first if unset).
//!
//! One exception to TFLM: in a model with a `CIRCULAR_BUFFER` (whose invocations can stop
//! early), subgraph 0's outputs live from time 0, so that a stopped invocation leaves them as the
//! last complete one wrote them.
//!
//! So without control flow, op `k` of subgraph 0 runs at time `k + 1` and model inputs are
//! at time 0. A control-flow op's inputs stay live until after all its callees; tensors of a
//! callee live only inside its block. A subgraph called from two places gets one merged
//! interval. Op intermediates get no lifetime (TFLM gives them none). Tensors no walk reaches keep
//! TFLM's `-1` (shown as `None` here) and are live only "before the first op", where they overlap
//! each other and nothing else.

use crate::error::ReadModelError;
use crate::tflite::{Model, OpIndex, Subgraph, SubgraphIndex};

/// How many more steps (times and tensor uses) than one walk of every subgraph the walk may take
/// before it stops with an error: control flow that calls the same subgraphs from many places
/// grows the timeline multiplicatively, while a model without control flow walks each op once,
/// however many it has.
pub const MAX_TIMELINE: usize = 1 << 20;

/// Deepest nesting of control-flow calls.
pub const MAX_CALL_DEPTH: usize = 64;

/// What happens at one time of the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimePoint {
    /// A subgraph is entered: its inputs become live.
    Entry(SubgraphIndex),
    /// An op runs.
    Op {
        /// The op's subgraph.
        subgraph: SubgraphIndex,
        /// The op's index in it.
        op: OpIndex,
        /// The op's position in [`Model::ops`].
        position: usize,
    },
}

/// A tensor's lifetime in TFLite Micro's scopes: `first..=last`, where `None` is TFLM's `-1`
/// (before every op).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TensorLifetime {
    /// First scope the tensor is live, `None` for never written.
    pub first: Option<u32>,
    /// Last scope the tensor is live, `None` for never used.
    pub last: Option<u32>,
}

impl TensorLifetime {
    /// The lifetime on the abstract problem's timeline, where time `t` is TFLM scope `t - 1` and
    /// time 0 stands for TFLM's `-1`.
    #[must_use]
    pub fn to_problem(self) -> crate::plan::Lifetime {
        let shift = |s: Option<u32>| s.map_or(0, |s| s + 1);
        let first = shift(self.first);
        crate::plan::Lifetime::new(first, shift(self.last).max(first))
    }
}

/// The timeline of a model and the lifetime of every tensor.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Lifetimes {
    /// One lifetime per tensor id.
    pub tensors: Vec<TensorLifetime>,
    /// What happens at each scope: `timeline[s]` for scope `s`.
    pub timeline: Vec<TimePoint>,
    /// The scopes at which each op runs (by position in [`Model::ops`]); empty for ops of
    /// subgraphs never reached, several for subgraphs called from several places.
    pub op_times: Vec<Vec<u32>>,
}

impl Lifetimes {
    /// Says what happens at a TFLite Micro scope: `op 3 (CONV_2D) of subgraph 0`, `the model's
    /// start (its inputs)`; `None` is time -1, before the first op.
    #[must_use]
    pub fn describe(&self, model: &Model, scope: Option<u32>) -> String {
        let Some(s) = scope else {
            return "time -1, before the first op (tensors no op reaches)".to_owned();
        };
        match self.timeline.get(s as usize) {
            Some(TimePoint::Entry(sg)) if sg.0 == 0 => "the model's start (its inputs)".to_owned(),
            Some(TimePoint::Entry(sg)) => format!("the entry of subgraph {sg}"),
            Some(TimePoint::Op { position, .. }) => model
                .ops
                .get(*position)
                .map_or_else(|| format!("time {s}"), |op| op.desc().to_string()),
            None => format!("time {s}"),
        }
    }
}

struct Walk<'m> {
    model: &'m Model,
    out: Lifetimes,
    stack: Vec<SubgraphIndex>,
    work: usize,
    /// The most work allowed: one walk of every subgraph plus [`MAX_TIMELINE`].
    limit: usize,
}

impl Walk<'_> {
    fn scope(&self) -> u32 {
        // The timeline is capped at MAX_TIMELINE entries, far below u32::MAX.
        u32::try_from(self.out.timeline.len().saturating_sub(1)).unwrap_or(u32::MAX)
    }

    fn advance(&mut self, point: TimePoint) -> Result<u32, ReadModelError> {
        self.work += 1;
        if self.work > self.limit {
            return Err(ReadModelError::TimelineTooLong {
                limit: MAX_TIMELINE,
            });
        }
        self.out.timeline.push(point);
        Ok(self.scope())
    }

    fn first_use(&mut self, subgraph: &Subgraph, index: usize, scope: u32) {
        if let Some(l) = self.out.tensors.get_mut(subgraph.first_tensor + index) {
            l.first.get_or_insert(scope);
        }
    }

    fn last_use(&mut self, subgraph: &Subgraph, index: usize, scope: u32) {
        if let Some(l) = self.out.tensors.get_mut(subgraph.first_tensor + index) {
            l.last = Some(scope);
        }
    }

    fn mark(&mut self, sg: SubgraphIndex) -> Result<(), ReadModelError> {
        let model = self.model;
        let Some(subgraph) = model.subgraphs.get(sg.get()) else {
            return Ok(());
        };
        self.stack.push(sg);
        let scope = self.scope();
        self.work += subgraph.inputs.len();
        for t in &subgraph.inputs {
            self.first_use(subgraph, t.get(), scope);
            self.last_use(subgraph, t.get(), scope);
        }
        for (k, op) in model.subgraph_ops(subgraph).iter().enumerate() {
            let position = subgraph.first_op + k;
            let start = self.advance(TimePoint::Op {
                subgraph: sg,
                op: op.index,
                position,
            })?;
            if let Some(times) = self.out.op_times.get_mut(position) {
                times.push(start);
            }
            self.work += op.inputs.len() + 2 * op.outputs.len();
            for t in &op.outputs {
                self.first_use(subgraph, t.get(), start);
            }
            for &callee in &op.callees {
                if self.stack.contains(&callee) {
                    return Err(ReadModelError::RecursiveCall {
                        op: op.desc(),
                        callee,
                    });
                }
                if self.stack.len() >= MAX_CALL_DEPTH {
                    return Err(ReadModelError::CallsTooDeep {
                        op: op.desc(),
                        limit: MAX_CALL_DEPTH,
                    });
                }
                self.advance(TimePoint::Entry(callee))?;
                self.mark(callee)?;
            }
            let now = self.scope();
            for t in op.inputs.iter().flatten() {
                self.last_use(subgraph, t.get(), now);
            }
            for t in &op.outputs {
                self.last_use(subgraph, t.get(), now);
            }
        }
        let end = self.scope();
        self.work += subgraph.outputs.len();
        for t in &subgraph.outputs {
            self.first_use(subgraph, t.get(), end);
            self.last_use(subgraph, t.get(), end);
        }
        self.stack.pop();
        Ok(())
    }
}

/// Computes every tensor's lifetime, walking from subgraph 0 (see the [module docs](self)).
///
/// # Errors
///
/// [`ReadModelError::RecursiveCall`] if a subgraph calls itself (directly or through others),
/// [`ReadModelError::CallsTooDeep`] if control flow nests deeper than [`MAX_CALL_DEPTH`],
/// [`ReadModelError::TimelineTooLong`] if repeated calls make the walk take more than
/// [`MAX_TIMELINE`] steps beyond one walk of every subgraph.
pub fn lifetimes(model: &Model) -> Result<Lifetimes, ReadModelError> {
    // One walk of every subgraph: what the walk costs without repeated calls.
    let once: usize = model
        .subgraphs
        .iter()
        .map(|sg| {
            sg.inputs.len()
                + sg.outputs.len()
                + model
                    .subgraph_ops(sg)
                    .iter()
                    .map(|op| 2 + op.callees.len() + op.inputs.len() + 2 * op.outputs.len())
                    .sum::<usize>()
        })
        .sum();
    let mut walk = Walk {
        model,
        out: Lifetimes {
            tensors: vec![TensorLifetime::default(); model.tensors.len()],
            timeline: vec![TimePoint::Entry(SubgraphIndex(0))],
            op_times: vec![Vec::new(); model.ops.len()],
        },
        stack: Vec::new(),
        work: 0,
        limit: once.saturating_add(MAX_TIMELINE),
    };
    walk.mark(SubgraphIndex(0))?;
    // A model whose invocations can stop early (CIRCULAR_BUFFER) keeps subgraph 0's outputs
    // from time 0: on a stopped invocation they hold the last complete one's results, which no
    // tensor of the ops before the stop (nor an input) may overwrite. TFLM does not do this: in
    // its plan an output can share bytes with a tensor the stopped invocation wrote.
    if model
        .ops
        .iter()
        .any(|op| op.subgraph.0 == 0 && op.is_circular_buffer())
        && let Some(sg) = model.subgraphs.first()
    {
        for t in &sg.outputs {
            if let Some(l) = walk.out.tensors.get_mut(sg.first_tensor + t.get()) {
                l.first = Some(0);
            }
        }
    }
    Ok(walk.out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreached_maps_to_time_zero_and_scopes_shift_by_one() {
        let unreached = TensorLifetime::default().to_problem();
        assert_eq!((unreached.first, unreached.last), (0, 0));
        let l = TensorLifetime {
            first: Some(0),
            last: Some(2),
        }
        .to_problem();
        assert_eq!((l.first, l.last), (1, 3));
        let read_only = TensorLifetime {
            first: None,
            last: Some(4),
        }
        .to_problem();
        assert_eq!((read_only.first, read_only.last), (0, 5));
    }
}
