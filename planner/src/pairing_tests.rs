//! The planner's pairs against the plan's check: every pair [`crate::kernel_order::pairs`]
//! proposes must be one `overlap_proof` accepts at its declared displacement, whether or not
//! the plan puts its tensors over each other. Random graphs of the shapes streaming models
//! have (resource variables read, sliced, concatenated with new frames and assigned back,
//! reshapes that alias their inputs, several concatenations, activations and additions), and
//! the streaming models of the bug this guards against.

use proptest::prelude::*;

use crate::overlap_proof::{Planned, check_with};
use crate::tflite::builder::{ModelBuilder, ops};
use crate::tflite::{Activation, BuiltinOp, DType, OpOptions};
use crate::{ModelPlan, Options, plan_model};

/// Every pair of `plan`'s problem, checked by `overlap_proof` as if the plan put it at its
/// least displacement.
fn every_pair_passes(plan: &ModelPlan, bytes: &[u8]) -> Result<(), String> {
    check_with(
        &Planned {
            model: &plan.model,
            bytes,
            tensors: &plan.tensors,
            problem: &plan.problem,
            plan: &plan.plan,
            buffer_tensors: &plan.buffer_tensors,
        },
        &crate::ops::overwrite_of,
        true,
    )
}

/// The constant int32 vector `v`.
fn ints(b: &mut ModelBuilder, sg: usize, name: &str, v: &[i32]) -> i32 {
    let data: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    let n = i32::try_from(v.len()).unwrap();
    b.constant(sg, name, DType::Int32, &[n], &data)
}

fn var_handle(name: &str) -> OpOptions {
    OpOptions::VarHandle {
        container: String::new(),
        shared_name: name.to_owned(),
    }
}

fn concatenation(axis: i32) -> OpOptions {
    OpOptions::Concatenation {
        axis,
        activation: Activation::None,
    }
}

fn strided_slice() -> OpOptions {
    OpOptions::StridedSlice {
        begin_mask: 0,
        end_mask: 0,
        ellipsis_mask: 0,
        new_axis_mask: 0,
        shrink_axis_mask: 0,
        offset: false,
    }
}

/// Tensors of one element type: float32, or int8 quantised alike (zero point -5).
struct Graph {
    b: ModelBuilder,
    sg: usize,
    dtype: DType,
    names: usize,
}

impl Graph {
    fn new(dtype: DType) -> Self {
        let mut b = ModelBuilder::new();
        let sg = b.subgraph("main");
        Self {
            b,
            sg,
            dtype,
            names: 0,
        }
    }

    /// `name` followed by a number of its own (random graphs name every tensor so).
    fn fresh(&mut self, name: &str) -> String {
        self.names += 1;
        format!("{name}{}", self.names)
    }

    fn tensor(&mut self, name: &str, shape: &[i32]) -> i32 {
        match self.dtype {
            DType::Int8 => self
                .b
                .quantized(self.sg, name, DType::Int8, shape, (&[0.5], &[-5], 0)),
            dtype => self.b.tensor(self.sg, name, dtype, shape),
        }
    }

    fn handle(&mut self, name: &str) -> i32 {
        let h = self
            .b
            .tensor(self.sg, &format!("{name}/handle"), DType::Resource, &[]);
        self.b
            .op_with_options(self.sg, ops::VAR_HANDLE, &[], &[h], var_handle(name));
        h
    }

    /// `name = x[begin..end]` along axis 1 of a tensor of shape `shape`.
    fn slice(
        &mut self,
        name: &str,
        x: i32,
        shape: &[i32],
        (begin, end): (i32, i32),
    ) -> (i32, Vec<i32>) {
        let mut b = vec![0; shape.len()];
        let mut e = shape.to_vec();
        b[1] = begin;
        e[1] = end;
        let mut out = shape.to_vec();
        out[1] = end - begin;
        let sg = self.sg;
        let begin = ints(&mut self.b, sg, "begin", &b);
        let end = ints(&mut self.b, sg, "end", &e);
        let strides = ints(&mut self.b, sg, "strides", &vec![1; shape.len()]);
        let y = self.tensor(name, &out);
        self.b.op_with_options(
            sg,
            BuiltinOp::STRIDED_SLICE,
            &[x, begin, end, strides],
            &[y],
            strided_slice(),
        );
        (y, out)
    }

    fn reshape(&mut self, name: &str, x: i32, to: &[i32]) -> i32 {
        let sg = self.sg;
        let shape = ints(&mut self.b, sg, "shape", to);
        let y = self.tensor(name, to);
        self.b.op_with_options(
            sg,
            ops::RESHAPE,
            &[x, shape],
            &[y],
            OpOptions::Reshape {
                new_shape: Some(to.to_vec()),
            },
        );
        y
    }

    fn concat(&mut self, name: &str, inputs: &[i32], out: &[i32]) -> i32 {
        let y = self.tensor(name, out);
        self.b
            .op_with_options(self.sg, ops::CONCATENATION, inputs, &[y], concatenation(1));
        y
    }
}

