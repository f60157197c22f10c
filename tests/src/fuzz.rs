//! The bodies of the fuzz targets in `fuzz/`, here so that plain `cargo test` replays the
//! committed regression inputs (`fuzz/regressions/<target>/`) through exactly the same code.
//! Each panics only when it finds a bug.

use stowplan_planner::codegen::{Codegen, GenerateError, generate};
use stowplan_planner::plan::{
    Buffer, Lifetime, Overlap, Plan, Planner, Problem, Settings, lower_bound, run_with,
};
use stowplan_planner::tflite::builder::{ModelBuilder, TensorSpec};
use stowplan_planner::tflite::flexbuffer::{WriteValue, write_map};
use stowplan_planner::tflite::{Activation, BuiltinOp, DType, OpOptions, Padding, read_model};
use stowplan_planner::verify::{VerifyPlanError, verify};
use stowplan_planner::{OfflinePolicy, Options, graph, lifetime, ops, plan_model};

mod in_place;
pub use in_place::{Below, Entry, Outcome, in_place_outcome, kinds as in_place_kinds};

/// One op of a kind whose kernels run on one buffer ([`ops::overwrites`]), through its runtime
/// entry at the least displacement the planner declares and one element below it, against its
/// two-buffer kernel (see [`in_place_outcome`]).
pub fn in_place(data: &[u8]) {
    in_place::in_place(data);
}

/// The search budget of the `search` and `auto` planners in every target: the default
/// ([`stowplan_planner::plan::DEFAULT_SEARCH_STEPS`], seconds) spent on each input would leave a
/// campaign a few inputs a minute; a small budget runs the same code, ending more often when
/// the budget is spent.
pub const SEARCH_STEPS: u64 = 1_000_000;

/// Model bytes through the whole pipeline (read, validate, lifetimes, every planner, verify)
/// and, for models that plan, code generation.
pub fn model_plan(data: &[u8]) {
    model_plan_reach(data);
}

/// [`model_plan`], saying how far the input got.
pub fn model_plan_reach(data: &[u8]) -> Reach {
    let mut reach = if read_model(data).is_ok() {
        Reach::Parsed
    } else {
        Reach::Rejected
    };
    for planner in Planner::ALL {
        for offline in [OfflinePolicy::Honour, OfflinePolicy::Replan] {
            let Ok(plan) = plan_model(
                data,
                &Options {
                    planner,
                    offline,
                    search_steps: SEARCH_STEPS,
                    ..Options::default()
                },
            ) else {
                continue;
            };
            reach = reach.max(Reach::Planned);
            if plan.declared_aliases.is_empty() {
                assert!(
                    plan.arena_bytes() >= plan.lower_bound_bytes(),
                    "arena below the lower bound"
                );
            }
            if planner == Planner::Linear && offline == OfflinePolicy::Replan {
                assert_eq!(plan.arena_bytes(), plan.naive_bytes());
            }
            if planner == Planner::Greedy && offline == OfflinePolicy::Replan {
                let cg = crate::test_codegen("fuzzed", false);
                match generate(&plan, data, &cg) {
                    Ok(tokens) => {
                        syn::parse2::<syn::File>(tokens).expect("generated code parses");
                    }
                    Err(GenerateError::TooLarge { .. }) => {}
                    Err(e) => panic!("a replanned model without a budget must generate: {e}"),
                }
                // `invoke` too: kernel parameters from fuzzed shapes, options and quantisation
                // give code or an error naming the op, never a panic.
                let with_invoke = Codegen { invoke: true, ..cg };
                match generate(&plan, data, &with_invoke) {
                    Ok(tokens) => {
                        syn::parse2::<syn::File>(tokens).expect("generated invoke parses");
                        reach = Reach::Generated;
                    }
                    Err(GenerateError::TooLarge { .. } | GenerateError::NoKernel { .. }) => {}
                    Err(e) => panic!("a replanned model without a budget must generate: {e}"),
                }
            }
        }
    }
    reach
}

/// Reads bytes as a little stream of numbers.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let (first, rest) = self.0.split_first().map_or((0, &[][..]), |(f, r)| (*f, r));
        self.0 = rest;
        first
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The most buffers [`problem_planners`] draws: small problems find what large ones find
/// (every planner's code runs on a few buffers) at a cost per input a campaign of millions of
/// inputs can afford.
pub const PROBLEM_MAX_BUFFERS: usize = 32;

/// The search budget of the `search` and `auto` planners in [`problem_planners`]: enough for
/// the search to place, backtrack and raise its bound on problems of
/// [`PROBLEM_MAX_BUFFERS`] buffers, small enough that each input costs well under a
/// millisecond.
pub const PROBLEM_SEARCH_STEPS: u64 = 2_000;

/// A random abstract problem through every planner; each plan must verify and respect the bound.
pub fn problem_planners(data: &[u8]) {
    let Some(problem) = planners_problem(data) else {
        return;
    };
    planners_check(&problem);
}

/// Whether `data` makes [`problem_planners`] a problem with pairs that may overlap.
#[must_use]
pub fn declares_pairs(data: &[u8]) -> bool {
    planners_problem(data).is_some_and(|p| !p.overlaps().is_empty())
}

/// The problem [`problem_planners`] reads from `data`.
fn planners_problem(data: &[u8]) -> Option<Problem> {
    let mut input = Input(data);
    let align = 1u64 << (input.byte() % 7);
    let mut buffers = Vec::new();
    // How many buffers, so that bytes remain for the pairs after them.
    let count = 1 + usize::from(input.byte()) % PROBLEM_MAX_BUFFERS;
    while !input.is_empty() && buffers.len() < count {
        let size = u64::from(input.u16()) * u64::from(1 + input.byte() % 4);
        let first = u32::from(input.byte());
        let last = first + u32::from(input.byte() % 32);
        let fixed = (input.byte() % 16 == 0).then(|| u64::from(input.byte()) * align);
        buffers.push(Buffer {
            size,
            lifetime: Lifetime::new(first, last),
            fixed_offset: fixed,
        });
    }
    let overlaps = draw_pairs(&mut input, &mut buffers);
    match Problem::with_overlaps(buffers.clone(), align, overlaps) {
        Ok(p) => Some(p),
        // A rule broken (a fixed buffer, pairs of several ops at one time): without the pairs.
        Err(_) => Problem::new(buffers, align).ok(),
    }
}

/// Pairs that may overlap, from what is left of `input`: an output made to start where its
/// input ends, with a least displacement of either sign.
fn draw_pairs(input: &mut Input<'_>, buffers: &mut [Buffer]) -> Vec<Overlap> {
    let mut overlaps = Vec::new();
    for _ in 0..input.byte() % 8 {
        if buffers.is_empty() {
            break;
        }
        let i = usize::from(input.byte()) % buffers.len();
        let o = usize::from(input.byte()) % buffers.len();
        let d = i64::from(input.u16() as i16);
        let (Some(bi), Some(bo)) = (buffers.get(i).copied(), buffers.get(o).copied()) else {
            continue;
        };
        if i != o && bi.lifetime.last <= bo.lifetime.last {
            if let Some(b) = buffers.get_mut(o) {
                b.lifetime.first = bi.lifetime.last;
            }
            overlaps.push(Overlap::new(o, i, d));
        }
    }
    overlaps
}

/// [`problem_planners`]'s checks on one problem.
fn planners_check(problem: &Problem) {
    let problem = problem.clone();
    // The overlap-aware bound (the tensor-level one when there are no pairs).
    let bound = if problem.overlaps().is_empty() {
        lower_bound(&problem).aligned_bytes
    } else {
        stowplan_planner::plan::proven_bound(&problem)
    };
    // Each distinct plan verified once (the verifier is deterministic; several planners often
    // give the same offsets), fixed overlaps allowed: without fixed buffers the same verdict
    // as without (`plan_verify` checks the verifier's two modes against their rules).
    let mut verified: Vec<(Vec<u64>, bool)> = Vec::new();
    for planner in Planner::ALL {
        let plan = run_with(
            &problem,
            &Settings {
                planner,
                capacity: None,
                search_steps: PROBLEM_SEARCH_STEPS,
            },
        );
        let declares = match verified.iter().find(|(o, _)| o == plan.offsets()) {
            Some(&(_, declares)) => declares,
            None => {
                let v = verify(&problem, &plan, true)
                    .expect("every plan verifies (fixed overlaps allowed)");
                let declares = !v.declared_overlaps.is_empty();
                verified.push((plan.offsets().to_vec(), declares));
                declares
            }
        };
        if !declares {
            assert!(
                plan.arena_bytes() >= bound,
                "{planner}: {} below the bound {bound}",
                plan.arena_bytes()
            );
        }
    }
}

/// A random problem (pairs included) and a random plan of it through the verifier
/// ([`verify`]), whose verdict must be the one a brute-force check of every two buffers gives:
/// the same error (the same kind, for the same buffers, with the same figures) or success with
/// the same declared overlaps. The offsets are drawn near the edges that matter (touching the
/// buffer before, at a pair's least displacement and one alignment unit either side, at or off
/// a fixed offset, off the alignment), so both verdicts are common.
pub fn plan_verify(data: &[u8]) {
    plan_verify_verdict(data);
}

/// [`plan_verify`], saying which verdict the input got: `"valid"`, `"valid, fixed overlaps"`,
/// the error's kind (`"overlap"`, `"too close"`, ...), or `None` when the bytes make no
/// problem.
pub fn plan_verify_verdict(data: &[u8]) -> Option<&'static str> {
    let mut input = Input(data);
    let align = 1u64 << (input.byte() % 6);
    let allow_fixed = input.byte().is_multiple_of(2);
    let count = 1 + usize::from(input.byte() % 24);
    let mut buffers = Vec::with_capacity(count);
    for _ in 0..count {
        let size = u64::from(input.byte() % 64) * u64::from(1 + input.byte() % 4);
        let first = u32::from(input.byte() % 32);
        let last = first + u32::from(input.byte() % 8);
        let fixed = input
            .byte()
            .is_multiple_of(6)
            .then(|| u64::from(input.byte() % 32) * align);
        buffers.push(Buffer {
            size,
            lifetime: Lifetime::new(first, last),
            fixed_offset: fixed,
        });
    }
    let overlaps = draw_pairs(&mut input, &mut buffers);
    let problem = match Problem::with_overlaps(buffers.clone(), align, overlaps) {
        Ok(p) => p,
        Err(_) => Problem::new(buffers, align).ok()?,
    };
    let buffers = problem.buffers();
    let aligned = |b: &Buffer| b.size.div_ceil(align) * align;
    let mut offsets: Vec<u64> = Vec::with_capacity(count);
    let mut end = 0_u64;
    for (k, b) in buffers.iter().enumerate() {
        let how = input.byte();
        let shift = u64::from(input.byte() % 4) * align;
        let mut at = match (b.fixed_offset, how % 4) {
            // A fixed buffer at its offset, now and then moved.
            (Some(f), _) if how % 16 == 15 => f + shift.max(align),
            (Some(f), _) => f,
            // Touching the buffer before, or a little below its end.
            (None, 0) => end.saturating_sub(shift),
            (None, 1) => u64::from(input.byte()) * align,
            // Against a partner placed already, at its least displacement, one unit either
            // side, or more.
            (None, 2) => problem
                .overlaps()
                .iter()
                .find_map(|p| {
                    let least = i128::from(p.min_displacement);
                    let delta = i128::from(input.byte() % 4) - 1;
                    let d = least + delta * i128::from(align);
                    let placed = |b: usize| offsets.get(b).map(|&o| i128::from(o));
                    let at = if p.input == k {
                        placed(p.output)? + d
                    } else if p.output == k {
                        placed(p.input)? - d
                    } else {
                        return None;
                    };
                    // Down to the alignment below (a displacement not a multiple of it).
                    u64::try_from(at.max(0)).ok().map(|at| at / align * align)
                })
                .unwrap_or(end),
            (None, _) => end + shift,
        };
        // Now and then off the alignment.
        if how & 0xf0 == 0xf0 && align > 1 {
            at += 1;
        }
        end = at + aligned(b);
        offsets.push(at);
    }
    if input.byte() == 0xff {
        offsets.pop();
    }
    let plan = Plan::from_offsets(&problem, offsets.clone(), Planner::Linear).ok()?;
    let verdict = verify(&problem, &plan, allow_fixed);
    let expected = brute_verdict(&problem, &offsets, allow_fixed);
    match (&verdict, &expected) {
        (Ok(v), Brute::Valid(declared)) => {
            let found: Vec<_> = v
                .declared_overlaps
                .iter()
                .map(|d| (d.a, d.b, d.time))
                .collect();
            assert_eq!(&found, declared, "{problem:?} {offsets:?}");
        }
        (Err(VerifyPlanError::WrongLength { .. }), Brute::WrongLength) => {}
        (Err(VerifyPlanError::FixedOffsetMoved { buffer, .. }), Brute::Moved(b))
        | (Err(VerifyPlanError::Misaligned { buffer, .. }), Brute::Misaligned(b)) => {
            assert_eq!(buffer, b, "{problem:?} {offsets:?}");
        }
        (
            Err(VerifyPlanError::Overlap {
                a, b, time, bytes, ..
            }),
            Brute::Overlaps(all),
        ) => assert!(
            all.contains(&(*a, *b, *time, *bytes)),
            "{a} and {b} at {time}, bytes {bytes:?}, none of {all:?}: {problem:?} {offsets:?}"
        ),
        (
            Err(VerifyPlanError::TooClose {
                output,
                input,
                displacement,
                min,
            }),
            Brute::TooClose(first),
        ) => assert_eq!(
            (*output, *input, *displacement, *min),
            *first,
            "{problem:?} {offsets:?}"
        ),
        _ => panic!("verifier: {verdict:?}, brute force: {expected:?}: {problem:?} {offsets:?}"),
    }
    Some(match expected {
        Brute::Valid(fixed) if fixed.is_empty() => "valid",
        Brute::Valid(_) => "valid, fixed overlaps",
        Brute::WrongLength => "wrong length",
        Brute::Moved(_) => "fixed offset moved",
        Brute::Misaligned(_) => "misaligned",
        Brute::Overlaps(_) => "overlap",
        Brute::TooClose(_) => "too close",
    })
}