/// The streaming model of the bug: a window of `t` frames of `f` values kept in a resource
/// variable (READ_VARIABLE → STRIDED_SLICE → CONCATENATION with the new frame →
/// ASSIGN_VARIABLE), flattened by a RESHAPE that aliases it, and a second CONCATENATION of the
/// flat window with another variable (which keeps the first values of the result).
fn streaming_window(dtype: DType) -> Vec<u8> {
    let (t, f, k) = (3, 4, 5);
    let mut g = Graph::new(dtype);
    let x = g.tensor("frame", &[1, 1, f]);
    let window = g.handle("window");
    let history = g.handle("history");
    let w = g.tensor("window", &[1, t, f]);
    g.b.op(g.sg, ops::READ_VARIABLE, &[window], &[w]);
    let (kept, _) = g.slice("kept", w, &[1, t, f], (1, t));
    let concat = g.concat("concat", &[kept, x], &[1, t, f]);
    g.b.op(g.sg, ops::ASSIGN_VARIABLE, &[window, concat], &[]);
    let flat = g.reshape("flat", concat, &[1, t * f]);
    let h = g.tensor("history", &[1, k]);
    g.b.op(g.sg, ops::READ_VARIABLE, &[history], &[h]);
    let out = g.concat("concat_1", &[flat, h], &[1, t * f + k]);
    let (next, _) = g.slice("next", out, &[1, t * f + k], (0, k));
    g.b.op(g.sg, ops::ASSIGN_VARIABLE, &[history, next], &[]);
    g.b.io(g.sg, &[x], &[out]);
    g.b.finish()
}

/// The streaming models plan with `invoke`, and no pair names a tensor the op does not read:
/// the flat window is read by the second CONCATENATION but aliases the first one's output,
/// so that op keeps its output off the window (it was paired with `concat`, the buffer's
/// tensor, and the plan failed verification: "concat_1 shares bytes with concat").
#[test]
fn streaming_windows_plan_with_invoke() {
    for dtype in [DType::Float32, DType::Int8] {
        let bytes = streaming_window(dtype);
        let plan = plan_model(&bytes, &Options::default().with_invoke(true))
            .unwrap_or_else(|e| panic!("{dtype}: {e}"));
        every_pair_passes(&plan, &bytes).unwrap();
        let name = |t: crate::tflite::TensorId| plan.model.tensors[t.get()].name.as_str();
        let aliases: Vec<(&str, &str)> = plan
            .aliases
            .iter()
            .map(|&(i, o)| (name(i), name(o)))
            .collect();
        assert_eq!(aliases, [("concat", "flat")], "{dtype}");
        // The first CONCATENATION writes the window over the frames it keeps; nothing is
        // written over the flat window.
        let pairs: Vec<(&str, &str)> = plan
            .problem
            .overlaps()
            .iter()
            .map(|o| {
                (
                    name(plan.buffer_tensors[o.input]),
                    name(plan.buffer_tensors[o.output]),
                )
            })
            .collect();
        assert_eq!(pairs, [("kept", "concat")], "{dtype}");
    }
}