/// The verdict [`plan_verify`] expects, from every two buffers in turn.
#[derive(Debug, PartialEq, Eq)]
enum Brute {
    /// Valid, with these overlaps of fixed buffers (lower index, higher, first time both live).
    Valid(Vec<(usize, usize, u32)>),
    WrongLength,
    /// The first buffer whose fixed offset moved.
    Moved(usize),
    /// The first misaligned buffer (before any that moved).
    Misaligned(usize),
    /// Every two buffers that share bytes while both live, neither a declared pair nor two
    /// fixed buffers allowed to overlap: (lower index, higher, first time both live, shared
    /// bytes).
    Overlaps(Vec<(usize, usize, u32, (u64, u64))>),
    /// The first declared pair (in the problem's order) too close: (output, input,
    /// displacement, least displacement rounded up to the alignment).
    TooClose((usize, usize, i128, i128)),
}

/// [`plan_verify`]'s oracle: the rules of the verifier's module docs checked on every two
/// buffers, with no sweep and no split of time (two buffers of a declared pair meet at the
/// pair's time, and are exempt by name).
fn brute_verdict(problem: &Problem, offsets: &[u64], allow_fixed: bool) -> Brute {
    let buffers = problem.buffers();
    let align = problem.alignment();
    if offsets.len() != buffers.len() {
        return Brute::WrongLength;
    }
    for (k, (b, &at)) in buffers.iter().zip(offsets).enumerate() {
        if b.fixed_offset.is_some_and(|f| f != at) {
            return Brute::Moved(k);
        }
        if at % align != 0 {
            return Brute::Misaligned(k);
        }
    }
    let span = |k: usize| {
        let size = buffers[k].size.div_ceil(align) * align;
        (offsets[k], offsets[k] + size)
    };
    let declared = |a: usize, b: usize| {
        problem
            .overlaps()
            .iter()
            .any(|p| (p.output, p.input) == (a, b) || (p.output, p.input) == (b, a))
    };
    let (mut bad, mut fixed) = (Vec::new(), Vec::new());
    for a in 0..buffers.len() {
        for b in a + 1..buffers.len() {
            let (la, lb) = (buffers[a].lifetime, buffers[b].lifetime);
            let ((sa, ea), (sb, eb)) = (span(a), span(b));
            let meet = la.first <= lb.last && lb.first <= la.last;
            let share = sa < eb && sb < ea && sa < ea && sb < eb;
            if !meet || !share || declared(a, b) {
                continue;
            }
            let time = la.first.max(lb.first);
            if allow_fixed && buffers[a].fixed_offset.is_some() && buffers[b].fixed_offset.is_some()
            {
                fixed.push((a, b, time));
            } else {
                bad.push((a, b, time, (sa.max(sb), ea.min(eb))));
            }
        }
    }
    if !bad.is_empty() {
        return Brute::Overlaps(bad);
    }
    for p in problem.overlaps() {
        let ((so, eo), (si, ei)) = (span(p.output), span(p.input));
        if so < ei && si < eo && so < eo && si < ei {
            // The least displacement rounded up to a multiple of the alignment.
            let a = i128::from(align);
            let least = i128::from(p.min_displacement);
            let min = if least % a == 0 {
                least
            } else {
                least - least.rem_euclid(a) + a
            };
            let displacement = i128::from(si) - i128::from(so);
            if displacement < min {
                return Brute::TooClose((p.output, p.input, displacement, min));
            }
        }
    }
    Brute::Valid(fixed)
}

/// Model bytes through the reader: [`read_model`] (the flatbuffer verifier, then validation of
/// every index), then what validation promises, checked on the model it returned (subgraphs
/// partition the tensors and ops in order, every index an op, subgraph, tensor or metadata
/// entry holds resolves, every range of the file it records lies in the file), then the
/// tensors' sizes and placements ([`graph::tensor_infos`], with and without an offline plan)
/// and the lifetimes ([`lifetime::lifetimes`]): an error or a value, never a panic.
pub fn model_read(data: &[u8]) {
    let Ok(model) = read_model(data) else {
        return;
    };
    assert_eq!(model.file_len, data.len());
    assert!(!model.subgraphs.is_empty(), "a model has a subgraph");
    let (mut tensors, mut op_count) = (0, 0);
    for (s, sg) in model.subgraphs.iter().enumerate() {
        assert_eq!(sg.index.get(), s);
        assert_eq!((sg.first_tensor, sg.first_op), (tensors, op_count));
        tensors += sg.tensor_count;
        op_count += sg.op_count;
        for &t in sg.inputs.iter().chain(&sg.outputs) {
            assert!(model.tensor(sg.index, t).is_some(), "subgraph {s}: {t}");
        }
    }
    assert_eq!((tensors, op_count), (model.tensors.len(), model.ops.len()));
    for (id, t) in model.tensors.iter().enumerate() {
        assert_eq!(t.id.get(), id);
        let sg = model.subgraphs.get(t.subgraph.get()).expect("its subgraph");
        assert_eq!(sg.first_tensor + t.index.get(), id);
        let buffer = model.buffers.get(t.buffer.get());
        assert!(buffer.is_some() || t.buffer.get() == 0, "tensor {id}");
        assert_eq!(t.is_constant, buffer.is_some_and(|b| b.data.is_some()));
    }
    for (k, op) in model.ops.iter().enumerate() {
        let sg = model
            .subgraphs
            .get(op.subgraph.get())
            .expect("its subgraph");
        assert_eq!(sg.first_op + op.index.get(), k);
        for &t in op
            .inputs
            .iter()
            .flatten()
            .chain(&op.outputs)
            .chain(&op.intermediates)
        {
            assert!(model.tensor(op.subgraph, t).is_some(), "op {k}: {t}");
        }
        for c in &op.callees {
            assert!(c.get() < model.subgraphs.len(), "op {k}: subgraph {c}");
        }
        if let Some(r) = &op.custom_options {
            assert!(data.get(r.clone()).is_some(), "op {k}: {r:?}");
        }
    }
    for b in &model.buffers {
        if let Some(r) = &b.data {
            assert!(data.get(r.clone()).is_some(), "{r:?}");
        }
    }
    // Metadata other than the offline plan is kept as the file has it (TFLite Micro reads
    // none of it, and a dangling index there is no reason to refuse a model); the offline
    // plan's buffer exists and holds a word per tensor.
    if let Some(plan) = &model.offline_plan {
        assert_eq!(plan.len(), model.tensors.len());
        let entry = model
            .metadata
            .iter()
            .find(|m| m.name == stowplan_planner::tflite::OFFLINE_PLAN_METADATA)
            .expect("the plan's metadata entry");
        assert!(model.buffers.get(entry.buffer.get()).is_some());
    }
    for honour in [false, true] {
        if let Ok(infos) = graph::tensor_infos(&model, &[], honour, false) {
            assert_eq!(infos.len(), model.tensors.len());
        }
    }
    let _ = lifetime::lifetimes(&model);
}

const TYPES: [DType; 8] = [
    DType::Float32,
    DType::Int8,
    DType::Uint8,
    DType::Int16,
    DType::Int32,
    DType::Bool,
    DType::Float16,
    DType::Int64,
];

/// A random graph written by the model builder and read back: what was written is what is read.
pub fn builder_roundtrip(data: &[u8]) {
    builder_roundtrip_reach(data);
}

/// [`builder_roundtrip`], saying how far the input got.
pub fn builder_roundtrip_reach(data: &[u8]) -> Reach {
    let mut input = Input(data);
    let mut b = ModelBuilder::new();
    let subgraphs = 1 + usize::from(input.byte() % 3);
    let mut expected = Vec::new();
    for s in 0..subgraphs {
        let sg = b.subgraph(&format!("sg{s}"));
        let tensors = 1 + usize::from(input.byte() % 8);
        for t in 0..tensors {
            let dtype = TYPES[usize::from(input.byte()) % TYPES.len()];
            let rank = usize::from(input.byte() % 4);
            let shape: Vec<i32> = (0..rank).map(|_| i32::from(input.byte() % 16)).collect();
            let variable = input.byte() % 8 == 0;
            let name = format!("t{s}_{t}");
            b.tensor_spec(
                sg,
                TensorSpec {
                    name: name.clone(),
                    type_code: dtype.code(),
                    shape: Some(shape.clone()),
                    is_variable: variable,
                    ..TensorSpec::default()
                },
            );
            expected.push((s, name, dtype, shape, variable));
        }
        let n = i32::try_from(tensors).unwrap_or(1);
        let ops = usize::from(input.byte() % 6);
        for _ in 0..ops {
            let x = i32::from(input.byte()) % n;
            let y = i32::from(input.byte()) % n;
            let op = BuiltinOp(i32::from(input.byte() % 100));
            b.op(sg, op, &[x, -1], &[y]);
        }
        b.io(sg, &[0], &[n - 1]);
    }
    let bytes = b.finish();
    let model = read_model(&bytes).expect("what the builder writes, the reader reads");
    assert_eq!(model.subgraphs.len(), subgraphs);
    assert_eq!(model.tensors.len(), expected.len());
    for (t, (s, name, dtype, shape, variable)) in model.tensors.iter().zip(&expected) {
        assert_eq!(t.subgraph.get(), *s);
        assert_eq!(&t.name, name);
        assert_eq!(t.dtype, *dtype);
        assert_eq!(&t.shape, shape);
        assert_eq!(t.is_variable, *variable);
        assert!(!t.is_constant);
    }
    // And the pipeline never panics on it.
    model_plan_reach(&bytes)
}

/// How far an input got through the pipeline (the counting mode of `fuzz-reach` prints the
/// shares over a corpus).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reach {
    /// Refused before a model was read.
    #[default]
    Rejected,
    /// Read as a model, refused before a plan.
    Parsed,
    /// Planned (and verified), refused by code generation with `invoke`.
    Planned,
    /// Code generation with `invoke` and a fallback module (for the ops without a kernel, or
    /// that cannot run as the model has them) succeeded and the output parsed; without the
    /// fallback it refused.
    Fallback,
    /// Code generation with `invoke` succeeded and the output parsed.
    Generated,
}

/// The largest input the `codegen` target takes: a bigger one is skipped, not fuzzed (a model
/// this size already exercises every path; bigger ones only slow the campaign).
pub const CODEGEN_MAX_INPUT: usize = 64 * 1024;

/// The most bytes of generated Rust (as token text) a model of `input` bytes may give: linear
/// in the file and in what folding added to flash (printed as literals), plus a fixed part for
/// the module's items.
#[must_use]
pub fn codegen_bound(input: usize, folded: u64) -> u64 {
    let input = u64::try_from(input).unwrap_or(u64::MAX);
    (1 << 20) + input.saturating_mul(512) + folded.saturating_mul(8)
}

/// Model bytes through the entry the macro and `stowplan-build` use for a module with
/// `invoke`: [`Options::with_invoke`], [`plan_model`], then [`generate`] with `invoke` (every op
/// lowered to its kernel call by `planner/src/ops/`). The output must parse as Rust and stay
/// within [`codegen_bound`]; a refusal must be one of the errors a user can act on.
pub fn codegen(data: &[u8]) {
    codegen_reach(data);
}

/// [`codegen`], saying how far the input got.
pub fn codegen_reach(data: &[u8]) -> Reach {
    if data.len() > CODEGEN_MAX_INPUT {
        return Reach::Rejected;
    }
    let options = Options {
        search_steps: SEARCH_STEPS,
        ..Options::default()
    }
    .with_invoke(true);
    let plan = match plan_model(data, &options) {
        Ok(plan) => plan,
        Err(e) => {
            if std::env::var_os("STOWPLAN_FUZZ_WHY").is_some() {
                eprintln!("plan: {e}");
            }
            return if read_model(data).is_ok() {
                Reach::Parsed
            } else {
                Reach::Rejected
            };
        }
    };
    let cg = crate::test_codegen("fuzzed", true);
    let mut reach = Reach::Planned;
    match generate(&plan, data, &cg) {
        Ok(tokens) => {
            let text = tokens.to_string();
            let bound = codegen_bound(data.len(), plan.folding.flash_bytes());
            assert!(
                u64::try_from(text.len()).unwrap_or(u64::MAX) <= bound,
                "generated {} bytes of Rust from {} bytes of model (bound {bound})",
                text.len(),
                data.len()
            );
            syn::parse_str::<syn::File>(&text).expect("generated invoke parses");
            reach = Reach::Generated;
        }
        // An offline plan that aliases live tensors is the user's to replan.
        Err(
            e @ (GenerateError::TooLarge { .. }
            | GenerateError::NoKernel { .. }
            | GenerateError::OfflineAliases { .. }),
        ) => {
            if std::env::var_os("STOWPLAN_FUZZ_WHY").is_some() {
                eprintln!("{e}");
            }
        }
        Err(e) => panic!("a model planned for invoke without a budget must generate: {e}"),
    }
    // With a fallback module the ops refused above run there (tried only when some were
    // refused: otherwise the module is the same).
    if reach == Reach::Planned {
        let with_fallback = Codegen {
            fallback: Some(syn::parse_quote!(crate::fallback)),
            ..cg
        };
        match generate(&plan, data, &with_fallback) {
            Ok(tokens) => {
                syn::parse2::<syn::File>(tokens).expect("generated invoke with a fallback parses");
                reach = Reach::Fallback;
            }
            // An op whose tensors have no views (not all in the arena, the persistent region
            // or constants) has no fallback either.
            Err(
                GenerateError::TooLarge { .. }
                | GenerateError::NoKernel { .. }
                | GenerateError::OfflineAliases { .. },
            ) => {}
            Err(e) => panic!("a model planned for invoke without a budget must generate: {e}"),
        }
    }
    reach
}

/// Activation types the generator draws.
const ACT_TYPES: [DType; 5] = [
    DType::Float32,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Float32,
];

/// Scales the generator draws for quantized tensors.
const SCALES: [f32; 6] = [0.5, 0.25, 0.1, 1.0 / 128.0, 1.0 / 256.0, 0.02];

/// Keys of custom ops' FlexBuffers options (the signal ops', circular buffer's and detection
/// post-processing's).
const CUSTOM_KEYS: [&str; 26] = [
    "delay_length",
    "cycles_max",
    "fft_length",
    "T",
    "shift",
    "num_channels",
    "input_correction_bits",
    "output_scale",
    "smoothing_bits",
    "spectral_subtraction_bits",
    "snr_shift",
    "clamping",
    "start_index",
    "end_index",
    "smoothing",
    "one_minus_smoothing",
    "alternate_smoothing",
    "alternate_one_minus_smoothing",
    "min_signal_remaining",
    "max_detections",
    "max_classes_per_detection",
    "detections_per_class",
    "num_classes",
    "use_regular_nms",
    "nms_score_threshold",
    "y_scale",
];