/// One step of a random graph, read from a number.
fn random_graph(dtype: DType, steps: &[u32], alignment: u64) -> (Vec<u8>, Options) {
    let f = 4;
    let mut g = Graph::new(dtype);
    // Live tensors, with their shapes: a frame, a flat input.
    let frame = g.tensor("frame", &[1, 1, f]);
    let input = g.tensor("input", &[1, 6]);
    let fresh = |g: &mut Graph, name: &str| g.fresh(name);
    let mut pool: Vec<(i32, Vec<i32>)> = vec![(frame, vec![1, 1, f]), (input, vec![1, 6])];
    // Resource variables: a window of frames and a flat one, each with its handle.
    let vars: Vec<(i32, Vec<i32>)> = vec![
        (g.handle("window"), vec![1, 3, f]),
        (g.handle("flat"), vec![1, 5]),
    ];
    let mut assigned = [false; 2];
    for &s in steps {
        let pick = |n: usize, salt: u32| (s / 8).wrapping_add(salt) as usize % n;
        let (x, shape) = pool[pick(pool.len(), 0)].clone();
        match s % 8 {
            // An activation.
            0 => {
                let name = fresh(&mut g, "relu");
                let y = g.tensor(&name, &shape);
                g.b.op(g.sg, ops::RELU, &[x], &[y]);
                pool.push((y, shape));
            }
            // A reshape between [1, n] and [1, n / f, f] (or [1, 1, n]).
            1 => {
                let n: i32 = shape.iter().product();
                let to = if shape.len() == 3 {
                    vec![1, n]
                } else if n % f == 0 {
                    vec![1, n / f, f]
                } else {
                    vec![1, 1, n]
                };
                let name = fresh(&mut g, "reshape");
                let y = g.reshape(&name, x, &to);
                pool.push((y, to));
            }
            // A concatenation along axis 1 of two or three tensors that match elsewhere (one
            // of them may be read twice).
            2 | 3 => {
                let partners: Vec<i32> = pool
                    .iter()
                    .filter(|(_, p)| {
                        p.len() == shape.len()
                            && p.iter()
                                .zip(&shape)
                                .enumerate()
                                .all(|(d, (a, b))| d == 1 || a == b)
                    })
                    .map(|(t, _)| *t)
                    .collect();
                let n = 2 + pick(2, 1);
                let inputs: Vec<i32> = (0..n)
                    .map(|k| {
                        if k == 0 {
                            x
                        } else {
                            partners[pick(partners.len(), 3 + k as u32)]
                        }
                    })
                    .collect();
                let along: i32 = inputs
                    .iter()
                    .map(|t| pool.iter().find(|(u, _)| u == t).map_or(0, |(_, p)| p[1]))
                    .sum();
                let mut out = shape.clone();
                out[1] = along;
                let name = fresh(&mut g, "concat");
                let y = g.concat(&name, &inputs, &out);
                pool.push((y, out));
            }
            // A variable read.
            4 => {
                let (h, vshape) = vars[pick(2, 5)].clone();
                let name = fresh(&mut g, "read");
                let y = g.tensor(&name, &vshape);
                g.b.op(g.sg, ops::READ_VARIABLE, &[h], &[y]);
                pool.push((y, vshape));
            }
            // A variable assigned from a tensor of its shape, if there is one.
            5 => {
                let v = pick(2, 6);
                let (h, vshape) = vars[v].clone();
                if let Some((t, _)) = pool.iter().rev().find(|(_, p)| *p == vshape) {
                    g.b.op(g.sg, ops::ASSIGN_VARIABLE, &[h, *t], &[]);
                    assigned[v] = true;
                }
            }
            // A slice along axis 1.
            6 => {
                if shape[1] > 1 {
                    let begin = i32::try_from(pick(2, 7)).unwrap().min(shape[1] - 1);
                    let name = fresh(&mut g, "slice");
                    let (y, out) = g.slice(&name, x, &shape, (begin, shape[1]));
                    pool.push((y, out));
                }
            }
            // An addition (of a tensor with itself, at times).
            _ => {
                let others: Vec<i32> = pool
                    .iter()
                    .filter(|(_, p)| *p == shape)
                    .map(|(t, _)| *t)
                    .collect();
                let other = others[pick(others.len(), 8)];
                let name = fresh(&mut g, "add");
                let y = g.tensor(&name, &shape);
                g.b.op(g.sg, ops::ADD, &[x, other], &[y]);
                pool.push((y, shape));
            }
        }
    }
    // Every variable is assigned once at least (its size is what it is assigned).
    for (v, done) in assigned.iter().enumerate() {
        if !done {
            let (h, vshape) = vars[v].clone();
            let (ry, rz) = (fresh(&mut g, "read"), fresh(&mut g, "relu"));
            let y = g.tensor(&ry, &vshape);
            g.b.op(g.sg, ops::READ_VARIABLE, &[h], &[y]);
            let z = g.tensor(&rz, &vshape);
            g.b.op(g.sg, ops::RELU, &[y], &[z]);
            g.b.op(g.sg, ops::ASSIGN_VARIABLE, &[h, z], &[]);
        }
    }
    let last = pool.last().map_or(input, |(t, _)| *t);
    g.b.io(g.sg, &[frame, input], &[last]);
    let options = Options {
        alignment,
        ..Options::default()
    }
    .with_invoke(true);
    (g.b.finish(), options)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 512 }))]

    /// Every random graph plans with `invoke`, and every pair its plan was made with passes
    /// the plan's check at its least displacement.
    #[test]
    fn every_proposed_pair_passes_the_check(
        int8 in any::<bool>(),
        steps in prop::collection::vec(any::<u32>(), 1..40),
        alignment in prop::sample::select(vec![1_u64, 4, 16]),
    ) {
        let dtype = if int8 { DType::Int8 } else { DType::Float32 };
        let (bytes, options) = random_graph(dtype, &steps, alignment);
        let plan = plan_model(&bytes, &options).map_err(|e| TestCaseError::fail(e.to_string()))?;
        every_pair_passes(&plan, &bytes).map_err(TestCaseError::fail)?;
    }
}

/// The random graphs hold what the property is about: plans with aliased reshapes and with
/// pairs, and some with both, over a fixed range of seeds.
#[test]
fn random_graphs_hold_aliases_and_pairs() {
    let (mut aliased, mut paired, mut both) = (0, 0, 0);
    for seed in 0..200_u32 {
        let steps: Vec<u32> = (0..30_u32)
            .map(|k| {
                seed.wrapping_mul(2_654_435_761)
                    .wrapping_add(k.wrapping_mul(40_503))
                    >> 7
            })
            .collect();
        let (bytes, options) = random_graph(DType::Float32, &steps, 16);
        let plan = plan_model(&bytes, &options).unwrap();
        every_pair_passes(&plan, &bytes).unwrap();
        let (a, p) = (
            !plan.aliases.is_empty(),
            !plan.problem.overlaps().is_empty(),
        );
        aliased += usize::from(a);
        paired += usize::from(p);
        both += usize::from(a && p);
    }
    assert!(
        aliased > 20 && paired > 100 && both > 20,
        "{aliased} {paired} {both}"
    );
}