/// Ops of one input and one output.
const UNARY: [BuiltinOp; 29] = [
    BuiltinOp::ABS,
    BuiltinOp::SIN,
    BuiltinOp::COS,
    BuiltinOp::LOG,
    BuiltinOp::SQRT,
    BuiltinOp::RSQRT,
    BuiltinOp::SQUARE,
    BuiltinOp::NEG,
    BuiltinOp::CEIL,
    BuiltinOp::FLOOR,
    BuiltinOp::ROUND,
    BuiltinOp::EXP,
    BuiltinOp::TANH,
    BuiltinOp::ELU,
    BuiltinOp::HARD_SWISH,
    BuiltinOp::LEAKY_RELU,
    BuiltinOp::LOG_SOFTMAX,
    BuiltinOp::L2_NORMALIZATION,
    BuiltinOp::LOGISTIC,
    BuiltinOp::RELU,
    BuiltinOp::RELU6,
    BuiltinOp::SOFTMAX,
    BuiltinOp::QUANTIZE,
    BuiltinOp::DEQUANTIZE,
    BuiltinOp::CAST,
    BuiltinOp::ZEROS_LIKE,
    BuiltinOp::LOGICAL_NOT,
    BuiltinOp::SHAPE,
    BuiltinOp::SQUEEZE,
];

/// Ops of two inputs of one shape and one output.
const BINARY: [BuiltinOp; 18] = [
    BuiltinOp::ADD,
    BuiltinOp::SUB,
    BuiltinOp::MUL,
    BuiltinOp::DIV,
    BuiltinOp::FLOOR_DIV,
    BuiltinOp::FLOOR_MOD,
    BuiltinOp::MAXIMUM,
    BuiltinOp::MINIMUM,
    BuiltinOp::SQUARED_DIFFERENCE,
    BuiltinOp::EQUAL,
    BuiltinOp::NOT_EQUAL,
    BuiltinOp::GREATER,
    BuiltinOp::GREATER_EQUAL,
    BuiltinOp::LESS,
    BuiltinOp::LESS_EQUAL,
    BuiltinOp::LOGICAL_AND,
    BuiltinOp::LOGICAL_OR,
    BuiltinOp::PRELU,
];

/// Ops whose output is bool.
const COMPARISONS: [BuiltinOp; 6] = [
    BuiltinOp::EQUAL,
    BuiltinOp::NOT_EQUAL,
    BuiltinOp::GREATER,
    BuiltinOp::GREATER_EQUAL,
    BuiltinOp::LESS,
    BuiltinOp::LESS_EQUAL,
];

/// The input count of other ops (TFLM's `Prepare`).
const ARITY: [(BuiltinOp, usize); 29] = [
    (BuiltinOp::STRIDED_SLICE, 4),
    (BuiltinOp::GATHER, 2),
    (BuiltinOp::BATCH_TO_SPACE_ND, 3),
    (BuiltinOp::SPACE_TO_BATCH_ND, 3),
    (BuiltinOp::SPACE_TO_DEPTH, 1),
    (BuiltinOp::DEPTH_TO_SPACE, 1),
    (BuiltinOp::REVERSE_V2, 2),
    (BuiltinOp::SELECT_V2, 3),
    (BuiltinOp::PADV2, 3),
    (BuiltinOp::PAD, 2),
    (BuiltinOp::MIRROR_PAD, 2),
    (BuiltinOp::EMBEDDING_LOOKUP, 2),
    (BuiltinOp::RESIZE_BILINEAR, 2),
    (BuiltinOp::RESIZE_NEAREST_NEIGHBOR, 2),
    (BuiltinOp::DYNAMIC_UPDATE_SLICE, 3),
    (BuiltinOp::TRANSPOSE, 2),
    (BuiltinOp::SLICE, 3),
    (BuiltinOp::SPLIT, 2),
    (BuiltinOp::SPLIT_V, 3),
    (BuiltinOp::CUMSUM, 2),
    (BuiltinOp::BROADCAST_TO, 2),
    (BuiltinOp::BROADCAST_ARGS, 2),
    (BuiltinOp::FILL, 2),
    (BuiltinOp::GATHER_ND, 2),
    (BuiltinOp::SVDF, 5),
    (BuiltinOp::ARG_MAX, 2),
    (BuiltinOp::ARG_MIN, 2),
    (BuiltinOp::UNPACK, 1),
    (BuiltinOp::DENSIFY, 1),
];

/// Ops that take float32 only.
const FLOAT_ONLY: [BuiltinOp; 10] = [
    BuiltinOp::SIN,
    BuiltinOp::COS,
    BuiltinOp::LOG,
    BuiltinOp::SQRT,
    BuiltinOp::RSQRT,
    BuiltinOp::SQUARE,
    BuiltinOp::CEIL,
    BuiltinOp::FLOOR,
    BuiltinOp::ROUND,
    BuiltinOp::EXP,
];

/// Ops that take bool only.
const BOOL_ONLY: [BuiltinOp; 3] = [
    BuiltinOp::LOGICAL_AND,
    BuiltinOp::LOGICAL_OR,
    BuiltinOp::LOGICAL_NOT,
];

/// Ops that take a 4-D input.
const RANK_4: [BuiltinOp; 10] = [
    BuiltinOp::CONV_2D,
    BuiltinOp::DEPTHWISE_CONV_2D,
    BuiltinOp::TRANSPOSE_CONV,
    BuiltinOp::AVERAGE_POOL_2D,
    BuiltinOp::MAX_POOL_2D,
    BuiltinOp::L2_POOL_2D,
    BuiltinOp::RESIZE_BILINEAR,
    BuiltinOp::RESIZE_NEAREST_NEIGHBOR,
    BuiltinOp::SPACE_TO_DEPTH,
    BuiltinOp::DEPTH_TO_SPACE,
];

/// Whether `code` takes `x` as its first input (type and rank), as far as the tables say.
fn fits(code: Result<BuiltinOp, &str>, x: &Act) -> bool {
    let Ok(op) = code else { return true };
    (!FLOAT_ONLY.contains(&op) || x.dtype == DType::Float32)
        && (!BOOL_ONLY.contains(&op) || x.dtype == DType::Bool)
        && (!RANK_4.contains(&op) || x.shape.len() == 4)
}

/// An activation tensor of the generated graph.
#[derive(Clone)]
struct Act {
    index: i32,
    dtype: DType,
    shape: Vec<i32>,
    quant: Option<(f32, i64)>,
}

/// Writes a model from fuzz bytes read as choices: ops from stowplan's op table with plausible
/// shapes (inferred for convolutions, pooling, fully connected, reshapes, reductions and
/// concatenation; the input's otherwise), types, quantisation, options and constants.
struct Gen<'a> {
    input: Input<'a>,
    b: ModelBuilder,
    acts: Vec<Act>,
    read: Vec<i32>,
    names: usize,
}

impl Gen<'_> {
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        let i = usize::from(self.input.byte()) % items.len().max(1);
        items.get(i).copied().unwrap_or_else(|| items[0])
    }

    fn name(&mut self) -> String {
        self.names += 1;
        format!("t{}", self.names)
    }

    fn dim(&mut self) -> i32 {
        1 + i32::from(self.input.byte() % 6)
    }

    fn quant_for(&mut self, dtype: DType) -> Option<(f32, i64)> {
        let scale = self.pick(&SCALES);
        match dtype {
            DType::Int8 => Some((scale, i64::from(self.input.byte() as i8 / 4))),
            DType::Int16 => Some((scale / 64.0, 0)),
            _ => None,
        }
    }

    fn act(&mut self, dtype: DType, shape: Vec<i32>, quant: Option<(f32, i64)>) -> Act {
        let name = self.name();
        let index = match quant {
            Some((s, z)) => self.b.quantized(0, &name, dtype, &shape, (&[s], &[z], 0)),
            None => self.b.tensor(0, &name, dtype, &shape),
        };
        Act {
            index,
            dtype,
            shape,
            quant,
        }
    }

    /// Constant data of `count` elements of `dtype`: small values, from the input.
    fn data(&mut self, dtype: DType, count: usize) -> Vec<u8> {
        let count = count.min(4096);
        let mut out = Vec::new();
        for _ in 0..count {
            let v = self.input.byte() as i8;
            match dtype {
                DType::Float32 => out.extend_from_slice(&(f32::from(v) / 16.0).to_le_bytes()),
                DType::Int32 => out.extend_from_slice(&i32::from(v).to_le_bytes()),
                DType::Int16 => out.extend_from_slice(&i16::from(v).to_le_bytes()),
                DType::Int64 => out.extend_from_slice(&i64::from(v).to_le_bytes()),
                DType::Bool => out.push(u8::from(v < 0)),
                _ => out.push(v as u8),
            }
        }
        out
    }

    fn constant(&mut self, dtype: DType, shape: &[i32], quant: Option<(f32, i64)>) -> i32 {
        let count = shape
            .iter()
            .map(|&d| usize::try_from(d).unwrap_or(0))
            .product();
        let data = self.data(dtype, count);
        let name = self.name();
        match quant {
            Some((s, z)) => {
                self.b
                    .quantized_constant(0, &name, dtype, shape, (&[s], &[z], 0), &data)
            }
            None => self.b.constant(0, &name, dtype, shape, &data),
        }
    }

    fn int32s(&mut self, values: &[i32]) -> i32 {
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let name = self.name();
        let len = i32::try_from(values.len()).unwrap_or(0);
        self.b.constant(0, &name, DType::Int32, &[len], &data)
    }

    fn activation(&mut self) -> Activation {
        self.pick(&[
            Activation::None,
            Activation::None,
            Activation::Relu,
            Activation::Relu6,
            Activation::ReluN1To1,
            Activation::Tanh,
        ])
    }

    fn padding(&mut self) -> Padding {
        self.pick(&[Padding::Same, Padding::Valid])
    }

    /// The spatial size after a window of `k` with stride `s`.
    fn spatial(padding: Padding, size: i32, k: i32, s: i32) -> i32 {
        match padding {
            Padding::Valid => ((size - k) / s + 1).max(1),
            _ => (size + s - 1) / s,
        }
    }

    /// The input tensor an op reads: one the graph computed (most often the latest).
    fn operand(&mut self) -> Act {
        let n = self.acts.len();
        let back = usize::from(self.input.byte() % 4).min(n.saturating_sub(1));
        self.acts[n - 1 - back].clone()
    }

    /// Weights for an op over `x`: int8 with per-tensor or per-channel scales for a quantized
    /// input, `x`'s type otherwise.
    fn weights(&mut self, x: &Act, shape: &[i32], channel_dim: i32) -> (i32, Option<f32>) {
        if x.quant.is_none() {
            return (self.constant(x.dtype, shape, None), None);
        }
        let scale = self.pick(&SCALES) / 4.0;
        let channels = usize::try_from(
            shape
                .get(usize::try_from(channel_dim).unwrap_or(0))
                .copied()
                .unwrap_or(1),
        )
        .unwrap_or(1);
        let per_channel = self.input.byte().is_multiple_of(2);
        let (scales, zeros) = if per_channel {
            (vec![scale; channels], vec![0; channels])
        } else {
            (vec![scale], vec![0])
        };
        let count = shape
            .iter()
            .map(|&d| usize::try_from(d).unwrap_or(0))
            .product();
        let data = self.data(DType::Int8, count);
        let name = self.name();
        let t = self.b.quantized_constant(
            0,
            &name,
            DType::Int8,
            shape,
            (&scales, &zeros, channel_dim),
            &data,
        );
        (t, Some(scale))
    }

    fn bias(&mut self, x: &Act, channels: i32, wscale: Option<f32>) -> i32 {
        match (x.quant, wscale) {
            (Some((s, _)), Some(w)) => {
                let dtype = if x.dtype == DType::Int16 {
                    DType::Int64
                } else {
                    DType::Int32
                };
                self.constant(dtype, &[channels], Some((s * w, 0)))
            }
            _ => self.constant(x.dtype, &[channels], None),
        }
    }

    /// Adds one op; its outputs join the activations.
    fn op(&mut self, codes: &[Result<BuiltinOp, &str>]) {
        let x = self.operand();
        // A few draws for an op that takes `x` as it is.
        let mut code = self.pick(codes);
        for _ in 0..3 {
            if fits(code, &x) {
                break;
            }
            code = self.pick(codes);
        }
        let mut out_quant = if x.quant.is_some() && self.input.byte().is_multiple_of(4) {
            self.quant_for(x.dtype)
        } else {
            x.quant
        };
        let rank = x.shape.len();
        let mut inputs = vec![x.index];
        let mut out_shape = x.shape.clone();
        let mut out_type = x.dtype;
        let mut outputs = 1;
        let mut options = OpOptions::None;
        match code {
            Err(custom) => {
                let extra = usize::from(self.input.byte() % 3);
                for _ in 0..extra {
                    let y = self.operand();
                    inputs.push(y.index);
                }
                let keys = 1 + usize::from(self.input.byte() % 6);
                let entries: Vec<(&str, WriteValue)> = (0..keys)
                    .map(|_| {
                        let key = self.pick(&CUSTOM_KEYS);
                        (key, WriteValue::Int(i64::from(self.input.byte() % 16)))
                    })
                    .collect();
                let custom_options = write_map(&entries, 1);
                outputs = 1 + usize::from(self.input.byte() % 4);
                let outs = self.outputs(outputs, &out_shape, out_type, out_quant);
                self.mark_read(&inputs);
                self.b
                    .custom_with_options(0, custom, &inputs, &outs, &custom_options);
                return;
            }
            Ok(op)
                if op == BuiltinOp::CONV_2D
                    || op == BuiltinOp::DEPTHWISE_CONV_2D
                    || op == BuiltinOp::TRANSPOSE_CONV =>
            {
                let (n, h, w, c) = match x.shape[..] {
                    [n, h, w, c] => (n, h, w, c),
                    _ => (1, 1, 1, x.shape.iter().product::<i32>().max(1)),
                };
                let kh = 1 + i32::from(self.input.byte() % 3);
                let kw = 1 + i32::from(self.input.byte() % 3);
                let sh = 1 + i32::from(self.input.byte() % 2);
                let sw = 1 + i32::from(self.input.byte() % 2);
                let padding = self.padding();
                let activation = self.activation();
                let oh = Self::spatial(padding, h, kh, sh);
                let ow = Self::spatial(padding, w, kw, sw);
                if op == BuiltinOp::CONV_2D {
                    let o = self.dim();
                    let (filter, ws) = self.weights(&x, &[o, kh, kw, c], 0);
                    let bias = self.bias(&x, o, ws);
                    inputs.extend([filter, bias]);
                    out_shape = vec![n, oh, ow, o];
                    options = OpOptions::Conv2D {
                        padding,
                        stride_w: sw,
                        stride_h: sh,
                        dilation_w: 1,
                        dilation_h: 1,
                        activation,
                    };
                } else if op == BuiltinOp::DEPTHWISE_CONV_2D {
                    let m = 1 + i32::from(self.input.byte() % 2);
                    let (filter, ws) = self.weights(&x, &[1, kh, kw, c * m], 3);
                    let bias = self.bias(&x, c * m, ws);
                    inputs.extend([filter, bias]);
                    out_shape = vec![n, oh, ow, c * m];
                    options = OpOptions::DepthwiseConv2D {
                        padding,
                        stride_w: sw,
                        stride_h: sh,
                        depth_multiplier: m,
                        dilation_w: 1,
                        dilation_h: 1,
                        activation,
                    };
                } else {
                    let o = self.dim();
                    let (oh, ow) = match padding {
                        Padding::Valid => (h * sh + (kh - sh).max(0), w * sw + (kw - sw).max(0)),
                        _ => (h * sh, w * sw),
                    };
                    let shape = self.int32s(&[n, oh, ow, o]);
                    let (filter, ws) = self.weights(&x, &[o, kh, kw, c], 0);
                    let bias = self.bias(&x, o, ws);
                    inputs = vec![shape, filter, x.index, bias];
                    out_shape = vec![n, oh, ow, o];
                    options = OpOptions::TransposeConv {
                        padding,
                        stride_w: sw,
                        stride_h: sh,
                        activation,
                        quantized_bias_type: DType::Float32,
                    };
                }
            }
            Ok(op) if op == BuiltinOp::FULLY_CONNECTED || op == BuiltinOp::BATCH_MATMUL => {
                let d = x.shape.last().copied().unwrap_or(1);
                let batch = x.shape.iter().product::<i32>() / d.max(1);
                let u = self.dim();
                if op == BuiltinOp::FULLY_CONNECTED {
                    let (weights, ws) = self.weights(&x, &[u, d], 0);
                    let bias = self.bias(&x, u, ws);
                    inputs.extend([weights, bias]);
                    out_shape = vec![batch, u];
                    let activation = self.activation();
                    options = OpOptions::FullyConnected {
                        activation,
                        keep_num_dims: false,
                        shuffled_weights: false,
                    };
                } else {
                    let mut shape = x.shape.clone();
                    if let Some(last) = shape.last_mut() {
                        *last = u;
                    }
                    let len = shape.len();
                    if len >= 2 {
                        shape[len - 2] = d;
                    }
                    let y = self.constant(x.dtype, &shape, x.quant);
                    inputs.push(y);
                    out_shape.truncate(len.saturating_sub(1));
                    out_shape.push(u);
                    options = OpOptions::BatchMatMul {
                        adj_x: false,
                        adj_y: false,
                        asymmetric_quantize_inputs: false,
                    };
                }
            }
            Ok(op)
                if op == BuiltinOp::AVERAGE_POOL_2D
                    || op == BuiltinOp::MAX_POOL_2D
                    || op == BuiltinOp::L2_POOL_2D =>
            {
                let kh = 1 + i32::from(self.input.byte() % 3);
                let kw = 1 + i32::from(self.input.byte() % 3);
                let sh = 1 + i32::from(self.input.byte() % 2);
                let sw = 1 + i32::from(self.input.byte() % 2);
                let padding = self.padding();
                let activation = self.activation();
                if let [n, h, w, c] = x.shape[..] {
                    out_shape = vec![
                        n,
                        Self::spatial(padding, h, kh, sh),
                        Self::spatial(padding, w, kw, sw),
                        c,
                    ];
                }
                options = OpOptions::Pool2D {
                    padding,
                    stride_w: sw,
                    stride_h: sh,
                    filter_w: kw,
                    filter_h: kh,
                    activation,
                };
            }
            Ok(op)
                if op == BuiltinOp::RESHAPE
                    || op == BuiltinOp::SQUEEZE
                    || op == BuiltinOp::EXPAND_DIMS =>
            {
                let total = x.shape.iter().product::<i32>();
                out_shape = match self.input.byte() % 3 {
                    0 => vec![total],
                    1 => vec![1, total],
                    _ => x.shape.iter().copied().filter(|&d| d != 1).collect(),
                };
                if op == BuiltinOp::RESHAPE {
                    let shape = self.int32s(&out_shape);
                    inputs.push(shape);
                    options = OpOptions::Reshape {
                        new_shape: Some(out_shape.clone()),
                    };
                } else if op == BuiltinOp::EXPAND_DIMS {
                    let axis =
                        i32::from(self.input.byte()) % (i32::try_from(rank).unwrap_or(0) + 1);
                    let a = self.int32s(&[axis]);
                    inputs.push(a);
                    out_shape = x.shape.clone();
                    out_shape.insert(usize::try_from(axis).unwrap_or(0).min(rank), 1);
                } else {
                    options = OpOptions::Squeeze {
                        squeeze_dims: Vec::new(),
                    };
                }
            }
            Ok(op)
                if op == BuiltinOp::MEAN
                    || op == BuiltinOp::SUM
                    || op == BuiltinOp::REDUCE_MAX
                    || op == BuiltinOp::REDUCE_MIN =>
            {
                let axis = usize::from(self.input.byte()) % rank.max(1);
                let a = self.int32s(&[i32::try_from(axis).unwrap_or(0)]);
                inputs.push(a);
                let keep_dims = self.input.byte().is_multiple_of(2);
                if keep_dims {
                    if let Some(d) = out_shape.get_mut(axis) {
                        *d = 1;
                    }
                } else if axis < out_shape.len() {
                    out_shape.remove(axis);
                }
                options = OpOptions::Reducer { keep_dims };
            }
            Ok(op) if op == BuiltinOp::CONCATENATION || op == BuiltinOp::PACK => {
                let axis = usize::from(self.input.byte()) % rank.max(1);
                let count = 2 + usize::from(self.input.byte() % 2);
                for _ in 1..count {
                    inputs.push(x.index);
                }
                let ax = i32::try_from(axis).unwrap_or(0);
                let n = i32::try_from(count).unwrap_or(2);
                if op == BuiltinOp::CONCATENATION {
                    if let Some(d) = out_shape.get_mut(axis) {
                        *d *= n;
                    }
                    let activation = self.activation();
                    options = OpOptions::Concatenation {
                        axis: ax,
                        activation,
                    };
                } else {
                    out_shape.insert(axis.min(rank), n);
                    options = OpOptions::Pack {
                        values_count: n,
                        axis: ax,
                    };
                }
            }
            Ok(op) => {
                // Other ops: more operands (the input again, another activation, a constant of
                // the input's shape or a small int32 vector of parameters), the input's shape
                // and type out unless a choice changes them.
                let unary = UNARY.contains(&op);
                let binary = BINARY.contains(&op);
                let extra_params = ARITY.iter().any(|(o, _)| *o == op);
                let extra = if unary {
                    0
                } else if binary {
                    1
                } else if let Some(&(_, n)) = ARITY.iter().find(|(o, _)| *o == op) {
                    n - 1
                } else {
                    usize::from(self.input.byte() % 3)
                };
                for _ in 0..extra {
                    let choice = if binary {
                        self.input.byte() % 3
                    } else if extra_params {
                        2 + self.input.byte() % 2
                    } else {
                        self.input.byte() % 4
                    };
                    let t = match choice {
                        0 => x.index,
                        1 => self.operand().index,
                        2 => self.constant(x.dtype, &x.shape, x.quant),
                        _ => {
                            let len = 1 + usize::from(self.input.byte() % 4);
                            let values: Vec<i32> =
                                (0..len).map(|_| i32::from(self.input.byte() % 4)).collect();
                            self.int32s(&values)
                        }
                    };
                    inputs.push(t);
                }
                if COMPARISONS.contains(&op) {
                    out_type = DType::Bool;
                } else if op == BuiltinOp::DEQUANTIZE {
                    out_type = DType::Float32;
                } else if op == BuiltinOp::QUANTIZE {
                    out_type = self.pick(&[DType::Int8, DType::Int16]);
                    out_quant = self.quant_for(out_type);
                } else if self.input.byte().is_multiple_of(8) {
                    out_type = self.pick(&[
                        DType::Bool,
                        DType::Int32,
                        DType::Float32,
                        DType::Int8,
                        DType::Int64,
                    ]);
                }
                if !unary && !binary && self.input.byte().is_multiple_of(8) && !out_shape.is_empty()
                {
                    out_shape.pop();
                }
                if op == BuiltinOp::SPLIT || op == BuiltinOp::SPLIT_V || op == BuiltinOp::UNPACK {
                    outputs = 1 + usize::from(self.input.byte() % 3);
                }
                let axis = i32::from(self.input.byte() % 4);
                let n = i32::try_from(outputs).unwrap_or(1);
                let activation = self.activation();
                let flag = self.input.byte().is_multiple_of(2);
                options = match op {
                    o if o == BuiltinOp::SOFTMAX => OpOptions::Softmax { beta: 1.0 },
                    o if o == BuiltinOp::ADD => OpOptions::Add {
                        activation,
                        pot_scale_int16: false,
                    },
                    o if o == BuiltinOp::SUB => OpOptions::Sub {
                        activation,
                        pot_scale_int16: false,
                    },
                    o if o == BuiltinOp::MUL => OpOptions::Mul { activation },
                    o if o == BuiltinOp::DIV => OpOptions::Div { activation },
                    o if o == BuiltinOp::L2_NORMALIZATION => OpOptions::L2Norm { activation },
                    o if o == BuiltinOp::SPLIT => OpOptions::Split { num_splits: n },
                    o if o == BuiltinOp::SPLIT_V => OpOptions::SplitV { num_splits: n },
                    o if o == BuiltinOp::UNPACK => OpOptions::Unpack { num: n, axis },
                    o if o == BuiltinOp::GATHER => OpOptions::Gather {
                        axis,
                        batch_dims: 0,
                    },
                    o if o == BuiltinOp::CAST => OpOptions::Cast {
                        in_data_type: x.dtype,
                        out_data_type: out_type,
                    },
                    o if o == BuiltinOp::ARG_MAX => OpOptions::ArgMax {
                        output_type: DType::Int32,
                    },
                    o if o == BuiltinOp::ARG_MIN => OpOptions::ArgMin {
                        output_type: DType::Int32,
                    },
                    o if o == BuiltinOp::SHAPE => OpOptions::Shape {
                        out_type: DType::Int32,
                    },
                    o if o == BuiltinOp::LEAKY_RELU => OpOptions::LeakyRelu { alpha: 0.2 },
                    o if o == BuiltinOp::MIRROR_PAD => OpOptions::MirrorPad { symmetric: flag },
                    o if o == BuiltinOp::DEPTH_TO_SPACE => {
                        OpOptions::DepthToSpace { block_size: 2 }
                    }
                    o if o == BuiltinOp::SPACE_TO_DEPTH => {
                        OpOptions::SpaceToDepth { block_size: 2 }
                    }
                    o if o == BuiltinOp::CUMSUM => OpOptions::Cumsum {
                        exclusive: flag,
                        reverse: false,
                    },
                    o if o == BuiltinOp::RESIZE_BILINEAR => OpOptions::ResizeBilinear {
                        align_corners: false,
                        half_pixel_centers: flag,
                    },
                    o if o == BuiltinOp::RESIZE_NEAREST_NEIGHBOR => {
                        OpOptions::ResizeNearestNeighbor {
                            align_corners: false,
                            half_pixel_centers: flag,
                        }
                    }
                    o if o == BuiltinOp::STRIDED_SLICE => OpOptions::StridedSlice {
                        begin_mask: 0,
                        end_mask: 0,
                        ellipsis_mask: 0,
                        new_axis_mask: 0,
                        shrink_axis_mask: 0,
                        offset: false,
                    },
                    o if o == BuiltinOp::SVDF => OpOptions::Svdf {
                        rank: 1,
                        activation,
                        asymmetric_quantize_inputs: false,
                    },
                    _ => OpOptions::None,
                };
            }
        }
        let Ok(op) = code else { return };
        let outs = self.outputs(outputs, &out_shape, out_type, out_quant);
        self.mark_read(&inputs);
        self.b.op_with_options(0, op, &inputs, &outs, options);
    }

    fn mark_read(&mut self, inputs: &[i32]) {
        self.read.extend_from_slice(inputs);
    }

    fn outputs(
        &mut self,
        count: usize,
        shape: &[i32],
        dtype: DType,
        quant: Option<(f32, i64)>,
    ) -> Vec<i32> {
        let quant = quant.filter(|_| matches!(dtype, DType::Int8 | DType::Int16));
        (0..count)
            .map(|_| {
                let a = self.act(dtype, shape.to_vec(), quant);
                let index = a.index;
                self.acts.push(a);
                index
            })
            .collect()
    }
}

/// The model [`model_gen`] writes for `data`.
#[must_use]
pub fn generated_model(data: &[u8]) -> Vec<u8> {
    let mut codes: Vec<Result<BuiltinOp, &str>> = ops::builtin_codes().map(Ok).collect();
    codes.extend(ops::custom_codes().map(Err));
    let mut g = Gen {
        input: Input(data),
        b: ModelBuilder::new(),
        acts: Vec::new(),
        read: Vec::new(),
        names: 0,
    };
    g.b.subgraph("main");
    let dtype = g.pick(&ACT_TYPES);
    let rank = match g.input.byte() % 6 {
        0 => 1,
        1 => 2,
        2 => 3,
        _ => 4,
    };
    let shape: Vec<i32> = (0..rank).map(|_| g.dim()).collect();
    let quant = g.quant_for(dtype);
    let first = g.act(dtype, shape, quant);
    let model_input = first.index;
    g.acts.push(first);
    let ops = 1 + usize::from(g.input.byte() % 5);
    for _ in 0..ops {
        if g.input.is_empty() {
            break;
        }
        g.op(&codes);
    }
    // Every activation no op reads is a model output.
    let outputs: Vec<i32> = g
        .acts
        .iter()
        .skip(1)
        .filter(|a| !g.read.contains(&a.index))
        .map(|a| a.index)
        .collect();
    let outputs = if outputs.is_empty() {
        vec![model_input]
    } else {
        outputs
    };
    g.b.io(0, &[model_input], &outputs);
    g.b.finish()
}

/// Fuzz bytes read as choices for the model builder ([`generated_model`]): ops from the op
/// table with plausible shapes, types, quantisation, options and constants, so that most
/// inputs are models that reach planning, kernel lowering and code generation with `invoke`
/// ([`codegen`]).
pub fn model_gen(data: &[u8]) {
    model_gen_reach(data);
}

/// [`model_gen`], saying how far the input got.
pub fn model_gen_reach(data: &[u8]) -> Reach {
    codegen_reach(&generated_model(data))
}
